# -*- test-case-name: tests.net.test_identity, tests.net.test_live_accounts -*-
"""The identity step of sign-up: who a connection is, proven by a secret, under ``--accounts roster|closed``.

Offers ``IdentityStep(mode, throttle, run=None)`` (``max_per_owner``, ``update(bots)`` with the
store's ``BotAccount``s, ``identify(sent, key, address)`` -> a Deferred
``Identity``, ``refusal(identity, address)``: why a bot proven earlier may
not stay as the accounts stand now), ``Identity`` (the name to sign up
under, whether proven, the owner, the secret's hash it proved, or the
one-line reason it is refused), ``MODES``, ``ASK_NAME`` and
``split_key(value)`` (``["sign-up", name, {"key": SECRET}]`` -> the name
and the key: in every mode, ``open`` ignoring the key).

A bot proves itself with its key beside its public name, or, for a course
client that can send only a name, by signing up with its secret as its name;
either way only its public name goes on. In ``roster`` mode anyone else is a
guest (``guest-N``); in ``closed`` mode refused; a banned bot or a bot outside
its pinned prefixes is refused in both (one already connected: the sign-up
factory's rule, ``evolution.net.signup``). Failed proofs spend the address's
tokens (``evolution.net.throttle``); a guest whose name can be no bot's secret
tries no proof.
The secret is checked with scrypt through ``run`` (the host's thread pool),
so the reactor never waits for it, and the bot is judged as the accounts
stand once the check is done; a secret once proven is remembered (its
SHA-256, in memory) until the bot's hash changes. Never is a sent name that
proved nothing logged. docs/accounts.md.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from twisted.internet.defer import Deferred, maybeDeferred, succeed

from evolution.bot_secrets import BotAccount, secret_matches, secret_tag
from evolution.net.throttle import ProofThrottle
from evolution.reserved_names import GUEST

OPEN, ROSTER, CLOSED = "open", "roster", "closed"
MODES = (OPEN, ROSTER, CLOSED)
KEY = "key"
ASK_NAME = "sign-up"  # ["sign-up", name]: sign up, and be told the name the host gives (evolution.net.signup)


@dataclass(frozen=True)
class Identity:
    """What the identity step says of a sign-up: the name it goes on under, or why it is refused."""

    name: str = ""
    proven: bool = False
    owner: str | None = None
    guest: bool = False
    refused: str | None = None  # a sentence for the log: never a secret, never a name that proved nothing
    silent: bool = False  # refused for want of a token: counted by the throttle, not logged each time
    proof: str | None = None  # a proven bot's secret hash as it proved it: a new secret revokes the proof
    session: str | None = None  # the mark of its session's claim in the store (evolution.host.roster.Sessions)


def split_key(value: Any) -> tuple[Any, str | None]:
    """``["sign-up", name, {"key": K}]`` -> (``name``, K): signed up as a plain name is (answered as one); anything
    else as it is, with no key."""
    if (isinstance(value, list) and len(value) == 3 and value[0] == ASK_NAME and isinstance(value[1], str)
            and isinstance(value[2], dict) and set(value[2]) == {KEY} and isinstance(value[2][KEY], str)):
        return value[1], value[2][KEY]
    return value, None


def _fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


class IdentityStep:
    """Proves sign-ups against the store's accounts (``update``), with the throttle's tokens."""

    def __init__(self, mode: str, throttle: ProofThrottle,
                 run: Callable[[Callable[[], bool]], Deferred] | None = None) -> None:
        self.mode = mode
        self.throttle = throttle
        self.max_per_owner: int | None = None  # an owner's bots connected at once (--max-per-owner)
        self.run = run or (lambda check: maybeDeferred(check))
        self.bots: dict[str, BotAccount] = {}
        self._by_tag: dict[str, list[BotAccount]] = {}
        self._proven: dict[str, tuple[str, str]] = {}  # a proven secret's SHA-256: (bot, its hash then)
        self._guests = 0

    def update(self, bots: Iterable[BotAccount]) -> None:
        """The accounts as the store holds them now (bans, rotated secrets, new bots)."""
        self.bots = {bot.name: bot for bot in bots}
        self._by_tag = {}
        for bot in self.bots.values():
            self._by_tag.setdefault(bot.secret_tag, []).append(bot)

    def identify(self, sent: str, key: str | None, address: str | None) -> Deferred:
        """The ``Identity`` of a sign-up that sent ``sent`` (and ``key``) from ``address``."""
        if self.mode == OPEN:
            return succeed(Identity(sent))
        if self._tries_proof(sent, key is not None) and not self.throttle.allows(address):
            self.throttle.refused(address)
            return succeed(Identity(refused="its address made too many sign-ups that proved no account",
                                    silent=True))
        if key is not None:
            bot = self.bots.get(sent)
            candidates = [bot] if bot is not None else []
            secret = key
        else:
            candidates, secret = self._by_tag.get(secret_tag(sent), []), sent
        return self._check(secret, candidates).addCallback(
            lambda bot: self._judged(bot, sent, key is not None, address))

    def _check(self, secret: str, candidates: list[BotAccount]) -> Deferred:
        """The candidate whose hash ``secret`` matches, or None (scrypt through ``run``; a proven one remembered)."""
        remembered = self._proven.get(_fingerprint(secret))
        if remembered is not None:
            bot = self.bots.get(remembered[0])
            if bot is not None and bot.secret_hash == remembered[1] and bot in candidates:
                return succeed(bot)
        if not candidates:
            return succeed(None)

        def check() -> BotAccount | None:
            return next((bot for bot in candidates if secret_matches(secret, bot.secret_hash)), None)

        def found(bot: BotAccount | None) -> BotAccount | None:
            if bot is not None:
                self._proven[_fingerprint(secret)] = (bot.name, bot.secret_hash)
            return bot

        return self.run(check).addCallback(found)

    def _judged(self, checked: BotAccount | None, sent: str, with_key: bool, address: str | None) -> Identity:
        bot = self.bots.get(checked.name) if checked is not None else None  # as read last: a ban during the check
        if bot is None or bot.secret_hash != checked.secret_hash:  # a new secret came during the check
            return self._unproven(sent, with_key, address)
        identity = Identity(bot.name, proven=True, owner=bot.owner, proof=bot.secret_hash)
        refused = self.refusal(identity, address)
        if refused is None:
            return identity
        if not bot.banned:  # outside its pinned prefixes: a stolen secret, perhaps
            self.throttle.failed(address)
        return Identity(refused=refused)

    def refusal(self, identity: Identity, address: str | None) -> str | None:
        """Why a bot proven as ``identity`` may not be connected from ``address`` as the accounts stand now: banned,
        outside its pinned prefixes, or its secret replaced since (None: it may, or it proved no account)."""
        if not identity.proven:
            return None
        bot = self.bots.get(identity.name)
        if bot is None or bot.secret_hash != identity.proof:
            return f"{identity.name} has a new secret: the one it proved is void (evolution-accounts rotate)"
        if bot.banned:
            return f"{bot.name} is banned (its own ban or its owner's)"
        if not bot.allows(address):
            return f"{bot.name} may not connect from {address} (its pinned prefixes)"
        return None

    def _tries_proof(self, sent: str, with_key: bool) -> bool:
        """Does the sign-up try a proof (a key; in closed mode any name; else a name a bot's secret may be, by its
        tag), and so need a token, and spend it if it fails? A guest whose name is no bot's secret needs none."""
        return with_key or self.mode == CLOSED or secret_tag(sent) in self._by_tag

    def _unproven(self, sent: str, with_key: bool, address: str | None) -> Identity:
        if self._tries_proof(sent, with_key):
            self.throttle.failed(address)
        if with_key:
            shown = sent if sent in self.bots else "a name with no account"
            return Identity(refused=f"its key does not prove {shown}")
        if self.mode == CLOSED:
            return Identity(refused="this host admits only bots that prove an account (--accounts closed)")
        self._guests += 1
        return Identity(f"{GUEST}{self._guests}", guest=True)
