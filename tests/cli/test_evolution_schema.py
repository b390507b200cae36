"""``evolution-schema`` as a bot author runs it: a real process, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evolution.jsonwire.schema_set import schema_dir

SCRIPT = Path(sys.executable).with_name("evolution-schema")
SPECIES = [["food", 0], ["body", 0], ["population", 1], ["traits", []]]
START = [0, 0, [SPECIES], [[-3, "ambush"], [-2, "ambush"], [-1, "ambush"], [0, "ambush"]]]


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    if not SCRIPT.exists():
        pytest.fail(f"{SCRIPT} is missing: pip install -e '.[test]' registers the console script")
    return subprocess.run([str(SCRIPT), *args], input=stdin.encode(), capture_output=True, timeout=60)


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_valid_file_exits_0(tmp_path):
    message = write(tmp_path, "feed.json", json.dumps([0, [SPECIES], [], 2, [[SPECIES]]]) + "\n")
    done = run("check", "feed-next", message)
    assert (done.returncode, done.stdout.decode(), done.stderr) == (0, f"{message}: valid feed-next\n", b"")


def test_violations_are_printed_one_per_line_and_exit_1(tmp_path):
    species = [["food", 3], ["body", 0], ["population", 9], ["traits", ["horns", "horns"]]]
    message = write(tmp_path, "start.json", json.dumps([0, -1, [species], [[5, "horns"]]]))
    done = run("check", "start", message)
    assert done.returncode == 1
    assert done.stdout.decode().splitlines() == [
        "start.bag: -1 is less than 0",
        "start.boards[0].population: 9 is not in 1..7",
        'start.boards[0].traits: holds "horns" twice (elements 0 and 1)',
        "start.hand[0].food-value: 5 is not in -3..3",
    ]


def test_message_from_stdin_with_the_checks_beyond_the_schema():
    species = [["food", 2], ["body", 0], ["population", 1], ["traits", []]]
    done = run("check", "--message", "choose", stdin=json.dumps([[], [[species]]]))
    assert (done.returncode, done.stdout.decode()) == (1, "choose.after[0][0].food: 2 is more than the population 1\n")
    done = run("check", "-m", "feeding-choice", stdin="3.0")
    assert done.returncode == 1
    assert done.stdout.decode() == (
        "feeding-choice: 3.0 is none of: vegetarian, fat-tissue, carnivore"
        " (write integers without a fraction or exponent)\n"
    )


def test_a_reply_is_checked_against_the_message_it_answers(tmp_path):
    start = write(tmp_path, "start.json", json.dumps(START))
    reply = write(tmp_path, "reply.json", "[0, [[1, 3]], [], [[1, 2]], []]")
    schema_file = str(schema_dir() / "action4.json")
    done = run("check", schema_file, reply, "--context", start)
    assert (done.returncode, done.stdout.decode()) == (0, f"{reply}: valid action4\n")
    done = run("check", "action4", "--context", start, stdin="[0, [[1, 3]], [], [[1, 0]], []]")
    assert done.returncode == 1
    assert done.stdout.decode() == "action4.new-boards[0]: card 0 is used twice\n"


@pytest.mark.parametrize(
    "stdin, error",
    [
        ('{"a": [1, 2', "not JSON: the input ends in the middle of a value"),
        ("[1, 2] [3]", "holds more than one JSON value"),
        ("[" * 100_000 + "]" * 100_000, "a message is nested deeper than 64 levels"),
        ("[" * 65 + "]" * 65, "a message is nested deeper than 64 levels"),
        ("NaN", "not JSON: NaN is not a JSON number"),
        ("", "empty: no JSON value"),
    ],
    ids=["truncated", "two-values", "very-deep", "too-deep", "nan", "empty"],
)
def test_input_that_is_no_message_gives_one_line(stdin, error):
    done = run("check", "-m", "action4", stdin=stdin)
    assert (done.returncode, done.stdout) == (1, b"")
    assert done.stderr.decode() == f"evolution-schema: standard input: {error}\n"


@pytest.mark.parametrize(
    "args, error",
    [
        (["check", "nope"], "no schema named 'nope'; see evolution-schema list"),
        (["check", "defs"], "defs holds the shared definitions, not a message; see evolution-schema list"),
        (["check", "start", "/no/such/file"], "cannot read /no/such/file: No such file or directory"),
        (["check", "start", "--context", "x"], "--context applies to action4 and feeding-choice, not start"),
        ([], "the following arguments are required: {list,check}"),
    ],
)
def test_usage_errors_are_one_line_with_exit_2(args, error):
    done = run(*args)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr.decode() == f"evolution-schema: error: {error} (see --help)\n"


def test_list_names_every_message_schema():
    done = run("list")
    assert done.returncode == 0
    names = [line.split()[0] for line in done.stdout.decode().splitlines()]
    for name in ("action4", "choose", "feed-next", "feeding-choice", "score", "signup", "signup-reply", "start"):
        assert name in names
    assert "defs" not in names
