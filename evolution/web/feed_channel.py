# -*- test-case-name: tests.web.test_model, tests.web.test_web_process -*-
"""The feed over a channel: the web view in its own process reads the host's feed through AMP.

Offers ``FeedServer`` (the host's end: answers from a ``HostFeed``) and
``FeedClient`` (the web process's end: a ``Feed``, ``evolution.web.feed``),
and the commands between them: ``Poll()`` (what changed since the last
poll, every ``POLL_EVERY`` seconds, the organiser's announcement among it), ``Running()``, ``GamePicture(game)``,
``Lobby()``, ``Tournaments()``. The web process asks; the host never pushes.

What a poll gathers, and how the client turns a flood of requests into a few
questions a second: docs/web-view.md, "Inside the web view".
"""

from __future__ import annotations

from collections import deque
from typing import Any, Callable

from twisted.internet.defer import Deferred, fail, succeed
from twisted.logger import Logger
from twisted.protocols import amp

from evolution.processes.channel import ChildChannel, JSONValue, QuietAMP
from evolution.store.reader import Busy
from evolution.store.records import GameRecord
from evolution.web.feed import Telling

log = Logger()

POLL_EVERY = 0.1
OVER_KEPT = 8
FRESH = {"running": 0.25, "lobby": 0.5, "tournaments": 0.5, "picture": 0.1}
PICTURES_PER_SECOND = 50


class Poll(amp.Command):
    arguments: list = []
    response = [(b"changes", JSONValue())]


class Running(amp.Command):
    arguments: list = []
    response = [(b"games", JSONValue())]


class GamePicture(amp.Command):
    arguments = [(b"game", amp.Integer())]
    response = [(b"picture", JSONValue())]


class Lobby(amp.Command):
    arguments: list = []
    response = [(b"lobby", JSONValue())]


class Tournaments(amp.Command):
    arguments: list = []
    response = [(b"tournaments", JSONValue())]


class Serving(amp.Command):
    """The web process to the host: it answers now (its first page has been drawn); the host says so."""

    arguments: list = []
    response: list = []


# -- the host's end ------------------------------------------------------------------------


class FeedServer(ChildChannel):
    """Answers a web process from the host's feed; gathers what changed between its polls."""

    def __init__(
        self, feed: Any, lost: Callable[[], None] = lambda: None, serving: Callable[[], None] = lambda: None
    ) -> None:
        super().__init__()
        self.feed = feed
        self.lost = lost
        self.serving = serving
        self.running: dict[int, int | None] = {}
        self._over: deque[GameRecord] = deque(maxlen=OVER_KEPT)  # over since the last poll
        self._changes = self._empty()
        feed.watch(self._event)

    @staticmethod
    def _empty() -> dict[str, Any]:
        return {"changed": set(), "stepped": False, "tournaments": set(), "stored": {}}

    def _event(self, event: str, value: Any) -> None:
        changes = self._changes
        if event == "begin":
            self.running[value[0]] = value[1]
        elif event == "over":
            self.running.pop(value.id, None)
            self._over.append(value)
        elif event == "changed":
            changes["changed"].add(value)
        elif event == "stepped":
            changes["stepped"] = True
        elif event == "tournament":
            changes["tournaments"].add(value)
        elif event == "stored":
            game_id, tournament = value
            changes["stored"][game_id] = tournament

    @Poll.responder
    def poll(self) -> dict:
        changes, self._changes = self._changes, self._empty()
        over, self._over = list(self._over), deque(maxlen=OVER_KEPT)
        return {"changes": {
            "running": sorted(self.running.items()),
            "over": [record.to_json() for record in over],
            "storing": sorted(self.feed.storing),
            "changed": sorted(changes["changed"]),
            "stepped": changes["stepped"],
            "tournaments": sorted(changes["tournaments"]),
            "stored": sorted(changes["stored"].items()),
            "announcement": self.feed.announcement(),
        }}

    @Serving.responder
    def answers(self) -> dict:
        self.serving()
        return {}

    @Running.responder
    def games(self) -> Deferred:
        return self.feed.running().addCallback(lambda games: {"games": games})

    @GamePicture.responder
    def picture(self, game: int) -> Deferred:
        return self.feed.picture(game).addCallback(lambda picture: {"picture": picture})

    @Lobby.responder
    def lobby(self) -> Deferred:
        return self.feed.lobby().addCallback(lambda lobby: {"lobby": lobby})

    @Tournaments.responder
    def tournaments(self) -> Deferred:
        return self.feed.tournaments().addCallback(lambda tournaments: {"tournaments": tournaments})

    def connectionLost(self, reason: Any = None) -> None:
        super().connectionLost(reason)
        self.lost()


# -- the web process's end -------------------------------------------------------------------


class _Kept:
    """One answer of the host, kept for a short while and shared by everyone who asks meanwhile."""

    def __init__(self) -> None:
        self.value: Any = None
        self.at = float("-inf")
        self.asking: list[Deferred] | None = None


class FeedClient(Telling, QuietAMP):
    """A ``Feed`` read from the host over the channel (docs/web-view.md, "Inside the web view")."""

    plays_games = True

    def __init__(self, clock: Any, game: str, host: str | None = None) -> None:
        super().__init__()
        self.clock = clock
        self.game = game
        self.host = host
        self.running_ids: dict[int, int | None] = {}  # game id -> its tournament, as of the last poll
        self.storing_ids: set[int] = set()  # games over that the store does not hold yet, as of the last poll
        self._announcement: Any = None  # the organiser's, as of the last poll
        self._kept: dict[Any, _Kept] = {}
        self._polling: Any = None
        self._asked_pictures: deque[float] = deque()
        self.gone: Deferred = Deferred()

    def connectionMade(self) -> None:
        super().connectionMade()
        self._poll()

    def connectionLost(self, reason: Any = None) -> None:
        super().connectionLost(reason)
        if self._polling is not None and self._polling.active():
            self._polling.cancel()
        if not self.gone.called:
            self.gone.callback(None)

    # -- the changes ----------------------------------------------------------------

    def _poll(self) -> None:
        self._polling = None
        self.callRemote(Poll).addCallbacks(self._changed, lambda failure: None).addBoth(self._next_poll)

    def _next_poll(self, _: Any) -> None:
        if self.transport is not None and self.transport.connected:
            self._polling = self.clock.callLater(POLL_EVERY, self._poll)

    def _changed(self, answer: dict) -> None:
        changes = answer["changes"]
        running = {game_id: tournament for game_id, tournament in changes["running"]}
        for game_id in running.keys() - self.running_ids.keys():
            self._tell("begin", (game_id, running[game_id]))
        self.running_ids = running
        self.storing_ids = set(changes["storing"])
        for data in changes["over"]:
            self._tell("over", GameRecord.from_json(data))
        for game_id in changes["changed"]:
            self._tell("changed", game_id)
        if changes["stepped"]:
            self._tell("stepped", None)
        for tournament in changes["tournaments"]:
            self._tell("tournament", tournament)
        for game_id, tournament in changes["stored"]:
            self._tell("stored", (game_id, tournament))
        if changes.get("announcement") != self._announcement:
            self._announcement = changes.get("announcement")
            self._tell("announcement", self._announcement)

    # -- the answers ----------------------------------------------------------------

    def is_running(self, game_id: int) -> bool:
        return game_id in self.running_ids

    def running(self) -> Deferred[list[Any]]:
        return self._ask("running", Running, lambda answer: answer["games"])

    def picture(self, game_id: int) -> Deferred[Any]:
        kept = self._kept.get(("picture", game_id))
        if not self._may_ask_picture():
            if kept is not None and kept.value is not None:
                return succeed(kept.value)
            return fail(Busy("the web view asks the host for pictures as fast as it may"))
        return self._ask(("picture", game_id), GamePicture, lambda answer: answer["picture"], game=game_id)

    def _may_ask_picture(self) -> bool:
        now = self.clock.seconds()
        while self._asked_pictures and now - self._asked_pictures[0] > 1.0:
            self._asked_pictures.popleft()
        return len(self._asked_pictures) < PICTURES_PER_SECOND

    def lobby(self) -> Deferred[Any]:
        return self._ask("lobby", Lobby, lambda answer: answer["lobby"])

    def tournaments(self) -> Deferred[list[Any]]:
        return self._ask("tournaments", Tournaments, lambda answer: answer["tournaments"])

    def finished_log(self, game_id: int) -> None:
        return None  # the host's memory is not this process's: a game over is read from the store

    def is_storing(self, game_id: int) -> bool:
        return game_id in self.storing_ids

    def announcement(self) -> Any:
        return self._announcement

    def _ask(self, key: Any, command: type, take: Callable[[dict], Any], **arguments: Any) -> Deferred:
        kind = key[0] if isinstance(key, tuple) else key
        kept = self._kept.setdefault(key, _Kept())
        if self.clock.seconds() - kept.at < FRESH[kind]:
            return succeed(kept.value)
        waiter: Deferred = Deferred()
        if kept.asking is None:
            kept.asking = []
            if kind == "picture":
                self._asked_pictures.append(self.clock.seconds())
            self.callRemote(command, **arguments).addCallback(take).addBoth(self._answered, key, kept)
        kept.asking.append(waiter)
        return waiter

    def _answered(self, result: Any, key: Any, kept: _Kept) -> None:
        waiters, kept.asking = kept.asking or [], None
        if not hasattr(result, "getErrorMessage"):
            kept.value, kept.at = result, self.clock.seconds()
        if isinstance(key, tuple) and not self.is_running(key[1]):
            self._kept.pop(key, None)  # a picture of a game that is over is no longer kept
        for waiter in waiters:
            waiter.callback(result) if not hasattr(result, "getErrorMessage") else waiter.errback(result)
