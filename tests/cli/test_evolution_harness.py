"""``evolution-harness NAME``, run as a real command (``python -m evolution.cli.evolution_harness``).

As the course's harnesses (harnesses.md 1): one JSON value on standard input,
possibly over several lines; the answer as one JSON value on standard output;
invalid input prints nothing and exits 0, and ``--explain`` says why on
standard error. A few course conformance cases are run through the command
(all of them run in-process in test_conformance.py). ``xsilly`` reads the other
players' boards as it reads its own (harnesses.md 1, messages.md 4).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.games.evolution.test_conformance import normalise
from tests.support.paths import CONFORMANCE

PLAIN = '[["food",0],["body",0],["population",1],["traits",[]]]'
CARNIVORE = '[["food",0],["body",0],["population",1],["traits",["carnivore"]]]'
CLIMBING = '[["food",0],["body",0],["population",1],["traits",["climbing"]]]'


def harness(*args: str, stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evolution.cli.evolution_harness", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_xattack_answers_on_one_line_and_reads_input_over_several_lines():
    run = harness("xattack", stdin=f"[\n  {PLAIN},\n  {CARNIVORE},\n  false,\n  false\n]\n")
    assert (run.returncode, run.stdout, run.stderr) == (0, "true\n", "")
    run = harness("xattack", stdin=f"[{CLIMBING}, {CARNIVORE}, false, false]")
    assert (run.returncode, run.stdout) == (0, "false\n")


@pytest.mark.parametrize("name", ["xattack", "xfeed", "xstep", "xstep4", "xsilly"])
def test_a_conformance_case_through_the_command(name):
    cases = sorted((CONFORMANCE / name).glob("*-in.json"))
    if not cases:
        pytest.skip(f"no conformance cases: {CONFORMANCE / name} is absent")
    case = cases[0]
    run = harness(name, stdin=case.read_text())
    assert run.returncode == 0 and run.stderr == ""
    expected = json.loads(case.with_name(case.name.replace("-in", "-out")).read_text())
    assert normalise(json.loads(run.stdout)) == normalise(expected)


INVALID = {
    "not JSON": ("xattack", "not json"),
    "wrong shape": ("xattack", "[1, 2]"),
    "three elements": ("xattack", f"[{PLAIN}, {CARNIVORE}, false]"),
    "population 9": ("xattack", f'[[["food",0],["body",0],["population",9],["traits",[]]], {CARNIVORE}, false, false]'),
    "unknown trait": ("xattack", f"[{PLAIN}, {CARNIVORE.replace('carnivore', 'wings')}, false, false]"),
    "negative food": ("xfeed", f'[[["id",1],["species",[{PLAIN.replace("0", "-3", 1)}]],["bag",0]], 3, []]'),
    "empty input": ("xstep", ""),
}


@pytest.mark.parametrize("name, stdin", list(INVALID.values()), ids=list(INVALID))
def test_invalid_input_prints_nothing_and_exits_0(name, stdin):
    run = harness(name, stdin=stdin)
    assert (run.returncode, run.stdout, run.stderr) == (0, "", "")


@pytest.mark.parametrize(
    "stdin, reason",
    [("not json", "not JSON"), (INVALID["population 9"][1], "population")],
    ids=["not JSON", "population 9"],
)
def test_explain_says_why_on_standard_error(stdin, reason):
    run = harness("xattack", "--explain", stdin=stdin)
    assert (run.returncode, run.stdout) == (0, "")
    [line] = run.stderr.splitlines()
    assert line.startswith("evolution-harness xattack: invalid input:") and reason in line


def test_an_unknown_harness_is_a_usage_error():
    run = harness("xnothing", stdin="[]")
    assert run.returncode == 2 and run.stdout == ""
    assert len(run.stderr.splitlines()) == 1 and run.stderr.startswith("evolution-harness: error: ")


XSILLY_HAND = '[["id",1],["species",[]],["bag",0],["cards",[[1,"carnivore"],[2,"horns"],[0,"ambush"],[-1,"foraging"]]]]'
XSILLY_ANSWER = [2, [[0, 1]], [], [[0, 3]], []]  # ambush for food; carnivore, foraging: a new board; horns: its population


def board(food: int = 0, body: int = 2, population: int = 1, traits: str = "", fat: int | None = None) -> str:
    """A species board, as JSON text."""
    fields = [["food", food], ["body", body], ["population", population], ["traits", [traits] if traits else []]]
    return json.dumps(fields if fat is None else [*fields, ["fat-food", fat]])


@pytest.mark.parametrize("other, answered", [
    (board(food=2, population=1), False),  # food above its population
    (board(body=2, traits="fat-tissue", fat=3), False),  # fat food above its body size
    (board(fat=0), True),  # ["fat-food", 0] without fat-tissue: as course inputs hold it
], ids=["food above population", "fat food above body", "fat-food 0 without fat-tissue"])
@pytest.mark.parametrize("place", ["before", "after"])
def test_xsilly_checks_the_other_players_boards_as_it_checks_its_own(other, answered, place):
    others = f"[[{other}]]"
    stdin = f"[{XSILLY_HAND}, {others if place == 'before' else '[]'}, {others if place == 'after' else '[]'}]"
    run = harness("xsilly", stdin=stdin)
    assert (run.returncode, run.stderr) == (0, "")
    assert (json.loads(run.stdout) if run.stdout else None) == (XSILLY_ANSWER if answered else None)
    own = harness("xsilly", stdin=stdin.replace('["species",[]]', f'["species",[{other}]]'))
    assert bool(own.stdout) == answered  # the same board as the player's own: the same verdict
