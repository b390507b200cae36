"""Every course conformance case in ../shared/conformance, through the harness code path."""

from __future__ import annotations

import json

import pytest

from evolution.games.evolution.wire.harness import HARNESSES, run_harness
from tests.support.paths import CONFORMANCE


def _cases() -> list:
    cases = []
    for name in sorted(HARNESSES):
        for path in sorted((CONFORMANCE / name).glob("*-in.json")):
            cases.append(pytest.param(name, path, id=f"{name}/{path.stem[:-3]}"))
    return cases


CASES = _cases()


def normalise(value):
    """The README's comparison convention: ["cards", []] and ["fat-food", 0] equal absence."""
    if isinstance(value, list):
        return [
            normalise(item)
            for item in value
            if not (isinstance(item, list) and len(item) == 2 and item in (["cards", []], ["fat-food", 0]))
        ]
    return value


def test_conformance_folder_is_present():
    if not CONFORMANCE.is_dir():
        pytest.skip(f"no conformance cases: {CONFORMANCE} is absent (set EVOLUTION_SHARED to the shared folder)")
    assert len(CASES) >= 333, "fewer conformance cases than the 333 the README lists"


@pytest.mark.parametrize("name, path", CASES)
def test_case(name, path):
    expected_text = path.with_name(path.name.replace("-in.json", "-out.json")).read_text().strip()
    answer = run_harness(name, path.read_text())
    assert normalise(answer) == normalise(json.loads(expected_text))
