# -*- test-case-name: tests.store.test_results_store, tests.store.test_writer -*-
"""What a write to the results store is, as data: an operation each, which may wait in the journal.

Offers ``game_operation``, ``game_begun``, ``tournament_begun``, ``round_begun`` (a round's tables),
``walkover``, ``entrant_failed``, ``round_over``, ``tournament_resumed`` and ``tournament_over`` (each a plain dict, JSON but for a game's log, which is
compressed already: bytes) and ``Operation``, their type;
``compressed_log(text)`` / ``log_text(blob)``, a message log as the store
keeps it and back, and ``log_blob(log)``, any form of a log as kept.
``evolution.store.results_store`` carries the operations out.
"""

from __future__ import annotations

import json
import zlib
from typing import Any, Iterable

from evolution.store.records import EntrantRecord, FailureRecord, GameRecord, RoundRecord, TableRecord, TournamentRecord

Operation = dict[str, Any]


def game_operation(
    game: GameRecord, log: list | str | bytes | None = None, entrants: Iterable[EntrantRecord] | None = None
) -> Operation:
    """Store a game (it must carry its id) with its message log: entries, their JSON text (ASCII), or that
    text compressed already (``zlib``, as a worker process sends it: the store keeps it as it is).

    A tournament's game carries its ``entrants``' standings as they are with it, stored in the same
    transaction: the standings stored always count every game stored, even mid-round.
    """
    if game.id is None:
        raise ValueError("a game is stored under the id the host gave it")
    operation = {"op": "game", "game": game.to_json(), "log": log}
    if entrants is not None:
        operation["entrants"] = [_plain(entrant) for entrant in entrants]
    return operation


def compressed_log(text: str) -> bytes:
    """A message log's JSON text (ASCII) as the store keeps it."""
    return zlib.compress(text.encode("ascii"), 6)


def log_text(blob: bytes) -> str:
    """A message log's JSON text, from the form the store keeps it in (``compressed_log``)."""
    return zlib.decompress(blob).decode("ascii")


def log_blob(log: list | str | bytes | None) -> bytes | None:
    """A message log (its entries, their JSON text, or that compressed) as the store keeps it."""
    if log is None or isinstance(log, bytes):
        return log
    return compressed_log(log if isinstance(log, str) else json.dumps(log, separators=(",", ":")))


def game_begun(
    game_id: int, host: str, started_at: str, game: str, names: list[str], deck: str, seed: int | None,
    settings: dict[str, Any], tournament: tuple[int, int] | None, ladder: bool,
) -> Operation:
    """A game begins on ``host``: noted as running until it is stored (a host killed mid-game stores it as
    aborted at its next start: ``ResultsStore.abort_running``)."""
    return {"op": "game-begun", "id": game_id, "host": host, "started_at": started_at, "game": game, "names": names,
            "deck": deck, "seed": seed, "settings": settings, "tournament": tournament[0] if tournament else None,
            "round": tournament[1] if tournament else None, "ladder": ladder}


def tournament_begun(tournament: TournamentRecord) -> Operation:
    return {"op": "tournament-begun", "tournament": _tournament_json(tournament)}


def round_begun(tournament_id: int, tables: Iterable[TableRecord]) -> Operation:
    """A round's tables, decided: stored before its first game begins (a resumed tournament plays these)."""
    return {"op": "round-begun", "tournament": tournament_id, "tables": [_plain(table) for table in tables]}


def walkover(tournament_id: int, round: int, table: int, present: Iterable[int]) -> Operation:
    """Too few of a table came back: its entrants ``present`` are placed first and no game is played."""
    return {"op": "walkover", "tournament": tournament_id, "round": round, "table": table, "present": list(present)}


def entrant_failed(tournament_id: int, failure: FailureRecord) -> Operation:
    """An entrant is out outside any game (a game's removals are stored with the game)."""
    return {"op": "entrant-failed", "tournament": tournament_id, "failure": _plain(failure)}


def round_over(tournament_id: int, round: RoundRecord, entrants: Iterable[EntrantRecord]) -> Operation:
    """A round is over: its summary, and every entrant's standing after it."""
    return {
        "op": "round-over",
        "tournament": tournament_id,
        "round": _plain(round),
        "entrants": [_plain(entrant) for entrant in entrants],
    }


def tournament_resumed(tournament_id: int, round: int, resumed_at: str, host: str | None = None) -> Operation:
    """An interrupted tournament runs again, from ``round`` (``twistd evolution --resume``), on ``host``: from now
    on that host's (on a shared store, its restart marks it interrupted, and only it may resume it)."""
    return {"op": "tournament-resumed", "tournament": tournament_id, "round": round, "resumed_at": resumed_at,
            "host": host}


def tournament_over(tournament_id: int, status: str, ended_at: str, entrants: Iterable[EntrantRecord]) -> Operation:
    return {
        "op": "tournament-over",
        "tournament": tournament_id,
        "status": status,
        "ended_at": ended_at,
        "entrants": [_plain(entrant) for entrant in entrants],
    }


def _plain(value: Any) -> dict[str, Any]:
    return {name: getattr(value, name) for name in value.__dataclass_fields__}


def _tournament_json(tournament: TournamentRecord) -> dict[str, Any]:
    data = _plain(tournament)
    data["entrants"] = [_plain(entrant) for entrant in tournament.entrants]
    data["rounds"] = []
    return data
