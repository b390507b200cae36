# -*- test-case-name: tests.processes.test_stopping -*-
"""One stop, however many signals ask for it: the host's and its Twisted children's SIGINT and SIGTERM.

Offers ``stop_once(reactor)`` (stops the reactor, or does nothing where it
is stopping already: never ``ReactorNotRunning``), ``heed_stop_signals(
reactor)`` (from the second SIGINT or SIGTERM on, a line in the log and no
second stop: Ctrl-C reaches a whole process group, and a service manager
sends SIGTERM to every process of the host, which then stops its children
too) and ``heed_only_the_host(reactor=None, sigterm=True)`` (a child of the
host ignores the signals that reach the host's whole process group: the
host stops it, after its work is reported).
"""

from __future__ import annotations

import signal
from typing import Any

from twisted.internet.error import ReactorNotRunning
from twisted.logger import Logger

log = Logger()
STOP_SIGNALS = {signal.SIGINT: "SIGINT (Ctrl-C)", signal.SIGTERM: "SIGTERM"}


def stop_once(reactor: Any) -> None:
    """Stop ``reactor``; where a signal has begun its stop already, nothing."""
    try:
        reactor.stop()
    except ReactorNotRunning:
        pass


def heed_stop_signals(reactor: Any) -> None:
    """Once the reactor runs (its own handlers are in place): the first SIGINT or SIGTERM stops it as Twisted
    does (twistd ends with that signal's status), any later one is a line in the log."""

    def install() -> None:
        asked: list[int] = []
        for number in STOP_SIGNALS:
            first = signal.getsignal(number)
            if callable(first) and not getattr(first, "heeded", False):  # not ignored, not ours already
                signal.signal(number, _once(first, asked, reactor))

    reactor.callWhenRunning(install)


def _once(first: Any, asked: list[int], reactor: Any) -> Any:
    def handler(number: int, frame: Any) -> None:
        if asked:
            reactor.callFromThread(log.info, "{signal} again: stopping already, since {first}",
                                   signal=STOP_SIGNALS[number], first=STOP_SIGNALS[asked[0]])
            return
        asked.append(number)
        first(number, frame)

    handler.heeded = True  # type: ignore[attr-defined]
    return handler


def heed_only_the_host(reactor: Any = None, sigterm: bool = True) -> None:
    """A child of the host: the signals that reach the host's whole process group are the host's to act on.

    Ctrl-C's SIGINT is ignored, and so is SIGTERM (a service manager sends it to every process of the host),
    unless ``sigterm`` is False: a child the host itself stops with SIGTERM (the web view's process). The host
    stops the others in its own time, once their games and writes are reported. ``reactor``: the one the child
    runs, whose ``run()`` puts Twisted's own SIGTERM handler in (its SIGINT handler only where SIGINT is not
    ignored): SIGTERM is ignored again once it runs.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sigterm:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        if reactor is not None:
            reactor.callWhenRunning(signal.signal, signal.SIGTERM, signal.SIG_IGN)
