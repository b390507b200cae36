# -*- test-case-name: tests.net.test_remote_games, tests.host.workers.test_pool, tests.host.test_logs -*-
"""The game runner's roles in the host: numbering its games, and recording them (the store writer, the log lines).

Offers ``Numbering(writer, setup, seed)``, which gives each game its id (the
store writer's next: a game keeps its id while it waits in the journal) and
its seed (from ``--seed`` on, one more each game, or a random one), and
``StoreRecording(writer, settings)``, where a finished game goes in the host:
its record and message log to the store writer, and the log lines of a
game's beginning and end (``idle()``: once the writer has done what it was
handed so far). Both belong to the host's process; a worker
process plays games numbered here and records them by sending them here
(``evolution.host.workers.worker_process.ToHost``), a ``Recording`` too:

- ``begins(game)``: a game begins (a log line, and the store notes it as
  running: a host killed mid-game finds it at its next start; or nothing);
- ``keep(record, log_text, standings)``: a game is over; fires once its
  record is safe where it goes (at once in the host: the store writer keeps
  it, in its journal if need be; in a worker, once the host has it);
- ``removed(game_id, seat_index)``: a player was removed from a game; fires
  once whoever keeps the game's record knows (so a player that signs up again
  at once finds its name free there).
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger

from evolution.games import GameSetup
from evolution.host.runner.settings import GameSettings
from evolution.store.operations import game_begun, game_operation
from evolution.store.records import GameRecord
from evolution.text import escape, plural, quoted

log = Logger()


class Recording(Protocol):
    def begins(self, game: Any) -> None: ...

    def keep(self, record: GameRecord, log_text: str | bytes | None, standings: list | None) -> Deferred[Any]: ...

    def removed(self, game_id: int, seat_index: int) -> Deferred[Any]: ...


class Numbering:
    """Each game's id (from the store writer) and seed; a game counts as begun once numbered."""

    def __init__(self, writer: Any, setup: GameSetup, seed: int | None) -> None:
        self.writer = writer
        self.setup = setup
        self.seed = seed
        self.begun = 0

    def next(self) -> tuple[int, int | None]:
        self.begun += 1
        return self.writer.new_game_id(), self._seed()

    def _seed(self) -> int | None:
        if not self.setup.seeded:
            return None
        if self.seed is None:
            return random.randrange(2**31)
        return self.seed + self.begun - 1


class StoreRecording:
    """The host's: a game's record and log go to the store writer (None: kept nowhere, as in some tests)."""

    def __init__(self, writer: Any, settings: GameSettings) -> None:
        self.writer = writer
        self.settings = settings
        self.setup = settings.game_setup()
        self.recorded = settings.recorded()

    def begins(self, game: Any) -> None:
        """A game begins: said, and noted in the store as running on this host until it is stored."""
        log.info(
            "game {game} begins: {players} ({deck})",
            game=game.id,
            players=", ".join(map(quoted, game.names)),
            deck=self.setup.deal(game.seed) if game.seed is None else f"seed {game.seed}",
        )
        if self.writer is not None:
            seating = game.seating
            self.writer.write(game_begun(
                game.id, self.settings.host_name or "", game.started_at, self.settings.game, game.names,
                self.setup.deal(game.seed), game.seed, self.recorded,
                (seating.tournament_id, seating.round) if seating is not None and seating.tournament_id else None,
                seating is not None and seating.tournament_id is None,
            ))

    def keep(self, record: GameRecord, log_text: str | bytes | None, standings: list | None = None) -> Deferred[None]:
        """Store a game with its message log (its JSON text, or that compressed) and say so; kept at once."""
        if self.writer is not None:
            self.writer.write(game_operation(record, log_text, standings))
        log.info(
            "game {game} {outcome} after {turns}: {ranking}",
            game=record.id,
            outcome=escape(record.outcome),
            turns=plural(record.turns, "turn"),
            ranking=_ranking(record),
        )
        return succeed(None)

    def removed(self, game_id: int, seat_index: int) -> Deferred[None]:
        return succeed(None)

    def idle(self) -> Deferred[None]:
        """Fires once the store writer has done the writes handed to it so far (the web view's "stored")."""
        return self.writer.idle() if self.writer is not None else succeed(None)


def _ranking(record: GameRecord) -> str:
    """Who placed where; for a game not played to its end, who was still in it (not "nobody left")."""
    ranked = sorted((seat for seat in record.players if seat.rank), key=lambda seat: seat.rank)
    if ranked:
        return "; ".join(f"{seat.rank}. {quoted(seat.name)} {seat.score}" for seat in ranked)
    still_in = [quoted(seat.name) for seat in record.players if seat.removed_reason is None]
    if not still_in:
        return "nobody left"
    return f"not ranked; {', '.join(still_in)} {'was' if len(still_in) == 1 else 'were'} still in"
