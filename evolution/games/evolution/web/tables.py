# -*- test-case-name: tests.web.test_tables -*-
"""A game of Evolution's table as JSON, and what its players did, in words: the web view's picture of it.

Offers ``DRAWING``, the game's drawing as the web view asks for it, and:

- ``table_json(dealer, names, cards=False)``: the table after a step: turn,
  step, watering hole, cards left in the deck, every player still in the
  game in turn order (seat, name, bag, hand size, score so far, species
  boards) and every removal with its reason. Hands are counted, not shown,
  unless ``cards`` (replays of finished games): a live view must not tell a
  bot its opponents' cards;
- ``Narrator``: reads a game's message log as the dealer's steps go by and
  keeps short lines saying what each player answered ("fed species #2",
  "species #1 attacked Bob's species #3"), turn markers and failures. The
  live view calls ``step`` on every event of a running game; a replay's
  observer does the same.

Data definitions (the JSON, as the README's "Web view" section documents it)::

    Table   = {"turn": int, "step": str, "watering_hole": int, "deck": int,
               "players": [Player, ...],      # still in the game, in turn order
               "removed": [Removal, ...]}
    Player  = {"seat": int, "name": str, "bag": int, "hand": int, "score": int,
               "species": [Species, ...], "cards": [[food, trait], ...]?}
    Species = {"population": int, "body": int, "food": int, "fat_food": int,
               "traits": [trait, ...]}
    Removal = {"seat": int, "name": str, "turn": int, "step": str, "reason": str}
    Line    = {"turn": int, "step": str, "seat": int | None, "text": str}

Species and seats are numbered from 1 in the text lines (species #1 is a
player's leftmost board), as a person reads them; the JSON lists keep the
wire's order. Names inside a line's text are escaped (``evolution.text``);
a line's subject is its ``seat``, whose name the page shows itself.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any, Sequence

from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.player_state import PlayerState
from evolution.games.evolution.rules.results import Removal
from evolution.games.evolution.rules.species import Species
from evolution.text import plural, short

Json = Any
LINES_KEPT = 40
NAME_IN_TEXT = 40
REASON_IN_TEXT = 300


def species_json(species: Species) -> Json:
    return {
        "population": species.population,
        "body": species.body,
        "food": species.food,
        "fat_food": species.fat_food,
        "traits": [trait.value for trait in species.traits],
    }


def player_json(player: PlayerState, names: Sequence[str], cards: bool = False) -> Json:
    data = {
        "seat": player.id,
        "name": names[player.id - 1],
        "bag": player.bag,
        "hand": len(player.hand),
        "score": player.score(),
        "species": [species_json(species) for species in player.boards],
    }
    if cards:
        data["cards"] = [[card.food, card.trait.value] for card in player.hand]
    return data


def removal_json(removal: Removal, names: Sequence[str]) -> Json:
    return {
        "seat": removal.id,
        "name": names[removal.id - 1],
        "turn": removal.turn,
        "step": removal.step,
        "reason": removal.reason,
    }


def table_json(dealer: Dealer, names: Sequence[str], cards: bool = False) -> Json:
    table = dealer.table
    return {
        "turn": dealer.turn,
        "step": dealer.step,
        "watering_hole": table.watering_hole,
        "deck": len(table.deck),
        "players": [player_json(player, names, cards) for player in table.players],
        "removed": [removal_json(removal, names) for removal in dealer.removals],
    }


# -- what the players did ------------------------------------------------------------


def _index(value: Any) -> str:
    """A board or card index as a person counts (from 1), or "?" for what is no index."""
    return f"#{value + 1}" if type(value) is int and 0 <= value < 1000 else "#?"


def _pairs(value: Any) -> list:
    return value if isinstance(value, list) else []


def describe_action4(value: list) -> str:
    """An Action4 answer to ``choose``, in words; shapes the rules would refuse are named only as such."""
    parts = []
    food, population, body, new_boards, replaced = value
    if type(food) is int:
        parts.append("a food card")
    for growth in _pairs(population):
        parts.append(f"population +1 on {_index(growth[0] if _pairs(growth) else None)}")
    for growth in _pairs(body):
        parts.append(f"body +1 on {_index(growth[0] if _pairs(growth) else None)}")
    for board in _pairs(new_boards):
        traits = max(len(_pairs(board)) - 1, 0)
        parts.append(f"a new species with {traits} trait{'' if traits == 1 else 's'}")
    for replacement in _pairs(replaced):
        parts.append(f"a new trait on {_index(replacement[0] if _pairs(replacement) else None)}")
    return "played " + ", ".join(parts) if parts else "played no cards"


def describe_reply(value: Any, player: PlayerState | None, dealer: Dealer, names: Sequence[str]) -> str:
    """What a player's reply says it does, in words (before the dealer has judged it)."""
    if value is False:
        return "declined to feed"
    if type(value) is int:
        return f"fed species {_index(value)}"
    if isinstance(value, list) and len(value) == 2:
        tokens = value[1] if type(value[1]) is int else "?"
        return f"stored {tokens} fat food on species {_index(value[0])}"
    if isinstance(value, list) and len(value) == 3:
        attacker, target_player, target = value
        others = dealer.table.others(player) if player is not None and player in dealer.table.players else []
        if type(target_player) is int and 0 <= target_player < len(others):
            whose = short(names[others[target_player].id - 1], NAME_IN_TEXT) + "'s"
        else:
            whose = "another player's"
        return f"species {_index(attacker)} attacked {whose} species {_index(target)}"
    if isinstance(value, list) and len(value) == 5:
        return describe_action4(value)
    return "sent a reply that is no move"


class Narrator:
    """Short lines saying what happened in a game, kept for its last ``keep`` lines."""

    def __init__(self, names: Sequence[str], keep: int | None = LINES_KEPT) -> None:
        self.names = list(names)
        self.lines: deque[Json] = deque(maxlen=keep)
        self._read = 0  # log entries read so far
        self._removals = 0  # removals told so far

    def step(self, event: str, dealer: Dealer, entries: Sequence[list]) -> list[Json]:
        """The dealer finished step ``event``: read the log entries it added; return (and keep) the new lines."""
        new: list[Json] = []

        def say(seat: int | None, text: str) -> None:
            new.append({"turn": dealer.turn, "step": dealer.step, "seat": seat, "text": text})

        if event == "start":
            say(None, f"Turn {dealer.turn}: cards dealt")
        players = {player.id: player for player in dealer.table.players}
        for entry in entries[self._read:]:
            if entry[2] == "in":
                say(entry[1], describe_reply(entry[3], players.get(entry[1]), dealer, self.names))
        self._read = len(entries)
        for removal in dealer.removals[self._removals:]:
            say(removal.id, f"removed: {short(removal.reason, REASON_IN_TEXT)}")
        self._removals = len(dealer.removals)
        if event == "start-of-feeding":
            say(None, f"Feeding begins: {plural(dealer.table.watering_hole, 'token')} in the watering hole")
        elif event == "end-of-turn":
            say(None, f"End of turn {dealer.turn}")
        self.lines.extend(new)
        return new


class EvolutionDrawing:
    """Evolution's picture in the web view (``evolution.games.Drawing``); ``drawing.js`` draws it in the page."""

    script = Path(__file__).with_name("drawing.js")
    style = None  # its look is in the web view's own style sheet

    def table(self, dealer: Dealer, names: Sequence[str], hands: bool = False) -> Json:
        return table_json(dealer, names, cards=hands)

    def narrator(self, names: Sequence[str], keep: int | None = LINES_KEPT) -> Narrator:
        return Narrator(names, keep)


DRAWING = EvolutionDrawing()
