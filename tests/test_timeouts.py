"""A trial test that runs out of time ends there: nothing of it runs on into the next test (tests/conftest.py).

Runs pytest on two trial tests in a folder of their own, with the suite's conftest: the first awaits an answer
that comes only after its timeout, during the second test, and would then fail; the second must pass.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.support.paths import REPO

TESTS = '''
import gc

from twisted.internet import reactor
from twisted.internet.defer import Deferred
from twisted.internet.task import deferLater
from twisted.trial.unittest import TestCase

ANSWERS = []  # what the first test awaits: an answer that comes only during the second (a late reply, say)


class Slow(TestCase):
    timeout = 1

    async def test_a_too_slow(self):
        answer = Deferred()
        ANSWERS.append(answer)
        await answer
        raise AssertionError("the timed-out test ran on")


class Next(TestCase):
    timeout = 10

    async def test_b_next(self):
        await deferLater(reactor, 0.1, lambda: None)
        ANSWERS.pop().callback("late")  # a late reply: the first test's code runs now, if it still can
        gc.collect()  # what its end leaves unhandled is reported now, as the collector would at some time
        await deferLater(reactor, 0.1, lambda: None)
'''


def test_a_test_that_times_out_is_cancelled_and_the_next_test_passes(tmp_path):
    (tmp_path / "conftest.py").write_text(f"import sys\nsys.path.insert(0, {str(REPO)!r})\n"
                                           "from tests.conftest import *  # noqa\n")
    (tmp_path / "test_pair.py").write_text(textwrap.dedent(TESTS))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly",
                           str(tmp_path / "test_pair.py")], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert "1 failed, 1 passed" in done.stdout, done.stdout + done.stderr
    assert "test_a_too_slow" in done.stdout and "TimeoutError" in done.stdout
    assert "ran on" not in done.stdout
