"""A tournament cut at any of its store writes, in the test's process, and resumed: what a kill leaves, and after.

Offers ``RecordingWriter`` (a real results store, written at once, each write confirmed a reactor turn later,
every write kept in order, with the time it was made: the store's operations are plain data), ``cut(path,
operations)`` (the store a host killed after those writes leaves, as the next host's start finds it),
``TournamentHost`` (a host's sign-up, runner and tournament service on loopback with ``--workers 0``, new or
resuming, and its bots: the house's honest players, or clients a test makes, over real sockets),
``check_tournament(path)`` (what must hold of a tournament in a store, resumed or not: it finished, every round
once, one finished game per player per round, and standings equal to what its stored tables, games and failures
give when played again from them alone: the resume soak's checker, ``bench.resume_check``) and ``CrashCase``, a
test case's tournaments played, cut and resumed (``run_host``, ``resumed``), with the time its entrants away at a
resume are given (``away_window``) measured against this machine.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Callable, Collection

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred, gatherResults, maybeDeferred, succeed
from twisted.trial import unittest

from bench.resume_check import check_store
from evolution.games import game as game_named
from evolution.host.options import StartupError
from evolution.host.wiring import build_host, to_resume
from evolution.net.client import play_remote
from evolution.store.operations import Operation
from evolution.store.results_store import ResultsStore
from evolution.store.writer import KILLED
from tests.support.adversaries import play
from tests.support.hosting import HonestSilly, host_options, until

NAMES = ("ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal", "ivy")  # every dialect takes them (Fish: letters)
BOTS = 9
AWAY = 2.0  # seconds, at least, that an entrant away at a resume has to come back (--signup-window, one period)
Standings = dict[str, tuple]
Bots = dict[str, Callable[[], Any]]  # a bot's name: what makes its client (a ClientProtocol), where not honest


class RecordingWriter:
    """The store writer's part a tournament uses, on a real store: each write applied at once, confirmed (the
    Deferred fires) a reactor turn later, and kept in ``operations``; ``early`` lists the writes made while an
    earlier write that the run should have awaited was unconfirmed."""

    def __init__(self, path: Path) -> None:
        self.store = ResultsStore.open(path)
        self.operations: list[Operation] = []
        self.times: list[float] = []  # when each was made (time.monotonic)
        self.unconfirmed: set[int] = set()
        self.early: list[str] = []
        self._next_game, self._next_tournament = self.store.next_ids()

    def write(self, operation: Operation) -> Deferred[bool]:
        if operation["op"] == "game-begun":  # a game begins: its tournament and its round's tables are kept
            for index in self.unconfirmed:
                earlier = self.operations[index]
                if earlier["op"] in ("tournament-begun", "round-begun", "walkover", "tournament-resumed"):
                    self.early.append(f"game {operation['id']} began before {earlier['op']} was kept")
        self.store.apply(operation)
        index = len(self.operations)
        self.operations.append(operation)
        self.times.append(time.monotonic())
        self.unconfirmed.add(index)
        done: Deferred[bool] = Deferred()
        reactor.callLater(0, self._confirm, index, done)
        return done

    def _confirm(self, index: int, done: Deferred[bool]) -> None:
        self.unconfirmed.discard(index)
        done.callback(True)

    def new_game_id(self) -> int:
        self._next_game += 1
        return self._next_game - 1

    def new_tournament_id(self) -> int:
        self._next_tournament += 1
        return self._next_tournament - 1

    def idle(self) -> Deferred[None]:
        return succeed(None)

    def close(self) -> None:
        self.store.close()


def cut(path: Path, *parts: list[Operation]) -> None:
    """The store at ``path`` as hosts killed after writing these (each part a run, killed after it) leave it:
    each host's next start marks its tournaments interrupted and stores its running games as aborted."""
    store = ResultsStore.open(path)
    try:
        for operations in parts:
            for operation in operations:
                store.apply(operation)
            store.mark_interrupted(None)
            store.abort_running(None, KILLED)
    finally:
        store.close()


class TournamentHost:
    """A host with one tournament (``--workers 0`` unless told otherwise) on a free loopback port, in the test's
    process, and its bots; ``start()`` begins (or resumes) the tournament."""

    def __init__(self, db: Path, game: str, *options: str, resume: bool = False) -> None:
        extra = ("--resume",) if resume else ("--game", game, "--tournaments", "1")
        self.options = host_options(db, "--workers", "0", *extra, *options)
        stored = to_resume(self.options)
        self.writer = RecordingWriter(db)
        self.game = self.options["game"]
        self.host = build_host(self.options, self.writer, reactor, resume=stored)
        self.listening = reactor.listenTCP(0, self.host.factory, interface="127.0.0.1")
        self.port = self.listening.getHost().port
        self.bots: list[Deferred] = []
        self.stopped = False
        self.began = 0.0

    async def start(self) -> None:
        """Its tournament begins (or resumes) once its worker processes, if any, are up."""
        await self.host.runner.ready()
        self.began = time.monotonic()
        self.host.tournaments.startService()

    def bot(self, name: str, make: Callable[[], Any] | None = None) -> None:
        """A bot named ``name`` that plays until the host hangs up: an honest house bot (the game's first house
        player; Evolution's, the tests' ``HonestSilly``) in the host's dialect, or the client ``make()`` makes."""
        if make is not None:
            self.bots.append(ensureDeferred(play(self.port, make)))
            return
        kind = game_named(self.game)
        player = HonestSilly() if kind.name == "evolution" else kind.strategy(kind.house[0])
        self.bots.append(ensureDeferred(play_remote(reactor, "127.0.0.1", self.port, name, player, retries=0,
                                                    game=self.game, dialect=self.options["dialect"])
                                        ).addErrback(lambda _: None))

    async def signed_up(self, count: int) -> None:
        """Once ``count`` bots wait in its lobby (or the tournament has begun)."""
        await until(lambda: len(self.host.factory.lobby) >= count or self.host.tournaments.current is not None)

    def first_game_after(self) -> float:
        """Seconds from its start to its first game begun (its bots signed up and greeted; 0: none began)."""
        begun = [at for at, operation in zip(self.writer.times, self.writer.operations) if operation["op"] ==
                 "game-begun"]
        return begun[0] - self.began if begun else 0.0

    async def finished(self) -> None:
        """Once the tournament is over and its bots have been hung up on; then the host stops."""
        await self.host.tournaments.when_over(1)
        await gatherResults(self.bots)
        await self.stop()

    async def stop(self) -> None:
        """Stop listening, the tournament, the games; the bots' connections end (once: a test may stop it first)."""
        if self.stopped:
            return
        self.stopped = True
        await maybeDeferred(self.listening.stopListening)
        if self.host.tournaments.running:
            self.host.tournaments.stopService()
        self.host.factory.stop()
        await maybeDeferred(self.host.runner.stop)
        for bot in self.bots:
            bot.cancel()
        self.writer.close()


def check_tournament(path: Path, honest: bool = False) -> Standings:
    """What must hold of the store's one tournament, however often its host was killed; its standings.

    What the resume soak checks of each tournament it kills (``bench.resume_check.check_store``, one checker for
    both): it finished; its rounds are 1..n, each over once; each table of a round has exactly one finished game
    or a walkover, and every finished game belongs to a table and seats only its entrants; no entrant has two
    finished games in one round; its format deals the tables stored; and its stored standings are what its
    stored tables, games and failures give when played again from them alone, each failure applied where the
    host applies it when it resumes. ``honest``: no seat removed and no entrant failed, too.
    """
    store = ResultsStore.open(path)
    try:
        [tournament] = store.tournaments()
    finally:
        store.close()
    problems = check_store(path, tournament.id, honest)
    assert not problems, "\n".join(problems)
    return {e.name: (e.rank, e.points, e.winner, e.failure) for e in tournament.entrants}


class CrashCase(unittest.TestCase):
    """Tournaments of ``BOTS`` bots played on a ``TournamentHost``, their stores cut (``cut``) and resumed; each
    store a file of the test's own folder. ``signup_took``: the longest a tournament's first run took from its
    start to its first game, its bots signing up and greeted (what its entrants coming back at a resume do)."""

    timeout = 600

    def setUp(self) -> None:
        self.folder = Path(self.mktemp())
        self.folder.mkdir()
        self.runs = 0
        self.signup_took = 0.0

    def store(self) -> Path:
        self.runs += 1
        return self.folder / f"run{self.runs}.sqlite"

    def away_window(self) -> float:
        """Seconds an entrant away at a resume is given (the others come back at once): ``AWAY``, or ten times what
        the bots' sign-ups took on this machine (busy, they take longer)."""
        return round(max(AWAY, 10 * self.signup_took), 2)

    async def run_host(self, db: Path, game: str, *options: str, resume: bool = False, away: Collection[str] = (),
                       bots: Bots | None = None, in_order: bool = False) -> list[Operation]:
        """The tournament in ``db`` played (``resume``: resumed) until it is over, its bots ``NAMES[:BOTS]`` but
        ``away`` (``bots``: those not honest; ``in_order``: each signed up once the one before it is in the lobby,
        so that their entrant numbers are their order); the writes it made."""
        host = self.last = TournamentHost(db, game, *options, resume=resume)
        self.addCleanup(host.stop)
        await host.start()
        for count, name in enumerate((name for name in NAMES[:BOTS] if name not in away), 1):
            host.bot(name, (bots or {}).get(name))
            if in_order:
                await host.signed_up(count)
        await host.finished()
        self.assertEqual(host.writer.early, [])  # the tournament and its tables were kept before a game began
        if not resume:
            self.signup_took = max(self.signup_took, host.first_game_after())
        return host.writer.operations

    async def resumed(self, game: str, *parts: list[Operation], away: Collection[str] = (),
                      window: tuple[str, ...] = (), bots: Bots | None = None) -> tuple[list[Operation], Path] | None:
        """The store those writes leave, resumed until its tournament is over (None: nothing to resume)."""
        db = self.store()
        cut(db, *parts)
        try:
            return await self.run_host(db, game, *window, resume=True, away=away, bots=bots), db
        except StartupError as error:
            self.assertIn("holds no interrupted tournament", str(error))
            return None
