"""A game of Fish's table as JSON, and what its players did, in words: the web view's picture of it.

Offers ``DRAWING`` (``evolution.games.Drawing``: ``table``, ``narrator``,
``drawing.js``, which draws the table in the page, and ``drawing.css``, its
look), ``table_json(referee, names)``, ``last_actions(referee)`` and
``Narrator``.

Data definitions (the JSON the page draws; the README's "Web view" section
documents it too)::

    Table   = {"turn": int,                          # movement turns so far (0 while penguins are placed)
               "step": str,                          # playing-as, playing-with, setup, take-turn, end
               "rows": int, "cols": int,
               "board": [[fish, ...], ...],          # 0 is a hole
               "fish_left": int, "tiles_left": int,  # on the tiles still in play
               "to_act": seat | None,                # who places or moves next (None before setup and at the end)
               "players": [Player, ...],             # still in, in turn order, the next to act first
               "last": [Action, ...],                # each player's latest action of this round, oldest first
               "removed": [Removal, ...]}
    Player  = {"seat": int, "name": str, "color": str, "score": int,
               "penguins": [[row, col], ...],        # most recent first, as the wire has them
               "can_move": bool}
    Action  = {"seat": int, "color": str, "kind": "placed" | "moved" | "skipped",
               "from": [row, col] | None,            # a move's tile, a hole now
               "to": [row, col] | None}              # where the penguin stands
    Removal = {"seat", "name", "turn", "step", "reason"}
    Line    = {"turn": int, "step": str, "seat": int | None, "text": str}

Seats are numbered from 1, as the referee seats them (seat 1 plays red).
Nothing of Fish is hidden, so live pictures and replays show the same.

The lines and the last actions are read from the referee's state, never
from the message log: what a player did is what changed on the board, the
same in every dialect and in games of local players.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any, Sequence

from evolution.games.fish.rules.board import Position
from evolution.games.fish.rules.referee import PENGUINS, PLAYING_AS, PLAYING_WITH, SETUP, TAKE_TURN, FishReferee
from evolution.games.fish.rules.state import SKIP, GameState, PlayerState
from evolution.text import plural, short

Json = Any
LINES_KEPT = 40
BEFORE_MOVES = (PLAYING_AS, PLAYING_WITH, SETUP)
REASON_IN_TEXT = 300


def _position(position: Position) -> list[int]:
    return [position.row, position.col]


def _action(referee: FishReferee, player: PlayerState, kind: str, source: Position | None, target: Position | None) -> Json:
    return {
        "seat": referee.seat_of(player.color),
        "color": player.color.value,
        "kind": kind,
        "from": None if source is None else _position(source),
        "to": None if target is None else _position(target),
    }


def last_actions(referee: FishReferee) -> list[Json]:
    """Each player's latest action of the current round, oldest first (at most one per player still in).

    The actor of a step always goes last in the state's turn order, so the
    k-th action from the end was made by the k-th player from the end: moves
    and skips from the referee's history (which restarts when a player is
    removed), placements from each player's newest penguin.
    """
    players = referee.state.players
    if referee.step == SETUP:
        placed = sum(len(player.places) for player in players)
        actors = players[len(players) - min(placed, len(players)):]
        return [_action(referee, player, "placed", None, player.places[0]) for player in actors if player.places]
    recent = referee.history[len(referee.history) - min(len(referee.history), len(players)):]
    actors = players[len(players) - len(recent):]
    return [
        _action(referee, player, "skipped", None, None)
        if action == SKIP
        else _action(referee, player, "moved", action.source, action.target)
        for player, action in zip(actors, recent)
    ]


def to_act(referee: FishReferee) -> int | None:
    """The seat that places or moves next: the next placer, or the next player that can move (a stuck one is skipped)."""
    players = referee.state.players
    if referee.step == SETUP and players:
        return referee.seat_of(players[0].color)
    if referee.step == TAKE_TURN:
        movers = (player for index, player in enumerate(players) if referee.state.can_move(index))
        return next((referee.seat_of(player.color) for player in movers), None)
    return None


def table_json(referee: FishReferee, names: Sequence[str], hands: bool = False) -> Json:
    state = referee.state
    board = state.board
    return {
        "turn": referee.turn,
        "step": referee.step,
        "rows": board.rows,
        "cols": board.cols,
        "board": board.to_rows(),
        "fish_left": sum(board.tiles),
        "tiles_left": sum(1 for fish in board.tiles if fish),
        "to_act": to_act(referee),
        "players": [
            {
                "seat": referee.seat_of(player.color),
                "name": names[referee.seat_of(player.color) - 1],
                "color": player.color.value,
                "score": player.score,
                "penguins": [_position(place) for place in player.places],
                "can_move": state.can_move(index),
            }
            for index, player in enumerate(state.players)
        ],
        "last": last_actions(referee),
        "removed": [
            {"seat": r.id, "name": names[r.id - 1], "turn": r.turn, "step": r.step, "reason": r.reason}
            for r in referee.removals
        ],
    }


# -- what the players did ------------------------------------------------------------


def changes_of(before: GameState | None, after: GameState) -> list[tuple[PlayerState, str]]:
    """What each player still in did between two states, in words: a placement or a move, with the fish it took."""
    said = []
    earlier = {player.color: player for player in before.players} if before is not None else {}
    for player in after.players:
        old = earlier.get(player.color)
        old_places = set(old.places) if old is not None else set()
        added = [place for place in player.places if place not in old_places]
        left = [place for place in old_places if place not in set(player.places)]
        if added and left:
            taken = player.score - old.score
            said.append((player, f"moved {left[0]} \u2192 {added[0]} and took {plural(taken, 'fish', 'fish')}"))
        for place in added if not left else ():
            said.append((player, f"placed a penguin on {place} ({plural(after.board.fish_at(place), 'fish', 'fish')})"))
    return said


class Narrator:
    """Short lines saying what happened in a game, kept for its last ``keep`` lines.

    It keeps the state it saw last and tells what changed since: placements,
    moves with the fish they took, skips, removals with their reasons, and a
    marker when the placement and the movement begin and when the game ends.
    A narrator that first sees a game after its moves began (the live view
    follows a game from its first picture) says so in a marker and tells
    only what changes from there: that state cannot tell a placed penguin
    from a moved one.
    """

    def __init__(self, names: Sequence[str], keep: int | None = LINES_KEPT) -> None:
        self.names = list(names)
        self.lines: deque[Json] = deque(maxlen=keep)
        self._state: GameState | None = None
        self._step: str | None = None
        self._removals = 0

    def step(self, event: str, referee: FishReferee, entries: Sequence[list] = ()) -> list[Json]:
        """The referee finished step ``event``: return (and keep) the lines saying what it changed.

        ``entries`` (the game's message log) is not read: the state says it all.
        """
        new: list[Json] = []

        def say(seat: int | None, text: str) -> None:
            new.append({"turn": referee.turn, "step": referee.step, "seat": seat, "text": text})

        if self._state is None and referee.step not in BEFORE_MOVES:  # it cannot tell placed penguins from moved ones
            say(None, "Followed from here, after the moves began: the replay tells the whole game")
        else:
            self._markers(event, referee, say)
            for player, text in changes_of(self._state, referee.state):
                say(referee.seat_of(player.color), text)
        if event == "skipped" and referee.state.players:
            say(referee.seat_of(referee.state.players[-1].color), "cannot move: skipped")
        for removal in referee.removals[self._removals:]:
            say(removal.id, f"removed: {short(removal.reason, REASON_IN_TEXT)}")
        self._removals = len(referee.removals)
        if event == "end":
            say(None, "No penguin can move: the game is over" if referee.state.players else "Nobody is left: the game is over")
        self._state, self._step = referee.state, referee.step
        self.lines.extend(new)
        return new

    def _markers(self, event: str, referee: FishReferee, say: Any) -> None:
        """A line when the placement begins (with each player's quota) and when the moves begin."""
        if event == "placed" and self._step != SETUP:
            removed = sum(1 for removal in referee.removals if removal.step == SETUP)
            each = PENGUINS - len(referee.state.players) - removed
            say(None, f"Placing penguins: {plural(each, 'penguin')} each")
        elif referee.step == TAKE_TURN and self._step == SETUP:
            say(None, "Every penguin is placed: the moves begin")


class FishDrawing:
    """Fish's picture in the web view (``evolution.games.Drawing``); ``drawing.js`` draws it, ``drawing.css`` styles it."""

    script = Path(__file__).with_name("drawing.js")
    style = Path(__file__).with_name("drawing.css")

    def table(self, referee: FishReferee, names: Sequence[str], hands: bool = False) -> Json:
        return table_json(referee, names)

    def narrator(self, names: Sequence[str], keep: int | None = LINES_KEPT) -> Narrator:
        return Narrator(names, keep)


DRAWING = FishDrawing()
