"""``twistd evolution --view-only``: a web view that plays no games, over a store hosts write, writing nothing.

As a real process (``twistd -n evolution --view-only``) over a PostgreSQL store that two hosts' records were
written into, one of them with a tournament running and a game being played (as a host killed mid-game
leaves them): it serves the overview of the whole (both hosts, the running game, no lobby) and leaves every
row of the store as it was (a host marks its own running tournaments interrupted, and stores its running
games as aborted, at its start: a view must not). Its options: what makes no sense with it is refused in one
line.
"""

from __future__ import annotations

import json
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from twisted.scripts.twistd import ServerOptions

from evolution.store.operations import game_begun, tournament_begun
from evolution.store.records import EntrantRecord, GameRecord, SeatRecord, TournamentRecord
from evolution.store.results_store import ResultsStore
from evolution.testing import free_port, twistd_command
from tests.support import postgres

TABLES = ("version", "games", "players", "game_logs", "tournaments", "entrants", "rounds", "resumptions",
          "running_games", "ladder")


def game(game_id: int, host: str, ended: str) -> GameRecord:
    seats = (SeatRecord(1, "ann", 5, 1), SeatRecord(2, "bo", 3, 2), SeatRecord(3, "cy", 1, 3))
    return GameRecord("2025-06-01T10:00:00.000+00:00", f"2025-06-01T10:00:{ended}.000+00:00", "shuffled", 1, 3,
                      "finished", seats, game_id, ladder=True, host=host)


def two_hosts(url: str) -> None:
    """Alpha's two games; beta's game, its running tournament and the game it is playing (left running)."""
    store = ResultsStore.open(url)
    try:
        store.record(game(1, "alpha", "10"))
        store.record(game(2, "alpha", "30"))
        store.record(game(1_000_001, "beta", "20"))
        entrants = (EntrantRecord(1, "dee"), EntrantRecord(2, "eve"), EntrantRecord(3, "fay"))
        store.apply(tournament_begun(TournamentRecord(1_000_001, "swiss", "running", "2025-06-01T10:01:00.000+00:00",
                                                      None, {}, entrants, host="beta")))
        store.apply(game_begun(1_000_002, "beta", "2025-06-01T10:02:00.000+00:00", "evolution", ["dee", "eve", "fay"],
                               "shuffled", 9, {}, (1_000_001, 1), False))
    finally:
        store.close()


def everything(url: str) -> dict[str, list]:
    """Every row of the store, table by table (and the sequence the hosts reserve their blocks of ids from)."""
    store = ResultsStore.open(url)
    try:
        rows = {table: sorted(map(repr, store.connection.execute(f"SELECT * FROM {table}"))) for table in TABLES}
        rows["id_blocks"] = store.connection.execute("SELECT last_value, is_called FROM id_blocks").fetchall()
        return rows
    finally:
        store.close()


def overview(port: int, process: subprocess.Popen, log: Path, limit: float = 60.0) -> dict:
    """``/api/overview`` once the process answers it (within ``limit`` seconds, or the test fails)."""
    deadline = time.monotonic() + limit
    while True:
        if process.poll() is not None:
            pytest.fail(f"the view ended with status {process.returncode}:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/overview", timeout=10) as answer:
                return json.loads(answer.read())
        except (OSError, urllib.error.HTTPError):
            if time.monotonic() > deadline:
                pytest.fail(f"the view did not answer within {limit:g} s:\n{log.read_text()}")
            time.sleep(0.1)


def test_a_view_only_process_serves_the_whole_store_and_writes_nothing_to_it(tmp_path):
    url = postgres.database_url("view_only")
    two_hosts(url)
    before = everything(url)
    port, log = free_port(), tmp_path / "view.log"
    process = subprocess.Popen(
        [*twistd_command(), "--nodaemon", "--pidfile=", f"--logfile={log}", "evolution", "--view-only", "--db", url,
         "--web", f"tcp:{port}:interface=127.0.0.1", "--host-name", "the view"],
        stdin=subprocess.DEVNULL, cwd=tmp_path,
    )
    try:
        seen = overview(port, process, log)
    finally:
        process.send_signal(signal.SIGTERM)
        status = process.wait(timeout=30)
    assert status == -signal.SIGTERM, log.read_text()  # twistd ends by the signal it was stopped with
    assert seen["view"] == {"host": "the view", "plays_games": False} and seen["lobby"] is None
    assert seen["running"] == []
    assert [(row["host"], row["games"], row["running"]) for row in seen["hosts"]] == [("alpha", 2, 0), ("beta", 1, 1)]
    assert [(game["id"], game["host"]) for game in seen["recent_games"]] == [(2, "alpha"), (1_000_001, "beta"),
                                                                              (1, "alpha")]
    assert [(game["id"], game["host"], game["live"]) for game in seen["running_elsewhere"]] == [
        (1_000_002, "beta", False)]
    assert [(t["id"], t["status"], t["host"]) for t in seen["tournaments"]] == [(1_000_001, "running", "beta")]
    assert [row["name"] for row in seen["ladder"]] == ["ann", "bo", "cy"]  # the one ladder, from the store
    assert everything(url) == before  # nothing marked interrupted or aborted, no block of ids taken
    assert list(tmp_path.glob("*.pending")) == []  # no journal: it has no store writer
    assert "plays no games" in log.read_text()


@pytest.mark.parametrize(
    "args, line",
    [
        (["--view-only"], "--view-only serves the web view alone: give it --web ENDPOINT"),
        (["--view-only", "--web", "tcp:0", "--tournament", "swiss"], "--tournament does not go with --view-only"),
        (["--view-only", "--web", "tcp:0", "--ladder"], "--ladder does not go with --view-only"),
        (["--view-only", "--web", "tcp:0", "--games", "3"], "--games does not go with --view-only"),
        (["--view-only", "--web", "tcp:0", "--port", "tcp:4567"], "--port does not go with --view-only"),
        (["--view-only", "--web", "tcp:0", "--resume"], "--resume does not go with --view-only"),
        (["--view-only", "--web", "tcp:0", "--linger", "5"], "--linger does not go with --view-only"),
    ],
)
def test_what_makes_no_sense_with_view_only_is_refused_in_one_line(capsys, args, line):
    with pytest.raises(SystemExit) as stop:
        ServerOptions().parseOptions(["evolution", *args])
    assert stop.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith(f"twistd evolution: {line}")


def test_a_view_only_process_over_a_store_no_host_has_made_ends_with_one_line(tmp_path):
    url = postgres.database_url("no_store")
    run = subprocess.run(
        [*twistd_command(), "--nodaemon", "--pidfile=", "evolution", "--view-only", "--db", url,
         "--web", f"tcp:{free_port()}:interface=127.0.0.1"],
        stdin=subprocess.DEVNULL, cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert run.returncode == 1
    [line] = run.stderr.splitlines()
    assert line.startswith("twistd evolution: cannot use the results database") and line.endswith(
        "(--view-only reads a store that hosts have made: start a host on --db first)")
    import psycopg

    with psycopg.connect(url) as connection:  # the database is still empty: the view made no table in it
        tables = connection.execute("SELECT table_name FROM information_schema.tables"
                                    " WHERE table_schema = current_schema()").fetchall()
    assert tables == []


def get(port: int, path: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_database_restarted_under_a_web_view_is_a_503_then_read_again(tmp_path):
    # PostgreSQL stopped under a web view: its pages that need the store answer 503 in a sentence (not a 500 with a
    # traceback in the log), the log says so once; once the server is back, the next read connects again.
    cluster = postgres.Cluster()  # a cluster of its own, in a folder the postgres user may enter
    cluster.start()
    try:
        url = cluster.create("restarted")
        two_hosts(url)
        port, log = free_port(), tmp_path / "view.log"
        process = subprocess.Popen(
            [*twistd_command(), "--nodaemon", "--pidfile=", f"--logfile={log}", "evolution", "--view-only", "--db",
             url, "--web", f"tcp:{port}:interface=127.0.0.1"],
            stdin=subprocess.DEVNULL, cwd=tmp_path,
        )
        try:
            overview(port, process, log)
            assert get(port, "/api/games")[0] == 200
            cluster.stop()
            for _ in range(2):
                assert get(port, "/api/games") == (503, {
                    "error": "the results database cannot be reached now; try again in a moment"})
            cluster.start()
            status, games = get(port, "/api/games")
            assert (status, [game["id"] for game in games]) == (200, [2, 1_000_001, 1])
        finally:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)
        said = log.read_text()
        assert said.count("the web view cannot reach the results database") == 1, said
        assert said.count("the web view reaches the results database again") == 1, said
        assert "Traceback" not in said, said
    finally:
        cluster.remove()
