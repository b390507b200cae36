"""Standings to download: a tournament's and a ladder's, as CSV a spreadsheet reads safely, and as JSON."""

from __future__ import annotations

import csv
import io
import json

from evolution.store.results_store import ResultsStore
from evolution.web.downloads import ladder_standings, tournament_standings
from tests.support.webhosting import apply, tournament_operations

FORMULA = '=HYPERLINK("http://evil","x")'


def rows_of(body: bytes) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(body.decode("utf-8"))))


def stored_tournament(tmp_path, format: str, names: list[str], cheats: list[str] = ()) -> dict:
    db = tmp_path / "r.sqlite"
    apply(db, tournament_operations(1, format, names, 1, cheats=cheats))
    store = ResultsStore.open(db)
    try:
        return store.tournament(1).to_json()
    finally:
        store.close()


def test_a_swiss_tournaments_standings_as_csv_and_json(tmp_path):
    names = ["ann", "bo", FORMULA, "dee\x1b[2J", "eve", "-1+1"]
    data = stored_tournament(tmp_path, "swiss", names, cheats=["bo"])
    csv_file = tournament_standings(data, "csv")
    assert (csv_file.kind, csv_file.name) == (b"text/csv; charset=utf-8", "tournament-1-standings.csv")
    rows = rows_of(csv_file.body)
    assert list(rows[0]) == ["rank", "name", "points", "rating", "rating_sigma", "ordinal", "winner", "failed_round",
                             "failure"]
    assert [row["name"] for row in rows] == [
        {FORMULA: "'" + FORMULA, "dee\x1b[2J": "dee\\x1b[2J", "-1+1": "'-1+1"}.get(row["name"], row["name"])
        for row in data["standings"]
    ]
    assert [row["rank"] for row in rows] == [str(row["rank"] or "") for row in data["standings"]]
    [failed] = [row for row in rows if row["name"] == "bo"]
    assert (failed["rank"], failed["failed_round"], failed["failure"]) == ("", "1", "chose a card it does not hold")
    winners = [row["name"] for row in rows if row["winner"] == "yes"]
    assert winners and all(row["rank"] == "1" for row in rows if row["winner"] == "yes")
    assert any(row["ordinal"].startswith("-") for row in rows)  # numbers are never quoted as formulas

    json_file = tournament_standings(data, "json")
    assert (json_file.kind, json_file.name) == (b"application/json; charset=utf-8", "tournament-1-standings.json")
    back = json.loads(json_file.body)
    assert (back["tournament"], back["game"], back["format"], back["ranked_by"]) == (
        1, "evolution", "swiss", ["points", "the rating mu - 3 sigma"])
    assert [row["name"] for row in back["standings"]] == [row["name"] for row in data["standings"]]  # exactly
    assert json_file.body.isascii()


def test_a_knockouts_standings_have_its_columns_and_no_points(tmp_path):
    data = stored_tournament(tmp_path, "knockout", [f"p{k}" for k in range(1, 10)])
    rows = rows_of(tournament_standings(data, "csv").body)
    assert list(rows[0]) == ["rank", "name", "reached", "place", "score", "winner", "failed_round", "failure"]
    assert rows[0]["winner"] == "yes" and rows[0]["rank"] == "1"


def test_a_ladders_standings_say_which_ratings_are_provisional():
    ladder = [
        {"name": "sure", "rank": 1, "rating": 30.0, "rating_sigma": 5.0, "games": 40, "wins": 12, "removals": 0,
         "provisional": False},
        {"name": "@new", "rank": 2, "rating": 27.0, "rating_sigma": 8.0, "games": 2, "wins": 2, "removals": 0,
         "provisional": True},
    ]
    rows = rows_of(ladder_standings(ladder, "fish", "csv").body)
    assert rows == [
        {"rank": "1", "name": "sure", "provisional": "no", "rating": "30.0", "rating_sigma": "5.0", "ordinal": "15.0",
         "games": "40", "wins": "12", "removals": "0"},
        {"rank": "2", "name": "'@new", "provisional": "yes", "rating": "27.0", "rating_sigma": "8.0", "ordinal": "3.0",
         "games": "2", "wins": "2", "removals": "0"},
    ]
    back = json.loads(ladder_standings(ladder, "fish", "json").body)
    assert back["ladder"] == "fish" and back["standings"][1]["name"] == "@new" and back["standings"][1]["provisional"]
    assert ladder_standings(ladder, "fish", "json").name == "fish-ladder-standings.json"
