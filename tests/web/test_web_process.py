"""The web view in its own process: what a visitor does cannot cost a game its CPU, memory or descriptors.

Everything is a real process: ``twistd evolution --web`` (with its worker
processes, on by default, and the web view's process), ``evolution-client``
bots, and the visitors of ``bench/web_visitors.py`` (a browser looping on
the API, a pipelining reader that never reads, idle connections) at nice 10.
Asserted: no honest bot is removed or refused, the web view's memory stays
bounded, the host's does not grow, and the web view stays up after the last
game. How long a bot waits for its next message, and games per second, with
and without the visitors, are figures of ``python -m bench load --web``.
"""

from __future__ import annotations

import json
import os
import re
import resource
import select
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from evolution.store.results_store import ResultsStore
from evolution.testing import free_port, run_clients, twistd_command
from tests.support.paths import REPO

pytestmark = pytest.mark.slow

MIB = 1024 * 1024
WEB_GROWTH_LIMIT = 100 * MIB  # the web view's own process; before: one pipelining reader grew the host 440 MB
HOST_GROWTH_LIMIT = 16 * MIB  # the host's process, whatever the visitors do
FIRE_BOUND = 300  # seconds a visitor fires at most: the test stops it once its game is over


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


class Host:
    """``twistd evolution --web`` on free loopback ports, in a folder of its own."""

    def __init__(self, folder: Path, *options: str, open_files: int | None = None) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder, self.port, self.web = folder, free_port(), free_port()
        self.db, self.log = folder / "results.sqlite", folder / "host.log"
        command = [*twistd_command(), "--nodaemon", "--pidfile=", f"--logfile={self.log}", "evolution",
                   "--port", f"tcp:{self.port}:interface=127.0.0.1", "--db", str(self.db),
                   "--web", f"tcp:{self.web}:interface=127.0.0.1", *options]

        def limit() -> None:
            if open_files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, preexec_fn=limit)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.web}{path}"

    def get(self, path: str) -> tuple[int, bytes]:
        try:
            with urllib.request.urlopen(self.url(path), timeout=10) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def serving(self, limit: float = 60.0) -> int:
        """Wait until the web view answers and the workers are ready; the web view's process id."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            assert self.process.poll() is None, f"the host exited with status {self.process.returncode}"
            text = self.log.read_text() if self.log.is_file() else ""
            found = re.search(r"the web view is served by process (\d+)", text)
            if found and text.count("is ready") >= 2:
                try:
                    if self.get("/api/overview")[0] == 200:
                        return int(found.group(1))
                except OSError:
                    pass
            time.sleep(0.1)
        raise AssertionError(f"the web view did not answer within {limit:g} s")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=60)

    def games(self) -> list:
        store = ResultsStore.open(self.db)
        try:
            return store.games()
        finally:
            store.close()


STARTED: list[subprocess.Popen] = []  # every visitor of the test under way: killed at its end, whatever happened


def visitors(kind: str, *arguments: str, count: int = 1) -> list[subprocess.Popen]:
    """``count`` processes of ``bench.web_visitors KIND ARGUMENTS`` at nice 10."""
    started = [
        subprocess.Popen([sys.executable, "-m", "bench.web_visitors", kind, *arguments], cwd=REPO,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, text=True, preexec_fn=lambda: os.nice(10))
        for _ in range(count)
    ]
    STARTED.extend(started)
    return started


@pytest.fixture(autouse=True)
def no_visitor_outlives_its_test():
    yield
    while STARTED:
        process = STARTED.pop()
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)


def firing(processes: list[subprocess.Popen], limit: float = 60.0) -> None:
    """Wait until every visitor says its fire has begun (its first line), within ``limit`` seconds."""
    deadline = time.monotonic() + limit
    for process in processes:
        ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
        line = process.stdout.readline() if ready else ""
        assert json.loads(line or "{}").get("firing"), f"a visitor did not open fire within {limit:g} s: {line!r}"


def ceased(processes: list[subprocess.Popen]) -> list[dict]:
    """Stop visitors still firing (which shows they fired all along) and give what each saw."""
    still = [process.poll() is None for process in processes]
    assert all(still), "a visitor stopped firing before the game was over: the game was not played under fire"
    for process in processes:
        process.send_signal(signal.SIGTERM)
    return [json.loads(process.communicate(timeout=120)[0].strip().splitlines()[-1]) for process in processes]


def play(host: Host, games: int, tag: str) -> None:
    """``games`` games of three bot processes, one after another: every bot plays to the end, none removed."""
    for game in range(games):
        results = run_clients(host.port, [f"{tag} {game}.{seat}" for seat in range(3)], 120.0)
        assert [result.returncode for result in results] == [0, 0, 0], [result.stderr for result in results]


def all_honest(host: Host, count: int) -> None:
    games = host.games()
    assert len(games) == count
    assert [game.outcome for game in games] == ["finished"] * count
    assert [seat.removed_reason for game in games for seat in game.players] == [None] * 3 * count


@pytest.fixture
def host(tmp_path):
    started: list[Host] = []
    yield lambda *options, **limits: started.append(Host(tmp_path / str(len(started)), *options, **limits)) or started[-1]
    for each in started:
        each.stop()


def test_a_pipelining_reader_that_never_reads_holds_the_web_view_to_a_bounded_size(host):
    host = host("--players", "3-3", "--timeout", "5")
    web = host.serving()
    play(host, 1, "first")
    idle = rss(web), rss(host.process.pid)
    readers = visitors("pipeline", "127.0.0.1", str(host.web), "/api/games/1/replay", "--count", "2000",
                       "--seconds", str(FIRE_BOUND))
    firing(readers)
    play(host, 1, "meanwhile")
    peak = rss(web), rss(host.process.pid)
    assert ceased(readers)[0]["requests_sent"] > 0
    assert peak[0] - idle[0] < WEB_GROWTH_LIMIT, (idle, peak)
    assert peak[1] - idle[1] < HOST_GROWTH_LIMIT, (idle, peak)
    assert host.get("/api/overview")[0] == 200
    all_honest(host, 2)


def test_idle_web_connections_take_no_descriptor_from_the_bots(host):
    resource.setrlimit(resource.RLIMIT_NOFILE, (resource.getrlimit(resource.RLIMIT_NOFILE)[1],) * 2)
    host = host("--players", "3-3", "--timeout", "5", "--max-connections", "900", open_files=1024)
    host.serving()
    holders = visitors("idle", "127.0.0.1", str(host.web), "--count", "1100", "--seconds", str(FIRE_BOUND))
    firing(holders)  # 1,100 connections made: 256 held by the web view, the rest answered 503
    play(host, 1, "honest")
    [held] = ceased(holders)
    assert held["held"] + held["refused"] == 1100
    all_honest(host, 1)
    log = host.log.read_text()
    assert "Too many open files" not in log and "too many open files" not in log
    assert host.get("/api/overview")[0] == 200  # once the idle ones are gone


def test_a_flood_of_api_requests_and_pipelining_readers_remove_and_refuse_no_bot(host):
    host = host("--players", "3-3", "--timeout", "5")
    web = host.serving()
    play(host, 1, "first")
    idle = rss(web), rss(host.process.pid)
    flooders = visitors("flood", host.url("/api/games?limit=500"), "--seconds", str(FIRE_BOUND), count=8)
    readers = visitors("pipeline", "127.0.0.1", str(host.web), "/api/games/1/replay", "--count", "2000",
                       "--seconds", str(FIRE_BOUND), count=4)
    firing(flooders + readers)
    play(host, 1, "under fire")
    peak = rss(web), rss(host.process.pid)
    answered = ceased(flooders)
    ceased(readers)
    assert sum(sum(flood["statuses"].values()) for flood in answered) > 0
    assert peak[0] - idle[0] < WEB_GROWTH_LIMIT, (idle, peak)
    assert peak[1] - idle[1] < HOST_GROWTH_LIMIT, (idle, peak)
    all_honest(host, 2)


def test_the_web_view_stays_up_after_the_last_game_for_linger_seconds(host):
    host = host("--players", "3-3", "--games", "1", "--linger", "3")
    host.serving()
    play(host, 1, "only")
    # The last game is over. Its page asked at once, before the web view's next poll of the host has said so,
    # waits for that; its replay then, before the store process has written the game (a write apart from the
    # games), waits for that: no 404, no 503.
    status, body = host.get("/api/games/1")
    assert status == 200 and json.loads(body)["status"] == "finished", (status, body)
    status, body = host.get("/api/games/1/replay")
    assert status == 200 and json.loads(body)["reproduced"], (status, body)
    assert host.process.wait(timeout=30) == 0


FIRST_PAGE_BOUND = 10.0  # seconds from the host's line to the first page, on a machine whose cores are busy


def niceness(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[16])


def test_the_host_says_where_the_web_view_is_once_it_answers_and_it_answers_at_once(host):
    host = host("--players", "3-3")
    deadline = time.monotonic() + 120
    while "the web view is served by process" not in (text := host.log.read_text() if host.log.is_file() else ""):
        assert time.monotonic() < deadline and host.process.poll() is None, "the host never said where its web view is"
        time.sleep(0.05)
    announced = time.monotonic()
    for path in ("/", "/api/overview"):
        status, _ = host.get(path)
        assert status == 200, (path, status)
    assert time.monotonic() - announced < FIRST_PAGE_BOUND
    assert text.index("starting the web view's process") < text.index("the web view is served by process")
    web = int(re.search(r"the web view is served by process (\d+)", text).group(1))
    assert niceness(web) == niceness(host.process.pid) + 10  # after the games, now that it answers
