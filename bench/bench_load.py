"""Load: one host process under many bots; what one game and one message cost it.

``python -m bench load [--bots N ...] [--seconds S] [--warmup W] [--players P]
[--procs K] [--host-option=OPTION ...] [--floor] [--keep] [--profile FILE]
[--json FILE]``; ``make bench`` runs it at 100, 500, 1,000 and 2,000 bots, with
``--floor``. ``run_load`` is also what ``make soak`` (``bench/soak.py``) uses.
Nothing here asserts a speed.

The setup, for each N
---------------------

- The host: ``twistd -n evolution --players P-P --signup-window 0.2`` in a
  child process (``evolution.host.demo.HostProcess``) on a free loopback
  port, with a fresh ``--db`` and log file in a temporary folder and every
  other option at its default: ``--timeout 1``, and the listen queue of
  Twisted's TCP endpoint (50). ``--host-option`` adds options; ``{port}`` in
  one stands for the port (``--host-option=--port=tcp:{port}:interface=
  127.0.0.1:backlog=1024`` gives a longer listen queue). With 8-8 a game
  starts the moment a lobby holds 8, so the sign-up window never comes into
  play. The file-descriptor limit (``RLIMIT_NOFILE``) is raised to its hard
  limit in this process first, so the host and the bots inherit it.
- The bots: ``bench/swarm.py``, N silly bots in K asyncio processes (default
  1 up to 500 bots, else 2), each bot one connection, answering every
  question at once and signing up again as soon as its game ends. They begin
  to connect at 1,000 a second, play a warm-up of W seconds (default 8),
  then the measured window of S seconds (default 20), from T0 to T1 on the
  wall clock, agreed beforehand. After T1 no bot signs up again; once no
  game is running the host gets SIGTERM (it closes the lobby, finishes its
  writes, exits) and the results store is read.
- The in-process engine: ``play_local_game`` with P ``SillyPlayer`` s on
  shuffled decks (seeds 0..199, over and over), in this process: 10 games in
  a row every 0.2 s through the window (a few per cent of a core), and 200
  games in a row before the host starts and after it stopped.
- With ``--floor``, once the host has stopped: the floor host
  (``bench/floor_host.py``: bare Twisted, which replays stored games' message
  logs and does nothing else) on a free port, loaded with every game the host
  just stored (those in which a seat failed left out), and N new bots in K
  processes, with the same warm-up and window length.

The figures, and how each is measured
-------------------------------------

games/s
    Stored games whose ``ended_at`` (the host's clock; the same machine's as
    the window's) falls in the window, divided by S.
host CPU, per game and per message
    The host process's user + system CPU time over the window: ``utime`` +
    ``stime`` of ``/proc/PID/stat`` at T0 and T1, all threads (the store
    writer's too); 10 ms ticks, small against seconds. Divided by the games
    above, or by the messages: every message the bots sent or received in
    the window, both directions, sign-ups and their "ok" included, as the
    bots counted them at T0 and T1.
host's reactor thread: running / waiting for a CPU
    From the main thread's ``/proc/PID/task/PID/schedstat`` at T0 and T1:
    the share of the window it ran, and the share it was ready to run but
    waited for a CPU that other processes held. The second is the machine's
    noise as the host felt it: with much of it, wall-clock figures (games/s,
    latencies, stalls) are not comparable between runs; CPU figures suffer
    less.
host/engine
    Host CPU per game divided by the in-process engine's CPU per game
    (``time.thread_time`` around each game) measured during the window: what
    serving a game costs in units of playing it. Measured side by side, both
    meet the same machine and the same neighbours, so the ratio moves less
    from run to run than either figure; the engine's figures before and after
    the load (quiet) are printed too, and show how much the neighbours cost.
call latency p50 / p99 / max
    As the host measures it: from the host writing a question (choose or
    feed-next) to the host reading its reply, from the message logs the store
    keeps for every game (``ResultsStore.game_log``): every message written
    and read, stamped on the host's clock in whole milliseconds since the
    game began. Each "in" entry is paired with the seat's last "out" entry;
    replies read in the window, from every game. Resolution 1 ms. The host
    stamps a reply when it reads it, before its checks (tens of us).
a call's parts; reply wait; longest reactor stall
    The bots record when they read each question and wrote each reply; the
    k-th reply a bot wrote in a game is the k-th its seat's log shows read
    (TCP keeps the order; names are unique per game), and the log's stamps
    are made absolute with the game's ``started_at``. A call then splits into
    (1) the host's stamp to the bot reading the question: the host's write
    path (Twisted sends a write when its reactor next polls), loopback and
    the bot's own event loop; (2) the bot thinking; (3) the reply waiting on
    the host: written by the bot, not yet read by the host. The host reads a
    socket only when its reactor is back in its loop, so (3) is exactly how
    long the reactor was busy elsewhere, in one long call (a full garbage
    collection, say) or working through other sockets. Every reply is such a
    probe, thousands a second, so the largest wait is the longest the reactor
    left a waiting message unread: printed as the longest reactor stall.
    A probe client would sample the reactor only a few times a second, and
    the host answers nothing but a sign-up. Times across processes are
    within about 1 ms (the log's rounding, ``started_at`` truncated to the
    millisecond), so small parts can come out slightly negative.
at T1; sign-up
    How many bots were playing, waiting in a lobby, or still signing up at
    T1, as the bots counted them (N minus those signing up is the load the
    host really had); how long sign-ups answered in the window took, from the
    bot starting to connect to its "ok"; and how many connections the kernel
    dropped in the window because a listen queue was full (``TcpExt
    ListenOverflows`` of ``/proc/net/netstat``: the whole machine's, but on a
    quiet machine all the host's). A dropped connect is retried by the
    client's kernel after a second, then 3, 7...
host memory per connected bot
    (``VmRSS`` of the host at T1, with the bots connected and playing, minus
    ``VmRSS`` after it started listening and before any bot connected) / N;
    ``VmHWM`` (the peak) too. It holds all the per-connection state:
    transport, protocol, decoder buffers, proxy players, running games and
    their logs, and whatever the allocator keeps.
floor (``--floor``): CPU per message and per game; host/floor
    The floor host's user + system CPU over its window, as for the host,
    divided by the messages the bots counted (the same kind of count as the
    host's), or by the games they saw end in the window (names seen ending
    / P). The bots' replies are the recorded ones (deterministic silly
    players answering the recorded questions), so the floor carries the very
    traffic the host did: the same messages per game, the same sign-ups,
    connects and hang-ups, through Twisted's reactor, the same system calls
    and loopback TCP. What it costs is the least any host written with
    Twisted pays on this machine; host/floor (the host's CPU per message
    over the floor's) is how far above that the host's own work puts it.
    The floor goes at the pace the bots set (it waits on them much of the
    time, so it drains fewer messages per wake-up than a busy host does):
    its figures are for that pace, and its games/s shows the bots' limit.
honest bots removed
    Every seat of every stored game of the run (not only the window) whose
    ``removed_reason`` is set, by reason: every bot answers at once and
    legally, so every removal is the host's doing. For a removal for no reply
    in time, the bots' records tell where the time went: the question reached
    the bot after the limit (the host's clock starts at its stamp), or the
    reply was written within the limit and read after it, or the bot itself
    was late. A bot whose hand holds fewer than 3 cards (a deck run short,
    after other removals) cannot play the silly strategy; it hangs up, as
    ``evolution-client`` does, and is counted among the removed.
games stored vs games the bots saw end
    A bot records each game it saw end (the host hung up after at least one
    start). Every such name must be a seat of a stored game; the names that
    are not are counted ("ended but not stored"), and so are the writes left
    in the store writer's journal (``<db>.pending``). Games the bots saw end
    = stored games all of whose seats they saw end + the missing names / P.
bots' side
    Each bot process's CPU over the window, its wait for a CPU, and its event
    loop's lateness (a 10 ms timer; p99 and max). Bots thinking for a few
    hundredths of a millisecond at p50, and a small share of a core, say that
    the host, not the bots, sets the pace.

``--profile FILE`` samples the host with py-spy (if on PATH; not a
dependency of the project) over the window; the figures of such a run are
not comparable with others. ``--keep`` keeps the host's store and log and the
bots' records. The machine's other load shows in every figure: compare runs
made on the same machine at about the same time, several of each.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.floor_host import FloorProcess
from evolution.host.demo import HostProcess, free_port
from evolution.host.store import ResultsStore
from evolution.rules.cards import Deck
from evolution.rules.local import play_local_game
from evolution.rules.silly import SillyPlayer

DEFAULT_BOTS = (100, 500, 1000, 2000)
ENGINE_GAMES = 200
ENGINE_BURST = 10
ENGINE_PAUSE = 0.2
CONNECT_RATE = 1000.0
DRAIN_LIMIT = 30.0
CLOCK_TICK = os.sysconf("SC_CLK_TCK")


@dataclass
class LoadResult:
    bots: int
    seconds: float
    players: int
    procs: int
    host_options: list[str]
    games: int = 0  # games that ended in the window
    games_per_s: float = 0.0
    messages: int = 0
    messages_per_game: float = 0.0
    host_cpu_s: float = 0.0
    host_user_s: float = 0.0
    host_cpu_per_game_ms: float = 0.0
    host_cpu_per_message_us: float = 0.0
    engine_cpu_per_game_ms: float = 0.0
    engine_games: int = 0  # in-process games played during the window
    engine_quiet_ms: list[float] = field(default_factory=list)  # CPU per game before and after the load
    ratio_to_engine: float = 0.0
    calls: int = 0
    latency_ms: dict[str, float] = field(default_factory=dict)  # p50, p99, max
    reply_wait_ms: dict[str, float] = field(default_factory=dict)  # p50, p99, max (max = longest stall)
    to_bot_ms: dict[str, float] = field(default_factory=dict)  # host's "out" stamp to the bot reading it
    bot_think_ms: dict[str, float] = field(default_factory=dict)  # the bot reading the question to writing
    rss_idle_kib: int = 0
    rss_loaded_kib: int = 0
    rss_peak_kib: int = 0
    rss_per_bot_kib: float = 0.0
    removed: int = 0
    removed_reasons: dict[str, int] = field(default_factory=dict)
    timeouts: dict[str, int] = field(default_factory=dict)  # removals for no reply, by where the time went
    removed_gave_up: int = 0  # of the removed: bots that hung up because the silly strategy had no answer
    games_stored: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    games_seen_end: int = 0
    ended_not_stored: int = 0
    stored_not_seen: int = 0
    pending_writes: int = 0
    reactor_run_percent: float = 0.0  # the host's main thread: on a CPU, % of the window
    reactor_wait_percent: float = 0.0  # the host's main thread: ready but waiting for a CPU
    host_wait_percent: float = 0.0  # all the host's threads: waiting for a CPU
    bot_wait_percent: list[float] = field(default_factory=list)
    listen_overflows: int = 0  # system-wide, in the window
    bots_at_t1: dict[str, int] = field(default_factory=dict)  # connecting, lobby, playing, done
    signup_s: dict[str, float] = field(default_factory=dict)  # connect to "ok", sign-ups of the window
    bot_errors: dict[str, int] = field(default_factory=dict)
    bot_cpu_percent: list[float] = field(default_factory=list)
    bot_lag_ms: dict[str, float] = field(default_factory=dict)  # worst process: p99, max
    floor_cpu_per_message_us: float = float("nan")  # the floor host (--floor): the same bots, the same games
    floor_cpu_per_game_ms: float = float("nan")
    floor_games_per_s: float = float("nan")
    floor_cpu_percent: float = float("nan")
    floor_bot_errors: dict[str, int] = field(default_factory=dict)
    folder: str = ""


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


def listen_overflows() -> int:
    """The system-wide count of connections dropped because a listen queue was full (TcpExt ListenOverflows)."""
    lines = [line.split() for line in Path("/proc/net/netstat").read_text().splitlines() if line.startswith("TcpExt:")]
    try:
        return int(dict(zip(lines[0], lines[1]))["ListenOverflows"])
    except (IndexError, KeyError, ValueError):
        return 0


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
                 stop: float, deadline: float, out: Path) -> None:
        self.out = out
        command = [
            sys.executable, "-m", "bench.swarm", "--port", str(port), "--first", str(first), "--count", str(count),
            "--begin", repr(begin), "--rate", repr(CONNECT_RATE), "--window", repr(window[0]), repr(window[1]),
            "--stop", repr(stop), "--deadline", repr(deadline), "--out", str(out),
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
                 out: Path) -> tuple[float, float]:
    """Start ``procs`` bot processes sharing ``bots`` bots (appended to ``swarms``, their records to
    ``out-K.json``): they begin to connect in 1.5 s; return the window (T0, T1) agreed with them."""
    begin = time.time() + 1.5  # the bot processes need about a second to start
    t0 = begin + bots / CONNECT_RATE + warmup
    t1 = t0 + seconds
    deadline = t1 + DRAIN_LIMIT + 30
    share, extra = divmod(bots, procs)
    first = 0
    for k in range(procs):
        count = share + (1 if k < extra else 0)
        swarms.append(SwarmProcess(port, first, count, begin, (t0, t1), t1, deadline, Path(f"{out}-{k}.json")))
        first += count
    return t0, t1


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


# -- one run --------------------------------------------------------------------------


def run_load(bots: int, seconds: float = 20.0, warmup: float = 8.0, players: int = 8, procs: int | None = None,
             host_options: list[str] | None = None, keep: bool = False, profile: Path | None = None,
             floor: bool = False) -> LoadResult:
    """Play N bots against a fresh host for a warm-up and a measured window; measure; with ``floor``, then
    the same against the floor host replaying the games the host stored (``run_floor``).

    The host's store, log and the bots' records go to a temporary folder, removed at the end unless ``keep``.
    """
    folder = Path(tempfile.mkdtemp(prefix=f"evolution-load-{bots}-"))
    try:
        result = _run(bots, seconds, warmup, players, procs, list(host_options or []), folder, profile)
        if floor:
            run_floor(result, warmup, folder)
        return result
    finally:
        if keep:
            print(f"load: the host's store and log, and the bots' records, are in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def _run(bots: int, seconds: float, warmup: float, players: int, procs: int | None, host_options: list[str],
         folder: Path, profile: Path | None) -> LoadResult:
    procs = procs or (1 if bots <= 500 else 2)
    raise_file_limit(bots + 256)
    result = LoadResult(bots, seconds, players, procs, host_options, folder=str(folder))
    engine_before = engine_cpu_per_game(players)

    db, log = folder / "results.sqlite", folder / "host.log"
    port = free_port()
    options = [option.replace("{port}", str(port)) for option in host_options]
    host = HostProcess(port, db, log, "--players", f"{players}-{players}", "--signup-window", "0.2", *options)
    swarms: list[SwarmProcess] = []
    spy = None
    try:
        host.wait_until_listening()
        time.sleep(1.0)
        result.rss_idle_kib = memory_kib(host.process.pid)["VmRSS"]
        t0, t1 = start_swarms(swarms, port, bots, procs, warmup, seconds, folder / "bots")
        spy = _profile(profile, host.process.pid, t0, seconds)
        sleep_until(t0)
        overflows_before = listen_overflows()
        host_before, bots_before = cpu_seconds(host.process.pid), [cpu_seconds(s.process.pid) for s in swarms]
        sched_before = [scheduler_seconds(pid) for pid in [host.process.pid] + [s.process.pid for s in swarms]]
        engine_during, result.engine_games = engine_until(t1, players)
        host_after, bots_after = cpu_seconds(host.process.pid), [cpu_seconds(s.process.pid) for s in swarms]
        sched_after = [scheduler_seconds(pid) for pid in [host.process.pid] + [s.process.pid for s in swarms]]
        result.listen_overflows = listen_overflows() - overflows_before
        memory = memory_kib(host.process.pid)
        drain(swarms, t1)
    finally:
        if spy is not None:
            spy.wait()
        stop_host(host)
        outputs = [swarm.result(limit=60) for swarm in swarms]

    engine_after = engine_cpu_per_game(players)
    result.engine_cpu_per_game_ms = 1000 * engine_during
    result.engine_quiet_ms = [1000 * engine_before, 1000 * engine_after]
    result.host_user_s = host_after[0] - host_before[0]
    result.host_cpu_s = result.host_user_s + host_after[1] - host_before[1]
    result.rss_loaded_kib, result.rss_peak_kib = memory["VmRSS"], memory["VmHWM"]
    result.rss_per_bot_kib = (result.rss_loaded_kib - result.rss_idle_kib) / bots
    share = [{key: 100 * (after[key] - before[key]) / seconds for key in after}
             for before, after in zip(sched_before, sched_after)]
    result.reactor_run_percent, result.reactor_wait_percent = share[0]["main_run"], share[0]["main_wait"]
    result.host_wait_percent = share[0]["wait"]
    result.bot_wait_percent = [figures["wait"] for figures in share[1:]]
    result.bot_cpu_percent = [
        100 * (after[0] + after[1] - before[0] - before[1]) / seconds for before, after in zip(bots_before, bots_after)
    ]
    _analyse(result, db, outputs, t0, t1)
    return result


def run_floor(result: LoadResult, warmup: float, folder: Path) -> None:
    """The same bots, warm-up and window against the floor host (``bench.floor_host``) replaying the games the
    real host stored in ``folder``; its CPU per message and per game go into ``result``."""
    port = free_port()
    floor = FloorProcess(port, folder / "results.sqlite", folder / "floor.log", result.players)
    swarms: list[SwarmProcess] = []
    try:
        floor.wait_until_listening(limit=60.0)  # it loads every stored game first
        t0, t1 = start_swarms(swarms, port, result.bots, result.procs, warmup, result.seconds, folder / "floor-bots")
        sleep_until(t0)
        before = cpu_seconds(floor.process.pid)
        sleep_until(t1)
        after = cpu_seconds(floor.process.pid)
        drain(swarms, t1)
    finally:
        stop_host(floor)
        outputs = [swarm.result(limit=60) for swarm in swarms]
    cpu = sum(after) - sum(before)
    games = sum(1 for output in outputs for _, at in output["ended"] if t0 <= at < t1) / result.players
    result.floor_cpu_per_message_us = 1e6 * cpu / max(window_messages(outputs), 1)
    result.floor_cpu_per_game_ms = 1000 * cpu / games if games else float("nan")
    result.floor_games_per_s = games / result.seconds
    result.floor_cpu_percent = 100 * cpu / result.seconds
    result.floor_bot_errors = dict(sum((Counter(output["errors"]) for output in outputs), Counter()))


def _profile(output: Path | None, pid: int, t0: float, seconds: float) -> subprocess.Popen | None:
    """py-spy (when asked for, and on PATH) samples the host over the window, 100 times a second, C frames
    included (garbage collection shows as ``gc_collect_main``). It stops the host for each sample: the figures
    of a profiled run are not comparable with others."""
    if output is None:
        return None
    spy = shutil.which("py-spy")
    if spy is None:
        print("load: --profile needs py-spy on PATH (pip install py-spy); not profiling", file=sys.stderr)
        return None
    kind = {".svg": "flamegraph", ".json": "speedscope"}.get(output.suffix, "raw")
    command = [spy, "record", "--pid", str(pid), "--rate", "100", "--duration", str(round(seconds)),
               "--format", kind, "--output", str(output), "--native"]
    sleep_until(t0)
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)


def _timestamp(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def window_messages(outputs: list[dict[str, Any]]) -> int:
    """Messages the bots sent and received in the window, as they counted them at T0 and T1."""
    windows = [output["window"] for output in outputs]
    return sum(window["t1"][k] - window["t0"][k] for window in windows if "t0" in window and "t1" in window
               for k in ("sent", "received"))


def _analyse(result: LoadResult, db: Path, outputs: list[dict[str, Any]], t0: float, t1: float) -> None:
    signups: list[float] = []
    result.messages = window_messages(outputs)
    for output in outputs:
        window = output["window"]
        if "t0" in window and "t1" in window:
            for state in ("connecting", "lobby", "playing", "done"):
                result.bots_at_t1[state] = result.bots_at_t1.get(state, 0) + window["t1"].get(state, 0)
        signups += [seconds for at, seconds in output.get("signups", ()) if t0 <= at < t1]
        for error, count in output["errors"].items():
            result.bot_errors[error] = result.bot_errors.get(error, 0) + count
    result.signup_s = percentiles(signups)
    lags = [output["lag"] for output in outputs if output["lag"].get("max") is not None]
    if lags:
        result.bot_lag_ms = {"p99": max(lag["p99"] for lag in lags), "max": max(lag["max"] for lag in lags)}
    replies: dict[str, list] = {}
    ended: set[str] = set()
    for output in outputs:
        replies.update(output["replies"])
        ended.update(name for name, _ in output["ended"])

    store = ResultsStore.open(db)
    try:
        games = store.games()
        parts: dict[str, list[float]] = {"latency": [], "wait": [], "think": [], "to_bot": []}
        stored_names: set[str] = set()
        outcomes: Counter[str] = Counter()
        reasons: Counter[str] = Counter()
        timeouts: Counter[str] = Counter()
        in_window = 0
        for game in games:
            outcomes[game.outcome] += 1
            names = {seat.seat: seat.name for seat in game.players}
            stored_names.update(names.values())
            for seat in game.players:
                if seat.removed_reason is not None:
                    reasons[seat.removed_reason] += 1
            started, ended_at = _timestamp(game.started_at), _timestamp(game.ended_at)
            if t0 <= ended_at < t1:
                in_window += 1
            timed_out = [seat for seat in game.players if (seat.removed_reason or "").startswith("no reply")]
            if timed_out:
                limit = float(game.settings.get("timeout", 1.0))
                _timeouts(store.game_log(game.id) or [], started, timed_out, replies, limit, timeouts)
            if ended_at < t0 or started >= t1:
                continue
            _calls(store.game_log(game.id) or [], started, names, replies, t0, t1, parts)
    finally:
        store.close()

    result.games = in_window
    result.games_per_s = in_window / result.seconds
    result.host_cpu_per_game_ms = 1000 * result.host_cpu_s / in_window if in_window else float("nan")
    result.host_cpu_per_message_us = 1e6 * result.host_cpu_s / result.messages if result.messages else float("nan")
    result.messages_per_game = result.messages / in_window if in_window else float("nan")
    result.ratio_to_engine = result.host_cpu_per_game_ms / result.engine_cpu_per_game_ms
    result.calls = len(parts["latency"])
    result.latency_ms = percentiles(parts["latency"])
    result.reply_wait_ms = percentiles(parts["wait"])
    result.to_bot_ms = percentiles(parts["to_bot"])
    result.bot_think_ms = percentiles(parts["think"])
    gave_up = {name for output in outputs for name in output.get("gave_up", ())}
    result.removed_gave_up = sum(1 for game in games for seat in game.players
                                 if seat.removed_reason is not None and seat.name in gave_up)
    result.timeouts = dict(timeouts.most_common())
    result.removed = sum(reasons.values())
    result.removed_reasons = dict(reasons.most_common())
    result.games_stored = len(games)
    result.outcomes = dict(outcomes)
    missing = ended - stored_names
    result.ended_not_stored = len(missing)
    result.stored_not_seen = len(stored_names - ended)
    seen_stored = sum(1 for game in games if all(seat.name in ended for seat in game.players))
    result.games_seen_end = seen_stored + -(-len(missing) // result.players)
    pending = db.with_name(db.name + ".pending")
    result.pending_writes = len(pending.read_text().splitlines()) if pending.exists() else 0


def _calls(log: list, started: float, names: dict[int, str], replies: dict[str, list], t0: float, t1: float,
           parts: dict[str, list[float]]) -> None:
    """One game's calls whose reply the host read in the window: latency and its three parts, in ms."""
    asked: dict[int, int] = {}
    read: Counter[int] = Counter()
    for entry in log:
        ms, seat, kind = entry[0], entry[1], entry[2]
        if kind == "out":
            asked[seat] = ms
        elif kind == "in":
            k = read[seat]
            read[seat] += 1
            at = started + (ms + 0.5) / 1000  # started_at is truncated to the ms, the stamps rounded
            if not t0 <= at < t1 or seat not in asked:
                continue
            parts["latency"].append(ms - asked[seat])
            bot = replies.get(names.get(seat, ""))
            if bot is not None and k < len(bot):
                question_read, reply_written = bot[k]
                parts["wait"].append((at - reply_written) * 1000)
                parts["think"].append((reply_written - question_read) * 1000)
                parts["to_bot"].append((question_read - started - (asked[seat] + 0.5) / 1000) * 1000)


LATE_QUESTION = "the question reached the bot after the limit"
LATE_READ = "the bot's reply was written within the limit, the host read it after"
LATE_BOT = "the bot wrote its reply after the limit"
NO_REPLY = "the bot wrote no reply"


def _timeouts(log: list, started: float, seats: list, replies: dict[str, list], limit: float,
              timeouts: Counter[str]) -> None:
    """Where the time went for each seat removed for not answering in time (from the bots' records)."""
    for seat in seats:
        asked = [entry[0] for entry in log if entry[1] == seat.seat and entry[2] == "out"]
        answered = sum(1 for entry in log if entry[1] == seat.seat and entry[2] == "in")
        bot = replies.get(seat.name, [])
        if not asked or answered >= len(bot):
            timeouts[NO_REPLY] += 1
            continue
        question_at = started + (asked[-1] + 0.5) / 1000
        question_read, reply_written = bot[answered]
        if question_read - question_at > limit:
            timeouts[LATE_QUESTION] += 1
        elif reply_written - question_at <= limit:
            timeouts[LATE_READ] += 1
        else:
            timeouts[LATE_BOT] += 1


# -- output ---------------------------------------------------------------------------


def describe(result: LoadResult) -> str:
    lat, wait = result.latency_ms, result.reply_wait_ms
    lines = [
        f"{result.bots} bots in {result.procs} process(es), {result.players}-player games, "
        f"{result.seconds:g} s window ({result.games} games, {result.messages} messages, {result.calls} calls)"
        + (f", host options {' '.join(result.host_options)}" if result.host_options else ""),
        f"  games/s {result.games_per_s:.1f}; {result.messages_per_game:.0f} messages per game",
        f"  host CPU {100 * result.host_cpu_s / result.seconds:.0f}% of a core "
        f"({100 * result.host_user_s / max(result.host_cpu_s, 1e-9):.0f}% user): "
        f"{result.host_cpu_per_game_ms:.2f} ms per game, {result.host_cpu_per_message_us:.0f} us per message",
        f"  host's reactor thread: running {result.reactor_run_percent:.0f}% of the window, waiting for a CPU "
        f"{result.reactor_wait_percent:.0f}%, idle or blocked the rest",
        f"  in-process engine {result.engine_cpu_per_game_ms:.3f} ms CPU per game during the window "
        f"({result.engine_games} games; {' before, '.join(f'{x:.3f}' for x in result.engine_quiet_ms)} after "
        f"the load); host/engine "
        f"{result.ratio_to_engine:.1f}x",
        f"  call latency (host's log) p50 {lat['p50']:.0f} ms, p99 {lat['p99']:.0f} ms, max {lat['max']:.0f} ms",
        f"  reply wait on the host p50 {wait['p50']:.1f} ms, p99 {wait['p99']:.1f} ms; "
        f"longest reactor stall {wait['max']:.0f} ms",
        f"  a call's parts, p50/p99/max: host's stamp to the bot reading the question "
        f"{_three(result.to_bot_ms)} ms, bot thinking {_three(result.bot_think_ms, 2)} ms, "
        f"reply waiting on the host {_three(result.reply_wait_ms)} ms",
        f"  at T1: {result.bots_at_t1.get('playing', 0)} bots playing, {result.bots_at_t1.get('lobby', 0)} in a lobby, "
        f"{result.bots_at_t1.get('connecting', 0)} signing up; sign-up (connect to \"ok\") p50/p99/max "
        f"{_three(result.signup_s, 3)} s; listen-queue overflows in the window {result.listen_overflows} "
        f"(whole machine)",
        f"  host RSS idle {result.rss_idle_kib / 1024:.1f} MiB, loaded {result.rss_loaded_kib / 1024:.1f} MiB "
        f"(peak {result.rss_peak_kib / 1024:.1f}): {result.rss_per_bot_kib:.1f} KiB per connected bot",
        f"  honest bots removed {result.removed}"
        + (f" ({'; '.join(f'{n}x {r}' for r, n in list(result.removed_reasons.items())[:3])})" if result.removed else "")
        + "".join(f"\n    {count} timeouts: {why}" for why, count in result.timeouts.items())
        + (f"\n    {result.removed_gave_up} of them hung up because the silly strategy had no answer (a hand of "
           f"fewer than 3 cards, after other removals)" if result.removed_gave_up else ""),
        f"  games stored {result.games_stored} ({', '.join(f'{n} {o}' for o, n in result.outcomes.items())}); "
        f"games the bots saw end {result.games_seen_end}; seats ended but not stored {result.ended_not_stored}"
        + (f"; writes still pending {result.pending_writes}" if result.pending_writes else ""),
        f"  bots' side: CPU {', '.join(f'{p:.0f}%' for p in result.bot_cpu_percent)} per process, waiting for a CPU "
        f"{', '.join(f'{p:.0f}%' for p in result.bot_wait_percent)}; loop lateness "
        f"p99 {result.bot_lag_ms.get('p99', float('nan')):.1f} ms, max {result.bot_lag_ms.get('max', float('nan')):.0f} ms"
        + (f"; errors {result.bot_errors}" if result.bot_errors else ""),
    ]
    if _has_floor(result):
        lines.append(
            f"  floor (bare Twisted, same traffic): {result.floor_cpu_per_message_us:.1f} us per message, "
            f"{result.floor_cpu_per_game_ms:.2f} ms per game; the host is {_host_to_floor(result):.1f} times the "
            f"floor (floor: {result.floor_games_per_s:.0f} games/s, CPU {result.floor_cpu_percent:.0f}% of a core)"
            + (f"; errors {result.floor_bot_errors}" if result.floor_bot_errors else ""))
    return "\n".join(lines)


def _has_floor(result: LoadResult) -> bool:
    return not math.isnan(result.floor_games_per_s)


def _host_to_floor(result: LoadResult) -> float:
    return result.host_cpu_per_message_us / result.floor_cpu_per_message_us


def _three(figures: dict[str, float], digits: int = 1) -> str:
    return "/".join(f"{figures.get(key, float('nan')):.{digits}f}" for key in ("p50", "p99", "max"))


def table(results: list[LoadResult]) -> str:
    """The figures as a markdown table; with floor columns if the floor was run."""
    floor = any(_has_floor(r) for r in results)
    head = ("| bots | games/s | host CPU/game | host CPU/msg | host/engine | latency p50/p99/max | "
            "longest stall | RSS/bot | removed | stored/seen |" + (" floor CPU/game | floor CPU/msg | host/floor |"
                                                                   if floor else ""))
    rows = [head, "|" + "---|" * (13 if floor else 10)]
    for r in results:
        lat = r.latency_ms
        rows.append(
            f"| {r.bots} | {r.games_per_s:.1f} | {r.host_cpu_per_game_ms:.1f} ms | {r.host_cpu_per_message_us:.0f} us | "
            f"{r.ratio_to_engine:.0f}x | {lat['p50']:.0f}/{lat['p99']:.0f}/{lat['max']:.0f} ms | "
            f"{r.reply_wait_ms['max']:.0f} ms | {r.rss_per_bot_kib:.0f} KiB | {r.removed} | "
            f"{r.games_stored}/{r.games_seen_end} |"
            + (f" {r.floor_cpu_per_game_ms:.2f} ms | {r.floor_cpu_per_message_us:.1f} us | {_host_to_floor(r):.1f}x |"
               if floor else "")
        )
    return "\n".join(rows)


def parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench load", description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="+", default=list(DEFAULT_BOTS), help="bot counts to run")
    parser.add_argument("--seconds", type=float, default=20.0, help="measured window, seconds (default 20)")
    parser.add_argument("--warmup", type=float, default=8.0, help="seconds of play before the window (default 8)")
    parser.add_argument("--players", type=int, default=8, choices=range(3, 9), metavar="3..8")
    parser.add_argument("--procs", type=int, default=None, help="bot processes (default 1 up to 500 bots, else 2)")
    parser.add_argument("--host-option", action="append", default=[], metavar="OPTION",
                        help="one more twistd evolution option, e.g. --host-option=--parallel-choose; {port} "
                             "stands for the host's port: "
                             "--host-option=--port=tcp:{port}:interface=127.0.0.1:backlog=1024")
    parser.add_argument("--floor", action="store_true",
                        help="after each host's run, the same bots against the floor host (bare Twisted) "
                             "replaying the games the host stored; on when no option is given (make bench)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the host's store and log and the bots' records")
    parser.add_argument("--profile", type=Path, metavar="FILE",
                        help="sample the host with py-spy over the window: FILE.svg (flame graph), FILE.json "
                             "(speedscope) or collapsed stacks; with one --bots value")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    """``python -m bench load [options]``; with no options (``make bench``), as ``--floor``."""
    args = parse(argv or ["--floor"])
    results = []
    for bots in args.bots:
        result = run_load(bots, args.seconds, args.warmup, args.players, args.procs, args.host_option, args.keep,
                          args.profile, args.floor)
        print(describe(result), flush=True)
        results.append(result)
    print()
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
