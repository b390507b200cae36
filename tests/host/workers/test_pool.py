"""Games in worker processes: connections handed over whole, and a worker that dies costs its games only.

Real loopback TCP and real processes: the host's workers are ``python -m
evolution.host.workers.worker_process`` processes (``--workers``, on by default); a test
kills one with SIGKILL while it plays.
"""

from __future__ import annotations

import os
import signal
import socket
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred, gatherResults
from twisted.internet.protocol import ClientFactory, Factory, Protocol
from twisted.logger import globalLogPublisher
from twisted.trial import unittest

from evolution.cli.evolution_client import Thinking
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.net.client import play_remote
from evolution.net.handover import adopt, take
from evolution.net.json_protocol import JSONStreamProtocol
from evolution.processes.child import ChildProcess
from tests.support.hosting import HonestSilly, log_lines, new_host, until


class Recorder(JSONStreamProtocol):
    """The host's side of a test connection: every message it reads."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[Any] = []
        self.refused: str | None = None

    def messageReceived(self, value: Any) -> None:
        self.messages.append(value)

    def badInput(self, reason: str) -> None:
        self.refused = reason


class Raw(Protocol):
    """The peer: writes what it is told, keeps what it reads."""

    def __init__(self) -> None:
        self.received = b""
        self.made: Deferred = Deferred()
        self.lost: Deferred = Deferred()

    def connectionMade(self) -> None:
        self.made.callback(self)

    def connectionLost(self, reason: Any = None) -> None:
        self.lost.callback(None)

    def dataReceived(self, data: bytes) -> None:
        self.received += data


class HandoverTests(unittest.TestCase):
    """``evolution.net.handover``: what a connection had read and not framed, and had written and not sent,
    goes with its socket (here from one protocol to another in this process, as between processes)."""

    timeout = 30

    async def test_a_value_begun_before_the_move_ends_after_it_and_unsent_bytes_go_first(self) -> None:
        first = Recorder()
        listening = reactor.listenTCP(0, Factory.forProtocol(lambda: first), interface="127.0.0.1")
        self.addCleanup(listening.stopListening)
        peer = Raw()
        reactor.connectTCP("127.0.0.1", listening.getHost().port, ClientFactory.forProtocol(lambda: peer))
        await peer.made
        await until(lambda: first.transport is not None)
        first.transport.getHandle().setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
        peer.transport.pauseProducing()  # the peer reads nothing: what is written stays unsent
        first.transport.write(b"x" * 300_000)
        peer.transport.write(b'[1] {"begun": ')
        await until(lambda: first.messages == [[1]])

        handover = take(first)
        self.assertGreater(len(handover.unsent), 0)
        self.assertEqual(handover.unread, b'{"begun": ')
        second = Recorder()
        adopt(reactor, handover, second)
        second.transport.write(b"after\n")
        peer.transport.resumeProducing()
        peer.transport.write(b'"yes"}\n')
        await until(lambda: second.messages == [{"begun": "yes"}] and peer.received.endswith(b"after\n"))
        self.assertEqual(peer.received, b"x" * 300_000 + b"after\n")
        self.assertEqual(first.messages, [[1]])
        second.transport.loseConnection()
        await peer.lost
        await until(lambda: not second.connected)

    async def test_bytes_a_player_sent_before_its_game_reach_the_worker_that_plays_it(self) -> None:
        # The early bird signs up and, in the same write, begins a message; the rest comes once its game
        # has begun in a worker. The worker reads the whole message, and removes the player for it: it
        # began before any question was asked (as in one process).
        host = new_host(self, "--players", "3-3", "--timeout", "5")
        played: list[str] = []
        host.runner.watch(lambda event, game: played.append(type(game).__name__) if event == "begin" else None)
        await host.ready()
        early = Raw()
        reactor.connectTCP("127.0.0.1", host.port, ClientFactory.forProtocol(lambda: early))
        await early.made
        early.transport.write(b'"early bird"\n[1, ')
        await until(lambda: len(host.factory.lobby) == 1)
        goods = [host.client(f"good {i}") for i in range(2)]
        await until(lambda: early.received.count(b"\n") >= 2)  # "ok" and its start: the game is under way
        early.transport.write(b"2]\n")
        await gatherResults(goods)
        [record] = await host.runner.when_games_over(1)
        await early.lost  # hung up on
        self.assertEqual(played, ["AwayGame"])  # played in a worker process
        [seat] = [seat for seat in record.players if seat.name == "early bird"]
        self.assertEqual(seat.removed_reason, "sent a message nobody asked for: [1, 2]")


class DeadWorkerTests(unittest.TestCase):
    timeout = 120

    async def test_a_worker_killed_mid_game_costs_its_game_counted_for_no_one_and_the_host_plays_on(self) -> None:
        host = new_host(self, "--players", "3-3", "--timeout", "5", "--workers", "1")
        lines = log_lines(self)
        slow = [host.client(f"slow {i}", Thinking(SillyPlayer(), 0.05, reactor)) for i in range(3)]
        await until(lambda: host.runner.pool.playing(1) is not None)
        os.kill(host.runner.pool.playing(1).pid, signal.SIGKILL)
        [lost] = await host.runner.when_games_over(1)
        await gatherResults([client.addErrback(lambda failure: None) for client in slow])  # hung up on
        self.assertEqual(lost.outcome, "aborted: its worker process ended (signal 9)")
        self.assertEqual([(seat.removed_reason, seat.rank, seat.score) for seat in lost.players], [(None,) * 3] * 3)
        self.assertEqual(host.factory.open_connections, 0)
        said = [line for line in lines if "lost with the worker" in line or "is gone" in line]
        self.assertEqual(said, ["worker 1 is gone: its worker process ended (signal 9); it held 1 game",
                                "1 game lost with the worker (its worker process ended (signal 9)): stored as aborted,"
                                " counted for no one"])

        await gatherResults([host.client(f"next {i}") for i in range(3)])  # a new worker plays the next game
        [_, played] = await host.runner.when_games_over(2)
        self.assertEqual(played.outcome, "finished")
        stored = {game.id: game.outcome for game in (await host.stored()).games()}
        self.assertEqual(stored, {1: lost.outcome, 2: "finished"})

    async def test_in_a_tournament_a_dead_workers_game_is_played_again_and_its_players_stay_in(self) -> None:
        host = new_host(self, "--tournament", "knockout", "--max-signups", "9", "--signup-window", "5",
                        "--timeout", "5", "--seed", "9")
        clients = []
        for name in [f"k{k}" for k in range(9)]:
            clients.append(ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, name, Thinking(
                HonestSilly(), 0.02, reactor), retries=0, reconnect=100, reconnect_delay=0.1)))
            await until(lambda: len(host.factory.lobby) == len(clients) or host.tournaments.current is not None)
        self.addCleanup(gatherResults, [client.addErrback(lambda _: None) for client in clients])
        self.addCleanup(lambda: [client.cancel() for client in clients])  # those that try again after the end
        await until(lambda: host.runner.pool.playing(1) is not None and host.runner.pool.playing(2) is not None)
        worker = host.runner.pool.playing(1)
        doomed = host.runner.running[1].names
        os.kill(worker.pid, signal.SIGKILL)
        await host.tournaments.when_over(1)
        store = await host.stored()
        [tournament] = store.tournaments()
        self.assertEqual((tournament.status, tournament.to_json()["failures"]), ("finished", []))
        self.assertTrue(tournament.winners)
        games = store.games(tournament.id)
        [lost] = [game for game in games if not game.finished]
        self.assertEqual((lost.id, lost.outcome), (1, "aborted: its worker process ended (signal 9)"))
        again = [game for game in games if game.round == 1 and [seat.name for seat in game.players] == doomed]
        self.assertEqual([game.outcome for game in again], [lost.outcome, "finished"])  # the same table, played again


    async def test_a_player_expelled_while_its_game_waits_for_a_worker_is_removed_as_the_worker_takes_it(self) -> None:
        # The organiser's ban reaches a game handed over before any worker is ready (a host just started, or its
        # worker restarting): the pool keeps the expulsion and sends it after the game's Play. It was lost.
        host = new_host(self, "--players", "3-3", "--timeout", "5", "--workers", "1")
        await host.ready()
        pool = host.runner.pool
        first = pool.workers[0]
        os.kill(first.pid, signal.SIGKILL)
        await until(lambda: pool.workers and pool.workers[0] is not first and pool.workers[0].child.pid is not None)
        second = pool.workers[0]
        os.kill(second.child.pid, signal.SIGSTOP)  # held before it says Hello (starting Python takes far longer)
        self.addCleanup(lambda: second.alive and os.kill(second.child.pid, signal.SIGCONT))
        self.assertFalse(second.is_ready)
        clients = [ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, f"p{i}", HonestSilly(), retries=0))
                   for i in range(3)]  # (host.client waits for every worker to be ready)
        await until(lambda: [game_id for game_id, _, _ in pool.waiting] == [1])
        self.assertTrue(await pool.expel(1, 2, "banned by the organiser: cheating"))
        os.kill(second.child.pid, signal.SIGCONT)
        [game] = await host.runner.when_games_over(1)
        await gatherResults([client.addErrback(lambda failure: None) for client in clients])
        self.assertEqual(game.outcome, "finished")
        self.assertEqual([seat.removed_reason for seat in game.players], [None, "banned by the organiser: cheating", None])
        self.assertEqual(pool.unplaced, {})


    async def test_a_player_expelled_from_a_game_that_greeted_its_players_is_the_one_the_host_named(self) -> None:
        # A Fish game greets its players ("start") and plays with those who answered: the host's seat numbers
        # count them all, so the worker finds the player by the seat it was handed (it once took the game's
        # seats, which a player failing the greeting had shifted).
        from tests.games.fish.net.test_dialects import FAST
        from tests.support.fish_bots import FishAdversary, StandIn, connect, message_kind

        host = new_host(self, *FAST, "--players", "3-3", "--games", "1", "--seed", "1", "--workers", "1")
        await host.ready()
        quits = FishAdversary("Pa", "start", lambda client, message: client.transport.loseConnection())
        clients = []
        for make in (lambda: StandIn("Pb"), lambda: StandIn("Pc"), lambda: quits):  # seated in reverse order
            clients.append(await connect(host.port, make))
            await until(lambda: len(host.factory.lobby) == len(clients) or host.runner.running)
        await until(lambda: any(message_kind(value) == "playing-as" for value in clients[1].received))
        names = host.runner.running[1].names
        self.assertLess(names.index("Pa"), names.index("Pc"))  # Pc's seat in the game is one less than the host's
        seat = names.index("Pc") + 1
        self.assertTrue(await host.runner.pool.expel(1, seat, "banned by the organiser: cheating"))
        [record] = await host.runner.when_games_over(1)
        await gatherResults([client.done.addErrback(lambda failure: None) for client in clients])  # Pa's too: its
        # end (no answer to its sign-up, in the course's Fish) left unheard was an unhandled error in a later test
        self.assertEqual({player.name: player.removed_reason for player in record.players},
                         {"Pb": None, "Pc": "banned by the organiser: cheating"})


class ChildProcessTests(unittest.TestCase):
    """Every child's host end (``evolution.processes.child.ChildProcess``): its output into the host's log, its stop."""

    timeout = 60

    async def test_a_child_that_does_not_end_is_killed_at_the_limit_when_asked(self) -> None:
        child = ChildProcess(reactor, "sleeper", "timeit", ["-n1", "-r1", "import time; time.sleep(30)"])
        child.start()
        finished = await child.finish(0.5, kill=True)
        self.assertEqual((finished, child.running, child.status, child.how), (False, False, -9, "signal 9"))

    async def test_a_child_left_to_go_on_is_not_killed(self) -> None:
        child = ChildProcess(reactor, "sleeper", "timeit", ["-n1", "-r1", "import time; time.sleep(30)"])
        child.start()
        self.assertFalse(await child.finish(0.5))
        self.assertTrue(child.running)
        child.kill()
        self.assertEqual(await child.ended, -9)

    async def test_its_standard_error_goes_into_the_host_log_a_line_at_a_time(self) -> None:
        events: list[dict] = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        child = ChildProcess(reactor, "talker", "timeit", ["-n1", "-r1", "import sys; sys.stderr.write('one\\ntwo\\n')"])
        child.start()
        self.assertTrue(await child.finish(20))
        self.assertEqual(child.how, "status 0")
        lines = [(event["name"], event["line"]) for event in events if event.get("name") == "talker"]
        self.assertIn(("talker", "one"), lines)
        self.assertIn(("talker", "two"), lines)
