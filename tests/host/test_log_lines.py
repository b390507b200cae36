"""The host's log lines are twistd's, character for character, only made more cheaply (``evolution.host.log_lines``).

An organiser's tools read the log as twistd writes it: the same time stamp
(local time, to the second, with its offset), the same ``[namespace#level]``,
the same text, continuation lines indented by a tab, a failure's traceback
after it. The host gives twistd's application an observer of its own, made
from twistd's options as twistd would make it.
"""

from __future__ import annotations

import io
import os
import signal
import sys
import time
from collections.abc import Iterator

import pytest
from twisted.application import service
from twisted.logger import (
    FileLogObserver,
    ILogObserver,
    LogLevel,
    formatEventAsClassicLogText,
    formatTime,
    timeFormatRFC3339,
)
from twisted.python import logfile
from twisted.python.failure import Failure

from evolution.host.log_lines import LoggedApplication, classic_line, log_observer


def twisteds(event: dict) -> str | None:
    """The line twistd's own text log writes for ``event``."""
    return formatEventAsClassicLogText(event, formatTime=lambda when: formatTime(when, timeFormatRFC3339))


@pytest.fixture(params=["UTC", "America/New_York", "Asia/Kolkata"])
def zone(request) -> Iterator[str]:
    before = os.environ.get("TZ")
    os.environ["TZ"] = request.param
    time.tzset()
    yield request.param
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


class Named:
    name = "bot 1"


def failure() -> Failure:
    try:
        1 / 0
    except ZeroDivisionError:
        return Failure()


BASE = {"log_namespace": "evolution.net.signup", "log_level": LogLevel.info}
EVENTS = [
    {**BASE, "log_format": "signed up {name}{sent} from {peer} ({count} waiting)", "name": "'a'", "sent": "",
     "peer": "127.0.0.1:4000", "count": 7},
    {**BASE, "log_format": "game {game} begins: {players!r} {score:>5} {who.name} {seat[1]}", "game": 3,
     "players": ["a", "b"], "score": 12, "who": Named(), "seat": {1: "first"}},
    {**BASE, "log_format": "two lines:\n{rest}", "rest": "second\nthird"},
    {**BASE, "log_format": "worker line", "log_system": "worker 1"},
    {"log_format": "no namespace, no level"},
    {**BASE, "log_format": "a call: {now()}", "now": lambda: "called"},
    {**BASE, "log_format": "a field that is not there: {missing}"},
    {**BASE, "log_format": "an unclosed {brace"},
    {**BASE, "log_format": "with its traceback", "log_failure": failure()},
    {**BASE, "log_format": None},
    {**BASE, "log_format": ""},
    {**BASE},
    {**BASE, "log_format": "braces {{kept}} {0}"},
]


@pytest.mark.parametrize("event", EVENTS, ids=range(len(EVENTS)))
def test_a_line_is_twisteds_line(event, zone):
    # Either side of New York's change to summer time, and an offset of half an hour.
    for when in (None, 1710054000.0 - 3600.5, 1710054000.0, 1710054000.999, time.time()):
        stamped = {**event, "log_time": when} if when is not None else dict(event)
        assert classic_line(stamped) == twisteds(stamped), (zone, when)


def test_the_stamp_follows_the_seconds_as_they_pass(zone):
    event = dict(EVENTS[0])
    for when in (1000.0, 1000.5, 1001.0, 999.0, 86400 * 365.25 * 30):
        event["log_time"] = when
        assert classic_line(event) == twisteds(event)


def test_a_daemon_logs_to_twistd_log_or_its_logfile_and_rotates_on_sigusr1(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    before = signal.signal(signal.SIGUSR1, signal.SIG_DFL)
    try:
        observer = log_observer({"logfile": "", "nodaemon": False})
        assert callable(signal.getsignal(signal.SIGUSR1))  # as twistd: SIGUSR1 rotates the log
        named = log_observer({"logfile": str(tmp_path / "host.log"), "nodaemon": True})
    finally:
        signal.signal(signal.SIGUSR1, before)
    assert isinstance(observer, FileLogObserver)
    observer({**EVENTS[0], "log_time": 1000.0})
    assert (tmp_path / "twistd.log").read_text() == twisteds({**EVENTS[0], "log_time": 1000.0})
    named({**EVENTS[3], "log_time": 1000.0})
    assert (tmp_path / "host.log").read_text().endswith("[worker 1] worker line\n")
    assert isinstance(named._outFile, logfile.LogFile)


def test_in_the_foreground_the_log_goes_to_standard_output(monkeypatch):
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stdout", shown)
    for options in ({"logfile": "-", "nodaemon": True}, {"logfile": "", "nodaemon": True}):
        log_observer(options)({**EVENTS[0], "log_time": 1000.0})
    assert shown.getvalue() == 2 * twisteds({**EVENTS[0], "log_time": 1000.0})


@pytest.mark.parametrize("options", [
    {"syslog": True, "logfile": "", "nodaemon": False},
    {"logger": "my.observer", "logfile": "", "nodaemon": True},
    {"logfile": "-", "nodaemon": False},  # twistd refuses it, in its own words
    None,  # not under twistd
])
def test_twistd_keeps_its_own_observer_where_asked_for_or_refused(options):
    assert log_observer(options) is None
    application = service.Application("evolution")
    LoggedApplication(options).setServiceParent(application)
    assert application.getComponent(ILogObserver) is None


def test_the_host_gives_twistds_application_its_observer(tmp_path):
    application = service.Application("evolution")
    top = LoggedApplication({"logfile": str(tmp_path / "host.log"), "nodaemon": True})
    top.setServiceParent(application)
    observer = application.getComponent(ILogObserver)
    assert isinstance(observer, FileLogObserver)
    assert list(service.IServiceCollection(application)) == [top]
