"""The web view's JSON API, over real HTTP on 127.0.0.1, with a real host and real clients."""

from __future__ import annotations

import socket
from pathlib import Path

from twisted.internet import reactor
from twisted.internet.defer import gatherResults
from twisted.internet.testing import MemoryReactorClock
from twisted.trial import unittest
from twisted.web.server import Site

from evolution.host.runner.game_runner import GameRunner, GameSettings
from evolution.replays.transcripts import transcript
from evolution.store.results_store import ResultsStore
from evolution.text import escape
from evolution.web.service import web_service
from tests.support.hosting import until
from tests.support.webhosting import QUICK, HeldPlayer, SlowPlayer, apply, get, new_web_host, tournament_operations

NASTY = '<script>alert("x")</script>\x1b[31m\u202e'


class LobbyAndGamesTests(unittest.TestCase):
    timeout = 60

    async def test_the_overview_shows_who_waits_and_the_sign_up_countdown(self) -> None:
        host = new_web_host(self, "--players", "3-4", "--signup-window", "30")
        empty = (await get(host.url("/api/overview"))).json()
        self.assertEqual(empty["lobby"]["waiting"], [])
        self.assertIsNone(empty["lobby"]["starts_in"])
        self.assertEqual((empty["lobby"]["min_players"], empty["lobby"]["max_players"]), (3, 4))
        clients = []
        for name in ("ann", NASTY, "cy"):
            clients.append(host.client(name))
            await until(lambda: len(host.factory.lobby) == len(clients))
        lobby = (await get(host.url("/api/overview"))).json()["lobby"]
        self.assertEqual(lobby["waiting"], ["ann", NASTY, "cy"])
        self.assertTrue(25 < lobby["starts_in"] <= 30)
        host.client("dee")
        await gatherResults(clients)

    async def test_a_running_game_then_the_same_game_finished_with_its_replay(self) -> None:
        # One player holds its first choice until the game has been read (120 s an answer, not QUICK's 3: a busy
        # machine may take seconds to read it), so the game is surely running, in turn 1, when it is read.
        host = new_web_host(self, "--players", "3-3", *QUICK, "--timeout", "120")
        held = HeldPlayer()
        clients = [host.client("ann", held), host.client("bo", SlowPlayer(0.05)), host.client(NASTY, SlowPlayer(0.05))]
        await until(lambda: host.runner.running)
        [game_id] = host.runner.running
        await held.asked
        await host.until_turn(game_id, 1)  # the game is played in a worker process: its turn, as the API says

        listed = (await get(host.url("/api/games"))).json()
        self.assertEqual([(g["id"], g["status"]) for g in listed], [(game_id, "running")])
        self.assertEqual(sorted(p["name"] for p in listed[0]["players"]), sorted(["ann", "bo", NASTY]))
        running = (await get(host.url(f"/api/games/{game_id}"))).json()
        self.assertEqual(running["status"], "running")
        table = running["table"]
        self.assertGreaterEqual(table["turn"], 1)
        self.assertEqual(len(table["players"]), 3)
        for player in table["players"]:
            self.assertNotIn("cards", player)  # a live view never shows a hand
            self.assertIsInstance(player["hand"], int)
            for species in player["species"]:
                self.assertEqual(set(species), {"population", "body", "food", "fat_food", "traits"})

        held.release()
        await gatherResults(clients)
        [record] = await host.runner.when_games_over(1)
        finished = (await get(host.url(f"/api/games/{game_id}"))).json()
        self.assertEqual(finished["status"], "finished")
        self.assertEqual(
            [(p["name"], p["score"], p["rank"]) for p in finished["players"]],
            [(seat.name, seat.score, seat.rank) for seat in record.players],
        )
        replay = await get(host.url(finished["replay"]), {"Accept-Encoding": "gzip"})
        self.assertEqual(replay.headers["content-encoding"], "gzip")
        frames = replay.json()
        self.assertTrue(frames["reproduced"], frames["differences"])
        last = frames["frames"][-1]
        self.assertEqual(last["turn"], record.turns)
        scores = {p["seat"]: p["score"] for p in last["players"]}
        self.assertEqual(scores, {seat.seat: seat.score for seat in record.players})
        self.assertTrue(any(line["seat"] for frame in frames["frames"] for line in frame["lines"]))
        self.assertIn("cards", last["players"][0])

        await host.stored()
        listed = (await get(host.url("/api/games"))).json()
        self.assertEqual([(g["id"], g["status"]) for g in listed], [(game_id, "finished")])

    async def test_a_stored_game_is_read_from_the_store(self) -> None:
        host = new_web_host(self, "--players", "3-3", *QUICK)
        await gatherResults([host.client(f"bot {i}") for i in range(3)])
        [record] = await host.runner.when_games_over(1)
        await host.stored()
        host.app.view.finished.clear()  # as after a restart: only the store knows the game
        finished = (await get(host.url(f"/api/games/{record.id}"))).json()
        self.assertEqual([p["score"] for p in finished["players"]], [seat.score for seat in record.players])
        frames = (await get(host.url(f"/api/games/{record.id}/replay"))).json()
        self.assertTrue(frames["reproduced"])


class TournamentTests(unittest.TestCase):
    timeout = 60

    async def test_a_stored_tournament_is_served_as_the_results_command_prints_it(self) -> None:
        host = new_web_host(self)
        names = [f"player {i}" for i in range(1, 8)]
        apply(host.options["db"], tournament_operations(1, "swiss", names, 1, cheats=["player 3"]))
        apply(host.options["db"], tournament_operations(2, "knockout", names, 100))
        store = ResultsStore.open(host.options["db"])
        expected = [tournament.to_json() for tournament in store.tournaments()]
        store.close()

        listed = (await get(host.url("/api/tournaments"))).json()
        self.assertEqual(listed, expected)
        one = (await get(host.url("/api/tournaments/1"))).json()
        self.assertEqual({key: one[key] for key in expected[0]}, expected[0])
        self.assertEqual([game["id"] for game in one["game_summaries"]], one["games"])
        self.assertEqual([failure["name"] for failure in one["failures"]], ["player 3"])
        overview = (await get(host.url("/api/overview"))).json()
        self.assertEqual([t["id"] for t in overview["tournaments"]], [2, 1])
        leaders = overview["leaderboard"]
        self.assertEqual(sorted(row["name"] for row in leaders), sorted(names))
        self.assertEqual([row["rank"] for row in leaders], list(range(1, 8)))
        ordinals = [row["ordinal"] for row in leaders]
        self.assertEqual(ordinals, sorted(ordinals, reverse=True))


class HttpTests(unittest.TestCase):
    timeout = 30

    async def test_every_answer_is_locked_down(self) -> None:
        host = new_web_host(self)
        for path in ("/", "/games/3", "/tournaments/1", "/static/style.css", "/api/games", "/api/nothing"):
            answer = await get(host.url(path))
            csp = answer.headers["content-security-policy"]
            self.assertIn("default-src 'none'", csp)
            self.assertIn("script-src 'self'", csp)
            self.assertNotIn("unsafe-inline", csp)
            self.assertEqual(answer.headers["x-content-type-options"], "nosniff")
            self.assertEqual(answer.headers["x-frame-options"], "DENY")

    async def test_errors_are_one_sentence(self) -> None:
        host = new_web_host(self)
        cases = [
            ("/api/games/77", 404, "there is no game 77"),
            ("/api/games/77/replay", 404, "there is no game 77"),
            ("/api/tournaments/5", 404, "there is no tournament 5"),
            ("/api/games?limit=0", 400, "limit takes a whole number from 1 to 500"),
            ("/api/games?before=x", 400, "before takes a whole number"),
            ("/static/../setup.cfg", 404, None),
            ("/static/nothing.js", 404, "no file nothing.js"),
            ("/games/abc", 404, "no such page"),
        ]
        for path, status, sentence in cases:
            answer = await get(host.url(path))
            self.assertEqual(answer.status, status, path)
            if sentence is not None:
                self.assertIn(sentence, answer.json()["error"])
        posted = await get(host.url("/api/games"), method="POST")
        self.assertEqual((posted.status, posted.headers["allow"]), (405, "GET, HEAD"))

    async def test_a_game_that_does_not_run_has_no_event_stream(self) -> None:
        host = new_web_host(self)
        answer = await get(host.url("/api/games/4/events"))
        self.assertEqual(answer.status, 204)  # EventSource stops reconnecting on 204


class LiveTournamentTests(unittest.TestCase):
    timeout = 60

    async def test_a_running_tournament_is_served_live_then_as_stored(self) -> None:
        # Round 1 is k0-k5 and k6-k8; k0 holds the first game until the test has looked.
        host = new_web_host(self, *QUICK, "--tournament", "knockout", "--max-signups", "9", "--signup-window", "60",
                            "--timeout", "30")
        held = HeldPlayer()
        clients = [host.client("k0", held)]
        await until(lambda: len(host.factory.lobby) == 1)
        clients += await host.sign_up_in_order([f"k{k}" for k in range(1, 9)], 0.02)
        await held.asked
        await until(lambda: host.runner.games_over >= 1)
        live = (await get(host.url("/api/tournaments/1"))).json()
        self.assertEqual((live["status"], live["format"]), ("running", "knockout"))
        self.assertEqual(sorted(row["name"] for row in live["standings"]), [f"k{k}" for k in range(9)])
        self.assertEqual(live["rounds"][0]["round"], 1)
        self.assertTrue(set(live["games"]) <= {game.id for game in host.runner.records})
        overview = (await get(host.url("/api/overview"))).json()
        self.assertEqual(overview["lobby"]["mode"], "tournament")
        self.assertIn(1, [t["id"] for t in overview["tournaments"] if t["status"] == "running"])
        held.release()
        await host.tournaments.when_over(1)
        await gatherResults(clients)
        await host.stored()
        over = (await get(host.url("/api/tournaments/1"))).json()
        self.assertEqual(over["status"], "finished")
        self.assertTrue(over["winners"])
        [stored] = (await host.stored()).tournaments()
        self.assertEqual({k: over[k] for k in ("winners", "games", "standings")},
                         {k: stored.to_json()[k] for k in ("winners", "games", "standings")})


def test_the_visible_name_is_the_escaped_name():
    assert escape(NASTY) == '<script>alert("x")</script>\\x1b[31m\\u202e'


class ServiceTests(unittest.TestCase):
    def test_web_service_listens_on_its_endpoint_and_stops_cleanly(self) -> None:
        directory = Path(self.mktemp())
        directory.mkdir(parents=True)
        db = directory / "results.sqlite"
        ResultsStore.open(db).close()
        memory = MemoryReactorClock()
        runner = GameRunner.in_host(GameSettings(), None, memory)
        service = web_service("tcp:8080:interface=127.0.0.1", memory, runner, None, str(db))
        service.startService()
        [(port, factory, _backlog, interface)] = memory.tcpServers
        self.assertEqual((port, interface), (8080, "127.0.0.1"))
        self.assertIsInstance(factory, Site)
        self.assertFalse(factory.displayTracebacks)
        service.stopService()
        self.assertFalse(service.app.reader.started)

    def test_a_web_port_that_cannot_be_had_is_one_sentence(self) -> None:
        taken = socket.socket()
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        self.addCleanup(taken.close)
        endpoint = f"tcp:{taken.getsockname()[1]}:interface=127.0.0.1"
        runner = GameRunner.in_host(GameSettings(), None, reactor)
        service = web_service(endpoint, reactor, runner, None, "unused.sqlite")
        with self.assertRaises(SystemExit) as stopped:
            service.privilegedStartService()
        self.assertIn(f"cannot listen on --web {endpoint}", str(stopped.exception))


class LadderAndTranscriptTests(unittest.TestCase):
    timeout = 60

    async def test_the_ladder_is_served_live_as_the_results_command_prints_it(self) -> None:
        host = new_web_host(self, "--ladder", "--players", "3-3", "--signup-window", "0.05", "--timeout", "0.5")
        overview = (await get(host.url("/api/overview"))).json()  # before any bot: a busy machine plays fast
        self.assertEqual((overview["lobby"]["mode"], overview["ladder"]), ("ladder", []))
        clients = [host.client(name) for name in ("ann", "bo", NASTY)]
        first, *_ = await host.runner.when_games_over(2)
        host.factory.stop()  # no more games: the bots waiting are hung up on, those playing when theirs ends
        for client in clients:
            await client
        store = await host.stored()
        last_seen = {name: max(record.ended_at for record in host.runner.records
                               if name in [seat.name for seat in record.players]) for name in ("ann", "bo", NASTY)}
        expected = [standing.to_json(rank) | {"last_seen": last_seen[standing.name]} for rank, standing in store.ladder()]
        self.assertEqual(sorted(row["name"] for row in expected), sorted(["ann", "bo", NASTY]))
        self.assertEqual([row["games"] for row in expected], [host.runner.games_over] * 3)
        self.assertEqual((await get(host.url("/api/ladder"))).json(), expected)
        overview = (await get(host.url("/api/overview"))).json()
        self.assertEqual((overview["ladder"], overview["lobby"]["open"]), (expected, False))
        game = (await get(host.url(f"/api/games/{first.id}"))).json()
        self.assertTrue(game["ladder"])

    async def test_a_finished_game_s_transcript_downloads_whole_or_by_seat(self) -> None:
        host = new_web_host(self, "--players", "3-3", *QUICK)
        await gatherResults([host.client(name) for name in ("ann", "bo", "cy")])
        [record] = await host.runner.when_games_over(1)
        store = await host.stored()
        whole = await get(host.url(f"/api/games/{record.id}/transcript"))
        self.assertEqual(whole.status, 200)
        self.assertEqual(whole.headers["content-disposition"], f'attachment; filename="game-{record.id}-transcript.json"')
        self.assertEqual(whole.json(), transcript(record, store.game_log(record.id)))
        host.app.view.finished.clear()  # as after a restart: only the store knows the game
        one = await get(host.url(f"/api/games/{record.id}/transcript?seat=2"))
        self.assertEqual(one.json(), transcript(record, store.game_log(record.id), 2))
        self.assertIn("-seat-2.json", one.headers["content-disposition"])
        for path, status, sentence in [
            (f"/api/games/{record.id}/transcript?seat=4", 404, f"game #{record.id} has seats 1 to 3, not 4"),
            (f"/api/games/{record.id}/transcript?seat=x", 400, "seat takes a whole number from 1 to 1000000000000"),
            ("/api/games/99/transcript", 404, "there is no game 99"),
        ]:
            answer = await get(host.url(path))
            self.assertEqual((answer.status, answer.json()), (status, {"error": sentence}))
            self.assertNotIn("content-disposition", answer.headers)
