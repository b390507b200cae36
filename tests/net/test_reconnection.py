"""``play_remote(reconnect=...)`` (``evolution-client --reconnect``) after a tournament's normal end: the bots stop
within a few seconds, on a real host on loopback.

- Fish's course protocol says the end (``end``): each bot still connected hears it and stops at once;
- Evolution's says nothing at the end: each bot signs up again, and the host, whose tournament is over, answers
  "game full" (no place awaits it): it stops there.
"""

from __future__ import annotations

import time
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.trial import unittest

from evolution.games import game
from evolution.net.client import play_remote
from tests.support.hosting import ANSWER_LIMIT, HonestSilly, log_lines, new_host, until

PROMPTLY = 10.0  # seconds from the tournament's end to every bot's: a few tries 0.2 s apart, on a busy machine


class AfterTheEndTests(unittest.TestCase):
    timeout = 90

    async def tournament(self, name: str, dialect: str, *extra: str) -> tuple[list[Any], list[str]]:
        """A knockout of five bots that reconnect (60 tries, 0.2 s apart); their outcomes, once all have ended
        (within ``PROMPTLY`` seconds of the tournament's end), and the host's log."""
        lines = log_lines(self)
        host = new_host(self, "--game", name, "--tournament", "knockout", "--max-signups", "5", "--signup-window", "30",
                        "--timeout", ANSWER_LIMIT, *extra)
        await host.ready()
        chosen = game(name)
        bots = []
        for k in range(5):
            player = HonestSilly() if name == "evolution" else chosen.strategy("greedy")
            bots.append(ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, f"bot{'abcde'[k]}", player,
                                                   retries=0, game=name, dialect=dialect, reconnect=60,
                                                   reconnect_delay=0.2)))
            await until(lambda: len(host.factory.lobby) == k + 1 or host.tournaments.current is not None)
        self.addCleanup(lambda: [bot.cancel() for bot in bots])
        await host.tournaments.when_over(1)
        over = time.monotonic()
        await until(lambda: all(bot.called for bot in bots) or time.monotonic() - over > PROMPTLY)
        self.assertTrue(all(bot.called for bot in bots), "a bot still tries to sign up again")
        return await gatherResults(bots), lines

    async def test_fish_bots_hear_the_end_and_stop(self) -> None:
        outcomes, _ = await self.tournament("fish", "course", "--players", "2-4")
        self.assertEqual([outcome.connections for outcome in outcomes], [1] * 5)  # none signed up again
        self.assertTrue(all(outcome.won is not None for outcome in outcomes))  # each heard end(won)
        self.assertIn(True, [outcome.won for outcome in outcomes])

    async def test_evolution_bots_sign_up_again_hear_game_full_and_stop(self) -> None:
        outcomes, lines = await self.tournament("evolution", "seed000", "--players", "3-5", "--deck", "sorted")
        self.assertEqual([outcome.connections for outcome in outcomes], [1] * 5)
        self.assertEqual(sum("answered 'game full'" in line for line in lines), 5, lines)  # each tried once more
