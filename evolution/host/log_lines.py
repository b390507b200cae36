"""The host's log, as twistd writes it, for a quarter of the CPU.

Offers ``classic_line(event)``: the line twistd's text log writes for an
event (``twisted.logger.formatEventAsClassicLogText`` with its RFC 3339 time),
the same text; ``log_observer(twistd)``: the observer twistd would make
from its options (``--logfile``, ``--nodaemon``), writing those lines, or
None where twistd's own is wanted (``--syslog``, ``--logger``, a daemon told
to log to standard output); and ``LoggedApplication``, the top service that
hands that observer to twistd's application.

Why, and what it saves: docs/performance.md, "The host's log".
"""

from __future__ import annotations

import signal
import sys
import time
from typing import Any

from twisted.application import service
from twisted.logger import FileLogObserver, ILogObserver, formatEventAsClassicLogText
from twisted.python import logfile
from twisted.python.components import Componentized

STAMP = "%Y-%m-%dT%H:%M:%S%z"  # twisted.logger.timeFormatRFC3339


class _Stamps:
    """RFC 3339 local time stamps to the second, as Twisted's ``formatTime`` makes them; one made per second."""

    def __init__(self) -> None:
        self.second: int | None = None
        self.text = ""

    def __call__(self, when: float | None) -> str:
        if when is None:
            return "-"
        second = int(when // 1)
        if second != self.second:
            self.second, self.text = second, time.strftime(STAMP, time.localtime(second))
        return self.text


_stamp = _Stamps()


def _system(event: dict[str, Any]) -> str:
    system = event.get("log_system")
    if system is not None:
        return str(system)
    level = event.get("log_level")
    return f"{event.get('log_namespace', '-')}#{'-' if level is None else level.name}"


def _twisteds(event: dict[str, Any]) -> str | None:
    return formatEventAsClassicLogText(event, formatTime=_stamp)


def classic_line(event: dict[str, Any]) -> str | None:
    """``"{time} [{system}] {text}\\n"``, continuation lines indented by a tab; None for an event with no text."""
    form = event.get("log_format")
    if type(form) is not str or "log_failure" in event or "()" in form:
        return _twisteds(event)
    try:
        text = form.format_map(event)
    except Exception:  # Twisted says what could not be formatted
        return _twisteds(event)
    if not text:
        return None
    return f"{_stamp(event.get('log_time'))} [{_system(event)}] {text.replace(chr(10), chr(10) + chr(9))}\n"


def log_observer(twistd: Any) -> Any:
    """The observer twistd would make from ``twistd``'s options, writing ``classic_line``; or None: twistd's own."""
    if twistd is None or twistd.get("syslog") or twistd.get("logger"):
        return None
    name, nodaemon = twistd.get("logfile") or "", twistd.get("nodaemon")
    if name == "-" or (nodaemon and not name):
        if not nodaemon:
            return None  # twistd refuses it, in its own words
        return FileLogObserver(sys.stdout, classic_line)
    log_file = logfile.LogFile.fromFullPath(name or "twistd.log")
    if not signal.getsignal(signal.SIGUSR1):  # as twistd: SIGUSR1 rotates the log
        signal.signal(signal.SIGUSR1, lambda *_: _rotate(log_file))
    return FileLogObserver(log_file, classic_line)


def _rotate(log_file: logfile.LogFile) -> None:
    from twisted.internet import reactor

    reactor.callFromThread(log_file.rotate)


class LoggedApplication(service.MultiService):
    """The host's top service; given to twistd's application, it gives the application its log observer."""

    def __init__(self, twistd: Any) -> None:
        super().__init__()
        self.twistd = twistd

    def setServiceParent(self, parent: Any) -> None:
        super().setServiceParent(parent)
        if isinstance(parent, Componentized) and parent.getComponent(ILogObserver) is None:
            observer = log_observer(self.twistd)
            if observer is not None:
                parent.setComponent(ILogObserver, observer)
