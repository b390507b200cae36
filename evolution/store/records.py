# -*- test-case-name: tests.store.test_results_store, tests.cli.test_evolution_results -*-
"""What the results store keeps: games with their seats and message logs, tournaments with their standings.

Offers the frozen values the host hands to the store and the store hands back:

- ``SeatRecord``: one seat of a game (name, score and rank, or when and why
  the player was removed; in a tournament, the entrant it was, the points the
  game gave it and its rating after the game); ``seat_records`` makes a
  game's seats from the dealer's ranking and removals;
- ``GameRecord``: one finished (or aborted) game: which game it was
  (``evolution``, ``fish``), times, how it was dealt (its ``deck``: the
  game's word, e.g. ``shuffled``) and the seed, turns, outcome, seats,
  settings (the time limit, the dialect, what the game needs to replay it),
  and, when it belongs to one, its tournament and round, or whether it is a
  ladder game (its seats then carry each bot's rating after it, and the store
  counts it in the ladder's standings, ``evolution.tournament.ladder_standings``);
  ``places()`` (``seat_places``: equal scores share a place, as points and
  ratings count them), ``tie_break()`` (``tie_break``: how the game's own
  ranks split equal scores, when they did) and ``seat_summaries()`` (each
  seat's summary with its place);
- ``EntrantRecord``, ``RoundRecord``, ``TournamentRecord``: a tournament,
  its rounds, and each entrant's standing (rank, points, rating, failure,
  and the round, place and score of its last game that counted);
  ``TableRecord`` and ``FailureRecord``: what a tournament decided, stored
  before it acted on it (each round's tables, its entrants' failures outside
  any game), which a resumed tournament reads back;

each with ``to_json()`` and ``from_json()`` (the form the store's journal
keeps, and the form ``--json`` outputs build on). A game's message log is
kept beside it, not in the record: see ``evolution.net.game_log``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Sequence

from evolution.games import DEFAULT_GAME, UnknownGame, game
from evolution.outcomes import Ranked, Removal
from evolution.tournament.scoring import places
from evolution.tournament.standings import RANKED_BY


@dataclass(frozen=True)
class SeatRecord:
    seat: int
    name: str
    score: int | None = None
    rank: int | None = None
    removed_turn: int | None = None
    removed_step: str | None = None
    removed_reason: str | None = None
    entrant: int | None = None  # the tournament entrant in this seat
    points: int | None = None  # tournament points this game gave
    rating_mu: float | None = None  # the entrant's rating after this game (Swiss), or the bot's (a ladder)
    rating_sigma: float | None = None

    def removal(self) -> dict[str, Any] | None:
        """When and why the player was removed, as the JSON outputs show it; None if it was not."""
        if self.removed_reason is None:
            return None
        return {"turn": self.removed_turn, "step": self.removed_step, "reason": self.removed_reason}

    def summary(self) -> dict[str, Any]:
        """The seat as the web view and transcripts show it: seat, name, score, rank and its removal."""
        return {"seat": self.seat, "name": self.name, "score": self.score, "rank": self.rank, "removed": self.removal()}


def seat_records(names: Sequence[str], ranking: Sequence[Ranked], removals: Sequence[Removal]) -> tuple[SeatRecord, ...]:
    """One record per seat; seat k is the player with id k (the k-th handed to the dealer)."""
    ranked = {entry.id: entry for entry in ranking}
    removed = {removal.id: removal for removal in removals}
    seats = []
    for seat, name in enumerate(names, start=1):
        entry, removal = ranked.get(seat), removed.get(seat)
        seats.append(
            SeatRecord(
                seat,
                name,
                entry.score if entry else None,
                entry.rank if entry else None,
                removal.turn if removal else None,
                removal.step if removal else None,
                removal.reason if removal else None,
            )
        )
    return tuple(seats)


def seat_places(seats: Sequence[SeatRecord]) -> dict[int, int]:
    """seat -> place of every seat still in at the end: equal scores share the best place, as tournament points
    and ratings count them (a seat's ``rank`` is the game's own ranking, which may split them)."""
    return places({seat.seat: seat.score for seat in seats if seat.score is not None and seat.removed_reason is None})


def tie_break(seats: Sequence[SeatRecord], game_name: str) -> str | None:
    """How a game's ranks split equal scores, in its rules' words, when they split some of ``seats``; else None."""
    ranks: dict[int, set[int | None]] = {}
    for seat in seats:
        if seat.score is not None and seat.removed_reason is None:
            ranks.setdefault(seat.score, set()).add(seat.rank)
    if all(len(found) == 1 for found in ranks.values()):
        return None
    try:
        return game(game_name).tie_break or "the game's own ranking"
    except UnknownGame:
        return "the game's own ranking"


@dataclass(frozen=True)
class GameRecord:
    started_at: str
    ended_at: str
    deck: str
    seed: int | None
    turns: int
    outcome: str
    players: tuple[SeatRecord, ...] = ()
    id: int | None = field(default=None, compare=False)
    tournament_id: int | None = None
    round: int | None = None
    settings: dict[str, Any] = field(default_factory=dict, compare=False)
    game: str = DEFAULT_GAME
    ladder: bool = False
    host: str | None = None  # the host that played it (``--host-name``)
    table: int | None = None  # in a tournament: the table of its round it was played for (``TableRecord``)

    @property
    def finished(self) -> bool:
        return self.outcome == "finished"

    def places(self) -> dict[int, int]:
        """seat -> place of every seat still in at the end (``seat_places``)."""
        return seat_places(self.players)

    def tie_break(self) -> str | None:
        """How the game's ranks split equal scores, when they split some here (``tie_break``)."""
        return tie_break(self.players, self.game)

    def seat_summaries(self) -> list[dict[str, Any]]:
        """Each seat's ``summary()`` with its ``place`` (equal scores sharing the best; None if removed)."""
        placed = self.places()
        return [seat.summary() | {"place": placed.get(seat.seat)} for seat in self.players]

    def to_json(self) -> dict[str, Any]:
        """The record as JSON data (a shallow copy: it runs on the reactor thread for every game)."""
        data = {name: getattr(self, name) for name in _GAME_FIELDS}
        data["players"] = [_compact(vars(player)) for player in self.players]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameRecord:
        values = {f.name: data[f.name] for f in fields(cls) if f.name in data}
        values["players"] = tuple(SeatRecord(**seat) for seat in data.get("players", ()))
        return cls(**values)

    def with_id(self, game_id: int) -> GameRecord:
        return replace(self, id=game_id)


_TOURNAMENT_ONLY = ("entrant", "points", "rating_mu", "rating_sigma")
_GAME_FIELDS = tuple(f.name for f in fields(GameRecord) if f.name != "players")


def _compact(seat: dict[str, Any]) -> dict[str, Any]:
    """A seat as JSON: the tournament fields only where they say something."""
    return {key: value for key, value in seat.items() if key not in _TOURNAMENT_ONLY or value is not None}


@dataclass(frozen=True)
class EntrantRecord:
    """One player of a tournament, as it stands (after the last round, or at the end)."""

    entrant: int  # 1, 2, ... in sign-up order
    name: str
    rank: int | None = None
    points: int = 0
    rating_mu: float | None = None
    rating_sigma: float | None = None
    winner: bool = False
    failure: str | None = None
    failed_round: int | None = None
    reached: int | None = None  # the round of its last game that counted (a knockout ranks by it)
    place: int | None = None  # its place in that game (equal scores share one)
    score: int | None = None  # its score in that game
    games: int = 0  # the games that counted for it (a removal included), as stored
    removals: int = 0  # of them, games it was removed from


@dataclass(frozen=True)
class RoundRecord:
    round: int
    started_at: str
    ended_at: str
    summary: str
    games: tuple[int, ...] = ()


@dataclass(frozen=True)
class TableRecord:
    """One table of a tournament's round, as decided before the round's first game began."""

    round: int
    table: int  # 1, 2, ... within its round
    seats: tuple[int, ...]  # its entrants (their numbers), in turn order
    seed: int | None = None  # the seed its game is dealt from, every time it is played
    decided_at: str = ""
    walkover: tuple[int, ...] | None = None  # too few came back: these entrants were placed first, no game played


@dataclass(frozen=True)
class FailureRecord:
    """An entrant out of its tournament outside any game (at the greeting, while waiting, staying away, at the end)."""

    entrant: int
    round: int  # 0: before the first round (the greeting)
    phase: int  # DURING its round, AFTER it was over, or at the END (the farewell)
    reason: str
    failed_at: str = ""

    DURING, AFTER, END = 0, 1, 2


@dataclass(frozen=True)
class Resumption:
    """A tournament resumed by a host after it was interrupted (``twistd evolution --resume``)."""

    round: int  # the round it was interrupted in, and resumed in
    resumed_at: str


@dataclass(frozen=True)
class TournamentRecord:
    id: int
    format: str  # knockout or swiss
    status: str  # running, finished, interrupted or empty
    started_at: str
    ended_at: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    entrants: tuple[EntrantRecord, ...] = ()
    rounds: tuple[RoundRecord, ...] = ()
    game: str = DEFAULT_GAME
    resumptions: tuple[Resumption, ...] = ()
    host: str | None = None  # the host that runs it (``--host-name``)

    @property
    def winners(self) -> list[EntrantRecord]:
        return [entrant for entrant in self.entrants if entrant.winner]

    @property
    def failures(self) -> list[EntrantRecord]:
        return [entrant for entrant in self.entrants if entrant.failure is not None]

    @property
    def games(self) -> list[int]:
        return [game for round in self.rounds for game in round.games]

    def standings(self) -> list[EntrantRecord]:
        """Entrants by rank (unranked last), then sign-up order."""
        return sorted(self.entrants, key=lambda e: (e.rank is None, e.rank or 0, e.entrant))

    @property
    def ranked_by(self) -> tuple[str, ...]:
        """What the standings compare, in order (``evolution.tournament.standings.RANKED_BY``)."""
        return RANKED_BY.get(self.format, ())

    def standing_row(self, entrant: EntrantRecord) -> dict[str, Any]:
        """One row of the standings: its rank and what the rank was decided by.

        Swiss: the points, the rating and its uncertainty, and ``ordinal`` (mu - 3
        sigma, which splits equal points). Knockout: the round reached, the place and
        score there; no points, which would not fall with the rank.
        """
        row: dict[str, Any] = {"name": entrant.name, "rank": entrant.rank}
        if self.format == "swiss":
            mu, sigma = entrant.rating_mu, entrant.rating_sigma
            row.update(points=entrant.points, rating=_rounded(mu), rating_sigma=_rounded(sigma),
                       ordinal=None if mu is None or sigma is None else _rounded(mu - 3 * sigma))
        else:
            row.update(reached=entrant.reached, place=entrant.place, score=entrant.score)
        return row

    def to_json(self) -> dict[str, Any]:
        """The form of ``evolution-results --tournaments --json`` (and of the web view's API)."""
        return {
            "id": self.id,
            "game": self.game,
            "format": self.format,
            "status": self.status,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "winners": [entrant.name for entrant in self.winners],
            "failures": [{"name": e.name, "reason": e.failure, "round": e.failed_round} for e in self.failures],
            "games": self.games,
            "rounds": [asdict(round) | {"games": list(round.games)} for round in self.rounds],
            "ranked_by": list(self.ranked_by),
            "standings": [self.standing_row(entrant) for entrant in self.standings()],
            "settings": self.settings,
            "resumed": [{"round": r.round, "at": r.resumed_at} for r in self.resumptions],
            "host": self.host,
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def tournament_place(tournament_id: int | None, round: int | None) -> dict[str, Any] | None:
    """A game's place in a tournament, as every game's summary shows it (None: not a tournament's game)."""
    return None if tournament_id is None else {"id": tournament_id, "round": round}
