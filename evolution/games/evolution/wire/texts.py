"""The JSON text of the host's messages, built from pieces encoded once.

Offers ``species_text``, ``boards_text``, ``lob_text``, ``cards_text`` and
``player_plus_text``: the compact JSON text (``evolution.jsonwire.framing.
encode_text``) of what ``evolution.games.evolution.wire.codec``'s ``*_to_json`` encoders
(and seed 002's Player+) make of the same values, character for character
(tests check it). The dialects build their messages from these.

Why: every ``choose`` and ``feed-next`` shows every player's boards, so a
board is written many times while it stays the same. A ``Species`` is an
immutable value, so its text is kept, keyed by the value itself (never by
identity), in a cache of at most ``CACHE_LIMIT`` species, emptied when full;
a card's text likewise. A message is then a join of cached texts instead
of nested lists handed to the JSON encoder.
"""

from __future__ import annotations

from typing import Sequence

from evolution.games.evolution.rules.cards import Card
from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.wire import codec
from evolution.jsonwire.framing import encode_text

CACHE_LIMIT = 50_000  # about 100 bytes of text each

_species: dict[Species, str] = {}
_cards: dict[Card, str] = {}


def species_text(species: Species) -> str:
    text = _species.get(species)
    if text is None:
        if len(_species) >= CACHE_LIMIT:
            _species.clear()
        text = _species[species] = encode_text(codec.species_to_json(species))
    return text


def card_text(card: Card) -> str:
    text = _cards.get(card)
    if text is None:
        text = _cards[card] = encode_text(codec.card_to_json(card))  # at most 17 traits x 12 food values
    return text


def boards_text(boards: Sequence[Species]) -> str:
    return "[" + ",".join(map(species_text, boards)) + "]"


def lob_text(lob: Sequence[Sequence[Species]]) -> str:
    return "[" + ",".join(map(boards_text, lob)) + "]"


def cards_text(cards: Sequence[Card]) -> str:
    return "[" + ",".join(map(card_text, cards)) + "]"


def player_plus_text(id: int, bag: int, boards: Sequence[Species], hand: Sequence[Card]) -> str:
    """Player+ (messages.md 5): id, species, bag, and the hand when it holds any card."""
    cards = f',["cards",{cards_text(hand)}]' if hand else ""
    return f'[["id",{id}],["species",{boards_text(boards)}],["bag",{bag}]{cards}]'
