"""The web view's model: what each page shows, from the running host and the results store.

Offers ``WebView`` and ``TournamentSource``. ``WebView(runner, lobby,
reader, clock, tournaments=None)`` follows the game runner (``runner.watch``)
and answers, as JSON (Deferreds where the store is read, in the reader's
process; a read it does not answer in time fails with ``Unanswered``, a 503):

- ``overview()``: the lobby, running games, running and recent tournaments
  with their standings, recent games, the rating leaderboard, the top of the
  host's game's ladder;
- ``games(limit, before)``, ``game(id)``, ``is_running(id)``, ``live_game(id)``, ``replay(id)``,
  ``transcript(id, seat=None)`` (``evolution.host.transcripts``);
- ``tournaments()``, ``tournament(id)``, ``ladder()`` (the whole ladder, as ``evolution-results
  --ladder --json`` prints it; read from the store, which each ladder game updates).

``changed`` (the push hub's ``mark``) hears the name of every picture that
changed: "overview", "game/ID", "tournament/ID". On every dealer step of a
running game the view does a few dictionary look-ups and reads the log
entries the step added (``Narrator``); nothing else runs in the game's call.

Games are read from memory while they run and for the last
``keep_finished`` after they end (so a game's page shows its result at
once, before the store process has stored it), else from the store.
Tournaments come from ``tournaments`` (a ``TournamentSource``) while it runs
them, else from the store, read again when one of their games ends and
every few seconds while someone watches.
"""

from __future__ import annotations

import gzip
import json
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from twisted.internet.defer import Deferred, fail, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.host.records import GameRecord
from evolution.host.transcripts import NoSuchSeat, transcript
from evolution.web.frames import replay_frames
from evolution.web.reader import (
    Busy,
    StoreReader,
    all_tournaments,
    game_and_log,
    recent_games,
    stored_game,
    tournament_and_games,
)
from evolution.web.summaries import LEADERS, finished_game, leaderboard, lobby_digest, lobby_json, running_game

log = Logger()
Json = Any
RECENT = 10
REPLAYS_KEPT = 16
STORED_MAX_AGE = 10.0


class TournamentSource(Protocol):
    """What the web view asks of the host's tournaments, where the host runs any (optional).

    ``in_progress()``: the tournaments in progress as they stand now, each with
    an ``id`` and ``to_json()`` (``TournamentRecord``); ``watch(callback)``:
    ``callback(tournament_id)`` after each change (begun, a game over, a
    round over, over).
    """

    def in_progress(self) -> Sequence[Any]: ...

    def watch(self, callback: Callable[[int], None]) -> None: ...


class LiveGame:
    """A running game, its game's drawing, and the lines said about it so far."""

    __slots__ = ("game", "drawing", "narrator")

    def __init__(self, game: Any) -> None:
        self.game = game
        self.drawing = game.runner.game.drawing()
        self.narrator = self.drawing.narrator(game.names)


@dataclass(frozen=True)
class Encoded:
    """A JSON answer, encoded once (off the reactor), plain and gzipped."""

    plain: bytes
    gzipped: bytes

    @classmethod
    def of(cls, value: Json) -> Encoded:
        plain = json.dumps(value, separators=(",", ":")).encode("ascii")
        return cls(plain, gzip.compress(plain, 6))


class Missing(Exception):
    """What was asked for does not exist; the message says what."""


class Pending:
    """One read under way, however many ask for it: each asker gets a Deferred of its own.

    ``done(result)`` runs first, once (the result may be a ``Failure``), and
    what it returns is what every asker gets.
    """

    def __init__(self, source: Deferred, done: Callable[[Any], Any]) -> None:
        self.done = done
        self.waiters: list[Deferred] = []
        source.addBoth(self._fire)

    def wait(self) -> Deferred:
        waiter: Deferred = Deferred()
        self.waiters.append(waiter)
        return waiter

    def _fire(self, result: Any) -> None:
        outcome = self.done(result)
        for waiter in self.waiters:
            waiter.callback(outcome)


def _replay(record: GameRecord, entries: list | None) -> Encoded:
    if entries is None:
        raise Missing(f"game {record.id} has no stored message log to replay")
    return Encoded.of(replay_frames(record, entries))


def _replay_of_text(_store: Any, record: GameRecord, log_text: str) -> Encoded:
    """A game the host still holds in memory, replayed in the read process (the work is not the reactor's)."""
    return _replay(record, json.loads(log_text))


def _stored_replay(store: Any, game_id: int) -> Encoded:
    record, entries = game_and_log(store, game_id)
    if record is None:
        raise Missing(f"there is no game {game_id}")
    return _replay(record, entries)


def _ladder(store: Any, game: str, limit: int | None = None) -> list[Json]:
    return [standing.to_json(rank) for rank, standing in store.ladder(game, limit)]


def _stored_overview(store: Any, game: str) -> Json:
    tournaments = all_tournaments(store)
    return {
        "recent_games": [finished_game(game) for game in recent_games(store, RECENT)],
        "tournaments": [tournament.to_json() for tournament in tournaments],
        "leaderboard": leaderboard(tournaments),
        "ladder": _ladder(store, game, LEADERS),
    }


def _transcript(record: GameRecord | None, entries: list | None, game_id: int, seat: int | None) -> Json:
    if record is None:
        raise Missing(f"there is no game {game_id}")
    if entries is None:
        raise Missing(f"game {game_id} has no stored message log")
    try:
        return transcript(record, entries, seat)
    except NoSuchSeat as error:
        raise Missing(str(error)) from None


def _transcript_of_text(_store: Any, record: GameRecord, log_text: str, seat: int | None) -> Json:
    """A game the host still holds in memory, its transcript made in the read process."""
    return _transcript(record, json.loads(log_text), record.id, seat)


def _stored_transcript(store: Any, game_id: int, seat: int | None) -> Json:
    return _transcript(*game_and_log(store, game_id), game_id, seat)


class WebView:
    def __init__(
        self,
        runner: Any,
        lobby: Any,
        reader: StoreReader,
        clock: Any,
        tournaments: TournamentSource | None = None,
        keep_finished: int = 8,
    ) -> None:
        self.runner = runner
        self.lobby = lobby
        self.reader = reader
        self.clock = clock
        self.source = tournaments
        self.keep_finished = keep_finished
        self.changed: Callable[[str], None] = lambda key: None
        self.live: dict[int, LiveGame] = {}
        self.finished: OrderedDict[int, tuple[GameRecord, Any]] = OrderedDict()  # the record and its GameLog
        self._replays: OrderedDict[int, Encoded] = OrderedDict()
        self._replaying: dict[int, Pending] = {}
        self._stored: Json = {"recent_games": [], "tournaments": [], "leaderboard": [], "ladder": []}
        self._stored_at = float("-inf")
        self._stored_reading: Pending | None = None
        self._lobby_digest = lobby_digest(lobby)
        self.following = True
        runner.watch(self._game_event)
        if tournaments is not None:
            tournaments.watch(self._tournament_event)

    # -- what the host tells ----------------------------------------------------------

    def _game_event(self, event: str, game: Any) -> None:
        if not self.following:
            return
        live = self.live.get(game.id)
        if live is None:
            live = self.live[game.id] = LiveGame(game)
            if event != "begin":  # the view started while the game ran: tell only what comes next
                live.narrator.step(event, game.referee, game.log.entries)
                live.narrator.lines.clear()
        elif event != "over":
            live.narrator.step(event, game.referee, game.log.entries)
        if event == "over":
            self._game_over(game)
        self.changed(f"game/{game.id}")
        self.changed("overview")
        if game.seating is not None:
            self.changed(f"tournament/{game.seating.tournament_id}")

    def _game_over(self, game: Any) -> None:
        del self.live[game.id]
        record = next((record for record in reversed(self.runner.records) if record.id == game.id), None)
        if record is not None:
            self.finished[game.id] = (record, game.log)
            while len(self.finished) > self.keep_finished:
                self.finished.popitem(last=False)
        idle = getattr(self.runner.writer, "idle", None)
        stored = idle() if idle is not None else succeed(None)
        tournament = game.seating.tournament_id if game.seating is not None else None
        stored.addCallback(lambda _: self._store_changed(tournament))

    def _store_changed(self, tournament: int | None) -> None:
        self._stored_at = float("-inf")
        self.changed("overview")
        if tournament is not None:
            self.changed(f"tournament/{tournament}")

    def _tournament_event(self, tournament_id: int) -> None:
        if self.following:
            self._store_changed(tournament_id)

    def check_lobby(self) -> None:
        """Called every second while anyone watches: has the lobby changed?"""
        digest = lobby_digest(self.lobby)
        if digest != self._lobby_digest:
            self._lobby_digest = digest
            self.changed("overview")

    def stop(self) -> None:
        self.following = False

    # -- the overview -----------------------------------------------------------------

    def _stored_part(self) -> Deferred[Json]:
        """The overview's stored part: read again once it is older than STORED_MAX_AGE or a game was stored."""
        if self.clock.seconds() - self._stored_at < STORED_MAX_AGE:
            return succeed(self._stored)
        if self._stored_reading is None:
            reading = self.reader.read(_stored_overview, self.runner.game.name)
            self._stored_reading = Pending(reading, self._stored_read)
        return self._stored_reading.wait()

    def _stored_read(self, result: Any) -> Json:
        """A read the store does not answer in time is a 503 (the reader logs it); another failure leaves the
        old picture (and is tried again at the next change)."""
        self._stored_reading = None
        if isinstance(result, Failure):
            if result.check(Busy):
                return result
            log.failure("the web view could not read the results store", result)
        else:
            self._stored, self._stored_at = result, self.clock.seconds()
        return self._stored

    def overview(self) -> Deferred[Json]:
        return self._stored_part().addCallback(self._overview)

    def _overview(self, stored: Json) -> Json:
        finished = {data["id"]: data for data in stored["recent_games"]}
        finished.update((game_id, finished_game(record)) for game_id, (record, _) in self.finished.items())
        recent = sorted(finished.values(), key=lambda data: -data["id"])[:RECENT]
        tournaments = self._with_live_tournaments(stored["tournaments"])
        return {
            "lobby": lobby_json(self.lobby, self.clock),
            "running": [running_game(game) for game in sorted(self.runner.running.values(), key=lambda g: g.id)],
            "recent_games": recent,
            "tournaments": [t for t in tournaments if t["status"] == "running"]
            + [t for t in reversed(tournaments) if t["status"] != "running"][:RECENT],
            "leaderboard": stored["leaderboard"],
            "ladder": stored["ladder"],
        }

    def _live_tournaments(self) -> dict[int, Any]:
        return {record.id: record for record in self.source.in_progress()} if self.source is not None else {}

    def _with_live_tournaments(self, stored: list[Json]) -> list[Json]:
        tournaments = {data["id"]: data for data in stored}
        tournaments.update((tid, record.to_json()) for tid, record in self._live_tournaments().items())
        return [tournaments[tid] for tid in sorted(tournaments)]

    # -- games ------------------------------------------------------------------------

    def games(self, limit: int, before: int | None = None) -> Deferred[list[Json]]:
        def merged(records: list[GameRecord]) -> list[Json]:
            games = {record.id: finished_game(record) for record in records}
            games.update((game_id, finished_game(record)) for game_id, (record, _) in self.finished.items())
            games.update((game.id, running_game(game)) for game in self.runner.running.values())
            ids = sorted((i for i in games if before is None or i < before), reverse=True)
            return [games[i] for i in ids[:limit]]

        return self.reader.read(recent_games, limit, before).addCallback(merged)

    def is_running(self, game_id: int) -> bool:
        return game_id in self.live and game_id in self.runner.running

    def live_game(self, game_id: int) -> Json | None:
        """A running game's whole picture, or None once it is not running."""
        live = self.live.get(game_id)
        game = self.runner.running.get(game_id)
        if live is None or game is None:
            return None
        table = live.drawing.table(game.referee, game.names)
        table["asking"] = [seat for seat, proxy in enumerate(game.proxies, start=1) if proxy.asking is not None]
        return running_game(game) | {"table": table, "lines": list(live.narrator.lines)}

    def finished_json(self, record: GameRecord) -> Json:
        return finished_game(record) | {"replay": f"/api/games/{record.id}/replay"}

    def game(self, game_id: int) -> Deferred[Json | None]:
        live = self.live_game(game_id)
        if live is not None:
            return succeed(live)
        if game_id in self.finished:
            return succeed(self.finished_json(self.finished[game_id][0]))
        return self.reader.read(stored_game, game_id).addCallback(
            lambda record: None if record is None else self.finished_json(record)
        )

    def replay(self, game_id: int) -> Deferred[Encoded]:
        """A finished game's replay frames, encoded; fails with ``Missing`` for a game that has none."""
        if game_id in self._replays:
            self._replays.move_to_end(game_id)
            return succeed(self._replays[game_id])
        if game_id in self.runner.running:
            return fail(Missing(f"game {game_id} is still running: its replay comes when it is over"))
        if game_id not in self._replaying:
            if game_id in self.finished:
                record, log = self.finished[game_id]
                reading = self.reader.read(_replay_of_text, record, log.to_text())
            else:
                reading = self.reader.read(_stored_replay, game_id)
            self._replaying[game_id] = Pending(reading, lambda result: self._replayed(result, game_id))
        return self._replaying[game_id].wait()

    def transcript(self, game_id: int, seat: int | None = None) -> Deferred[Json]:
        """What each seat of a finished game (or one) received and sent; fails with ``Missing`` if there is none."""
        if game_id in self.runner.running:
            return fail(Missing(f"game {game_id} is still running: its transcript comes when it is over"))
        if game_id in self.finished:
            record, log = self.finished[game_id]
            return self.reader.read(_transcript_of_text, record, log.to_text(), seat)
        return self.reader.read(_stored_transcript, game_id, seat)

    def _replayed(self, result: Any, game_id: int) -> Any:
        del self._replaying[game_id]
        if isinstance(result, Encoded):
            self._replays[game_id] = result
            while len(self._replays) > REPLAYS_KEPT:
                self._replays.popitem(last=False)
        return result

    # -- tournaments and the ladder ---------------------------------------------------

    def ladder(self) -> Deferred[list[Json]]:
        return self.reader.read(_ladder, self.runner.game.name)

    def tournaments(self) -> Deferred[list[Json]]:
        def merged(records: list[Any]) -> list[Json]:
            return self._with_live_tournaments([record.to_json() for record in records])

        return self.reader.read(all_tournaments).addCallback(merged)

    def tournament(self, tournament_id: int) -> Deferred[Json | None]:
        def merged(stored: tuple[Any, list[GameRecord]]) -> Json | None:
            record, games = stored
            record = self._live_tournaments().get(tournament_id, record)
            if record is None:
                return None
            summaries = {game.id: finished_game(game) for game in games}
            for game_id, (game, _) in self.finished.items():
                if game.tournament_id == tournament_id:
                    summaries[game_id] = finished_game(game)
            for game in self.runner.running.values():
                if game.seating is not None and game.seating.tournament_id == tournament_id:
                    summaries[game.id] = running_game(game)
            return record.to_json() | {"game_summaries": [summaries[i] for i in sorted(summaries)]}

        return self.reader.read(tournament_and_games, tournament_id).addCallback(merged)
