# -*- test-case-name: tests.web.test_model, tests.web.test_live -*-
"""What the web view knows of the running host: the live part of every page (the rest is in the store).

Offers ``Feed`` (the interface the web view reads, ``evolution.web.model``)
and ``HostFeed``, the feed of a host in its own process: over its game
runner (``GameRunner``, or ``PooledRunner`` whose games are in worker
processes), its sign-up lobby, its tournaments and the organiser's
announcement (a ``NoticeBoard``, ``evolution.host.console.announcements``). The web view reads it in
the host's process (``--workers 0``, and the tests), or from its own process
over a channel (``evolution.web.feed_channel``) that offers the same.
``NoGames(game, host)`` is the feed of a process that plays no games
(``twistd evolution --view-only``): nothing runs, no lobby; everything the
web view shows comes from the store.

A feed answers with Deferreds (a running game's picture may be drawn in a
worker) and tells its watchers, ``callback(event, value)``:

    "begin"      (game id, tournament id or None)   a game began
    "changed"    game id                             a game whose picture was asked for moved on
    "stepped"    None                                some game moved on (scores, turns)
    "over"       GameRecord                          a game is over (stored soon after)
    "stored"     (game id, tournament id or None)    the store holds that game now
    "tournament" tournament id                       a tournament changed (begun, a game, a round, over)
    "announcement" {"text", "since"} or None         the organiser's announcement changed (or is taken down)
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Protocol

from twisted.internet.defer import Deferred, DeferredList, FirstError, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.host.runner.live_pictures import LivePictures
from evolution.store.operations import log_text
from evolution.web.lobby_picture import lobby_digest, lobby_json

log = Logger()
Json = Any
LOGS_KEPT = 8  # message logs of the games just over, for their replays before the store has them


class Feed(Protocol):
    game: str  # the name of the game the host serves (``evolution.games``)
    host: str | None  # the host's name (``--host-name``), stored with each of its games
    plays_games: bool  # False: a web view that plays none (``NoGames``)

    def watch(self, callback: Callable[[str, Any], None]) -> None: ...

    def is_running(self, game_id: int) -> bool: ...

    def running(self) -> Deferred[list[Json]]:
        """Every running game's summary (``evolution.host.runner.live_pictures.running_game``)."""

    def picture(self, game_id: int) -> Deferred[Json | None]:
        """A running game's whole picture (summary, table, lines), or None."""

    def lobby(self) -> Deferred[Json]:
        """``{"lobby": lobby_json (None: no lobby), "digest": text that changes when the lobby's picture does}``."""

    def tournaments(self) -> Deferred[list[Json]]:
        """The tournaments in progress, as ``TournamentRecord.to_json()``."""

    def finished_log(self, game_id: int) -> str | None:
        """A game just over: its message log's JSON text, if the feed still holds it."""

    def is_storing(self, game_id: int) -> bool:
        """A game over that the store does not hold yet (told "stored" once it does)."""

    def announcement(self) -> Json | None:
        """The organiser's announcement, ``{"text", "since"}``, or None."""


def tournament_of(game: Any) -> int | None:
    return game.seating.tournament_id if game.seating is not None else None


class Telling:
    """A feed's watchers: ``watch(callback)``; ``_tell(event, value)`` calls each (one that fails is logged)."""

    _watchers: list[Callable[[str, Any], None]]

    def watch(self, callback: Callable[[str, Any], None]) -> None:
        if not hasattr(self, "_watchers"):
            self._watchers = []
        self._watchers.append(callback)

    def _tell(self, event: str, value: Any) -> None:
        for callback in list(getattr(self, "_watchers", ())):
            try:
                callback(event, value)
            except Exception:
                log.failure("a watcher of the host failed on {event}", event=event)


class HostFeed(Telling):
    """The feed of the host in this process (see the module's docstring)."""

    plays_games = True

    def __init__(self, runner: Any, lobby: Any, tournaments: Any, clock: Any, notices: Any = None) -> None:
        self.runner = runner
        self.notices = notices
        self.game = runner.game.name
        self.host = runner.settings.host_name
        self.lobby_source = lobby
        self.tournament_source = tournaments
        self.clock = clock
        self._watchers = []
        self._logs: OrderedDict[int, Callable[[], str]] = OrderedDict()
        self.storing: set[int] = set()  # games over that the store writer has not yet written
        self.pictures = LivePictures(runner)
        self.pictures.changed = lambda game_id: self._tell("changed", game_id)
        self.pictures.stepped = lambda: self._tell("stepped", None)
        runner.watch(self._game_event)
        watchers = getattr(runner, "change_watchers", None)
        if watchers is not None:  # games in worker processes
            watchers.append(self._workers_changed)
        if tournaments is not None:
            tournaments.watch(lambda tournament_id: self._tell("tournament", tournament_id))
        if notices is not None:
            notices.watch(lambda value: self._tell("announcement", value))

    # -- telling -------------------------------------------------------------------------

    def _game_event(self, event: str, game: Any) -> None:
        if event == "begin":
            self._tell("begin", (game.id, tournament_of(game)))
        elif event == "over":
            record = next((record for record in reversed(self.runner.records) if record.id == game.id), None)
            self._keep_log(game)
            self.storing.add(game.id)
            if record is not None:
                self._tell("over", record)
            self._after_store(game.id, tournament_of(game))

    def _workers_changed(self, game_ids: list[int], stepped: bool) -> None:
        for game_id in game_ids:
            self._tell("changed", game_id)
        if stepped:
            self._tell("stepped", None)

    def _keep_log(self, game: Any) -> None:
        entries = getattr(game, "log", None)
        blob = getattr(game, "log_blob", None)
        if entries is not None:
            self._logs[game.id] = entries.to_text
        elif blob:
            self._logs[game.id] = lambda: log_text(blob)
        while len(self._logs) > LOGS_KEPT:
            self._logs.popitem(last=False)

    def _after_store(self, game_id: int, tournament: int | None) -> None:
        """Tell "stored" once the store writer has done the writes handed to it so far (this game's among them)."""
        self.runner.recording.idle().addCallback(self._stored, game_id, tournament)

    def _stored(self, _: Any, game_id: int, tournament: int | None) -> None:
        self.storing.discard(game_id)
        self._tell("stored", (game_id, tournament))

    # -- answering -----------------------------------------------------------------------

    def is_running(self, game_id: int) -> bool:
        return game_id in self.runner.running

    def running(self) -> Deferred[list[Json]]:
        here = self.pictures.summaries()
        if self.runner.pool is None:
            return succeed(here)
        return self.runner.pool.ask_all_running().addCallback(
            lambda elsewhere: sorted(here + elsewhere, key=lambda game: game["id"])
        )

    def picture(self, game_id: int) -> Deferred[Json | None]:
        if game_id in self.runner.running and self.runner.played_here(game_id) is None:  # in a worker process
            return self.runner.pool.ask_picture(game_id)
        return succeed(self.pictures.picture(game_id))

    def lobby(self) -> Deferred[Json]:
        return succeed({"lobby": lobby_json(self.lobby_source, self.clock),
                        "digest": repr(lobby_digest(self.lobby_source))})

    def tournaments(self) -> Deferred[list[Json]]:
        source = self.tournament_source
        return succeed([record.to_json() for record in source.in_progress()] if source is not None else [])

    def finished_log(self, game_id: int) -> str | None:
        entries = self._logs.get(game_id)
        return entries() if entries is not None else None

    def is_storing(self, game_id: int) -> bool:
        return game_id in self.storing

    def announcement(self) -> Json | None:
        return self.notices.to_json() if self.notices is not None else None


class NoGames(Telling):
    """The feed of a process that plays no games (``--view-only``): it tells nothing, runs nothing, has no lobby."""

    plays_games = False

    def __init__(self, game: str, host: str | None = None) -> None:
        self.game = game
        self.host = host  # the web view's own name (``--host-name``): no game of the store is this one's
        self._watchers = []

    def is_running(self, game_id: int) -> bool:
        return False

    def running(self) -> Deferred[list[Json]]:
        return succeed([])

    def picture(self, game_id: int) -> Deferred[Json | None]:
        return succeed(None)

    def lobby(self) -> Deferred[Json]:
        return succeed({"lobby": None, "digest": ""})

    def tournaments(self) -> Deferred[list[Json]]:
        return succeed([])

    def finished_log(self, game_id: int) -> str | None:
        return None

    def is_storing(self, game_id: int) -> bool:
        return False

    def announcement(self) -> Json | None:
        return None


def gathered(deferreds: list[Deferred]) -> Deferred[list[Any]]:
    """The results of ``deferreds`` in order; fails with the first failure (as it was: a ``Busy`` stays one)."""
    return DeferredList(deferreds, fireOnOneErrback=True, consumeErrors=True).addCallbacks(
        lambda results: [value for _, value in results], _first_failure
    )


def _first_failure(failure: Failure) -> Failure:
    return failure.value.subFailure if failure.check(FirstError) else failure
