"""The web view's model: what each page shows, from the running host (a feed) and the results store.

Offers ``WebModel(feed, reader, clock)``, which follows the host's feed
(``evolution.web.feed``) and answers, as JSON (Deferreds; a read the store
does not answer in time fails with ``Unanswered``, a 503):
``overview()``; ``games(limit, before)``, ``game(id)``, ``is_running(id)``,
``live_game(id)``, ``replay(id)``, ``transcript(id, seat=None)``;
``tournaments()``, ``tournament(id)``, ``ladder()``, ``ladder_removals()``,
``ladder_page()`` (both), ``player(name, limit, before)``, ``announcement()``.
``changed`` (the push hub's ``mark``) hears the name of every picture that
changed, ``announced`` the organiser's each new announcement. And
``Shared`` (one read under way per key, however many ask for it).

The store may be shared by several hosts: games are ordered by when they
ended, not by id (each host numbers its games in blocks of its own); the
games the other hosts are playing now come from the store, without a live
picture (that is on their own web views); the overview names every host of
the store, and which one this web view is.

Where each answer comes from (feed or store), and why a game just over is
never a 404: docs/web-view.md, "Inside the web view".
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from typing import Any, Callable

from twisted.internet.defer import Deferred, fail, maybeDeferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.store.queries import RECENT, Missing, finished_game
from evolution.store.reader import Busy, StoreReader
from evolution.store.records import GameRecord
from evolution.web.feed import Feed, gathered
from evolution.web.read_process import Encoded

log = Logger()
Json = Any
REPLAYS_KEPT = 16
STORED_MAX_AGE = 10.0
HOSTS_MAX_AGE = 60.0  # the store's hosts are counted over every stored game: read seldom
STORING_WAIT = 5.0  # seconds a read of a game just over waits for the feed to say it is over and stored


class Shared:
    """Reads under way, one per key however many ask for it: each asker gets a Deferred of its own.

    ``read(key, start, done)``: ``start()`` (a Deferred) unless a read of
    ``key`` is under way; ``done(result)`` runs once when it fires (the
    result may be a ``Failure``), and what it returns is what every asker
    gets. A read that fires at once (the reader refuses it: ``Busy``) ends
    there, and the next asker starts another.
    """

    def __init__(self) -> None:
        self._waiters: dict[Any, list[Deferred]] = {}

    def read(self, key: Any, start: Callable[[], Deferred], done: Callable[[Any], Any]) -> Deferred:
        waiter: Deferred = Deferred()
        if key in self._waiters:
            self._waiters[key].append(waiter)
        else:
            self._waiters[key] = [waiter]
            start().addBoth(self._fire, key, done)
        return waiter

    def _fire(self, result: Any, key: Any, done: Callable[[Any], Any]) -> None:
        outcome = done(result)
        for waiter in self._waiters.pop(key):
            waiter.callback(outcome)


class WebModel:
    def __init__(self, feed: Feed, reader: StoreReader, clock: Any, keep_finished: int = 8) -> None:
        self.feed = feed
        self.reader = reader
        self.clock = clock
        self.keep_finished = keep_finished
        self.changed: Callable[[str], None] = lambda key: None
        self.announced: Callable[[Json | None], None] = lambda value: None
        self.finished: OrderedDict[int, GameRecord] = OrderedDict()
        self._replays: OrderedDict[int, Encoded] = OrderedDict()
        self._reading = Shared()  # the overview's stored part ("stored"), and replays (game ids)
        self._stored: Json = {"recent_games": [], "tournaments": [], "leaderboard": [], "ladder": [],
                              "running_games": []}
        self._stored_at = float("-inf")
        self._hosts: list[Json] = []
        self._hosts_at = float("-inf")
        self._lobby_digest: str | None = None
        self._unsettled: list[tuple[Callable[[int], bool], int, Deferred]] = []  # reads of games just over: _once
        self.following = True
        feed.watch(self._host_event)

    # -- what the host tells ----------------------------------------------------------

    def _host_event(self, event: str, value: Any) -> None:
        if not self.following:
            return
        if event == "begin":
            game_id, tournament = value
            self._game_changed(game_id, tournament)
        elif event == "changed":
            self.changed(f"game/{value}")
        elif event == "stepped":
            self.changed("overview")
        elif event == "over":
            self.finished[value.id] = value
            while len(self.finished) > self.keep_finished:
                self.finished.popitem(last=False)
            self._game_changed(value.id, value.tournament_id)
            self._settle()
        elif event == "stored":
            self._store_changed(value[1])
            self._settle()
        elif event == "tournament":
            self._store_changed(value)
        elif event == "announcement":
            self.announced(value)

    def _game_changed(self, game_id: int, tournament: int | None) -> None:
        self.changed(f"game/{game_id}")
        self.changed("overview")
        if tournament is not None:
            self.changed(f"tournament/{tournament}")

    def _store_changed(self, tournament: int | None) -> None:
        self._stored_at = float("-inf")
        self.changed("overview")
        self.changed("ladder")
        if tournament is not None:
            self.changed(f"tournament/{tournament}")

    def _in_store(self, game_id: int) -> bool:
        """Whether the store holds game ``game_id`` if it is a game at all (not running, not being stored)."""
        return not (self.feed.is_running(game_id) or self.feed.is_storing(game_id))

    def _record_here(self, game_id: int) -> bool:
        """Whether this view has game ``game_id``'s record if it is a game at all (``finished``, or the store)."""
        return game_id in self.finished or self._in_store(game_id)

    def _once(self, ready: Callable[[int], bool], game_id: int, then: Callable[[], Any]) -> Deferred:
        """``then()`` once ``ready(game_id)``: at once but for a game just over, else when the feed says a game is
        over or stored; ``Busy`` if not within ``STORING_WAIT`` s."""
        if ready(game_id):
            return maybeDeferred(then)
        settled: Deferred = Deferred()
        self._unsettled.append((ready, game_id, settled))
        settled.addTimeout(STORING_WAIT, self.clock, onTimeoutCancel=lambda _result, _timeout: Failure(
            Busy(f"game {game_id} is over but not yet stored; try again in a moment")))
        return settled.addCallback(lambda _: then())

    def _settle(self) -> None:
        waiting, self._unsettled = self._unsettled, []
        for ready, game_id, settled in waiting:
            if settled.called:  # waited too long
                continue
            if ready(game_id):
                settled.callback(None)
            else:
                self._unsettled.append((ready, game_id, settled))

    def check_lobby(self) -> None:
        """Called every second while anyone watches: has the lobby changed?"""
        self.feed.lobby().addCallbacks(self._lobby_seen, lambda failure: None)

    def _lobby_seen(self, lobby: Json) -> None:
        if lobby["digest"] != self._lobby_digest:
            if self._lobby_digest is not None:
                self.changed("overview")
            self._lobby_digest = lobby["digest"]

    def stop(self) -> None:
        self.following = False

    def announcement(self) -> Json:
        """``{"announcement": {"text", "since"} or None}``: the organiser's line, shown on every page."""
        return {"announcement": self.feed.announcement()}

    # -- the overview -----------------------------------------------------------------

    def _stored_part(self) -> Deferred[Json]:
        """The overview's stored part: read again once it is older than STORED_MAX_AGE or a game was stored."""
        if self.clock.seconds() - self._stored_at < STORED_MAX_AGE:
            return succeed(self._stored)
        reading = self._reading.read
        return reading("stored", lambda: self.reader.read("stored_overview", self.feed.game), self._stored_read)

    def _stored_read(self, result: Any) -> Json:
        """A read the store does not answer in time is a 503 (the reader logs it); another failure leaves the
        old picture (and is tried again at the next change)."""
        if isinstance(result, Failure):
            if result.check(Busy):
                return result
            log.failure("the web view could not read the results store", result)
        else:
            self._stored, self._stored_at = result, self.clock.seconds()
        return self._stored

    def _hosts_part(self) -> Deferred[list[Json]]:
        """The store's hosts (``queries.hosts``), read again once older than ``HOSTS_MAX_AGE``; a read that fails
        leaves the last ones (the overview does not wait on a count of every game)."""
        if self.clock.seconds() - self._hosts_at < HOSTS_MAX_AGE:
            return succeed(self._hosts)
        return self._reading.read("hosts", lambda: self.reader.read("hosts"), self._hosts_read)

    def _hosts_read(self, result: Any) -> list[Json]:
        if isinstance(result, Failure):
            if not result.check(Busy):
                log.failure("the web view could not read the store's hosts", result)
        else:
            self._hosts, self._hosts_at = result, self.clock.seconds()
        return self._hosts

    def overview(self) -> Deferred[Json]:
        parts = [self._stored_part(), self._hosts_part(), self.feed.lobby(), self.feed.running(),
                 self.feed.tournaments()]
        return gathered(parts).addCallback(lambda found: self._overview(*found))

    def _overview(self, stored: Json, hosts: list[Json], lobby: Json, running: list[Json], live: list[Json]) -> Json:
        self._lobby_digest = lobby["digest"]
        finished = {data["id"]: data for data in stored["recent_games"]}
        finished.update((game_id, finished_game(record)) for game_id, record in self.finished.items())
        recent = _newest_first(finished.values())[:RECENT]
        tournaments = _with_live_tournaments(stored["tournaments"], live)
        return {
            "view": {"host": self.feed.host, "plays_games": self.feed.plays_games},
            "lobby": lobby["lobby"],
            "running": [self._here(game) for game in running],
            "running_elsewhere": [game for game in stored["running_games"] if not self._ours(game)],
            "hosts": _hosts_now(hosts, stored["running_games"]),
            "recent_games": recent,
            "tournaments": [t for t in tournaments if t["status"] == "running"]
            + [t for t in reversed(tournaments) if t["status"] != "running"][:RECENT],
            "leaderboard": stored["leaderboard"],
            "ladder": stored["ladder"],
        }

    # -- games ------------------------------------------------------------------------

    def _here(self, game: Json) -> Json:
        """A game this host is playing, as the feed pictures it: named with this host, its picture live."""
        return game | {"host": self.feed.host, "live": True}

    def _ours(self, game: Json) -> bool:
        """Whether a game the store says is running is this host's (then the feed has it live, or just over)."""
        feed = self.feed
        return feed.plays_games and (game["host"] == feed.host or feed.is_running(game["id"])
                                     or feed.is_storing(game["id"]) or game["id"] in self.finished)

    def games(self, limit: int, before: int | None = None) -> Deferred[list[Json]]:
        """This host's running games (newest first), then the stored games of every host, by when they ended, newest
        first; ``before``: those after that game."""
        ours_too = before is None or self.feed.is_running(before)
        read = self.reader.read("recent_games", limit, None if ours_too else before)
        return gathered([read, self.feed.running()]).addCallback(self._games_page, limit, before, ours_too)

    def _games_page(self, found: list[Any], limit: int, before: int | None, ours_too: bool) -> list[Json]:
        (records, anchor), running = found
        playing = {game["id"] for game in running}
        ours = [self._here(game) for game in sorted(running, key=lambda game: -game["id"])
                if ours_too and (before is None or game["id"] < before)]
        if before in self.finished:
            anchor = (self.finished[before].ended_at, before)
        over = {record.id: finished_game(record) for record in records}
        over.update((game_id, finished_game(record)) for game_id, record in self.finished.items()
                    if ours_too or anchor is not None and (record.ended_at, game_id) < anchor)
        finished = _newest_first(game for game in over.values() if game["id"] not in playing)
        return (ours + finished)[:limit]

    def is_running(self, game_id: int) -> bool:
        return self.feed.is_running(game_id)

    def live_game(self, game_id: int) -> Deferred[Json | None]:
        """A running game's whole picture, or None once it is not running."""
        if not self.feed.is_running(game_id):
            return succeed(None)
        return self.feed.picture(game_id).addCallback(lambda picture: None if picture is None else self._here(picture))

    def finished_json(self, record: GameRecord) -> Json:
        return finished_game(record) | {"replay": f"/api/games/{record.id}/replay"}

    def game(self, game_id: int) -> Deferred[Json | None]:
        return self.live_game(game_id).addCallback(self._game_or_stored, game_id)

    def _game_or_stored(self, live: Json | None, game_id: int) -> Any:
        if live is not None:
            return live
        return self._once(self._record_here, game_id, lambda: self._finished_or_stored(game_id))

    def _finished_or_stored(self, game_id: int) -> Any:
        """A game just over here, else the stored one, else one another host is playing (``running_json``)."""
        if game_id in self.finished:
            return self.finished_json(self.finished[game_id])
        return self.reader.read("stored_or_running", game_id).addCallback(
            lambda found: self.finished_json(found) if isinstance(found, GameRecord) else found
        )

    def replay(self, game_id: int) -> Deferred[Encoded]:
        """A finished game's replay frames, encoded; fails with ``Missing`` for a game that has none."""
        if game_id in self._replays:
            self._replays.move_to_end(game_id)
            return succeed(self._replays[game_id])
        if self.feed.is_running(game_id):
            return fail(Missing(f"game {game_id} is still running: its replay comes when it is over"))
        return self._reading.read(game_id, lambda: self._read_replay(game_id), lambda got: self._replayed(got, game_id))

    def _read_replay(self, game_id: int) -> Deferred[Encoded]:
        log_text = self.feed.finished_log(game_id) if game_id in self.finished else None
        if log_text is not None:
            return self.reader.read("replay_of_text", self.finished[game_id], log_text)
        return self._once(self._in_store, game_id, lambda: self.reader.read("stored_replay", game_id))

    def transcript(self, game_id: int, seat: int | None = None) -> Deferred[Json]:
        """What each seat of a finished game (or one) received and sent; fails with ``Missing`` if there is none."""
        if self.feed.is_running(game_id):
            return fail(Missing(f"game {game_id} is still running: its transcript comes when it is over"))
        log_text = self.feed.finished_log(game_id) if game_id in self.finished else None
        if log_text is not None:
            return self.reader.read("transcript_of_text", self.finished[game_id], log_text, seat)
        return self._once(self._in_store, game_id, lambda: self.reader.read("stored_transcript", game_id, seat))

    def _replayed(self, result: Any, game_id: int) -> Any:
        if isinstance(result, Encoded):
            self._replays[game_id] = result
            while len(self._replays) > REPLAYS_KEPT:
                self._replays.popitem(last=False)
        return result

    # -- tournaments and the ladder ---------------------------------------------------

    def ladder(self) -> Deferred[list[Json]]:
        return self.reader.read("ladder", self.feed.game)

    def ladder_removals(self) -> Deferred[list[Json]]:
        return self.reader.read("ladder_removals", self.feed.game)

    def ladder_page(self) -> Deferred[Json]:
        """The ladder page's picture: ``{"standings": ladder(), "removals": ladder_removals()}``."""
        return gathered([self.ladder(), self.ladder_removals()]).addCallback(
            lambda found: {"standings": found[0], "removals": found[1]})

    def player(self, name: str, limit: int, before: int | None = None) -> Deferred[Json | None]:
        """A player's page (``evolution.store.queries.player``): its stored games, a page at a time; None if none."""
        return self.reader.read("player", name, self.feed.game, limit, before)

    def players(self, search: str, limit: int, after: str | None = None) -> Deferred[Json]:
        """The players list (``evolution.store.queries.players``): names holding ``search``, a page at a time."""
        return self.reader.read("players", search, limit, after)

    def tournaments(self) -> Deferred[list[Json]]:
        def merged(found: list[Any]) -> list[Json]:
            records, live = found
            return _with_live_tournaments([record.to_json() for record in records], live)

        return gathered([self.reader.read("all_tournaments"), self.feed.tournaments()]).addCallback(merged)

    def tournament(self, tournament_id: int) -> Deferred[Json | None]:
        def merged(found: list[Any]) -> Json | None:
            (record, games, elsewhere), live, running = found
            data = next((t for t in live if t["id"] == tournament_id), None)
            if data is None and record is not None:
                data = record.to_json()
            if data is None:
                return None
            summaries = {game.id: finished_game(game) for game in games}
            for game_id, game in self.finished.items():
                if game.tournament_id == tournament_id:
                    summaries[game_id] = finished_game(game)
            for game in running:
                if (game["tournament"] or {}).get("id") == tournament_id:
                    summaries[game["id"]] = self._here(game)
            for game in elsewhere:
                if not self._ours(game):
                    summaries.setdefault(game["id"], game)
            return data | {"game_summaries": sorted(summaries.values(), key=lambda game: (game["started_at"], game["id"]))}

        parts = [self.reader.read("tournament_and_games", tournament_id), self.feed.tournaments(), self.feed.running()]
        return gathered(parts).addCallback(merged)


def _with_live_tournaments(stored: list[Json], live: list[Json]) -> list[Json]:
    """The stored tournaments, those this host runs as it has them now; by when they began (ids of each host's own)."""
    tournaments = {data["id"]: data for data in stored}
    tournaments.update((data["id"], data) for data in live)
    return sorted(tournaments.values(), key=lambda data: (data["started_at"], data["id"]))


def _newest_first(games: Any) -> list[Json]:
    """Finished games by when they ended, the newest first (whatever host played them; the id breaks a tie)."""
    return sorted(games, key=lambda game: (game["ended_at"], game["id"]), reverse=True)


def _hosts_now(hosts: list[Json], running: list[Json]) -> list[Json]:
    """The store's hosts (read seldom), each with the games it is playing now (read with the overview's stored
    part); a host playing its first games is among them."""
    counts = Counter(game["host"] for game in running)
    now = {row["host"]: row | {"running": counts.pop(row["host"], 0)} for row in hosts}
    now.update((host, {"host": host, "games": 0, "running": count, "last_ended": None}) for host, count in counts.items())
    return sorted(now.values(), key=lambda row: (row["host"] is None, row["host"] or ""))
