# -*- test-case-name: tests.host.modes.test_resumption -*-
"""What the store holds of an interrupted tournament, for a host to pick it up where it stopped (``--resume``).

Offers ``StoredTournament`` (the tournament's record, its finished games by table, the failures of its entrants
outside any game, the round it resumes in, and the options it was run with) and ``load_interrupted(path,
which)``, which finds it in a results store (``which``: a tournament id, or ``"last"``, the latest one
interrupted) or raises ``NotResumable`` with one sentence saying why not. How a resumed tournament plays on:
docs/tournaments.md, "Resuming a tournament".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evolution.games import game as game_named
from evolution.store.records import GameRecord, TournamentRecord
from evolution.store.results_store import ResultsStore, reading

Table = tuple[int, tuple[str, ...]]  # a round and its seats' names, in turn order


class NotResumable(Exception):
    """There is no tournament to resume, or not that one (one sentence)."""


@dataclass(frozen=True)
class StoredTournament:
    record: TournamentRecord
    games: dict[Table, GameRecord]  # every finished game of it, by its table
    outside: dict[int, tuple[int, str]]  # entrant: (round, reason) of a failure outside any game
    round: int  # the round it was interrupted in, and resumes in

    def game(self, round: int, names: list[str]) -> GameRecord | None:
        """The finished game of this table, if the store holds it."""
        return self.games.get((round, tuple(names)))

    def options(self) -> dict[str, Any]:
        """The host's options the tournament was run with (``twistd evolution``'s names)."""
        record, settings = self.record, self.record.settings
        smallest, _, largest = str(settings.get("players", "3-8")).partition("-")
        options: dict[str, Any] = {
            "game": record.game, "tournament": record.format, "min_players": int(smallest),
            "max_players": int(largest or smallest), "rounds": settings.get("rounds"), "seed": settings.get("seed"),
            "final-tiebreak": settings.get("final_tiebreak", "co-winners"),
        }
        played = next(iter(self.games.values()), None)
        if played is not None:  # how its games were played: the time limit, the dialect, the game's own setup
            options.update(timeout=played.settings.get("timeout"), dialect=played.settings.get("dialect"),
                           setup=game_named(record.game).setup_of(played.settings))
        return options


def load_interrupted(path: str, which: str) -> StoredTournament:
    """The interrupted tournament ``which`` (an id, or "last") of the store at ``path``; ``NotResumable`` if none."""
    return reading(path, lambda store: _stored(store, which, path))


def _stored(store: ResultsStore, which: str, path: str) -> StoredTournament:
    if which == "last":
        interrupted = [t for t in store.tournaments() if t.status == "interrupted"]
        if not interrupted:
            raise NotResumable(f"{path} holds no interrupted tournament to resume")
        record = interrupted[-1]
    else:
        record = store.tournament(int(which))
        if record is None:
            raise NotResumable(f"{path} holds no tournament {which}")
        if record.status != "interrupted":
            raise NotResumable(f"tournament {record.id} in {path} is {record.status}, not interrupted: nothing to resume"
                               + (f" (won by {', '.join(e.name for e in record.winners)})" if record.winners else ""))
    games = [game for game in store.games(record.id) if game.finished]
    tables = {(game.round, tuple(seat.name for seat in game.players)): game for game in games}
    done = max((round.round for round in record.rounds if round.ended_at), default=0)
    return StoredTournament(record, tables, _outside(record, games), done + 1)


def _outside(record: TournamentRecord, games: list[GameRecord]) -> dict[int, tuple[int, str]]:
    """Each entrant's failure that no game's seat holds (it hung up, or spoke, between games; or at the greeting)."""
    removed = {(game.round, seat.entrant) for game in games for seat in game.players if seat.removed_reason}
    return {
        entrant.entrant: (entrant.failed_round or 0, entrant.failure)
        for entrant in record.entrants
        if entrant.failure is not None and (entrant.failed_round, entrant.entrant) not in removed
    }
