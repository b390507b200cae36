"""``make demo``: the host and its bots as separate processes on loopback.

Starts ``twistd evolution`` on a free 127.0.0.1 port with a fresh results
store, launches 8 ``evolution-client`` processes per game, plays a few games,
prints the results table from the store, and stops. The helpers
(``free_port``, ``HostProcess``, ``run_clients``) are also what the end-to-end
tests and the remote benchmark use.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from evolution.cli import ArgumentParser
from evolution.host.results_cli import format_game
from evolution.host.store import ResultsStore


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


class HostProcess:
    """``twistd -n evolution`` in a child process, listening on 127.0.0.1:port."""

    def __init__(self, port: int, db: Path, log: Path, *options: str) -> None:
        self.port = port
        command = [
            *twistd_command(), "--nodaemon", "--pidfile=", f"--logfile={log}",
            "evolution", "--port", f"tcp:{port}:interface=127.0.0.1", "--db", str(db), *options,
        ]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL)
        self.log = log

    def wait_until_listening(self, limit: float = 20.0) -> None:
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the host exited with status {self.process.returncode}; see {self.log}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
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


def run_clients(port: int, names: list[str], limit: float = 60.0) -> list[subprocess.CompletedProcess]:
    """Start one ``evolution-client`` process per name, all at once; wait for all."""
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "evolution.net.client_cli", "--port", str(port), "--name", name, "--quiet"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in names
    ]
    results = []
    for process in processes:
        out, err = process.communicate(timeout=limit)
        results.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="python -m evolution.host.demo",
        description="Run the host and 8 bot processes on loopback for a few games; print the results.",
    )
    parser.add_argument("--games", type=int, default=3, help="how many games (default 3)")
    parser.add_argument("--players", type=int, default=8, choices=range(3, 9), metavar="3..8", help="bots per game")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="evolution-demo-"))
    db, log = folder / "results.sqlite", folder / "host.log"
    port = free_port()
    print(f"host: twistd evolution on 127.0.0.1:{port}, results in {db}, log in {log}")
    host = HostProcess(port, db, log, "--players", f"3-{args.players}", "--games", str(args.games))
    try:
        play(host, args.games, args.players)
    except RuntimeError as error:
        print(f"demo: {error}", file=sys.stderr)
        return 1
    finally:
        host.stop()
    store = ResultsStore.open(db)
    print()
    print("\n\n".join(format_game(game) for game in store.games()))
    store.close()
    return 0


def play(host: HostProcess, games: int, players: int) -> None:
    host.wait_until_listening()
    for game in range(1, games + 1):
        started = time.monotonic()
        names = [f"bot-{game}-{seat}" for seat in range(1, players + 1)]
        failed = [r for r in run_clients(host.port, names) if r.returncode != 0]
        note = f", {len(failed)} clients failed: {failed[0].stderr.strip()}" if failed else ""
        print(f"game {game} of {games}: {players} client processes done in {time.monotonic() - started:.1f} s{note}")
    host.wait()


if __name__ == "__main__":
    sys.exit(main())
