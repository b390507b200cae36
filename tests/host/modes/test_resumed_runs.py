"""A resumed tournament, as its organiser and its bots see it: whom it waits for, how it deals, how it ends.

Each test plays a small tournament of honest bots over real sockets (the host in the test's process, ``--workers
0``: ``tests.support.crashes.TournamentHost``), cuts its store after a chosen write (what a host killed right
there leaves) and resumes it (``--resume``) with real clients coming back. Asserted: a table still waiting for an
entrant plays no more once the organiser ends the tournament or the host stops (nothing is written after the
tournament's end); entrants a knockout's stored rounds knocked out are not awaited (the log line names those
still in; a loser that signs up again is answered "game full"); and with ``--accounts roster`` the round dealt
right after a resume, while every entrant is still away, keeps one owner's bots apart, by the owners the
tournament stored when it began, under the resuming host's name.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred
from twisted.trial import unittest

from evolution.coroutines import run_locally
from evolution.host.modes.decisions import TournamentSettings
from evolution.net.client import Refused, play_remote
from evolution.store.accounts import Accounts
from evolution.store.operations import Operation
from evolution.store.results_store import ResultsStore
from evolution.tournament.manager import TournamentManager
from evolution.tournament.standings import Entrant, GameReport, Seat
from tests.support.crashes import NAMES, TournamentHost, check_tournament, cut
from tests.support.hosting import HonestSilly, log_lines, until

WINDOW = ("--signup-window", "30", "--signup-periods", "1")  # an absent entrant's time to come back: never run out
OWNERS = {"red1": "reds", "red2": "reds", "bea": "bea", "cat": "cat", "dan": "dan", "eve": "eve"}


def accounts(db: Path, owners: dict[str, str]) -> dict[str, str]:
    """An account for each bot (bot: owner) in the store at ``db``; their keys."""
    store = Accounts.open(db)
    try:
        for owner in sorted(set(owners.values())):
            store.add_owner(owner)
        return {bot: store.add_bot(bot, owner) for bot, owner in owners.items()}
    finally:
        store.close()


def stored(db: Path) -> tuple[Any, list, dict]:
    """The store's one tournament, its tables, and its finished games by (round, table)."""
    store = ResultsStore.open(db)
    try:
        [tournament] = store.tournaments()
        games = {(g.round, g.table): g for g in store.games(tournament.id) if g.finished}
        return tournament, store.tables(tournament.id), games
    finally:
        store.close()


def dealt_by_the_format(db: Path, round: int) -> list[set[str]]:
    """The tables the format alone deals for ``round`` after the store's earlier rounds (no owner kept apart)."""
    tournament, tables, games = stored(db)
    settings = tournament.settings
    smallest, _, largest = settings["players"].partition("-")
    format = TournamentSettings(tournament.format, int(smallest), int(largest), settings.get("rounds") or 0,
                                settings.get("seed")).make_format()
    entrants = [Entrant(e.entrant, e.name) for e in tournament.entrants]
    seated: dict[int, Any] = {}
    dealt: list[set[str]] = []

    def decide(at: int, chosen: list[list[Entrant]]) -> list[list[Entrant]]:
        if at == round:
            dealt.extend({entrant.name for entrant in game} for game in chosen)
            manager.stop()
            return []
        played = []
        for table in (table for table in tables if table.round == at):
            played.append([entrants[number - 1] for number in table.seats])
            seated[id(played[-1])] = table
        return played

    def referee(at: int, seats: list[Entrant]) -> GameReport:
        sat = {seat.entrant: seat for seat in games[(at, seated[id(seats)].table)].players}
        return GameReport([Seat(e, sat[e.number].score, sat[e.number].removed_reason) for e in seats])

    manager = TournamentManager(format, entrants, referee, None, decide)
    run_locally(manager.run())
    return dealt


class ResumedRunTests(unittest.TestCase):
    timeout = 300

    def setUp(self) -> None:
        self.folder = Path(self.mktemp())
        self.folder.mkdir()

    def bot(self, host: TournamentHost, name: str, key: str | None = None) -> Deferred:
        """An honest bot named ``name`` (proving itself with ``key``) that plays until the host hangs up."""
        playing = ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, name, HonestSilly(), retries=0,
                                             key=key))
        host.bots.append(playing.addErrback(lambda _: None))
        return playing

    async def first_run(self, names: list[str], *options: str, keys: dict[str, str] | None = None) -> list:
        """A whole tournament of ``names``, signed up in that order (entrant 1 first); its writes, in order."""
        host = TournamentHost(self.folder / "first.sqlite", "evolution", "--max-signups", str(len(names)),
                              "--min-signups", str(len(names)), "--timeout", "30", *options)
        self.addCleanup(host.stop)
        await host.start()
        for count, name in enumerate(names, 1):
            self.bot(host, name, (keys or {}).get(name))
            await until(lambda: len(host.host.factory.lobby) == count or host.host.tournaments.current is not None)
        await host.finished()
        return host.writer.operations

    async def resumed(self, operations: list[Operation], *options: str, owners: dict[str, str] | None = None
                      ) -> tuple[TournamentHost, dict[str, str]]:
        """A host resuming the store those writes leave (its accounts for ``owners``'s bots, their keys)."""
        db = self.folder / "resumed.sqlite"
        keys = accounts(db, owners) if owners else {}
        cut(db, operations)
        host = TournamentHost(db, "evolution", *options, resume=True)
        self.addCleanup(host.stop)
        await host.start()
        return host, keys

    async def waiting_for_one(self) -> tuple[TournamentHost, Any, str]:
        """A Swiss resumed before any game of round 1 began, with every entrant back but the first, whose table
        waits for it; the other table's game is over."""
        names = list(NAMES[:8])
        whole = await self.first_run(names, "--tournament", "swiss", "--rounds", "2", "--players", "3-5",
                                     "--seed", "5")
        k = [operation["op"] for operation in whole].index("round-begun") + 1  # round 1's tables, no game begun
        host, _ = await self.resumed(whole[:k], *WINDOW)
        for name in names[1:]:
            self.bot(host, name)
        run = host.host.tournaments.current
        await until(lambda: list(run.returns.awaited) == [names[0]] and run.games_done == 1)
        return host, run, names[0]

    def assert_nothing_written_after_its_end(self, host: TournamentHost, status: str) -> None:
        kinds = [operation["op"] for operation in host.writer.operations]
        self.assertEqual(kinds[-1], "tournament-over", kinds)
        self.assertEqual(host.writer.operations[-1]["status"], status)
        self.assertNotIn("entrant-failed", kinds)  # the absent entrant's window had not run out
        self.assertNotIn("walkover", kinds)
        self.assertEqual(kinds.count("game-begun"), 1)  # the other table's: none began at the waiting table

    async def test_a_table_waiting_for_an_entrant_plays_no_more_once_the_organiser_ends_the_tournament(self):
        host, run, absent = await self.waiting_for_one()
        self.assertTrue(run.end_now())
        await host.finished()  # at once: not once the absent entrant's window runs out
        self.assert_nothing_written_after_its_end(host, "ended-early")
        tournament, _, _ = stored(host.options["db"])
        self.assertEqual((tournament.status, [e.failure for e in tournament.entrants if e.name == absent]),
                         ("ended-early", [None]))

    async def test_a_table_waiting_for_an_entrant_plays_no_more_once_the_host_stops(self):
        host, _, absent = await self.waiting_for_one()
        await host.stop()  # no timer of the absent entrant's window is left running on the reactor
        self.assert_nothing_written_after_its_end(host, "interrupted")
        tournament, _, _ = stored(host.options["db"])
        self.assertEqual((tournament.status, [e.failure for e in tournament.entrants if e.name == absent]),
                         ("interrupted", [None]))

    async def test_a_resumed_knockout_awaits_only_the_entrants_still_in(self):
        names = [f"bot{k:02d}" for k in range(1, 13)]  # three tables of four, then a final of their winners
        whole = await self.first_run(names, "--tournament", "knockout", "--players", "3-5", "--seed", "3")
        kinds = [operation["op"] for operation in whole]
        k = kinds.index("round-begun", kinds.index("round-begun") + 1) + 1  # round 2's tables, none of its games
        lines = log_lines(self)
        host, _ = await self.resumed(whole[:k], *WINDOW)
        tournament, tables, _ = stored(host.options["db"])
        number = {e.entrant: e.name for e in tournament.entrants}
        still_in = sorted((number[n] for table in tables if table.round == 2 for n in table.seats), key=names.index)
        self.assertLess(len(still_in), len(names))
        resumes = re.compile(r"tournament 1 \(knockout\) resumes in round 2, .*; its (\d+) entrants? still in .*: (.*)")
        await until(lambda: any(resumes.search(line) for line in lines))
        count, said = next(resumes.search(line) for line in lines if resumes.search(line)).groups()
        self.assertEqual((int(count), re.findall(r"'([^']*)'", said)), (len(still_in), still_in))
        loser = next(name for name in names if name not in still_in)
        with self.assertRaisesRegex(Refused, "game full"):  # nothing left to play: not greeted, then hung up on
            await play_remote(reactor, "127.0.0.1", host.port, loser, HonestSilly(), retries=0)
        for name in still_in:
            self.bot(host, name)
        await host.finished()
        check_tournament(host.options["db"])

    async def test_the_round_dealt_right_after_a_resume_keeps_one_owners_bots_apart(self):
        keys = accounts(self.folder / "first.sqlite", OWNERS)
        whole = await self.first_run(list(OWNERS), "--tournament", "swiss", "--rounds", "2", "--players", "3-5",
                                     "--seed", "1", "--accounts", "roster", "--host-name", "lab3:1", keys=keys)
        k = [operation["op"] for operation in whole].index("round-over") + 1  # round 1 over, round 2 not dealt
        natural = dealt_by_the_format(self.folder / "first.sqlite", 2)
        self.assertTrue([table for table in natural if {"red1", "red2"} <= table], natural)  # the format's own deal
        db = self.folder / "resumed.sqlite"
        host, keys = await self.resumed(whole[:k], "--host-name", "lab4:1", owners=OWNERS)
        for name, key in keys.items():
            self.bot(host, name, key)
        await host.finished()
        tournament, tables, _ = stored(db)
        number = {e.entrant: e.name for e in tournament.entrants}
        round_two = [{number[n] for n in table.seats} for table in tables if table.round == 2]
        self.assertEqual(len(round_two), 2)
        self.assertFalse([table for table in round_two if {"red1", "red2"} <= table], round_two)
        self.assertEqual((tournament.settings["owners"], tournament.settings["owners_may_meet"]), (OWNERS, False))
        self.assertEqual((tournament.status, tournament.host), ("finished", "lab4:1"))
