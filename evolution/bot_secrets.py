# -*- test-case-name: tests.test_bot_secrets -*-
"""Bot accounts' secrets and what a host knows of a bot: issued, hashed, checked.

Offers ``BotAccount`` (a bot as the store's accounts hold it: public name,
owner, the salted hash of its secret and its tag, banned, pinned address
prefixes), ``issue_secret(letters=False)`` (128 bits from ``secrets``, or 12
ASCII letters for a course client that can send only a Fish name),
``hash_secret(secret)`` (scrypt, salted), ``secret_tag(secret)`` (16 bits of
its SHA-256: which few bots to check a sign-up name against) and
``secret_matches(secret, hashed)`` (compared in constant time).

Below both the store (``evolution.store.accounts`` writes accounts) and the
network (``evolution.net.identity`` proves them); the story: docs/accounts.md.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import string
from dataclasses import dataclass

from evolution.address_prefixes import parse_prefixes, within

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**14, 8, 1  # about 16 MiB and some tens of milliseconds a check
SALT_BYTES = 16
LETTERS = 12  # a Fish sign-up name: at most 12 ASCII letters (about 68 bits)
_SCHEME = "scrypt"


@dataclass(frozen=True)
class BotAccount:
    """A bot of the store's accounts: all a host needs to prove it (never its secret)."""

    name: str  # its public name
    owner: str
    secret_hash: str
    secret_tag: str
    banned: bool = False  # the bot or its owner is banned
    prefixes: tuple[str, ...] = ()  # CIDR prefixes it must connect from; () for anywhere
    owner_display: str = ""

    def allows(self, address: str | None) -> bool:
        """True if the bot may connect from ``address`` (its pinned prefixes, if any; an IPv4-mapped address, as a
        dual-stack port names an IPv4 peer, is its IPv4 address: ``evolution.address_prefixes``)."""
        return not self.prefixes or within(address, parse_prefixes(self.prefixes))


def issue_secret(letters: bool = False) -> str:
    """A new secret: 128 random bits (22 URL-safe characters), or ``LETTERS`` ASCII letters (a Fish name)."""
    if letters:
        return "".join(secrets.choice(string.ascii_letters) for _ in range(LETTERS))
    return secrets.token_urlsafe(16)


def secret_tag(secret: str) -> str:
    """The first 4 hex digits of the secret's SHA-256: narrows a lookup to a few bots, tells an attacker little."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:4]


def _scrypt(secret: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(secret.encode("utf-8", "surrogatepass"), salt=salt, n=n, r=r, p=p, dklen=32,
                          maxmem=256 * 1024 * 1024)


def hash_secret(secret: str) -> str:
    """``scrypt$N$r$p$SALT$HASH`` (hex), with a fresh salt."""
    salt = secrets.token_bytes(SALT_BYTES)
    digest = _scrypt(secret, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"{_SCHEME}${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${salt.hex()}${digest.hex()}"


def secret_matches(secret: str, hashed: str) -> bool:
    """True if ``secret`` is the one ``hashed`` was made of (constant-time comparison); False for a bad hash."""
    try:
        scheme, n, r, p, salt, digest = hashed.split("$")
        if scheme != _SCHEME:
            return False
        found = _scrypt(secret, bytes.fromhex(salt), int(n), int(r), int(p))
        return hmac.compare_digest(found, bytes.fromhex(digest))
    except ValueError:
        return False
