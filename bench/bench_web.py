"""The web view's cost on the reactor.

Prints:

- what following the games costs a game, per dealer step, with nobody
  watching (the runner's callback, ``evolution.host.runner.live_pictures.LivePictures``: a
  look-up; a game someone watches has its narrator read the step's log
  entries too);
- drawing and encoding one live picture of an 8-player game mid-game (done
  once per update, however many watch);
- the reactor thread's CPU time per update per watcher: N event streams
  on loopback (real twisted.web, real sockets, read by a thread of this
  process), K updates of an 8-player picture pushed to all of them; the
  figure covers the hub's writes, Twisted's buffering and the send calls.
"""

from __future__ import annotations

import json
import socket
import statistics
import subprocess
import sys
import threading
import time
from types import SimpleNamespace
from typing import Any

from twisted.internet import reactor
from twisted.internet.task import Clock
from twisted.web.resource import Resource
from twisted.web.server import Site

from evolution.games import game as game_named
from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.local import run_locally
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.host.runner.live_pictures import LivePictures
from evolution.net.game_log import GameLog
from evolution.web.push import Hub, Message, sse_bytes
from evolution.web.routes import WebResource

UPDATES = 200


class FakeRunner:
    game = game_named("evolution")

    def __init__(self) -> None:
        self.running: dict[int, Any] = {}
        self.records: list = []
        self.writer = None
        self.watchers: list = []

    def watch(self, callback) -> None:
        self.watchers.append(callback)


class Proxy:
    asking = None


def game_with_steps(runner: FakeRunner, players: int, seed: int) -> tuple[Any, list[tuple[str, Any]]]:
    """A finished local game's events, replayable into the live pictures as a hosted game's would be."""
    events: list[tuple[str, Any]] = []
    names = [f"player {i}" for i in range(1, players + 1)]
    game = SimpleNamespace(id=1, names=names, seating=None, log=GameLog(Clock()), proxies=[Proxy() for _ in names],
                           started_at="", referee=None, runner=runner)

    def observe(event: str, dealer: Dealer) -> None:
        game.referee = dealer
        game.log.add(1, "in", 0)  # a reply a step, for the narrator to read
        events.append((event, dealer))

    run_locally(Dealer.new_game([SillyPlayer() for _ in names], Deck.shuffled(seed), observe).play())
    return game, events


def follow_cost() -> None:
    runner = FakeRunner()
    pictures = LivePictures(runner)
    steps, elapsed = 0, 0.0
    for seed in range(200):
        game, events = game_with_steps(runner, 8, seed)
        pictures.followed.clear()
        start = time.perf_counter()
        for event, _ in events:
            pictures._event(event, game)
        elapsed += time.perf_counter() - start
        steps += len(events)
    print(f"following a game, per dealer step, nobody watching: {elapsed / steps * 1e6:.1f} us ({steps} steps)")


def picture_cost() -> bytes:
    runner = FakeRunner()
    pictures = LivePictures(runner)
    game, events = game_with_steps(runner, 8, 4)
    middle = len(events) // 2
    runner.running[game.id] = game
    pictures.picture(game.id)  # followed from here, as once a visitor has asked
    for event, _ in events[:middle]:
        pictures._event(event, game)
    times = []
    for _ in range(300):
        start = time.perf_counter()
        payload = sse_bytes(Message("game", pictures.picture(game.id)))
        times.append(time.perf_counter() - start)
    print(f"one live picture of an 8-player game, drawn and encoded: {statistics.median(times) * 1e6:.0f} us,"
          f" {len(payload)} bytes")
    return payload


def reader(sockets: list[socket.socket], stop: threading.Event) -> None:
    """The browsers: read and drop everything, as fast as they can."""
    for sock in sockets:
        sock.setblocking(False)
    while not stop.is_set():
        for sock in sockets:
            try:
                while sock.recv(1 << 16):
                    pass
            except BlockingIOError:
                pass
        time.sleep(0.001)


class OneStream(Resource):
    """Every request is a watcher of one topic, drawn by ``render``."""

    isLeaf = True

    def __init__(self, hub: Hub, render: Any) -> None:
        super().__init__()
        self.site = WebResource(None, hub)
        self.render_picture = render

    def render_GET(self, request: Any) -> Any:
        return self.site.stream(request, "game/1", self.render_picture)


def per_watcher_cost(payload: bytes, watchers: int) -> float:
    """Run in a fresh process (a reactor runs once): reactor CPU seconds per update per watcher."""
    hub = Hub(reactor, interval=0.0)
    picture = json.loads(payload.split(b"data: ", 1)[1])
    state = {"n": 0}

    def render() -> Message:
        return Message("game", picture | {"n": state["n"]})

    port = reactor.listenTCP(0, Site(OneStream(hub, render)), backlog=watchers + 10, interface="127.0.0.1")
    sockets = []
    for _ in range(watchers):
        sock = socket.create_connection(("127.0.0.1", port.getHost().port))
        sock.sendall(b"GET /api/games/1/events HTTP/1.1\r\nHost: bench\r\n\r\n")
        sockets.append(sock)
    stop = threading.Event()
    thread = threading.Thread(target=reader, args=(sockets, stop), daemon=True)
    thread.start()
    result: list[float] = []

    def when_all_watch() -> None:
        if hub.watching < watchers:
            reactor.callLater(0.01, when_all_watch)
        else:
            reactor.callLater(0.2, measure)

    def measure() -> None:
        drawing = 0.0
        start = time.thread_time()
        for n in range(UPDATES):
            state["n"] = n
            hub.mark("game/1")
            t0 = time.thread_time()
            sse_bytes(render())  # what the flush's drawing costs, to leave it out
            drawing += time.thread_time() - t0
            reactor.runUntilCurrent()  # the flush: draw once, write to every watcher
            reactor.doIteration(0)  # the send calls
        for _ in range(20):
            reactor.doIteration(0.001)
        spent = time.thread_time() - start - 2 * drawing
        result.append(spent / UPDATES / watchers)
        reactor.stop()

    reactor.callWhenRunning(when_all_watch)
    reactor.run()
    stop.set()
    thread.join()
    return result[0]


def in_fresh_process(payload: bytes, watchers: int) -> float:
    code = (
        "import sys; from bench.bench_web import per_watcher_cost;"
        f"print(per_watcher_cost(bytes.fromhex(sys.stdin.read()), {watchers}))"
    )
    run = subprocess.run([sys.executable, "-c", code], input=payload.hex(), capture_output=True, text=True, check=True)
    return float(run.stdout.strip().splitlines()[-1])


def main() -> None:
    follow_cost()
    payload = picture_cost()
    for watchers in (1, 10, 100):
        cost = in_fresh_process(payload, watchers)
        print(f"reactor CPU per update per watcher, {watchers} watchers: {cost * 1e6:.1f} us")


if __name__ == "__main__":
    main()
