"""A ladder's matching rule: tables of similar ratings, unlike the tables each bot played lately.

Offers ``tables(waiting, smallest, largest, skill, met)``: the games a
ladder forms from the bots waiting, and ``LOOK_AHEAD``. The rule, in order:

1. **Who plays.** Every bot waiting plays, unless games of
   ``smallest..largest`` cannot hold them all (``allocation.seated``: with
   ``largest >= 2 * smallest - 1`` they always can); then the longest
   waiting play (``waiting`` is in the order they came to wait) and the last
   few wait for the next round. So no bot waits more than one round while
   others play, and every bot plays about as often as the others.
2. **Table sizes.** As many games of ``largest`` as possible, only the last
   one or two smaller (``allocation.allocate``).
3. **Who sits together.** The players in order of ``skill`` (a rating's
   mu, best first; equal skills in waiting order). Each table, from the
   first, takes the best player left, then fills its seats one at a time:
   from the next ``seats left + LOOK_AHEAD`` players in that order it takes
   the one that met the players already at the table the fewest times
   lately (``met(a, b)``: in how many of a's recent games b sat), the
   better rated among equals. So a table holds neighbours in rating, and
   within a few places of rating it avoids the bots a player has just met;
   with few bots it cannot avoid them all and takes the fewest meetings.

The work is a few set look-ups per seat while nobody at a table has met
the next candidate (the usual case with many bots), at most ``seats left +
LOOK_AHEAD`` candidates times the table's size otherwise.
"""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from evolution.tournament.allocation import allocate, seated

T = TypeVar("T")
LOOK_AHEAD = 4
"""How many players past the seats left a table may reach down the rating order to avoid a rematch."""


def tables(
    waiting: Sequence[T], smallest: int, largest: int, skill: Callable[[T], float], met: Callable[[T, T], int],
    look_ahead: int = LOOK_AHEAD,
) -> list[list[T]]:
    """The games to play now, each a list of players (see the module's docstring for the rule)."""
    playing = list(waiting[:seated(len(waiting), smallest, largest)])
    if not playing:
        return []
    sizes = [len(game) for game in allocate(playing, smallest, largest)]
    order = sorted(playing, key=skill, reverse=True)  # stable: equal skills stay in waiting order
    games = []
    for size in sizes:
        table = [order.pop(0)]
        while len(table) < size:
            window = order[:size - len(table) + look_ahead]
            table.append(order.pop(_least_met(window, table, met)))
        games.append(table)
    return games


def _least_met(candidates: Sequence[T], table: Sequence[T], met: Callable[[T, T], int]) -> int:
    """The index of the first candidate with the fewest recent meetings with the table's players."""
    best, fewest = 0, None
    for index, candidate in enumerate(candidates):
        meetings = sum(met(candidate, other) for other in table)
        if meetings == 0:
            return index
        if fewest is None or meetings < fewest:
            best, fewest = index, meetings
    return best
