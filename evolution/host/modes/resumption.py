# -*- test-case-name: tests.host.modes.test_resumption, tests.host.modes.test_crash_at_every_write -*-
"""What the store holds of an interrupted tournament, for a host to pick it up where it stopped (``--resume``).

Offers ``StoredTournament`` (the tournament's record with its settings, the tables it decided for each round,
its finished games by table, its entrants' failures outside any game, the round it resumes in, and the options
it was run with) and ``load_interrupted(path, which, host)``, which finds it in a results store (``which``: a
tournament id, or ``"last"``, the latest one interrupted) or raises ``NotResumable`` with one sentence saying
why not. A resumed tournament is rebuilt from these records alone: its rounds are never dealt again. How it
plays on: docs/tournaments.md, "Resuming a tournament".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evolution.games import game as game_named
from evolution.store.records import FailureRecord, GameRecord, TableRecord, TournamentRecord
from evolution.store.results_store import ResultsStore, reading


class NotResumable(Exception):
    """There is no tournament to resume, or not that one (one sentence)."""


@dataclass(frozen=True)
class StoredTournament:
    record: TournamentRecord
    tables: dict[int, list[TableRecord]]  # each round's tables as decided, by round
    games: dict[tuple[int, int], GameRecord]  # every finished game of it, by (round, table)
    failures: list[FailureRecord]  # its entrants' failures outside any game, in the order decided
    round: int  # the first round not over: the round it was interrupted in, and resumes in
    by_names: dict[tuple[int, tuple[str, ...]], GameRecord]  # a store of version 7 keeps no tables: by names

    def game_of(self, round: int, table: int, names: list[str]) -> GameRecord | None:
        """The finished game of this table, if the store holds one."""
        if self.tables:
            return self.games.get((round, table))
        return self.by_names.get((round, tuple(names)))

    def failures_in(self, round: int, phase: int) -> list[FailureRecord]:
        return [failure for failure in self.failures if failure.round == round and failure.phase == phase]

    def out(self) -> set[int]:
        """The entrants out for good already: failed outside a game, or removed from one (none of them is awaited)."""
        removed = {seat.entrant for game in self.games.values() for seat in game.players if seat.removed_reason}
        removed |= {seat.entrant for game in self.by_names.values() for seat in game.players if seat.removed_reason}
        return {failure.entrant for failure in self.failures} | (removed - {None})

    def options(self) -> dict[str, Any]:
        """The host's options the tournament was run with (``twistd evolution``'s names)."""
        record, settings = self.record, self.record.settings
        smallest, _, largest = str(settings.get("players", "3-8")).partition("-")
        options: dict[str, Any] = {
            "game": record.game, "tournament": record.format, "min_players": int(smallest),
            "max_players": int(largest or smallest), "rounds": settings.get("rounds"), "seed": settings.get("seed"),
            "final-tiebreak": settings.get("final_tiebreak", "co-winners"), "accounts": settings.get("accounts"),
            "owners-may-meet": settings.get("owners_may_meet"),
        }
        play = settings.get("play")
        if play is None:  # stored before version 8: how its first stored game was played, if any
            played = next(iter(self.by_names.values()), None)
            play = played.settings if played is not None else None
        if play is not None:  # how its games are played: the time limit, the dialect, the game's own setup
            options.update(timeout=play.get("timeout"), dialect=play.get("dialect"),
                           setup=game_named(record.game).setup_of(play))
            options.update({"send-scores": play.get("send_scores"), "tell-removed": play.get("tell_removed")})
        return options


def load_interrupted(path: str, which: str, host: str | None = None) -> StoredTournament:
    """The interrupted tournament ``which`` (an id, or "last") of the store at ``path``; ``NotResumable`` if none.

    ``host``: this host's name (a tournament another host runs, or ran and left, is that host's to resume)."""
    return reading(path, lambda store: _stored(store, which, path, host))


def _stored(store: ResultsStore, which: str, path: str, host: str | None) -> StoredTournament:
    shown = store.db if store.db is not None else path
    if which == "last":
        interrupted = [t for t in store.tournaments() if t.status == "interrupted"]
        if not interrupted:
            raise NotResumable(f"{shown} holds no interrupted tournament to resume")
        record = interrupted[-1]
    else:
        record = store.tournament(int(which))
        if record is None:
            raise NotResumable(f"{shown} holds no tournament {which}")
        if record.status == "running" and store.shared and record.host not in (None, host):
            raise NotResumable(
                f"tournament {record.id} in {shown} is running on the host {record.host!r} (or was, if that host "
                f"died without a word): resume it there, or start this host with --host-name {record.host!r} to "
                "take it over once that host is stopped")
        if record.status != "interrupted":
            raise NotResumable(f"tournament {record.id} in {shown} is {record.status}, not interrupted: nothing to "
                               "resume" + (f" (won by {', '.join(e.name for e in record.winners)})"
                                           if record.winners else ""))
    finished = [game for game in store.games(record.id) if game.finished]
    tables: dict[int, list[TableRecord]] = {}
    for table in store.tables(record.id):
        tables.setdefault(table.round, []).append(table)
    failures = store.failures(record.id)
    by_table = {(game.round, game.table): game for game in finished if game.table is not None}
    by_names = {} if tables else {(game.round, tuple(seat.name for seat in game.players)): game for game in finished}
    if not tables:  # stored before version 8: its failures outside games as its standings hold them
        failures = _outside(record, finished)
    done = max((round.round for round in record.rounds if round.ended_at), default=0)
    return StoredTournament(record, tables, by_table, failures, done + 1, by_names)


def _outside(record: TournamentRecord, games: list[GameRecord]) -> list[FailureRecord]:
    """Each entrant's failure that no game's seat holds, from the standings of a store of version 7."""
    removed = {(game.round, seat.entrant) for game in games for seat in game.players if seat.removed_reason}
    return [
        FailureRecord(entrant.entrant, entrant.failed_round or 0, FailureRecord.DURING, entrant.failure)
        for entrant in record.entrants
        if entrant.failure is not None and (entrant.failed_round, entrant.entrant) not in removed
    ]
