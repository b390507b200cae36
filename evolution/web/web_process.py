"""The web view in a process of its own: nothing a visitor does can take a game's CPU, memory or descriptors.

Offers ``WebProcessService`` (the host's side: a service of ``twistd
evolution --web`` when games are played in worker processes; it has the
port, starts the process, hands it the listening socket and starts another
after ``RESTART_DELAY`` seconds if it dies) and ``main`` (``python -m
evolution.web.web_process CONFIG``, the web view's process: at the host's
priority until it answers, then at ``WEB_NICENESS``; the host says where it is
served once it answers).

What the process reads, how it is bounded, and how long it stays up:
docs/web-view.md, "Inside the web view"; the figures: docs/performance.md,
"How the host uses the machine".
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from twisted.application import service
from twisted.internet.defer import Deferred, succeed
from twisted.internet.error import ProcessExitedAlready
from twisted.logger import Logger

from evolution.processes.channel import child_channel, forward_log
from evolution.processes.child import ChildProcess
from evolution.processes.stopping import heed_only_the_host, heed_stop_signals, stop_once
from evolution.net.endpoints import adopt_listening, listen_for_another

log = Logger()

WEB_NICENESS = 10
LISTEN_FD = 4  # the listening socket, in the web process
RESTART_DELAY = 1.0
STOP_LIMIT = 10.0


class WebProcessService(service.Service):
    """Starts the web view's process with the host, restarts it if it dies, stops it with the host."""

    def __init__(
        self, reactor: Any, description: str, db_path: str, feed: Any, max_connections: int, echo: bool = True
    ) -> None:
        self.reactor = reactor
        self.description = description
        self.echo = echo
        self.feed = feed
        self.config = {"db": str(db_path), "endpoint": description, "max_connections": max_connections,
                       "game": feed.game, "host": feed.host}
        self.listening: tuple[int, int] | None = None
        self.process: Any = None
        self.channel: Any = None
        self.ended: Deferred = succeed(None)
        self._restart: Any = None

    def privilegedStartService(self) -> None:
        super().privilegedStartService()
        self.listening = listen_for_another(self.reactor, self.description, self.echo)

    def startService(self) -> None:
        super().startService()
        if self.listening is None:
            self.listening = listen_for_another(self.reactor, self.description, self.echo)
        self.reactor.callWhenRunning(self._start)

    def _start(self) -> None:
        self._restart = None
        if not self.running:
            return
        from evolution.web.feed_channel import FeedServer

        fd, family = self.listening
        self.channel = FeedServer(self.feed, serving=self._serving)
        self.process = ChildProcess(
            self.reactor, "web view", "evolution.web.web_process", [json.dumps({**self.config, "family": family})],
            channel=self.channel, descriptors={LISTEN_FD: fd},
        )
        self.process.start()
        self.ended = self.process.ended
        self.ended.addCallback(self._ended, self.process)
        log.info("starting the web view's process {pid}", pid=self.process.pid)

    def _serving(self) -> None:
        """The web process answers (it has drawn its first page): now the host says where."""
        if self.process is not None:
            log.info("the web view is served by process {pid} on {endpoint}", pid=self.process.pid,
                     endpoint=self.description)

    def _ended(self, _status: int, process: ChildProcess) -> None:
        self.process = None
        if self.running:
            log.error("the web view's process ended ({why}); starting another in {delay:g} s",
                      why=process.reason.getErrorMessage(), delay=RESTART_DELAY)
            self._restart = self.reactor.callLater(RESTART_DELAY, self._start)

    def stopService(self) -> Deferred:
        super().stopService()
        if self._restart is not None and self._restart.active():
            self._restart.cancel()
        if self.process is None:
            return self.ended.addBoth(self._close_listening)
        try:
            self.process.transport.signalProcess("TERM")
        except ProcessExitedAlready:
            pass
        return self.process.finish(STOP_LIMIT, kill=True).addBoth(self._close_listening)

    def _close_listening(self, _: Any) -> None:
        if self.listening is not None:
            os.close(self.listening[0])
            self.listening = None


def main(argv: list[str] | None = None) -> None:
    """The web view's process (docs/web-view.md, "Inside the web view").

    It starts at the host's priority, and steps back to ``WEB_NICENESS`` (its read process too) once it has
    drawn its first page and said so (``Serving``): its start (imports, the read process, the store's first
    read: a second of CPU or so) would take a minute at that niceness on a machine whose cores are busy.
    """
    from twisted.internet import reactor

    from evolution.web.feed_channel import FeedClient, Serving
    from evolution.web.service import WebApp
    from evolution.web.visitor_bounds import BoundedSite, CPUBudget

    config = json.loads((argv or sys.argv[1:])[0])
    forwarder = forward_log(reactor, "web view")
    feed = FeedClient(reactor, config["game"], config["host"])
    forwarder.channel = feed
    child_channel(reactor, feed)
    app = WebApp.of(feed, reactor, config["db"], max_connections=config["max_connections"], budget=CPUBudget())
    assert isinstance(app.site, BoundedSite)
    app.start()
    adopt_listening(reactor, LISTEN_FD, config["family"], config["endpoint"], app.site)

    def answering(_: Any) -> Any:
        step_back(app.reader.pid)
        return feed.callRemote(Serving)

    reactor.callWhenRunning(lambda: app.view.overview().addBoth(answering).addErrback(lambda _: None))
    feed.gone.addCallback(lambda _: stop_once(reactor))  # the host is gone
    heed_only_the_host(sigterm=False)  # Ctrl-C reaches it too: the host stops it (SIGTERM, or its channel closing)
    heed_stop_signals(reactor)
    reactor.addSystemEventTrigger("before", "shutdown", app.stop)
    reactor.run()


def step_back(reader: int | None) -> None:
    """This process, and its read process (``reader``, if running), at ``WEB_NICENESS``: after the games."""
    os.nice(WEB_NICENESS)
    if reader is not None:
        try:
            os.setpriority(os.PRIO_PROCESS, reader, os.getpriority(os.PRIO_PROCESS, 0))
        except OSError:  # gone meanwhile: its next one is started at this niceness
            pass


if __name__ == "__main__":
    main()
