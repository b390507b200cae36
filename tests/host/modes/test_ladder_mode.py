"""``twistd evolution --ladder`` in the test process: real clients on loopback, the store read back.

Bots stay connected for game after game; every game is a stored ladder game
with each seat's rating; the store's standings are the host's; a bot that
fails is hung up on and comes back with its standing; a name in a game is
not given to another; the standings survive a restart; the lobby's timing on
a ``Clock``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.task import Clock
from twisted.python import usage
from twisted.trial import unittest

from evolution.net.lobbies import BATCH_TABLES, LadderLobby
from evolution.store.results_store import ResultsStore
from tests.support import adversaries as bad
from tests.support.hosting import LocalHost, host_options, log_lines, new_host, until
from tests.support.webhosting import SlowPlayer

QUICK = ("--ladder", "--timeout", "0.5", "--signup-window", "0.05", "--signup-timeout", "0.5")


async def ended(clients: list[Deferred]) -> list[Any]:
    """What each client ended with (an outcome or an error): the host hung up on all of them."""
    results = []
    for client in clients:
        try:
            results.append(await client)
        except Exception as error:
            results.append(error)
    return results


async def settled() -> None:
    """Once the host has stopped: until the answers slow players were still thinking over are given (to nobody)."""
    await until(lambda: all(call.getTime() - reactor.seconds() > 5 for call in reactor.getDelayedCalls()))


def finished_seats(store: ResultsStore, name: str) -> list:
    return [seat for game in store.games() if game.finished for seat in game.players if seat.name == name]


class LadderHostTests(unittest.TestCase):
    timeout = 60

    async def test_bots_stay_connected_for_game_after_game_and_every_game_is_rated_and_stored(self) -> None:
        host = new_host(self, *QUICK, "--players", "3-5")
        names = [f"bot {k}" for k in range(5)]
        clients = [host.client(name) for name in names]
        records = await host.runner.when_games_over(4)
        self.assertFalse(any(client.called for client in clients))  # nobody was hung up on between games
        await host.stop()
        await ended(clients)
        store = await host.stored()
        games = [game for game in store.games() if game.finished]
        self.assertGreaterEqual(len(games), 4)
        self.assertEqual([record.id for record in records[:4]], [game.id for game in games[:4]])
        for game in games:
            self.assertTrue(game.ladder)
            self.assertEqual(sorted(seat.name for seat in game.players), names)  # one table of 5 each round
            self.assertTrue(all(seat.rating_mu is not None and seat.rating_sigma is not None for seat in game.players))
        ladder = {standing.name: (rank, standing) for rank, standing in store.ladder("evolution")}
        self.assertEqual(sorted(ladder), names)
        for name in names:
            seats = finished_seats(store, name)
            rank, standing = ladder[name]
            self.assertEqual(standing.games, len(seats))
            self.assertEqual((standing.rating_mu, standing.rating_sigma), (seats[-1].rating_mu, seats[-1].rating_sigma))
            self.assertEqual(standing, host.ladder.standings.standing(name))
        self.assertEqual(sum(standing.wins for _, standing in ladder.values()) >= len(games), True)
        self.assertEqual(sorted(rank for rank, _ in ladder.values())[0], 1)

    async def test_a_bot_that_fails_is_hung_up_on_and_comes_back_with_its_standing(self) -> None:
        host = new_host(self, *QUICK, "--players", "3-3")
        cheat = ensureDeferred(bad.adversary(host.port, "cheat", "choose", bad.send("no")))
        await until(lambda: len(host.factory.lobby) == 1)
        others = [host.client(name, SlowPlayer(0.05)) for name in ("ann", "bo")]  # games that last a while
        seated: set[str] = set()
        host.runner.watch(lambda event, game: seated.update(game.names))
        [cut] = await ended([cheat])  # removed in its first game: the host hangs up
        self.assertEqual(len(host.runner.running), 1)  # the game goes on without it...
        again = host.client("cheat")  # ... and it comes back at once, under its name: the same entry of the ladder
        await until(lambda: host.ladder.standings.standing("cheat").games >= 3)
        self.assertEqual(seated, {"ann", "bo", "cheat"})
        await host.stop()
        await ended(others + [again])
        await settled()
        store = await host.stored()
        [(rank, standing)] = [(rank, s) for rank, s in store.ladder() if s.name == "cheat"]
        self.assertGreaterEqual(standing.games, 3)
        self.assertEqual(standing.removals, 1)
        seats = finished_seats(store, "cheat")
        self.assertEqual(len(seats), standing.games)
        self.assertIn("invalid reply to choose", seats[0].removed_reason)
        self.assertTrue(all(seat.removed_reason is None for seat in seats[1:]))
        self.assertNotIn("cheat#2", [s.name for _, s in store.ladder()])

    async def test_a_name_playing_a_game_is_not_given_to_another_bot(self) -> None:
        host = new_host(self, *QUICK, "--players", "3-3", "--timeout", "2")
        clients = [host.client(name, SlowPlayer(0.1)) for name in ("ann", "bo", "cy")]
        await until(lambda: host.runner.running)
        self.assertEqual((host.ladder.policy.names_held(), host.factory.lobby), ({"ann", "bo", "cy"}, []))
        second = await bad.raw_connection(host.port, b'["sign-up","ann"]\n')
        self.assertEqual(await second.first_line, b'["ok","ann#2"]\n')
        self.assertEqual(len(host.runner.running), 1)  # "ann" was in its game all along
        second.transport.loseConnection()
        await host.stop()
        await ended(clients)
        await settled()

    async def test_the_standings_survive_a_restart_and_go_on(self) -> None:
        folder = Path(self.mktemp())
        folder.mkdir()
        first = LocalHost(folder, *QUICK, "--players", "3-3")
        clients = [first.client(name) for name in ("ann", "bo", "cy")]
        await first.runner.when_games_over(2)
        await first.stop()
        await ended(clients)
        before = {name: first.ladder.standings.standing(name) for name in ("ann", "bo", "cy")}

        second = LocalHost(folder, *QUICK, "--players", "3-3")
        self.addCleanup(second.stop)
        self.assertEqual({name: second.ladder.standings.standing(name) for name in before}, before)
        clients = [second.client(name) for name in ("ann", "bo", "cy")]
        await second.runner.when_games_over(1)
        await second.stop()
        await ended(clients)
        store = ResultsStore.open(folder / "results.sqlite")
        self.addCleanup(store.close)
        for _, standing in store.ladder():
            self.assertEqual(standing.games, len(finished_seats(store, standing.name)))
            self.assertGreater(standing.games, before[standing.name].games)

    async def test_a_game_the_stopping_host_aborts_is_stored_and_counts_for_nobody(self) -> None:
        lines = log_lines(self)
        host = new_host(self, *QUICK, "--players", "3-3", "--timeout", "5")
        clients = [host.client(name) for name in ("ann", "bo")]
        stuck = ensureDeferred(bad.adversary(host.port, "stuck", "choose", bad.silent))
        await until(lambda: host.runner.running)
        await host.stop()
        await ended(clients + [stuck])
        store = await host.stored()
        [game] = store.games()
        self.assertEqual((game.ladder, game.outcome), (True, "aborted: the host stopped"))
        self.assertEqual(store.ladder(), [])
        # the host stopped, and the players were there: not "nobody left"
        self.assertTrue(any("the host is stopping: the ladder stops after 1 round, hanging up on 0 bots waiting and 3"
                            " in games" in line for line in lines), lines)
        [aborted] = [line for line in lines if line.startswith(f"game {game.id} aborted: the host stopped after ")]
        still_in = aborted.split(": not ranked; ")[1]
        self.assertTrue(still_in.endswith(" were still in"), aborted)
        self.assertEqual(sorted(still_in.removesuffix(" were still in").split(", ")), ["'ann'", "'bo'", "'stuck'"])


class LadderLobbyTests(unittest.TestCase):
    def lobby(self, window: float = 1.0, **choose: Any) -> tuple[LadderLobby, Any, list]:
        formed: list[list] = []
        clock = Clock()
        policy = LadderLobby(window, formed.append, **choose)
        factory = Gathered(clock, policy)
        return policy, factory, formed

    def test_games_form_a_window_after_enough_wait_from_all_then_waiting(self) -> None:
        policy, factory, formed = self.lobby()
        factory.arrive("a", "b")
        factory.clock.advance(5)
        self.assertEqual(formed, [])  # two cannot play
        factory.arrive("c")
        factory.clock.advance(0.5)
        factory.arrive("d")
        self.assertEqual(policy.status()["starts_at"], 1.0 + 5)
        factory.clock.advance(0.5)
        self.assertEqual([[c.name for c in players] for players in formed], [["a", "b", "c", "d"]])
        self.assertEqual(policy.names_held(), {"a", "b", "c", "d"})
        self.assertEqual(factory.lobby, [])

    def test_players_come_back_after_their_game_and_are_hung_up_on_once_it_stopped(self) -> None:
        policy, factory, formed = self.lobby()
        factory.arrive("a", "b", "c")
        factory.clock.advance(1)
        a, b, c = formed[0]
        policy.back(a)
        policy.gone(b)
        self.assertEqual((factory.lobby, policy.names_held()), ([a], {"c"}))
        c.state = "closed"  # hung up on (removed) while its game goes on: its name is free at once
        self.assertEqual(policy.names_held(), set())
        c.state = "playing"
        policy.stop()
        policy.back(c)
        self.assertTrue(c.closed)
        self.assertEqual(policy.names_held(), set())

    def test_sizes_that_cannot_hold_everyone_leave_the_last_to_come_for_the_next_round(self) -> None:
        policy, factory, formed = self.lobby()
        factory.config.min_players = factory.config.max_players = 4
        factory.arrive("a", "b", "c", "d", "e", "f")
        factory.clock.advance(1)
        self.assertEqual([c.name for c in formed[0]], ["a", "b", "c", "d"])
        self.assertEqual([c.name for c in factory.lobby], ["e", "f"])

    def test_games_form_at_once_when_enough_full_tables_wait_and_the_last_to_come_wait_at_most_the_window(self) -> None:
        policy, factory, formed = self.lobby(window=0.1)
        batch = BATCH_TABLES * 5  # tables of 3-5
        factory.arrive(*(f"bot {k}" for k in range(batch - 1)))
        factory.clock.advance(0)
        self.assertEqual(formed, [])  # fewer than the batch: they wait out the window...
        factory.arrive("late", "later", "latest")  # ... until the batch is there: on the reactor's next turn
        self.assertEqual(policy.status()["starts_at"], 0.0)
        factory.clock.advance(0)
        self.assertEqual(len(formed), 1)
        self.assertEqual(len(formed[0]), batch)  # full tables only, in the order they came to wait
        self.assertEqual([c.name for c in factory.lobby], ["later", "latest"])
        self.assertEqual(policy.status()["starts_at"], None)  # two cannot play
        factory.arrive("last")
        factory.clock.advance(0.05)
        self.assertEqual(len(formed), 1)
        factory.clock.advance(0.05)  # the window after enough waited, not a tick of a second
        self.assertEqual([c.name for c in formed[1]], ["later", "latest", "last"])

    def test_bots_back_from_their_games_play_again_as_soon_as_a_batch_of_them_is_back(self) -> None:
        policy, factory, formed = self.lobby(window=1.0)
        factory.config.min_players = factory.config.max_players = 4
        factory.arrive(*(f"bot {k}" for k in range(2 * BATCH_TABLES * 4)))
        factory.clock.advance(0)
        [first] = formed
        for connection in first:  # every game ends at once: the bots are back in the same turn of the reactor
            policy.back(connection)
        self.assertEqual(len(formed), 1)
        factory.clock.advance(0)
        self.assertEqual([len(players) for players in formed], [32, 32])
        self.assertEqual(factory.clock.seconds(), 0)  # no window waited out, ever
        self.assertEqual(set(formed[1]), set(first))

    def test_whom_to_seat_is_chosen_from_all_waiting_and_none_chosen_waits_for_the_next_to_come(self) -> None:
        chosen: list[tuple[list[str], int]] = []

        def choose(waiting: list, count: int) -> list:  # as --accounts: a and b belong to one owner
            chosen.append(([c.name for c in waiting], count))
            return [c for c in waiting if c.name != "b"][:count] if len(waiting) > count else []

        policy, factory, formed = self.lobby(choose=choose)
        factory.config.max_players = 3
        factory.arrive("a", "b", "c")
        factory.clock.advance(1)
        self.assertEqual((formed, chosen), ([], [(["a", "b", "c"], 3)]))
        self.assertEqual(policy.status()["starts_at"], None)  # no timer runs on, forming nothing again and again
        factory.arrive("d")
        factory.clock.advance(1)
        self.assertEqual([[c.name for c in players] for players in formed], [["a", "c", "d"]])
        self.assertEqual([c.name for c in factory.lobby], ["b"])

    def test_while_the_host_is_overloaded_no_batch_forms(self) -> None:
        policy, factory, formed = self.lobby(window=0.1)
        policy.holding = True
        factory.arrive(*(f"bot {k}" for k in range(BATCH_TABLES * 5)))
        factory.clock.advance(5)
        self.assertEqual(formed, [])


class Waiting:
    """A signed-up connection as the lobby sees it."""

    transport = None

    def __init__(self, name: str) -> None:
        self.name = name
        self.state = "in-lobby"
        self.closed = False

    def close(self) -> None:
        self.closed = True


class Gathered:
    """The sign-up factory as a ladder's lobby sees it: its lobby, clock and sizes."""

    def __init__(self, clock: Clock, policy: LadderLobby) -> None:
        self.clock = clock
        self.lobby: list[Waiting] = []
        self.config = type("Config", (), {"min_players": 3, "max_players": 5})()
        self.policy = policy
        policy.attach(self)

    def arrive(self, *names: str) -> None:
        for name in names:
            self.lobby.append(Waiting(name))
            self.policy.joined()

    def rejoin(self, connection: Waiting) -> None:
        self.lobby.append(connection)
        self.policy.joined()

    def take_lobby(self, count: int | None = None) -> list[Waiting]:
        players, self.lobby = self.lobby[:count], self.lobby[count:]
        return players

    def take(self, players: list[Waiting]) -> list[Waiting]:
        self.lobby = [connection for connection in self.lobby if connection not in players]
        return players


def test_a_ladder_is_one_mode_of_the_host_and_gathers_for_a_tenth_of_a_second_by_default():
    options = host_options(Path("r.sqlite"), "--ladder")
    assert options["signup-window"] == 0.1
    for extra, message in [
        (("--tournament", "swiss"), "--ladder and --tournament are two ways to run the host"),
        (("--games", "3"), "--games is for single games; a ladder runs until it is stopped"),
        (("--rounds", "3"), "--rounds goes with --tournament knockout or swiss, not --ladder"),
    ]:
        try:
            host_options(Path("r.sqlite"), "--ladder", *extra)
        except usage.UsageError as error:
            assert str(error).startswith(message), error
        else:
            raise AssertionError(f"--ladder {' '.join(extra)} was taken")
