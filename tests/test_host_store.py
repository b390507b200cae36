"""The results store and ``evolution-results``."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from evolution.host.store import GameRecord, ResultsStore, SeatRecord, StoreError

GAME = GameRecord(
    "2026-01-01T00:00:00.000+00:00",
    "2026-01-01T00:00:01.000+00:00",
    "shuffled",
    42,
    3,
    "finished",
    (
        SeatRecord(1, "alpha", 9, 1),
        SeatRecord(2, "beta", None, None, 2, "feed", "no reply to feed-next within 1 s"),
        SeatRecord(3, "gamma", 4, 2),
    ),
)


def results(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evolution.host.results_cli", *args], capture_output=True, text=True)


def test_a_recorded_game_reads_back_whole(tmp_path):
    store = ResultsStore.open(tmp_path / "r.sqlite")
    game_id = store.record(GAME)
    store.record(GAME)
    store.close()
    games = ResultsStore.open(tmp_path / "r.sqlite").games()
    assert [g.id for g in games] == [game_id, game_id + 1]
    assert games[0] == GAME


def test_a_database_of_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    ResultsStore.open(path).close()
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE version SET version = 99")
    with pytest.raises(StoreError, match="version 99"):
        ResultsStore.open(path)


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    path = tmp_path / "r.sqlite"
    path.write_text("not a database " * 100)
    with pytest.raises(StoreError, match="cannot use the results database"):
        ResultsStore.open(path)


def test_results_json_lists_games_with_players(tmp_path):
    store = ResultsStore.open(tmp_path / "r.sqlite")
    store.record(GAME)
    store.close()
    listing = results("--db", str(tmp_path / "r.sqlite"), "--json")
    assert listing.returncode == 0
    [game] = json.loads(listing.stdout)
    assert game["seed"] == 42 and game["outcome"] == "finished"
    assert game["players"][1] == {
        "seat": 2, "name": "beta", "score": None, "rank": None,
        "removed_turn": 2, "removed_step": "feed", "removed_reason": "no reply to feed-next within 1 s",
    }


def test_results_table_ranks_and_shows_removals(tmp_path):
    store = ResultsStore.open(tmp_path / "r.sqlite")
    store.record(GAME)
    store.close()
    lines = results("--db", str(tmp_path / "r.sqlite")).stdout.splitlines()
    assert "seed 42" in lines[0]
    assert [line.split()[2] for line in lines[2:]] == ["alpha", "gamma", "beta"]
    assert lines[-1].endswith("removed in turn 2 (feed): no reply to feed-next within 1 s")


def test_results_without_a_database_say_so(tmp_path):
    listing = results("--db", str(tmp_path / "missing.sqlite"))
    assert listing.returncode == 1
    assert listing.stderr.strip() == f"evolution-results: no results database at {tmp_path / 'missing.sqlite'}"
