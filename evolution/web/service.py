# -*- test-case-name: tests.web.test_api, tests.web.test_live -*-
"""The web view as a Twisted service: one entry point for ``twistd evolution --web ENDPOINT``.

Offers:

- ``web_service(endpoint, reactor, runner, lobby, db_path, tournaments=None,
  **settings) -> WebService``: a service that, once started, serves the web
  view on ``endpoint`` (an endpoint string: ``tcp:8080:interface=127.0.0.1``,
  ``ssl:...``) from the host's reactor; ``runner`` is the host's
  ``GameRunner``, ``lobby`` its ``SignupFactory`` (or None), ``db_path`` the
  results store, ``tournaments`` the host's tournament service, if any
  (``in_progress()``, ``watch``: ``evolution.web.feed.HostFeed``). ``settings``: ``store_refresh`` (seconds
  between reads of a watched picture that comes from the store, 5) and the
  push hub's (``interval``, ``stall_limit``, ``max_watchers``, ...:
  ``evolution.web.push.Hub``);
- ``WebService``: starts the store reader, listens, and on stop ends every
  event stream, stops listening and ends the reader's process (a bounded wait);
- ``WebApp(reactor, runner, lobby, db_path, tournaments=None, **settings)``:
  the parts (``view``, ``hub``, ``reader``, ``site``) without the listening
  port, for tests; ``start()`` and ``stop()``; ``notices`` (a setting): the
  organiser's announcement, shown on every page;
- ``build_site(view, hub, store_refresh, max_connections, budget) -> Site``:
  the ``twisted.web`` site alone (``evolution.web.visitor_bounds.BoundedSite``; a
  ``CPUBudget`` in the web view's own process);
- ``store_view_service(endpoint, reactor, db_path, game, host=None,
  **settings) -> WebService``: the web view of a process that plays no games
  (``twistd evolution --view-only``): over the store alone (``NoGames``).

With worker processes (``--workers`` above 0) the host serves the web view
from a process of its own instead: ``evolution.web.web_process``.

A port that cannot be had stops twistd with one sentence, as the game port
does.
"""

from __future__ import annotations

from typing import Any

from twisted.application import service
from twisted.internet import endpoints
from twisted.internet.defer import Deferred, gatherResults, maybeDeferred
from twisted.web.server import Site

from evolution.net.endpoints import ListeningService
from evolution.store.reader import StoreReader
from evolution.web import read_process
from evolution.web.feed import Feed, HostFeed, NoGames
from evolution.web.model import WebModel
from evolution.web.push import Hub, Message
from evolution.web.routes import WebResource
from evolution.web.visitor_bounds import MAX_CONNECTIONS, BoundedSite, CPUBudget


def build_site(
    view: WebModel, hub: Hub, store_refresh: float = 5.0, max_connections: int = MAX_CONNECTIONS,
    budget: CPUBudget | None = None,
) -> Site:
    site = BoundedSite(WebResource(view, hub, store_refresh), max_connections, budget=budget)
    site.displayTracebacks = False
    site.noisy = False
    return site


class WebApp:
    """The web view's parts, wired together, not yet listening (tests listen on a port of their own).

    ``WebApp(reactor, runner, lobby, db_path, tournaments=None, **settings)``
    follows a host in this process (``HostFeed``); ``WebApp.of(feed,
    reactor, db_path, **settings)`` any feed (the web view's own process).
    """

    def __init__(
        self,
        reactor: Any,
        runner: Any,
        lobby: Any,
        db_path: str,
        tournaments: Any = None,
        store_refresh: float = 5.0,
        feed: Feed | None = None,
        max_connections: int = MAX_CONNECTIONS,
        budget: CPUBudget | None = None,
        notices: Any = None,
        **settings: Any,
    ) -> None:
        self.feed = feed if feed is not None else HostFeed(runner, lobby, tournaments, reactor, notices)
        self.reader = StoreReader(db_path, reactor, read_process.__name__)
        self.view = WebModel(self.feed, self.reader, reactor)
        self.hub = Hub(reactor, **settings)
        self.view.changed = self.hub.mark
        self.view.announced = self.announced
        self.announced(self.feed.announcement())
        self.hub.tickers.append(self.view.check_lobby)
        self.site = build_site(self.view, self.hub, store_refresh, max_connections, budget)

    def announced(self, value: Any) -> None:
        """The organiser's announcement (or None: taken down) to every page now, and to each that opens."""
        if value is not None or self.hub.banner is not None:
            self.hub.announce(Message("announcement", value), up=value is not None)

    @classmethod
    def of(cls, feed: Feed, reactor: Any, db_path: str, **settings: Any) -> WebApp:
        return cls(reactor, None, None, db_path, feed=feed, **settings)

    def start(self) -> None:
        self.reader.start()

    def stop(self) -> Deferred[bool]:
        """End every event stream, stop following the host, end the read process (a bounded wait)."""
        self.view.stop()
        self.hub.close()
        return self.reader.stop()


class WebService(service.MultiService):
    def __init__(self, app: WebApp, endpoint: Any, description: str, echo: bool = True) -> None:
        super().__init__()
        self.app = app
        ListeningService(endpoint, app.site, description, echo, "--web").setServiceParent(self)

    def startService(self) -> None:
        self.app.start()  # here, not earlier: twistd may fork and shed privileges before
        super().startService()

    def stopService(self) -> Any:
        return gatherResults([self.app.stop(), maybeDeferred(super().stopService)])


def web_service(
    endpoint: str,
    reactor: Any,
    runner: Any,
    lobby: Any,
    db_path: str,
    tournaments: Any = None,
    echo: bool = True,
    **settings: Any,
) -> WebService:
    """The web view on ``endpoint``; ``echo``: a port that cannot be had is said on stderr too (``ListeningService``)."""
    app = WebApp(reactor, runner, lobby, db_path, tournaments, **settings)
    return WebService(app, endpoints.serverFromString(reactor, endpoint), endpoint, echo)


def store_view_service(
    endpoint: str, reactor: Any, db_path: str, game: str, host: str | None = None, echo: bool = True,
    **settings: Any,
) -> WebService:
    """The web view of a process that plays no games, on ``endpoint``: every page from the store (``db_path``,
    which it only reads), no lobby and no live picture; ``game``: whose ladder it shows; ``host``: its own name."""
    app = WebApp.of(NoGames(game, host), reactor, db_path, **settings)
    return WebService(app, endpoints.serverFromString(reactor, endpoint), endpoint, echo)
