# -*- test-case-name: tests.net.test_throttle -*-
"""Failed proofs of bot accounts, held back per address: a token bucket each, a bounded table, few log lines.

Offers ``ProofThrottle(clock, capacity, every, most)``: ``allows(address)``
(may a sign-up from it try a proof: a token left), ``failed(address)`` (a
proof from it failed: a token spent), ``refused(address)`` (a sign-up
refused for want of a token), ``len()`` (the addresses it remembers), and
the numbers (``DEFAULT_CAPACITY``, ``DEFAULT_EVERY``, ``LOGGED_EVERY``,
``MOST``). Each address holds ``capacity`` tokens and gets one back every
``every`` seconds. Which sign-ups try a proof, and so need and spend a
token, is the identity step's to say (``evolution.net.identity``): a guest
that sends a name no bot's secret can be needs none.

An IPv6 address is held back with its /64 (``2001:db8:1:2::/64``): one
subscriber's network, whose 2**64 addresses would each bring a full bucket.
Loopback addresses (the host's own machine; an IPv4-mapped one too) are
never held back, as ``--max-per-address`` never caps them: whoever runs
there can reach the store anyway, and each guess still costs an scrypt.

Nothing is logged per failed proof: one line a minute with the counts, so
that a flood of guesses fills no log; and an address held back is named in
one line when it is first refused, then at most once a minute while it
lasts, so that a lab behind one NAT that finds its bots hung up on can
read why.

The table remembers an address only from its first failed proof, and
forgets it once its tokens are all back (those of the addresses that
failed before it forgotten first), or, beyond ``most`` addresses, the one
that failed least recently: addresses without end (IPv6's, or whatever a
balancer's headers name) never grow it past ``most``.

Why guessing a secret is then hopeless (a Fish secret is 12 letters):
docs/accounts.md, "What it stops".
"""

from __future__ import annotations

import ipaddress
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from twisted.logger import Logger

from evolution.address_prefixes import ip_of, loopback
from evolution.text import plural

log = Logger()

DEFAULT_CAPACITY = 20  # failed proofs one address may make at once
DEFAULT_EVERY = 10.0  # seconds for one token back: 360 an hour
LOGGED_EVERY = 60.0
MOST = 10_000  # addresses remembered at once (a bucket is some 200 bytes)


@dataclass
class _Bucket:
    tokens: float
    at: float  # when last touched: the table's order
    logged_at: float | None = None  # when its address was last named as held back


@dataclass
class _Counts:
    failed: int = 0
    refused: int = 0
    addresses: set = field(default_factory=set)  # at most ``most`` of them


def _exempt(address: str | None) -> bool:
    return address is None or loopback(address)  # an address unknown is never held back


def _held(address: str) -> str:
    """What ``address`` is held back as: itself, or an IPv6 address's /64 (an IPv4-mapped one is IPv4)."""
    ip = ip_of(address)
    if isinstance(ip, ipaddress.IPv6Address):
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return address if ip is None else str(ip)


class ProofThrottle:
    """A token bucket per address for proofs of accounts that failed."""

    def __init__(self, clock: Any, capacity: int = DEFAULT_CAPACITY, every: float = DEFAULT_EVERY,
                 most: int = MOST) -> None:
        self.clock = clock
        self.capacity, self.every, self.most = capacity, every, max(1, most)
        self._buckets: OrderedDict[str, _Bucket] = OrderedDict()  # least recently touched first
        self._counts = _Counts()
        self._logged_at: float | None = None

    def __len__(self) -> int:
        return len(self._buckets)

    def _tokens(self, bucket: _Bucket, now: float) -> float:
        return min(float(self.capacity), bucket.tokens + (now - bucket.at) / self.every)

    def _forget(self, now: float) -> None:
        """Forget the oldest buckets while they are full again: there is nothing to remember of them."""
        while self._buckets:
            address, bucket = next(iter(self._buckets.items()))
            if self._tokens(bucket, now) < self.capacity:
                return
            del self._buckets[address]

    def _bucket(self, address: str, make: bool) -> _Bucket | None:
        """``address``'s bucket, its tokens brought up to now (made full when ``make``; else None if forgotten)."""
        now = self.clock.seconds()
        self._forget(now)
        bucket = self._buckets.get(address)
        if bucket is None:
            if not make:
                return None
            bucket = self._buckets[address] = _Bucket(float(self.capacity), now)
            while len(self._buckets) > self.most:
                self._buckets.popitem(last=False)  # the one that failed least recently
        else:
            self._buckets.move_to_end(address)
            bucket.tokens = self._tokens(bucket, now)
            bucket.at = now
        return bucket

    def allows(self, address: str | None) -> bool:
        """True if ``address`` may try a proof: a token left (or loopback, or None: an address unknown)."""
        if _exempt(address):
            return True
        bucket = self._bucket(_held(address), make=False)
        return bucket is None or bucket.tokens >= 1

    def failed(self, address: str | None) -> None:
        """A proof from ``address`` failed: one token spent (none of loopback's)."""
        if not _exempt(address):
            address = _held(address)
            self._bucket(address, make=True).tokens -= 1
        self._counts.failed += 1
        self._count(address)
        self._maybe_log()

    def refused(self, address: str | None) -> None:
        """A sign-up from ``address`` refused for want of a token: named once a minute, and counted."""
        exempt = _exempt(address)
        address = address if exempt else _held(address)
        bucket = None if exempt else self._bucket(address, make=False)
        now = self.clock.seconds()
        if bucket is not None and (bucket.logged_at is None or now - bucket.logged_at >= LOGGED_EVERY):
            bucket.logged_at = now
            log.info(
                "sign-ups from {address} that would prove an account are hung up on: its failed proofs spent its"
                " {capacity} tokens, and one comes back every {every:g} s (said once a minute while it lasts)",
                address=address, capacity=self.capacity, every=self.every,
            )
        self._counts.refused += 1
        self._count(address)
        self._maybe_log()

    def _count(self, address: str | None) -> None:
        if len(self._counts.addresses) < self.most:
            self._counts.addresses.add(address)

    def _maybe_log(self) -> None:
        now = self.clock.seconds()
        if self._logged_at is not None and now - self._logged_at < LOGGED_EVERY:
            return
        counts, self._counts, self._logged_at = self._counts, _Counts(), now
        shown = plural(len(counts.addresses), "address", "addresses")
        log.info(
            "failed proofs of an account: {failed}, and {refused} sign-ups refused as their address had failed too"
            " often ({capacity} at once, one more every {every:g} s), from {addresses} since the last such line",
            failed=counts.failed, refused=counts.refused, capacity=self.capacity, every=self.every,
            addresses=shown if len(counts.addresses) < self.most else f"{shown} or more",
        )
