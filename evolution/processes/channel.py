# -*- test-case-name: tests.processes.test_descriptor_socket, tests.host.workers.test_pool -*-
"""The host's local channels to its own processes (workers, the web view): AMP over a Unix socket pair.

Offers the argument types the channels' commands share, and the ends of a channel:

- ``Blob`` (bytes of any length: AMP caps one value at 64 KiB, so a blob
  spreads over as many keys as it needs), ``JSONValue`` (any JSON value, as a
  blob) and ``Descriptors`` (a list of open file descriptors, each sent with
  ``SCM_RIGHTS``: the receiver gets its own copies, in order);
- ``Logged``: a child's log events, which the host writes to its own log
  as they were, with their fields (``forward_log`` in the child,
  ``ChildChannel``, the base of the host's end of a channel);
- ``QuietAMP``: AMP without its log line as each channel opens and closes
  (the base of every end);
- ``child_channel(reactor, protocol)``: the child's end, from descriptor 3
  (the host's end: ``evolution.processes.child.ChildProcess``, ``channel=``).

Why AMP: docs/architecture.md, "The host and its workers".
"""

from __future__ import annotations

import json
import os
from string import Formatter
from typing import Any

from twisted.logger import ILogObserver, Logger, LogLevel, globalLogPublisher
from twisted.protocols import amp
from zope.interface import implementer

from evolution.processes.child import CHANNEL_FD
from evolution.processes.descriptor_socket import adopt_channel

CHUNK = 0xFFFF  # AMP's longest value
LOG_BATCH = 0.05  # seconds a child gathers log events before sending them
LOG_EVENTS_PER_BATCH = 50  # at most 1,000 a second: more are counted, not sent


class Blob(amp.Argument):
    """Bytes of any length, spread over as many AMP values as needed (``name``, ``name.0``, ``name.1``...)."""

    def toBox(self, name: bytes, strings: Any, objects: dict, proto: Any) -> None:
        data = self.encode(objects.pop(name.decode("ascii")))
        chunks = [data[start:start + CHUNK] for start in range(0, len(data), CHUNK)]
        strings[name] = b"%d" % len(chunks)
        for index, chunk in enumerate(chunks):
            strings[b"%s.%d" % (name, index)] = chunk

    def fromBox(self, name: bytes, strings: Any, objects: dict, proto: Any) -> None:
        count = int(strings.pop(name))
        data = b"".join(strings.pop(b"%s.%d" % (name, index)) for index in range(count))
        objects[name.decode("ascii")] = self.decode(data)

    def encode(self, value: Any) -> bytes:
        return value

    def decode(self, data: bytes) -> Any:
        return data


class JSONValue(Blob):
    """Any JSON value."""

    def encode(self, value: Any) -> bytes:
        return json.dumps(value, separators=(",", ":")).encode("utf-8")

    def decode(self, data: bytes) -> Any:
        return json.loads(data)


class Descriptors(amp.Argument):
    """Open file descriptors, sent with ``SCM_RIGHTS`` over the channel's Unix socket.

    The sender's descriptors must stay open until the answer to the command
    comes (the transport sends them when it next writes); the receiver owns
    the copies it gets.
    """

    def toStringProto(self, descriptors: list[int], proto: Any) -> bytes:
        return b",".join(b"%d" % proto._sendFileDescriptor(fd) for fd in descriptors)

    def fromStringProto(self, text: bytes, proto: Any) -> list[int]:
        return [proto._getDescriptor(int(ordinal)) for ordinal in text.split(b",") if ordinal]


class Logged(amp.Command):
    """A child's log events, each ``{"log_format", "log_level", "log_namespace", and its plain fields}``."""

    arguments = [(b"events", JSONValue())]
    requiresAnswer = False


# -- logs -----------------------------------------------------------------------------

_PLAIN = (str, int, float, bool, type(None))
_LEGACY = {"format", "message", "system", "isError", "time"}  # twisted.python.log's keys: the host's log adds its own


def _fields(text: str) -> set[str]:
    """The names of the fields a log format refers to (``{name}``, ``{name!r}``, ``{name.attribute}``)."""
    try:
        parsed = list(Formatter().parse(text))
    except ValueError:
        return set()
    return {field.split(".")[0].split("[")[0] for _, field, _, _ in parsed if field}


def plain_event(event: dict, source: str) -> dict[str, Any]:
    """A log event as JSON: its format, level, namespace and the fields its format names (as text where they
    are not JSON values)."""
    text = event.get("log_format") or ""
    data = {key: value for key, value in event.items() if not key.startswith("log_") and isinstance(value, _PLAIN)
            and key not in _LEGACY}
    for name in _fields(text) - set(data):
        data[name] = str(event.get(name))
    failure = event.get("log_failure")
    if failure is not None:
        data["traceback"] = failure.getTraceback()
        text = (text or "an error") + "\n{traceback}"
    elif not text and event.get("log_text"):
        data["text"], text = event["log_text"], "{text}"
    data.update(log_format=text, log_level=event.get("log_level", LogLevel.info).name,
                log_namespace=event.get("log_namespace", "?"), log_source_process=source)
    return data


@implementer(ILogObserver)
class LogForwarder:
    """In a child: gathers its log events and sends them, a batch at a time, over the channel."""

    def __init__(self, clock: Any, source: str) -> None:
        self.clock = clock
        self.source = source
        self.channel: amp.AMP | None = None
        self.events: list[dict[str, Any]] = []
        self.dropped = 0
        self._sending: Any = None

    def __call__(self, event: dict) -> None:
        if len(self.events) >= LOG_EVENTS_PER_BATCH:  # a flood of lines: the host hears how many were left out
            self.dropped += 1
            return
        self.events.append(plain_event(event, self.source))
        if self._sending is None:
            self._sending = self.clock.callLater(LOG_BATCH, self.flush)

    def flush(self) -> None:
        """Send what has gathered now (before a report that the host should log after it)."""
        if self._sending is not None and self._sending.active():
            self._sending.cancel()
        self._sending = None
        if self.dropped:
            self.events.append(plain_event({"log_format": "{count} log events of {source} left out (too many)",
                                            "count": self.dropped, "source": self.source,
                                            "log_level": LogLevel.warn}, self.source))
            self.dropped = 0
        if self.channel is not None and self.events and self.channel.transport is not None:
            events, self.events = self.events, []
            self.channel.callRemote(Logged, events=events)


def forward_log(clock: Any, source: str) -> LogForwarder:
    """A child's log goes to the host from now on (once ``forwarder.channel`` is set)."""
    forwarder = LogForwarder(clock, source)
    globalLogPublisher.addObserver(forwarder)
    return forwarder


class QuietAMP(amp.AMP):
    """AMP without its two log lines a connection (a process's channel is logged as its process starts and ends)."""

    def makeConnection(self, transport: Any) -> None:
        amp.BinaryBoxProtocol.makeConnection(self, transport)

    def connectionLost(self, reason: Any) -> None:
        amp.BinaryBoxProtocol.connectionLost(self, reason)
        self.transport = None


class ChildChannel(QuietAMP):
    """The host's end of a child's channel: the child's log events go into the host's log as they were."""

    @Logged.responder
    def logged(self, events: list[dict[str, Any]]) -> dict:
        for event in events:
            level = LogLevel.lookupByName(event.pop("log_level"))
            Logger(namespace=event.pop("log_namespace")).emit(level, event.pop("log_format"), **event)
        return {}


# -- processes ------------------------------------------------------------------------


def child_channel(reactor: Any, channel: amp.AMP) -> None:
    """In a child: connect ``channel`` to the host over descriptor 3."""
    os.set_blocking(CHANNEL_FD, False)
    adopt_channel(reactor, CHANNEL_FD, channel)
    os.close(CHANNEL_FD)
