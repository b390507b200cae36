"""One ladder across several hosts: three real hosts on 127.0.0.2-4 behind a real HAProxy, sharing a real
PostgreSQL (``evolution.stock_servers.HostGroup``), and bots from ``bench.swarm`` (many bots in one process).

Whatever the database and the hosts go through (PostgreSQL stopped for 20 s mid-ladder; a host killed with
SIGKILL and started again): every game a bot saw end is stored once, each bot's standing counts exactly its
stored finished games and holds its last game's rating, and every host played games. Skipped, with what to
install, where PostgreSQL or HAProxy is missing.
"""

from __future__ import annotations

import re
import shutil
import signal
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bench.load_processes import SwarmProcess, raise_file_limit, start_swarms
from evolution.stock_servers import HostGroup, haproxy_missing, postgres_missing
from evolution.store.records import GameRecord
from evolution.store.writer import KILLED
from evolution.store.results_store import ResultsStore

MISSING = postgres_missing() or haproxy_missing()
pytestmark = [pytest.mark.slow, pytest.mark.outage, pytest.mark.skipif(MISSING is not None, reason=MISSING or "")]

LADDER = ("--ladder", "--send-scores")


@pytest.fixture
def group():
    folder = Path(tempfile.mkdtemp(prefix="evolution-hosts-"))
    hosts = HostGroup(folder, 3, LADDER)
    try:
        hosts.start()
        yield hosts
    finally:
        hosts.stop()
        shutil.rmtree(folder, ignore_errors=True)


def until(predicate: Any, limit: float, what: str) -> None:
    """Wait for ``predicate()`` (polled), at most ``limit`` seconds; fail saying ``what`` did not happen."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"{what} within {limit:g} s")
        time.sleep(0.1)


def stored(group: HostGroup) -> tuple[list[GameRecord], dict[str, Any], list[dict]]:
    store = ResultsStore.open(group.db)
    try:
        return store.games(), {standing.name: standing for _, standing in store.ladder()}, store.hosts()
    finally:
        store.close()


def finished_count(group: HostGroup) -> int:
    store = ResultsStore.open(group.db)
    try:
        return sum(row["games"] for row in store.hosts())
    finally:
        store.close()


def running(group: HostGroup) -> list[dict]:
    store = ResultsStore.open(group.db)
    try:
        return store.running_games()
    finally:
        store.close()


def play(group: HostGroup, bots: int, seconds: float, folder: Path, *options: str) -> tuple[list[SwarmProcess],
                                                                                           float, float]:
    raise_file_limit(4 * bots + 256)
    swarms: list[SwarmProcess] = []
    t0, t1 = start_swarms(swarms, group.port, bots, 1, 0.0, seconds, folder / "bots", "--ladder", *options)
    return swarms, t0, t1


def outcome(swarms: list[SwarmProcess]) -> tuple[Counter, Counter]:
    outputs = [swarm.result(limit=90) for swarm in swarms]
    ended = Counter(name for output in outputs for name, _ in output["ended"])
    errors = sum((Counter(output["errors"]) for output in outputs), Counter())
    return ended, errors


def unexpected(errors: Counter, killed: bool = False) -> list[str]:
    """What the bots saw that the hosts should not cause: neither the reference strategy's own dead end (fewer
    than 3 cards: it hangs up) nor, with ``killed``, a hang-up by the host that was killed (its bots come back
    through the balancer) is."""
    expected = ("the silly strategy had no answer", "hung up") if killed else ("the silly strategy had no answer",)
    return [error for error in errors if not error.startswith(expected)]


def consistent(games: list[GameRecord], ladder: dict[str, Any], ended: Counter, lost: list[GameRecord] = ()) -> None:
    """Every game a bot saw end is stored, once; each standing counts its bot's stored finished games and holds
    the rating its last one was stored with; no aborted game counts. A game of ``lost`` (a killed host's, stored
    as aborted at its restart) may have ended for its bots before its host could store it."""
    could = Counter(seat.name for game in lost for seat in game.players)
    seats: dict[str, list] = {}
    for game in sorted((game for game in games if game.finished), key=lambda game: (game.ended_at, game.id)):
        for seat in game.players:
            seats.setdefault(seat.name, []).append(seat)
    assert len({game.id for game in games}) == len(games)
    kept = Counter({name: sum(1 for seat in seats.get(name, ()) if seat.removed_reason is None) for name in seats})
    unmatched = {name: (ended[name], kept[name]) for name in set(ended) | set(seats)
                 if not kept[name] <= ended[name] <= kept[name] + could[name]}
    assert unmatched == {}, "the bots' game ends differ from the stored seats (seen, stored)"
    miscounted = {name: (standing.games, len(seats.get(name, ()))) for name, standing in ladder.items()
                  if standing.games != len(seats.get(name, ()))}
    assert miscounted == {}, "standings whose game counts differ from the stored games (counted, stored)"
    assert {name for name in seats} <= set(ladder)
    latest = {name: (standing.rating_mu, standing.rating_sigma) for name, standing in ladder.items()}
    assert latest == {name: (held[-1].rating_mu, held[-1].rating_sigma) for name, held in seats.items()}


def test_three_hosts_feed_one_ladder_and_lose_nothing_while_postgresql_is_stopped_for_20_s(group, tmp_path):
    swarms, t0, t1 = play(group, 300, 50.0, tmp_path)
    until(lambda: time.time() > t0 + 8 and finished_count(group) >= 30, 60, "30 games stored")
    group.database.stop()
    stopped = time.time()
    time.sleep(20)  # the outage itself: how long the hosts go on without their database
    group.database.start()
    until(lambda: time.time() > t1, t1 - time.time() + 30, "the end of the bots' window")
    for n in group.hosts:
        assert group.stop_host(n) == -signal.SIGTERM  # twistd ends as the signal asks, its work done
    ended, errors = outcome(swarms)
    games, ladder, hosts = stored(group)
    consistent(games, ladder, ended)
    assert {row["host"] for row in hosts if row["games"] > 0} == {"host1", "host2", "host3"}
    assert [row["running"] for row in hosts] == [0, 0, 0]
    during = [game for game in games if stopped < _epoch(game.ended_at) < stopped + 18]
    assert len(during) >= 10, "games went on while the database was stopped"
    assert sum(1 for game in games if game.finished) >= 100
    assert unexpected(errors) == []
    for n in group.hosts:  # each host said once that its writes waited, where, and once that they were taken;
        # between the two, a line every 30 s (keeper.OUTAGE_LINES) while the database is away
        said = [line.split("] ", 1)[1] for line in group.log_text(n).splitlines() if "results database" in line]
        pending = group.folder / f"host{n}.pending"
        assert len(said) >= 2, said
        assert said[0].startswith("the results database did not take ") and said[0].endswith(
            f"kept in {pending}, retrying"), said
        assert all(re.fullmatch(rf"\d+ writes wait in {re.escape(str(pending))}: the results database has taken none "
                                r"for \d+ s; retrying", line) for line in said[1:-1]), said
        took = re.fullmatch(r"the results database took every waiting write \(\d+, after (\d+) s\)", said[-1])
        assert took and len(said) - 2 <= int(took[1]) // 30, said  # no more lines than the outage lasted 30 s


def test_a_host_killed_costs_only_its_running_games_and_the_others_go_on(group, tmp_path):
    swarms, t0, t1 = play(group, 150, 40.0, tmp_path, "--think", "0.05")  # games of seconds, not milliseconds
    until(lambda: time.time() > t0 + 5 and finished_count(group) >= 20, 60, "20 games stored")
    until(lambda: any(game["host"] == "host2" for game in running(group)), 30, "a game running on host 2")
    group.kill(2)  # the host, its workers and its store process, at once
    killed = time.time()
    until(lambda: sum(1 for game in stored(group)[0] if game.host != "host2" and _epoch(game.ended_at) > killed) >= 20,
          60, "20 games stored by the other hosts after the kill")
    group.restart(2)
    until(lambda: time.time() > t1, t1 - time.time() + 30, "the end of the bots' window")
    for n in group.hosts:
        assert group.stop_host(n) == -signal.SIGTERM
    ended, errors = outcome(swarms)
    games, ladder, hosts = stored(group)
    lost = [game for game in games if game.host == "host2" and game.outcome == f"aborted: {KILLED}"]
    consistent(games, ladder, ended, lost)
    assert lost, "host 2 was playing games when it was killed"
    restarted = group.log_text(2)
    ids = ", ".join(f"#{game.id}" for game in sorted(lost, key=lambda game: game.id))
    assert f"this host was playing when it stopped (killed?) stored as aborted: {ids}" in restarted
    assert [row["running"] for row in hosts] == [0, 0, 0]
    assert unexpected(errors, killed=True) == []


def _epoch(stamp: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(stamp).timestamp()
