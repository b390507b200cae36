"""The results store: what a finished game costs it, and what 100 games ending at once cost the reactor.

``python -m bench store``. The games are real: 8-player games of the silly
strategy on shuffled decks, each with its full message log (every message
to and from every seat, as the host records it). Printed, never asserted:

- the store's cost per finished game: the store process's time to write one
  game (record, seats, compressed log) in its own transaction, median over
  the games, on a WAL database (no disk sync per game);
- the reactor's cost to hand a game over (``StoreWriter.write``: building
  the operation and sending it to the store process), median;
- the longest reactor stall while 100 games finish at once: a probe timer
  every millisecond on the reactor measures how late it fires while 100
  games are handed over in one go and written by the store process.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from twisted.internet.task import LoopingCall, react

from evolution.store.records import GameRecord, seat_records
from evolution.store.operations import game_operation
from evolution.store.results_store import ResultsStore
from evolution.store.writer import StoreWriter
from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.local import play_local_game
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.evolution.wire import codec

GAMES = 100


class Logged(SillyPlayer):
    """The silly strategy, writing each message to a game log the way the host's proxies do."""

    def __init__(self, seat: int, log: list) -> None:
        super().__init__()
        self.seat, self.log = seat, log

    def _entry(self, kind: str, message: Any) -> None:
        self.log.append([len(self.log), self.seat, kind, message])

    def start(self, watering_hole, me):
        self._entry("out", codec.start_to_json(watering_hole, me))
        return super().start(watering_hole, me)

    def choose(self, before, after):
        self._entry("out", codec.choose_to_json(before, after))
        answer = super().choose(before, after)
        self._entry("in", codec.action4_to_json(answer))
        return answer

    def feed_next(self, state):
        self._entry("out", codec.feed_next_to_json(state))
        answer = super().feed_next(state)
        self._entry("in", codec.feeding_choice_to_json(answer))
        return answer


def games(count: int) -> list[tuple[GameRecord, list]]:
    made = []
    for seed in range(count):
        log: list = []
        names = [f"bot {seed}.{seat}" for seat in range(1, 9)]
        result = play_local_game([Logged(seat, log) for seat in range(1, 9)], Deck.shuffled(seed))
        seats = seat_records(names, result.ranking, result.removals)
        made.append((GameRecord("2026-01-01T00:00:00", "2026-01-01T00:00:01", "shuffled", seed, result.turns,
                                "finished", seats), log))
    return made


def write_cost(folder: Path, played: list) -> tuple[float, float, int]:
    """Median ms per game written in its own transaction; mean log entries; mean compressed size."""
    store = ResultsStore.open(folder / "cost.sqlite")
    times = []
    for game_id, (record, log) in enumerate(played, start=1):
        started = time.perf_counter()
        store.apply(game_operation(record.with_id(game_id), log))
        times.append(time.perf_counter() - started)
    size = store.connection.execute("SELECT AVG(LENGTH(log)) FROM game_logs").fetchone()[0]
    store.close()
    return 1000 * statistics.median(times), statistics.mean(len(log) for _, log in played), int(size)


async def stall(reactor: Any, folder: Path, played: list) -> tuple[float, float]:
    """(longest probe lateness in ms, median hand-over cost in us) while ``played`` games end at once."""
    writer = StoreWriter(folder / "stall.sqlite", reactor)
    writer.open()
    writer.start()  # the store process, as the host starts it once its reactor runs
    texts = [(record, json.dumps(log, separators=(",", ":"))) for record, log in played]  # as the host hands logs over
    lateness = [0.0]
    expected = [time.perf_counter()]

    def probe() -> None:
        now = time.perf_counter()
        lateness[0] = max(lateness[0], now - expected[0])
        expected[0] = now + 0.001

    loop = LoopingCall(probe)
    loop.start(0.001)
    await _sleep(reactor, 0.2)
    lateness[0] = 0.0
    handovers = []
    for record, log in texts:
        started = time.perf_counter()
        writer.write(game_operation(record.with_id(writer.new_game_id()), log))
        handovers.append(time.perf_counter() - started)
    await writer.idle()
    await _sleep(reactor, 0.05)
    loop.stop()
    await writer.close()
    return 1000 * lateness[0], 1e6 * statistics.median(handovers)


def _sleep(reactor: Any, seconds: float) -> Any:
    from twisted.internet.task import deferLater

    return deferLater(reactor, seconds, lambda: None)


def measure_stall(folder: Path) -> None:
    """In a process of its own (a reactor runs once): print the stall figures as JSON."""
    played = games(GAMES)
    result: dict[str, Any] = {}

    async def measure(reactor: Any) -> None:
        result["stall"] = await stall(reactor, folder, played)

    try:
        react(measure)
    except SystemExit:
        pass
    print(json.dumps(result["stall"]))


def main() -> None:
    played = games(GAMES)
    with tempfile.TemporaryDirectory(prefix="evolution-bench-") as scratch:
        folder = Path(scratch)
        per_game, entries, size = write_cost(folder, played)
        print(f"store: {per_game:.2f} ms of the store process per finished 8-player game "
              f"({entries:.0f} logged messages, {size} bytes compressed), WAL, no disk sync per game")
        run = subprocess.run([sys.executable, "-m", "bench.bench_store", "stall", str(folder)],
                             capture_output=True, text=True, check=True)
        longest, handover = json.loads(run.stdout.splitlines()[-1])
        print(f"store: handing a game over costs the reactor {handover:.0f} us; longest reactor stall while "
              f"{GAMES} games finish at once: {longest:.1f} ms")


if __name__ == "__main__":
    if sys.argv[1:2] == ["stall"]:
        measure_stall(Path(sys.argv[2]))
    else:
        main()
