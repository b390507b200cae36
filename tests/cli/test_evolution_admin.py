"""``evolution-admin`` given a bad URL, or talking to something that is not an operator port, says so in one line;
what the host says of bots reaches the organiser's terminal escaped. A real HTTP server on loopback plays the host."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import unicodedata
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator

import pytest

pytestmark = pytest.mark.slow  # each test runs evolution-admin in a process of its own

NASTY = "\x1b[2J\x07evil\r\n\x9b\u202e"
HTML = "<!DOCTYPE html>\n<html>\n<head><title>Not here</title></head>\n<body><p>nothing</p></body>\n</html>\n"


class FakePort:
    """An HTTP server on 127.0.0.1 answering each path as told: ``answers[path] = (status, content type, body)``."""

    def __init__(self) -> None:
        self.answers: dict[str, tuple[int, str, str]] = {}
        self.heard: list[dict[str, str]] = []  # the headers of each request
        port = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self) -> None:
                port.heard.append(dict(self.headers))
                status, kind, body = port.answers.get(self.path, (404, "text/html", HTML))
                data = body.encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = answer

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def port() -> Iterator[FakePort]:
    served = FakePort()
    yield served
    served.close()


def admin(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evolution.cli.evolution_admin", "--as", "the test", *arguments],
                          capture_output=True, text=True, timeout=60)


def one_line(done: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert done.stdout == ""
    return done.stderr


def unsafe(text: str) -> list[str]:
    return [char for char in text if char != "\n" and unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"}]


@pytest.mark.parametrize("url, why", [
    ("http://[::1", "Invalid IPv6 URL"), ("http://127.0.0.1:port", "Port could not be cast"),
    ("ftp://127.0.0.1:9100", "not an http:// URL"), ("http://127.0.0.1:9100/a b", "a space"),
])
def test_an_admin_url_that_is_not_one_is_a_usage_error_in_one_line(url, why):
    done = admin("--admin", url, "drain")
    assert done.returncode == 2
    line = one_line(done)
    assert line.startswith("evolution-admin: error: --admin ") and why in line


def test_a_server_that_answers_bots_with_a_page_is_not_an_operator_port(port):
    port.answers["/bots"] = (200, "text/html", HTML)
    done = admin("--admin", port.url, "bots")
    assert done.returncode == 1
    assert one_line(done) == (f"evolution-admin: bots: '{port.url}' is not a host's operator port: it answered with "
                              "text/html\n")
    port.answers["/bots"] = (200, "application/json", "<html>")
    done = admin("--admin", port.url, "bots")
    assert done.returncode == 1 and "its answer to bots is not the list of bots" in one_line(done)


def test_a_refusal_that_is_a_page_of_html_is_one_line_and_not_the_page(port):
    done = admin("--admin", port.url, "drain")  # a wrong port: its web server's 404 page
    assert done.returncode == 1
    line = one_line(done)
    assert line.startswith("evolution-admin: drain: HTTP 404 ") and "<" not in line
    assert f"is '{port.url}' a host's --admin port?" in line
    assert port.heard[-1]["X-Operator"] == "the test"  # the header the operator port asks of every command


def test_what_the_host_says_of_bots_and_in_its_refusals_reaches_the_terminal_escaped(port):
    bots = {"state": "serving", "ladder_paused": False, "waiting": [{"name": NASTY, "address": f"10.0.0.1{NASTY}"}],
            "games": [{"game": 7, "players": [NASTY, "plain"]}]}
    port.answers["/bots"] = (200, "application/json", json.dumps(bots))
    done = admin("--admin", port.url, "bots")
    assert done.returncode == 0, done.stderr
    assert unsafe(done.stdout) == []
    assert done.stdout.splitlines() == [
        "serving", "1 waiting: \\x1b[2J\\x07evil\\r\\n\\x9b\\u202e (10.0.0.1\\x1b[2J\\x07evil\\r\\n\\x9b\\u202e)",
        "game 7: \\x1b[2J\\x07evil\\r\\n\\x9b\\u202e, plain"]
    port.answers["/withdraw"] = (404, "text/plain; charset=utf-8", f"no bot '{NASTY[:5]}\\x9b' here\n")
    done = admin("--admin", port.url, "withdraw", "x")
    assert done.returncode == 1
    # what the host sent raw is escaped; its own escape (\x9b, written so) is shown as it is, not doubled
    assert one_line(done) == "evolution-admin: withdraw: no bot '\\x1b[2J\\x07\\x9b' here\n"
