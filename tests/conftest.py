"""Shared fixtures of the whole suite (its helpers are ``tests/support/``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from twisted.trial.unittest import TestCase as TrialTestCase


@pytest.fixture(autouse=True)
def trial_temp_outside_the_checkout(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Trial's ``mktemp`` makes folders below the working directory: make that the test's own."""
    if isinstance(request.instance, TrialTestCase):
        monkeypatch.chdir(tmp_path)
    yield
