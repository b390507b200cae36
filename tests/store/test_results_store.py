"""The results store and ``evolution-results``."""

from __future__ import annotations

import json
import multiprocessing
import sqlite3
import subprocess
import sys
from contextlib import closing

import pytest

from evolution.store.database import APPLICATION_ID, CURRENT_VERSION, SCHEMA_DIR, StoreError
from evolution.store.operations import game_operation
from evolution.store.records import GameRecord, SeatRecord
from evolution.store.results_store import ResultsStore

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
    return subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", *args], capture_output=True, text=True)


def test_a_recorded_game_reads_back_whole(db):
    store = ResultsStore.open(db)
    game_id = store.record(GAME)
    store.record(GAME)
    store.close()
    games = ResultsStore.open(db).games()
    assert [g.id for g in games] == [game_id, game_id + 1]
    assert games[0] == GAME


def test_a_game_written_twice_is_stored_once(db):
    # A journal applied again after a crash between commit and truncation: no change.
    store = ResultsStore.open(db)
    operation = game_operation(GAME.with_id(7), [[0, 1, "out", "ok"]])
    store.apply(operation)
    store.apply(game_operation(GAME.with_id(7), [[0, 1, "out", "another log"]]))
    assert store.games() == [GAME.with_id(7)]
    assert store.game_log(7) == [[0, 1, "out", "ok"]]
    assert store.connection.execute("SELECT COUNT(*) FROM players").fetchone() == (3,)


def test_the_newest_games_come_first_with_their_seats(db):
    store = ResultsStore.open(db)
    ids = [store.record(GAME) for _ in range(5)]
    assert [game.id for game in store.recent_games(2)] == ids[:-3:-1]
    assert [game.id for game in store.recent_games(2, before=ids[3])] == [ids[2], ids[1]]
    assert store.recent_games(1)[0] == GAME.with_id(ids[-1])


def _open_with_the_others(path: str, ready) -> str:
    ready.wait()
    try:
        ResultsStore.open(path).close()
    except StoreError as error:
        return str(error)
    return "opened"


def test_processes_that_open_one_new_store_at_the_same_instant_all_get_the_whole_store(tmp_path):
    # Two hosts, or a host and evolution-results, may open a new --db at once: each must find
    # or make the whole store ("table version already exists" and "not an Evolution results
    # database" were what the losers of this race said).
    context = multiprocessing.get_context("spawn")  # not fork: this process may run threads (trial's reactor)
    with context.Manager() as manager, context.Pool(8) as pool:
        for round in range(5):
            path = str(tmp_path / f"{round}.sqlite")
            ready = manager.Barrier(8)
            assert pool.starmap(_open_with_the_others, [(path, ready)] * 8) == ["opened"] * 8
            with closing(sqlite3.connect(path)) as connection:
                assert connection.execute("SELECT version FROM version").fetchall() == [(CURRENT_VERSION,)]


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


def test_results_json_lists_games_with_players(db):
    store = ResultsStore.open(db)
    store.record(GAME)
    store.close()
    listing = results("--db", db, "--json")
    assert listing.returncode == 0
    [game] = json.loads(listing.stdout)
    assert game["seed"] == 42 and game["outcome"] == "finished"
    assert game["players"][1] == {
        "seat": 2, "name": "beta", "score": None, "rank": None, "place": None,
        "removed_turn": 2, "removed_step": "feed", "removed_reason": "no reply to feed-next within 1 s",
    }
    assert [seat["place"] for seat in game["players"]] == [1, None, 2] and game["tie_break"] is None


def test_results_table_ranks_and_shows_removals(db):
    store = ResultsStore.open(db)
    store.record(GAME)
    store.close()
    lines = results("--db", db).stdout.splitlines()
    assert "seed 42" in lines[0]
    assert [line.split()[3] for line in lines[2:]] == ["alpha", "gamma", "beta"]
    assert lines[-1].endswith("removed in turn 2 (feed): no reply to feed-next within 1 s")


def test_results_without_a_database_say_so(tmp_path):
    listing = results("--db", str(tmp_path / "missing.sqlite"))
    assert listing.returncode == 1
    assert listing.stderr.strip() == f"evolution-results: no results database at {tmp_path / 'missing.sqlite'}"


# -- what the store refuses, untouched, in one sentence -----------------------------------


V1_TABLES = ["CREATE TABLE version (version)", "CREATE TABLE games (id)", "CREATE TABLE players (game_id)"]


def _foreign(path, *statements: str) -> bytes:
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()
    return path.read_bytes()


@pytest.mark.parametrize(
    "statements, message",
    [
        (["CREATE TABLE customers (id INTEGER, name TEXT)"], "it holds tables customers"),
        (["CREATE TABLE version (version INTEGER)", "INSERT INTO version VALUES (1)"], "it holds tables version"),
        (["CREATE TABLE version (v)", "CREATE TABLE games (x)", "CREATE TABLE players (y)"], "damaged version table"),
        (V1_TABLES + ["INSERT INTO version VALUES ('one')"], "damaged version table"),
        (V1_TABLES + ["INSERT INTO version VALUES (1)", "INSERT INTO version VALUES (1)"], "damaged version table"),
        ([f"PRAGMA application_id = {APPLICATION_ID}", "CREATE TABLE version (v)"], "damaged version table"),
        (["PRAGMA application_id = 1234", "CREATE TABLE t (x)"], "application id 0x4d2"),
    ],
    ids=["another application's tables", "a lone version table", "an empty version table", "a text version",
         "two versions", "ours, without a version", "another application id"],
)
def test_a_database_of_another_application_is_refused_untouched(tmp_path, statements, message):
    path = tmp_path / "theirs.sqlite"
    before = _foreign(path, *statements)
    with pytest.raises(StoreError, match=message) as refused:
        ResultsStore.open(path)
    assert "\n" not in str(refused.value)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["theirs.sqlite"]


def test_a_folder_or_a_missing_folder_is_refused_in_one_sentence(tmp_path):
    with pytest.raises(StoreError, match="is a folder, not a file"):
        ResultsStore.open(tmp_path)
    with pytest.raises(StoreError, match=r"cannot be created: the folder .*missing does not exist"):
        ResultsStore.open(tmp_path / "missing" / "r.sqlite")


def test_random_bytes_are_not_an_sqlite_database(tmp_path):
    path = tmp_path / "r.sqlite"
    path.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(StoreError, match="it is not an SQLite database"):
        ResultsStore.open(path)


def test_a_version_1_store_is_upgraded_and_keeps_its_games(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as connection:
        connection.executescript((SCHEMA_DIR / "v1.sql").read_text())
        connection.execute("INSERT INTO games VALUES (1, 'a', 'b', 'sorted', NULL, 4, 'finished')")
        connection.execute("INSERT INTO players VALUES (1, 1, 'old bot', 7, 1, NULL, NULL, NULL)")
    connection.close()
    store = ResultsStore.open(path)
    [game] = store.games()
    assert (game.id, game.turns, game.players[0].name, game.players[0].score) == (1, 4, "old bot", 7)
    assert store.game_log(1) is None and store.tournaments() == []
    assert store.connection.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert store.record(GAME) == 2
    store.close()


def test_names_and_reasons_that_utf8_cannot_encode_come_back_exactly(db):
    odd = "\ud800 evil \udfff"
    game = GAME.__class__(**{**GAME.__dict__, "players": (
        SeatRecord(1, odd, 9, 1), SeatRecord(2, "b", None, None, 1, "choose", f'invalid reply: "{odd}"'),
    )})
    store = ResultsStore.open(db)
    store.record(game)
    [back] = store.games()
    assert back.players == game.players
    store.close()


def test_a_postgresql_database_of_a_newer_version_or_of_another_application_is_refused(db):
    if not db.startswith("postgresql://"):
        pytest.skip("the SQLite file's cases are the tests above")
    import psycopg

    ResultsStore.open(db).close()
    with psycopg.connect(db, autocommit=True) as connection:
        connection.execute("UPDATE version SET version = 99")
    with pytest.raises(StoreError, match="is of version 99, newer than this program's"):
        ResultsStore.open(db)
    with psycopg.connect(db, autocommit=True) as connection:
        connection.execute("DROP TABLE version CASCADE")
    with pytest.raises(StoreError, match="is not an Evolution results database .* refusing to touch it"):
        ResultsStore.open(db)


def _ladder_game(game_id: int, ended: str, first: str, second: str, host: str) -> GameRecord:
    return GameRecord("2026-01-01T00:00:00.000+00:00", ended, "shuffled", game_id, 5, "finished",
                      (SeatRecord(1, first, 7, 1), SeatRecord(2, second, 3, 2), SeatRecord(3, f"{host} alone", 1, 3)),
                      game_id, ladder=True, host=host)


def _rate_at_once(db: str, host: str, first_id: int, games: int, ready) -> str:
    """One host's store process: ``games`` ladder games of the bots x and y (seated in this host's order)."""
    store = ResultsStore.open(db)  # the first of them makes the store; the other waits for it
    ready.wait()
    try:
        for k in range(games):
            seats = ("x", "y") if host == "one" else ("y", "x")  # the other host seats them the other way round
            ended = f"2026-01-01T00:{k // 60:02d}:{k % 60:02d}.000+00:00"
            store.apply(game_operation(_ladder_game(first_id + k, ended, *seats, host), None))
    except Exception as error:  # a deadlock, a lost update: said, and the test fails
        return f"{type(error).__name__}: {error}"
    finally:
        store.close()
    return "stored"


def test_two_hosts_rating_the_same_bots_at_once_lose_no_update_and_never_deadlock(db):
    # Both hosts' games seat the bots x and y, in opposite orders: each game's update locks their rows, always in
    # name order, so neither waits for the other in a circle; each update reads the rating the other just wrote.
    games = 40
    context = multiprocessing.get_context("spawn")
    with context.Manager() as manager, context.Pool(2) as pool:
        ready = manager.Barrier(2)
        outcomes = pool.starmap(_rate_at_once, [(db, "one", 1, games, ready), (db, "two", 1001, games, ready)])
    assert outcomes == ["stored", "stored"]
    store = ResultsStore.open(db)
    try:
        ladder = {standing.name: standing for _, standing in store.ladder()}
        assert (ladder["x"].games, ladder["y"].games, ladder["one alone"].games) == (2 * games, 2 * games, games)
        assert (ladder["x"].wins + ladder["y"].wins) == 2 * games
    finally:
        store.close()


def test_a_ladder_game_reported_late_counts_but_does_not_become_the_bots_latest(db):
    # A host whose database was down stores its games late: they move the ratings when they come (the store takes
    # games in the order they arrive), and the bot's latest game stays the one that ended last.
    store = ResultsStore.open(db)
    try:
        store.apply(game_operation(_ladder_game(2, "2026-01-01T00:00:09.000+00:00", "x", "y", "one"), None))
        store.apply(game_operation(_ladder_game(1001, "2026-01-01T00:00:05.000+00:00", "y", "x", "two"), None))
        ladder = {standing.name: standing for _, standing in store.ladder()}
        assert (ladder["x"].games, ladder["y"].games) == (2, 2)
        latest = dict(store.connection.execute("SELECT name, last_game FROM ladder WHERE name IN ('x', 'y')"))
        assert latest == {"x": 2, "y": 2}
        [late] = [game for game in store.games() if game.id == 1001]
        assert [(seat.name, seat.rating_mu) for seat in late.players][:2] == [
            ("y", ladder["y"].rating_mu), ("x", ladder["x"].rating_mu)]  # its seats hold the ratings after it
    finally:
        store.close()


def test_each_host_minds_its_running_games_and_a_restart_aborts_only_its_own(db):
    from evolution.store.operations import game_begun

    store = ResultsStore.open(db)
    try:
        for game_id, host in ((5, "one"), (1005, "two")):
            store.apply(game_begun(game_id, host, "2026-01-01T00:00:00.000+00:00", "evolution", ["a", "b", "c"],
                                   "shuffled", game_id, {}, None, True))
        assert [(game["id"], game["host"], game["names"], game["ladder"]) for game in store.running_games()] == [
            (5, "one", ["a", "b", "c"], True), (1005, "two", ["a", "b", "c"], True)]
        assert [(row["host"], row["games"], row["running"]) for row in store.hosts()] == [("one", 0, 1), ("two", 0, 1)]
        aborted = store.abort_running("one", "its host stopped")
        # One store of several hosts (PostgreSQL): only host one's game; an SQLite file has one host: all of them.
        assert aborted == ([5] if store.shared else [5, 1005])
        assert [game["id"] for game in store.running_games()] == ([1005] if store.shared else [])
        [game] = [game for game in store.games() if game.id == 5]
        assert (game.outcome, game.host, [seat.name for seat in game.players]) == (
            "aborted: its host stopped", "one", ["a", "b", "c"])
        assert store.ladder() == []  # an aborted game counts for no one
    finally:
        store.close()


# -- the hosts of a store, and the games they are playing -----------------------------------


def test_a_stores_hosts_and_the_games_they_are_playing_are_read_back(db):
    """Each host with its games stored, running and last game's end (games from before hosts had names under
    None, last); the games being played on every host, oldest first, until each is stored."""
    from dataclasses import replace

    from evolution.store.operations import game_begun

    store = ResultsStore.open(db)
    for host, ended in [("beta", "01:00"), ("alpha", "02:00"), ("alpha", "03:00"), (None, "00:30")]:
        store.record(replace(GAME, host=host, ended_at=f"2026-01-01T{ended}.000+00:00"))
    store.apply(game_begun(5_000_001, "gamma", "2026-01-02T00:00:09.000+00:00", "fish", ["ann", "\ud800bo"],
                           "random", 5, {"timeout": 10.0}, (7, 2), False))
    store.apply(game_begun(90, "alpha", "2026-01-02T00:00:01.000+00:00", "evolution", ["cy", "dee", "eve"],
                           "shuffled", 1, {}, None, True))
    assert store.hosts() == [
        {"host": "alpha", "games": 2, "running": 1, "last_ended": "2026-01-01T03:00.000+00:00"},
        {"host": "beta", "games": 1, "running": 0, "last_ended": "2026-01-01T01:00.000+00:00"},
        {"host": "gamma", "games": 0, "running": 1, "last_ended": None},
        {"host": None, "games": 1, "running": 0, "last_ended": "2026-01-01T00:30.000+00:00"},
    ]
    assert store.running_games() == [
        {"id": 90, "host": "alpha", "started_at": "2026-01-02T00:00:01.000+00:00", "game": "evolution",
         "tournament_id": None, "round": None, "ladder": True, "names": ["cy", "dee", "eve"]},
        {"id": 5_000_001, "host": "gamma", "started_at": "2026-01-02T00:00:09.000+00:00", "game": "fish",
         "tournament_id": 7, "round": 2, "ladder": False, "names": ["ann", "\ud800bo"]},
    ]
    store.record(replace(GAME, id=90, host="alpha", ended_at="2026-01-02T00:05:00.000+00:00"))
    assert [game["id"] for game in store.running_games()] == [5_000_001]
    assert store.hosts()[0] == {"host": "alpha", "games": 3, "running": 0, "last_ended": "2026-01-02T00:05:00.000+00:00"}
    store.close()
