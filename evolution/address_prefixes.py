# -*- test-case-name: tests.test_address_prefixes -*-
"""Address prefixes, parsed and matched one way wherever the host pins something to them.

Offers ``Prefix`` (an IPv4 or IPv6 network), ``parse_prefixes(prefixes)``
(``"10.0.0.0/8,127.0.0.1"``, or its parts as a sequence -> networks;
``ValueError`` in one sentence naming the bad part), ``ip_of(address)`` (an
address as a connection names it -> an ``ipaddress`` address, or None),
``loopback(address)`` (cached: the per-address limits ask it of every
connection), and ``within(address, prefixes)``.

A dual-stack port (``tcp6:45678``) names an IPv4 peer by its IPv4-mapped
IPv6 address, ``::ffff:10.1.2.3``: ``ip_of`` unwraps it to ``10.1.2.3``, and
``parse_prefixes`` a mapped prefix (``::ffff:10.1.2.0/120``) to its IPv4 one,
so a bot pinned to ``10.1.2.0/24`` is the same bot on either kind of port.

Below both the store (``evolution.store.accounts`` checks what ``pin`` is
given) and the network (``--proxy-from``, ``evolution.net.proxy_header``; the
throttle's and ``--max-per-address``'s loopback, ``evolution.net.throttle``,
``evolution.net.signup``), and used by
``evolution.bot_secrets.BotAccount.allows`` (a bot's pinned prefixes).
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from typing import Sequence

Prefix = ipaddress.IPv4Network | ipaddress.IPv6Network
Address = ipaddress.IPv4Address | ipaddress.IPv6Address

_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")


def _unmapped(prefix: Prefix) -> Prefix:
    if isinstance(prefix, ipaddress.IPv6Network) and prefix.prefixlen >= 96 and prefix.subnet_of(_MAPPED):
        mapped = prefix.network_address.ipv4_mapped
        return ipaddress.IPv4Network((mapped, prefix.prefixlen - 96))
    return prefix


def parse_prefixes(prefixes: str | Sequence[str]) -> tuple[Prefix, ...]:
    """The CIDR prefixes (or single addresses) of ``prefixes``: comma-separated text, or its parts.

    ``ValueError`` names the first part that is neither (in a sentence a user can act on)."""
    parts = prefixes.split(",") if isinstance(prefixes, str) else prefixes
    return tuple(_parsed(part.strip()) for part in parts)


@lru_cache(maxsize=1024)  # a bot's pinned prefixes are read at each of its sign-ups
def _parsed(part: str) -> Prefix:
    try:
        return _unmapped(ipaddress.ip_network(part, strict=False))
    except ValueError:
        raise ValueError(f"{part!r} is not an address or a prefix (such as 10.1.0.0/16 or 192.0.2.7)") from None


@lru_cache(maxsize=4096)  # parsing an address costs more than matching it
def ip_of(address: str | None) -> Address | None:
    """``address`` as an IP address, an IPv4-mapped one unwrapped; None for None or what is not an address."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


@lru_cache(maxsize=4096)  # parsing an address costs more than the rest of a connection's count
def loopback(address: str) -> bool:
    """Is ``address`` loopback (``::ffff:127.0.0.1`` too)?"""
    ip = ip_of(address)
    return ip is not None and ip.is_loopback


def within(address: str | None, prefixes: Sequence[Prefix]) -> bool:
    """True if ``address`` lies in one of ``prefixes`` (never for None or what is not an address)."""
    ip = ip_of(address)
    return ip is not None and any(ip in prefix for prefix in prefixes)
