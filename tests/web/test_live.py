"""Live updates over real HTTP on 127.0.0.1: event streams follow games, the lobby and tournaments,
and a browser that never reads holds back neither a game nor the host's memory."""

from __future__ import annotations

import socket

from twisted.internet import reactor
from twisted.internet.defer import gatherResults
from twisted.internet.task import deferLater
from twisted.trial import unittest

from tests.support.hosting import ANSWER_LIMIT, until
from tests.support.webhosting import (
    QUICK,
    HeldPlayer,
    SlowPlayer,
    apply,
    follow,
    get,
    never_reading,
    new_web_host,
    tournament_operations,
)

SMALL_BUFFER = 8192  # Twisted's send buffer for the stuck watchers (FileDescriptor.bufferSize, 64 KiB by default)
PICTURE = 8192  # the largest picture of a game of three, or of the overview, in these tests


def watchers(hub) -> list:
    return [watcher for topic in hub.topics.values() for watcher in topic.watchers]


def held(watcher) -> int:
    """Bytes the host holds for one watcher in user space: the transport's buffer and the message kept."""
    transport = watcher.request.transport
    buffered = len(transport.dataBuffer) + transport._tempDataLen
    return buffered + len(watcher.pending or b"")


class LiveGameTests(unittest.TestCase):
    timeout = 60

    async def test_a_game_stream_shows_every_change_and_ends_with_the_result(self) -> None:
        host = new_web_host(self, "--players", "3-3", *QUICK, web={"interval": 0.02})
        clients = [host.client(name, SlowPlayer(0.03)) for name in ("ann", "bo", "cy")]
        await until(lambda: host.runner.running)
        [game_id] = host.runner.running
        stream = await follow(host.web_port, f"/api/games/{game_id}/events")
        await stream.closed  # the host ends the stream after the game's last message
        await gatherResults(clients)
        pictures = stream.named("game")
        self.assertGreater(len(pictures), 5)
        steps = [(picture["table"]["turn"], picture["table"]["step"]) for picture in pictures]
        self.assertGreater(len(set(steps)), 3)
        self.assertEqual(sorted(p["name"] for p in pictures[0]["players"]), ["ann", "bo", "cy"])
        self.assertTrue(any(line["seat"] for picture in pictures for line in picture["lines"]))
        [(event, result)] = stream.events[-1:]
        self.assertEqual((event, result["status"], result["id"]), ("over", "finished", game_id))
        self.assertEqual(result["replay"], f"/api/games/{game_id}/replay")

    async def test_the_overview_stream_follows_the_lobby_and_the_games(self) -> None:
        host = new_web_host(self, "--players", "3-3", "--signup-window", "30", "--timeout", "2")
        stream = await follow(host.web_port, "/api/overview/events")
        await until(lambda: stream.named("overview"))
        self.assertEqual(stream.named("overview")[-1]["lobby"]["waiting"], [])
        clients = [host.client("ann", SlowPlayer(0.05))]
        await until(lambda: stream.named("overview")[-1]["lobby"]["waiting"] == ["ann"])
        clients += [host.client(name, SlowPlayer(0.05)) for name in ("bo", "cy")]
        await until(lambda: stream.named("overview")[-1]["running"])
        running = stream.named("overview")[-1]["running"][0]
        self.assertEqual(sorted(p["name"] for p in running["players"]), ["ann", "bo", "cy"])
        await gatherResults(clients)
        await until(lambda: stream.named("overview")[-1]["recent_games"])
        latest = stream.named("overview")[-1]
        self.assertEqual((latest["running"], latest["recent_games"][0]["id"]), ([], running["id"]))
        stream.transport.loseConnection()
        await stream.closed
        await until(lambda: host.app.hub.watching == 0)

    async def test_too_many_watchers_are_turned_away(self) -> None:
        host = new_web_host(self, web={"max_watchers": 2})
        streams = [await follow(host.web_port, "/api/overview/events") for _ in range(2)]
        await until(lambda: host.app.hub.watching == 2)
        refused = await get(host.url("/api/overview/events"))
        self.assertEqual((refused.status, refused.headers["retry-after"]), (503, "10"))
        for stream in streams:
            stream.transport.loseConnection()


class StuckBrowserTests(unittest.TestCase):
    timeout = 60

    async def test_watchers_that_never_read_delay_no_game_and_hold_bounded_memory(self) -> None:
        # Bots answer within 30 ms and are removed after 3 s (ANSWER_LIMIT): a reactor held back by
        # the web view (a blocking write) would remove them. The watchers' buffers are made small
        # (Twisted's send buffer 8 KiB instead of 64, the kernel's 4 KiB each way) so that a few
        # short games fill them.
        # --workers 0: the games in the reactor that serves the web view, where a stuck browser could hold them
        # (with workers they are in other processes, and their pictures come a few times a second at most).
        host = new_web_host(
            self, "--players", "3-3", "--timeout", ANSWER_LIMIT, "--workers", "0",
            web={"interval": 0.002, "stall_limit": 2.0, "tick": 0.2},
        )
        hub = host.app.hub
        stuck = [never_reading(host.web_port, "/api/overview/events") for _ in range(5)]
        self.addCleanup(lambda: [browser.close() for browser in stuck])
        for round in range(3):
            clients = [host.client(f"bot {round}.{i}", SlowPlayer(0.03)) for i in range(3)]
            await until(lambda: len(host.runner.running) == 1)
            [game_id] = host.runner.running
            stuck += [never_reading(host.web_port, f"/api/games/{game_id}/events") for _ in range(5)]
            await until(lambda: f"game/{game_id}" in hub.topics and len(hub.topics[f"game/{game_id}"].watchers) == 5)
            for watcher in watchers(hub):
                transport = watcher.request.transport
                transport.bufferSize = SMALL_BUFFER
                transport.getHandle().setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
            await gatherResults(clients)
            for watcher in watchers(hub):
                # Twisted's buffer, the write that filled it and the picture kept (and the headers)
                self.assertLessEqual(len(watcher.topic.payload or b""), PICTURE)
                self.assertLessEqual(held(watcher), SMALL_BUFFER + 2 * PICTURE + 1024)
        records = await host.runner.when_games_over(3)
        self.assertEqual([seat.removed_reason for record in records for seat in record.players], [None] * 9)
        self.assertEqual([record.outcome for record in records], ["finished"] * 3)
        self.assertGreater(hub.paused, 0)  # the sockets did fill up
        self.assertGreater(hub.coalesced, 0)  # and newer pictures replaced older ones meanwhile
        await until(lambda: not any(watcher.paused_since is not None for watcher in watchers(hub)), interval=0.1)
        self.assertGreater(hub.dropped, 0)  # each stalled watcher dropped after 2 s


class LiveTournamentTests(unittest.TestCase):
    timeout = 60

    async def test_a_tournament_read_from_the_store_is_pushed_when_the_store_changes(self) -> None:
        host = new_web_host(self, web={"store_refresh": 0.2})
        operations = tournament_operations(1, "knockout", [f"p{i}" for i in range(9)], 1)
        first_round = next(i for i, op in enumerate(operations) if op["op"] == "round-over")
        apply(host.options["db"], operations[: first_round + 1])
        stream = await follow(host.web_port, "/api/tournaments/1/events")
        await until(lambda: stream.named("tournament"))
        self.assertEqual((stream.named("tournament")[0]["status"], len(stream.named("tournament")[0]["rounds"])),
                         ("running", 1))
        apply(host.options["db"], operations[first_round + 1:])
        await until(lambda: stream.named("tournament")[-1]["status"] == "finished")
        self.assertEqual(len(stream.named("tournament")[-1]["rounds"]), 2)
        stream.transport.loseConnection()

    async def test_a_running_tournament_of_the_host_is_pushed_as_its_games_end(self) -> None:
        # Two rounds of one game of six; w0 holds round 2 until the stream has shown it running.
        host = new_web_host(self, "--tournament", "swiss", "--rounds", "2", "--max-signups", "6", *QUICK,
                            "--timeout", "30")
        held = HeldPlayer(when=lambda: host.runner.games_over >= 1)
        clients = [host.client("w0", held)]
        await until(lambda: len(host.factory.lobby) == 1)
        clients += await host.sign_up_in_order([f"w{k}" for k in range(1, 6)], 0.02)
        await held.asked
        stream = await follow(host.web_port, "/api/tournaments/1/events")
        await until(lambda: any(t["status"] == "running" and t["games"] for t in stream.named("tournament")))
        held.release()
        await until(lambda: stream.named("tournament")[-1]["status"] == "finished")
        pictures = stream.named("tournament")
        self.assertEqual([len(p["games"]) for p in pictures], sorted(len(p["games"]) for p in pictures))
        self.assertEqual(len(pictures[-1]["rounds"]), 2)
        await gatherResults(clients)
        stream.transport.loseConnection()
        await deferLater(reactor, 0, lambda: None)


