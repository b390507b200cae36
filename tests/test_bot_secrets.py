"""A bot's secret: issued at random, kept only as a salted slow hash, checked in constant time."""

from __future__ import annotations

import re

from evolution.bot_secrets import BotAccount, hash_secret, issue_secret, secret_matches, secret_tag


def test_a_secret_has_128_bits_or_is_a_fish_name():
    secret = issue_secret()
    assert len(secret) == 22 and secret != issue_secret()
    assert re.fullmatch(r"[A-Za-z]{12}", issue_secret(letters=True))


def test_the_hash_is_salted_and_holds_no_secret():
    secret = issue_secret()
    first, second = hash_secret(secret), hash_secret(secret)
    assert first != second and secret not in first
    assert first.startswith("scrypt$")
    assert secret_matches(secret, first) and secret_matches(secret, second)
    assert not secret_matches(secret + "x", first)
    assert not secret_matches(secret, "garbage") and not secret_matches(secret, "md5$1$1$1$00$00")


def test_the_tag_is_short():
    assert re.fullmatch(r"[0-9a-f]{4}", secret_tag("anything"))


def test_pinned_prefixes():
    bot = BotAccount("alice", "ann", "", "", prefixes=("10.1.0.0/16", "127.0.0.1"))
    assert bot.allows("10.1.2.3") and bot.allows("127.0.0.1")
    assert not bot.allows("10.2.0.1") and not bot.allows(None) and not bot.allows("::1")
    assert bot.allows("::ffff:10.1.2.3") and not bot.allows("::ffff:10.2.0.1")  # IPv4 peers of a dual-stack port
    assert BotAccount("bob", "ann", "", "").allows("192.0.2.1")
