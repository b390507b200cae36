"""Misbehaving clients in games with good ones: the offender goes, the game and the host go on.

Each test runs a real host on loopback (3 s per answer, 1 s for a sign-up:
``hosting.ANSWER_LIMIT``, long enough for honest bots on a busy machine) and
real clients, as many as the game takes, so that it starts when they are all
in; the results store must show the offender removed with the right reason,
the game finished, the others ranked.
"""

from __future__ import annotations

from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.logger import formatEvent, globalLogPublisher
from twisted.trial import unittest

from evolution.cli.evolution_replay import check
from tests.support import adversaries as bad
from tests.support.hosting import ANSWER_LIMIT, SIGNUP_LIMIT, new_host, until

LIMITS = ("--timeout", ANSWER_LIMIT, "--signup-timeout", SIGNUP_LIMIT, "--deck", "sorted")
NO_REPLY = f"no reply to {{}} within {ANSWER_LIMIT} s"


class AdversaryTests(unittest.TestCase):
    timeout = 30

    async def game_with(self, when: str, act: bad.Act, good: int = 3):
        """Sign up ``good`` silly clients and one adversary; return the stored game and its seat."""
        host = new_host(self, "--players", f"{good + 1}-{good + 1}", *LIMITS)
        offender = ensureDeferred(bad.adversary(host.port, "offender", when, act))
        await until(lambda: len(host.factory.lobby) == 1)
        goods = [host.client(f"good {i}") for i in range(good)]
        await gatherResults(goods)
        await offender
        [record] = await host.runner.when_games_over(1)
        self.assertEqual(record.outcome, "finished")
        [seat] = [seat for seat in record.players if seat.name == "offender"]
        others = [seat for seat in record.players if seat.name != "offender"]
        self.assertEqual(sorted(s.rank for s in others), list(range(1, len(others) + 1)))
        self.assertIsNone(seat.rank)
        status, lines = check(await host.stored(), record.id, every=True)
        self.assertEqual(status, 0, "\n".join(lines))  # the stored log replays to the same result
        return record, seat

    async def test_never_answers_choose(self) -> None:
        events: list[dict] = []
        globalLogPublisher.addObserver(events.append)
        self.addCleanup(globalLogPublisher.removeObserver, events.append)
        _, seat = await self.game_with("choose", bad.silent)
        self.assertEqual(seat.removed_reason, NO_REPLY.format("choose"))
        self.assertEqual((seat.removed_turn, seat.removed_step), (1, "choose"))
        [removal] = [e for e in events if e.get("log_format", "").startswith("game {game}: removed")]
        self.assertEqual((removal["name"], removal["reason"]), ("'offender'", NO_REPLY.format("choose")))
        self.assertIn("removed 'offender' in turn 1 (choose)", formatEvent(removal))

    async def test_never_answers_feed_next(self) -> None:
        _, seat = await self.game_with("feed-next", bad.silent, good=2)
        self.assertEqual(seat.removed_reason, NO_REPLY.format("feed-next"))
        self.assertEqual(seat.removed_step, "feed")

    async def test_uses_a_card_twice(self) -> None:
        _, seat = await self.game_with("choose", bad.send([0, [[0, 0]], [], [], []]))
        self.assertEqual(
            seat.removed_reason, "invalid reply to choose: action4.grow-population[0]: card 0 is used twice"
        )

    async def test_grows_a_board_that_does_not_exist(self) -> None:
        _, seat = await self.game_with("choose", bad.send([0, [[5, 1]], [], [], []]))
        self.assertIn("action4.grow-population[0]: board 5 does not exist", seat.removed_reason)

    async def test_answers_feed_next_with_an_impossible_choice(self) -> None:
        _, seat = await self.game_with("feed-next", bad.send([0, 7, 0]), good=2)
        self.assertIn("invalid reply to feed-next: feeding-choice", seat.removed_reason)

    async def test_declines_to_feed(self) -> None:
        _, seat = await self.game_with("feed-next", bad.send(False), good=2)
        self.assertIn("declined to feed", seat.removed_reason)

    async def test_sends_a_10_mb_line(self) -> None:
        _, seat = await self.game_with("choose", bad.raw(b'"' + b"x" * 10_000_000 + b'"\n'))
        self.assertEqual(seat.removed_reason, "malformed message: a message is longer than 16384 bytes")

    async def test_sends_10000_nested_brackets(self) -> None:
        _, seat = await self.game_with("choose", bad.raw(b"[" * 10_000 + b"]" * 10_000 + b"\n"))
        self.assertEqual(seat.removed_reason, "malformed message: a message is nested deeper than 64 levels")

    async def test_sends_bytes_that_are_not_json(self) -> None:
        _, seat = await self.game_with("choose", bad.raw(b"[0, oops]\n"))
        self.assertIn("malformed message: not JSON", seat.removed_reason)

    async def test_disconnects_mid_game(self) -> None:
        _, seat = await self.game_with("feed-next", bad.disconnect, good=2)
        self.assertEqual(seat.removed_reason, "disconnected before replying to feed-next")

    async def test_trickles_one_byte_at_a_time(self) -> None:
        _, seat = await self.game_with("choose", bad.trickle(b"[0,[],[],[],[]]\n", 0.25))  # 4 s in all
        self.assertEqual(seat.removed_reason, NO_REPLY.format("choose"))

    async def test_talks_after_start(self) -> None:
        # The offender signed up first, so it is last in turn order: choose is asked of
        # one player at a time, and its chatter arrives before its own question.
        _, seat = await self.game_with("start", bad.send("hello"))
        self.assertEqual(seat.removed_reason, 'sent a message nobody asked for: "hello"')

    async def test_answers_twice(self) -> None:
        _, seat = await self.game_with("choose", bad.then_silly([0, [], [], [], []]))
        self.assertIn("sent a message nobody asked for", seat.removed_reason)


class SignUpAdversaryTests(bad.BadSignUps, unittest.TestCase):
    """Bad sign-ups never join a game, never get "ok", and do not disturb anyone."""

    timeout = 30

    def setUp(self) -> None:
        self.host = new_host(self, "--players", "3-3", *LIMITS)

    async def game_beside(self, data: bytes) -> bytes:
        host = self.host
        answer = ensureDeferred(bad.raw_client(host.port, data))
        goods = [host.client(f"good {i}") for i in range(3)]
        received = await answer
        await gatherResults(goods)
        [record] = await host.runner.when_games_over(1)
        self.assertEqual(record.outcome, "finished")
        self.assertEqual(sorted(seat.name for seat in record.players), ["good 0", "good 1", "good 2"])
        return received

    async def test_a_lobby_member_that_talks_out_of_turn_leaves_the_lobby(self) -> None:
        received = await self.game_beside(b'"chatty" "more"')
        self.assertEqual(received, b'"ok"\n')
