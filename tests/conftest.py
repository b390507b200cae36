"""Shared fixtures: where the team's reference folder (../shared) is."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from twisted.trial.unittest import TestCase as TrialTestCase

REPO = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("EVOLUTION_SHARED", REPO.parent / "shared"))
CONFORMANCE = SHARED / "conformance"
SPEC = SHARED / "spec"


@pytest.fixture(autouse=True)
def trial_temp_outside_the_checkout(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Trial's ``mktemp`` makes folders below the working directory: make that the test's own."""
    if isinstance(request.instance, TrialTestCase):
        monkeypatch.chdir(tmp_path)
    yield
