"""Names on a real host (``twistd evolution`` in its own process, bots on raw sockets); one address's share.

A name already taken by a player waiting, or of the host's form (ending in ``#`` and digits), gets
``#2``, ``#3``...; a bot that signs up with ``["sign-up", name]`` is told the name it got
(``["ok", name]``, ``["ack", name]`` in seed 002); a plain string still gets the course's bare "ok".
The game is stored under the names given.
"""

from __future__ import annotations

import json
import select
import socket
import subprocess
import sys

import pytest
from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred
from twisted.internet.task import Clock
from twisted.trial import unittest

from evolution.net.client import play_remote
from evolution.testing import HostProcess, free_port
from tests.support.hosting import HonestSilly, log_lines, new_host, stored_tournament, until

pytestmark = pytest.mark.slow

QUICK_GAME = ("--games", "1", "--deck", "sorted", "--timeout", "0.05", "--number-grace", "0.01")


def sign_up(port: int, message: object) -> tuple[socket.socket, object]:
    """Connect, send ``message``, read the host's first line: (the connection, the reply)."""
    connection = socket.create_connection(("127.0.0.1", port), timeout=30)
    connection.sendall(json.dumps(message).encode() + b"\n")
    reply = b""
    while not reply.endswith(b"\n"):
        data = connection.recv(1)
        assert data, f"the host hung up on {message!r}"
        reply += data
    return connection, json.loads(reply)


def play_silently(tmp_path, options: tuple[str, ...], sign_ups: list[object]) -> tuple[list[object], list[str], str]:
    """Sign up one socket per message, in order, on a host that plays one game of them (every seat times out).

    Returns the replies, the stored game's names in seat order, and the host's log.
    """
    port, db, log = free_port(), tmp_path / "r.sqlite", tmp_path / "host.log"
    host = HostProcess(port, db, log, *options, *QUICK_GAME)
    connections = []
    try:
        host.wait_until_listening()
        replies = []
        for message in sign_ups:
            connection, reply = sign_up(port, message)
            connections.append(connection)
            replies.append(reply)
        assert host.wait() == 0
    finally:
        host.stop()
        for connection in connections:
            connection.close()
    games = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db", str(db), "--json"],
                           capture_output=True, text=True, check=True, timeout=60).stdout
    [game] = json.loads(games)
    return replies, [seat["name"] for seat in game["players"]], log.read_text()


def test_duplicates_and_names_of_the_hosts_form_get_a_number_and_a_bot_that_asks_is_told(tmp_path):
    replies, names, log = play_silently(tmp_path, ("--players", "6-6"), [
        "x", "x", ["sign-up", "x"], ["sign-up", "x#2"], "x#3", ["sign-up", "solo"],
    ])
    assert replies == ["ok", "ok", ["ok", "x#3"], ["ok", "x#2#2"], "ok", ["ok", "solo"]]
    assert sorted(names) == sorted(["x", "x#2", "x#3", "x#2#2", "x#3#2", "solo"])
    assert "signed up 'x#2' (it sent 'x', taken or of the host's form) from 127.0.0.1:" in log


def test_in_seed_002_the_told_name_comes_with_ack(tmp_path):
    replies, names, _log = play_silently(tmp_path, ("--players", "3-3", "--dialect", "seed002"), [
        ["sign-up", "Hello"], "Hello", ["sign-up", "Hello"],
    ])
    assert replies == [["ack", "Hello"], "ack", ["ack", "Hello#3"]]
    assert sorted(names) == ["Hello", "Hello#2", "Hello#3"]


class OneAddressTests(unittest.TestCase):
    """One address cannot crowd out the others (``--max-per-address``): an in-process host, real sockets."""

    timeout = 120

    async def test_three_hundred_sign_ups_from_one_address_take_only_its_share_and_the_honest_bots_play(self):
        sybils, honest = 300, ["alpha", "bravo", "charlie", "delta"]
        host = new_host(self, "--tournament", "knockout", "--max-per-address", "10", "--max-signups", "14",
                        "--max-connections", "1000", "--players", "3-8")
        lines = log_lines(self)
        await host.ready()
        crowd: list[socket.socket] = []
        self.addCleanup(lambda: [connection.close() for connection in crowd])
        for _ in range(sybils):  # all from 127.0.0.1: each signs up, then says nothing
            connection = socket.create_connection(("127.0.0.1", host.port), timeout=10)
            connection.sendall(b'"sybil"\n')
            crowd.append(connection)
            if len(crowd) % 20 == 0:  # the host (on this reactor) answers each ("ok", or "game full"); backlog 50
                await until(lambda: answered(crowd[-20:]))
        await until(lambda: sum(1 for line in lines if "answered 'game full'" in line or "holds 10" in line) >= 1
                    and host.factory.by_address.get("127.0.0.1", 0) == 10)
        clients = [ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, name, HonestSilly(), retries=0,
                                              bind=f"127.0.0.{k}"))
                   for k, name in enumerate(honest, start=2)]
        await until(lambda: host.tournaments.current is not None)
        for connection in crowd:  # the crowd goes: its entrants fail, waiting, and the honest bots play it out
            connection.close()
        store, tournament, outcomes = await stored_tournament(self, host, clients)
        self.assertEqual([o for o in outcomes if isinstance(o, Exception)], [])
        entrants = {entrant.name: entrant for entrant in tournament.entrants}
        self.assertEqual(len(entrants), 14)
        self.assertEqual(sorted(name for name in entrants if not name.startswith("sybil")), honest)
        self.assertEqual([e.name for e in tournament.entrants if e.winner and e.name not in honest], [])
        self.assertTrue(any(e.winner for e in tournament.entrants))
        capped = [line for line in lines if "as many as one address may (--max-per-address)" in line]
        self.assertEqual(len(capped), 1, capped)  # said once, not once a refusal
        self.assertIn("127.0.0.1 holds 10 connections", capped[0])


def answered(connections: list[socket.socket]) -> bool:
    """Whether the host has said something to every one of ``connections``."""
    readable, _, _ = select.select(connections, [], [], 0)
    return len(readable) == len(connections)


def test_the_cap_holds_for_other_machines_by_default_and_for_every_address_once_given():
    from evolution.net.signup import DEFAULT_MAX_PER_ADDRESS, SignupConfig, SignupFactory

    class Open:
        def attach(self, factory):
            pass

    by_default = SignupFactory(SignupConfig(), Open(), Clock())
    assert by_default.cap_of("192.0.2.7") == by_default.cap_of("2001:db8::7") == DEFAULT_MAX_PER_ADDRESS
    assert by_default.cap_of("127.0.0.1") is None and by_default.cap_of("::1") is None
    given = SignupFactory(SignupConfig(max_per_address=5), Open(), Clock())
    assert given.cap_of("127.0.0.1") == given.cap_of("192.0.2.7") == 5
