# -*- test-case-name: tests.host.workers.test_pool, tests.host.runner.test_one_process -*-
"""The game runner of a host with worker processes: games formed here, played in a worker, stored here.

Offers ``PooledRunner`` (a ``GameRunner``: the lobby, the tournaments and
the web view use it exactly as the one-process runner): ``start_game``
(a single game, handed whole to a worker), ``play`` (a tournament's game:
its players still in come back to wait here), ``remove`` (a player out of
its game, in a worker too), ``stop()`` (fires when every
game, here and in the workers, is stored); a game whose connections cannot
move (TLS), or while no worker can be started, is played here. And
``AwayGame``, a game being played in a worker.

What goes to the worker and comes back, and what a dead worker costs:
docs/architecture.md, "The game runner" ("With workers").
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any, Callable

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger

from evolution.host.runner.game_runner import GameOutcome, GameRunner, GameSettings, Seating, now
from evolution.host.workers.pool import WorkerPool
from evolution.net.handover import Handover, adopt, can_hand_over
from evolution.net.host_connection import CLOSED, HostProtocol
from evolution.store.records import GameRecord, SeatRecord
from evolution.text import plural

log = Logger()


class AwayGame:
    """A game a worker plays, as the host knows it: its players' connections, its number, its seating."""

    def __init__(
        self, runner: PooledRunner, game_id: int, connections: list[HostProtocol], seed: int | None,
        seating: Seating | None,
    ) -> None:
        self.runner = runner
        self.id = game_id
        self.connections = connections
        self.names = [connection.name for connection in connections]
        self.seed = seed
        self.seating = seating
        self.started_at = now()
        self.record: GameRecord | None = None  # once the worker has reported it
        self.log_blob = b""
        self.failed_after: tuple[str | None, ...] = ()  # how each seat failed the dialect's word at the end
        self.over: Deferred[GameOutcome | None] = Deferred()

    def lost_record(self, reason: str) -> GameRecord:
        """The game as stored when its worker died: aborted with the reason, counted for no one (no seat removed,
        ranked or rated: the fault is the host's)."""
        seats = tuple(SeatRecord(seat, name) for seat, name in enumerate(self.names, start=1))
        return self.runner.game_record(self, 0, f"aborted: {reason}", seats)


class PooledRunner(GameRunner):
    """Plays its games in worker processes (``evolution.host.workers.pool``)."""

    def __init__(
        self, settings: GameSettings, clock: Any, recording: Any, numbering: Any, workers: int, config: Any
    ) -> None:
        super().__init__(settings, clock, recording, numbering)
        self.pool = WorkerPool(workers, config, clock, self)
        self._stopping: Deferred | None = None
        self.ending: dict[int, AwayGame] = {}  # over and stored; their connections not yet back
        self.change_watchers: list[Callable[[list[int], bool], None]] = []  # the web view's live pictures
        start = getattr(clock, "callWhenRunning", None)
        if start is not None:
            start(self.pool.start)

    # -- handing games over --------------------------------------------------------------

    def _can_move(self, connections: list[HostProtocol]) -> bool:
        return not self.pool.stopping and all(can_hand_over(connection) for connection in connections)

    def start_game(self, connections: list[HostProtocol], numbered: Any = None) -> Deferred:
        if not self._can_move(connections):
            return super().start_game(connections, numbered)
        return self._send(connections, None, whole=True)

    def play(self, connections: list[HostProtocol], seating: Seating | None = None) -> Deferred[GameOutcome]:
        if not self._can_move(connections):
            return super().play(connections, seating)
        return self._send(connections, seating, whole=False)

    def _send(self, connections: list[HostProtocol], seating: Seating | None, whole: bool) -> Deferred:
        game_id, seed = self.number(seating)
        game = AwayGame(self, game_id, connections, seed, seating)
        handovers = [connection.hand_over() for connection in connections]
        self.begun(game)
        tournament = [seating.tournament_id, seating.round] if seating else None

        def message() -> dict:  # made when sent: a connection's unread bytes are known once the read under way ends
            seats = [{"name": name, **handover.to_json()} for name, handover in zip(game.names, handovers)]
            return {"id": game_id, "seed": seed, "whole": whole, "tournament": tournament, "seats": seats}

        self.pool.send(game_id, message, [handover.fd for handover in handovers])
        return game.over

    # -- what the workers report ------------------------------------------------------------

    def remove(self, connection: HostProtocol, reason: str) -> None:
        """A player of a game in a worker (or waiting for one) is removed by the worker (``WorkerPool.expel``)."""
        game = next((game for game in self.running.values() if isinstance(game, AwayGame)
                     and connection in game.connections), None)
        if game is None:
            super().remove(connection, reason)
        else:
            self.pool.expel(game.id, game.connections.index(connection) + 1, reason)

    def over(self, game_id: int, record: dict, log_blob: bytes, replies: list[float] | None = None) -> None:
        """A game is over: stored, logged and told now; its outcome waits for its connections (``back``).

        ``replies``: how long the worker's answers took since its last report, counted here for the figures."""
        if replies and self.deadlines.replies is not None:
            self.deadlines.replies.add(replies)
        game = self.running.pop(game_id, None)
        if isinstance(game, AwayGame):
            self.ending[game_id] = game
            game.log_blob = log_blob  # for the web view's replay until the store has it
            played = replace(GameRecord.from_json(record), host=self.settings.host_name)  # the worker knows no host
            game.record, _kept = self._recorded(game, played, log_blob or None)

    def back(self, report: dict, descriptors: list[int]) -> None:
        game = self.ending.pop(report["id"], None) or self.running.pop(report["id"], None)
        if not isinstance(game, AwayGame):  # recorded already (lost when the host stopped)
            _close(descriptors)
            return
        self._take_back(game, dict(zip(report["returned"], zip(report["seats"], descriptors))))
        game.failed_after = tuple(report.get("failed_after", ()))
        self._settle(game)

    def _settle(self, game: AwayGame) -> None:
        """The game's outcome (None: no game, too few answered the greeting), now that its connections are back."""
        outcome = GameOutcome(game.record, game.connections, game.failed_after) if game.record is not None else None
        game.over.callback(outcome)
        self._wake()

    def _take_back(self, game: AwayGame, returned: dict[int, tuple[dict, int]]) -> None:
        """The connections still in come back to the host; the others were closed by the worker."""
        for index, connection in enumerate(game.connections):
            if index in returned:
                seat, fd = returned[index]
                try:
                    adopt(self.clock, Handover.from_json(seat, fd), connection)
                    continue
                except OSError:  # gone on the way back
                    pass
            _closed(connection)

    def hung_up(self, game_id: int, seat: int) -> None:
        """A player its worker removed and hung up on: closed here too, at once (a ladder frees its name)."""
        game = self.running.get(game_id)
        if isinstance(game, AwayGame) and 0 <= seat < len(game.connections):
            _closed(game.connections[seat])

    def lost(self, game_ids: list[int], reason: str) -> None:
        """Games whose worker is gone: stored as aborted (unless their record came), their connections gone.

        Says how many were lost (stored as aborted) and how many were over already (stored as played).
        """
        games = [game for game_id in game_ids
                 if isinstance(game := self.ending.pop(game_id, None) or self.running.pop(game_id, None), AwayGame)]
        lost = [game for game in games if game.record is None]
        for game in games:
            self._take_back(game, {})
        for game in lost:
            game.record, _kept = self._recorded(game, game.lost_record(reason), None)
        if games and not self.pool.stopping:  # said before anyone hears of the games' ends
            over = len(games) - len(lost)
            log.error("{lost} lost with the worker ({reason}): stored as aborted, counted for no one{over}",
                      lost=plural(len(lost), "game"), reason=reason,
                      over=f"; {plural(over, 'game')} over already, stored as played" if over else "")
        for game in games:
            self._settle(game)

    def changed(self, game_ids: list[int], stepped: bool) -> None:
        for callback in list(self.change_watchers):
            callback(game_ids, stepped)

    # -- stopping ----------------------------------------------------------------------------

    def stop(self) -> Deferred:
        """Local games as ever; each worker stores its games as aborted; fires once every game is recorded."""
        super().stop()
        if self._stopping is None:
            self._stopping = self.pool.stop()
        return self._stopping

    def stopped(self) -> Deferred:
        return self._stopping if self._stopping is not None else succeed(None)

    def ready(self) -> Deferred:
        return self.pool.all_ready()


def _closed(connection: HostProtocol) -> None:
    """A connection of a game away that its worker closed: closed here, counted once."""
    if connection.state != CLOSED:
        connection.state = CLOSED
        connection.factory.closed(connection)


def _close(descriptors: list[int]) -> None:
    for fd in descriptors:
        os.close(fd)
