"""Child processes for the host's disk work, so that a hung disk never holds the host's own process.

Offers the framing both ends speak, ``send(stream, message)`` and
``messages(stream)`` (each message a 4-byte length and a pickle: both ends
are this program, on pipes of their own), ``quiet_child()`` (a child
ignores SIGINT and SIGTERM: it ends when its input ends, after finishing
its work), and ``ChildProcess``, the host's end of one child:

- ``start()`` spawns ``python -m MODULE ARGS`` with the host's standard
  error and the file descriptors ``extra_fds`` maps (child fd: host fd);
- ``send(message)`` never blocks (Twisted keeps what the pipe cannot take
  yet); ``on_message(message)`` hears every message the child sends;
- ``close()`` ends the child's input; ``ended`` fires with the exit status
  (or ``-signal``) once it has exited; ``finish(limit)`` does both, and
  fires with True once the child has exited, or with False after ``limit``
  seconds (the child goes on by itself); ``running`` and ``pid``.

Why processes and not threads: a thread blocked in the kernel on a hung
disk (a frozen filesystem, a dead network disk) cannot be interrupted, and
a process with such a thread cannot end: it stays, with its sockets open,
until the disk answers. A child in that state does not hold its parent:
the host ends on time and the child finishes its work when the disk
answers.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
from typing import Any, BinaryIO, Callable, Iterator

from twisted.internet.defer import Deferred
from twisted.internet.protocol import ProcessProtocol
from twisted.python.failure import Failure

HEADER = struct.Struct(">I")


# -- the child's end ----------------------------------------------------------------


def send(stream: BinaryIO, message: Any) -> bool:
    """Write one message; False once the host has gone (its end of the pipe is closed)."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    try:
        stream.write(HEADER.pack(len(data)) + data)
        stream.flush()
    except (BrokenPipeError, ValueError):
        return False
    return True


def _read_exactly(stream: BinaryIO, count: int) -> bytes | None:
    data = stream.read(count)
    return data if data is not None and len(data) == count else None


def messages(stream: BinaryIO) -> Iterator[Any]:
    """The messages on ``stream``, in order, until it ends (a message cut short ends it too)."""
    while (head := _read_exactly(stream, HEADER.size)) is not None:
        body = _read_exactly(stream, HEADER.unpack(head)[0])
        if body is None:
            return
        yield pickle.loads(body)


def quiet_child() -> None:
    """Ctrl-C and SIGTERM reach a whole process group: the host stops, its children finish and end after it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


# -- the host's end -----------------------------------------------------------------


class ChildProcess(ProcessProtocol):
    """One child process, spoken to in messages from the reactor."""

    def __init__(
        self,
        reactor: Any,
        module: str,
        args: list[str],
        on_message: Callable[[Any], None],
        extra_fds: dict[int, int] | None = None,
    ) -> None:
        self.reactor = reactor
        self.module = module
        self.args = args
        self.on_message = on_message
        self.extra_fds = extra_fds or {}
        self.ended: Deferred[int] = Deferred()
        self.running = False
        self.pid: int | None = None
        self._buffer = bytearray()

    def start(self) -> None:
        for fd in self.extra_fds.values():
            os.set_inheritable(fd, True)
        fds: dict[int, Any] = {0: "w", 1: "r", 2: 2, **self.extra_fds}
        argv = [sys.executable, "-m", self.module, *self.args]
        self.reactor.spawnProcess(self, sys.executable, argv, env=dict(os.environ), childFDs=fds)
        self.running = True

    def connectionMade(self) -> None:
        self.pid = self.transport.pid

    def send(self, message: Any) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        self.transport.write(HEADER.pack(len(data)) + data)

    def close(self) -> None:
        """End the child's input: it finishes what it was sent and exits."""
        if self.running:
            self.transport.closeStdin()

    def finish(self, limit: float) -> Deferred[bool]:
        """End the child's input; fires True once it has exited, False if it has not within ``limit`` seconds."""
        finished: Deferred[bool] = Deferred()
        timer = self.reactor.callLater(limit, finished.callback, False)

        def ended(result: Any) -> Any:
            if timer.active():
                timer.cancel()
                finished.callback(True)
            return result

        self.ended.addBoth(ended)
        self.close()
        return finished

    def childDataReceived(self, fd: int, data: bytes) -> None:
        buffer = self._buffer
        buffer += data
        start = 0
        while len(buffer) - start >= HEADER.size:
            (size,) = HEADER.unpack_from(buffer, start)
            end = start + HEADER.size + size
            if len(buffer) < end:
                break
            message = pickle.loads(bytes(buffer[start + HEADER.size:end]))
            start = end
            self.on_message(message)
        del buffer[:start]

    def processEnded(self, reason: Failure) -> None:
        self.running = False
        status = reason.value.exitCode
        if status is None:
            status = -(reason.value.signal or 0)
        self.ended.callback(status)
