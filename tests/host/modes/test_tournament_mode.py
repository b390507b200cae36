"""Whole tournaments over loopback: real sockets, in-process clients, the host's own store.

Each test signs its bots up one after another (sign-up order decides the
games), lets the tournament run, and checks what organisers and bot
authors see: the games each round held, who went on, the final, the
winners, the failures with their reasons, the standings, the ratings, the
clients' own view (every game played on one connection), and that every
stored game replays to its result.
"""

from __future__ import annotations

import os
import signal
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.trial import unittest

from evolution.cli.evolution_client import Thinking
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.evolution.strategies import BY_NAME
from evolution.games.evolution.wire.messages import message_kind
from evolution.net.client import ClientProtocol, Refused, conversation, play_remote
from evolution.store.results_store import ResultsStore
from evolution.text import quoted
from tests.support.hosting import ANSWER_LIMIT, SIGNUP_LIMIT, log_lines, new_host, stored_tournament, until
from tests.support.process_tree import descendants, still_there

FAST = ("--timeout", ANSWER_LIMIT, "--signup-timeout", SIGNUP_LIMIT, "--number-grace", "0.01")
WAIT_FOR_ALL = ("--signup-window", "60")  # the tournament begins once --max-signups are in, however long that takes


def knockout(count: int, *extra: str) -> tuple[str, ...]:
    return ("--tournament", "knockout", "--max-signups", str(count), *WAIT_FOR_ALL, *FAST, *extra)


class TournamentCase(unittest.TestCase):
    timeout = 120

    async def sign_up(self, host: Any, names: list[str], strategies: dict[str, str] | None = None) -> list:
        """Sign the bots up in the order given; return their clients' Deferreds."""
        clients = []
        for name in names:
            before = len(host.factory.lobby)
            kind = (strategies or {}).get(name, "silly")
            clients.append(host.client(name, BY_NAME[kind]()))
            started = host.tournaments.current is not None
            done = host.tournaments.done  # a small tournament may begin and end between two looks
            await until(lambda: len(host.factory.lobby) > before or host.tournaments.current is not None or started
                        or host.tournaments.done > done)
        return clients

    async def play(self, host: Any, names: list[str], strategies: dict[str, str] | None = None) -> tuple:
        clients = await self.sign_up(host, names, strategies)
        return await stored_tournament(self, host, clients)  # every game replayed from its log to its result

    def rounds(self, store: Any, tournament: Any) -> list[list[list[str]]]:
        """The games of each round, each game its seats' names in turn order."""
        games = {game.id: game for game in store.games(tournament.id)}
        return [[[seat.name for seat in games[g].players] for g in round.games] for round in tournament.rounds]


class KnockoutTests(TournamentCase):
    async def test_three_players_play_one_final(self) -> None:
        host = new_host(self, *knockout(3))
        store, tournament, outcomes = await self.play(host, ["a", "b", "c"])
        self.assertEqual(self.rounds(store, tournament), [[["a", "b", "c"]]])
        [final] = store.games(tournament.id)
        best = max(seat.score for seat in final.players)
        self.assertEqual(tournament.to_json()["winners"], [s.name for s in final.players if s.score == best])
        self.assertEqual(tournament.status, "finished")
        self.assertTrue(all(outcome.turns == final.turns for outcome in outcomes))

    async def test_nine_players_play_six_and_three_then_a_final_with_the_best_runner_up(self) -> None:
        host = new_host(self, *knockout(9, "--seed", "9"))
        names = [f"p{k}" for k in range(1, 10)]
        store, tournament, outcomes = await self.play(host, names)
        rounds = self.rounds(store, tournament)
        self.assertEqual(rounds[0], [names[:6], names[6:]])
        games = store.games(tournament.id)
        firsts, runners_up = [], []
        for game in games[:2]:
            best = max(seat.score for seat in game.players)
            firsts += [seat.name for seat in game.players if seat.score == best]
            runners_up += [seat for seat in game.players if seat.score < best]
        [final] = rounds[1]
        # Everyone tied for first goes on; if that is fewer than 3, the best runners-up (by
        # score, then sign-up order) join them so that a final of 3 is played.
        lifted = sorted(runners_up, key=lambda seat: (-seat.score, names.index(seat.name)))[: max(0, 3 - len(firsts))]
        self.assertEqual(sorted(final), sorted(firsts + [seat.name for seat in lifted]))
        self.assertEqual(len(rounds), 2)
        summary = tournament.to_json()
        self.assertEqual(summary["format"], "knockout")
        self.assertEqual(summary["games"], [g.id for g in games])
        ranks = [row["rank"] for row in summary["standings"]]
        self.assertEqual((ranks[0], ranks), (1, sorted(ranks)))
        self.assertEqual(summary["winners"], [row["name"] for row in summary["standings"] if row["rank"] == 1])
        # Each bot played its games on one connection: finalists two games, the rest one.
        played = {name: sum(1 for game in games if name in [s.name for s in game.players]) for name in names}
        self.assertEqual(sorted(played.values()), [1] * (9 - len(final)) + [2] * len(final))
        turns = {name: sum(g.turns for g in games if name in [s.name for s in g.players]) for name in names}
        self.assertEqual([outcome.turns for outcome in outcomes], [turns[name] for name in names])

    async def test_knockout_standings_say_what_ranks_them_and_show_that_not_points(self) -> None:
        host = new_host(self, *knockout(10, "--seed", "10"))
        store, tournament, _ = await self.play(host, [f"k{k:02}" for k in range(1, 11)])
        summary = tournament.to_json()
        self.assertEqual(summary["ranked_by"], ["winners first", "the round reached", "the place in that round's game",
                                                "the score in it"])
        rows = summary["standings"]
        self.assertEqual({tuple(row) for row in rows}, {("name", "rank", "reached", "place", "score")})
        keys = [(row["name"] not in summary["winners"], -row["reached"], row["place"], -row["score"]) for row in rows]
        self.assertEqual(keys, sorted(keys))  # the order is what ranked_by says
        for (key, row), (next_key, next_row) in zip(zip(keys, rows), zip(keys[1:], rows[1:])):
            self.assertEqual(row["rank"] == next_row["rank"], key == next_key)
        self.assertEqual(host.tournaments.runs[-1].record().to_json()["standings"], rows)  # live, as stored
        seats = [seat for game in store.games(tournament.id) for seat in game.players]
        self.assertEqual({seat.points for seat in seats}, {None})  # a knockout's games give no tournament points
        self.assertTrue(all(seat.entrant is not None for seat in seats))

    async def test_a_tied_final_is_played_off_with_final_tiebreak_playoff(self) -> None:
        host = new_host(self, *knockout(3, "--deck", "sorted", "--final-tiebreak", "playoff"))
        store, tournament, _ = await self.play(host, ["a", "b", "c"])
        final, playoff = store.games(tournament.id)[:2]
        best = max(seat.score for seat in final.players)
        tied = [seat.name for seat in final.players if seat.score == best]
        [filler] = [seat.name for seat in final.players if seat.score < best]  # the sorted deck ties two of three
        self.assertEqual([seat.name for seat in playoff.players], sorted(tied) + [filler])
        self.assertEqual([(seat.entrant, seat.points) for seat in playoff.players if seat.name == filler], [(None, None)])
        summary = tournament.to_json()
        self.assertEqual(summary["settings"]["final_tiebreak"], "playoff")
        self.assertTrue(set(summary["winners"]) <= set(tied))
        self.assertEqual(summary["standings"][-1]["name"], filler)  # its result in the play-off did not count
        self.assertEqual(summary["standings"][-1]["reached"], 1)
        self.assertIn("tied for first: play-off 1 follows", tournament.rounds[0].summary)
        self.assertEqual(host.tournaments.runs[-1].record().to_json()["standings"], summary["standings"])

    async def test_failing_bots_are_out_for_good_and_listed_with_their_reasons(self) -> None:
        host = new_host(self, *knockout(17, "--seed", "17"))
        names = [f"bot{k:02}" for k in range(1, 18)]
        kinds = {"bot03": "cheater", "bot12": "sleeper", **{n: "builder" for n in names[::4]}}
        store, tournament, outcomes = await self.play(host, names, kinds)
        rounds = self.rounds(store, tournament)
        self.assertEqual([len(game) for game in rounds[0]], [8, 6, 3])
        failures = {f["name"]: f["reason"] for f in tournament.to_json()["failures"]}
        self.assertEqual(set(failures), {"bot03", "bot12"})
        self.assertIn("card", failures["bot03"])  # an illegal Action4 (a card used twice)
        self.assertEqual(failures["bot12"], f"no reply to feed-next within {ANSWER_LIMIT} s")
        later = {name for round in rounds[1:] for game in round for name in game}
        self.assertFalse(later & {"bot03", "bot12"})
        standings = tournament.to_json()["standings"]
        self.assertEqual([row["rank"] for row in standings[-2:]], [None, None])
        self.assertTrue(tournament.winners)

    async def test_forty_players_play_five_games_then_on_to_a_final(self) -> None:
        host = new_host(self, *knockout(40, "--seed", "40"))
        names = [f"n{k:02}" for k in range(1, 41)]
        store, tournament, outcomes = await self.play(host, names, {n: "builder" for n in names[1::3]})
        rounds = self.rounds(store, tournament)
        self.assertEqual(rounds[0], [names[i:i + 8] for i in range(0, 40, 8)])
        self.assertLessEqual(len(rounds[-1]), 1)
        self.assertGreaterEqual(len(rounds[-1][0]), 3)
        self.assertEqual(len(outcomes), 40)
        for round in tournament.rounds:
            self.assertTrue(round.summary)

    async def test_ten_players_play_seven_and_three(self) -> None:
        host = new_host(self, *knockout(10, "--seed", "10"))
        store, tournament, outcomes = await self.play(host, [f"t{k}" for k in range(1, 11)])
        self.assertEqual([len(g) for g in self.rounds(store, tournament)[0]], [7, 3])
        self.assertEqual(tournament.status, "finished")

    async def test_a_bot_that_hangs_up_between_games_is_out_with_that_reason(self) -> None:
        # Nine bots: games of 6 and 3. The leaver shares the small game with two cheaters, who are
        # removed in turn 2, so it wins that game; then it hangs up as soon as it sees the scores,
        # while the six, who take their time, still play the other game of the round.
        host = new_host(self, *knockout(9, "--seed", "3", "--send-scores"))
        names = [f"p{k}" for k in range(1, 7)] + ["leaver", "c1", "c2"]
        clients = []
        for name in names[:6]:
            clients.append(host.client(name, Thinking(SillyPlayer(), 0.02, reactor)))
            await until(lambda: len(host.factory.lobby) == len(clients))
        leaver = await leaving_client(host.port)
        await until(lambda: len(host.factory.lobby) == 7)
        clients += await self.sign_up(host, ["c1", "c2"], {"c1": "cheater", "c2": "cheater"})
        await host.tournaments.when_over(1)
        await gatherResults([c.addErrback(lambda f: None) for c in clients] + [leaver.done.addErrback(lambda f: None)])
        store = await host.stored()
        [tournament] = store.tournaments()
        rounds = self.rounds(store, tournament)
        self.assertEqual(rounds[0][1], ["leaver", "c1", "c2"])
        failures = {f["name"]: f for f in tournament.to_json()["failures"]}
        self.assertEqual(failures["leaver"]["reason"], "disconnected while waiting for a game")
        self.assertEqual(failures["leaver"]["round"], 1)
        self.assertNotIn("leaver", [name for game in rounds[1] for name in game])
        self.assertEqual(tournament.status, "finished")


async def leaving_client(port: int) -> ClientProtocol:
    """A silly bot that hangs up when it sees its first game's scores."""
    from twisted.internet import reactor
    from twisted.internet.endpoints import TCP4ClientEndpoint
    from twisted.internet.protocol import Factory

    class Leaving(ClientProtocol):
        def _handle(self, value: Any) -> Any:
            if self.signed_up and message_kind(value) == "score":
                self.transport.loseConnection()
                return None
            return super()._handle(value)

    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", port)
    return await endpoint.connect(Factory.forProtocol(lambda: Leaving(conversation("leaver", SillyPlayer()))))


class SignupTests(TournamentCase):
    async def test_too_few_sign_ups_after_the_last_period_is_an_empty_tournament(self) -> None:
        # Two periods of 1 s: three in-process sign-ups take milliseconds, even on a busy machine.
        host = new_host(self, "--tournament", "knockout", "--signup-window", "1", "--signup-periods", "2",
                        "--min-signups", "4", *FAST)
        clients = await self.sign_up(host, ["x", "y", "z"])
        await host.tournaments.when_over(1)
        outcomes = await gatherResults([c.addErrback(lambda f: f.value) for c in clients])
        self.assertTrue(all(outcome.turns == 0 for outcome in outcomes))  # signed up, closed, never played
        [tournament] = (await host.stored()).tournaments()
        summary = tournament.to_json()
        self.assertEqual((summary["status"], summary["winners"], summary["games"]), ("empty", [], []))
        self.assertEqual([row["name"] for row in summary["standings"]], ["x", "y", "z"])

    async def test_a_sign_up_after_the_start_gets_game_full(self) -> None:
        host = new_host(self, *knockout(3))
        clients = await self.sign_up(host, ["a", "b", "c"])
        await until(lambda: host.runner.games_begun == 1)
        late = host.client("late")
        error = await self.assertFailure(late, Refused)
        self.assertIn("game full", str(error))
        await gatherResults(clients)

    async def test_a_period_that_ends_with_enough_players_starts_the_tournament(self) -> None:
        host = new_host(self, "--tournament", "swiss", "--rounds", "1", "--signup-window", "2", *FAST)
        clients = await self.sign_up(host, ["a", "b", "c", "d"])
        await host.tournaments.when_over(1)
        await gatherResults(clients)
        [tournament] = (await host.stored()).tournaments()
        self.assertEqual((tournament.status, len(tournament.entrants)), ("finished", 4))


class SwissTests(TournamentCase):
    async def test_seventeen_players_three_rounds_pods_by_points_ratings_and_a_failure(self) -> None:
        host = new_host(self, "--tournament", "swiss", "--rounds", "3", "--max-signups", "17", "--seed", "3",
                        *WAIT_FOR_ALL, *FAST)
        names = [f"s{k:02}" for k in range(1, 18)]
        kinds = {"s05": "cheater", **{n: "builder" for n in names[::3]}}
        store, tournament, outcomes = await self.play(host, names, kinds)
        games = store.games(tournament.id)
        self.assertEqual([len(round.games) for round in tournament.rounds], [3, 2, 2])  # 17, then 16: 8 + 8
        # Rounds 2 and 3: the players of each game were next to each other in the standings.
        points_after: dict[str, int] = {name: 0 for name in names}
        by_round: dict[int, list] = {}
        for game in games:
            by_round.setdefault(game.round, []).append(game)
        for round in (1, 2, 3):
            if round > 1:
                pods = [[points_after[s.name] for s in g.players] for g in by_round[round]]
                flat = [p for pod in pods for p in pod]
                self.assertEqual(flat, sorted(flat, reverse=True), f"round {round} pods {pods}")
            for game in by_round[round]:
                for seat in game.players:
                    points_after[seat.name] += seat.points or 0
        summary = tournament.to_json()
        table = {row["name"]: row for row in summary["standings"]}
        self.assertEqual({name: table[name]["points"] for name in names}, points_after)
        # Everyone starts at 25 +- 8.33; every game played narrows the uncertainty.
        self.assertTrue(all(row["rating"] is not None and row["rating_sigma"] < 25 / 3 for row in summary["standings"]))
        self.assertEqual([f["name"] for f in summary["failures"]], ["s05"])
        self.assertEqual(table["s05"]["rank"], None)
        self.assertNotIn("s05", [s.name for g in by_round[3] for s in g.players])
        ranked = [row for row in summary["standings"] if row["rank"] is not None]
        self.assertEqual([row["points"] for row in ranked], sorted((r["points"] for r in ranked), reverse=True))
        self.assertEqual(summary["winners"], [row["name"] for row in ranked if row["rank"] == 1])
        # Equal points are split by the rating's mu - 3 sigma ("ordinal"), which the standings name and show.
        self.assertEqual(summary["ranked_by"], ["points", "the rating mu - 3 sigma"])
        keys = [(-row["points"], -row["ordinal"]) for row in ranked]
        self.assertEqual(keys, sorted(keys))
        self.assertTrue(all(abs(row["ordinal"] - (row["rating"] - 3 * row["rating_sigma"])) < 0.005 for row in ranked))


class EscapedNamesTests(TournamentCase):
    async def test_every_log_line_shows_a_name_the_same_way(self) -> None:
        # Escaped once and quoted: 'cheat\x1b[2J\'\\' (before, some lines went through repr() too
        # and showed 'cheat\\x1b[2J...', others showed it once).
        lines = log_lines(self)
        odd = {"cheat\x1b[2J'\\": "cheater", "calm\u202e'\\": "silly"}
        host = new_host(self, *knockout(4))
        await self.play(host, [*odd, "b", "c"], odd)
        for name in odd:
            mentions = [line for line in lines if name[:4] in line]
            self.assertEqual([line for line in mentions if quoted(name) not in line], [])
            for kind in ("signed up ", "begins with 4 players", "game 1 begins"):
                self.assertTrue([line for line in mentions if kind in line], (name, kind, mentions))
        cheat = [line for line in lines if "cheat" in line]
        for kind in ("game 1: removed ", "1 failed: "):
            self.assertTrue([line for line in cheat if kind in line], (kind, cheat))


class TellRemovedBetweenGamesTests(TournamentCase):
    async def test_a_bot_that_talks_between_games_is_told_why_it_is_out(self) -> None:
        # As the leaver's test: the chatty bot wins the small game (its two rivals cheat), then
        # talks while the other game of the round, between bots that take their time, goes on.
        host = new_host(self, *knockout(9, "--seed", "3", "--send-scores", "--tell-removed"))
        clients = []
        for name in [f"p{k}" for k in range(1, 7)]:
            clients.append(host.client(name, Thinking(SillyPlayer(), 0.02, reactor)))
            await until(lambda: len(host.factory.lobby) == len(clients))
        chatty = await chatty_client(host.port)
        await until(lambda: len(host.factory.lobby) == 7)
        clients += await self.sign_up(host, ["c1", "c2"], {"c1": "cheater", "c2": "cheater"})
        await host.tournaments.when_over(1)
        await gatherResults([c.addErrback(lambda f: None) for c in clients])
        self.assertIn(b'["removed","sent a message while waiting for a game"]', b"".join(chatty.received))
        [tournament] = (await host.stored()).tournaments()
        failures = {f["name"]: f["reason"] for f in tournament.to_json()["failures"]}
        self.assertEqual(failures["chatty"], "sent a message while waiting for a game")


class RemovedOnceStoredTests(TournamentCase):
    """A bot put out between games is hung up on only once the store holds why: were it hung up on first, a host
    killed in between would forget it, and the bot, signing up again (--reconnect) to the resumed tournament, would
    play on. The store process is held (SIGSTOP, as a hung disk holds it) while the bot is put out."""

    async def swiss_of_three(self) -> tuple[Any, list, list, dict]:
        """A Swiss of a, b, c, its first game begun and its store process held; what the store held as failures
        when c was hung up on (filled in then), the clients, and c's client connection."""
        lines = log_lines(self)
        host = new_host(self, "--tournament", "swiss", "--rounds", "2", "--max-signups", "3", *WAIT_FOR_ALL, *FAST,
                        "--workers", "0")
        await host.ready()
        stored_when_hung_up: list[list[str]] = []
        client: dict[str, ClientProtocol] = {}

        def connected(protocol: ClientProtocol) -> None:
            client["c"], lost = protocol, protocol.connectionLost

            def hung_up(reason: Any) -> None:
                store = ResultsStore.open(host.options["db"])
                try:
                    stored_when_hung_up.append([failure.reason for failure in store.failures(1)])
                finally:
                    store.close()
                lost(reason)

            protocol.connectionLost = hung_up  # type: ignore[method-assign]

        # Each answer a twentieth of a second: game 1 lasts seconds, so the store is held while it plays (held only
        # once round 2 had begun, the tournament would end with nobody put out, as it did on a busy machine).
        clients = [ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, name, Thinking(
            SillyPlayer(), 0.05, reactor), retries=0, connected=connected if name == "c" else None)) for name in "abc"]
        await until(lambda: any("game 1 begins" in line for line in lines))
        [store] = [p for p in descendants(os.getpid()) if "writer_process" in p.command and
                   str(host.options["db"]) in p.command]
        os.kill(store.pid, signal.SIGSTOP)
        self.assertIn(1, host.runner.running)  # game 1 plays on: nothing of it, or after it, can be stored now
        self.addCleanup(lambda: still_there(store) and os.kill(store.pid, signal.SIGCONT))
        self.store_pid = store.pid
        return host, clients, stored_when_hung_up, client

    async def hung_up_once_stored(self, host: Any, clients: list, stored_when_hung_up: list, reason: str) -> None:
        with self.assertRaisesRegex(Refused, "game full"):  # a sign-up answered: a hang-up would have arrived
            await play_remote(reactor, "127.0.0.1", host.port, "late", SillyPlayer(), retries=0)
        self.assertEqual(stored_when_hung_up, [])  # not yet: the store has not kept why it is out
        os.kill(self.store_pid, signal.SIGCONT)
        _, tournament, _ = await stored_tournament(self, host, clients)
        self.assertEqual(stored_when_hung_up, [[reason]])
        self.assertEqual([(e.name, e.failure) for e in tournament.failures], [("c", reason)])

    async def test_a_withdrawn_bot_is_hung_up_on_only_once_the_store_holds_its_withdrawal(self) -> None:
        host, clients, stored_when_hung_up, _ = await self.swiss_of_three()
        self.assertTrue(host.tournaments.current.withdraw("c", "testing"))
        await self.hung_up_once_stored(host, clients, stored_when_hung_up, "withdrawn by the organiser: testing")

    async def test_a_bot_that_speaks_between_games_is_hung_up_on_only_once_the_store_holds_why(self) -> None:
        # Round 1's one game ends; round 2's tables wait to be stored, so the bots wait between games: c speaks.
        host, clients, stored_when_hung_up, client = await self.swiss_of_three()
        run = host.tournaments.current
        [c] = [entrant for entrant in run.entrants if entrant.name == "c"]
        await until(lambda: c.handle.state == "in-lobby")
        client["c"].transport.write(b'"unasked"\n')
        await until(lambda: c.failure is not None)
        await self.hung_up_once_stored(host, clients, stored_when_hung_up, "sent a message while waiting for a game")


    async def test_a_bot_out_after_its_table_was_dealt_is_not_seated_at_it(self) -> None:
        # c speaks while round 2's table (a, b, c) waits to be stored: out before its game began, it is not seated
        # (as a resume that read its failure would not seat it; seated, its game waited out its time limit). The
        # two left are too few for a game of Evolution: a walkover.
        host, clients, stored_when_hung_up, client = await self.swiss_of_three()
        [c] = [entrant for entrant in host.tournaments.current.entrants if entrant.name == "c"]
        await until(lambda: c.handle.state == "in-lobby")
        client["c"].transport.write(b'"unasked"\n')
        await until(lambda: c.failure is not None)
        await self.hung_up_once_stored(host, clients, stored_when_hung_up, "sent a message while waiting for a game")
        store = await host.stored()
        [tournament] = store.tournaments()
        self.assertEqual([[seat.name for seat in game.players] for game in store.games(tournament.id)
                          if game.round == 2], [])
        names = {entrant.entrant: entrant.name for entrant in tournament.entrants}
        self.assertEqual([(table.round, sorted(names[number] for number in table.walkover))
                          for table in store.tables(tournament.id) if table.walkover is not None], [(2, ["a", "b"])])


async def chatty_client(port: int) -> ClientProtocol:
    """A silly bot that, seeing its game's scores, says something nobody asked for."""
    from twisted.internet.endpoints import TCP4ClientEndpoint
    from twisted.internet.protocol import Factory

    class Chatty(ClientProtocol):
        def __init__(self, name: str, player: Any) -> None:
            super().__init__(conversation(name, player))
            self.received: list[bytes] = []

        def dataReceived(self, data: bytes) -> None:
            self.received.append(data)
            super().dataReceived(data)

        def _handle(self, value: Any) -> Any:
            if self.signed_up and message_kind(value) == "score":
                self.sendMessage("hello?")
                return None
            return super()._handle(value)

    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", port)
    client = await endpoint.connect(Factory.forProtocol(lambda: Chatty("chatty", SillyPlayer())))
    client.done.addErrback(lambda failure: None)
    return client
