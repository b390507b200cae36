"""A player's history in the store: its games a page at a time, its removals, its ratings over time, all bounded."""

from __future__ import annotations

import re
import sqlite3
from datetime import datetime, timedelta, timezone

import pytest

from evolution.store import player_history as history
from evolution.store.database import SCHEMA_DIR
from evolution.store.queries import ladder, player, players
from evolution.store.records import GameRecord, SeatRecord
from evolution.store.results_store import ResultsStore
from tests.support.webhosting import apply, tournament_operations

ODD = "\ud800 odd/bot %41"  # a lone surrogate, a slash and a percent sign: any JSON string is a name


def at(seconds: int) -> str:
    """A moment, ``seconds`` after the first of the tests' games began."""
    return (datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def game(game_id: int, seats: list[tuple[str, int | None]], ladder: bool = False, kind: str = "evolution",
         ratings: dict[str, tuple[float, float]] | None = None) -> GameRecord:
    """A finished game: each seat (name, score; None: removed for a bad reply), ranked by score."""
    scores = sorted((score for _, score in seats if score is not None), reverse=True)
    records = []
    for number, (name, score) in enumerate(seats, start=1):
        mu, sigma = (ratings or {}).get(name, (None, None))
        records.append(SeatRecord(
            number, name, score, None if score is None else 1 + scores.index(score),
            None if score is not None else 2, None if score is not None else "choose",
            None if score is not None else f"bad reply in game {game_id}", rating_mu=mu, rating_sigma=sigma,
        ))
    return GameRecord(at(game_id), at(game_id + 60), "shuffled", game_id, 3, "finished", tuple(records), game_id,
                      game=kind, ladder=ladder)


@pytest.fixture
def store(db):
    opened = ResultsStore.open(db)
    yield opened
    opened.close()


def test_a_players_games_come_newest_first_a_page_at_a_time(store):
    for number in range(1, 121):
        seats = [("ann", number % 7), ("bo", 3)] if number % 2 else [("bo", 1), ("cy", 2)]
        if number % 10 == 1:
            seats = [("ann", None), ("bo", 3)]
        store.record(game(number, seats))
    assert history.counts(store, "ann") == (60, 12)
    first = history.game_ids(store, "ann", 25)
    assert first == list(range(119, 69, -2))
    second = history.game_ids(store, "ann", 25, before=first[-1])
    assert second == list(range(69, 19, -2))
    assert history.game_ids(store, "ann", 25, before=second[-1]) == list(range(19, 0, -2))
    assert history.game_ids(store, "nobody", 25) == [] and not history.known(store, "nobody")

    page = player(store, "ann", "evolution", 25)
    assert [row["id"] for row in page["games"]] == first and page["next"] == first[-1]
    assert page["counts"] == {"games": 60, "removals": 12}
    row = next(row for row in page["games"] if row["id"] == 101)  # removed: no score, no place
    assert (row["score"], row["place"], row["removed"]["reason"]) == (None, None, "bad reply in game 101")
    row = next(row for row in page["games"] if row["id"] == 73)  # 73 % 7 = 3: equal to bo's 3
    assert (row["place"], row["tied"], row["players"]) == (1, True, 2)
    assert [removal["id"] for removal in page["removals"]] == [111, 101, 91, 81, 71, 61, 51, 41, 31, 21, 11, 1]
    assert player(store, "ann", "evolution", 25, before=2)["next"] is None


def test_the_reads_of_a_player_and_of_the_newest_removals_go_through_indexes(store):
    if store.shared:
        pytest.skip("SQLite's query plans; PostgreSQL has the same indexes (sql/postgresql/)")
    """However many games a store holds, these reads look only at the player's rows, or at the removals:
    no statement they make scans a table (each SQL statement as run, its query plan asked of SQLite)."""
    store.record(game(1, [("ann", 1), ("bo", None)], ladder=True, ratings={"ann": (25.0, 8.0), "bo": (20.0, 8.0)}))
    statements: list[str] = []
    store.connection.set_trace_callback(statements.append)
    history.counts(store, "ann")
    history.game_ids(store, "ann", 5, before=10)
    history.removals(store, 5, name="ann")
    history.removals(store, 5, game="evolution")
    history.ladder_series(store, "ann", "evolution", 200)
    history.ladder_standing(store, "ann", "evolution")
    store.connection.set_trace_callback(None)
    assert len(statements) == 8
    for statement in statements:
        plan = " | ".join(row[-1] for row in store.connection.execute(f"EXPLAIN QUERY PLAN {statement}"))
        assert not re.search(r"SCAN (players|games)(?! USING (COVERING )?INDEX (players_by_name|removals))", plan), (
            statement, plan)
        assert "SCAN ladder" not in plan or "ladder WHERE game =" in statement  # a ladder's rows, by its key


def test_a_ladder_rating_series_is_a_few_hundred_points_at_most_spread_over_every_game(store):
    for number in range(1, 1001):
        rating = {"ann": (20 + number / 100, 8 - number / 1000), "bo": (25.0, 8.0)}
        store.record(game(number, [("ann", 2), ("bo", 1)], ladder=True, ratings=rating))
    store.record(game(1001, [("ann", 2), ("bo", 1)], ladder=True, kind="fish", ratings={"ann": (1.0, 1.0)}))
    series = history.ladder_series(store, "ann", "evolution", 200)
    assert 190 <= len(series) <= 201
    assert series[0]["id"] == 1 and series[-1]["id"] == 1000  # the first and the last, never another game's ladder
    assert [point["id"] for point in series] == sorted(point["id"] for point in series)
    [last_seat] = [seat for seat in store.game(1000).players if seat.name == "ann"]  # the store rates ladder games
    assert (series[-1]["rating"], series[-1]["rating_sigma"]) == (round(last_seat.rating_mu, 3),
                                                                  round(last_seat.rating_sigma, 3))
    assert len(history.ladder_series(store, "ann", "evolution", 2000)) == 1000
    [fish_seat] = [seat for seat in store.game(1001).players if seat.name == "ann"]
    assert history.ladder_series(store, "ann", "fish", 200) == [{
        "id": 1001, "ended_at": at(1061), "rating": round(fish_seat.rating_mu, 3),
        "rating_sigma": round(fish_seat.rating_sigma, 3)}]


def test_a_bots_ladder_standing_has_the_rank_the_whole_ladder_gives_it(store):
    names = ["ann", "bo", "cy", "dee", "eve", ODD]
    for number in range(1, 13):  # ann plays every game; the odd bot is removed from its only two
        seats = [(names[(number + k) % 5], (number * (k + 3)) % 7) for k in range(3)]
        if number in (4, 9):
            seats.append((ODD, None))
        ratings = {name: (20.0 + (number * len(name)) % 9, 8.0 - number / 10) for name, _ in seats}
        store.record(game(number, seats, ladder=True, ratings=ratings))
    whole = store.ladder("evolution")
    assert whole[-1][1].name == ODD and whole[-1][1].tier == 2
    for rank, standing in whole:
        assert history.ladder_standing(store, standing.name, "evolution") == (rank, standing)
    assert history.ladder_standing(store, "nobody", "evolution") is None
    page = player(store, ODD, "evolution", 10)
    assert page["ladder"]["provisional"] and page["ladder"]["rank"] == whole[-1][0]
    assert [removal["reason"] for removal in page["removals"]] == ["bad reply in game 9", "bad reply in game 4"]
    assert [removal["reason"] for removal in history.removals(store, 1, game="evolution")] == ["bad reply in game 9"]


def test_a_players_swiss_ratings_are_one_point_per_tournament(tmp_path):
    names = [f"player {k}" for k in range(1, 7)]
    db = tmp_path / "r.sqlite"
    apply(db, tournament_operations(1, "swiss", names, 1, seed=1)
          + tournament_operations(2, "knockout", names, 100)
          + tournament_operations(3, "swiss", names, 200, seed=2))
    store = ResultsStore.open(db)
    try:
        series = history.swiss_series(store, "player 1", "evolution", 10)
        assert [point["tournament"] for point in series] == [1, 3]  # the knockout keeps no rating
        final = {entrant.name: entrant for entrant in store.tournament(3).entrants}["player 1"]
        assert (series[-1]["rating"], series[-1]["rank"]) == (round(final.rating_mu, 3), final.rank)
        assert history.swiss_series(store, "player 1", "fish", 10) == []
        assert history.swiss_series(store, "player 1", "evolution", 1) == series[-1:]
    finally:
        store.close()


def test_a_version_4_store_is_upgraded_with_the_indexes_and_keeps_its_games(tmp_path):
    path = tmp_path / "old.sqlite"
    with sqlite3.connect(path) as connection:
        connection.executescript((SCHEMA_DIR / "v4.sql").read_text())
        connection.execute("PRAGMA application_id = 1165389676")
        connection.execute("INSERT INTO games (id, started_at, ended_at, deck, turns, outcome) VALUES"
                           " (1, 'a', 'b', 'sorted', 4, 'finished')")
        connection.execute("INSERT INTO players (game_id, seat, name, score, rank) VALUES (1, 1, 'old bot', 7, 1)")
    connection.close()
    store = ResultsStore.open(path)
    try:
        indexes = {row[0] for row in store.connection.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert {"players_by_name", "removals", "removals_by_name"} <= indexes
        assert history.game_ids(store, "old bot", 10) == [1]
    finally:
        store.close()


def test_in_a_store_several_hosts_share_a_players_history_goes_by_time_not_by_id(store):
    """Each host numbers its games in a block of its own: beta's ids are above alpha's, whenever they ended."""
    if not store.shared:
        pytest.skip("one host writes an SQLite store: its ids are in time order")
    from dataclasses import replace

    played = [  # (id, host, seconds after the first, ann's score: None, removed)
        (1_000_001, "beta", 5, None), (1, "alpha", 10, 4), (1_000_002, "beta", 20, 1), (2, "alpha", 30, None),
        (1_000_003, "beta", 40, 5),
    ]
    for game_id, host, seconds, score in played:  # stored as they ended: the ladder rates them in that order
        record = game(game_id, [("ann", score), ("bo", 3)], ladder=True)
        store.record(replace(record, started_at=at(seconds - 1), ended_at=at(seconds), host=host))
    newest = [1_000_003, 2, 1_000_002, 1, 1_000_001]
    assert history.game_ids(store, "ann", 2) == newest[:2]
    assert history.game_ids(store, "ann", 2, before=2) == newest[2:4]
    assert history.game_ids(store, "ann", 2, before=1) == newest[4:]
    assert [removal["id"] for removal in history.removals(store, 5, name="ann")] == [2, 1_000_001]
    assert [removal["id"] for removal in history.removals(store, 5, game="evolution")] == [2, 1_000_001]
    series = history.ladder_series(store, "ann", "evolution", 200)
    assert [point["id"] for point in series] == newest[::-1]
    [(_, standing)] = [row for row in store.ladder("evolution") if row[1].name == "ann"]
    assert series[-1]["rating"] == round(standing.rating_mu, 3)  # the latest point is its rating now
    page = player(store, "ann", "evolution", 3)
    assert [(row["id"], row["host"]) for row in page["games"]] == [
        (1_000_003, "beta"), (2, "alpha"), (1_000_002, "beta")]
    assert page["next"] == 1_000_002
    assert [row["id"] for row in player(store, "ann", "evolution", 3, before=page["next"])["games"]] == newest[3:]


def test_the_players_list_finds_names_by_any_part_a_page_at_a_time_with_when_each_was_last_seen(store):
    names = ["Ann", "anna_b", "bo", "c%o", ODD, "dan"]
    for number, name in enumerate(names, start=1):
        store.record(game(number, [(name, 3), ("zed", 1)]))
    store.record(game(10, [("bo", 2), ("Ann", 5)], ladder=True))
    everyone = history.names(store, "", 100)
    assert sorted(everyone) == sorted(names + ["zed"])
    assert sorted(history.names(store, "ANN", 100)) == ["Ann", "anna_b"]  # any case
    assert sorted(history.names(store, "%", 100)) == sorted(["c%o", ODD])  # taken literally
    assert history.names(store, "_", 100) == ["anna_b"]
    assert history.names(store, "odd/", 100) == [ODD]
    first = history.names(store, "", 3)
    assert first + history.names(store, "", 100, after=first[-1]) == everyone  # pages follow on

    page, found = players(store, "an", 2), []
    while True:
        found += page["players"]
        if page["next"] is None:
            break
        page = players(store, "an", 2, after=page["next"])
    assert sorted((row["name"], row["games"], row["last_seen"]) for row in found) == [
        ("Ann", 2, at(70)), ("anna_b", 1, at(62)), ("dan", 1, at(66))]
    rows = {row["name"]: row for row in players(store, "", 100)["players"]}
    assert (rows["zed"]["games"], rows["zed"]["last_seen"]) == (6, at(66))
    assert players(store, "nobody", 10) == {"players": [], "next": None}
    assert history.last_seen(store, ["Ann", "bo", "zed"], "evolution") == {"Ann": at(70), "bo": at(70)}  # the ladder's
    assert history.last_seen(store, ["zed", "nobody"]) == {"zed": at(66)}
    assert {row["name"]: row["last_seen"] for row in ladder(store, "evolution")} == {"Ann": at(70), "bo": at(70)}


def test_a_players_page_names_its_opponents_and_its_place_and_points_in_each_tournament(tmp_path):
    names = [f"player {k}" for k in range(1, 7)]
    db = tmp_path / "r.sqlite"
    apply(db, tournament_operations(1, "swiss", names, 1, seed=1) + tournament_operations(2, "knockout", names, 100))
    store = ResultsStore.open(db)
    try:
        page = player(store, "player 1", "evolution", 50)
        for row in page["games"]:
            record = store.games_by_id([row["id"]])[0]
            places = record.places()
            assert row["opponents"] == [{"name": seat.name, "place": places.get(seat.seat), "score": seat.score}
                                        for seat in record.players if seat.name != "player 1"]
        entered = {t.id: {e.name: e for e in t.entrants}["player 1"] for t in (store.tournament(1), store.tournament(2))}
        assert [(row["tournament"], row["format"], row["rank"], row["points"], row["entrants"]) for row in page["tournaments"]] == [
            (2, "knockout", entered[2].rank, None, 6), (1, "swiss", entered[1].rank, entered[1].points, 6)]
        assert page["tournaments"][0]["winner"] == entered[2].winner
    finally:
        store.close()
