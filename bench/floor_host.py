"""The floor: a bare Twisted host that replays recorded games, to price Twisted alone.

``python -m bench.floor_host --port P --games DB [--players 8] [--seed 0]``
listens on 127.0.0.1:P and serves the load benchmark's bots (``bench/swarm.py``)
the games a real host stored in the results store DB. ``python -m bench load
--floor`` runs it after each real host's run (``bench_load.run_floor``).

Why: the host's CPU per message is the rules, the checks, the log, the store
and the lobby on top of Twisted's event loop, the system calls and loopback
TCP. This host does only the second part, for the very same messages, so
its CPU per message is a floor that no host written with Twisted goes under
on the machine it runs on; what the real host spends above it is the part
its own code can still win back.

What it does, as the real host does it: Twisted's default reactor (epoll on
Linux), a listen queue of 50 (the host's default), one protocol per
connection with ``TCP_NODELAY``, lines framed by Twisted's
``LineOnlyReceiver``, every message handed to the kernel at once when
nothing is buffered (``evolution.net.json_protocol.write_now``), the host's
garbage-collector settings (``evolution.host.memory.settle_memory``). A
bot's first line is its sign-up, answered ``"ok"``; the lobby groups P
signed-up connections into a game, which replays the message log
(``evolution.net.game_log``) of a stored game chosen at random (seeded):
each "out" entry is written to its seat, each "in" entry waits for the next
line from that seat, and at the end the host closes the P connections. The
bots are deterministic silly players, so given the recorded questions they
send exactly the recorded replies.

What it does not do: parse or check a reply, run the rules, keep a log,
store a result, time a call, write a log line. Every script is loaded and
encoded before the reactor starts; games in which a seat failed (a "fail"
entry) are skipped, as a bot would not fail the same way. SIGTERM stops the
reactor (or the loading) and the process exits with status 0.
"""

from __future__ import annotations

import argparse
import random
import signal
import subprocess
import sys
from pathlib import Path

from twisted.internet.protocol import Factory
from twisted.protocols.basic import LineOnlyReceiver

from evolution.host.memory import settle_memory
from evolution.host.demo import HostProcess
from evolution.host.store import ResultsStore
from evolution.net.json_protocol import write_now
from evolution.jsonwire.framing import encode_message

OK = encode_message("ok")

Step = tuple[int, bytes | None]  # (seat, the line to write to it) or (seat, None): read a line from it
Script = tuple[Step, ...]


# -- the scripts ----------------------------------------------------------------------


def to_script(log: list, players: int) -> Script | None:
    """A stored game's message log as the steps to replay; None if a seat failed or the game had another size."""
    if not log or any(entry[2] == "fail" for entry in log) or max(entry[1] for entry in log) != players:
        return None
    return tuple((entry[1], encode_message(entry[3]) if entry[2] == "out" else None) for entry in log)


def load_scripts(db: Path, players: int) -> tuple[list[Script], int]:
    """The scripts of every game of ``players`` seats stored in ``db``, and how many games were skipped."""
    store = ResultsStore.open(db)
    try:
        logs = [store.game_log(game.id) or [] for game in store.games()]
    finally:
        store.close()
    scripts = [script for log in logs if (script := to_script(log, players)) is not None]
    return scripts, len(logs) - len(scripts)


# -- the host -------------------------------------------------------------------------


class Game:
    """One replayed game: its seats (connections, numbered from 1) and where the script stands."""

    def __init__(self, seats: list[Seat], script: Script) -> None:
        self.seats = dict(enumerate(seats, 1))
        self.script = script
        self.at = 0
        self.waiting: Seat | None = None
        for seat in seats:
            seat.game = self

    def run(self) -> None:
        """Play the script on until it needs a line a seat has not sent yet, or to its end."""
        self.waiting = None
        script, seats = self.script, self.seats
        while self.at < len(script):
            number, line = script[self.at]
            seat = seats[number]
            if line is not None:
                write_now(seat.transport, line)
            elif seat.unread:
                seat.unread -= 1
            else:
                self.waiting = seat
                return
            self.at += 1
        self.end()

    def end(self) -> None:
        """Hang up on every seat (also when one of them left early)."""
        for seat in self.seats.values():
            seat.game = None
            seat.transport.loseConnection()


class Seat(LineOnlyReceiver):
    """One bot's connection: its sign-up, then the lines it sends in its game."""

    delimiter = b"\n"
    factory: FloorFactory
    signed_up = False
    game: Game | None = None
    unread = 0  # lines the bot sent that its game has not consumed yet

    def connectionMade(self) -> None:
        self.transport.setTcpNoDelay(True)

    def lineReceived(self, line: bytes) -> None:
        if not self.signed_up:
            self.signed_up = True
            write_now(self.transport, OK)
            self.factory.join(self)
            return
        self.unread += 1
        if self.game is not None and self.game.waiting is self:
            self.game.run()

    def connectionLost(self, reason: object = None) -> None:
        self.factory.leave(self)


class FloorFactory(Factory):
    """The lobby: every ``players`` signed-up connections start a game on a script drawn at random."""

    protocol = Seat

    def __init__(self, scripts: list[Script], players: int, seed: int) -> None:
        self.scripts = scripts
        self.players = players
        self.random = random.Random(seed)
        self.lobby: list[Seat] = []

    def join(self, seat: Seat) -> None:
        self.lobby.append(seat)
        if len(self.lobby) == self.players:
            seats, self.lobby = self.lobby, []
            Game(seats, self.random.choice(self.scripts)).run()

    def leave(self, seat: Seat) -> None:
        if seat in self.lobby:
            self.lobby.remove(seat)
        elif seat.game is not None:
            seat.game.end()


class FloorProcess(HostProcess):
    """``python -m bench.floor_host`` in a child process; ``wait_until_listening`` as for the real host.

    Its output (one line, or an error) goes to ``log``.
    """

    def __init__(self, port: int, games: Path, log: Path, players: int) -> None:
        self.port, self.log = port, log
        command = [sys.executable, "-m", "bench.floor_host", "--port", str(port), "--games", str(games),
                   "--players", str(players)]
        root = Path(__file__).resolve().parent.parent
        with open(log, "w") as output:
            self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output,
                                            stderr=subprocess.STDOUT, cwd=root)


def _exit(signum: int, frame: object) -> None:
    raise SystemExit(0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.floor_host", description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True, help="port to listen on, on 127.0.0.1")
    parser.add_argument("--games", type=Path, required=True, help="the results store whose games to replay")
    parser.add_argument("--players", type=int, default=8, help="seats per game (default 8)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random choice of games (default 0)")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, _exit)  # until the reactor runs and handles it
    from twisted.internet import reactor  # here: importing this module (bench_load does) installs no reactor

    scripts, skipped = load_scripts(args.games, args.players)
    if not scripts:
        print(f"floor: no {args.players}-player game without a failure in {args.games}", file=sys.stderr)
        return 1
    print(f"floor: {len(scripts)} games loaded, {skipped} skipped", flush=True)
    reactor.listenTCP(args.port, FloorFactory(scripts, args.players, args.seed), interface="127.0.0.1")
    settle_memory()
    reactor.run()  # SIGTERM and SIGINT stop it
    return 0


if __name__ == "__main__":
    sys.exit(main())
