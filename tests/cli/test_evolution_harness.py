"""``evolution-harness NAME``, run as a real command (``python -m evolution.cli.evolution_harness``).

As the course's harnesses (harnesses.md 1): one JSON value on standard input,
possibly over several lines; the answer as one JSON value on standard output;
invalid input prints nothing and exits 0, and ``--explain`` says why on
standard error. A few course conformance cases are run through the command
(all of them run in-process in test_conformance.py).
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
