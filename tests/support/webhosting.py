"""A host with its web view in the test process, on 127.0.0.1; HTTP and event-stream clients; stored tournaments.

Offers:

- ``new_web_host(test, *host_options, web={...})``: ``hosting.LocalHost``
  plus the web view (``evolution.web.service.WebApp``) listening on a free
  loopback port (``WebHost(directory, ..., db=URL, host=NAME)``: on a store
  several hosts share); ``host.url(path)``; ``host.sign_up_in_order(names, delay)``;
  ``host.until_turn(game_id, turn)``;
  stopped when the test ends;
- ``get(url)``: a real HTTP GET (urllib, on a thread) -> ``Response``;
- ``EventClient`` (``follow(port, path)``): a real HTTP client of one event
  stream (Twisted, on the reactor) that collects the events;
  ``never_reading(port, path)``: one that asks and never reads;
- ``SlowPlayer``: the silly strategy answering after a delay (a bot that
  thinks, so a game lasts long enough to be watched); ``SlowFish``, a
  house player of Fish doing the same, and ``fish_client(host, name,
  strategy, delay)``, a Fish client of ours on the host; ``HeldPlayer``:
  one that holds its first answer until the test releases it (a game that
  is surely still running when the test looks);
- ``tournament_operations(...)``: a whole tournament played with local
  players, as the store operations the host would write; ``apply``.
"""

from __future__ import annotations

import gzip
import json
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Sequence

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred, succeed
from twisted.internet.protocol import ClientFactory, Protocol
from twisted.internet.task import deferLater
from twisted.internet.threads import deferToThread
from twisted.trial import unittest

from evolution.games import game
from evolution.games.evolution.rules.local import run_locally
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.net.client import play_remote
from evolution.store.operations import game_operation, round_over, tournament_begun, tournament_over
from evolution.store.records import EntrantRecord, GameRecord, RoundRecord, SeatRecord, TournamentRecord
from evolution.store.results_store import ResultsStore
from evolution.tournament.formats import Knockout, Swiss
from evolution.tournament.local_referee import LocalReferee
from evolution.tournament.manager import TournamentManager
from evolution.tournament.scoring import points
from evolution.tournament.standings import Entrant, GameReport
from evolution.web.service import WebApp
from tests.support.hosting import ANSWER_LIMIT, SIGNUP_LIMIT, HonestSilly, LocalHost, test_options, until

QUICK = ("--timeout", ANSWER_LIMIT, "--signup-timeout", SIGNUP_LIMIT)  # games start when their players are in


class WebHost(LocalHost):
    def __init__(self, directory: Path, *extra: str, web: dict[str, Any] | None = None, tournaments: Any = None,
                 **store: Any) -> None:
        super().__init__(directory, *extra, **store)  # db=, and the store writer's host=, journal=, ...
        source = tournaments if tournaments is not None else self.tournaments
        self.app = WebApp(reactor, self.runner, self.factory, self.options["db"], source, **(web or {}))
        self.app.start()
        self.web_listening = reactor.listenTCP(0, self.app.site, interface="127.0.0.1")
        self.web_port = self.web_listening.getHost().port

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.web_port}{path}"

    async def sign_up_in_order(self, names: Sequence[str], delay: float) -> list[Deferred]:
        """``SlowPlayer(delay)`` bots, each signed up once the one before waits (or a tournament began); their clients."""
        clients: list[Deferred] = []
        before = len(self.factory.lobby)
        for name in names:
            clients.append(self.client(name, SlowPlayer(delay)))
            await until(lambda: len(self.factory.lobby) == before + len(clients) or self.tournaments.current is not None)
        return clients

    async def until_turn(self, game_id: int, turn: int) -> None:
        """Wait until the running game ``game_id`` is in turn ``turn`` or later, as its picture says."""
        while True:
            answer = (await get(self.url(f"/api/games/{game_id}"))).json()
            if answer.get("status") == "running" and answer["turn"] >= turn or answer.get("status") == "finished":
                return  # not before the web view knows the game (a moment after it starts, with workers)
            await deferLater(reactor, 0.01, lambda: None)

    async def stop(self) -> None:
        if self.stopped:
            return
        await self.app.stop()
        await self.web_listening.stopListening()
        await super().stop()


def new_web_host(test: unittest.TestCase, *extra: str, **web: Any) -> WebHost:
    directory = Path(test.mktemp())
    directory.mkdir(parents=True)
    host = WebHost(directory, *extra, *test_options(test), **web)
    test.addCleanup(host.stop)
    return host


# -- HTTP -------------------------------------------------------------------------------


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def _get(url: str, headers: dict[str, str], method: str) -> Response:
    request = urllib.request.Request(url, headers=headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=20) as answer:
            status, found, body = answer.status, answer.headers, answer.read()
    except urllib.error.HTTPError as error:
        status, found, body = error.code, error.headers, error.read()
    if found.get("Content-Encoding") == "gzip":
        body = gzip.decompress(body)
    return Response(status, {name.lower(): value for name, value in found.items()}, body)


def get(url: str, headers: dict[str, str] | None = None, method: str = "GET") -> Deferred[Response]:
    """A real HTTP request from another thread (urllib), so the reactor keeps serving it."""
    return deferToThread(_get, url, headers or {}, method)


# -- event streams ----------------------------------------------------------------------


class EventClient(Protocol):
    """One event stream, read by a real HTTP/1.1 client; ``stuck`` stops reading from the socket."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.raw = b""
        self.events: list[tuple[str, Any]] = []
        self.closed: Deferred = Deferred()
        self.ready: Deferred = Deferred()

    def connectionMade(self) -> None:
        self.transport.write(f"GET {self.path} HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\nConnection: close\r\n\r\n".encode())
        self.ready.callback(self)

    def dataReceived(self, data: bytes) -> None:
        self.raw += data
        self._parse()

    def _parse(self) -> None:
        """Every complete event so far (the chunk-size lines of HTTP/1.1 are neither event nor data lines)."""
        self.events = []
        for block in self.raw.split(b"\n\n"):
            event, data = None, None
            for line in block.split(b"\n"):
                if line.startswith(b"event: "):
                    event = line[7:].decode()
                elif line.startswith(b"data: "):
                    data = line[6:]
            if event is not None and data is not None:
                try:
                    self.events.append((event, json.loads(data)))
                except ValueError:
                    pass  # the rest of this block has not come yet

    def named(self, event: str) -> list[Any]:
        return [data for name, data in self.events if name == event]

    def stuck(self) -> None:
        """Read nothing more: the kernel's buffers fill, then the host's send buffer."""
        self.transport.pauseProducing()

    def connectionLost(self, reason: Any = None) -> None:
        self.closed.callback(None)


def never_reading(port: int, path: str) -> socket.socket:
    """A browser that asks for an event stream and then never reads: a socket with a tiny receive buffer."""
    stuck = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    stuck.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)  # before connecting: a small window from the start
    stuck.connect(("127.0.0.1", port))
    stuck.sendall(f"GET {path} HTTP/1.1\r\nHost: test\r\nAccept: text/event-stream\r\n\r\n".encode())
    return stuck


async def follow(port: int, path: str) -> EventClient:
    client = EventClient(path)
    factory = ClientFactory.forProtocol(lambda: client)
    reactor.connectTCP("127.0.0.1", port, factory)
    return await client.ready


# -- players ------------------------------------------------------------------------------


class HeldPlayer(HonestSilly):
    """The silly strategy, holding the first ``choose`` it is asked once ``when()`` holds until ``release()``.

    ``asked`` fires when it holds one (its game is then surely running until the test releases it).
    """

    def __init__(self, when: Callable[[], bool] = lambda: True) -> None:
        super().__init__()
        self.when = when
        self.held: Deferred | None = None
        self.asked: Deferred = Deferred()

    def choose(self, before: Any, after: Any) -> Any:
        if self.held is None and self.when():
            self.held = Deferred()
            self.held.addCallback(lambda _: HonestSilly.choose(self, before, after))
            self.asked.callback(None)
            return self.held
        return super().choose(before, after)

    def release(self) -> None:
        self.held.callback(None)


class SlowPlayer:
    """The silly strategy, answering each question after ``delay`` seconds."""

    def __init__(self, delay: float) -> None:
        self.silly = HonestSilly()
        self.delay = delay

    def start(self, watering_hole: int, me: Any) -> None:
        self.silly.start(watering_hole, me)

    def choose(self, before: Any, after: Any) -> Deferred:
        return deferLater(reactor, self.delay, self.silly.choose, before, after)

    def feed_next(self, state: Any) -> Deferred:
        return deferLater(reactor, self.delay, self.silly.feed_next, state)


class Gate:
    """Holds what waits on it (``wait()``, a Deferred) until it is opened (``open()``)."""

    def __init__(self) -> None:
        self.opened = False
        self.waiting: list[Deferred] = []

    def wait(self) -> Deferred:
        if self.opened:
            return succeed(None)
        self.waiting.append(Deferred())
        return self.waiting[-1]

    def open(self) -> None:
        self.opened = True
        while self.waiting:
            self.waiting.pop(0).callback(None)


class SlowFish:
    """A house player of Fish answering each placement and move after ``delay`` seconds, its first placement
    not before ``gate`` (a ``Gate``, if any) opens, and its second move not before ``moving`` opens."""

    def __init__(self, strategy: str = "greedy", delay: float = 0.0, gate: Gate | None = None,
                 moving: Gate | None = None) -> None:
        self.inner = game("fish").strategy(strategy)
        self.delay = delay
        self.gate = gate
        self.moving = moving
        self.moves = 0

    def playing_as(self, color: Any) -> Any:
        return self.inner.playing_as(color)

    def playing_with(self, colors: Any) -> Any:
        return self.inner.playing_with(colors)

    def setup(self, state: Any) -> Deferred:
        opened = succeed(None) if self.gate is None else self.gate.wait()
        return opened.addCallback(lambda _: deferLater(reactor, self.delay, self.inner.setup, state))

    def take_turn(self, state: Any, actions: Any) -> Deferred:
        self.moves += 1
        opened = self.moving.wait() if self.moving is not None and self.moves == 2 else succeed(None)
        return opened.addCallback(lambda _: deferLater(reactor, self.delay, self.inner.take_turn, state, actions))


def fish_client(host: Any, name: str, strategy: str = "greedy", delay: float = 0.0, gate: Gate | None = None,
                moving: Gate | None = None) -> Deferred:
    """A Fish client of ours (the course's protocol) on the host, once its workers are up (``LocalHost.client``);
    fires with its outcome, or its error. A greedy or maximin one waits ``delay`` before each answer,
    for ``gate`` (a ``Gate``) to open before placing a penguin, and for ``moving`` before its second move."""
    player = (SlowFish(strategy, delay, gate, moving) if strategy in ("greedy", "maximin")
              else game("fish").strategy(strategy))

    async def play() -> Any:
        await host.ready()
        return await play_remote(reactor, "127.0.0.1", host.port, name, player, retries=0, game="fish")

    return ensureDeferred(play()).addErrback(lambda failure: failure.value)


class Cheat(SillyPlayer):
    """Breaks the rules when asked to choose: removed from its first game with a reason."""

    def choose(self, before: Any, after: Any) -> Any:
        raise ValueError("chose a card it does not hold")


# -- tournaments in the store --------------------------------------------------------------


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


@dataclass
class _Recorder:
    """The manager's observer: the store operations of each round, as the host would write them."""

    tournament: int
    format: Any
    entrants: list[Entrant]
    next_game: int
    operations: list[dict] = field(default_factory=list)
    began: str = ""

    def round_begins(self, round: int, games: list) -> None:
        self.began = _now()

    def round_over(self, round: int, reports: list[GameReport]) -> None:
        ids = []
        for report in reports:
            ids.append(self.next_game)
            self.operations.append(game_operation(self._game(round, report), None))
            self.next_game += 1
        summary = f"{len(reports)} games"
        self.operations.append(
            round_over(self.tournament, RoundRecord(round, self.began, _now(), summary, tuple(ids)), self.standings())
        )

    def _game(self, round: int, report: GameReport) -> GameRecord:
        size = len(report.seats)
        ranked = sorted(
            (seat for seat in report.seats if seat.failure is None), key=lambda seat: -(seat.score or 0)
        )
        ranks = {seat.entrant: index + 1 for index, seat in enumerate(ranked)}
        seats = []
        for number, seat in enumerate(report.seats, start=1):
            entrant, place = seat.entrant, report.places.get(seat.entrant)
            mu, sigma = self._rating(entrant)
            seats.append(
                SeatRecord(
                    number, entrant.name, seat.score, ranks.get(entrant), 1 if seat.failure else None,
                    "choose" if seat.failure else None, seat.failure, entrant.number,
                    points(place, size) if place is not None and self.format.keeps_points else None, mu, sigma,
                )
            )
        return GameRecord(_now(), _now(), "shuffled", self.next_game, 3, "finished", tuple(seats), self.next_game,
                          self.tournament, round, {"timeout": 1.0})

    def _rating(self, entrant: Entrant) -> tuple[float | None, float | None]:
        return self.format.rating(entrant) if hasattr(self.format, "rating") else (None, None)

    def standings(self) -> list[EntrantRecord]:
        rank_of = {entrant: rank for rank, entrant in self.format.standings(self.entrants)}
        return [
            EntrantRecord(e.number, e.name, rank_of.get(e), e.points, *self._rating(e), e.winner, e.failure,
                          e.failed_round)
            for e in self.entrants
        ]


def tournament_operations(
    tournament: int, format: str, names: Sequence[str], first_game: int, seed: int = 1, cheats: Sequence[str] = ()
) -> list[dict]:
    """A whole tournament of local players (``cheats`` break the rules), as store operations in order."""
    chosen = Knockout(3, 5) if format == "knockout" else Swiss(3, 5, rounds=3, seed=seed)
    entrants = [Entrant(i + 1, name, Cheat if name in cheats else SillyPlayer) for i, name in enumerate(names)]
    recorder = _Recorder(tournament, chosen, entrants, first_game)
    begun = TournamentRecord(
        tournament, chosen.name, "running", _now(), None, {"players": "3-5"},
        tuple(EntrantRecord(e.number, e.name) for e in entrants),
    )
    recorder.operations.append(tournament_begun(begun))
    manager = TournamentManager(chosen, entrants, LocalReferee(seed), recorder)
    run_locally(manager.run())
    recorder.operations.append(tournament_over(tournament, "finished", _now(), recorder.standings()))
    return recorder.operations


def apply(db: str | Path, operations: Sequence[dict]) -> None:
    store = ResultsStore.open(db)
    try:
        for operation in operations:
            store.apply(operation)
    finally:
        store.close()
