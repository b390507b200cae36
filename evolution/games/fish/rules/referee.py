"""The referee: runs one game of Fish through the player interface, as the reference's referee does (rules.md 3-9).

Offers ``FishReferee(players, board, observer=None)``; seats are 1, 2, ... in
the order the players are given, and seat k plays colour ``COLORS[k - 1]``
(red, white, brown, black). ``play()`` is a coroutine that awaits a
player's answer only when the player returned an awaitable, so
``evolution.coroutines.run_locally(referee.play())`` plays a game of local
players with no event loop, and Twisted's ``ensureDeferred`` plays the same
coroutine with remote players.

The game, step by step (the steps are the ``step`` of a ``Removal``):

1. ``playing-as`` then ``playing-with`` to each player, in seat order; the
   colours named to a player are those of every other seat of the game;
2. ``setup``: with n players left, ``6 - n`` rounds; each asks as many
   placements as players were in at its start, each of the player first in
   the state (the state it is shown has it first), the turn passing on after
   each; a failed placement removes the player and moves the turn on once
   more (rules.md 9.5: of red, white and brown, when red fails, brown places
   next, then white); players removed later do not change the quota;
3. ``take-turn``: from the player first in the state after placement (the
   first seat still in, unless a placement failed), in turn, cyclically;
   a player that cannot move while another can is skipped without a call
   (``SKIP`` recorded); ``turn`` counts these turns (0 before them);
   each mover is shown the actions since its last turn (rules.md 9.1: none
   while the history is no longer than the number of players, else the
   last ``players - 1``); the game ends when nobody can move.

A player whose call raises (``PlayerFailure`` or anything else), whose
answer is malformed, or whose choice is illegal is removed, the game going
on without it: its penguins leave the board, the tiles stay, the history
of actions restarts. The ranking (``competition_ranks``) holds the players
still in at the end, by score; equal scores share a rank.

Observer events, each ``observer(event, referee)`` after the step, whatever
its outcome: ``informed`` (a player was told its colour and the others'),
``placed`` (a setup turn), ``moved`` (a take-turn), ``skipped`` (a stuck
player's turn passed), ``end`` (once, the game is over).

Checkpoints. Expulsions (``expel``: a failure noticed outside a call, such
as a remote disconnect) take effect only at safe points: after each
player's ``playing-with``, after each setup turn, after each movement turn
and at the end; one during placement takes effect at the player's next
placement, which it fails unasked (or at the end of placement), as the
reference notices a closed connection when it calls it. ``checkpoints`` counts the safe points passed; ``expel``
answers the count at which it was asked, and an expulsion asked at count
``c`` takes effect at safe point ``c + 1``; a replay hands the same counts
back to ``expel`` and removes a player exactly where the game it replays did.
"""

from __future__ import annotations

from typing import Any, Callable, NamedTuple, Sequence

from evolution.games.fish.rules.board import Board, Position
from evolution.games.fish.rules.player import FishPlayer
from evolution.games.fish.rules.state import COLORS, SKIP, Action, Color, GameState, Move, PlayerState
from evolution.coroutines import Failed, call, failure_reason, settle
from evolution.outcomes import GameResult, PlayerFailure, Removal, competition_ranks
from evolution.safe_points import SafePoints

MIN_PLAYERS = 2
MAX_PLAYERS = 4
PENGUINS = 6
"""A player's penguins: ``PENGUINS - n`` with n players (2 -> 4, 3 -> 3, 4 -> 2)."""

PLAYING_AS, PLAYING_WITH, SETUP, TAKE_TURN = "playing-as", "playing-with", "setup", "take-turn"

Observer = Callable[[str, "FishReferee"], None]
"""Called after each step: informed, placed, moved, skipped, end."""


async def ask(player: FishPlayer, method: str, *args: Any) -> Any:
    """The player's answer to one call, awaited only if it is awaitable; a ``Failed`` if the call raised."""

    def describe(error: Exception) -> str:
        if isinstance(error, PlayerFailure):
            return failure_reason(error)
        return f"{method.replace('_', '-')} raised {type(error).__name__}: {error}"

    return await settle(call(player, method, *args, describe=describe), describe)


def as_position(answer: Any) -> Position | None:
    """``answer`` as a Position if it is a pair of naturals, else ``None``."""
    if isinstance(answer, (tuple, list)) and len(answer) == 2 and all(type(n) is int and n >= 0 for n in answer):
        return Position(*answer)
    return None


def as_move(answer: Any) -> Move | None:
    """``answer`` as a Move if it is a pair of positions, else ``None``."""
    if isinstance(answer, (tuple, list)) and len(answer) == 2:
        source, target = as_position(answer[0]), as_position(answer[1])
        if source is not None and target is not None:
            return Move(source, target)
    return None


class Choice(NamedTuple):
    """What a player chooses when asked by ``method``: how to read its answer, and what makes it illegal."""

    name: str
    method: str
    shape: str
    read: Callable[[Any], Any]
    problem: Callable[[GameState, Any], str | None]


PLACEMENT = Choice("placement", "setup", "a position [row, column]", as_position, GameState.placement_problem)
MOVE = Choice("move", "take_turn", "an action [[row, column], [row, column]]", as_move, GameState.move_problem)


def actions_since_last_turn(history: Sequence[Action], players: int) -> tuple[Action, ...]:
    """Rules.md 9.1: nothing while the history is no longer than ``players``, else its last ``players - 1``."""
    if len(history) <= players:
        return ()
    return tuple(history[len(history) - (players - 1) :])


class FishReferee(SafePoints):
    """Runs one game: the state, the turn, and the record of removals (``expel``: ``SafePoints``)."""

    def __init__(self, players: Sequence[FishPlayer], board: Board, observer: Observer | None = None) -> None:
        super().__init__()
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise ValueError(f"a game of Fish needs {MIN_PLAYERS}..{MAX_PLAYERS} players, not {len(players)}")
        self.players = tuple(players)
        self.colors = COLORS[: len(players)]
        """The colour of each seat: ``colors[seat - 1]``."""
        self.state = GameState(board, tuple(PlayerState(color) for color in self.colors))
        """The board and the players still in, the one to act first (for a drawing: ``codec.state_to_json``)."""
        self.removals: list[Removal] = []
        self.turn = 0
        self.step = PLAYING_AS
        self.observer = observer
        self.history: list[Action] = []
        """The actions since movement began or a player was last removed."""
        self.first_round = True
        """True until every player has had a movement turn (the reference allows 30 s for these)."""
        self._failing: dict[Color, str] = {}
        """Players expelled during placement, and why: each fails its next placement, unasked."""

    def seat_of(self, color: Color) -> int:
        return self.colors.index(color) + 1

    def scores(self) -> dict[int, int]:
        """Seat -> fish so far, for the players still in."""
        return {self.seat_of(player.color): player.score for player in self.state.players}

    def _observe(self, event: str) -> None:
        if self.observer is not None:
            self.observer(event, self)

    def _still_in(self, color: Color) -> bool:
        return self.state.player(color) is not None

    # -- the game -----------------------------------------------------------

    async def play(self) -> GameResult:
        """Play the whole game; return the ranking of the players still in and the removals."""
        await self.inform()
        await self.place_penguins()
        await self.move_penguins()
        self._checkpoint()
        self.step = "end"
        self._observe("end")
        scores = sorted(self.scores().items())
        return GameResult(competition_ranks(scores), tuple(self.removals), self.turn)

    async def inform(self) -> None:
        """``playing-as`` and ``playing-with`` to each player in seat order (rules.md 3, 7)."""
        for color, player in zip(self.colors, self.players):
            if self._still_in(color):
                await self._inform(color, player)
                self._checkpoint()
                self._observe("informed")

    async def _inform(self, color: Color, player: FishPlayer) -> None:
        self.step = PLAYING_AS
        answer = await ask(player, "playing_as", color)
        if isinstance(answer, Failed):
            self.remove(color, answer.reason)
            return
        self.step = PLAYING_WITH
        answer = await ask(player, "playing_with", tuple(other for other in self.colors if other != color))
        if isinstance(answer, Failed):
            self.remove(color, answer.reason)

    async def place_penguins(self) -> None:
        """``6 - n`` rounds; each asks the player first in the state once per player in at the round's start
        (rules.md 4, 9.5). Players expelled meanwhile, whose placements are over, leave at the end."""
        self.step = SETUP
        rounds = PENGUINS - len(self.state.players)
        for _ in range(rounds):
            for _ in range(len(self.state.players)):
                if not self.state.players:
                    return
                await self._place()
                self._checkpoint()
                self._observe("placed")
        for color, reason in list(self._failing.items()):
            self.remove(color, reason)

    async def _place(self) -> None:
        """The first player in the state places a penguin, and the turn passes on; one that fails is removed
        and the turn passes on once more, the reference's quirk (rules.md 9.5): of red, white and brown, when
        red fails, brown places next, then white. A player expelled during placement fails here, unasked, as
        the reference's call to a closed connection fails."""
        color = self.state.active.color
        expelled = self._failing.pop(color, None)
        if expelled is not None:
            self.remove(color, expelled)
        else:
            position = await self._choice(color, PLACEMENT, self.state)
            if position is not None:
                self.state = self.state.placed(position)
                return
        self.state = self.state.skipped()

    async def move_penguins(self) -> None:
        """Turns from the first seat still in, cyclically, until nobody can move (rules.md 5)."""
        self.step = TAKE_TURN
        self.history = []
        while not self.state.is_over():
            self.turn += 1
            if len(self.history) >= len(self.state.players):
                self.first_round = False
            if self.state.can_move(0):
                await self._take_turn()
                self._checkpoint()
                self._observe("moved")
            else:
                self.state = self.state.skipped()
                self.history.append(SKIP)
                self._checkpoint()
                self._observe("skipped")

    async def _take_turn(self) -> None:
        state = self.state
        actions = actions_since_last_turn(self.history, len(state.players))
        move = await self._choice(state.active.color, MOVE, state, actions)
        if move is not None:
            self.state = state.moved(move)
            self.history.append(move)

    async def _choice(self, color: Color, kind: Choice, state: GameState, *more: Any) -> Any:
        """Ask the player of ``color`` for a placement or a move; the legal choice, or ``None`` once it is removed."""
        answer = await ask(self.players[self.seat_of(color) - 1], kind.method, state, *more)
        if isinstance(answer, Failed):
            self.remove(color, answer.reason)
            return None
        choice = kind.read(answer)
        problem = f"not {kind.shape}" if choice is None else kind.problem(state, choice)
        if problem is not None:
            self.remove(color, f"illegal {kind.name} {_shown(answer)}: {problem}")
            return None
        return choice

    # -- removal ------------------------------------------------------------

    def _remove_expelled(self, player: FishPlayer, reason: str) -> None:
        """Removed now; during placement, at its next placement (``_place``): the reference notices a closed
        connection when it calls it, and counts that call in the round."""
        for color, seated in zip(self.colors, self.players):
            if seated is player and self.step == SETUP and self._still_in(color):
                self._failing.setdefault(color, reason)
            elif seated is player:
                self.remove(color, reason)

    def remove(self, color: Color, reason: str) -> None:
        """Remove a failing or cheating player: its penguins leave, its tiles stay, the history restarts."""
        if self._still_in(color):
            self.state = self.state.without(color)
            self.removals.append(Removal(self.seat_of(color), self.turn, self.step, reason))
            self.history = []


def _shown(answer: Any) -> str:
    """An answer as the player's author would write it: positions as ``[r, c]``, else its ``repr``, cut short."""
    position, move = as_position(answer), as_move(answer)
    text = str(position if position is not None else move if move is not None else repr(answer))
    return text if len(text) <= 60 else text[:57] + "..."
