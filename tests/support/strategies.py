"""Hypothesis strategies over rules values, and messages recorded from real games.

Offers strategies for traits, cards, hands, species, boards, LOBs, player
views, feeding states, legal Action4s (the silly strategy's, and random legal
ones built against a view), feeding choices and rankings; ``recorded_games``
(games of 3..8 players on ``Deck.shuffled(seed)``, some with a player that
fails, every message recorded through the dealer's player interface); and
``mutations`` of JSON values (for comparing two validators on near misses).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from hypothesis import strategies as st

from evolution.games.evolution.rules.actions import Action4, Growth, NewBoard, TraitReplacement, check_action
from evolution.games.evolution.rules.cards import ALL_CARDS, Deck
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.feeding import CarnivoreChoice, FatTissueChoice, VegetarianChoice
from evolution.games.evolution.rules.local import run_locally
from evolution.games.evolution.rules.player import FeedingState, PlayerFailure
from evolution.games.evolution.rules.player_state import PlayerView
from evolution.games.evolution.rules.results import Ranked
from evolution.games.evolution.rules.silly import SillyPlayer, silly_action
from evolution.games.evolution.rules.species import MAX_BODY, MAX_POPULATION, Species
from evolution.games.evolution.rules.traits import Trait
from evolution.games.evolution.wire import codec

traits = st.sampled_from(list(Trait))
cards = st.sampled_from(ALL_CARDS)
hands = st.lists(cards, unique=True, max_size=14).map(tuple)
trait_lists = st.lists(traits, unique=True, max_size=3).map(tuple)


@st.composite
def species(draw: st.DrawFn) -> Species:
    """Any board the rules allow, fat food included (encoded only with fat-tissue)."""
    population = draw(st.integers(1, MAX_POPULATION))
    body = draw(st.integers(0, MAX_BODY))
    return Species(
        food=draw(st.integers(0, population)),
        body=body,
        population=population,
        traits=draw(trait_lists),
        fat_food=draw(st.integers(0, body)),
    )


def boards(min_size: int = 0, max_size: int = 5) -> st.SearchStrategy[tuple[Species, ...]]:
    return st.lists(species(), min_size=min_size, max_size=max_size).map(tuple)


def lobs(min_size: int = 0, max_size: int = 7, min_boards: int = 0) -> st.SearchStrategy[tuple]:
    return st.lists(boards(min_size=min_boards, max_size=4), min_size=min_size, max_size=max_size).map(tuple)


bags = st.integers(0, 200)
player_views = st.builds(PlayerView, bags, boards(min_size=1), hands)
feeding_states = st.builds(FeedingState, bags, boards(min_size=1), hands, st.integers(1, 60), lobs(max_size=7))


@st.composite
def chooses(draw: st.DrawFn) -> tuple[tuple, tuple]:
    """[before, after] as the host sends it: 1..8 players, each with boards, after non-empty."""
    players = draw(lobs(min_size=1, max_size=8, min_boards=1))
    split = draw(st.integers(0, len(players) - 1))
    return players[:split], players[split:]


@st.composite
def silly_actions(draw: st.DrawFn) -> tuple[PlayerView, Action4]:
    """A view with at least 3 cards and the reference strategy's Action4 for it."""
    view = draw(st.builds(PlayerView, bags, boards(min_size=1), st.lists(cards, unique=True, min_size=3, max_size=14).map(tuple)))
    return view, silly_action(view.hand, len(view.boards))


@st.composite
def legal_actions(draw: st.DrawFn) -> tuple[PlayerView, Action4]:
    """A view and a random Action4 that ``check_action`` accepts for it."""
    view = draw(st.builds(PlayerView, bags, boards(min_size=0, max_size=4), st.lists(cards, unique=True, min_size=3, max_size=14).map(tuple)))
    hand, k = view.hand, len(view.boards)
    free = draw(st.permutations(range(len(hand))))
    take = iter(free)
    food = next(take)
    new_boards: list[NewBoard] = []
    for _ in range(draw(st.integers(0, 2))):
        payment = next(take, None)
        if payment is None:
            break
        wanted = draw(st.integers(0, 3))
        chosen: list[int] = []
        while len(chosen) < wanted:
            card = next(take, None)
            if card is None:
                break
            if hand[card].trait not in {hand[c].trait for c in chosen}:
                chosen.append(card)
        new_boards.append(NewBoard(payment, tuple(chosen)))
    count = k + len(new_boards)
    growths: dict[str, list[Growth]] = {"population": [], "body": []}
    if count:
        for kind in ("population", "body"):
            for _ in range(draw(st.integers(0, 3))):
                card = next(take, None)
                if card is None:
                    break
                growths[kind].append(Growth(draw(st.integers(0, count - 1)), card))
    replacements: list[TraitReplacement] = []
    if count and draw(st.booleans()):
        card = next(take, None)
        board = draw(st.integers(0, count - 1))
        before = view.boards[board].traits if board < k else tuple(hand[c].trait for c in new_boards[board - k].traits)
        if card is not None and before:
            replacements.append(TraitReplacement(board, draw(st.integers(0, len(before) - 1)), card))
    parts = (tuple(growths["population"]), tuple(growths["body"]), tuple(new_boards), tuple(replacements))
    # A growth past 7 or a duplicate trait breaks the rules: drop parts from the end until it is legal.
    for keep in range(4, -1, -1):
        action = Action4(food, *parts[:keep], *([()] * (4 - keep)))
        try:
            return view, check_action(action, view.boards, hand)
        except RulesViolation:
            continue
    raise AssertionError("the food card alone is always legal")


feeding_choices = st.one_of(
    st.builds(VegetarianChoice, st.integers(0, 20)),
    st.builds(FatTissueChoice, st.integers(0, 20), st.integers(1, 7)),
    st.builds(CarnivoreChoice, st.integers(0, 20), st.integers(0, 6), st.integers(0, 20)),
)


@st.composite
def rankings(draw: st.DrawFn) -> tuple[Ranked, ...]:
    ids = draw(st.permutations(range(1, draw(st.integers(1, 8)) + 1)))
    scores = sorted(draw(st.lists(st.integers(0, 300), min_size=len(ids), max_size=len(ids))), reverse=True)
    return tuple(Ranked(i + 1, id, score) for i, (id, score) in enumerate(zip(ids, scores)))


# -- real games -------------------------------------------------------------------


class Record(NamedTuple):
    """One message of a game: its schema name, its JSON, and what a reply answers."""

    kind: str
    value: Any
    context: Any = None  # action4: the PlayerView of start; feeding-choice: the FeedingState


class RecordingPlayer:
    """A silly player that writes down every message it gets and sends, as JSON."""

    def __init__(self, log: list[Record], fail_at: int | None = None) -> None:
        self.inner = SillyPlayer()
        self.log = log
        self.calls = 0
        self.fail_at = fail_at
        self.me: PlayerView | None = None

    def _call(self) -> None:
        self.calls += 1
        if self.calls == self.fail_at:
            raise PlayerFailure("gave up (a test player that fails on purpose)")

    def start(self, watering_hole: int, me: PlayerView) -> None:
        self._call()
        self.me = me
        self.log.append(Record("start", codec.start_to_json(watering_hole, me)))
        self.inner.start(watering_hole, me)

    def choose(self, before: tuple, after: tuple) -> Action4:
        self._call()
        self.log.append(Record("choose", codec.choose_to_json(before, after)))
        action = self.inner.choose(before, after)
        self.log.append(Record("action4", codec.action4_to_json(action), self.me))
        return action

    def feed_next(self, state: FeedingState) -> Any:
        self._call()
        self.log.append(Record("feed-next", codec.feed_next_to_json(state)))
        choice = self.inner.feed_next(state)
        self.log.append(Record("feeding-choice", codec.feeding_choice_to_json(choice), state))
        return choice


@lru_cache(maxsize=None)
def record_game(seed: int, players: int, fail_at: int | None = None) -> tuple[Record, ...]:
    """Every message of one game on ``Deck.shuffled(seed)``; with ``fail_at``, the first player fails."""
    log: list[Record] = []
    seats = [RecordingPlayer(log, fail_at if i == 0 else None) for i in range(players)]
    result = run_locally(Dealer.new_game(seats, Deck.shuffled(seed)).play())
    if result.ranking:
        log.append(Record("score", codec.score_to_json(result.ranking)))
    return tuple(log)


recorded_games = st.builds(
    record_game,
    st.integers(0, 60),
    st.integers(3, 8),
    st.one_of(st.none(), st.integers(1, 40)),
)
"""The messages of a real game (a small pool of seeds, so the cache makes them cheap)."""


# -- near misses ------------------------------------------------------------------

json_scalars = st.one_of(
    st.integers(-10, 10),
    st.sampled_from([3.0, -1.5, 1e3, 2**40, True, False, None, "", "carnivore", "food", "fat-food", "fat-tissue", "x"]),
)
json_values = st.recursive(json_scalars, lambda inner: st.lists(inner, max_size=4), max_leaves=8)


@st.composite
def mutations(draw: st.DrawFn, value: Any) -> Any:
    """``value`` with one position replaced, removed or duplicated (often invalid, not always)."""
    if not isinstance(value, list) or not value or draw(st.integers(0, 9)) == 0:
        return draw(json_values)
    index = draw(st.integers(0, len(value) - 1))
    copy = list(value)
    action = draw(st.sampled_from(["descend", "descend", "replace", "remove", "duplicate"]))
    if action == "descend":
        copy[index] = draw(mutations(value[index]))
    elif action == "replace":
        copy[index] = draw(json_values)
    elif action == "remove":
        del copy[index]
    else:
        copy.insert(index, copy[index])
    return copy
