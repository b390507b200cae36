"""The figures of one load run: ``LoadResult``, which ``bench.bench_load`` fills in (measuring the host and the
bots, ``bench.load_analysis`` reading the store and the bots' records) and ``bench.load_report`` prints. What each
figure means and how it is measured: the docstring of ``bench/bench_load.py``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class LoadResult:
    bots: int
    seconds: float
    players: int
    procs: int
    host_options: list[str]
    games: int = 0  # games that ended in the window, as stored (ended_at in the window)
    games_per_s: float = 0.0
    games_played: float = 0.0  # games the bots saw end in the window (seat ends / players)
    played_per_s: float = 0.0
    host_cpu_per_played_game_ms: float = float("nan")  # the host's CPU over the games played, not stored
    signup_cpu_per_game_ms: float = float("nan")  # the signing-up process's CPU per game played
    store_cpu_per_game_ms: float = float("nan")  # the store process's CPU per game stored
    stored_at_t1: int = 0  # games in the store at T1 (all, since the start)
    backlog_at_t1: float = 0.0  # games the bots saw end before T1 not in the store at T1: handed, not yet written
    journal_at_t1: int = 0  # of them, game ends in the journal (writes the database refused, kept for later)
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
    floor_workers: dict[str, Any] = field(default_factory=dict)  # the floor with the host's workers (bench.floor_host)
    workers: int = 0  # the host's worker processes (0: one process)
    main_cpu_s: float = 0.0  # the process that signs players up
    store_cpu_s: float = 0.0  # the store process, the single writer (in host_cpu_s)
    workers_cpu_s: float = 0.0
    web_cpu_s: float = 0.0  # the web view's process, if any (not in host_cpu_s)
    game_messages: int = 0  # messages in the window, sign-ups and their answers left out (the workers' part)
    worker_cpu_per_message_us: float = float("nan")
    peak_kib: dict[str, int] = field(default_factory=dict)  # peak resident memory by process kind
    bot_wait_ms: dict[str, float] = field(default_factory=dict)  # a bot's reply written to its next question read
    visitors: dict[str, Any] = field(default_factory=dict)  # the web view's visitors (--web under fire)
    folder: str = ""
