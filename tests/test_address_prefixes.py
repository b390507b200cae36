"""Address prefixes are parsed and matched one way for pinned bots, ``--proxy-from`` and ``evolution-accounts pin``:
an IPv4 peer of a dual-stack port (``::ffff:10.1.2.3``) is its IPv4 address, and a bad prefix is one sentence."""

from __future__ import annotations

import pytest

from evolution.address_prefixes import ip_of, loopback, parse_prefixes, within


def test_text_or_parts_give_the_same_prefixes():
    assert parse_prefixes("10.1.2.3/24, 192.0.2.7,2001:db8::/32") == parse_prefixes(
        ["10.1.2.3/24", " 192.0.2.7", "2001:db8::/32"])
    assert [str(prefix) for prefix in parse_prefixes("10.1.2.3/24,192.0.2.7")] == ["10.1.2.0/24", "192.0.2.7/32"]
    assert parse_prefixes([]) == ()


def test_an_ipv4_mapped_address_is_its_ipv4_address():
    pinned = parse_prefixes("10.1.2.0/24")
    assert within("10.1.2.3", pinned) and within("::ffff:10.1.2.3", pinned)
    assert not within("::ffff:10.1.3.1", pinned) and not within("10.1.3.1", pinned)
    assert str(ip_of("::ffff:127.0.0.1")) == "127.0.0.1" and ip_of("::ffff:127.0.0.1").is_loopback


def test_loopback_is_loopback_on_either_kind_of_port_for_the_per_address_limits():
    assert loopback("127.0.0.2") and loopback("::1") and loopback("::ffff:127.0.0.1")
    assert not loopback("10.1.2.3") and not loopback("::ffff:10.1.2.3") and not loopback("a unix socket")


def test_a_mapped_prefix_is_its_ipv4_prefix():
    assert [str(prefix) for prefix in parse_prefixes("::ffff:10.1.2.0/120")] == ["10.1.2.0/24"]
    assert within("10.1.2.9", parse_prefixes("::ffff:10.1.2.0/120"))


def test_ipv6_prefixes_match_ipv6_addresses_only():
    prefixes = parse_prefixes("2001:db8::/32")
    assert within("2001:db8::1", prefixes) and not within("2001:db9::1", prefixes) and not within("10.1.2.3", prefixes)


def test_what_is_no_address_matches_nothing():
    assert not within(None, parse_prefixes("0.0.0.0/0")) and not within("lab1", parse_prefixes("0.0.0.0/0"))
    assert ip_of("lab1") is None and ip_of(None) is None


@pytest.mark.parametrize("text", ["10.0.0.0/8,haproxy", "10.1.0.0/99", "", "10.0.0.0/8,"])
def test_a_bad_prefix_is_one_sentence_that_names_it(text):
    with pytest.raises(ValueError, match=r"is not an address or a prefix \(such as 10\.1\.0\.0/16 or 192\.0\.2\.7\)"):
        parse_prefixes(text)
