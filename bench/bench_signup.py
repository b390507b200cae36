"""The signing-up process's own Python work for a game of 8: CPU per game, the sign-up path alone.

Each game is 8 connections made (``SignupFactory.buildProtocol``, ``makeConnection``) on in-memory
transports, each signing up with one line, the 8th starting the game (``GameLobby``), then the 8
closed; the reactor's timers are made and cancelled as a host's are, and what is due run after each
game (``runUntilCurrent``), but the reactor polls nothing; the log lines are made but not written. What it leaves out (the kernel's accept and send,
Twisted's socket objects, the hand-over, the log's file) is the rest of the signing-up process's
CPU a game that ``python -m bench load`` reports. Median of 7 rounds of 2,000 games; ``--games N``
sets the round.

To compare two trees, run it in turn with each tree's host (``PYTHONPATH=OTHER_TREE python
bench/bench_signup.py`` for the other): docs/performance.md, "The signing-up process's CPU a game".
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from twisted.internet import reactor
from twisted.internet.address import IPv4Address
from twisted.internet.testing import StringTransport
from twisted.logger import LogPublisher

from evolution.net.lobbies import GameLobby
from evolution.net.signup import SignupConfig, SignupFactory

ROUNDS = 7
PLAYERS = 8


def _round(games: int) -> float:
    """CPU microseconds per game of a fresh factory."""
    started_games: list = []
    factory = SignupFactory(SignupConfig(min_players=3, max_players=PLAYERS, window=10.0),
                            GameLobby(started_games.append), reactor)
    port = 10000
    started = time.process_time()
    for _ in range(games):
        for seat in range(PLAYERS):
            port = port + 1 if port < 60000 else 10001
            address = IPv4Address("TCP", "127.0.0.1", port)
            protocol = factory.buildProtocol(address)
            protocol.makeConnection(StringTransport(peerAddress=address))
            protocol.dataReceived(json.dumps(f"bot {seat}").encode() + b"\n")
        for connection in started_games[-1]:
            connection.transport.loseConnection()
            connection.connectionLost(None)
        reactor.runUntilCurrent()  # as the reactor between events: what is due runs, cancelled timers go
    spent = time.process_time() - started
    factory.stop()
    return spent * 1e6 / games


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench signup", description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games a round (default 2000)")
    args = parser.parse_args(argv or [])
    quiet = LogPublisher()  # the lines are made (Logger.emit, the fields), then dropped
    for name in ("evolution.net.signup", "evolution.net.host_connection", "evolution.net.lobbies"):
        __import__(name, fromlist=["log"]).log.observer = quiet
    figures = [_round(args.games) for _ in range(ROUNDS)]
    print(f"sign-up path, {PLAYERS} connections a game: {statistics.median(figures):.0f} us CPU per game "
          f"(median of {ROUNDS} rounds of {args.games}; {min(figures):.0f}-{max(figures):.0f})")


if __name__ == "__main__":
    main()
