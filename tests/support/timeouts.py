"""A trial test that runs out of time is cancelled, so nothing of it runs on into the next test.

Offers ``bound_by_its_timeout(test)``: wraps the method a ``twisted.trial.unittest.TestCase`` is about to run so
that its Deferred (a coroutine's, ``ensureDeferred``'s) is cancelled a moment before trial's own timeout
(``TestCase.timeout``) would fire. Trial, on its timeout, errbacks the test's Deferred but leaves the coroutine
behind it waiting: it resumed in a later test's reactor run, and raised there (``AlreadyCalledError``, or its own
assertions), failing a test that had done nothing wrong. Cancelling throws ``CancelledError`` into the coroutine at
its ``await`` instead, which ends it; the test fails with ``TimeoutError``.
"""

from __future__ import annotations

import functools
from typing import Any

from twisted.internet.defer import Deferred, maybeDeferred

MARGIN = 0.5  # seconds before trial's own timeout (or 5% of it, if that is less)


def bound_by_its_timeout(test: Any) -> None:
    name = test._testMethodName
    method = getattr(test, name)
    limit = test.getTimeout()
    ours = limit - min(MARGIN, limit * 0.05)

    @functools.wraps(method)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        from twisted.internet import reactor

        result = maybeDeferred(method, *args, **kwargs)
        return result.addTimeout(ours, reactor) if isinstance(result, Deferred) and not result.called else result

    setattr(test, name, bounded)
