"""Failed proofs of accounts are held back per address (a token bucket, in a table that stays small), and logged
once a minute with counts and once a minute per address held back; guests who try no proof and the host's own
machine are never held back. The throttle with a ``Clock``, the identity step with it, then a real host behind
a balancer's headers on loopback."""

from __future__ import annotations

from pathlib import Path

from twisted.internet.task import Clock
from twisted.internet.threads import deferToThread
from twisted.logger import globalLogPublisher
from twisted.trial import unittest

from evolution.bot_secrets import secret_tag
from evolution.net.identity import CLOSED, ROSTER, IdentityStep
from evolution.net.throttle import ProofThrottle
from tests.net.test_identity import ALICE_KEY, BOB_SECRET, account, add_accounts, identified, sign_up_raw
from tests.support.hosting import log_lines, new_host


def test_an_address_that_guesses_is_held_back_and_gets_a_token_back_in_time():
    clock = Clock()
    throttle = ProofThrottle(clock, capacity=3, every=10.0)
    for _ in range(3):
        assert throttle.allows("192.0.2.1")
        throttle.failed("192.0.2.1")
    assert not throttle.allows("192.0.2.1")
    assert throttle.allows("192.0.2.2")  # another address has its own bucket
    clock.advance(9.9)
    assert not throttle.allows("192.0.2.1")
    clock.advance(0.1)
    assert throttle.allows("192.0.2.1")
    throttle.failed("192.0.2.1")
    assert not throttle.allows("192.0.2.1")
    clock.advance(3600)
    assert throttle.allows("192.0.2.1")  # never more than the bucket holds
    for _ in range(3):
        throttle.failed("192.0.2.1")
    assert not throttle.allows("192.0.2.1")


def test_an_ipv6_network_of_64_bits_is_one_address_and_its_neighbours_have_their_own():
    clock = Clock()
    throttle = ProofThrottle(clock, capacity=3, every=10.0)
    for host in range(3):  # each guess from another address of the same /64: one bucket still
        assert throttle.allows(f"2001:db8:1:2::{host + 1:x}")
        throttle.failed(f"2001:db8:1:2::{host + 1:x}")
    assert not throttle.allows("2001:db8:1:2:ffff:ffff:ffff:ffff")
    assert throttle.allows("2001:db8:1:3::1")  # the next /64 is another subscriber's
    assert throttle.allows("::ffff:192.0.2.1") and throttle.allows("192.0.2.1")  # IPv4, mapped or not: its own
    assert len(throttle) == 1
    [held] = [event for event in throttle_lines(lambda: throttle.refused("2001:db8:1:2::9")) if "address" in event]
    assert held["address"] == "2001:db8:1:2::/64"  # the log names what is held back


def test_guessing_a_fish_secret_takes_longer_than_the_universe():
    clock = Clock()
    throttle = ProofThrottle(clock)
    guesses = 0
    while clock.seconds() < 3600:
        if throttle.allows("192.0.2.1"):
            throttle.failed("192.0.2.1")
            guesses += 1
        clock.advance(0.5)
    assert guesses <= throttle.capacity + 3600 / throttle.every + 1  # 380 an hour: 52**12 / 380 hours is hopeless


def test_the_host_s_own_machine_is_never_held_back():
    throttle = ProofThrottle(Clock(), capacity=1)
    for address in ("127.0.0.1", "127.0.0.2", "::1", "::ffff:127.0.0.1"):  # the last: a dual-stack port's
        for _ in range(5):
            throttle.failed(address)
        assert throttle.allows(address)
    assert len(throttle) == 0


def test_the_table_stays_small_however_many_addresses_fail():
    clock = Clock()
    throttle = ProofThrottle(clock, capacity=3, every=10.0, most=100)
    for _ in range(3):
        throttle.failed("192.0.2.1")
    for n in range(99):  # addresses without end: IPv6's, or what headers name
        throttle.failed(f"2001:db8:{n:x}::1")  # each another /64
        clock.advance(0.01)
    assert len(throttle) == 100 and not throttle.allows("192.0.2.1")  # still held back: the bound not reached
    for n in range(99, 10_000):  # all within the same instant: none is full again
        throttle.failed(f"2001:db8:{n:x}::1")  # each another /64
    assert len(throttle) == 100  # beyond the bound, the addresses that failed least recently are let go
    assert throttle.allows("192.0.2.1")
    clock.advance(3 * 10.0)  # every bucket full again: nothing left to remember
    throttle.failed("192.0.2.9")
    assert len(throttle) == 1


def throttle_lines(run) -> list[dict]:
    lines: list[dict] = []
    globalLogPublisher.addObserver(lines.append)
    try:
        run()
    finally:
        globalLogPublisher.removeObserver(lines.append)
    return [event for event in lines if event.get("log_namespace") == "evolution.net.throttle"]


def test_logged_once_a_minute_with_counts_and_each_address_held_back_once_a_minute():
    clock = Clock()
    throttle = ProofThrottle(clock, capacity=2, every=10.0)

    def guess() -> None:
        for _ in range(50):
            if throttle.allows("192.0.2.1"):
                throttle.failed("192.0.2.1")
            else:
                throttle.refused("192.0.2.1")
            clock.advance(1)
        throttle.failed("192.0.2.9")

    logged = throttle_lines(guess)
    assert len(logged) == 2  # the first attempt's counts; 192.0.2.1 named as held back; the rest wait a minute
    assert logged[1]["address"] == "192.0.2.1" and "hung up on" in logged[1]["log_format"]
    clock.advance(61)
    logged = throttle_lines(lambda: throttle.failed("192.0.2.9"))
    [event] = logged
    assert event["failed"] >= 5 and event["refused"] >= 40 and event["addresses"] == "2 addresses"


def test_a_flood_of_addresses_is_counted_without_remembering_each():
    clock = Clock()
    throttle = ProofThrottle(clock, most=100)
    throttle.failed("192.0.2.1")
    for n in range(1000):
        throttle.failed(f"2001:db8:{n:x}::1")  # each another /64
    clock.advance(61)
    [event] = throttle_lines(lambda: throttle.failed("192.0.2.1"))
    assert event["failed"] == 1001 and event["addresses"] == "100 addresses or more"


class ProofsTests(unittest.TestCase):
    """Which sign-ups try a proof, and so need a token and spend it when they fail (the identity step's rule)."""

    def step(self, mode: str = ROSTER) -> IdentityStep:
        step = IdentityStep(mode, ProofThrottle(Clock(), capacity=3))
        step.update([account("alice", ALICE_KEY), account("bob", BOB_SECRET, "bea")])
        return step

    def test_guests_try_no_proof_and_are_never_held_back(self):
        step = self.step()
        for n in range(10):  # a lab behind one NAT: more guests than tokens
            self.assertTrue(identified(step, f"guest bot {n}").guest)
        self.assertTrue(identified(step, "alice", ALICE_KEY).proven)
        self.assertTrue(identified(step, BOB_SECRET).proven)

    def test_a_wrong_key_or_a_name_that_could_be_a_secret_spends_a_token(self):
        step = self.step()
        self.assertIn("does not prove alice", identified(step, "alice", "wrong").refused)
        self.assertIn("does not prove a name with no account", identified(step, "zed", "wrong").refused)
        guess = next(f"guess{n}" for n in range(10**6) if secret_tag(f"guess{n}") == secret_tag(BOB_SECRET))
        self.assertTrue(identified(step, guess).guest)  # checked against bob's secret, and not it
        held = identified(step, BOB_SECRET)  # the right secret too waits for a token: else guesses would be free
        self.assertTrue(held.silent and held.refused)
        self.assertTrue(identified(step, "a guest still").guest)
        self.assertTrue(identified(step, BOB_SECRET, address="192.0.2.2").proven)
        for _ in range(5):
            identified(step, "zed", "wrong", address="::ffff:127.0.0.1")
        self.assertTrue(identified(step, "alice", ALICE_KEY, address="::ffff:127.0.0.1").proven)

    def test_in_closed_mode_a_name_is_offered_as_a_secret(self):
        step = self.step(CLOSED)
        for name in ("eve", "mallory", "trudy"):
            self.assertIn("only bots that prove", identified(step, name).refused)
        self.assertTrue(identified(step, "oscar").silent)


def sign_up(port: int, source: str, message: object) -> bytes:
    """A sign-up that a balancer hands on from ``source`` (a PROXY v1 header): what the host answers, b"" if none."""
    return sign_up_raw(port, message, f"PROXY TCP4 {source} 127.0.0.1 40000 9999\r\n".encode())


class BehindABalancerTests(unittest.TestCase):
    timeout = 60

    async def test_failed_proofs_hold_back_their_address_in_one_line_and_guests_and_loopback_play_on(self):
        folder = Path(self.mktemp())
        secrets = add_accounts(folder)
        lines = log_lines(self)
        host = new_host(self, "--accounts", "roster", "--proxy-protocol", "--proxy-from", "127.0.0.1",
                        "--players", "8-8", folder=folder)
        await host.ready()

        async def said(source: str, message: object) -> bytes:
            return await deferToThread(sign_up, host.port, source, message)  # the reactor runs meanwhile

        wrong = ["sign-up", "zed", {"key": "a guess"}]
        for _ in range(22):  # 20 tokens, then two sign-ups held back
            self.assertEqual(await said("192.0.2.1", wrong), b"")
        self.assertEqual(await said("192.0.2.1", "a guest"), b'"ok"\n')
        self.assertEqual(await said("192.0.2.1", ["sign-up", "alice", {"key": secrets["alice"]}]), b"")
        self.assertEqual(await said("192.0.2.2", ["sign-up", "alice", {"key": secrets["alice"]}]), b'"ok"\n')
        for _ in range(22):  # the host's own machine (a lab's bots run there) is never held back
            self.assertEqual(await said("127.0.0.1", wrong), b"")
        self.assertEqual(await said("127.0.0.1", secrets["bob"]), b'"ok"\n')
        refused = [line for line in lines if "does not prove a name with no account" in line]
        self.assertEqual([sum(f"from {source}:" in line for line in refused) for source in ("192.0.2.1", "127.0.0.1")],
                         [20, 22])
        held = [line for line in lines if "hung up on" in line]
        self.assertEqual(len(held), 1)
        self.assertIn("sign-ups from 192.0.2.1 that would prove an account are hung up on", held[0])
        self.assertFalse(any(secret in "\n".join(lines) for secret in secrets.values()))
