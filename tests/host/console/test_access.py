"""Who may use the operator port: ``--admin``'s options as twistd evolution parses them, the token, and which
commands a web page may have sent (tests/host/console/test_operator_port.py sends them over HTTP)."""

from __future__ import annotations

import pytest
from twisted.python import usage

from twisted.web.test.requesthelper import DummyRequest

from evolution.host.console.access import forged, loopback_only
from evolution.host.options import Options
from evolution.testing import free_port


def parse(*arguments: str) -> Options:
    options = Options()
    options.parseOptions(["--port", f"tcp:{free_port()}:interface=127.0.0.1", *arguments])
    return options


def test_the_operator_port_is_off_by_default_and_asks_no_token_on_loopback():
    assert parse()["admin"] is None
    options = parse("--admin", f"tcp:{free_port()}:interface=127.0.0.1")
    assert options["admin-token"] is None


@pytest.mark.parametrize("endpoint, local", [
    ("tcp:9100:interface=127.0.0.1", True), ("tcp:9100:interface=127.0.0.2", True), ("tcp6:9100:interface=\\:\\:1",
                                                                                      True),
    ("tcp6:9100:interface=\\:\\:", False), ("tcp6:9100:interface=\\:\\:ffff\\:127.0.0.1", True),
    ("tcp:9100", False), ("tcp:9100:interface=0.0.0.0", False), ("tcp:9100:interface=10.1.2.3", False),
    ("unix:/run/evolution-admin.sock", True),
])
def test_loopback_is_an_interface_of_127_0_0_0_8_or_ipv6_loopback_or_a_unix_socket(endpoint, local):
    assert loopback_only(endpoint) is local


def test_beyond_loopback_the_operator_port_needs_a_token_file(tmp_path):
    with pytest.raises(usage.UsageError, match="listens beyond this machine: give it --admin-token-file"):
        parse("--admin", f"tcp:{free_port()}")
    token = tmp_path / "token"
    token.write_text("0123456789abcdef0123\n")
    assert parse("--admin", f"tcp:{free_port()}", "--admin-token-file", str(token))["admin-token"] == \
        "0123456789abcdef0123"


def test_a_short_or_missing_token_is_one_sentence(tmp_path):
    short = tmp_path / "short"
    short.write_text("secret\n")
    with pytest.raises(usage.UsageError, match="at least 16 characters"):
        parse("--admin", f"tcp:{free_port()}", "--admin-token-file", str(short))
    with pytest.raises(usage.UsageError, match="cannot be read"):
        parse("--admin", f"tcp:{free_port()}", "--admin-token-file", str(tmp_path / "none"))


def test_the_operator_port_is_never_the_web_views_or_the_bots_port():
    web = free_port()
    with pytest.raises(usage.UsageError, match="--admin must listen on a port of its own, not --web's"):
        parse("--web", f"tcp:{web}:interface=127.0.0.1", "--admin", f"tcp:{web}:interface=127.0.0.1")
    admin = free_port()
    with pytest.raises(usage.UsageError, match="--agent-check must listen on a port of its own, not --admin's"):
        parse("--admin", f"tcp:{admin}:interface=127.0.0.1", "--agent-check", f"tcp:{admin}:interface=127.0.0.1")


def test_the_agent_check_and_the_token_go_with_the_operator_port(tmp_path):
    with pytest.raises(usage.UsageError, match="--agent-check goes with --admin"):
        parse("--agent-check", f"tcp:{free_port()}:interface=127.0.0.1")
    with pytest.raises(usage.UsageError, match="--admin-token-file goes with --admin"):
        parse("--admin-token-file", str(tmp_path / "token"))


def command(**headers: str) -> DummyRequest:
    request = DummyRequest([b"drain"])
    request.method = b"POST"
    for name, value in headers.items():
        request.requestHeaders.setRawHeaders(name.replace("_", "-").encode(), [value.encode()])
    return request


@pytest.mark.parametrize("host, token, refused", [
    ("127.0.0.1:9100", None, False), ("localhost:9100", None, False), ("[::1]:9100", None, False),
    ("127.0.0.2:9100", None, False), ("admin.localhost:9100", None, False),
    ("evil.example:9100", None, True), ("10.1.2.3:9100", None, True), ("[::1:9100", None, True),
    ("evil.example:9100", "a-token-of-twenty-chars", False),  # a token: the page cannot send it anyway
])
def test_without_a_token_a_command_must_be_addressed_to_this_machine(host, token, refused):
    assert (forged(command(x_operator="ann", host=host), token) is not None) == refused


@pytest.mark.parametrize("site, origin, refused", [
    (None, None, False), ("same-origin", "http://127.0.0.1:9100", False), ("none", None, False),
    ("cross-site", None, True), ("same-site", None, True),  # the web view, on another port of this machine
    (None, "http://evil.example", True), (None, "null", True), (None, "http://127.0.0.1:8080", True),
])
def test_a_command_that_says_it_came_from_another_site_is_refused(site, origin, refused):
    headers = {"x_operator": "ann", "host": "127.0.0.1:9100"}
    headers |= {"sec_fetch_site": site} if site is not None else {}
    headers |= {"origin": origin} if origin is not None else {}
    assert (forged(command(**headers), None) is not None) == refused
    assert forged(command(host="127.0.0.1:9100"), None).startswith("a command must carry the header X-Operator")
