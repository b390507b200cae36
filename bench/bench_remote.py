"""Remote games on loopback: 8 client processes per game against a host in this process.

Prints the median wall-clock milliseconds of a full 8-player game (from the
lobby filling to the last result stored) and the host's CPU time per message
(the process's user and system CPU time during games / messages sent and
received by the host). System time is mostly the loopback socket calls.
"""

from __future__ import annotations

import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.internet.utils import getProcessValue

from evolution.host.wiring import Options, build_host
from evolution.net.host_connection import HostProtocol
from evolution.store.writer import StoreWriter

GAMES = 12
PLAYERS = 8


class CountingProtocol(HostProtocol):
    messages = 0

    def sendMessage(self, value):
        CountingProtocol.messages += 1
        super().sendMessage(value)

    def messageReceived(self, value):
        CountingProtocol.messages += 1
        super().messageReceived(value)


def _cpu() -> tuple[float, float]:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime, usage.ru_stime


async def run(folder: Path) -> tuple[list[float], tuple[float, float]]:
    options = Options()
    # --workers 0: every game in this process, where its messages are counted and its CPU measured
    options.parseOptions(["--db", str(folder / "r.sqlite"), "--players", f"{PLAYERS}-{PLAYERS}", "--workers", "0"])
    writer = StoreWriter(options["db"], reactor)
    writer.open()
    factory, runner = build_host(options, writer, reactor)[:2]
    factory.protocol = CountingProtocol
    port = reactor.listenTCP(0, factory, interface="127.0.0.1").getHost().port
    walls, cpu, messages = [], [0.0, 0.0], 0
    start_game = runner.start_game

    def timed_start(connections):
        wall0, cpu0, count0 = time.perf_counter(), _cpu(), CountingProtocol.messages

        def over(_):
            nonlocal messages
            walls.append((time.perf_counter() - wall0) * 1000)
            cpu1 = _cpu()
            cpu[0] += cpu1[0] - cpu0[0]
            cpu[1] += cpu1[1] - cpu0[1]
            messages += CountingProtocol.messages - count0
            return _

        return start_game(connections).addBoth(over)

    factory.policy.start_game = timed_start
    client = [sys.executable, "-m", "evolution.cli.evolution_client", "--port", str(port), "--quiet"]
    for game in range(GAMES):
        await gatherResults(
            [getProcessValue(client[0], client[1:] + ["--name", f"b{game}-{i}"], env=None) for i in range(PLAYERS)]
        )
    await runner.when_games_over(GAMES)
    await writer.close()
    per_message = 1e6 / max(messages, 1)
    return walls, (cpu[0] * per_message, cpu[1] * per_message)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        outcome: dict = {}

        async def go(_reactor):
            outcome["value"] = await run(Path(folder))

        from twisted.internet.task import react

        try:
            react(lambda r: ensureDeferred(go(r)))
        except SystemExit:
            pass
    walls, (user, system) = outcome["value"]
    print(f"remote 8-player game over loopback, {GAMES} games with 8 client processes each: "
          f"median {statistics.median(walls):.1f} ms per game")
    print(f"host CPU per message (sent or received): {user + system:.1f} us "
          f"({user:.1f} us user, {system:.1f} us system)")
