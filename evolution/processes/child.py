# -*- test-case-name: tests.host.workers.test_pool, tests.store.test_faults, tests.web.test_web_process -*-
"""The host's child processes: the store and read processes (its disk work), the workers, the web view.

Offers ``ChildProcess(reactor, name, module, args, on_message=, channel=,
descriptors=)``, the host's end of one child (every child of the host is
one): ``start()`` spawns ``python -m MODULE ARGS`` and returns its process
transport; ``send(message)`` (to a child with ``on_message``); ``close()``
ends its input; ``ended`` fires with the exit status (or ``-signal``) once it
has exited (and its messages are read), ``reason`` (Twisted's) and ``how``
(``status N``, ``signal N``) say how; ``kill()``; ``finish(limit,
kill=False)`` fires with True once it has exited, or with False after
``limit`` seconds (then killed, with ``kill``); ``running``, ``pid``. And the
child's end of its pipes: ``send(stream, message)``, ``messages(stream)``
(the signals a child ignores: ``stopping.heed_only_the_host``).

How a child talks to the host, and why processes and not threads for the
disk work: docs/architecture.md, "The host and its workers".
"""

from __future__ import annotations

import os
import pickle
import socket
import struct
import sys
from typing import Any, BinaryIO, Callable, Iterator

from twisted.internet.defer import Deferred
from twisted.internet.error import ProcessExitedAlready
from twisted.internet.protocol import ProcessProtocol
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.processes.descriptor_socket import adopt_channel

log = Logger()

HEADER = struct.Struct(">I")
CHANNEL_FD = 3  # a channel's descriptor in its child process
LONGEST_LINE = 4096  # of a child's output, in the host's log


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


# -- the host's end -----------------------------------------------------------------


class ChildProcess(ProcessProtocol):
    """One child process of the host (``python -m MODULE ARGS``), from the reactor."""

    def __init__(
        self,
        reactor: Any,
        name: str,
        module: str,
        args: list[str],
        on_message: Callable[[Any], None] | None = None,
        channel: Any = None,
        descriptors: dict[int, int] | None = None,
    ) -> None:
        self.reactor = reactor
        self.name = name
        self.module = module
        self.args = args
        self.on_message = on_message
        self.channel = channel
        self.descriptors = descriptors or {}
        self.ended: Deferred[int] = Deferred()
        self.reason: Failure | None = None  # how it ended, once it has
        self.status: int | None = None
        self.running = False
        self.pid: int | None = None
        self._buffer = bytearray()
        self._partial = {1: b"", 2: b""}
        self._messages_read = on_message is None

    def start(self) -> Any:
        """Spawn the child; returns its process transport."""
        fds: dict[int, Any] = {0: "w", 1: "r", 2: "r", **self.descriptors}
        argv = [sys.executable, "-m", self.module, *self.args]
        if self.channel is None:
            self.reactor.spawnProcess(self, sys.executable, argv, env=os.environ.copy(), childFDs=fds)
        else:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                ours.setblocking(False)
                adopt_channel(self.reactor, ours.fileno(), self.channel)
                fds[CHANNEL_FD] = theirs.fileno()
                self.reactor.spawnProcess(self, sys.executable, argv, env=os.environ.copy(), childFDs=fds)
            finally:
                ours.close()
                theirs.close()
        self.running = True
        return self.transport

    def connectionMade(self) -> None:
        self.pid = self.transport.pid

    def send(self, message: Any) -> None:
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        self.transport.write(HEADER.pack(len(data)) + data)

    def close(self) -> None:
        """End the child's input: a child that reads it finishes what it was sent and exits."""
        if self.running:
            self.transport.closeStdin()

    def kill(self) -> None:
        """SIGKILL, unless it has ended."""
        if self.running:
            try:
                self.transport.signalProcess("KILL")
            except (ProcessExitedAlready, OSError):
                pass

    def finish(self, limit: float, kill: bool = False) -> Deferred[bool]:
        """End the child's input; fires True once it has exited, False if it has not within ``limit`` seconds.

        Then it is killed if ``kill`` (and this fires once it has ended), else it goes on by itself.
        """
        finished: Deferred[bool] = Deferred()

        def late() -> None:
            if not kill:
                finished.callback(False)
                return
            self.kill()
            self.ended.addBoth(lambda result: (finished.callback(False), result)[1])

        timer = self.reactor.callLater(limit, late)

        def ended(result: Any) -> Any:
            if timer.active():
                timer.cancel()
                finished.callback(True)
            return result

        self.ended.addBoth(ended)
        self.close()
        return finished

    @property
    def how(self) -> str:
        """How it ended: ``status N`` or ``signal N``."""
        status = self.status
        return f"signal {-status}" if status is not None and status < 0 else f"status {status}"

    def childDataReceived(self, fd: int, data: bytes) -> None:
        if fd == 1 and self.on_message is not None:
            self._messages(data)
            return
        lines = (self._partial.get(fd, b"") + data).split(b"\n")
        self._partial[fd] = lines.pop()[-LONGEST_LINE:]
        for line in lines:
            log.warn("{name}: {line}", name=self.name, line=line[:LONGEST_LINE].decode("utf-8", "replace"))

    def _messages(self, data: bytes) -> None:
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

    def childConnectionLost(self, fd: int) -> None:
        if fd == 1 and not self._messages_read:
            self._messages_read = True
            self._end()

    def processExited(self, reason: Failure) -> None:
        """It has exited; it has ended once its messages are read too. (Not ``processEnded``, which waits for
        every pipe: a child of its own that holds one, hung on a disk, would hold it as long as it hangs.)"""
        self.reason = reason
        self._end()

    def _end(self) -> None:
        if self.reason is None or not self._messages_read or self.ended.called:
            return
        self.running = False
        status = self.reason.value.exitCode
        self.status = status if status is not None else -(self.reason.value.signal or 0)
        self.ended.callback(self.status)
