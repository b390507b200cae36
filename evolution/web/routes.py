# -*- test-case-name: tests.web.test_api, tests.web.test_browser -*-
"""The web view over HTTP: pages, static files, the JSON API and the event streams (plain ``twisted.web``).

Offers ``WebResource(view, hub, store_refresh)``, one leaf resource that
routes every path itself (GET and HEAD only), and ``StaticFiles``, the page
files loaded once at start-up from the package. Routes:

    /, /games/ID, /tournaments/ID,         the pages (one shell, its title and brand naming the host's game)
    /ladder, /players/NAME, /games, /tournaments, /players
    /static/...                            their scripts, style sheet and icon
    /api/overview                          JSON
    /api/ladder, /api/ladder/removals
    /api/games (?limit=N&before=ID), /api/games/ID, .../replay, .../transcript
    /api/tournaments, /api/tournaments/ID
    /api/players (?q=TEXT&after=NAME&limit=N) the players list, searched
    /api/players/NAME (?limit=N&before=ID) NAME percent-encoded UTF-8
    /api/ladder/standings.csv|json, /api/tournaments/ID/standings.csv|json   downloads
    /api/announcement                      the organiser's announcement (JSON; its stream: .../events)
    /api/.../events                        Server-Sent Events (each begins with the announcement, if one is up)

Every answer's JSON, and the headers every response carries:
docs/web-view.md ("API", and "Inside the web view").
"""

from __future__ import annotations

import hashlib
import html
import json
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs

from twisted.internet.defer import Deferred, succeed
from twisted.logger import Logger
from twisted.python.failure import Failure
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET, Request

from evolution.games import DEFAULT_GAME, GAME_NAMES, UnknownGame, game
from evolution.store.queries import Missing
from evolution.store.reader import Busy
from evolution.text import quoted
from evolution.tournament.ratings import ESTABLISHED
from evolution.web.downloads import KINDS, Download, ladder_standings, tournament_standings
from evolution.web.model import WebModel
from evolution.web.push import Hub, Message
from evolution.web.read_process import Encoded

log = Logger()

STATIC = Path(__file__).resolve().parent / "static"
TYPES = {
    ".html": b"text/html; charset=utf-8",
    ".css": b"text/css; charset=utf-8",
    ".js": b"text/javascript; charset=utf-8",
    ".svg": b"image/svg+xml",
    ".png": b"image/png",
}
PAGE = "page.html"  # one shell for every page: its script draws what the address names
SECURITY_HEADERS = {
    b"Content-Security-Policy": b"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self';"
    b" connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    b"X-Content-Type-Options": b"nosniff",
    b"Referrer-Policy": b"no-referrer",
    b"X-Frame-Options": b"DENY",
    b"Cross-Origin-Opener-Policy": b"same-origin",
    b"Cross-Origin-Resource-Policy": b"same-origin",
    b"Server": b"evolution-host",
}
JSON_TYPE = b"application/json; charset=utf-8"
MAX_ID = 10**12
GAMES_LIMIT = 500
MAX_TEXT = 200  # characters of a text in a query (a search, a name to page after)
PLAYER_GAMES = 50  # a player's games on one page of /api/players/NAME, unless ?limit= says


class StaticFiles:
    """The files under ``static/`` and each game's drawing module and style sheet, read once: path -> (bytes, type, ETag)."""

    def __init__(self, root: Path = STATIC) -> None:
        self.files: dict[str, tuple[bytes, bytes, bytes]] = {}
        for path in sorted(root.rglob("*")):
            if path.is_file():
                self.add(path.relative_to(root).as_posix(), path)
        for name in GAME_NAMES:
            drawing = game(name).drawing()
            self.add(f"js/games/{name}.js", drawing.script)
            if drawing.style is not None:
                self.add(f"js/games/{name}.css", drawing.style)

    def add(self, name: str, path: Path) -> None:
        kind = TYPES.get(path.suffix)
        if kind is not None:
            body = path.read_bytes()
            self.files[name] = (body, kind, _etag(body))

    def filled(self, name: str, **values: str) -> tuple[bytes, bytes, bytes]:
        """The file ``name`` with each ``{{key}}`` in it replaced by ``values[key]``, HTML-escaped."""
        body, kind, _ = self.files[name]
        for key, value in values.items():
            body = body.replace(b"{{%s}}" % key.encode("ascii"), html.escape(value).encode("utf-8"))
        return body, kind, _etag(body)

    def serve(self, request: Request, name: str) -> bytes:
        found = self.files.get(name)
        if found is None:
            return _error(request, 404, f"no file {name}")
        return self.send(request, found)

    @staticmethod
    def send(request: Request, found: tuple[bytes, bytes, bytes]) -> bytes:
        body, kind, etag = found
        request.setHeader(b"Content-Type", kind)
        request.setHeader(b"ETag", etag)
        request.setHeader(b"Cache-Control", b"no-cache")
        if request.getHeader(b"If-None-Match") == etag.decode("ascii"):
            request.setResponseCode(304)
            return b""
        return body


def _etag(body: bytes) -> bytes:
    return b'"' + hashlib.sha256(body).hexdigest()[:16].encode("ascii") + b'"'


def host_title(name: str | None) -> str:
    """What every page's title and brand call the host: its game's title (``Fish host``)."""
    try:
        return f"{game(name or DEFAULT_GAME).title} host"
    except UnknownGame:
        return "Game host"


def _error(request: Request, code: int, sentence: str) -> bytes:
    request.setResponseCode(code)
    request.setHeader(b"Content-Type", JSON_TYPE)
    request.setHeader(b"Cache-Control", b"no-store")
    return json.dumps({"error": sentence}).encode("ascii")


def _number(text: str) -> int | None:
    """A path or query id: digits only, not absurdly large."""
    if text.isascii() and text.isdigit() and int(text) < MAX_ID:
        return int(text)
    return None


class BadQuery(Exception):
    pass


def _player_name(request: Request, index: int) -> str:
    """The player's name in the path's segment ``index``: percent-encoded UTF-8 (a lone surrogate as its 3 bytes)."""
    try:
        return request.postpath[index].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise BadQuery("a player's name in the address is its UTF-8 bytes, percent-encoded") from None


def _standings_file(file: str) -> str | None:
    """``standings.csv`` -> ``csv`` (a kind of ``downloads.KINDS``); None for any other name."""
    stem, _, kind = file.partition(".")
    return kind if stem == "standings" and kind in KINDS else None


def _query_number(request: Request, name: str, default: int | None, low: int, high: int) -> int | None:
    values = parse_qs(request.uri.partition(b"?")[2].decode("ascii", "replace")).get(name)
    if not values:
        return default
    value = _number(values[-1])
    if value is None or not low <= value <= high:
        raise BadQuery(f"{name} takes a whole number from {low} to {high}")
    return value


def _query_text(request: Request, name: str) -> str | None:
    """A text argument of the query (``?q=...``): its UTF-8 bytes percent-encoded, at most ``MAX_TEXT``."""
    values = request.args.get(name.encode("ascii"))
    if not values:
        return None
    try:
        text = values[0].decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise BadQuery(f"{name} takes UTF-8 text") from None
    if len(text) > MAX_TEXT:
        raise BadQuery(f"{name} takes at most {MAX_TEXT} characters")
    return text


class WebResource(Resource):
    isLeaf = True

    def __init__(self, view: WebModel, hub: Hub, store_refresh: float = 5.0, static: StaticFiles | None = None) -> None:
        super().__init__()
        self.view = view
        self.hub = hub
        self.store_refresh = store_refresh
        self.static = static if static is not None else StaticFiles()
        game_name = getattr(getattr(view, "feed", None), "game", None)
        self.shell = self.static.filled(PAGE, host=host_title(game_name), established=str(ESTABLISHED))

    def render(self, request: Request) -> bytes | int:
        for name, value in SECURITY_HEADERS.items():
            request.setHeader(name, value)
        if request.method not in (b"GET", b"HEAD"):
            request.setHeader(b"Allow", b"GET, HEAD")
            return _error(request, 405, "the web view is read-only: GET and HEAD only")
        parts = [segment.decode("utf-8", "replace") for segment in request.postpath]
        while parts and parts[-1] == "":
            parts.pop()
        try:
            return self.route(request, parts)
        except BadQuery as error:
            return _error(request, 400, str(error))

    def route(self, request: Request, parts: list[str]) -> bytes | int:
        match parts:
            case [] | ["ladder"] | ["players"] | ["tournaments"] | ["games"] | ["players", _]:
                return self.static.send(request, self.shell)
            case ["games" | "tournaments", number] if _number(number) is not None:
                return self.static.send(request, self.shell)
            case ["static", *path]:
                return self.static.serve(request, "/".join(path))
            case ["api", "announcement"]:
                return self.json(request, succeed(self.view.announcement()))
            case ["api", "announcement", "events"]:  # for a page that follows no stream of its own
                return self.stream(request, "announcement", lambda: None)
            case ["api", "overview"]:
                return self.json(request, self.view.overview())
            case ["api", "overview", "events"]:
                return self.stream(request, "overview", self._overview_message, refresh=2 * self.store_refresh,
                                   interval=0.5)
            case ["api", "games"]:
                limit = _query_number(request, "limit", 100, 1, GAMES_LIMIT)
                before = _query_number(request, "before", None, 1, MAX_ID)
                return self.json(request, self.view.games(limit, before))
            case ["api", "games", number] if (game := _number(number)) is not None:
                return self.json(request, self.view.game(game), f"there is no game {game}")
            case ["api", "games", number, "replay"] if (game := _number(number)) is not None:
                return self.json(request, self.view.replay(game))
            case ["api", "games", number, "transcript"] if (game := _number(number)) is not None:
                seat = _query_number(request, "seat", None, 1, MAX_ID)
                name = f"game-{game}-transcript" + ("" if seat is None else f"-seat-{seat}")
                return self.json(request, self.view.transcript(game, seat), download=f"{name}.json")
            case ["api", "ladder"]:
                return self.json(request, self.view.ladder())
            case ["api", "ladder", "removals"]:
                return self.json(request, self.view.ladder_removals())
            case ["api", "ladder", "events"]:
                return self.stream(request, "ladder", self._ladder_message, refresh=2 * self.store_refresh,
                                   interval=2.0)
            case ["api", "ladder", file] if (kind := _standings_file(file)) is not None:
                return self.json(request, self.view.ladder().addCallback(
                    lambda rows: ladder_standings(rows, self.view.feed.game, kind)))
            case ["api", "players"]:
                limit = _query_number(request, "limit", PLAYER_GAMES, 1, GAMES_LIMIT)
                search, after = _query_text(request, "q") or "", _query_text(request, "after")
                return self.json(request, self.view.players(search, limit, after))
            case ["api", "players", _]:
                limit = _query_number(request, "limit", PLAYER_GAMES, 1, GAMES_LIMIT)
                before = _query_number(request, "before", None, 1, MAX_ID)
                name = _player_name(request, 2)
                return self.json(request, self.view.player(name, limit, before), f"no player named {quoted(name)}")
            case ["api", "games", number, "events"] if (game := _number(number)) is not None:
                if not self.view.is_running(game):
                    request.setResponseCode(204)  # not running: a browser's EventSource stops here
                    return b""
                return self.stream(request, f"game/{game}", lambda: self._game_message(game))
            case ["api", "tournaments"]:
                return self.json(request, self.view.tournaments())
            case ["api", "tournaments", number] if (tournament := _number(number)) is not None:
                return self.json(request, self.view.tournament(tournament), f"there is no tournament {tournament}")
            case ["api", "tournaments", number, file] if (tournament := _number(number)) is not None and (
                kind := _standings_file(file)
            ) is not None:
                return self.json(request, self.view.tournament(tournament).addCallback(
                    lambda data: None if data is None else tournament_standings(data, kind)),
                    f"there is no tournament {tournament}")
            case ["api", "tournaments", number, "events"] if (tournament := _number(number)) is not None:
                return self.stream(
                    request, f"tournament/{tournament}", lambda: self._tournament_message(tournament),
                    refresh=self.store_refresh,
                )
        return _error(request, 404, "no such page")

    # -- JSON ---------------------------------------------------------------------------

    def json(self, request: Request, answer: Deferred, missing: str = "not found", download: str | None = None) -> int:
        """Answer with the JSON the Deferred fires with (None: 404), once it fires; with ``download``, as that file."""
        gone: list[bool] = []
        request.notifyFinish().addErrback(lambda _: gone.append(True))

        def write(value: Any) -> None:
            if gone:
                return
            if value is None:
                body = _error(request, 404, missing)
            elif isinstance(value, Encoded):
                body = self._encoded(request, value)
            elif isinstance(value, Download):
                request.setHeader(b"Content-Type", value.kind)
                request.setHeader(b"Cache-Control", b"no-store")
                request.setHeader(b"Content-Disposition", f'attachment; filename="{value.name}"'.encode("ascii"))
                body = value.body
            else:
                request.setHeader(b"Content-Type", JSON_TYPE)
                request.setHeader(b"Cache-Control", b"no-store")
                body = json.dumps(value, separators=(",", ":")).encode("ascii")
                if download is not None:
                    request.setHeader(b"Content-Disposition", f'attachment; filename="{download}"'.encode("ascii"))
            request.setHeader(b"Content-Length", b"%d" % len(body))
            if request.method != b"HEAD":
                request.write(body)
            request.finish()

        def failed(failure: Failure) -> None:
            if failure.check(Missing):
                return write_error(404, failure.getErrorMessage())
            if failure.check(Busy):
                request.setHeader(b"Retry-After", b"2")
                return write_error(503, failure.getErrorMessage())
            log.failure("the web view failed to answer {uri}", failure, uri=request.uri)
            return write_error(500, "the web view could not answer this; the host's log says why")

        def write_error(code: int, sentence: str) -> None:
            if not gone:
                body = _error(request, code, sentence)
                request.setHeader(b"Content-Length", b"%d" % len(body))
                request.write(body)
                request.finish()

        answer.addCallback(write).addErrback(failed)
        return NOT_DONE_YET

    @staticmethod
    def _encoded(request: Request, value: Encoded) -> bytes:
        request.setHeader(b"Content-Type", JSON_TYPE)
        request.setHeader(b"Cache-Control", b"no-store")
        request.setHeader(b"Vary", b"Accept-Encoding")
        if b"gzip" in (request.getHeader(b"Accept-Encoding") or b""):
            request.setHeader(b"Content-Encoding", b"gzip")
            return value.gzipped
        return value.plain

    # -- event streams ------------------------------------------------------------------

    def stream(
        self,
        request: Request,
        key: str,
        render: Callable[[], Any],
        refresh: float | None = None,
        interval: float | None = None,
    ) -> bytes | int:
        request.setHeader(b"Content-Type", b"text/event-stream")
        request.setHeader(b"Cache-Control", b"no-store")
        request.setHeader(b"X-Accel-Buffering", b"no")
        if request.method == b"HEAD":
            return b""
        if self.hub.watch(request, key, render, interval=interval, refresh=refresh) is None:
            request.setHeader(b"Retry-After", b"10")
            return _error(request, 503, "too many pages are watching this host; try again later")
        return NOT_DONE_YET

    def _ladder_message(self) -> Deferred[Message]:
        return self.view.ladder_page().addCallback(lambda data: Message("ladder", data))

    def _overview_message(self) -> Deferred[Message]:
        return self.view.overview().addCallback(lambda data: Message("overview", data))

    def _game_message(self, game_id: int) -> Deferred[Message]:
        return self.view.live_game(game_id).addCallback(self._game_or_over, game_id)

    def _game_or_over(self, live: Any, game_id: int) -> Any:
        if live is not None:
            return Message("game", live)
        return self.view.game(game_id).addCallback(lambda data: Message("over", data or {"id": game_id}, last=True))

    def _tournament_message(self, tournament_id: int) -> Deferred[Message]:
        return self.view.tournament(tournament_id).addCallback(
            lambda data: Message("missing", {"id": tournament_id}, last=True)
            if data is None
            else Message("tournament", data)
        )
