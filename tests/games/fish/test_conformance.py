"""Every case of the course's five Fish harnesses (conformance/fish), through ``run_harness``."""

from __future__ import annotations

import json

import pytest

from evolution.games.fish.wire.harness import HARNESSES, run_harness
from tests.support.paths import CONFORMANCE

FISH = CONFORMANCE / "fish"
EXPECTED_CASES = {"xboard": 71, "xstate": 57, "xtree": 74, "xstrategy": 141, "xref": 89}


def _cases() -> list:
    return [
        pytest.param(name, path, id=f"{name}/{path.name[:-len('-in.json')]}")
        for name in sorted(HARNESSES)
        for path in sorted((FISH / name).glob("*-in.json"))
    ]


CASES = _cases()


def test_every_case_of_the_readme_is_here():
    if not CONFORMANCE.is_dir():
        pytest.skip(f"no conformance cases: {CONFORMANCE} is absent (set EVOLUTION_SHARED to the shared folder)")
    counts = {name: len(list((FISH / name).glob("*-in.json"))) for name in HARNESSES}
    assert counts == EXPECTED_CASES
    assert len(CASES) == 432


@pytest.mark.parametrize("name, path", CASES)
def test_case(name, path):
    expected = json.loads(path.with_name(path.name.replace("-in.json", "-out.json")).read_text())
    assert run_harness(name, path.read_text()) == expected
