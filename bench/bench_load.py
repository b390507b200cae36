"""Load: one host process under many bots; what one game and one message cost it.

``python -m bench load [--bots N ...] [--seconds S] [--warmup W] [--players P]
[--procs K] [--host-option=OPTION ...] [--floor] [--keep] [--profile FILE]
[--json FILE]``; ``--compare-workers`` / ``--compare-web [--rounds R]``: runs
side by side (``bench.load_compare``: one process against worker processes;
the web view quiet against under fire). ``make bench`` runs 500 and 2,000
bots with ``--floor``, then both comparisons at 500. ``run_load`` is also what
``make soak`` (``bench/soak.py``) uses. Nothing here asserts a speed.

The setup, for each N
---------------------

- The host: ``twistd -n evolution --players P-P --signup-window 0.2`` in a
  child process (``evolution.cli.demo.HostProcess``) on a free loopback
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
  processes, with the same warm-up and window length; for a host with
  worker processes, then the floor with as many workers (``--workers``:
  each game's sockets handed over, its log sent back) the same way.

The figures, and how each is measured
-------------------------------------

games/s
    Stored games whose ``ended_at`` (the host's clock; the same machine's as
    the window's) falls in the window, divided by S; beside them the games
    played (the bots saw end in the window: seat ends / P), and the journal's
    backlog at T1 (game ends the store had not yet written). The CPU per game
    is printed per game played and per game stored.
host CPU, per game and per message
    The host's user + system CPU time over the window: ``utime`` + ``stime``
    of ``/proc/PID/stat`` at T0 and T1 of its process and of each worker
    process (``--workers``; the web view's process is counted apart), all
    threads; 10 ms ticks, small against seconds. The host's processes are
    every process below it in the process tree, read again at T0. Divided by the games above,
    or by the messages: every message the bots sent or received in the
    window, both directions, sign-ups and their "ok" included, as the bots
    counted them at T0 and T1. A worker's CPU per message: the workers' CPU
    over those messages less the sign-ups and their answers (the signing-up
    process's part). A bot's wait for its next question: from its reply
    written to its next question read (the host's turnaround and the other
    players' turns).
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
    With workers, the bare floor with workers: its CPU per game (all its
    processes) against the one-process floor's, the share of it its
    signing-up process took, a worker's CPU per message (sign-ups left out).
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
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict
from pathlib import Path
from typing import Any

from bench.floor_host import FloorProcess
from bench.load_analysis import analyse, window_messages
from bench.load_processes import (
    ProgressLines,
    SwarmProcess,
    cpu_by_kind,
    cpu_seconds,
    drain,
    engine_cpu_per_game,
    engine_until,
    host_processes,
    journal_backlog,
    listen_overflows,
    memory_kib,
    more_processes,
    stored_games,
    peak_memory_by_kind,
    raise_file_limit,
    scheduler_seconds,
    sleep_until,
    start_swarms,
    stop_host,
    workers_of,
)
from bench.load_compare import compare_web, compare_workers, web_report, workers_report
from bench.load_report import describe, table
from bench.load_result import LoadResult
from bench.web_visitors import start_visitors, visitor_results
from evolution.testing import free_port, HostProcess

DEFAULT_BOTS = (100, 500, 1000, 2000)


# -- one run --------------------------------------------------------------------------


def run_load(bots: int, seconds: float = 20.0, warmup: float = 8.0, players: int = 8, procs: int | None = None,
             host_options: list[str] | None = None, keep: bool = False, profile: Path | None = None,
             floor: bool = False, progress: float | None = None, visitors: bool = False,
             calls: bool = True) -> LoadResult:
    """Play N bots against a fresh host for a warm-up and a measured window; measure; with ``floor``, then
    the same against the floor host replaying the games the host stored (``run_floor``); with ``visitors``
    (and ``--web=tcp:{web}...`` among the host's options), the web view's hurtful visitors through the window.

    The host's store, log and the bots' records go to a temporary folder, removed at the end unless ``keep``.
    With ``progress`` (seconds), a line that often says how far the host's run is (``ProgressLines``). Without
    ``calls``, the calls' latencies are not read from the games' logs (seconds of work after a big run).
    """
    folder = Path(tempfile.mkdtemp(prefix=f"evolution-load-{bots}-"))
    ticker = ProgressLines("load", folder / "results.sqlite", progress) if progress else None
    try:
        result = _run(bots, seconds, warmup, players, procs, list(host_options or []), folder, profile, ticker,
                      visitors, calls)
        if ticker is not None:
            ticker.stop()
        if floor:
            run_floor(result, warmup, folder)
        return result
    finally:
        if ticker is not None:
            ticker.stop()
        if keep:
            print(f"load: the host's store and log, and the bots' records, are in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def _run(bots: int, seconds: float, warmup: float, players: int, procs: int | None, host_options: list[str],
         folder: Path, profile: Path | None, ticker: ProgressLines | None = None, visitors: bool = False,
         calls: bool = True) -> LoadResult:
    procs = procs or (1 if bots <= 500 else 2)
    raise_file_limit(bots + 256)
    result = LoadResult(bots, seconds, players, procs, host_options, folder=str(folder))
    result.workers = workers_of(host_options)
    engine_before = engine_cpu_per_game(players)

    db, log = folder / "results.sqlite", folder / "host.log"
    port, web = free_port(), free_port()
    options = [option.replace("{port}", str(port)).replace("{web}", str(web)) for option in host_options]
    host = HostProcess(port, db, log, "--players", f"{players}-{players}", "--signup-window", "0.2", *options)
    swarms: list[SwarmProcess] = []
    spy = hurting = None
    try:
        host.wait_until_listening()
        kinds = host_processes(host.process.pid, 1 + result.workers + any(o.startswith("--web") for o in options))
        time.sleep(1.0)
        result.rss_idle_kib = memory_kib(host.process.pid)["VmRSS"]
        t0, t1 = start_swarms(swarms, port, bots, procs, warmup, seconds, folder / "bots")
        if ticker is not None:
            ticker.window = (t0, t1)
        spy = _profile(profile, host.process.pid, t0, seconds)
        if visitors:
            sleep_until(t0 - 2)
            hurting = start_visitors(web, t1 - time.time())
        sleep_until(t0)
        kinds = more_processes(kinds)  # a worker that started late
        overflows_before = listen_overflows()
        host_before, bots_before = cpu_by_kind(kinds), [cpu_seconds(s.process.pid) for s in swarms]
        user_before = cpu_seconds(host.process.pid)[0]
        sched_before = [scheduler_seconds(pid) for pid in [host.process.pid] + [s.process.pid for s in swarms]]
        engine_during, result.engine_games = engine_until(t1, players)
        host_after, bots_after = cpu_by_kind(kinds), [cpu_seconds(s.process.pid) for s in swarms]
        user_after = cpu_seconds(host.process.pid)[0]
        sched_after = [scheduler_seconds(pid) for pid in [host.process.pid] + [s.process.pid for s in swarms]]
        result.listen_overflows = listen_overflows() - overflows_before
        result.stored_at_t1 = stored_games(db)
        result.journal_at_t1 = journal_backlog(db.with_name(db.name + ".pending"))
        memory = memory_kib(host.process.pid)
        result.peak_kib = peak_memory_by_kind(kinds)
        drain(swarms, t1)
    finally:
        if spy is not None:
            spy.wait()
        if hurting is not None:
            result.visitors = visitor_results(hurting, web)
        stop_host(host)
        outputs = [swarm.result(limit=60) for swarm in swarms]

    engine_after = engine_cpu_per_game(players)
    result.engine_cpu_per_game_ms = 1000 * engine_during
    result.engine_quiet_ms = [1000 * engine_before, 1000 * engine_after]
    spent = {kind: host_after.get(kind, 0.0) - host_before.get(kind, 0.0) for kind in host_after}
    result.main_cpu_s, result.store_cpu_s, result.workers_cpu_s, result.web_cpu_s = (
        spent.get(k, 0.0) for k in ("host", "store", "worker", "web"))
    result.host_cpu_s = result.main_cpu_s + result.store_cpu_s + result.workers_cpu_s
    result.host_user_s = user_after - user_before  # the signing-up process's
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
    analyse(result, db, outputs, t0, t1, calls)
    return result


def run_floor(result: LoadResult, warmup: float, folder: Path) -> None:
    """The same bots, warm-up and window against the floor host (``bench.floor_host``) replaying the games the
    real host stored in ``folder``; its CPU per message and per game go into ``result``. For a host with worker
    processes, then the floor with as many workers: its CPU per game, the signing-up process's share of it and a
    worker's CPU per message go into ``result.floor_workers``."""
    floor = _floor_run(result, warmup, folder, 0)
    result.floor_cpu_per_message_us = 1e6 * floor["cpu"] / max(floor["messages"], 1)
    result.floor_cpu_per_game_ms = 1000 * floor["cpu"] / floor["games"] if floor["games"] else float("nan")
    result.floor_games_per_s = floor["games"] / result.seconds
    result.floor_cpu_percent = 100 * floor["cpu"] / result.seconds
    result.floor_bot_errors = floor["errors"]
    if result.workers:
        pooled = _floor_run(result, warmup, folder, result.workers)
        games = pooled["games"] or float("nan")
        result.floor_workers = {
            "cpu_per_game_ms": 1000 * pooled["cpu"] / games,
            "signing_up_share": pooled["main"] / pooled["cpu"] if pooled["cpu"] else float("nan"),
            "worker_cpu_per_message_us": 1e6 * pooled["workers"] / max(pooled["game_messages"], 1),
            "games_per_s": pooled["games"] / result.seconds,
            "errors": pooled["errors"],
        }


def _floor_run(result: LoadResult, warmup: float, folder: Path, workers: int) -> dict[str, Any]:
    """One floor run: its CPU over the window (all its processes; ``main``: the first's, ``workers``: the rest),
    the games the bots saw end and the messages they counted in the window (``game_messages``: sign-ups left out)."""
    port = free_port()
    floor = FloorProcess(port, folder / "results.sqlite", folder / f"floor-{workers}.log", result.players, workers)
    swarms: list[SwarmProcess] = []
    try:
        floor.wait_until_listening(limit=60.0)  # it loads every stored game first
        kinds = host_processes(floor.process.pid, workers)
        t0, t1 = start_swarms(swarms, port, result.bots, result.procs, warmup, result.seconds,
                              folder / f"floor-bots-{workers}")
        sleep_until(t0)
        before = cpu_by_kind(kinds)
        sleep_until(t1)
        after = cpu_by_kind(kinds)
        drain(swarms, t1)
    finally:
        stop_host(floor)
        outputs = [swarm.result(limit=60) for swarm in swarms]
    spent = {kind: after[kind] - before.get(kind, 0.0) for kind in after}
    messages = window_messages(outputs)
    signups = sum(1 for output in outputs for at, _ in output.get("signups", ()) if t0 <= at < t1)
    return {
        "cpu": sum(spent.values()), "main": spent.get("host", 0.0), "workers": spent.get("worker", 0.0),
        "games": sum(1 for output in outputs for _, at in output["ended"] if t0 <= at < t1) / result.players,
        "messages": messages, "game_messages": messages - 2 * signups,
        "errors": dict(sum((Counter(output["errors"]) for output in outputs), Counter())),
    }


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
    parser.add_argument("--compare-workers", action="store_true",
                        help="instead, at the first --bots size: one process against worker processes, side by "
                             "side, --rounds pairs (bench.load_compare)")
    parser.add_argument("--compare-web", action="store_true",
                        help="instead, at the first --bots size: the web view quiet against under fire, side by "
                             "side, --rounds pairs (bench.load_compare)")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of runs to compare (default 2)")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--keep", action="store_true", help="keep the host's store and log and the bots' records")
    parser.add_argument("--profile", type=Path, metavar="FILE",
                        help="sample the host with py-spy over the window: FILE.svg (flame graph), FILE.json "
                             "(speedscope) or collapsed stacks; with one --bots value")
    return parser.parse_args(argv)


MAKE_BENCH = ["--bots", "500", "2000", "--floor"]
MAKE_BENCH_COMPARE = ["--bots", "500", "--seconds", "15", "--compare-workers", "--compare-web"]


def main(argv: list[str] | None = None) -> None:
    """``python -m bench load [options]``; with no options (``make bench``): 500 and 2,000 bots with the floor,
    then both comparisons at 500 bots (15 s windows, two pairs each)."""
    args = parse(argv or MAKE_BENCH)
    if args.compare_workers or args.compare_web:
        compare(args)
    else:
        sizes(args)
    if not argv:
        compare(parse(MAKE_BENCH_COMPARE))


def sizes(args: argparse.Namespace) -> None:
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


def compare(args: argparse.Namespace) -> None:
    def run(bots: int, **how: Any) -> LoadResult:
        result = run_load(bots, args.seconds, args.warmup, args.players, args.procs, keep=args.keep, **how)
        print(describe(result), flush=True)
        return result

    if args.compare_workers:
        pairs = compare_workers(run, args.bots[0], args.rounds)
        print("\n### one process against worker processes, side by side\n")
        print(workers_report(pairs), flush=True)
    if args.compare_web:
        pairs = compare_web(run, args.bots[0], args.rounds)
        print("\n### the web view quiet against under fire, side by side\n")
        print(web_report(pairs), flush=True)
