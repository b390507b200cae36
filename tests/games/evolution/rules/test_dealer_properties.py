"""Invariants of whole games, checked after every step the dealer reports.

Hypothesis plays games of 3 to 8 reference players on decks shuffled by a
seed, with and without players that misbehave on a chosen call. After every
event of the dealer's observer (start, choose, start-of-feeding, feed,
end-of-turn), ``Invariants`` checks the table; after the game, the result.

Card conservation, the formulation: cards enter play only from the deck and
leave play only (a) when an Action4 is applied (every card it names is gone for
good, rules.md 6.2) or (b) with a removed player's hand (rules.md 11). So at
every event, as multisets,

    deck + hands of the players still in + cards played + hands of removed players
    == the 122 cards of the game, each exactly once,

where the last two are not read from the dealer but built from what the
players themselves saw and answered: "cards played" are, for each player still
in at the ``choose`` event, the cards its Action4 names in the hand it was
shown by ``start``; a removed player's hand is the hand it was shown by
``start`` if it was removed at ``start``, otherwise its hand at the previous
event (a removed player's hand cannot change in the step that removes it). A
dealer that lost, duplicated or invented a card, dealt from the wrong end, or
removed the wrong cards from a hand breaks the equation.
"""

from __future__ import annotations

from collections import Counter

from hypothesis import event, given, settings
from hypothesis import strategies as st

from evolution.games.evolution.rules.cards import ALL_CARDS, Card, Deck
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.species import MAX_BODY, MAX_POPULATION, MAX_TRAITS
from tests.support.builders import Faulty, Recorder, play

EVENTS = ("start", "choose", "start-of-feeding", "feed", "end-of-turn")
SHORT_HAND = "the silly strategy needs at least"


class Invariants:
    """A dealer observer that checks the table after every step."""

    def __init__(self, players: list[Recorder]) -> None:
        self.externals = {i + 1: p for i, p in enumerate(players)}
        self.present = set(self.externals)
        self.hands: dict[int, list[Card]] = {id: [] for id in self.externals}
        self.played: list[Card] = []
        self.lost: list[Card] = []
        self.events = 0

    def __call__(self, event: str, dealer: Dealer) -> None:
        assert event in EVENTS
        self.events += 1
        table = dealer.table
        now = {p.id for p in table.players}
        removed = {r.id: r for r in dealer.removals}
        assert now <= self.present, "a player came back"
        for id in self.present - now:
            removal = removed[id]
            shown = self.externals[id].me
            self.lost += list(shown.hand) if removal.step == "start" else self.hands[id]
        self.present = now
        assert now | set(removed) == set(self.externals) and not now & set(removed)
        assert len(removed) == len(dealer.removals), "a player was removed twice"
        if event == "choose":
            self.record_plays(dealer)
        self.check_cards(dealer)
        self.check_boards(dealer, event)
        self.hands = {p.id: list(p.hand) for p in table.players}

    def record_plays(self, dealer: Dealer) -> None:
        for p in dealer.table.players:
            external = self.externals[p.id]
            method, _, action = external.calls[-1]
            assert method == "choose"
            shown = external.me.hand
            used = set(action.cards_used())
            self.played += [shown[i] for i in used]
            assert p.hand == [c for i, c in enumerate(shown) if i not in used], "unused cards keep their order"

    def check_cards(self, dealer: Dealer) -> None:
        table = dealer.table
        everywhere = table.deck.remaining() + [c for p in table.players for c in p.hand] + self.played + self.lost
        assert Counter(everywhere) == Counter(ALL_CARDS)

    def check_boards(self, dealer: Dealer, event: str) -> None:
        table = dealer.table
        assert table.watering_hole >= 0
        for p in table.players:
            assert p.bag >= 0
            for s in p.boards:
                assert 1 <= s.population <= MAX_POPULATION
                assert 0 <= s.food <= s.population
                assert 0 <= s.body <= MAX_BODY
                assert 0 <= s.fat_food <= s.body
                assert len(s.traits) <= MAX_TRAITS and len(set(s.traits)) == len(s.traits)
                if event == "end-of-turn":
                    assert s.food == 0


def play_checked(players: list[Recorder], seed: int):
    invariants = Invariants(players)
    result = play(Dealer.new_game(players, Deck.shuffled(seed), invariants).play())
    assert invariants.events > 0
    assert {entry.id for entry in result.ranking} == invariants.present
    assert [entry.rank for entry in result.ranking] == list(range(1, len(result.ranking) + 1))
    scores = [entry.score for entry in result.ranking]
    assert scores == sorted(scores, reverse=True)
    return result


seeds = st.integers(min_value=0, max_value=2**32 - 1)


@settings(max_examples=300, deadline=None)
@given(seed=seeds, count=st.integers(min_value=3, max_value=8))
def test_games_of_reference_players_keep_every_invariant(seed, count):
    players = [Recorder(f"silly-{i}") for i in range(count)]
    result = play_checked(players, seed)
    event(f"{result.turns} turns")
    # A reference player is only ever removed for holding too few cards (rules.md 10.2).
    assert all(r.step == "choose" and SHORT_HAND in r.reason for r in result.removals)


faults = st.one_of(
    st.none(),
    st.tuples(st.sampled_from(Faulty.METHODS), st.integers(min_value=1, max_value=3), st.sampled_from(Faulty.KINDS)),
)


@settings(max_examples=200, deadline=None)
@given(seed=seeds, plan=st.lists(faults, min_size=3, max_size=8))
def test_games_with_misbehaving_players_keep_every_invariant(seed, plan):
    players = [Recorder(f"silly-{i}") if fault is None else Faulty(*fault) for i, fault in enumerate(plan)]
    result = play_checked(players, seed)
    removed = {r.id: r for r in result.removals}
    event(f"{sum(isinstance(p, Faulty) and p.misbehaved for p in players)} players misbehaved")
    for id, p in enumerate(players, start=1):
        if isinstance(p, Faulty) and p.misbehaved:
            assert id in removed
        elif id in removed:
            assert SHORT_HAND in removed[id].reason
