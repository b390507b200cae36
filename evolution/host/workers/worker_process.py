# -*- test-case-name: tests.host.workers.test_pool, tests.host.runner.test_memory -*-
"""A worker process: plays the games the host hands it, on the connections it hands over with them.

``python -m evolution.host.workers.worker_process CONFIG`` (the host starts it:
``evolution.host.workers.pool``); CONFIG is ``worker_config(...)``'s JSON: the
game's settings and the connections' limits. The channel to the host is
descriptor 3 (``evolution.processes.channel``); the commands are
``evolution.host.workers.commands``.

Offers ``ToHost`` (how a worker's game runner records a game: by sending
its record and compressed log to the host, which stores it; its games come
numbered by the host), ``WorkerSide`` (the worker's end of the channel) and
``main``.

A game here is the host's game: the same runner, referee, proxies, time
limits and message log (``evolution.host.runner.game_runner``); only the store, the log
lines of a game's beginning and end, and the lobby stay with the host. The
worker's log goes to the host's (``forward_log``). When the channel closes
(the host is gone), the worker stops at once: its games end with it.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from typing import Any

from twisted.internet.defer import Deferred, DeferredList
from twisted.logger import Logger

from evolution.processes.channel import QuietAMP, child_channel, forward_log
from evolution.processes.stopping import heed_only_the_host
from evolution.host.runner.game_runner import GameOutcome, GameRunner, GameSettings, Seating
from evolution.host.workers.commands import (
    CHANGES_EVERY,
    Back,
    Changed,
    Expel,
    Hello,
    HungUp,
    Over,
    Picture,
    Play,
    Running,
    Stop,
)
from evolution.net.handover import adopt, can_hand_over, Handover
from evolution.net.host_connection import CLOSED, HostProtocol
from evolution.net.signup import SignupConfig
from evolution.store.operations import compressed_log
from evolution.store.records import GameRecord

log = Logger()


def worker_config(settings: GameSettings, config: SignupConfig, number: int) -> str:
    """What a worker needs to know, as the JSON its command line carries."""
    return json.dumps({
        "number": number,
        "game": settings.game, "setup": settings.game_setup().recorded(), "timeout": settings.seconds(),
        "dialect": settings.speaking().name, "send_scores": settings.send_scores,
        "tell_removed": settings.tell_removed,
        "max_bytes": config.max_bytes, "max_depth": config.max_depth, "number_grace": config.number_grace,
    })


def settings_of(data: dict[str, Any]) -> tuple[GameSettings, SignupConfig]:
    settings = GameSettings(
        game=data["game"], timeout=data["timeout"], dialect=data["dialect"], send_scores=data["send_scores"],
        tell_removed=data["tell_removed"],
    )
    config = SignupConfig(max_bytes=data["max_bytes"], max_depth=data["max_depth"], number_grace=data["number_grace"])
    return replace(settings, setup=settings.kind.setup_of(data["setup"])), config


class Arrivals:
    """What an adopted connection asks its factory: the limits and the clock; counts them."""

    def __init__(self, config: SignupConfig, clock: Any) -> None:
        self.config = config
        self.clock = clock
        self.open_connections = 0

    def opened(self, connection: HostProtocol) -> None:
        self.open_connections += 1

    def closed(self, connection: HostProtocol) -> None:
        self.open_connections -= 1


class ToHost:
    """A worker's ``Recording`` (``evolution.host.runner.recording``): a game's record and removals go to the host.

    ``keep`` sends a finished game's record and compressed log at once and
    fires with the host's answer: the runner hangs up on a game's players (or
    gives them back) only once the host has its record, so a game a player saw
    end is a game the host holds. ``removed`` tells the host of a removal
    before the worker hangs up. The host says the log lines of a game's
    beginning and end; a worker says nothing.
    """

    def __init__(self, side: WorkerSide) -> None:
        self.side = side

    def begins(self, game: Any) -> None:
        pass  # the host says it

    def keep(self, record: GameRecord, log_text: str | bytes | None, standings: list | None = None) -> Deferred:
        blob = compressed_log(log_text) if isinstance(log_text, str) else (log_text or b"")
        return self.side.send_record(record, blob)

    def removed(self, game_id: int, seat_index: int) -> Deferred:
        return self.side.send_hung_up(game_id, seat_index)


class WorkerSide(QuietAMP):
    """The worker's end of the channel: games come in, their records and connections go back."""

    def __init__(self, runner: GameRunner, arrivals: Arrivals, reactor: Any, forwarder: Any = None) -> None:
        super().__init__()
        self.forwarder = forwarder
        self.runner = runner
        self.arrivals = arrivals
        self.reactor = reactor
        self.reports: set[Deferred] = set()  # each fires once the host has answered a game's Back
        self.arrived: dict[int, list[HostProtocol]] = {}  # each game's connections, until it is given back
        self._pictures: Any = None

    def connectionMade(self) -> None:
        super().connectionMade()
        self.callRemote(Hello, pid=os.getpid())

    def connectionLost(self, reason: Any = None) -> None:
        super().connectionLost(reason)
        if self.reactor.running:  # the host is gone: so are its games
            self.reactor.stop()

    @Play.responder
    def play(self, game: dict[str, Any], descriptors: list[int]) -> dict:
        connections = [self._arrive(seat, fd) for seat, fd in zip(game["seats"], descriptors)]
        self.arrived[game["id"]] = connections
        numbered = (game["id"], game["seed"])
        if game["whole"]:
            done = self.runner.start_game(connections, numbered)
        else:
            seating = Seating(*game["tournament"]) if game["tournament"] else None
            done = self.runner.play_numbered(*numbered, connections, seating)
        done.addCallback(self._ended, game["id"], game["whole"])
        return {}

    def _arrive(self, seat: dict[str, Any], fd: int) -> HostProtocol:
        handover = Handover.from_json(seat, fd)
        connection = HostProtocol.arriving(seat["name"], self.arrivals, handover.peer)
        try:
            adopt(self.reactor, handover, connection)
            self.arrivals.opened(connection)
        except OSError:  # the peer reset it on the way: a connection that is gone
            connection.state = CLOSED
        return connection

    def send_record(self, record: GameRecord, blob: bytes) -> Deferred:
        if self.forwarder is not None:
            self.forwarder.flush()  # the game's log lines (removals) before its end
        replies = self.runner.deadlines.replies.take() if self.runner.deadlines.replies is not None else None
        return self.callRemote(Over, report={"id": record.id, "record": record.to_json(), "replies": replies},
                               log=blob)

    def send_hung_up(self, game_id: int, seat: int) -> Deferred:
        return self.callRemote(HungUp, game=game_id, seat=seat)

    def _ended(self, outcome: GameOutcome | None, game_id: int, whole: bool) -> None:
        """Give back on the next pass: the game may have ended in the middle of a read, whose rest is still due."""
        self.arrived.pop(game_id, None)
        reported: Deferred = Deferred()
        self.reports.add(reported)
        reported.addBoth(lambda _: self.reports.discard(reported))
        self.reactor.callLater(0, self._give_back, game_id, outcome, whole, reported)

    def _give_back(self, game_id: int, outcome: GameOutcome | None, whole: bool, reported: Deferred) -> None:
        returned, handovers = [], []
        if outcome is not None and not whole:
            for index, connection in enumerate(outcome.connections):
                if connection.state != CLOSED and connection.connected and can_hand_over(connection):
                    handovers.append(connection.hand_over())
                    returned.append(index)
                    self.arrivals.closed(connection)
        report = {"id": game_id, "returned": returned, "seats": [handover.to_json() for handover in handovers],
                  "failed_after": list(outcome.failed_after) if outcome is not None else []}
        sent = self.callRemote(Back, report=report, descriptors=[h.fd for h in handovers])
        sent.addBoth(self._given_back, handovers).chainDeferred(reported)

    @staticmethod
    def _given_back(result: Any, handovers: list[Handover]) -> None:
        for handover in handovers:  # the host has its copies now (or is gone)
            os.close(handover.fd)

    def _send_changes(self, games: set[int], stepped: bool) -> None:
        self.callRemote(Changed, games=sorted(games), stepped=stepped)

    @Running.responder
    def running(self) -> dict:
        return {"games": self.pictures.summaries()}

    @Picture.responder
    def picture(self, game: int) -> dict:
        return {"picture": self.pictures.picture(game)}

    @property
    def pictures(self) -> Any:
        if self._pictures is None:
            from evolution.host.runner.live_pictures import Coalesced, LivePictures  # only when the web view asks

            self._pictures = LivePictures(self.runner)
            changes = Coalesced(self.reactor, CHANGES_EVERY, self._send_changes)
            self._pictures.changed, self._pictures.stepped = changes.add, changes.mark
        return self._pictures

    @Expel.responder
    def expel(self, game: int, seat: int, reason: str) -> dict:
        """The organiser's ban: the player in ``seat`` (from 1, of the seats the host handed over) removed from
        ``game`` now, with ``reason`` (from a game still greeting its players: it fails the greeting, and the game
        is played without it)."""
        connections = self.arrived.get(game, [])
        if not 1 <= seat <= len(connections) or connections[seat - 1].state == CLOSED:
            return {"done": False}
        connection = connections[seat - 1]
        if connection.proxy is not None:  # its game's seat (or its greeting's)
            connection.proxy.fail(reason)
        else:
            connection.close()
        return {"done": True}

    @Stop.responder
    def stop(self) -> Deferred:
        """Every game ends as aborted; answered once the host has every report (and closes the channel)."""
        self.runner.stop()
        return DeferredList(list(self.reports)).addCallback(lambda _: {})


def main(argv: list[str] | None = None) -> None:
    from twisted.internet import reactor

    from evolution.host.runner.memory import settle_memory

    # Ctrl-C and SIGTERM reach the host's whole group: the host stops this worker after its reports (SIGTERM ignored
    # again once the reactor runs: its run() puts in Twisted's handler, which would end the worker and its games)
    heed_only_the_host(reactor)
    data = json.loads((argv or sys.argv[1:])[0])
    settings, config = settings_of(data)
    forwarder = forward_log(reactor, f"worker {data['number']}")
    runner = GameRunner(settings, reactor)
    side = WorkerSide(runner, Arrivals(config, reactor), reactor, forwarder)
    runner.recording = ToHost(side)
    forwarder.channel = side
    child_channel(reactor, side)
    reactor.callWhenRunning(settle_memory)
    reactor.run()


if __name__ == "__main__":
    main()
