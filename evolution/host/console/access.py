# -*- test-case-name: tests.host.console.test_access -*-
"""Who may use the operator port: its options checked, its token read, each request let in or not.

Offers ``check_console_options(options)`` (``--admin``, ``--admin-token-file``,
``--agent-check``: never the bot port's or the web view's endpoint; beyond
loopback only with a token; each problem one ``usage.UsageError``),
``loopback_only(endpoint)``, ``read_token(path)``, ``allowed(request,
token)`` (``Authorization: Bearer TOKEN``, compared in constant time) and
``forged(request, token)``: why a command (a ``POST``) is refused as a web
page's, or None. A page the organiser has open may post a form to
``http://127.0.0.1:9100/drain``; a command must carry ``X-Operator``, which
no page can send to another site without a CORS preflight (the port never
grants one), must not say it came from another site (``Origin``,
``Sec-Fetch-Site``), and, on a port that asks no token, must be addressed to
this machine by a loopback name (``Host``: a page's DNS rebinding sends its
own).
"""

from __future__ import annotations

import hmac
import re
import urllib.parse
from pathlib import Path
from typing import Any, Mapping

from twisted.python import usage

from evolution.address_prefixes import loopback
from evolution.text import short

LOCAL_KINDS = ("unix",)


def loopback_only(endpoint: str) -> bool:
    """True when ``endpoint`` (a server endpoint string) can be reached from this machine alone."""
    kind, _, rest = endpoint.partition(":")
    if kind in LOCAL_KINDS:
        return True
    for field in re.split(r"(?<!\\):", rest):  # (an endpoint escapes the colons of an IPv6 address)
        name, _, value = field.partition("=")
        if name == "interface":
            return loopback(value.replace("\\:", ":").strip("[]"))
    return False  # every interface


def _port_of(endpoint: str) -> str:
    kind, _, rest = endpoint.partition(":")
    return rest.split(":", 1)[0] if kind in ("tcp", "tcp6", "ssl") else rest


def read_token(path: str) -> str:
    """The token in the file ``path`` (its first line); ``usage.UsageError`` if it cannot be read or is empty."""
    try:
        token = Path(path).read_text(encoding="utf-8").strip().split("\n", 1)[0].strip()
    except (OSError, UnicodeDecodeError) as error:
        raise usage.UsageError(f"--admin-token-file {path!r} cannot be read: {getattr(error, 'strerror', error)}")
    if len(token) < 16:
        raise usage.UsageError(f"--admin-token-file {path!r} must hold a token of at least 16 characters on its "
                               "first line (such as the output of: openssl rand -hex 32)")
    return token


def check_console_options(options: Mapping[str, Any]) -> str | None:
    """Check the operator port's options; the token to ask for (None: none asked)."""
    admin, agent, token_file = options["admin"], options["agent-check"], options["admin-token-file"]
    if admin is None:
        if token_file is not None:
            raise usage.UsageError("--admin-token-file goes with --admin ENDPOINT")
        if agent is not None:
            raise usage.UsageError("--agent-check goes with --admin ENDPOINT (the operator port drains the host)")
        return None
    taken = {"--port": options["port"], "--web": options.get("web")}
    for mine, endpoint in (("--admin", admin), ("--agent-check", agent)):
        for option, other in taken.items():
            if endpoint is not None and other is not None and _port_of(endpoint) == _port_of(other):
                raise usage.UsageError(f"{mine} must listen on a port of its own, not {option}'s ({other})")
    if agent is not None and _port_of(agent) == _port_of(admin):
        raise usage.UsageError("--agent-check must listen on a port of its own, not --admin's: HAProxy's "
                               "agent-check reads one line from a plain TCP port")
    token = read_token(token_file) if token_file is not None else None
    if token is None and not loopback_only(admin):
        raise usage.UsageError(f"--admin {admin} listens beyond this machine: give it --admin-token-file FILE (a "
                               "secret the operator's tools send), or add :interface=127.0.0.1")
    return token


def allowed(request: Any, token: str | None) -> bool:
    """True when no token is asked for, or the request carries it (``Authorization: Bearer TOKEN``)."""
    if token is None:
        return True
    given = (request.getHeader("authorization") or "").removeprefix("Bearer ").strip()
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


SAME_SITE = ("same-origin", "none")  # Sec-Fetch-Site of a page of the port itself, or of a request a person typed


def forged(request: Any, token: str | None) -> str | None:
    """Why the command ``request`` (a POST) may be a web page's, in one line; None when none says so."""
    if not (request.getHeader("x-operator") or "").strip():
        return ("a command must carry the header X-Operator: NAME (evolution-admin sends it), which a web page "
                "cannot send here")
    host = request.getHeader("host")
    site = (request.getHeader("sec-fetch-site") or "").strip().lower()
    if site and site not in SAME_SITE:
        return f"a command from a web page of another site (Sec-Fetch-Site: {short(site, 20)}) is refused"
    origin = request.getHeader("origin")
    if origin is not None and (host is None or _netloc(origin) != host.strip().lower()):
        return f"a command from a web page of another site (Origin: {short(origin, 100)}) is refused"
    if token is None and host is not None and not _loopback_name(host):
        return (f"this operator port asks no token, so it takes commands only addressed to this machine (Host: "
                f"127.0.0.1, localhost), not to {short(host, 100)}; give the host --admin-token-file to use another name")
    return None


def _netloc(url: str) -> str | None:
    try:
        return urllib.parse.urlsplit(url.strip()).netloc.lower() or None
    except ValueError:
        return None


def _loopback_name(host: str) -> bool:
    """True when the Host header ``host`` names this machine: localhost, or a loopback address."""
    try:
        name = urllib.parse.urlsplit("//" + host.strip()).hostname or ""
    except ValueError:
        return False
    return name == "localhost" or name.endswith(".localhost") or loopback(name)
