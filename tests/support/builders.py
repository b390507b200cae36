"""Small builders shared by the rules-layer tests.

Offers:

- ``sp(*traits, food=0, body=0, pop=1, fat=0)``: a species board, traits by spelling;
- ``card(food, trait)`` and ``cards("3 carnivore", "-1 foraging", ...)``: trait cards;
- ``player(id, *boards, hand=(), bag=0, strategy=None)``: a ``PlayerState``;
- ``table(*players, wh=0, deck=())``: a ``Table`` (the deck a list of cards, front first);
- ``play(coroutine)``: ``run_locally``, for dealer coroutines of local players;
- ``Recorder``: a local player that plays the reference strategy and records every call;
- ``Faulty``: a reference player that misbehaves once, on a chosen call, in a chosen way;
- ``Scripted``: a reference player whose ``feed_next`` gives listed answers first.

The players are real classes implementing ``start``/``choose``/``feed_next``; the
dealer cannot tell them from any other local player.
"""

from __future__ import annotations

from typing import Any, Iterable

from evolution.games.evolution.rules.actions import Action4
from evolution.games.evolution.rules.cards import Card, Deck
from evolution.games.evolution.rules.feeding import Decline
from evolution.games.evolution.rules.local import run_locally
from evolution.games.evolution.rules.player import LOB, FeedingState
from evolution.games.evolution.rules.player_state import PlayerState, PlayerView
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.rules.table import Table
from evolution.games.evolution.rules.traits import Trait


def sp(*traits: str, food: int = 0, body: int = 0, pop: int = 1, fat: int = 0) -> Species:
    """A species board with the given traits (by spelling, in board order)."""
    return Species(food, body, pop, tuple(Trait(t) for t in traits), fat)


def card(food: int, trait: str) -> Card:
    return Card(food, Trait(trait))


def cards(*specs: str) -> list[Card]:
    """Cards written as ``"food trait"``, e.g. ``cards("3 carnivore", "-1 foraging")``."""
    result = []
    for spec in specs:
        food, trait = spec.split()
        result.append(card(int(food), trait))
    return result


def player(
    id: int, *boards: Species, hand: Iterable[Card] = (), bag: int = 0, strategy: Any = None
) -> PlayerState:
    return PlayerState(id, list(boards), list(hand), bag, strategy if strategy is not None else SillyPlayer())


def table(*players: PlayerState, wh: int = 0, deck: Iterable[Card] = ()) -> Table:
    return Table(list(players), wh, Deck(deck))


def play(coroutine: Any) -> Any:
    """Run a dealer coroutine whose players all answer at once."""
    return run_locally(coroutine)


class Recorder(SillyPlayer):
    """The reference strategy, recording each call as ``(method, arguments, answer)``."""

    def __init__(self, name: str = "") -> None:
        super().__init__()
        self.name = name
        self.calls: list[tuple[str, tuple, Any]] = []

    def start(self, watering_hole: int, me: PlayerView) -> None:
        super().start(watering_hole, me)
        self.calls.append(("start", (watering_hole, me), None))

    def choose(self, before: LOB, after: LOB) -> Action4:
        answer = super().choose(before, after)
        self.calls.append(("choose", (before, after), answer))
        return answer

    def feed_next(self, state: FeedingState) -> Any:
        answer = super().feed_next(state)
        self.calls.append(("feed_next", (state,), answer))
        return answer

    def methods(self) -> list[str]:
        return [method for method, _, _ in self.calls]


class PlayerBroke(Exception):
    """What a ``Faulty`` player raises when it is told to raise."""


class Faulty(Recorder):
    """A reference player that misbehaves on its ``call``-th call (1-based) of ``method``.

    ``kind`` is ``"raise"`` (an exception), ``"garbage"`` (a value of the wrong
    type) or ``"illegal"`` (a value of the right type that breaks the rules: a card
    index beyond the hand, or ``false`` when asked to feed). ``start``'s answer is
    ignored, so there only ``"raise"`` misbehaves. ``misbehaved`` says whether it did;
    the call it misbehaved on is recorded with the kind in place of the answer.
    """

    KINDS = ("raise", "garbage", "illegal")
    METHODS = ("start", "choose", "feed_next")

    def __init__(self, method: str, call: int = 1, kind: str = "raise") -> None:
        super().__init__(f"faulty-{method}-{call}-{kind}")
        assert method in self.METHODS and kind in self.KINDS
        self.method, self.call, self.kind = method, call, kind
        self.counts = {name: 0 for name in self.METHODS}
        self.misbehaved = False

    def _due(self, method: str) -> bool:
        self.counts[method] += 1
        return method == self.method and self.counts[method] == self.call

    def _misbehave(self, legal_type_but_illegal: Any) -> Any:
        self.misbehaved = True
        self.calls.append((self.method, (), self.kind))
        if self.kind == "raise":
            raise PlayerBroke(f"{self.name} broke")
        if self.kind == "garbage":
            return "not an answer"
        return legal_type_but_illegal

    def start(self, watering_hole: int, me: PlayerView) -> Any:
        SillyPlayer.start(self, watering_hole, me)
        if self._due("start") and self.kind == "raise":
            self._misbehave(None)  # start's answer is ignored, so only raising is misbehaviour
        self.calls.append(("start", (watering_hole, me), None))
        return None

    def choose(self, before: LOB, after: LOB) -> Any:
        if self._due("choose"):
            assert self.me is not None
            return self._misbehave(Action4(food_card=len(self.me.hand)))
        return super().choose(before, after)

    def feed_next(self, state: FeedingState) -> Any:
        if self._due("feed_next"):
            return self._misbehave(Decline())
        return super().feed_next(state)


class Scripted(Recorder):
    """The reference strategy, except that ``feed_next`` gives the listed answers first."""

    def __init__(self, *feed_answers: Any) -> None:
        super().__init__("scripted")
        self.feed_answers = list(feed_answers)

    def feed_next(self, state: FeedingState) -> Any:
        if not self.feed_answers:
            return super().feed_next(state)
        answer = self.feed_answers.pop(0)
        self.calls.append(("feed_next", (state,), answer))
        return answer

    def states(self) -> list[FeedingState]:
        return [args[0] for method, args, _ in self.calls if method == "feed_next"]
