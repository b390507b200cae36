# -*- test-case-name: tests.jsonwire.test_schema_bounds -*-
"""The bounds no legal message of Evolution exceeds, from the rules; the schemas state them as ``maxItems``.

Offers (tests check that the schemas agree):

- ``MAX_HAND = 122``: a hand holds cards of the deck, each at most once, and
  the deck is the 122 cards of ``evolution.games.evolution.rules.cards.ALL_CARDS``;
- ``MAX_ENTRIES = 121``: each list of an Action4 (GP, GB, BT, RT) spends a
  card of its own per entry, and the food card is one more;
- ``MAX_BOARDS = 123``: a player's first board can be free, every other is
  bought with a card of the deck;
- ``MAX_PLAYERS = 8``: the players of a game (so at most 7 others).

With them every array of a message has a bound, so the explanation of a
rejected message does bounded work (``evolution.jsonwire.schema_bounds``).
"""

from __future__ import annotations

from evolution.games.evolution.rules.cards import ALL_CARDS
from evolution.games.evolution.rules.dealer import MAX_PLAYERS

MAX_HAND = len(ALL_CARDS)
MAX_ENTRIES = MAX_HAND - 1
MAX_BOARDS = MAX_HAND + 1

__all__ = ["MAX_BOARDS", "MAX_ENTRIES", "MAX_HAND", "MAX_PLAYERS"]
