"""Reading a load run's results store and the bots' records into the figures of its ``LoadResult``.

``analyse`` (games/s, CPU per game and per message, call latency and its parts, sign-ups, removals and where
the time went for each timeout, games stored against games the bots saw end); ``window_messages`` (the messages
the bots counted in the window, which the floor's figures use too). How each figure is measured: the docstring
of ``bench/bench_load.py``.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.load_processes import ended_before, percentiles
from bench.load_result import LoadResult
from evolution.store.journal import held
from evolution.store.results_store import ResultsStore


def _timestamp(text: str) -> float:
    return datetime.fromisoformat(text).timestamp()


def window_messages(outputs: list[dict[str, Any]]) -> int:
    """Messages the bots sent and received in the window, as they counted them at T0 and T1."""
    windows = [output["window"] for output in outputs]
    return sum(window["t1"][k] - window["t0"][k] for window in windows if "t0" in window and "t1" in window
               for k in ("sent", "received"))


def played_in_window(outputs: list[dict[str, Any]], t0: float, t1: float) -> int:
    """Seats the bots saw end in the window (a game's end, as each of its bots saw it)."""
    return sum(1 for output in outputs for _, at in output["ended"] if t0 <= at < t1)


def per_game(result: LoadResult, played: float) -> None:
    """The CPU figures per game played (the bots saw it end in the window) beside those per game stored."""
    result.games_played, result.played_per_s = played, played / result.seconds
    nan = float("nan")
    result.host_cpu_per_played_game_ms = 1000 * result.host_cpu_s / played if played else nan
    result.signup_cpu_per_game_ms = 1000 * result.main_cpu_s / played if played else nan
    result.store_cpu_per_game_ms = 1000 * result.store_cpu_s / result.games if result.games else nan


def analyse(result: LoadResult, db: Path, outputs: list[dict[str, Any]], t0: float, t1: float,
            calls: bool = True) -> None:
    """The figures of a run from its store and the bots' records; without ``calls``, no game's log is read for
    the calls' latencies (they are left NaN)."""
    signups: list[float] = []
    result.messages = window_messages(outputs)
    answered = sum(1 for output in outputs for at, _ in output.get("signups", ()) if t0 <= at < t1)
    result.game_messages = result.messages - 2 * answered  # each sign-up: the name and its "ok"
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
    result.bot_wait_ms = percentiles(_waits(replies, t0, t1))

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
            if ended_at < t0 or started >= t1 or not calls:
                continue
            _calls(store.game_log(game.id) or [], started, names, replies, t0, t1, parts)
    finally:
        store.close()

    result.games = in_window
    result.games_per_s = in_window / result.seconds
    result.host_cpu_per_game_ms = 1000 * result.host_cpu_s / in_window if in_window else float("nan")
    per_game(result, played_in_window(outputs, t0, t1) / result.players)
    result.backlog_at_t1 = max(0.0, ended_before(outputs, t1, result.players) - result.stored_at_t1)
    result.host_cpu_per_message_us = 1e6 * result.host_cpu_s / result.messages if result.messages else float("nan")
    result.messages_per_game = result.messages / in_window if in_window else float("nan")
    result.ratio_to_engine = result.host_cpu_per_game_ms / result.engine_cpu_per_game_ms
    if result.workers and result.game_messages:
        result.worker_cpu_per_message_us = 1e6 * result.workers_cpu_s / result.game_messages
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
    result.pending_writes = len(held(pending))


def _waits(replies: dict[str, list], t0: float, t1: float) -> list[float]:
    """How long each bot waited for its next question after writing a reply (in the window), in ms: the host's
    turnaround and the other players' turns before it."""
    waits = []
    for calls in replies.values():
        for (_, written), (read, _) in zip(calls, calls[1:]):
            if t0 <= written < t1:
                waits.append(1000 * (read - written))
    return waits


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
