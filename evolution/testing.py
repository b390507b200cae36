# -*- test-case-name: tests.host.test_processes, tests.cli.test_make_targets -*-
"""Process helpers for tests, benchmarks and bot authors: a host and its clients as real processes on loopback.

Offers ``free_port()``, ``twistd_command()``, ``HostProcess`` (``twistd -n
evolution`` in a child process, with its log file), ``whole_log(path)`` (a twistd log
with the parts it rotated away), ``start_clients`` /
``run_clients`` / ``wait_for_clients`` (``evolution-client`` processes), as
``twisted.internet.testing`` offers Twisted's own tests what they share. The
demo (``evolution.cli.demo``) is built of them too.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def twistd_command() -> list[str]:
    """How to run twistd with this Python: its script beside the interpreter, if any."""
    script = Path(sys.executable).with_name("twistd")
    if script.is_file():
        return [str(script)]
    return [sys.executable, "-c", "from twisted.scripts.twistd import run; run()"]


def whole_log(path: Path) -> str:
    """The text of twistd's log ``path`` from its start: twistd moves a log past 1 MB to ``path.1`` (the one
    before to ``path.2``, ...) and begins another, so a busy host's first lines are in the oldest part."""
    numbers = sorted((int(part.suffix[1:]) for part in path.parent.glob(f"{path.name}.*") if part.suffix[1:].isdigit()),
                     reverse=True)
    parts = [path.with_name(f"{path.name}.{number}") for number in numbers]
    return "".join(part.read_text(errors="replace") for part in [*parts, path] if part.is_file())


class HostProcess:
    """``twistd -n evolution`` in a child process, listening on 127.0.0.1:port (or another loopback ``address``).

    With ``own_group``, in a process group of its own with its children (the
    store process), which ``kill_group`` ends with SIGKILL all at once. With
    ``errors``, its standard error (a refusal to start, in one line) goes to
    that file rather than to ours.
    """

    def __init__(self, port: int, db: Path | str, log: Path, *options: str, own_group: bool = False,
                 address: str = "127.0.0.1", errors: Path | None = None) -> None:
        self.port, self.address = port, address
        command = [
            *twistd_command(), "--nodaemon", "--pidfile=", f"--logfile={log}",
            "evolution", "--port", f"tcp:{port}:interface={address}", "--db", str(db), *options,
        ]
        stderr = None if errors is None else errors.open("wb")
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stderr=stderr, start_new_session=own_group)
        if stderr is not None:
            stderr.close()  # the child holds its own copy
        self.log, self.errors = log, errors

    def kill_group(self) -> None:
        """SIGKILL to the host and every process it started, as a machine's crash of them would."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def listening(self) -> bool:
        """True once the host accepts connections; ``RuntimeError`` if it has exited."""
        if self.process.poll() is not None:
            raise RuntimeError(f"the host exited with status {self.process.returncode}; see {self.log}")
        try:
            socket.create_connection((self.address, self.port), timeout=0.5).close()
            return True
        except OSError:
            return False

    def wait_until_listening(self, limit: float = 20.0) -> None:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.listening():
                return
            time.sleep(0.05)
        raise RuntimeError(f"the host did not listen on port {self.port} within {limit:g} s; see {self.log}")

    def wait(self, limit: float = 60.0) -> int:
        try:
            return self.process.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            self.process.terminate()
            self.process.wait(timeout=10)
            raise RuntimeError(f"the host did not stop within {limit:g} s; see {self.log}") from None

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


def start_clients(
    port: int, names: list[str], strategies: dict[str, str] | None = None, think: float = 0.0, *extra: str
) -> list[subprocess.Popen]:
    """Start one ``evolution-client`` process per name (with its strategy, default silly), all at once."""
    return [
        subprocess.Popen(
            [
                sys.executable, "-m", "evolution.cli.evolution_client", "--port", str(port), "--name", name, "--quiet",
                "--strategy", (strategies or {}).get(name, "silly"), "--think", str(think), *extra,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]


def run_clients(port: int, names: list[str], limit: float = 60.0, *extra: str) -> list[subprocess.CompletedProcess]:
    """Start one ``evolution-client`` process per name (``extra``: more options), all at once; wait for all."""
    return wait_for_clients(start_clients(port, names, None, 0.0, *extra), limit)


def wait_for_clients(processes: list[subprocess.Popen], limit: float) -> list[subprocess.CompletedProcess]:
    results = []
    for process in processes:
        out, err = process.communicate(timeout=limit)
        results.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return results
