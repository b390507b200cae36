"""The worker channel: CPU to hand a game's 8 connections to a worker, Twisted's Unix transport against the host's.

Both ends of a channel in this process, over a Unix socket pair, as the host
and a worker speak (``evolution.host.workers.commands.Play``: the game as
JSON, the 8 sockets as descriptors; the worker's end closes the copies it
gets and answers); the host's end closes its own once answered. Twisted's
transport (``IReactorSocket.adoptStreamConnection``) sends each descriptor
with a byte and a system call of its own, and the worker reads them one
read at a time; the host's (``evolution.processes.descriptor_socket``) sends a
command's descriptors in one call. Median of alternating rounds of 500
commands; also the worker end's reads per command.
"""

from __future__ import annotations

import os
import socket
import statistics
import time
from typing import Any, Callable

from twisted.internet.defer import ensureDeferred
from twisted.protocols import amp

from evolution.host.workers.commands import Play
from evolution.processes.descriptor_socket import GivenProtocol, adopt_channel, joined

COMMANDS = 500
ROUNDS = 9
SEATS = 8


GAME = {"id": 1, "seed": 7, "whole": True, "tournament": None,
        "seats": [{"name": f"L{seat}.12", "family": socket.AF_INET, "unread": "", "unsent": ""}
                  for seat in range(SEATS)]}


class WorkerEnd(amp.AMP):
    """Takes each game's descriptors and closes them; counts its transport's reads."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def dataReceived(self, data: bytes) -> None:
        self.reads += 1  # one a read of its transport
        super().dataReceived(data)

    @Play.responder
    def play(self, game: dict, descriptors: list[int]) -> dict:
        for fd in descriptors:
            os.close(fd)
        return {}


def _twisteds(reactor: Any, fd: int, protocol: Any) -> Any:
    """Twisted's own Unix transport, as ``adopt_channel`` is called."""
    return reactor.adoptStreamConnection(fd, socket.AF_UNIX, GivenProtocol(protocol))


def _channel(reactor: Any, adopt: Callable) -> tuple[amp.AMP, WorkerEnd]:
    host, worker = amp.AMP(), WorkerEnd()
    joined(reactor, host, worker, adopt)
    return host, worker


async def _round(host: amp.AMP, worker: WorkerEnd, player: socket.socket) -> tuple[float, float]:
    """CPU microseconds per command (both ends), and the worker end's reads per command."""
    reads = worker.reads
    started = time.process_time()
    for _ in range(COMMANDS):
        descriptors = [os.dup(player.fileno()) for _ in range(SEATS)]  # as the host's handover takes them
        await host.callRemote(Play, game=GAME, descriptors=descriptors)
        for fd in descriptors:
            os.close(fd)
    return (time.process_time() - started) * 1e6 / COMMANDS, (worker.reads - reads) / COMMANDS


async def _compare(reactor: Any) -> None:
    player = socket.socket()
    ends = {"Twisted's": _channel(reactor, _twisteds), "the host's": _channel(reactor, adopt_channel)}
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in ends}
    for _ in range(ROUNDS):
        for name, (host, worker) in ends.items():
            figures[name].append(await _round(host, worker, player))
    player.close()
    cpu = {name: statistics.median(us for us, _ in rounds) for name, rounds in figures.items()}
    reads = {name: statistics.median(count for _, count in rounds) for name, rounds in figures.items()}
    twisted, ours = "Twisted's", "the host's"
    print(f"a game of {SEATS} handed to a worker (Play, both ends' CPU): {twisted} Unix transport "
          f"{cpu[twisted]:.0f} us and {reads[twisted]:.0f} reads at the worker; {ours} {cpu[ours]:.0f} us and "
          f"{reads[ours]:.0f} read ({cpu[twisted] / cpu[ours]:.1f}x less CPU)")


def main() -> None:
    from twisted.internet import reactor

    done = ensureDeferred(_compare(reactor))
    done.addErrback(lambda failure: print(failure.getTraceback()))
    done.addBoth(lambda _: reactor.stop())
    reactor.run()
