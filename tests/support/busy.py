"""Run a command while other processes keep every core busy: ``python tests/support/busy.py COMMAND ...``.

``make test-busy`` runs the test suite this way: the tests must hold on a
machine that other work keeps busy (a shared CI runner, a laptop compiling),
so their time limits run on ``task.Clock`` or are long enough for that, and
their sign-ups wait for the bots they expect rather than for a fixed time.

The load: ``stress-ng --cpu N`` (Debian's stress-ng) if it is installed, else
N Python processes spinning (``while 1: pass``); N is the number of cores
(``--cores N`` to choose). A stress-ng that ends at once (no load at all)
gives way to the Python processes. The load runs in a process group of its
own, ended when the command ends, whatever the command's status; the status
is the command's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import time

STARTED = 0.5  # seconds stress-ng must keep running to count as started


def _spawn(commands: list[list[str]]) -> list[subprocess.Popen]:
    return [subprocess.Popen(command, stdin=subprocess.DEVNULL, start_new_session=True) for command in commands]


def start_load(cores: int) -> list[subprocess.Popen]:
    if shutil.which("stress-ng"):
        load = _spawn([["stress-ng", "--cpu", str(cores), "--quiet"]])
        time.sleep(STARTED)
        if all(process.poll() is None for process in load):
            return load
        print(f"busy.py: stress-ng ended at once (status {load[0].returncode}); spinning Python processes instead",
              flush=True)
        stop_load(load)
    return _spawn([[sys.executable, "-c", "while 1: pass"]] * cores)


def stop_load(load: list[subprocess.Popen]) -> None:
    for process in load:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python tests/support/busy.py", description=__doc__.splitlines()[0])
    parser.add_argument("--cores", type=int, default=os.cpu_count() or 2, help="busy processes (default: every core)")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run under load")
    args = parser.parse_args(argv)
    if not args.command:
        parser.error("give the command to run")
    load = start_load(args.cores)
    print(f"busy.py: {args.cores} cores kept busy by {' '.join(load[0].args[:1])} while: {' '.join(args.command)}",
          flush=True)
    try:
        return subprocess.call(args.command)
    except KeyboardInterrupt:
        return 130
    finally:
        stop_load(load)


if __name__ == "__main__":
    sys.exit(main())
