"""Web visitors that hurt: a flooding browser, a pipelining reader that never reads, idle connections.

``python -m bench.web_visitors flood URL --seconds S`` asks for URL over and
over on one keep-alive connection (a browser looping on ``/api/games?limit=500``)
and prints, at the end, one JSON line: answers by status, and errors.
``python -m bench.web_visitors pipeline HOST PORT PATH --count N --seconds S
[--connections C]``: each of C connections writes N pipelined GETs of PATH
(as fast as the kernel takes them) and never reads, for S seconds.
``python -m bench.web_visitors idle HOST PORT --count N --seconds S``: N
connections that say nothing.

Used by ``bench/bench_load.py`` (``--web``) and the web view's reliability
tests (``tests/test_web_process.py``), which start them as processes.
"""

from __future__ import annotations

import argparse
import http.client
import json
import select
import socket
import sys
import time
from collections import Counter
from urllib.parse import urlsplit


def flood(url: str, seconds: float) -> dict:
    parts = urlsplit(url)
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    statuses: Counter = Counter()
    errors: Counter = Counter()
    end = time.monotonic() + seconds
    connection = None
    while time.monotonic() < end:
        try:
            if connection is None:
                connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
            connection.request("GET", path)
            answer = connection.getresponse()
            answer.read()
            statuses[answer.status] += 1
            if answer.getheader("Connection", "").lower() == "close":
                connection.close()
                connection = None
        except (OSError, http.client.HTTPException) as error:
            errors[type(error).__name__] += 1
            connection = None
            time.sleep(0.05)
    return {"statuses": dict(statuses), "errors": dict(errors)}


def pipeline(host: str, port: int, path: str, count: int, seconds: float, connections: int = 1) -> dict:
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n\r\n".encode("ascii")
    sockets = []
    for _ in range(connections):
        stuck = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # before connecting: a small window
        stuck.connect((host, port))
        stuck.setblocking(False)
        sockets.append([stuck, request * count])
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        waiting = [entry[0] for entry in sockets if entry[1]]
        if waiting:
            _, writable, _ = select.select([], waiting, [], 0.1)
            for entry in sockets:
                if entry[0] in writable:
                    try:
                        entry[1] = entry[1][entry[0].send(entry[1]):]
                    except BlockingIOError:
                        pass
        else:
            time.sleep(0.1)
    sent = sum(count * len(request) - len(left) for _, left in sockets)
    for stuck, _ in sockets:
        stuck.close()
    return {"requests_sent": sent // len(request)}


def idle(host: str, port: int, count: int, seconds: float) -> dict:
    held, refused = [], 0
    for _ in range(count):
        try:
            held.append(socket.create_connection((host, port), timeout=5))
        except OSError:
            refused += 1
    time.sleep(seconds)
    for connection in held:
        connection.close()
    return {"held": len(held), "refused": refused}


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
