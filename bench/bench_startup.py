"""Start-up: the CPU a bot process and a command line spend before doing anything.

Every bot is a process, and so is every command line: this prints the
median CPU (user + system, from ``getrusage`` of the finished child) of 7
runs, after one warm-up, of

- ``evolution-client`` to a port nobody listens on (it loads its game's
  dialect, connects, is refused and exits): what every bot pays;
- ``evolution-client --game fish`` the same way;
- ``twistd evolution --help``: what an organiser's first look costs.

The goal is under 0.3 s each on this 2-core machine when it is otherwise
quiet; a busy machine raises every figure (the caches are shared), so
compare runs taken together.
"""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
from pathlib import Path

from evolution.testing import free_port, twistd_command

RUNS = 7


def _bin(name: str) -> str:
    return str(Path(sys.executable).with_name(name))


def cpu_of(command: list[str]) -> float:
    """Seconds of CPU (user + system) one run of ``command`` takes."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median_cpu(command: list[str]) -> tuple[float, float, float]:
    cpu_of(command)  # warm-up: the file cache, the bytecode
    samples = sorted(cpu_of(command) for _ in range(RUNS))
    return samples[0], statistics.median(samples), samples[-1]


def main() -> None:
    port = str(free_port())
    commands = {
        "evolution-client (refused)": [_bin("evolution-client"), "--port", port, "--retries", "0"],
        "evolution-client --game fish (refused)": [
            _bin("evolution-client"), "--game", "fish", "--port", port, "--retries", "0",
        ],
        "twistd evolution --help": [*twistd_command(), "evolution", "--help"],
    }
    for label, command in commands.items():
        low, middle, high = median_cpu(command)
        print(f"{label}: median {middle:.3f} s CPU (min {low:.3f}, max {high:.3f}, {RUNS} runs)")
