"""A ladder's matching rule: tables of similar ratings, unlike the tables each bot played lately.

Offers ``tables(waiting, smallest, largest, skill, met)``: the games a
ladder forms from the bots waiting (``waiting`` in the order they came to
wait; ``skill(bot)``, a rating's mu; ``met(a, b)``, in how many of a's
recent games b sat), each a list of players, and ``LOOK_AHEAD``, how many
candidates beyond a table's seats left it compares.

The rule, in order (who plays, table sizes, who sits together), and its
cost: docs/tournaments.md, "Running a ladder", "Forming games".
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
    """The games to play now, each a list of players (the rule: docs/tournaments.md, "Forming games")."""
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
