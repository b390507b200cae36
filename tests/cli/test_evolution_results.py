"""``evolution-results`` shows what bots sent without letting it drive the reader's terminal."""

from __future__ import annotations

import json
import unicodedata

from evolution.cli.evolution_results import main
from evolution.store.records import GameRecord, SeatRecord
from evolution.store.results_store import ResultsStore

NASTY = "\x1b[2J\x07evil\r\n\x9b\u2028\u202e"
REASON = f'invalid reply to choose: action4: "{NASTY}" is not an array'
GAME = GameRecord(
    "2026-01-01T00:00:00.000+00:00",
    "2026-01-01T00:00:01.000+00:00",
    "sorted",
    None,
    2,
    "finished",
    (
        SeatRecord(1, NASTY, 9, 1),
        SeatRecord(2, "x" * 30, None, None, 1, "choose", REASON),
        SeatRecord(3, "plain", 4, 2),
    ),
)


def listing(tmp_path, capsys, *args: str) -> str:
    store = ResultsStore.open(tmp_path / "r.sqlite")
    store.record(GAME)
    store.close()
    assert main(["--db", str(tmp_path / "r.sqlite"), *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def unsafe(text: str) -> list[str]:
    return [char for char in text if char != "\n" and unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"}]


def test_the_table_shows_names_and_reasons_escaped(tmp_path, capsys):
    out = listing(tmp_path, capsys)
    assert unsafe(out) == []
    assert "  \\x1b[2J\\x07evil\\r\\n\u2026  " in out  # cut to 20 characters
    assert "x" * 19 + "\u2026" in out
    shown = '"\\x1b[2J\\x07evil\\r\\n\\x9b\\u2028\\u202e"'
    assert f"removed in turn 1 (choose): invalid reply to choose: action4: {shown} is not an array" in out
    assert len(out.splitlines()) == 5  # a header, a title line, one line per seat


def test_the_json_is_ascii_and_gives_back_exactly_what_was_stored(tmp_path, capsys):
    out = listing(tmp_path, capsys, "--json")
    assert out.isascii()
    [game] = json.loads(out)
    assert [seat["name"] for seat in game["players"]] == [NASTY, "x" * 30, "plain"]
    assert game["players"][1]["removed_reason"] == REASON


# -- tournaments ----------------------------------------------------------------------


def tournament_store(tmp_path):
    from dataclasses import replace

    from evolution.store.operations import game_operation, round_over, tournament_begun, tournament_over
    from evolution.store.records import EntrantRecord, RoundRecord, TournamentRecord

    entrants = (EntrantRecord(1, NASTY), EntrantRecord(2, "x" * 30), EntrantRecord(3, "plain"))
    store = ResultsStore.open(tmp_path / "r.sqlite")
    store.apply(tournament_begun(TournamentRecord(1, "swiss", "running", "t0", None, {"rounds": 1}, entrants)))
    store.apply(game_operation(replace(GAME, id=1, tournament_id=1, round=1)))
    standings = [
        EntrantRecord(1, NASTY, 1, 10, 27.5, 7.9, True),
        EntrantRecord(3, "plain", 2, 5, 25.0, 7.9),
        EntrantRecord(2, "x" * 30, None, 0, 22.5, 8.1, False, REASON, 1),
    ]
    store.apply(round_over(1, RoundRecord(1, "t1", "t2", f"1 games, 3 players; leader {NASTY!r}"), standings))
    store.apply(tournament_over(1, "finished", "t3", standings))
    store.close()
    return str(tmp_path / "r.sqlite")


def test_tournaments_as_json_have_the_documented_fields(tmp_path, capsys):
    db = tournament_store(tmp_path)
    assert main(["--db", db, "--tournaments", "--json"]) == 0
    out, _ = capsys.readouterr()
    assert out.isascii()
    [tournament] = json.loads(out)
    assert {key: tournament[key] for key in ("id", "format", "status", "winners", "games")} == {
        "id": 1, "format": "swiss", "status": "finished", "winners": [NASTY], "games": [1],
    }
    assert tournament["failures"] == [{"name": "x" * 30, "reason": REASON, "round": 1}]
    assert [(row["name"], row["rank"], row["points"], row["rating"]) for row in tournament["standings"]] == [
        (NASTY, 1, 10, 27.5), ("plain", 2, 5, 25.0), ("x" * 30, None, 0, 22.5),
    ]
    assert tournament["ranked_by"] == ["points", "the rating mu - 3 sigma"]
    assert tournament["standings"][0]["ordinal"] == 3.8


def test_one_tournament_as_a_table_is_safe_for_a_terminal(tmp_path, capsys):
    db = tournament_store(tmp_path)
    assert main(["--db", db, "--tournament", "1"]) == 0
    out, _ = capsys.readouterr()
    assert unsafe(out) == []
    lines = out.splitlines()
    assert lines[0].startswith("tournament #1  swiss     finished")
    assert "round 1: 1 games, 3 players; leader" in lines[2] and "(games #1)" in lines[2]
    [winner] = [line for line in lines if line.endswith("winner")]
    assert "27.50 +- 7.90" in winner and winner.split()[-2] == "3.80"  # mu - 3 sigma, which splits equal points
    assert "  ranked by points, then the rating mu - 3 sigma; equal ranks are ties; failures last, unranked" in lines
    assert "failed in round 1: invalid reply to choose" in lines[-1]
    assert main(["--db", db, "--tournament", "7"]) == 1
    assert capsys.readouterr().err == f"evolution-results: no tournament #7 in {db}\n"
    assert main(["--db", db, "--tournaments"]) == 0
    assert capsys.readouterr().out.count("\n") == 1


def test_equal_scores_share_a_place_and_the_rule_that_split_their_ranks_is_named(tmp_path, capsys):
    store = ResultsStore.open(tmp_path / "r.sqlite")
    store.record(GameRecord("t0", "t1", "shuffled", 5, 3, "finished", (
        SeatRecord(1, "ann", 5, 3), SeatRecord(2, "bo", 7, 1), SeatRecord(3, "cy", 5, 2), SeatRecord(4, "dee", 5, 4),
        SeatRecord(5, "eve", 2, 5),
    )))
    store.close()
    assert main(["--db", str(tmp_path / "r.sqlite")]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "  rank  place  seat  name                  score"
    assert [line.split()[:4] for line in lines[2:7]] == [
        ["1", "1", "2", "bo"], ["2", "=2", "3", "cy"], ["3", "=2", "1", "ann"], ["4", "=2", "4", "dee"],
        ["5", "5", "5", "eve"],
    ]
    assert lines[7] == ("  = equal scores share a place, as tournament points and ratings count them; the game's ranks"
                        " split them by the reverse of the final turn order (the course's rule: every player its own"
                        " rank)")
    assert main(["--db", str(tmp_path / "r.sqlite"), "--json"]) == 0
    [game] = json.loads(capsys.readouterr().out)
    assert [seat["place"] for seat in game["players"]] == [2, 1, 2, 2, 5]
    assert game["tie_break"].startswith("the reverse of the final turn order")


def test_the_ladder_marks_provisional_ratings_and_ranks_them_after_the_established(tmp_path, capsys):
    store = ResultsStore.open(tmp_path / "r.sqlite")
    for number in range(1, 7):  # "new" plays the last game only and wins it; "gone" is removed from it
        seats = [SeatRecord(1, "old", 3, 1, rating_mu=26.0 - number / 10, rating_sigma=6.5),
                 SeatRecord(2, "also old", 1, 2, rating_mu=24.0, rating_sigma=6.6)]
        if number == 6:
            seats += [SeatRecord(3, "new", 9, 1, rating_mu=40.0, rating_sigma=7.0),
                      SeatRecord(4, "gone", None, None, 2, "choose", "late", rating_mu=21.0, rating_sigma=8.0)]
        store.record(GameRecord("t0", "t1", "shuffled", number, 3, "finished", tuple(seats), ladder=True))
    store.close()
    assert main(["--db", str(tmp_path / "r.sqlite"), "--ladder", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(row["name"], row["rank"], row["provisional"]) for row in rows] == [
        ("old", 1, False), ("also old", 2, False), ("new", 3, True), ("gone", 4, True)]
    assert main(["--db", str(tmp_path / "r.sqlite"), "--ladder"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == ("  ? marks a provisional rating (fewer than 5 games played to the end), ranked after every"
                        " established one; a bot removed from every game it played comes last")
    assert [line.split()[1] for line in lines[3:]] == ["old", "also", "new", "gone"]
    assert [line.split("+-")[1].split()[0].endswith("?") for line in lines[3:]] == [False, False, True, True]


# -- hosts ------------------------------------------------------------------------------------


def test_each_game_and_tournament_names_its_host_and_hosts_lists_them(tmp_path, capsys):
    from dataclasses import replace

    from evolution.store.operations import game_begun

    db = tournament_store(tmp_path)
    store = ResultsStore.open(db)
    store.record(replace(GAME, host="lab3:45678"))
    store.record(replace(GAME, host="lab3:45678", ended_at="2026-01-01T00:09:00.000+00:00"))
    store.record(replace(GAME, host="\x1b[2Jlab4"))
    store.apply(game_begun(50, "lab3:45678", "2026-01-01T00:10:00.000+00:00", "evolution", ["a", "b", "c"],
                           "shuffled", 1, {}, None, False))
    store.close()
    assert main(["--db", db]) == 0
    headers = [line for line in capsys.readouterr().out.splitlines() if line.startswith("game #")]
    assert [header.split("  ")[2] for header in headers] == [  # game #ID, when it began, where
        "sorted deck", "on lab3:45678", "on lab3:45678", "on \\x1b[2Jlab4"]
    assert main(["--db", db, "--hosts"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "  host         games  running  last game ended            last heard from",
        "  \\x1b[2Jlab4      1        0  2026-01-01T00:00:01.000+00:00  never",
        "  lab3:45678       2        1  2026-01-01T00:09:00.000+00:00  never",
        "  (none)           1        0  2026-01-01T00:00:01.000+00:00  never",
        "  (none): games stored before hosts had names (a store older than version 7)",
    ]
    assert main(["--db", db, "--hosts", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[1] == {
        "host": "lab3:45678", "games": 2, "running": 1, "last_ended": "2026-01-01T00:09:00.000+00:00",
        "last_heard": None, "silent_s": None}  # no heartbeat: these games were stored by hand


def test_a_tournament_line_names_the_host_that_ran_it(tmp_path, capsys):
    from evolution.store.operations import tournament_begun
    from evolution.store.records import EntrantRecord, TournamentRecord

    store = ResultsStore.open(tmp_path / "r.sqlite")
    store.apply(tournament_begun(TournamentRecord(3, "knockout", "running", "t0", None, {}, (EntrantRecord(1, "a"),),
                                                  host="lab3:45678")))
    store.close()
    assert main(["--db", str(tmp_path / "r.sqlite"), "--tournaments"]) == 0
    assert capsys.readouterr().out.startswith("tournament #3  knockout  running      t0  on lab3:45678  1 player  ")


def test_the_ladder_names_each_bots_owner_and_marks_the_banned(tmp_path, capsys):
    from evolution.store.accounts import Accounts

    db = tmp_path / "r.sqlite"
    accounts = Accounts.open(db)
    accounts.add_owner("ann", "Ann Smith")
    accounts.add_bot("alice", "ann")
    accounts.ban("alice")
    accounts.close()
    store = ResultsStore.open(db)
    seats = (SeatRecord(1, "alice", 9, 1), SeatRecord(2, "guest-1", 5, 2), SeatRecord(3, "bob", 3, 3))
    store.record(GameRecord("2026-01-01T00:00:00.000+00:00", "2026-01-01T00:00:01.000+00:00", "sorted", None, 2,
                            "finished", seats, settings={"unrated": ["guest-1"]}, ladder=True))
    store.close()
    assert main(["--db", str(db), "--ladder"]) == 0
    table = capsys.readouterr().out
    assert "owner" in table and "Ann Smith BANNED" in table and "guest-1" not in table
    assert main(["--db", str(db), "--ladder", "--json"]) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)}
    assert (rows["alice"]["owner"], rows["alice"]["banned"]) == ("Ann Smith", True) and "owner" not in rows["bob"]
