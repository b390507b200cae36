# -*- test-case-name: tests.host.console.test_operator_port, tests.host.console.test_draining -*-
"""The operator's console as ``twistd evolution`` composes it: the drain (SIGUSR1 too), the operator port, the
agent-check port.

Offers ``console_service(options, reactor, host, writer, listening, token, echo, notices)``:
a ``MultiService`` that always answers SIGUSR1 with a drain, and with
``--admin`` serves the operator port (``operator_port.OperatorPort``) and keeps
its figures (``figures.HostFigures``), the announcement (``notices``, a
``NoticeBoard`` the web view shows) and, with ``--accounts``, the bans
(``banning.Bans``); with ``--agent-check`` HAProxy's line.
``listening`` is the bot port's service, which a drain stops.
"""

from __future__ import annotations

import signal
from typing import Any

from twisted.application import service
from twisted.web.server import Site

from evolution.host.console.announcements import NoticeBoard
from evolution.host.console.banning import Bans
from evolution.host.console.draining import AgentCheckFactory, Drain
from evolution.host.console.figures import HostFigures
from evolution.host.console.operator_port import OperatorPort
from evolution.net.endpoints import ListeningService, server_endpoint
from evolution.processes.stopping import stop_once


class ConsoleService(service.MultiService):
    """The drain, on SIGUSR1; its figures' once-a-second look while running."""

    def __init__(self, reactor: Any, drain: Drain, figures: HostFigures | None) -> None:
        super().__init__()
        self.reactor, self.drain, self.figures = reactor, drain, figures

    def startService(self) -> None:
        super().startService()
        self.reactor.callWhenRunning(self._running)

    def _running(self) -> None:
        if self.figures is not None:
            self.figures.start()
        signal.signal(signal.SIGUSR1, lambda number, frame: self.reactor.callFromThread(self.drain.begin, "SIGUSR1"))

    def stopService(self) -> Any:
        if self.figures is not None:
            self.figures.stop()
        return super().stopService()


class QuietSite(Site):
    """A scrape every few seconds is no line in the host's log (the commands are, with who asked)."""

    noisy = False

    def log(self, request: Any) -> None:
        pass


def console_service(options: Any, reactor: Any, host: Any, writer: Any, listening: service.Service,
                    token: str | None, echo: bool, notices: NoticeBoard | None = None) -> ConsoleService:
    drain = Drain(host, reactor, listening.disownServiceParent, lambda: reactor.callLater(0, stop_once, reactor))
    figures = None
    if options["admin"] is not None:
        figures = HostFigures(host, writer, reactor, options["game"], options["journal-reserve"])
        drain.watchers.append(lambda: setattr(figures, "draining", True))
    top = ConsoleService(reactor, drain, figures)
    if figures is not None:
        bans = Bans(host, options["db"], reactor) if host.factory.identity is not None else None
        site = QuietSite(OperatorPort(host, figures, drain, token, notices, bans))
        ListeningService(server_endpoint(reactor, options["admin"]), site, options["admin"], echo,
                         "--admin").setServiceParent(top)
        if options["agent-check"] is not None:
            ListeningService(server_endpoint(reactor, options["agent-check"]), AgentCheckFactory(drain, figures),
                             options["agent-check"], echo, "--agent-check").setServiceParent(top)
    return top
