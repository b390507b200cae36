"""Load runs side by side: the host in one process against worker processes, and its web view quiet against
under fire. Part of ``python -m bench load`` (``--compare-workers``, ``--compare-web``; both in ``make bench``).

``compare_workers(bots, rounds)``: ``rounds`` pairs of runs at the same size, alternately in either order (the
machine's other load drifts): ``--workers 0``, then ``--workers N`` (the number of cores) with the floors after it
(``bench.bench_load.run_floor``: bare Twisted in one process, then with N workers). Per pair: the total host CPU per game (every process of the host) and its ratio,
the signing-up process's share of it and the store process's, a worker's CPU per message (the workers' CPU over the window's messages
without the sign-ups, which the signing-up process answers) against the floor's CPU per message, and the host's
CPU as a share of one core; the bare floor with workers against the one-process floor (CPU per game) and its
signing-up share. ``workers_report`` prints them with the arithmetic of what N cores carry, and of what the
signing-up share and a worker's CPU per message at their goals together leave the signing-up process, against
what the bare floor's signing-up process takes.

``compare_web(bots, rounds)``: pairs of runs with the web view on (its own process): quiet, then under fire
(``bench.web_visitors``: 8 processes flooding ``/api/games?limit=500`` and 4 connections pipelining game 1's
replay without reading, at nice 10, from 2 s before the window to its end). Per pair: games/s, a bot's wait for
its next question (p99), the host's and the web view's peak memory, bots refused (sign-up errors) and removed.
"""

from __future__ import annotations

import math
import os
from typing import Any, Callable

from bench.load_result import LoadResult
from bench.web_visitors import FLOODERS, PIPELINERS
from evolution.web.visitor_bounds import MAX_CONNECTIONS

WEB = "--web=tcp:{web}:interface=127.0.0.1"
Pair = tuple[LoadResult, LoadResult]


def _pairs(rounds: int, first: Callable[[], LoadResult], second: Callable[[], LoadResult]) -> list[Pair]:
    pairs = []
    for index in range(rounds):
        if index % 2 == 0:
            one = first()
            two = second()
        else:
            two = second()
            one = first()
        pairs.append((one, two))
    return pairs


def compare_workers(run: Callable[..., LoadResult], bots: int, rounds: int, **window: Any) -> list[Pair]:
    workers = os.cpu_count() or 1
    return _pairs(
        rounds,
        lambda: run(bots, host_options=["--workers=0"], **window),
        lambda: run(bots, host_options=[f"--workers={workers}"], floor=True, **window),
    )


def compare_web(run: Callable[..., LoadResult], bots: int, rounds: int, **window: Any) -> list[Pair]:
    return _pairs(
        rounds,
        lambda: run(bots, host_options=[WEB], **window),
        lambda: run(bots, host_options=[WEB], visitors=True, **window),
    )


def _share(result: LoadResult) -> float:
    """The signing-up process's share of the host's CPU."""
    return result.main_cpu_s / result.host_cpu_s if result.host_cpu_s else math.nan


def _store_share(result: LoadResult) -> float:
    """The store process's share of the host's CPU: the other process each game needs once."""
    return result.store_cpu_s / result.host_cpu_s if result.host_cpu_s else math.nan


def workers_report(pairs: list[Pair]) -> str:
    rows = [
        "| pair | bots | one process: CPU/game, games/s | workers: CPU/game, games/s | ratio (at most 1.15) | "
        "signing-up share (at most 15%) | store share | host CPU, % of a core | worker CPU/msg | floor CPU/msg | "
        "worker/floor (at most 2.5) | bare floor with workers: ratio, signing-up share |",
        "|" + "---|" * 12,
    ]
    for index, (one, pooled) in enumerate(pairs, start=1):
        bare = pooled.floor_workers
        rows.append(
            f"| {index} | {one.bots} | {one.host_cpu_per_game_ms:.2f} ms, {one.games_per_s:.0f} | "
            f"{pooled.host_cpu_per_game_ms:.2f} ms, {pooled.games_per_s:.0f} | "
            f"{pooled.host_cpu_per_game_ms / one.host_cpu_per_game_ms:.2f} | {100 * _share(pooled):.1f}% | "
            f"{100 * _store_share(pooled):.1f}% | {100 * one.host_cpu_s / one.seconds:.0f}% / {100 * pooled.host_cpu_s / pooled.seconds:.0f}% | "
            f"{pooled.worker_cpu_per_message_us:.1f} us | {pooled.floor_cpu_per_message_us:.1f} us | "
            f"{pooled.worker_cpu_per_message_us / pooled.floor_cpu_per_message_us:.2f} | "
            + (f"{bare['cpu_per_game_ms'] / pooled.floor_cpu_per_game_ms:.2f}, {100 * bare['signing_up_share']:.1f}% |"
               if bare else "- |")
        )
    return "\n".join(rows + ["", _arithmetic(pairs), "", _against_the_floor(pairs)])


def _arithmetic(pairs: list[Pair]) -> str:
    """What N cores carry, from the worst pair: r (total CPU per game over one process's) and s (the larger share
    of the two processes every game passes through once, the signing-up process and the store process)."""
    cores = os.cpu_count() or 1
    r = max(pooled.host_cpu_per_game_ms / one.host_cpu_per_game_ms for one, pooled in pairs)
    s = max(max(_share(pooled), _store_share(pooled)) for _, pooled in pairs)
    carried = min(1 / r, 1 / (s * r * cores))
    most = math.floor(1 / (0.8 * s * r)) if s > 0 else math.inf
    return (
        f"N cores carry min(N / (r c), 1 / (s r c)) games a second, against N / c for one process on each of "
        f"N cores (c: one process's CPU per game; the signing-up process and the store process are one core each at most, s the larger share). Worst pair: "
        f"r = {r:.2f}, s = {100 * s:.1f}%: N cores carry min(1/r, 1/(s r N)) = {carried:.2f} N times one core's "
        f"games at N = {cores} (0.8 N needs 1/r >= 0.8 and N <= 1/(0.8 s r) = {most})."
    )


def _against_the_floor(pairs: list[Pair]) -> str:
    """What the goals leave the host for the parts the bare floor with workers (``bench.floor_host --workers``)
    also has, against what that floor spends on them: from the pair whose floor spends least, per game."""
    usable = [(number, one, pooled) for number, (one, pooled) in enumerate(pairs, start=1)
              if pooled.floor_workers and pooled.games]
    if not usable:
        return "(no bare floor with workers in these runs)"
    number, one, pooled = min(usable, key=lambda row: row[2].floor_workers["cpu_per_game_ms"])
    bare = pooled.floor_workers
    bare_extra = bare["cpu_per_game_ms"] - pooled.floor_cpu_per_game_ms
    bare_signing_up = bare["cpu_per_game_ms"] * bare["signing_up_share"]
    messages = pooled.game_messages / pooled.games  # a game's messages in a worker, sign-ups left out
    worker = 2.5 * pooled.floor_cpu_per_message_us * messages / 1000
    store = 1000 * pooled.store_cpu_s / pooled.games
    signing_up = 0.15 / 0.85 * (worker + store)
    return (
        f"Against the bare floor with workers (pair {number}: bare Twisted accepting, "
        f"answering each sign-up \"ok\", handing each game's sockets over in one sendmsg, replaying it in a worker "
        f"and reading its log back, nothing else). The ratio: with workers the floor spends {bare_extra:.2f} ms a "
        f"game more than in one process ({bare['cpu_per_game_ms']:.2f} against {pooled.floor_cpu_per_game_ms:.2f}); "
        f"a ratio of 1.15 leaves the host 0.15 x {one.host_cpu_per_game_ms:.2f} = "
        f"{0.15 * one.host_cpu_per_game_ms:.2f} ms a game for the same (it spends "
        f"{pooled.host_cpu_per_game_ms - one.host_cpu_per_game_ms:.2f}). The share and a worker's CPU per message "
        f"together: a worker at 2.5 times the floor takes {worker:.2f} ms a game (2.5 x "
        f"{pooled.floor_cpu_per_message_us:.1f} us x {messages:.0f} messages); with the store process's {store:.2f} "
        f"ms, a 15% share leaves the signing-up process at most 0.15 / 0.85 x {worker + store:.2f} = "
        f"{signing_up:.2f} ms a game. The floor's signing-up process takes {bare_signing_up:.2f} ms a game, the "
        f"host's {1000 * pooled.main_cpu_s / pooled.games:.2f} ms (it also runs the lobby, writes log lines and "
        f"takes the records to the store)."
    )


def web_report(pairs: list[Pair]) -> str:
    rows = [
        "| pair | bots | games/s quiet / under fire (within 15%) | bot's wait for its next question p99, quiet / "
        "under fire (at most 1.5x) | host peak memory quiet / under fire | web view's peak memory | "
        "refused, removed | visitors: answers, pipelined |",
        "|" + "---|" * 8,
    ]
    for index, (quiet, fire) in enumerate(pairs, start=1):
        host = [sum(v for k, v in run.peak_kib.items() if k != "web") / 1024 for run in (quiet, fire)]
        web = [run.peak_kib.get("web", 0) / 1024 for run in (quiet, fire)]
        seen = fire.visitors
        rows.append(
            f"| {index} | {quiet.bots} | {quiet.games_per_s:.0f} / {fire.games_per_s:.0f} "
            f"({100 * (fire.games_per_s / quiet.games_per_s - 1):+.0f}%) | {quiet.bot_wait_ms['p99']:.0f} / "
            f"{fire.bot_wait_ms['p99']:.0f} ms ({fire.bot_wait_ms['p99'] / quiet.bot_wait_ms['p99']:.2f}x) | "
            f"{host[0]:.0f} / {host[1]:.0f} MiB | {web[0]:.0f} / {web[1]:.0f} MiB | "
            f"{_refused(quiet)} / {_refused(fire)}, {quiet.removed} / {fire.removed} | "
            f"{sum(seen.get('answers', {}).values())} ({_statuses(seen)}), {seen.get('pipelined', 0)} |"
        )
    return "\n".join(rows + ["", _bound(pairs)])


def _refused(result: LoadResult) -> int:
    return sum(count for error, count in result.bot_errors.items() if "refus" in error or "full" in error)


def _statuses(seen: dict) -> str:
    return ", ".join(f"{count} x {status}" for status, count in sorted(seen.get("answers", {}).items()))


def _bound(pairs: list[Pair]) -> str:
    """The web view's memory bound, from its limits and the largest answer the floods were given."""
    largest = max((fire.visitors.get("largest", 0) for _, fire in pairs), default=0)
    connections = MAX_CONNECTIONS
    per_connection = 64 * 1024 + 80 * 1024 + largest
    return (
        f"Web view's bound: {connections} connections x (64 KiB send buffer + 80 KiB read ahead + the largest "
        f"answer, {largest / 1024:.0f} KiB here) = {connections * per_connection / 2**20:.0f} MiB above its idle "
        f"size, whatever the visitors do ({FLOODERS} floods and {PIPELINERS} pipelining readers here); the host's "
        f"processes serve no visitor."
    )
