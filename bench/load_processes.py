"""Measuring processes and the machine, and the bot processes, for the load benchmark (``bench.bench_load``).

From ``/proc``: a process's CPU seconds (``cpu_seconds``), its threads' time running and waiting for a CPU
(``scheduler_seconds``), its memory (``memory_kib``), the host's processes (``host_processes``: every process
below it in the process tree, its workers and the web view's; ``more_processes``: read again) with their CPU
and peak memory by kind (``cpu_by_kind``, ``peak_memory_by_kind``), what its store holds (``stored_games``,
``journal_backlog``; ``ended_before``: what the bots saw end),
and the machine's listen-queue overflows (``listen_overflows``); ``raise_file_limit``, ``sleep_until`` and ``percentiles``. The in-process engine's CPU per
game, in a row (``engine_cpu_per_game``) and in bursts through the window (``engine_until``). The bot processes:
``SwarmProcess`` (one ``bench.swarm`` process), ``start_swarms`` (N bots in K processes, and the window agreed with
them), ``drain`` (until no game runs) and ``stop_host`` (SIGTERM, then kill); ``ProgressLines``, a line every
few seconds while a run lasts.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.local import play_local_game
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.store.journal import held
from evolution.store.postgres import is_url
from evolution.store.results_store import ResultsStore
from evolution.testing import HostProcess

ENGINE_GAMES = 200
ENGINE_BURST = 10
ENGINE_PAUSE = 0.2
CONNECT_RATE = 1000.0
DRAIN_LIMIT = 30.0
CLOCK_TICK = os.sysconf("SC_CLK_TCK")


# -- /proc ----------------------------------------------------------------------------


def cpu_seconds(pid: int) -> tuple[float, float]:
    """(user, system) CPU seconds of a process, all its threads."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) / CLOCK_TICK, int(fields[12]) / CLOCK_TICK


def scheduler_seconds(pid: int) -> dict[str, float]:
    """Seconds the process's main thread (the reactor, for the host) ran and waited for a CPU (its
    ``/proc/PID/task/PID/schedstat``), and the same summed over all its threads."""
    figures = {"main_run": 0.0, "main_wait": 0.0, "run": 0.0, "wait": 0.0}
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            run, wait = (int(x) / 1e9 for x in (task / "schedstat").read_text().split()[:2])
        except (OSError, ValueError):
            continue
        figures["run"] += run
        figures["wait"] += wait
        if task.name == str(pid):
            figures["main_run"], figures["main_wait"] = run, wait
    return figures


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` in the process tree (children, their children...), from ``/proc``."""
    found: list[int] = []
    parents = [pid]
    while parents:
        parent = parents.pop()
        try:
            children = [int(child) for child in Path(f"/proc/{parent}/task/{parent}/children").read_text().split()]
        except (OSError, ValueError):
            children = []
        found += children
        parents += children
    return found


def host_processes(pid: int, expected: int | None = None, limit: float = 30.0, settle: float = 1.0) -> dict[int, str]:
    """The host's processes, ``{pid: "host" | "store" | "worker" | "web"}``: its own and every process below it
    in the process tree (the store process, the worker processes and the web view's), once ``expected`` of them
    are there, or (``expected`` None) once their number has not changed for ``settle`` seconds; ``limit``
    seconds at most. A bench reads them again at the start of its window (``more_processes``), so a process
    that came late is counted too."""
    deadline = time.monotonic() + limit
    children: list[int] = []
    steady_since, count = time.monotonic(), -1
    while time.monotonic() < deadline:
        children = descendants(pid)
        if expected is not None and len(children) >= expected:
            break
        if len(children) != count:
            steady_since, count = time.monotonic(), len(children)
        elif expected is None and children and time.monotonic() - steady_since >= settle:
            break
        time.sleep(0.1)
    return _kinds(pid, children)


def more_processes(kinds: dict[int, str]) -> dict[int, str]:
    """``kinds`` (from ``host_processes``, one or several hosts) with every process that has come below each host
    since: the process tree read again, so that no worker is missed."""
    found = dict(kinds)
    for pid, kind in kinds.items():
        if kind == "host":
            found.update({child: k for child, k in _kinds(pid, descendants(pid)).items() if child not in found})
    return found


def _kinds(pid: int, children: list[int]) -> dict[int, str]:
    kinds = {pid: "host"}
    for child in children:
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        kinds[child] = _kind(command)
    return kinds


def _kind(command: bytes) -> str:
    """A child of the host by its command line: the web view's (its process, or with ``--workers 0`` its store
    reads' process), the store process (the host's writes: a process of its own, on a core of its own), or a
    worker."""
    if b"evolution.web.web_process" in command or b"evolution.web.read_process" in command:
        return "web"
    return "store" if b"evolution.store.writer_process" in command else "worker"


def cpu_by_kind(kinds: dict[int, str]) -> dict[str, float]:
    """User + system CPU seconds of the host's processes so far, summed by kind."""
    total: dict[str, float] = {}
    for pid, kind in kinds.items():
        try:
            total[kind] = total.get(kind, 0.0) + sum(cpu_seconds(pid))
        except OSError:
            pass
    return total


def peak_memory_by_kind(kinds: dict[int, str]) -> dict[str, int]:
    """The peak resident memory (VmHWM, KiB) of the host's processes so far, summed by kind."""
    total: dict[str, int] = {}
    for pid, kind in kinds.items():
        try:
            total[kind] = total.get(kind, 0) + memory_kib(pid)["VmHWM"]
        except (OSError, KeyError):
            pass
    return total


def workers_of(options: list[str]) -> int:
    """The worker processes a host with these options runs (``--workers``, else the number of cores)."""
    for option in options:
        if option.startswith("--workers="):
            return int(option.split("=", 1)[1])
    return os.cpu_count() or 1


def listen_overflows() -> int:
    """The system-wide count of connections dropped because a listen queue was full (TcpExt ListenOverflows)."""
    lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines() if line.startswith("TcpExt:")]
    try:
        return int(dict(zip(lines[0], lines[1]))["ListenOverflows"])
    except (IndexError, KeyError, ValueError):
        return 0


def journal_backlog(path: Path) -> int:
    """The game ends a host's journal holds now (writes its database refused, kept for later)."""
    return sum(1 for operation in held(path) if operation.get("op") == "game")


def stored_games(db: str | Path) -> int:
    """How many games the results store holds now (an SQLite file read read-only, or a PostgreSQL URL)."""
    if is_url(db):
        store = ResultsStore.open(db)
        try:
            return store.connection.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        finally:
            store.close()
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5) as store:
            return store.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.Error:
        return 0


def ended_before(outputs: list[dict[str, Any]], t1: float, players: float) -> float:
    """Games the bots saw end before ``t1``, since the start (seat ends / players a game)."""
    return sum(1 for output in outputs for _, at in output["ended"] if at < t1) / players


def memory_kib(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM of a process, in KiB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(rest.split()[0])
    return values


def raise_file_limit(needed: int) -> int:
    """Raise this process's soft RLIMIT_NOFILE to its hard limit (children inherit it); return it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        soft = hard
    if soft != resource.RLIM_INFINITY and soft < needed:
        print(f"load: warning: the file-descriptor limit {soft} is below the {needed} this run needs",
              file=sys.stderr)
    return soft


def sleep_until(wall: float) -> None:
    while (left := wall - time.time()) > 0:
        time.sleep(min(left, 0.5))


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"p50": float("nan"), "p99": float("nan"), "max": float("nan")}
    ordered = sorted(values)
    last = len(ordered) - 1
    return {"p50": ordered[round(0.50 * last)], "p99": ordered[round(0.99 * last)], "max": ordered[last]}


# -- the engine -----------------------------------------------------------------------


def engine_cpu_per_game(players: int, games: int = ENGINE_GAMES) -> float:
    """CPU seconds of one in-process game of silly players on a shuffled deck (seeds 0, 1, ...)."""
    decks = [Deck.shuffled(seed) for seed in range(games)]
    started = time.thread_time()
    for deck in decks:
        play_local_game([SillyPlayer() for _ in range(players)], deck)
    return (time.thread_time() - started) / games


def engine_until(wall: float, players: int) -> tuple[float, int]:
    """Until ``wall``: ENGINE_BURST in-process games in a row every ENGINE_PAUSE seconds (seeds 0..199
    over and over); return the CPU seconds per game and the games played. A few per cent of a core, so
    the engine meets the same machine and neighbours as the host does in the window."""
    cpu, games = 0.0, 0
    while time.time() < wall:
        decks = [Deck.shuffled((games + k) % ENGINE_GAMES) for k in range(ENGINE_BURST)]
        started = time.thread_time()
        for deck in decks:
            play_local_game([SillyPlayer() for _ in range(players)], deck)
        cpu += time.thread_time() - started
        games += ENGINE_BURST
        time.sleep(max(0.0, min(ENGINE_PAUSE, wall - time.time())))
    return (cpu / games if games else float("nan")), games


# -- the bot processes ----------------------------------------------------------------


class SwarmProcess:
    """One ``bench.swarm`` process; its status lines are read on a thread."""

    def __init__(self, port: int, first: int, count: int, begin: float, window: tuple[float, float],
                 stop: float, deadline: float, out: Path, *extra: str, rate: float = CONNECT_RATE) -> None:
        self.out = out
        command = [
            sys.executable, "-m", "bench.swarm", "--port", str(port), "--first", str(first), "--count", str(count),
            "--begin", repr(begin), "--rate", repr(rate), "--window", repr(window[0]), repr(window[1]),
            "--stop", repr(stop), "--deadline", repr(deadline), "--out", str(out), *extra,
        ]
        root = Path(__file__).resolve().parent.parent
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, cwd=root)
        self.status: dict[str, int] = {}
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            try:
                self.status = json.loads(line)
            except ValueError:
                pass

    @property
    def busy(self) -> bool:
        """True until the process reports no bot playing or signing up (or it has exited)."""
        if self.process.poll() is not None:
            return False
        return not self.status or self.status.get("playing", 1) > 0 or self.status.get("connecting", 1) > 0

    def result(self, limit: float) -> dict[str, Any]:
        try:
            self.process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            self.process.wait(timeout=10)
        try:
            return json.loads(self.out.read_text())
        except (OSError, ValueError):
            return {"window": {}, "replies": {}, "ended": [], "errors": {"no result from the bot process": 1},
                    "lag": {}}


def start_swarms(swarms: list[SwarmProcess], port: int, bots: int, procs: int, warmup: float, seconds: float,
                 out: Path, *options: str) -> tuple[float, float]:
    """Start ``procs`` bot processes sharing ``bots`` bots (appended to ``swarms``, their records to
    ``out-K.json``; ``options``: more ``bench.swarm`` options): they begin to connect in 1.5 s, CONNECT_RATE a
    second in all (each process its share); return the window (T0, T1) agreed with them."""
    begin = time.time() + 1.5  # the bot processes need about a second to start
    t0 = begin + bots / CONNECT_RATE + warmup
    t1 = t0 + seconds
    deadline = t1 + DRAIN_LIMIT + 30
    share, extra = divmod(bots, procs)
    first = 0
    for k in range(procs):
        count = share + (1 if k < extra else 0)
        swarms.append(SwarmProcess(port, first, count, begin, (t0, t1), t1, deadline, Path(f"{out}-{k}.json"), *options,
                                   rate=CONNECT_RATE * count / bots))
        first += count
    return t0, t1


class ProgressLines:
    """A line every ``every`` seconds, on a thread, while a load runs: the time so far, the phase, the games stored.

    The games are counted in the host's store (one cheap query, read-only), so
    nothing of the host or the bots is slowed; ``window`` (T0, T1) names the
    phases once it is known.
    """

    def __init__(self, label: str, db: Path, every: float) -> None:
        self.label, self.db, self.every = label, db, every
        self.window: tuple[float, float] | None = None
        self.started = time.time()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while not self.stopped.wait(self.every):
            print(f"{self.label}: {time.time() - self.started:.0f} s, {self._phase()}, {self._stored()}", flush=True)

    def _phase(self) -> str:
        now = time.time()
        if self.window is None or now < self.window[0]:
            return "bots signing up and warming up"
        if now < self.window[1]:
            return f"measuring ({self.window[1] - now:.0f} s left)"
        return "waiting for the last games"

    def _stored(self) -> str:
        try:
            with sqlite3.connect(f"file:{self.db}?mode=ro", uri=True, timeout=1) as store:
                count = store.execute("SELECT COUNT(*) FROM games").fetchone()[0]
        except sqlite3.Error:
            return "no game stored yet"
        return f"{count:,} games stored"

    def stop(self) -> None:
        """No more lines (again: nothing)."""
        self.stopped.set()
        if self.thread.is_alive():
            self.thread.join()


def drain(swarms: list[SwarmProcess], t1: float) -> None:
    """Wait (DRAIN_LIMIT at most) until the bots, which sign up no more after T1, play no game."""
    drain_end = t1 + DRAIN_LIMIT
    quiet = 0
    while time.time() < drain_end and quiet < 2:  # two quiet reports in a row: no game is running
        time.sleep(0.3)
        quiet = quiet + 1 if not any(s.busy for s in swarms) else 0


def stop_host(host: HostProcess, limit: float = 60.0) -> None:
    if host.process.poll() is None:
        host.process.send_signal(signal.SIGTERM)
        try:
            host.process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            host.process.kill()
            host.process.wait()
