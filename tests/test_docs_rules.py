"""docs/rules.md cannot drift from the engine: every worked example it shows is run here.

The page shows each example as ``$ echo '<input>' | evolution-harness NAME``
followed by the answer; ``docs/check_examples.py`` finds them (and is what a
reader runs). Here each one goes through the harness code in-process.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from conftest import REPO
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.jsonwire.errors import WireError
from evolution.games.evolution.wire.harness import run_harness

PAGE = REPO / "docs" / "rules.md"


def _checker():
    spec = importlib.util.spec_from_file_location("check_examples", REPO / "docs" / "check_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECKER = _checker()
EXAMPLES = CHECKER.examples(PAGE.read_text(encoding="utf-8"))


def test_the_page_has_its_worked_examples():
    assert len(EXAMPLES) >= 30
    assert {name for _, name, _, _ in EXAMPLES} == {"xattack", "xfeed", "xstep", "xstep4", "xsilly"}


@pytest.mark.parametrize("line, name, value, expected", EXAMPLES, ids=[f"rules.md:{e[0]}" for e in EXAMPLES])
def test_each_worked_example_is_what_the_engine_answers(line, name, value, expected):
    try:
        got = json.dumps(run_harness(name, value))
    except (WireError, RulesViolation):
        got = ""
    assert CHECKER.same(expected, got), f"docs/rules.md line {line}: the engine answers {got or '(nothing)'}"
