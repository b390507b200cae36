"""``make soak``, its resume part: 20 tournaments whose host is killed with SIGKILL and resumed; each checked.

``python -m bench.resume_soak [--tournaments N] [--seed S] [--at-once K] [--keep] [--host-option=OPTION ...]``
plays N tournaments (default 20) on real ``twistd evolution`` processes,
as the docs start them (no ``--seed``): Evolution (``--players 3-5``) and
Fish (``--players 2-4``), knockout and Swiss (3 rounds), half with
``--workers 0`` and half with ``--workers 2``, each of 6 to 9 honest,
deterministic house bots (in this process, on real loopback sockets, a few
ms of thought an answer) that sign up again when their host goes away
(``play_remote(..., reconnect=...)``, as ``evolution-client --reconnect``).
Between the tournament's begin and its end the host's whole process group
(its workers and store process too) is killed with SIGKILL, at a moment
drawn from ``random.Random(S)`` (S printed, so a failure can be re-run with
``--seed S``): after the k-th event of its log (the tournament's begin, a
game's begin or end; the first host once a game has begun, when the
tournament must be stored), a few ms on; in about a third of the
tournaments a second time, in the resumed run. Each time a host is started
again with ``--resume 1`` on the same ``--db`` and port, and the last one
must finish the tournament within a deadline (else it is killed, and that is
a failure). A kill that came after the tournament's end (logged, the host
not yet stopped) leaves nothing to resume: the resumed host must say so.

Then ``bench.resume_check.check_tournament`` reads the store (through
``evolution-results --json``, and the tables the tournament stored): it
finished; each round once; each player at most one finished game per
round; each stored table one finished game; the tables its format deals and
the standings its games give are those stored and shown; no honest bot
removed or failed.
One line per tournament (game, format, workers, where it was killed, the
verdict), then ``resume soak: N passed, M failed`` and the seed; exit status 1
when one failed. It leaves no process behind: every host is killed by its
process group at the end of its tournament, whatever happened.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twisted.internet import task, threads
from twisted.internet.defer import Deferred, DeferredList, ensureDeferred

from bench.resume_check import check_tournament
from evolution.games import game as game_named
from evolution.net.client import play_remote
from evolution.testing import HostProcess, free_port
from evolution.tournament.allocation import allocate

TOURNAMENTS = 20
PLAYERS = {"evolution": "3-5", "fish": "2-4"}
THINKING = {"evolution": ("choose", "feed_next"), "fish": ("setup", "take_turn")}  # the answers that take time
THINK = 0.02  # seconds a bot takes to answer: a game lasts long enough for a kill to fall in it
TIMEOUT = "10"  # --timeout: an honest bot on a busy machine is never late
DEADLINE = 150.0  # seconds a tournament has, from its first host's start to its last host's end
COMEBACKS = 600  # tries a bot makes to sign up again, RETRY apart
RETRY = 0.25
EVENT = re.compile(r"tournament \d+ \(\w+\) begins|game \d+ (begins|finished)")
OVER = re.compile(r"tournament \d+ is over after")
STANDING = re.compile(r"tournament \d+ round (\d+)(?: of [^:]*)?: ([^;\n]*)|tournament \d+ \(\w+\) resumes in round (\d+), "
                      r"(with [^;\n]*)")  # a progress line, or a resumed host's first line


@dataclass(frozen=True)
class Case:
    """One tournament of the soak: how it is run, and where its host is killed."""

    number: int
    game: str
    format: str
    workers: int
    bots: int
    kills: tuple[tuple[float, float], ...]  # per kill: (where among the run's log events, 0..1; seconds after it)
    extra: tuple[str, ...] = ()  # more options for its first host (``--host-option``)

    def options(self) -> list[str]:
        rounds = ["--rounds", "3"] if self.format == "swiss" else []
        return ["--game", self.game, "--tournament", self.format, "--players", PLAYERS[self.game], *rounds,
                "--max-signups", str(self.bots), "--timeout", TIMEOUT, "--workers", str(self.workers), *self.extra]

    def events(self) -> int:
        """The log events of a run that nothing interrupts: its begin, and each game's begin and end."""
        smallest, largest = (int(size) for size in PLAYERS[self.game].split("-"))
        if self.format == "swiss":
            return 1 + 2 * 3 * len(allocate(range(self.bots), smallest, largest))
        games, left = 1, self.bots  # the final, and before it each round's tables: about one goes on from each
        while left > largest:
            tables = len(allocate(range(left), smallest, largest))
            games, left = games + tables, max(tables, smallest)
        return 1 + 2 * games

    def title(self) -> str:
        return f"{self.number:2d} {self.game:9s} {self.format:8s} --workers {self.workers} {self.bots} bots"


def plan(count: int, rng: random.Random, extra: tuple[str, ...] = ()) -> list[Case]:
    """``count`` tournaments over both games, both formats, workers off and on; kills drawn from ``rng``."""
    cases = []
    for k in range(count):
        kills = tuple((rng.random(), rng.uniform(0, 3 * THINK)) for _ in range(2 if rng.random() < 1 / 3 else 1))
        cases.append(Case(k + 1, ("evolution", "fish")[k % 2], ("knockout", "swiss")[k // 2 % 2],
                          (0, 2)[k // 4 % 2], rng.randint(6, 9), kills, extra))
    return cases


class Thinking:
    """A house player of ``game`` that takes ``THINK`` seconds over each answer."""

    def __init__(self, reactor: Any, game: str) -> None:
        self.reactor, self.game = reactor, game
        chosen = game_named(game)
        self.player = chosen.strategy(chosen.house[0])

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.player, name)
        if name not in THINKING[self.game]:
            return found
        return lambda *args: task.deferLater(self.reactor, THINK, found, *args)


async def pause(reactor: Any, seconds: float) -> None:
    await task.deferLater(reactor, seconds, lambda: None)


def events_in(log: Path) -> int:
    return len(EVENT.findall(log.read_text(errors="replace"))) if log.exists() else 0


def where(log: Path) -> str:
    """Where the tournament stood when its host was killed, from the host's log."""
    text = log.read_text(errors="replace") if log.exists() else ""
    found = list(STANDING.finditer(text))
    if found:
        round, state, resumed, finished = found[-1].groups()
        return f"in round {round} ({state})" if round else f"in round {resumed} as it resumed ({finished})"
    return "as it began" if EVENT.search(text) else "before it began"


def end_group(host: HostProcess) -> None:
    """SIGKILL to what is left of the host's process group (its workers, its store process), if anything."""
    try:
        os.killpg(host.process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if host.process.poll() is None:
        host.process.wait(timeout=10)


@dataclass(frozen=True)
class Outcome:
    """How one tournament of the soak went: where its host was killed, and what is wrong (nothing: it passed)."""

    case: Case
    killed: tuple[str, ...]  # where each kill fell
    problems: tuple[str, ...]

    def line(self) -> str:
        kills = "; ".join(f"killed {where}" for where in self.killed) or "not killed: it finished first"
        verdict = "PASS" if not self.problems else "FAIL: " + " | ".join(self.problems[:4]) + (
            f" | and {len(self.problems) - 4} more" if len(self.problems) > 4 else "")
        return f"{self.case.title()}, {kills}: {verdict}"


async def play(reactor: Any, case: Case, folder: Path, every: list[HostProcess]) -> Outcome:
    """Run one tournament, kill its host as planned and resume it each time; check what it stored.

    Each host started is added to ``every`` too, so that none outlives the soak, even one stopped by Ctrl-C.
    """
    folder.mkdir(parents=True)
    port, db, started = free_port(), folder / "results.sqlite", time.monotonic()
    hosts = [HostProcess(port, db, folder / "host-1.log", *case.options(), own_group=True,
                         errors=folder / "host-1.errors")]
    every.append(hosts[0])
    killed: list[str] = []
    bots: list[Deferred] = []
    problems: list[str] = []
    try:
        await until_listening(reactor, hosts[-1], started)
        names = [f"bot{chr(ord('a') + k)}" for k in range(case.bots)]  # letters: Fish's course names
        bots = [ensureDeferred(play_remote(reactor, "127.0.0.1", port, name, Thinking(reactor, case.game),
                                           game=case.game, reconnect=COMEBACKS, reconnect_delay=RETRY))
                for name in names]
        for share, delay in case.kills:
            host = hosts[-1]
            first = len(hosts) == 1  # its first host is killed once a game has begun: the tournament is stored by then
            left = case.events() - sum(events_in(h.log) for h in hosts[:-1])
            target = int(first) + int(share * max(1, left - 1 - int(first)))
            while events_in(host.log) <= target and host.process.poll() is None:
                await overdue(reactor, started)
            await pause(reactor, delay)
            if host.process.poll() is not None or OVER.search(host.log.read_text(errors="replace")):
                break  # over before the kill: the host stops by itself
            host.kill_group()
            killed.append(where(host.log))
            k = len(hosts) + 1
            hosts.append(HostProcess(port, db, folder / f"host-{k}.log", "--resume", "1", "--workers",
                                     str(case.workers), own_group=True, errors=folder / f"host-{k}.errors"))
            every.append(hosts[-1])
        while hosts[-1].process.poll() is None:
            await overdue(reactor, started)
        if hosts[-1].process.returncode != 0:
            said = last_line(hosts[-1].errors) or last_line(hosts[-1].log)
            excused = excuse(hosts, said)
            if excused is None:
                problems.append(f"host {len(hosts)} exited with status {hosts[-1].process.returncode}: {said}")
            else:
                killed[-1] += f" ({excused})"
    except (TimeoutError, RuntimeError) as stopped:  # past the deadline; a host that exited before it listened
        problems.append(str(stopped))
    finally:
        for host in hosts:
            end_group(host)
        for bot in bots:
            bot.cancel()  # those still trying to sign up again with a host that is gone
        await DeferredList(bots, consumeErrors=True)
    if not problems:
        try:
            problems += await threads.deferToThread(check_tournament, db, 1)
        except Exception as unread:  # what evolution-results printed is not what the checker knows
            problems.append(f"its store could not be checked: {unread!r}")
    return Outcome(case, tuple(killed), tuple(problems))


def excuse(hosts: list[HostProcess], said: str) -> str | None:
    """Why a resumed host that would not go on was right, or None: killed after the tournament's end (logged by
    the killed host, which had not stopped yet), there is nothing to resume, and its store is checked as any."""
    killed = hosts[-2].log.read_text(errors="replace") if len(hosts) > 1 else ""
    if "is finished, not interrupted" in said and OVER.search(killed):
        return "after its end: nothing to resume"
    return None


async def until_listening(reactor: Any, host: HostProcess, started: float) -> None:
    while not await threads.deferToThread(host.listening):
        await overdue(reactor, started)


async def overdue(reactor: Any, started: float) -> None:
    """Wait a little; ``TimeoutError`` once the tournament has run past ``DEADLINE``."""
    if time.monotonic() - started > DEADLINE:
        raise TimeoutError(f"not finished within {DEADLINE:g} s: its processes killed")
    await pause(reactor, 0.02)


def last_line(path: Path) -> str:
    lines = path.read_text(errors="replace").strip().splitlines() if path.exists() else []
    return lines[-1][-200:] if lines else ""


async def soak(reactor: Any, cases: list[Case], folder: Path, at_once: int, every: list[HostProcess]) -> list[Outcome]:
    """Play the cases, ``at_once`` at a time, printing each one's line as it ends (``every``: the hosts started)."""
    outcomes: list[Outcome] = []
    waiting = list(cases)

    async def worker() -> None:
        while waiting:
            case = waiting.pop(0)
            outcome = await play(reactor, case, folder / f"t{case.number:02d}", every)
            outcomes.append(outcome)
            print(outcome.line(), flush=True)

    await DeferredList([ensureDeferred(worker()) for _ in range(at_once)], fireOnOneErrback=True,
                       consumeErrors=True)
    return sorted(outcomes, key=lambda outcome: outcome.case.number)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.resume_soak", description=__doc__.splitlines()[0])
    parser.add_argument("--tournaments", type=int, default=TOURNAMENTS, help=f"tournaments (default {TOURNAMENTS})")
    parser.add_argument("--seed", type=int, default=None, help="the seed of the kills' moments (default: drawn, "
                        "printed)")
    parser.add_argument("--at-once", type=int, default=2, help="tournaments played side by side (default 2)")
    parser.add_argument("--keep", action="store_true", help="keep every tournament's store and host logs")
    parser.add_argument("--host-option", action="append", default=[], metavar="OPTION",
                        help="one more twistd evolution option for each tournament's first host (e.g. --seed=5)")
    args = parser.parse_args(argv)
    if args.tournaments < 1 or args.at_once < 1:
        parser.error("--tournaments and --at-once take 1 or more")
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**6)
    cases = plan(args.tournaments, random.Random(seed), tuple(args.host_option))
    again = " ".join(["python -m bench.resume_soak", f"--tournaments {args.tournaments}", f"--seed {seed}",
                      *(f"--host-option={option}" for option in args.host_option)])
    print(f"resume soak: {len(cases)} tournaments, hosts killed with SIGKILL and resumed; seed {seed} (re-run: "
          f"{again})", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="evolution-resume-soak-"))
    started = time.monotonic()
    outcomes: list[Outcome] = []
    every: list[HostProcess] = []
    try:
        task.react(lambda reactor: ensureDeferred(soak(reactor, cases, folder, args.at_once, every)).addCallback(
            outcomes.extend))
    except SystemExit as stopped:
        if stopped.code:
            raise
    finally:
        for host in every:
            end_group(host)
        if args.keep or any(outcome.problems for outcome in outcomes):
            print(f"resume soak: the stores and host logs are in {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    failed = sum(1 for outcome in outcomes if outcome.problems)
    kills = sum(len(outcome.killed) for outcome in outcomes)
    print(f"resume soak: {len(outcomes) - failed} passed, {failed} failed ({kills} kills, "
          f"{time.monotonic() - started:.0f} s; seed {seed})")
    return 1 if failed or len(outcomes) < len(cases) else 0


if __name__ == "__main__":
    sys.exit(main())
