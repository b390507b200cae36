"""In-process games: median milliseconds per full 8-player game and per feeding step."""

from __future__ import annotations

import statistics
import time

from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.local import run_locally
from evolution.games.evolution.rules.silly import SillyPlayer

GAMES = 300


def main() -> None:
    game_ms = []
    for seed in range(GAMES):
        dealer = Dealer.new_game([SillyPlayer() for _ in range(8)], Deck.shuffled(seed))
        started = time.perf_counter()
        run_locally(dealer.play())
        game_ms.append((time.perf_counter() - started) * 1000)
    step_us = _feeding_steps()
    print(f"8-player game, {GAMES} shuffled decks: median {statistics.median(game_ms):.3f} ms, "
          f"p90 {statistics.quantiles(game_ms, n=10)[-1]:.3f} ms")
    print(f"feeding step: median {step_us:.2f} us")


def _feeding_steps() -> float:
    """Median microseconds of one feeding step, timed around Dealer.feeding_step."""
    samples = []
    for seed in range(GAMES):
        dealer = Dealer.new_game([SillyPlayer() for _ in range(8)], Deck.shuffled(seed))
        original = dealer.feeding_step

        async def timed(player, original=original):
            started = time.perf_counter()
            outcome = await original(player)
            samples.append((time.perf_counter() - started) * 1e6)
            return outcome

        dealer.feeding_step = timed
        run_locally(dealer.play())
    return statistics.median(samples) if samples else float("nan")
