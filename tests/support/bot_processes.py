"""Example bots as processes, for their tests: against a scripted host, or as children of the reactor.

- ``ScriptedHost(command)``: a listening socket on 127.0.0.1 and the bot, started
  as ``command + [host, port]`` plus any further arguments, connected to it: the
  test writes what a host would (``send``) and reads the bot's messages, one JSON
  value per line (``read``); ``finish()`` hangs up and gives the bot's exit status
  and standard error; ``kill()`` if the test ended first.
- ``BotProcess``: a bot run by the reactor (``reactor.spawnProcess``); ``ended``
  fires with its exit status, ``err`` holds its standard error.
"""

from __future__ import annotations

import json
import socket
import subprocess
from typing import Any, Sequence

from twisted.internet import protocol
from twisted.internet.defer import Deferred


class ScriptedHost:
    """A listening socket on 127.0.0.1 and the bot as a process connected to it."""

    def __init__(self, command: Sequence[str], *arguments: str, timeout: float = 30) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(timeout)
        port = self.server.getsockname()[1]
        self.process = subprocess.Popen(
            [*command, "127.0.0.1", str(port), *arguments],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        self.connection, _ = self.server.accept()
        self.connection.settimeout(timeout)
        self.timeout = timeout
        self.buffer = b""

    def send(self, *parts: bytes) -> None:
        for part in parts:
            self.connection.sendall(part)

    def read(self) -> Any:
        """The bot's next message: it writes one JSON value per line."""
        while b"\n" not in self.buffer:
            data = self.connection.recv(65536)
            assert data, "the bot closed the connection"
            self.buffer += data
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def finish(self) -> tuple[int, str]:
        self.connection.close()
        self.server.close()
        _, err = self.process.communicate(timeout=self.timeout)
        return self.process.returncode, err

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.communicate()


class BotProcess(protocol.ProcessProtocol):
    """A bot as a child process of the reactor; ``ended`` fires with its exit status."""

    def __init__(self, name: str = "") -> None:
        self.name = name
        self.ended: Deferred[int] = Deferred()
        self.err = b""

    def errReceived(self, data: bytes) -> None:
        self.err += data

    def processEnded(self, reason: Any) -> None:
        self.ended.callback(reason.value.exitCode)

    @property
    def said(self) -> str:
        """What it wrote on standard error."""
        return self.err.decode(errors="replace")
