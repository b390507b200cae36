"""``python -m bench.resume_soak`` at a small scale: two tournaments (Evolution and Fish, knockouts, --workers 0)
killed and resumed pass, one line each and the summary, and nothing it started is left running."""

from __future__ import annotations

import re
import subprocess
import sys
import time

import pytest

from tests.support.paths import REPO
from tests.support.process_tree import descendants, still_there

pytestmark = pytest.mark.slow


def test_two_tournaments_killed_and_resumed_pass_and_leave_no_process_behind():
    soak = subprocess.Popen([sys.executable, "-m", "bench.resume_soak", "--tournaments", "2", "--seed", "3"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=REPO)
    started = set()  # every process it started: hosts, their workers and store processes
    deadline = time.monotonic() + 300
    while soak.poll() is None and time.monotonic() < deadline:
        started.update(descendants(soak.pid))
        time.sleep(0.05)
    out, _ = soak.communicate(timeout=10)
    assert soak.returncode == 0, out
    lines = out.splitlines()
    assert lines[0].startswith("resume soak: 2 tournaments, hosts killed with SIGKILL and resumed; seed 3 (re-run: "
                               "python -m bench.resume_soak --tournaments 2 --seed 3)"), lines
    verdicts = sorted(line for line in lines if re.match(r" *\d+ (evolution|fish) ", line))
    assert [line.split(",")[0].split()[:3] for line in verdicts] == [
        ["1", "evolution", "knockout"], ["2", "fish", "knockout"]], lines
    assert all(line.endswith(": PASS") and ", killed in round " in line for line in verdicts), lines
    assert re.fullmatch(r"resume soak: 2 passed, 0 failed \(\d+ kills, \d+ s; seed 3\)", lines[-1]), lines
    assert any("twistd" in process.command for process in started)
    assert [process for process in started if still_there(process)] == []
