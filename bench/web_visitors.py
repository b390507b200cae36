"""Web visitors that hurt: a flooding browser, a pipelining reader that never reads, idle connections.

``python -m bench.web_visitors flood URL --seconds S`` asks for URL over and
over on one keep-alive connection (a browser looping on ``/api/games?limit=500``)
and prints, at the end, one JSON line: answers by status, and errors.
``python -m bench.web_visitors pipeline HOST PORT PATH --count N --seconds S
[--connections C]``: each of C connections writes N pipelined GETs of PATH
(as fast as the kernel takes them) and never reads, for S seconds.
``python -m bench.web_visitors idle HOST PORT --count N --seconds S``: N
connections that say nothing.

Each prints ``{"firing": true}`` on a line of its own once its fire has
begun (a flood's first answer; every pipelining connection's first requests
sent; every idle connection made or refused), so that a test can wait for
it, and stops early on SIGTERM; its last line is its result.

``start_visitors(web_port, seconds)`` starts what the load benchmark puts on
a host's web view under fire (``FLOODERS`` flooding processes on
``/api/games?limit=500`` and ``PIPELINERS`` pipelining connections on game
1's replay, all at nice 10), ``visitor_results`` gathers what they saw. The
web view's reliability tests (``tests/web/test_web_process.py``) start them too.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from urllib.parse import urlsplit

FLOODERS = 8
PIPELINERS = 4
FLOODED = "/api/games?limit=500"
PIPELINED = "/api/games/1/replay"


class Fire:
    """How long a visitor goes on: ``seconds``, or until SIGTERM; ``begun()`` says its fire has begun, once."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds
        self.said = False
        signal.signal(signal.SIGTERM, self._stop)

    def _stop(self, *_: object) -> None:
        self.end = 0.0

    def on(self) -> bool:
        return time.monotonic() < self.end

    def begun(self) -> None:
        if not self.said:
            self.said = True
            print(json.dumps({"firing": True}), flush=True)

    def wait(self) -> None:
        while self.on():
            time.sleep(min(0.1, max(0.0, self.end - time.monotonic())))


def flood(url: str, seconds: float) -> dict:
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    statuses: Counter = Counter()
    errors: Counter = Counter()
    largest = 0
    fire = Fire(seconds)
    connection = None
    while fire.on():
        try:
            if connection is None:
                connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
            connection.request("GET", path)
            answer = connection.getresponse()
            largest = max(largest, len(answer.read()))
            statuses[answer.status] += 1
            fire.begun()
            if answer.getheader("Connection", "").lower() == "close":
                connection.close()
                connection = None
        except (OSError, http.client.HTTPException) as error:
            errors[type(error).__name__] += 1
            connection = None
            time.sleep(0.05)
    return {"statuses": dict(statuses), "errors": dict(errors), "largest": largest}


def pipeline(host: str, port: int, path: str, count: int, seconds: float, connections: int = 1) -> dict:
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode("ascii")
    sockets = []
    for _ in range(connections):
        stuck = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
        stuck.connect((host, port))
        stuck.setblocking(False)
        sockets.append([stuck, request * count])
    fire, started = Fire(seconds), set()
    while fire.on():
        waiting = [entry[0] for entry in sockets if entry[1]]
        if waiting:
            _, writable, _ = select.select([], waiting, [], 0.1)
            for entry in sockets:
                if entry[0] in writable:
                    try:
                        entry[1] = entry[1][entry[0].send(entry[1]):]
                        started.add(entry[0])
                    except BlockingIOError:
                        pass
            if len(started) == len(sockets):
                fire.begun()
        else:
            time.sleep(0.1)
    sent = sum(count * len(request) - len(left) for _, left in sockets)
    for stuck, _ in sockets:
        stuck.close()
    return {"requests_sent": sent // len(request)}


def idle(host: str, port: int, count: int, seconds: float) -> dict:
    fire = Fire(seconds)
    held, refused = [], 0
    for _ in range(count):
        try:
            held.append(socket.create_connection((host, port), timeout=5))
        except OSError:
            refused += 1
    fire.begun()
    fire.wait()
    for connection in held:
        connection.close()
    return {"held": len(held), "refused": refused}


def _visitor(*arguments: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bench.web_visitors", *arguments], cwd=Path(__file__).resolve().parent.parent,
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.nice(10),
    )


def start_visitors(web_port: int, seconds: float) -> list[subprocess.Popen]:
    """The web view under fire for ``seconds``: FLOODERS processes and PIPELINERS connections, at nice 10."""
    wanted = f"{seconds:.1f}"
    visitors = [_visitor("flood", f"http://127.0.0.1:{web_port}{FLOODED}", "--seconds", wanted)
                for _ in range(FLOODERS)]
    visitors.append(_visitor("pipeline", "127.0.0.1", str(web_port), PIPELINED, "--connections", str(PIPELINERS),
                             "--count", "2000", "--seconds", wanted))
    return visitors


def visitor_results(visitors: list[subprocess.Popen], web_port: int) -> dict:
    """What the visitors saw: the floods' answers by status and errors, the largest answer, requests pipelined."""
    statuses: Counter = Counter()
    errors: Counter = Counter()
    largest = pipelined = 0
    for visitor in visitors:
        try:
            found = json.loads((visitor.communicate(timeout=120)[0] or "{}").strip().splitlines()[-1])
        except (subprocess.TimeoutExpired, ValueError):
            visitor.kill()
            found = {"errors": {"no result": 1}}
        statuses.update({int(code): count for code, count in found.get("statuses", {}).items()})
        errors.update(found.get("errors", {}))
        largest = max(largest, found.get("largest", 0))
        pipelined += found.get("requests_sent", 0)
    return {"answers": dict(statuses), "errors": dict(errors), "largest": largest, "pipelined": pipelined}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.web_visitors", description=__doc__.splitlines()[0])
    kinds = parser.add_subparsers(dest="kind", required=True)
    one = kinds.add_parser("flood")
    one.add_argument("url")
    for kind in ("pipeline", "idle"):
        other = kinds.add_parser(kind)
        other.add_argument("host")
        other.add_argument("port", type=int)
        if kind == "pipeline":
            other.add_argument("path")
            other.add_argument("--connections", type=int, default=1)
        other.add_argument("--count", type=int, default=2000)
    for sub in kinds.choices.values():
        sub.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    if args.kind == "flood":
        result = flood(args.url, args.seconds)
    elif args.kind == "pipeline":
        result = pipeline(args.host, args.port, args.path, args.count, args.seconds, args.connections)
    else:
        result = idle(args.host, args.port, args.count, args.seconds)
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    sys.exit(main())
