"""The load benchmark's report: ``describe`` (one run's figures as printed lines) and ``table`` (the runs as a
markdown table, with the floor's columns when the floor was run)."""

from __future__ import annotations

import math

from bench.load_result import LoadResult


def describe(result: LoadResult) -> str:
    lat, wait = result.latency_ms, result.reply_wait_ms
    lines = [
        f"{result.bots} bots in {result.procs} process(es), {result.players}-player games, "
        f"{result.seconds:g} s window ({result.games} games, {result.messages} messages, {result.calls} calls)"
        + (f", host options {' '.join(result.host_options)}" if result.host_options else ""),
        f"  games/s {result.games_per_s:.1f} stored, {result.played_per_s:.1f} played (the bots saw end); "
        f"the store's backlog at T1 {result.backlog_at_t1:.0f} games (ended, not yet stored; "
        f"{result.journal_at_t1} in the journal); {result.messages_per_game:.0f} messages per game",
        f"  CPU per game played / stored: host {result.host_cpu_per_played_game_ms:.2f} / "
        f"{result.host_cpu_per_game_ms:.2f} ms; signing-up process {result.signup_cpu_per_game_ms:.2f} ms per "
        f"game played; store process {result.store_cpu_per_game_ms:.2f} ms per game stored",
        f"  host CPU {100 * result.host_cpu_s / result.seconds:.0f}% of a core: "
        f"{result.host_cpu_per_game_ms:.2f} ms per game, {result.host_cpu_per_message_us:.0f} us per message"
        + _processes(result),
        f"  host's reactor thread: running {result.reactor_run_percent:.0f}% of the window, waiting for a CPU "
        f"{result.reactor_wait_percent:.0f}%, idle or blocked the rest",
        f"  in-process engine {result.engine_cpu_per_game_ms:.3f} ms CPU per game during the window "
        f"({result.engine_games} games; {' before, '.join(f'{x:.3f}' for x in result.engine_quiet_ms)} after "
        f"the load); host/engine "
        f"{result.ratio_to_engine:.1f}x",
        f"  call latency (host's log) p50 {lat['p50']:.0f} ms, p99 {lat['p99']:.0f} ms, max {lat['max']:.0f} ms; "
        f"a bot's wait for its next question p50/p99/max {_three(result.bot_wait_ms)} ms",
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
    if result.floor_workers:
        pooled = result.floor_workers
        lines.append(
            f"  floor with {result.workers} workers (bare Twisted, games handed over): "
            f"{pooled['cpu_per_game_ms']:.2f} ms per game ({pooled['cpu_per_game_ms'] / result.floor_cpu_per_game_ms:.2f} "
            f"times the one-process floor's), signing-up share {100 * pooled['signing_up_share']:.1f}%, a worker's CPU "
            f"per message {pooled['worker_cpu_per_message_us']:.1f} us ({pooled['games_per_s']:.0f} games/s)"
            + (f"; errors {pooled['errors']}" if pooled["errors"] else ""))
    return "\n".join(lines)


def _processes(result: LoadResult) -> str:
    """How the host's processes shared its CPU (with worker processes)."""
    if not result.workers:
        return " (one process)"
    seconds = result.seconds
    total = max(result.host_cpu_s, 1e-9)
    text = (f"\n    signing-up process {100 * result.main_cpu_s / seconds:.0f}%, store process "
            f"{100 * result.store_cpu_s / seconds:.0f}%, {result.workers} workers "
            f"{100 * result.workers_cpu_s / seconds:.0f}% (shares of the host's CPU: signing-up "
            f"{100 * result.main_cpu_s / total:.1f}%, store {100 * result.store_cpu_s / total:.1f}%); a worker's CPU per message "
            f"{result.worker_cpu_per_message_us:.1f} us ({result.game_messages} messages, sign-ups left out)")
    if result.web_cpu_s:
        text += f"; the web view's process {100 * result.web_cpu_s / seconds:.0f}% (not counted above)"
    if result.peak_kib:
        text += "; peak memory " + ", ".join(f"{kind} {kib / 1024:.0f} MiB" for kind, kib in result.peak_kib.items())
    return text


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
