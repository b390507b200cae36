"""The floor: a bare Twisted host that replays recorded games, to price Twisted alone.

``python -m bench.floor_host --port P --games DB [--players 8] [--seed 0] [--workers N]``
listens on 127.0.0.1:P and serves the load benchmark's bots (``bench/swarm.py``)
the games a real host stored in the results store DB. ``python -m bench load
--floor`` runs it after each real host's run (``bench_load.run_floor``), with
as many workers as that host had.

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
garbage-collector settings (``evolution.host.runner.memory.settle_memory``). A
bot's first line is its sign-up, answered ``"ok"``; the lobby groups P
signed-up connections into a game, which replays the message log
(``evolution.net.game_log``) of a stored game chosen at random (seeded):
each "out" entry is written to its seat, each "in" entry waits for the next
line from that seat, and at the end the host closes the P connections. The
bots are deterministic silly players, so given the recorded questions they
send exactly the recorded replies.

With ``--workers N`` (N > 0), the floor of the host's worker processes: the
process that signs the bots up hands each game's sockets to one of N worker
processes (round robin), as the host does: every socket of the game taken
from its reactor and sent with the game's script number in one ``sendmsg``
(``SCM_RIGHTS``) on a Unix socket; the worker adopts them
(``adoptStreamConnection``), replays the script, hangs up and sends the
game's log back (the script's lines, as many bytes as the host's log),
which the signing-up process reads and drops. So its signing-up process's
CPU per game is the least that signing players up and handing their games
over cost with Twisted: the host's signing-up process, which does that and
more, cannot spend less a game. (Its share can be smaller than the floor's,
as the host's workers do far more than replay.)

What it does not do: parse or check a reply, run the rules, keep a log,
store a result, time a call, write a log line. Every script is loaded and
encoded before the reactor starts; games in which a seat failed (a "fail"
entry) are skipped, as a bot would not fail the same way. SIGTERM stops the
reactor (or the loading) and the process exits with status 0.
"""

from __future__ import annotations

import argparse
import array
import os
import random
import signal
import socket
import struct
import subprocess
import sys
from pathlib import Path
from typing import Callable

from twisted.internet.interfaces import IFileDescriptorReceiver
from twisted.internet.protocol import Factory
from twisted.protocols.basic import Int32StringReceiver, LineOnlyReceiver

from zope.interface import implementer

from evolution.processes.descriptor_socket import adopt_channel
from evolution.host.runner.memory import settle_memory
from evolution.testing import HostProcess
from evolution.store.results_store import ResultsStore
from evolution.net.json_protocol import write_now
from evolution.jsonwire.framing import encode_message

OK = encode_message("ok")
NUMBER = struct.Struct(">I")  # a game's script, handed to a worker

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

    def __init__(self, seats: list[Seat], script: Script, on_end: Callable[[Script], None] | None = None) -> None:
        self.seats = dict(enumerate(seats, 1))
        self.script = script
        self.on_end = on_end
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
        """Hang up on every seat (also when one of them left early); with ``on_end``, then report the game."""
        for seat in self.seats.values():
            seat.game = None
            seat.transport.loseConnection()
        if self.on_end is not None:
            self.on_end(self.script)


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

    def __init__(self, scripts: list[Script], players: int, seed: int, workers: list[WorkerLink] = ()) -> None:
        self.scripts = scripts
        self.players = players
        self.random = random.Random(seed)
        self.lobby: list[Seat] = []
        self.workers = list(workers)
        self.handed = 0

    def join(self, seat: Seat) -> None:
        self.lobby.append(seat)
        if len(self.lobby) == self.players:
            seats, self.lobby = self.lobby, []
            number = self.random.randrange(len(self.scripts))
            if self.workers:
                self.handed += 1
                self.workers[self.handed % len(self.workers)].hand(number, seats)
            else:
                Game(seats, self.scripts[number]).run()

    def leave(self, seat: Seat) -> None:
        if seat in self.lobby:
            self.lobby.remove(seat)
        elif seat.game is not None:
            seat.game.end()


# -- the floor's workers --------------------------------------------------------------


def _take(seat: Seat) -> int:
    """The seat's socket, out of this reactor and open (the peer notices nothing)."""
    transport = seat.transport
    transport.reactor.removeReader(transport)
    transport.reactor.removeWriter(transport)
    transport.connected = False
    return transport.socket.detach()


class WorkerLink(Int32StringReceiver):
    """The signing-up process's end of a worker's channel: games out (sockets and a number), logs back."""

    MAX_LENGTH = 1 << 26

    def hand(self, number: int, seats: list[Seat]) -> None:
        descriptors = [_take(seat) for seat in seats]
        try:  # one call, at once (no Twisted buffer): the kernel holds copies of the descriptors, closed here
            self.transport.socket.sendmsg([NUMBER.pack(NUMBER.size) + NUMBER.pack(number)], [
                (socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", descriptors))])
        finally:
            for fd in descriptors:
                os.close(fd)

    def stringReceived(self, log: bytes) -> None:
        pass  # a game's log: the host would store it


class AdoptedSeat(Seat):
    signed_up = True


@implementer(IFileDescriptorReceiver)
class WorkerEnd(Int32StringReceiver):
    """A worker's end of its channel: adopts each game's sockets, replays its script, sends its log back."""

    def __init__(self, factory: FloorFactory, reactor: object) -> None:
        self.floor = factory
        self.reactor = reactor
        self.received: list[int] = []

    def fileDescriptorReceived(self, fd: int) -> None:
        self.received.append(fd)

    def stringReceived(self, data: bytes) -> None:
        (number,), players = NUMBER.unpack(data), self.floor.players
        descriptors, self.received = self.received[:players], self.received[players:]
        seats = []
        for fd in descriptors:
            try:
                seats.append(self.reactor.adoptStreamConnection(fd, socket.AF_INET, self.floor).protocol)
            finally:
                os.close(fd)
        Game(seats, self.floor.scripts[number], self.report).run()

    def report(self, script: Script) -> None:
        self.sendString(b"".join(line for _, line in script if line is not None))

    def connectionLost(self, reason: object = None) -> None:
        if self.reactor.running:  # the first process is gone
            self.reactor.stop()


def start_workers(count: int, argv: list[str], reactor: object) -> tuple[list[WorkerLink], list[subprocess.Popen]]:
    """``count`` worker processes (this module with ``--worker-fd``), each on a channel of its own."""
    links, children = [], []
    for _ in range(count):
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        command = [sys.executable, "-m", "bench.floor_host", *argv, "--worker-fd", str(theirs.fileno())]
        children.append(subprocess.Popen(command, stdin=subprocess.DEVNULL, pass_fds=[theirs.fileno()],
                                         cwd=Path(__file__).resolve().parent.parent))
        theirs.close()
        mine.setblocking(False)
        link = WorkerLink()
        adopt_channel(reactor, mine.fileno(), link)
        mine.close()
        links.append(link)
    return links, children


class FloorProcess(HostProcess):
    """``python -m bench.floor_host`` in a child process; ``wait_until_listening`` as for the real host.

    Its output (one line, or an error) goes to ``log``.
    """

    def __init__(self, port: int, games: Path, log: Path, players: int, workers: int = 0) -> None:
        self.port, self.log, self.address = port, log, "127.0.0.1"
        command = [sys.executable, "-m", "bench.floor_host", "--port", str(port), "--games", str(games),
                   "--players", str(players), "--workers", str(workers)]
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
    parser.add_argument("--workers", type=int, default=0, help="worker processes that play the games (default 0: "
                        "this process plays them)")
    parser.add_argument("--worker-fd", type=int, help=argparse.SUPPRESS)  # a worker's channel to the first process
    args = parser.parse_args(argv)
    if args.workers < 0:
        parser.error(f"--workers: {args.workers} is below 0 (0: this process plays the games)")
    signal.signal(signal.SIGTERM, _exit)  # until the reactor runs and handles it
    from twisted.internet import reactor  # here: importing this module (bench_load does) installs no reactor

    workers, children = [], []
    if args.workers and args.worker_fd is None:  # started first: they load the scripts meanwhile
        shared = ["--games", str(args.games.resolve()), "--players", str(args.players), "--port", "0"]
        workers, children = start_workers(args.workers, shared, reactor)
    scripts, skipped = load_scripts(args.games, args.players)
    if not scripts:
        print(f"floor: no {args.players}-player game without a failure in {args.games}", file=sys.stderr)
        return 1
    factory = FloorFactory(scripts, args.players, args.seed, workers)
    if args.worker_fd is not None:
        factory.protocol = AdoptedSeat
        adopt_channel(reactor, args.worker_fd, WorkerEnd(factory, reactor))
        os.close(args.worker_fd)
    else:
        print(f"floor: {len(scripts)} games loaded, {skipped} skipped; {len(workers)} workers", flush=True)
        reactor.listenTCP(args.port, factory, interface="127.0.0.1")
    settle_memory()
    try:
        reactor.run()  # SIGTERM and SIGINT stop it
    finally:
        for child in children:
            child.terminate()
            child.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
