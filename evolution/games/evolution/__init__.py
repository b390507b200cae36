"""Evolution, the card game of CS4500 (Spring 2016), exactly as the course's reference dealer enforces it.

Offers ``GAME``, the game as the host sees it (``evolution.games.Game``), and
``EvolutionSetup``, how its games are dealt. Its layers, each depending only
on those before it:

- ``rules``: the game model, the dealer and the course's "silly" player
  (pure: no I/O, no Twisted, no JSON); ``strategies``: more players;
- ``wire``: JSON <-> rules values, checked against ``schemas/``; the
  protocol's two dialects (seed 000, seed 002); the course's harnesses;
- ``net``: the proxy player and the dialects as the host and a client speak them;
- ``web``: the table and the lines the web view draws.

This module imports none of them: each loads when the host first asks for it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from evolution.games import GameOption, PackagedParts

DECKS = ("shuffled", "sorted")


def _deck(text: str) -> str:
    if text not in DECKS:
        raise ValueError(f"--deck takes shuffled or sorted, not {text!r}")
    return text


@dataclass(frozen=True)
class EvolutionSetup:
    """How a game is dealt: a deck shuffled with each game's seed, or the course's sorted deck."""

    deck: str = "shuffled"
    parallel_choose: bool = False  # ask choose of every player at once (seed 001 note C)

    @property
    def seeded(self) -> bool:
        return self.deck == "shuffled"

    def deal(self, seed: int | None) -> str:
        return "sorted" if seed is None else "shuffled"

    def recorded(self) -> dict[str, Any]:
        return {"parallel_choose": self.parallel_choose}

    def limits(self) -> Mapping[str, float]:
        return {}  # every call has --timeout


class EvolutionGame(PackagedParts):
    """Evolution behind the host's game interface."""

    name = "evolution"
    title = "Evolution"
    tie_break = "the reverse of the final turn order (the course's rule: every player its own rank)"
    min_players = 3  # the dealer's MIN_PLAYERS and MAX_PLAYERS (a test holds them equal)
    max_players = 8
    default_players = (3, 8)
    default_timeout = 1.0
    dialects = ("seed000", "seed002")
    strategies = ("silly", "builder", "cheater", "sleeper")
    house = ("silly", "builder")
    player_methods = ("start", "choose", "feed_next")
    knockout_runners_up = True  # a final of at least MIN players is always played
    options = (
        GameOption("deck", "shuffled", "shuffled (each game with a recorded seed) or sorted (the course's deck)", _deck),
        GameOption(
            "parallel-choose", None,
            "ask choose of every player at once (default: one at a time, as the course server)", flag=True,
        ),
    )

    def bot_name(self, strategy: str) -> str:
        return "silly bot"  # the course's clients' name, whatever they play

    def house_name(self, number: int, strategy: str) -> str:
        return f"house-{number} ({strategy})"  # any JSON string is a name

    def setup(self, options: Mapping[str, Any]) -> EvolutionSetup:
        deck = options.get("deck") or "shuffled"
        if deck == "sorted" and options.get("seed") is not None:
            raise ValueError("--seed shuffles the deck; it cannot go with --deck sorted")
        return EvolutionSetup(_deck(deck), bool(options.get("parallel-choose")))

    def deal_text(self, deck: str, seed: int | None) -> str:
        return f"seed {seed}" if seed is not None else f"{deck} deck"

    def setup_of(self, recorded: Mapping[str, Any]) -> EvolutionSetup:
        return EvolutionSetup(parallel_choose=bool(recorded.get("parallel_choose", False)))

    def new_referee(
        self, players: Sequence[Any], setup: EvolutionSetup, seed: int | None,
        observer: Callable[[str, Any], None] | None = None,
    ) -> Any:
        from evolution.games.evolution.rules.cards import Deck
        from evolution.games.evolution.rules.dealer import Dealer

        deck = Deck.sorted() if seed is None else Deck.shuffled(seed)
        return Dealer.new_game(players, deck, observer, setup.parallel_choose)


GAME = EvolutionGame()
