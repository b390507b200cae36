"""What a hostile or clumsy bot can do to the host, on real loopback TCP.

Garbage is refused as soon as it cannot be JSON; an answer counts only if it
arrived after its question was written; a bare number with nothing after it
is understood.

Where the old behaviour was to wait for a deadline, the host's limit is
60 s and the test's own limit 10 s, so waiting fails the test.
"""

from __future__ import annotations

from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.logger import formatEvent, globalLogPublisher
from twisted.trial import unittest

import adversaries as bad
from evolution.net.client import ClientOutcome
from evolution.rules.cards import Deck
from evolution.rules.local import play_local_game
from evolution.rules.silly import SillyPlayer
from hosting import LocalHost, new_host, until


def log_lines(test: unittest.TestCase) -> list[str]:
    """Every log line from now to the end of ``test``, formatted as the log shows it (filled in as they come)."""
    lines: list[str] = []

    def observe(event: dict) -> None:
        lines.append(formatEvent(event))

    globalLogPublisher.addObserver(observe)
    test.addCleanup(globalLogPublisher.removeObserver, observe)
    return lines


async def game_with(test: unittest.TestCase, host: LocalHost, first: object, good: int = 2):
    """``first`` (a Deferred client) signs up first, so it sits last; ``good`` silly clients fill the game."""
    await until(lambda: len(host.factory.lobby) == 1)
    await gatherResults([host.client(f"good {i}") for i in range(good)])
    await first
    [record] = await host.runner.when_games_over(1)
    test.assertEqual(record.outcome, "finished")
    return record


def seat_of(record, name: str):
    [seat] = [seat for seat in record.players if seat.name == name]
    return seat


class GarbageTests(unittest.TestCase):
    """Bytes that can never become JSON are refused at once, not at the deadline."""

    timeout = 10

    async def test_a_sign_up_that_cannot_be_json_is_refused_at_once(self) -> None:
        lines = log_lines(self)
        host = new_host(self, "--signup-timeout", "60")
        self.assertEqual(await bad.raw_client(host.port, b"aaaa"), b"")
        self.assertTrue(any(
            "refused: malformed sign-up: not JSON: 'a' does not begin any JSON value" in line for line in lines
        ))

    async def test_a_reply_that_cannot_be_json_removes_the_bot_at_once(self) -> None:
        host = new_host(self, "--players", "3-3", "--timeout", "60", "--deck", "sorted")
        offender = ensureDeferred(bad.adversary(host.port, "offender", "choose", bad.raw(b"aaaa")))
        record = await game_with(self, host, offender)
        seat = seat_of(record, "offender")
        self.assertEqual(seat.removed_reason, "malformed message: not JSON: 'a' does not begin any JSON value")


class AnswerOrderTests(unittest.TestCase):
    timeout = 30

    async def test_a_second_answer_in_the_same_write_answers_no_question(self) -> None:
        # With seed 181 the last seat is asked feed-next twice in a row: the host writes the
        # second question after both answers have arrived, so the second answer is unasked.
        host = new_host(self, "--players", "3-3", "--seed", "181", "--timeout", "5")
        offender = ensureDeferred(bad.adversary(host.port, "offender", "feed-next", bad.answer_twice))
        record = await game_with(self, host, offender)
        seat = seat_of(record, "offender")
        self.assertEqual((seat.removed_turn, seat.removed_step), (1, "feed"))
        self.assertRegex(seat.removed_reason, r"^sent a message nobody asked for: ")


class BareNumberTests(unittest.TestCase):
    timeout = 30

    async def test_a_bot_that_writes_no_delimiter_plays_a_whole_game(self) -> None:
        host = new_host(self, "--players", "3-3", "--deck", "sorted", "--timeout", "5")
        terse = ensureDeferred(bad.play(host.port, lambda: bad.Terse("terse", SillyPlayer())))
        record = await game_with(self, host, terse)
        self.assertIsInstance(terse.result, ClientOutcome)
        local = play_local_game([SillyPlayer() for _ in range(3)], Deck.sorted())
        self.assertEqual(
            {seat.seat: (seat.rank, seat.score) for seat in record.players},
            {entry.id: (entry.rank, entry.score) for entry in local.ranking},
        )
        self.assertIsNone(seat_of(record, "terse").removed_reason)
