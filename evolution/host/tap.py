"""``twistd evolution``: the whole application, as the plugin builds it.

Offers ``makeService(options, reactor)``, a ``MultiService`` of the results
store, the lobby (and with ``--tournament`` the tournament service, with
``--ladder`` the ladder's), with ``--web`` the web view (in a process of its
own when games are played in worker processes: ``evolution.web.web_process``;
with ``--view-only``, that web view alone, over the store: ``_view_only``),
and the listening endpoint (any endpoint string:
``tcp:45678``, ``tcp:45678:interface=127.0.0.1``, ``ssl:...``; a listen
backlog of 1024 unless the string sets one); and the command line,
``Options`` and ``TwistdOptions`` (``evolution.host.options``). It is the
top of the house: it composes the host's parts (``evolution.host.wiring``)
and the web view (``evolution.web``), which stand on the host.

Start-up problems are one line, never a traceback: a results database that
cannot be opened ends ``makeService`` with status 1; a port that cannot be
had ends the start with status 1 (``ListeningService``), said once: in the
log, and on standard error unless the log is shown there already
(``log_shown_on_stderr``).
"""

from __future__ import annotations

import os
from typing import Any, Callable

from twisted.application import service
from twisted.logger import Logger

from evolution.host.console.announcements import NoticeBoard
from evolution.host.console.console_service import console_service
from evolution.host.log_lines import LoggedApplication
from evolution.host.options import STARTUP_STATUS, Options, StartupError, TwistdOptions, fail
from evolution.host.roster import RosterService
from evolution.host.runner.memory import GC_YOUNG, settle_memory
from evolution.host.wiring import (
    LobbyService,
    StoreService,
    allow_open_files,
    build_host,
    check_resumable,
    open_store,
    to_resume,
)
from evolution.net.endpoints import ListeningService, server_endpoint
from evolution.net.proxy_header import ProxiedFactory
from evolution.processes.stopping import heed_stop_signals, stop_once
from evolution.store.postgres import shown

__all__ = ["GC_YOUNG", "Options", "TwistdOptions", "makeService", "settle_memory"]

log = Logger()


def _at_the_end(reactor: Any, web: bool, linger: float | None) -> Callable[[], None]:
    """What the host does after its last game or tournament: stop; with a web view, after ``--linger`` (or never)."""

    def stop() -> None:
        reactor.callLater(0, stop_once, reactor)

    def stop_later() -> None:
        if linger is None:
            log.info("the last game is over; the web view stays up until the host is stopped")
        else:
            log.info("the last game is over; the web view stays up {linger:g} s more", linger=linger)
            reactor.callLater(linger, stop_once, reactor)

    return stop_later if web else stop


def _web(options: Options, reactor: Any, host: Any, echo: bool, notices: NoticeBoard) -> service.Service:
    """The web view: a process of its own with worker processes, else in this one (``--workers 0``)."""
    if options["workers"] > 0:
        from evolution.web.feed import HostFeed  # the web view's modules load only when it is asked for
        from evolution.web.web_process import WebProcessService

        feed = HostFeed(host.runner, host.factory, host.tournaments, reactor, notices)
        return WebProcessService(reactor, options["web"], options["db"], feed, options["web-connections"], echo)
    from evolution.web.service import web_service

    return web_service(options["web"], reactor, host.runner, host.factory, options["db"], tournaments=host.tournaments,
                       echo=echo, max_connections=options["web-connections"], notices=notices)


def _view_only(options: Options, reactor: Any) -> service.MultiService:
    """``--view-only``: the web view over the store, in this process, and nothing else: no bot port, no games, no
    store writer (nothing is marked interrupted or aborted: only hosts write). A PostgreSQL store is opened
    read-only; one that cannot be read ends the start with one line."""
    from evolution.store.database import StoreError
    from evolution.store.reader import read_only
    from evolution.store.results_store import reading
    from evolution.web.service import store_view_service

    db = read_only(options["db"])
    try:
        reading(db, lambda store: None)
    except StoreError as error:
        fail(f"{error} (--view-only reads a store that hosts have made: start a host on --db first)", STARTUP_STATUS)
    top = LoggedApplication(options.parent)
    store_view_service(options["web"], reactor, db, options["game"], options["host-name"],
                       echo=not log_shown_on_stderr(options.parent),
                       max_connections=options["web-connections"]).setServiceParent(top)
    log.info("a web view that plays no games, over the store {db}", db=shown(options["db"]))
    return top


def makeService(options: Options, reactor: Any = None) -> service.MultiService:
    if reactor is None:
        from twisted.internet import reactor
    heed_stop_signals(reactor)  # Ctrl-C twice, or SIGTERM to the host's whole group: one stop, no traceback
    if options["view-only"]:
        return _view_only(options, reactor)
    try:
        check_resumable(options)
        writer = open_store(options["db"], reactor, options["journal-reserve"], options["host-name"],
                            options["journal"])
        resume = to_resume(options)
    except StartupError as error:
        fail(str(error), STARTUP_STATUS)
    allow_open_files(options["max-connections"])
    top = LoggedApplication(options.parent)  # twistd's log, its lines made cheaply
    log.info("the results store: {db} (journal {journal}); this host is {host}", db=shown(options["db"]),
             journal=writer.journal_path, host=options["host-name"])
    stop = _at_the_end(reactor, options["web"] is not None, options["linger"])
    try:
        host = build_host(options, writer, reactor, stop, resume)
    except StartupError as error:
        fail(str(error), STARTUP_STATUS)
    StoreService(writer, reactor, host.runner).setServiceParent(top)
    echo = not log_shown_on_stderr(options.parent)
    lobby = LobbyService(host.factory, host.runner, stop)
    if options["games"] is not None:
        lobby.stop_after(options["games"])
    lobby.setServiceParent(top)
    if host.factory.identity is not None:
        RosterService(host.factory.identity, options["db"], reactor,
                      reloaded=host.factory.turn_away_unproven).setServiceParent(top)
    for mode in (host.tournaments, host.ladder):
        if mode is not None:
            mode.setServiceParent(top)
    notices = NoticeBoard(reactor)  # the organiser's announcement (evolution-admin announce), on the web view
    if options["web"] is not None:
        _web(options, reactor, host, echo, notices).setServiceParent(top)
    reactor.callWhenRunning(settle_memory)
    endpoint = server_endpoint(reactor, options["port"])
    factory = host.factory
    if options["proxy-protocol"]:
        factory = ProxiedFactory(host.factory, reactor, options["proxy-from"])
    listening = ListeningService(endpoint, factory, options["port"], echo)
    listening.setServiceParent(top)
    console_service(options, reactor, host, writer, listening, options.get("admin-token"), echo,
                    notices).setServiceParent(top)
    return top


def log_shown_on_stderr(twistd: Any) -> bool:
    """True when twistd writes its log to standard output and that is where standard error goes too.

    Then a start-up problem, which twistd's log records, is not written to
    standard error a second time (``ListeningService``).
    """
    if twistd is None or twistd.get("syslog") or twistd.get("logger") or twistd.get("logfile") not in (None, "", "-"):
        return False
    try:
        return os.path.samestat(os.fstat(1), os.fstat(2))
    except OSError:
        return False
