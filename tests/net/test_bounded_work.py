"""A reply built to make the host's checks slow costs the host no more than any other bad reply.

On main, an Action4 whose grow-population list held 4,000 pairs and one string
(30 KB) froze the reactor for 13 s while the rejection was explained: every
honest bot of every game on the host timed out. Here one host on loopback runs
two games side by side with a 3 s time limit (``hosting.ANSWER_LIMIT``: on an
idle machine the rejection takes 1.4 ms, so 3 s leaves room for a busy one and
still catches that freeze): in one, a client answers choose with that Action4;
the other is all honest. The offender is removed with a reason naming the
field; nobody else is.
"""

from __future__ import annotations

from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.trial import unittest

from evolution.cli.evolution_client import Thinking
from evolution.games.evolution.rules.silly import SillyPlayer
from tests.support import adversaries as bad
from tests.support.hosting import ANSWER_LIMIT, SIGNUP_LIMIT, new_host, until

LIMITS = ("--timeout", ANSWER_LIMIT, "--signup-timeout", SIGNUP_LIMIT, "--deck", "sorted")
POISON = [0, [[i, i + 1] for i in range(4000)] + ["x"], [], [], []]


def unhurried() -> Thinking:
    """Plays like the silly player, taking 10 ms per answer, so its game lasts while the other is played."""
    return Thinking(SillyPlayer(), 0.01, reactor)


class BoundedWorkTests(unittest.TestCase):
    timeout = 60

    async def test_a_reply_built_to_be_slow_to_explain_does_not_stall_the_other_game(self) -> None:
        # 30 KB: beyond the default limit on a reply (16 KiB), so the operator raised it.
        host = new_host(self, "--players", "3-3", "--max-message", str(1024 * 1024), *LIMITS)
        beside = [host.client(f"beside {i}", unhurried()) for i in range(3)]
        await until(lambda: host.runner.games_begun == 1)
        offender = ensureDeferred(bad.adversary(host.port, "offender", "choose", bad.send(POISON)))
        await until(lambda: len(host.factory.lobby) == 1)
        honest = [host.client(f"honest {i}") for i in range(2)]
        await gatherResults(beside + honest)
        await offender
        records = await host.runner.when_games_over(2)

        [poisoned] = [r for r in records if any(seat.name == "offender" for seat in r.players)]
        [other] = [r for r in records if r is not poisoned]
        self.assertTrue(other.started_at <= poisoned.started_at < other.ended_at, "the two games ran side by side")
        for record in records:
            self.assertEqual(record.outcome, "finished")
        [seat] = [seat for seat in poisoned.players if seat.name == "offender"]
        self.assertIn("action4.grow-population", seat.removed_reason)
        self.assertTrue(seat.removed_reason.startswith("invalid reply to choose: "), seat.removed_reason)
        everyone_else = [s for r in records for s in r.players if s.name != "offender"]
        self.assertEqual(len(everyone_else), 5)
        self.assertEqual([s.removed_reason for s in everyone_else], [None] * 5)
