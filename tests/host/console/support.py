"""A host process with its operator port, and what the tests read of it."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from evolution.testing import HostProcess, free_port


class ConsoleHost:
    """``twistd evolution --admin ... --agent-check ...`` in a process of its own group, in ``folder``."""

    def __init__(self, folder: Path, *options: str) -> None:
        self.admin_port, self.agent_port = free_port(), free_port()
        self.log = folder / "host.log"
        self.host = HostProcess(free_port(), folder / "r.sqlite", self.log, "--admin",
                                f"tcp:{self.admin_port}:interface=127.0.0.1", "--agent-check",
                                f"tcp:{self.agent_port}:interface=127.0.0.1", *options, own_group=True)
        self.url = f"http://127.0.0.1:{self.admin_port}"
        self.host.wait_until_listening()

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=30) as answer:
                return answer.status, answer.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def agent(self) -> str:
        """HAProxy's agent-check: the line the host answers."""
        with socket.create_connection(("127.0.0.1", self.agent_port), timeout=30) as connection:
            return connection.makefile("rb").readline().decode().strip()

    def admin(self, *command: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "evolution.cli.evolution_admin", "--admin", self.url,
                               "--as", "the test", *command], capture_output=True, text=True, timeout=60)

    def wait_for_log(self, text: str, limit: float = 60.0) -> None:
        deadline = time.monotonic() + limit
        while text not in self.log.read_text():
            assert time.monotonic() < deadline, f"no {text!r} in the host's log within {limit:g} s"
            time.sleep(0.05)

    def stop(self) -> None:
        if self.host.process.poll() is None:
            self.host.kill_group()
