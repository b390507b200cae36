"""A tryout's games, planned, and a gauntlet's results by opponent: who sits where, and how the bot fared.

Offers ``House`` (one house bot: its number and strategy), ``Table`` (one
planned game: a house bot or ``BOT`` in each seat), ``Plan`` (the house bots
and the tables), ``tryout_plan(players, strategies, games)`` (one house bot
per seat beside the bot's, the strategies in turn; the bot's seat goes round
the table, game after game), ``gauntlet_plan(players, strategies, games)``
(against each strategy alone: the bot and ``players - 1`` house bots of that
strategy, the bot in every seat, ``games`` games in each), and
``Result``/``tallies(results)``: per opponent, the games, the bot's wins and
mean place, and its removals with their reasons (cutechess-cli's gauntlet
table). Pure: ``evolution.host.tryout`` plays the tables, ``evolution-try``
prints the tallies.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

BOT = None
"""The bot's seat in a ``Table``."""


@dataclass(frozen=True)
class House:
    number: int  # 1, 2, ...: the number in its name
    strategy: str


@dataclass(frozen=True)
class Table:
    seats: tuple[House | None, ...]  # in turn order; BOT is the bot's
    opponent: str  # the house strategies it meets there, as a person reads them

    @property
    def bot_seat(self) -> int:
        """The bot's seat, from 1."""
        return self.seats.index(BOT) + 1


@dataclass(frozen=True)
class Plan:
    house: tuple[House, ...]
    tables: tuple[Table, ...]


def _seated(house: list[House], seat: int) -> tuple[House | None, ...]:
    """The house bots in turn order, with the bot's seat (from 1) taken out of it."""
    return (*house[: seat - 1], BOT, *house[seat - 1 :])


def tryout_plan(players: int, strategies: tuple[str, ...], games: int) -> Plan:
    """``players - 1`` house bots, ``strategies`` in turn, at every table; the bot in seat 1, 2, ... in turn."""
    house = [House(k, strategies[(k - 1) % len(strategies)]) for k in range(1, players)]
    opponent = ", ".join(dict.fromkeys(bot.strategy for bot in house))
    tables = tuple(Table(_seated(house, game % players + 1), opponent) for game in range(games))
    return Plan(tuple(house), tables)


def gauntlet_plan(players: int, strategies: tuple[str, ...], games: int) -> Plan:
    """Against each strategy alone (``players - 1`` house bots of it), in every seat, ``games`` games each."""
    house: list[House] = []
    tables: list[Table] = []
    for strategy in dict.fromkeys(strategies):
        mine = [House(len(house) + k, strategy) for k in range(1, players)]
        house += mine
        tables += [Table(_seated(mine, seat), strategy) for seat in range(1, players + 1) for _ in range(games)]
    return Plan(tuple(house), tuple(tables))


@dataclass(frozen=True)
class Result:
    """How the bot did in one game: its place (None if it was removed, or the game was not finished)."""

    opponent: str
    place: int | None
    removal: str | None = None  # the reason, if it was removed


@dataclass(frozen=True)
class Tally:
    opponent: str
    games: int
    wins: int  # first places, shared ones included
    mean_place: float | None  # over the games it finished
    removals: tuple[tuple[str, int], ...]  # (reason, how many times), most frequent first

    @property
    def removed(self) -> int:
        return sum(count for _, count in self.removals)


def tallies(results: list[Result]) -> list[Tally]:
    """One ``Tally`` per opponent, in the order the opponents were first met."""
    by_opponent: dict[str, list[Result]] = {}
    for result in results:
        by_opponent.setdefault(result.opponent, []).append(result)
    return [_tally(opponent, mine) for opponent, mine in by_opponent.items()]


def _tally(opponent: str, results: list[Result]) -> Tally:
    places = [result.place for result in results if result.place is not None]
    reasons = Counter(result.removal for result in results if result.removal is not None)
    return Tally(opponent, len(results), places.count(1), sum(places) / len(places) if places else None,
                 tuple(reasons.most_common()))
