# -*- test-case-name: tests.tournament.test_formats -*-
"""Splitting players into games (tournament.md 2.4, the course's reference manager).

Offers ``allocate(players, smallest, largest)``: consecutive slices of
``players`` (kept in the order given: sign-up order in a knockout, standing
order in Swiss) that join back into the list, as many games of ``largest``
as possible, only the last one or two smaller; ``check_sizes``, which
refuses game sizes some player count could not be split into; and
``seated(count, smallest, largest)``, how many of ``count`` players the
most games of those sizes can hold (all of them, once ``largest >= 2 *
smallest - 1``; a ladder of other sizes leaves the rest to wait); and
``apart(games, owner)``, the same games with players swapped between them so
that no two players of one owner share a game, where the numbers allow (a
tournament's forbidden pairings: two bots of one team never meet at a table);
``spread(waiting, count, smallest, largest, owner)``, which of the players
waiting a ladder seats so that ``apart`` can keep each owner's bots apart.

How: cut games of size ``s = largest`` from the front; when fewer than
``smallest`` players would be left over, take the last game back and make
every later game one smaller. With ``largest >= 2 * smallest - 1`` every
count of at least ``smallest`` can be split (the reference breaks its own
contract otherwise, e.g. 3..4 players per game and 5 players).
"""

from __future__ import annotations

from typing import Callable, Hashable, Sequence, TypeVar

T = TypeVar("T")


def check_sizes(smallest: int, largest: int) -> None:
    """Raise ``ValueError`` unless every count of at least ``smallest`` players can be split."""
    if smallest < 1 or largest < smallest:
        raise ValueError(f"game sizes {smallest}..{largest} are not a range")
    if largest < 2 * smallest - 1:
        raise ValueError(
            f"games of {smallest}..{largest} players cannot hold every number of players"
            f" (e.g. {largest + 1}); the largest game must be at least {2 * smallest - 1}"
        )


def allocate(players: Sequence[T], smallest: int, largest: int) -> list[list[T]]:
    """Consecutive games of ``smallest..largest`` players, as many of ``largest`` as possible."""
    if len(players) < smallest:
        raise ValueError(f"{len(players)} players cannot fill a game of at least {smallest}")
    if len(players) <= largest:
        return [list(players)]
    sizes: list[int] = []
    size, left = largest, len(players)
    while left:
        if left < smallest:  # backtrack: the last game rejoins, later games are one smaller
            if not sizes or size <= smallest:
                raise ValueError(f"{len(players)} players cannot be split into games of {smallest}..{largest}")
            left += sizes.pop()
            size -= 1
        elif left < size:
            sizes.append(left)
            left = 0
        else:
            sizes.append(size)
            left -= size
    games, start = [], 0
    for size in sizes:
        games.append(list(players[start:start + size]))
        start += size
    return games


def seated(count: int, smallest: int, largest: int) -> int:
    """The most of ``count`` players that games of ``smallest..largest`` can hold at once (0 if fewer than one game)."""
    for players in range(count, smallest - 1, -1):
        try:
            allocate(range(players), smallest, largest)
        except ValueError:
            continue
        return players
    return 0


def apart(games: Sequence[Sequence[T]], owner: Callable[[T], Hashable | None]) -> list[list[T]]:
    """``games`` (sizes kept) with players swapped so that no two of one owner (not None) share a game, as far as
    swaps of two players can make it so; deterministic: the first such swap, game by game, seat by seat."""
    tables = [list(game) for game in games]

    def owners(table: list[T], without: int) -> set:
        return {owner(player) for seat, player in enumerate(table) if seat != without} - {None}

    for here in tables:
        for seat, player in enumerate(here):
            mine = owner(player)
            if mine is None or mine not in owners(here, seat):
                continue
            swap = next(((there, other) for there in tables if there is not here for other in range(len(there))
                         if owner(there[other]) not in owners(here, seat) and mine not in owners(there, other)), None)
            if swap is not None:
                there, other = swap
                here[seat], there[other] = there[other], here[seat]
    return tables


def spread(waiting: Sequence[T], count: int, smallest: int, largest: int,
           owner: Callable[[T], Hashable | None]) -> list[T]:
    """At most ``count`` of ``waiting``, as many as games of ``smallest..largest`` can seat with no owner (not
    None) having more players than there are games: every owner's first before anyone's second, and so on, each
    in the order of ``waiting``; [] when fewer than one game could be seated so."""
    turns: dict[Hashable, int] = {}
    ranked = []
    for position, player in enumerate(waiting):
        mine = owner(player)
        turn = 0 if mine is None else turns.get(mine, 0)
        if mine is not None:
            turns[mine] = turn + 1
        ranked.append((turn, position, player))
    ranked.sort(key=lambda entry: entry[:2])
    while count >= smallest:
        games = len(allocate(range(count), smallest, largest))
        chosen = [player for turn, _, player in ranked if turn < games][:count]
        if len(chosen) == count:
            return chosen
        count = seated(len(chosen), smallest, largest)
    return []
