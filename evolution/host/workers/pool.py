"""The host's worker processes, as the host sees them: started, handed games, watched, restarted.

Offers ``WorkerPool(count, config, reactor, games)`` and ``WorkerProcess``.
``games`` is who hears what the workers report (``evolution.host.runner.pooled_runner.
PooledRunner``): ``over(game_id, record, log)``, ``back(report,
descriptors)``, ``lost(game_ids, reason)`` and ``changed(game_ids,
stepped)``, ``hung_up(game_id, seat)`` (``evolution.host.workers.commands``).

- ``start()`` starts ``count`` workers (``python -m evolution.host.workers.worker_process``,
  each with a channel of its own: ``evolution.processes.child``,
  ``evolution.processes.channel``); a worker is
  ready once it says ``Hello``.
- ``send(game_id, game, descriptors)`` hands a game to the ready worker with
  the fewest games (``Play``), on the reactor's next pass (the read under way
  may still add to what a connection had read: ``evolution.net.handover``);
  before any worker is ready the game waits for the first. The host's copies
  of the descriptors are closed once the worker has answered (it holds its
  own then), or if it dies first.
- A worker that dies costs the games it was playing: ``lost`` hears of them
  with the reason (how its process ended), and another worker is started in
  its place after ``RESTART_DELAY`` seconds. One whose channel closes is
  killed if it has not ended ``CHANNEL_GRACE`` seconds later.
- ``expel(game_id, seat, reason)``: a player removed from its game now (the
  organiser's ban); a game not yet in a worker hears it as it arrives there.
- ``ask_picture(game_id)`` asks the worker playing a game for its live
  picture, ``ask_all_running()`` every ready worker for its games' summaries
  (the web view's).
- ``stop()``: every worker stores its games as aborted and reports them
  (``Stop``), then is let go; fires when every worker has ended (one that
  does not within ``STOP_LIMIT`` seconds is killed, its games lost).
  ``kill()``: SIGKILL to every worker at once.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Protocol

from twisted.internet.defer import Deferred, DeferredList, succeed
from twisted.logger import Logger

from evolution.host.workers.commands import Back, Changed, Expel, Hello, HungUp, Over, Picture, Play, Running, Stop
from evolution.processes.channel import ChildChannel
from evolution.processes.child import ChildProcess
from evolution.text import plural

log = Logger()

RESTART_DELAY = 1.0
STOP_LIMIT = 3.0  # seconds a worker has to report its games at a stop (then killed: its games stored as lost)
CHANNEL_GRACE = 1.0  # seconds a worker whose channel closed has to end before it is killed


class Games(Protocol):
    def over(self, game_id: int, record: dict, log_blob: bytes, replies: list[float] | None = None) -> None: ...

    def back(self, report: dict, descriptors: list[int]) -> None: ...

    def lost(self, game_ids: list[int], reason: str) -> None: ...

    def changed(self, game_ids: list[int], stepped: bool) -> None: ...

    def hung_up(self, game_id: int, seat: int) -> None: ...


class HostSide(ChildChannel):
    """The host's end of one worker's channel."""

    def __init__(self, worker: WorkerProcess) -> None:
        super().__init__()
        self.worker = worker

    @Hello.responder
    def hello(self, pid: int) -> dict:
        self.worker.ready(pid)
        return {}

    @Over.responder
    def over(self, report: dict, log: bytes) -> dict:
        self.worker.pool.games.over(report["id"], report["record"], log, report.get("replies"))
        return {}

    @Back.responder
    def back(self, report: dict, descriptors: list[int]) -> dict:
        self.worker.games.discard(report["id"])
        self.worker.pool.games.back(report, descriptors)
        return {}

    @HungUp.responder
    def hung_up(self, game: int, seat: int) -> dict:
        self.worker.pool.games.hung_up(game, seat)
        return {}

    @Changed.responder
    def changed(self, games: list[int], stepped: bool) -> dict:
        self.worker.pool.games.changed(games, stepped)
        return {}

    def connectionLost(self, reason: Any = None) -> None:
        super().connectionLost(reason)
        self.worker.channel_lost()


class WorkerProcess:
    """One worker: its process, its channel, the games it plays."""

    def __init__(self, pool: WorkerPool, number: int) -> None:
        self.pool = pool
        self.number = number
        self.channel = HostSide(self)
        self.child = ChildProcess(pool.reactor, f"worker {number}", "evolution.host.workers.worker_process", [pool.config(number)],
                                  channel=self.channel)
        self.ended: Deferred = self.child.ended
        self.ended.addCallback(self._process_ended)
        self.pid: int | None = None
        self.is_ready = False
        self.alive = False
        self.games: set[int] = set()
        self._killing: Any = None
        self._killed_why: str | None = None

    def start(self) -> None:
        self.alive = True
        self.child.start()

    def ready(self, pid: int) -> None:
        self.pid, self.is_ready = pid, True
        self.pool.worker_ready(self)

    def play(self, game_id: int, game: dict, descriptors: list[int]) -> None:
        self.games.add(game_id)
        sent = self.channel.callRemote(Play, game=game, descriptors=descriptors)
        sent.addBoth(_close_all, descriptors)

    def _process_ended(self, _status: int) -> None:
        if self._killing is not None and self._killing.active():
            self._killing.cancel()
        self.gone(self._killed_why or f"its worker process ended ({self.child.how})")

    def channel_lost(self) -> None:
        """The channel closed: the process is ending (its end says why), or is killed if it does not."""
        self.is_ready = False
        if self.alive and not self.pool.stopping and self._killing is None:
            self._killing = self.pool.reactor.callLater(CHANNEL_GRACE, self._kill_silent)

    def _kill_silent(self) -> None:
        self._killed_why = "its worker process closed its channel to the host"  # a worker without a channel plays for nobody
        self.child.kill()

    def gone(self, reason: str) -> None:
        """The worker is no more: its games are lost."""
        if not self.alive:
            return
        self.alive = self.is_ready = False
        self.pool.worker_gone(self, reason)

    def stop(self) -> Deferred:
        """Ask the worker to report its games, then let it go; fires once it has ended (killed after STOP_LIMIT)."""
        if not self.alive:  # not started, or ended
            return succeed(None)
        asked = self.channel.callRemote(Stop) if self.is_ready else succeed({})
        asked.addBoth(lambda _: self.channel.transport.loseConnection() if self.channel.transport else None)
        return self.child.finish(STOP_LIMIT, kill=True)


def _close_all(result: Any, descriptors: list[int]) -> Any:
    for fd in descriptors:
        os.close(fd)
    return None


class WorkerPool:
    def __init__(self, count: int, config: Any, reactor: Any, games: Games) -> None:
        self.count = count
        self.config = config  # number -> the worker's command-line configuration
        self.reactor = reactor
        self.games = games
        self.workers: list[WorkerProcess] = []  # alive
        self.started_workers: list[WorkerProcess] = []  # every one started, until its process has ended
        self._restarts: list[Any] = []
        self._placed: list[Deferred] = []  # waiting for the games that wait for a worker
        self._all_ready: list[Deferred] = []
        self.waiting: list[tuple[int, Callable[[], dict], list[int]]] = []  # games handed over before any worker was ready
        self.unplaced: dict[int, list[tuple[int, str]]] = {}  # games sent, in no worker yet: the expulsions they await
        self.stopping = False
        self.started = False

    def start(self) -> None:
        if self.started or self.stopping:
            return
        self.started = True
        for number in range(1, self.count + 1):
            self._start(number)

    def _start(self, number: int) -> None:
        worker = WorkerProcess(self, number)
        self.workers.append(worker)
        self.started_workers.append(worker)
        worker.ended.addCallback(lambda _: self.started_workers.remove(worker))
        worker.start()

    def send(self, game_id: int, game: Callable[[], dict], descriptors: list[int]) -> None:
        """Hand a game to a worker on the next pass (``game()`` gives its ``Play`` message then)."""
        self.unplaced[game_id] = []
        self.reactor.callLater(0, self._send, game_id, game, descriptors)

    def _send(self, game_id: int, game: Callable[[], dict], descriptors: list[int]) -> None:
        if self.stopping:  # the host began to stop since the game was handed over: it never begins (a worker asked
            _close_all(None, descriptors)  # to stop would play it for nobody, its players seeing an end not kept)
            self.unplaced.pop(game_id, None)
            self.games.lost([game_id], "the host stopped")
            return
        ready = [worker for worker in self.workers if worker.is_ready]
        if not ready:
            self.waiting.append((game_id, game, descriptors))
            return
        worker = min(ready, key=lambda worker: len(worker.games))
        worker.play(game_id, game(), descriptors)
        for seat, reason in self.unplaced.pop(game_id, []):  # after its Play, on the same channel
            self._expel(worker, game_id, seat, reason)

    def worker_ready(self, worker: WorkerProcess) -> None:
        log.info("worker {number} (pid {pid}) is ready", number=worker.number, pid=worker.pid)
        waiting, self.waiting = self.waiting, []
        for game_id, game, descriptors in waiting:
            self._send(game_id, game, descriptors)
        self._wake_waiters()

    def _wake_waiters(self) -> None:
        waiters, self._placed = self._placed, []
        if self.stopping or sum(worker.is_ready for worker in self.workers) >= self.count:
            waiters, self._all_ready = waiters + self._all_ready, []
        for waiter in waiters:
            waiter.callback(None)

    def worker_gone(self, worker: WorkerProcess, reason: str) -> None:
        games = sorted(worker.games)
        worker.games.clear()
        if worker in self.workers:
            self.workers.remove(worker)
        if self.stopping:
            reason = "the host stopped"
        else:
            log.error("worker {number} is gone: {reason}; it held {count}", number=worker.number, reason=reason,
                      count=plural(len(games), "game"))
        if games:
            self.games.lost(games, reason)
        if not self.stopping:
            self._restarts.append(self.reactor.callLater(RESTART_DELAY, self._restart, worker.number))

    def _restart(self, number: int) -> None:
        self._restarts = [call for call in self._restarts if call.active()]
        if not self.stopping:
            log.info("starting worker {number} again", number=number)
            self._start(number)

    def playing(self, game_id: int) -> WorkerProcess | None:
        return next((worker for worker in self.workers if game_id in worker.games), None)

    def all_ready(self) -> Deferred[None]:
        """Fires once every worker has started (the pool starts when the reactor runs), or the pool stops."""
        if self.stopping or sum(worker.is_ready for worker in self.workers) >= self.count:
            return succeed(None)
        waiter: Deferred = Deferred()
        self._all_ready.append(waiter)
        return waiter

    def placed(self) -> Deferred[None]:
        """Fires once no game waits for a worker (at once, but while the first workers start)."""
        if not self.waiting:
            return succeed(None)
        waiter: Deferred = Deferred()
        self._placed.append(waiter)
        return waiter

    def ask_all_running(self) -> Deferred[list[dict]]:
        """Every worker's running games, as the web view lists them (a worker that fails to answer: none)."""

        def ask(_: Any) -> Deferred:
            asked = [worker.channel.callRemote(Running) for worker in self.workers if worker.is_ready]
            return DeferredList(asked, consumeErrors=True)

        return self.placed().addCallback(ask).addCallback(
            lambda answers: [game for ok, answer in answers if ok for game in answer["games"]]
        )

    def ask_picture(self, game_id: int) -> Deferred[dict | None]:
        """A game's live picture, from the worker playing it (None if it cannot say)."""

        def ask(_: Any) -> Deferred:
            worker = self.playing(game_id)
            if worker is None or not worker.is_ready:
                return succeed({"picture": None})
            return worker.channel.callRemote(Picture, game=game_id)

        return self.placed().addCallback(ask).addCallbacks(lambda answer: answer["picture"], lambda failure: None)

    def expel(self, game_id: int, seat: int, reason: str) -> Deferred[bool]:
        """The player in ``seat`` (from 1) of a game a worker plays, removed now with ``reason`` (False: not there).

        A game handed over and not yet in a worker (none ready, or the next pass not come) hears it as it arrives:
        True then."""
        if game_id in self.unplaced:
            self.unplaced[game_id].append((seat, reason))
            return succeed(True)
        worker = self.playing(game_id)
        if worker is None or not worker.is_ready:
            return succeed(False)
        return self._expel(worker, game_id, seat, reason)

    @staticmethod
    def _expel(worker: WorkerProcess, game_id: int, seat: int, reason: str) -> Deferred[bool]:
        return worker.channel.callRemote(Expel, game=game_id, seat=seat, reason=reason).addCallbacks(
            lambda answer: answer["done"], lambda failure: False)

    def kill(self) -> None:
        """SIGKILL to every worker now (a stop that cannot wait); their games are lost."""
        self.stopping = True
        for worker in list(self.started_workers):
            worker.child.kill()

    def stop(self) -> Deferred:
        self.stopping = True
        waiting, self.waiting = self.waiting, []
        for game_id, _game, descriptors in waiting:
            _close_all(None, descriptors)
            self.unplaced.pop(game_id, None)
        if waiting:
            self.games.lost([game_id for game_id, _, _ in waiting], "the host stopped")
        for call in self._restarts:
            if call.active():
                call.cancel()
        self._wake_waiters()
        stopped = [worker.stop() for worker in list(self.started_workers)]
        return DeferredList(stopped).addCallback(lambda _: None)
