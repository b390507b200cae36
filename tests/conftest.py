"""Shared fixtures of the whole suite (its helpers are ``tests/support/``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from twisted.trial.unittest import TestCase as TrialTestCase

from tests.support.timeouts import bound_by_its_timeout


@pytest.fixture(autouse=True)
def trial_tests_kept_to_themselves(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A trial test's ``mktemp`` makes folders in a working directory of its own, and a test that runs out of time
    is cancelled, so that nothing of it runs on into the next (``tests/support/timeouts.py``)."""
    if isinstance(request.instance, TrialTestCase):
        monkeypatch.chdir(tmp_path)
        bound_by_its_timeout(request.instance)
    yield


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The session's PostgreSQL cluster, if a test started one, stops by its process id (tests/support/postgres.py)."""
    from tests.support.postgres import stop_session_cluster

    stop_session_cluster()
