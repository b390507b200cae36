"""``evolution-results`` shows what bots sent without letting it drive the reader's terminal."""

from __future__ import annotations

import json
import unicodedata

from evolution.host.results_cli import main
from evolution.host.store import GameRecord, ResultsStore, SeatRecord

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
