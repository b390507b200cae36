# -*- test-case-name: tests.host.modes.test_resumed_runs, tests.host.modes.test_tournament_mode, tests.host.modes.test_crash_at_every_write -*-
"""A tournament's settings and decisions, each written down before the run acts on it, and read back by a resume.

Offers ``TournamentSettings`` (a tournament's format and its options: ``make_format()``, ``recorded()``, what is
stored of them, and ``seeded()``) and ``Decisions(tournament_id, settings, runner, writer, format, entrants,
stored, owner_of)``, the part of a ``TournamentRun`` (``evolution.host.modes.tournament_run``) that decides and
stores:

- ``write(operation)``: handed to the store; fires once it is kept, never fails;
- ``begin()``: each entrant's owner (``owner_of`` its connection, with ``--accounts`` where owners may not meet),
  to be stored with the settings (``settings_record()``: everything that shapes the tournament's play, as stored
  when it begins; a resume reads these back, and only these);
- ``decide(round, games)``, the manager's: a round's tables, those stored before the host stopped as they were,
  else the format's with one owner's bots apart, stored before any of their games begins;
- ``fail(entrant, reason, phase)``: an entrant out outside any game, marked and stored; ``when_kept(entrant,
  action)``: the action (its hang-up) once that failure is stored, so a crash can never forget a failure that a
  bot was told of by its connection's end; ``stored_failures(round, phase)``: those a resumed run's store holds,
  marked again; ``closed(round)``: a round is over (a failure after it is not one of its round);
- ``entrant_records()``, and ``entrant_records(format, entrants)``: each entrant as it stands;

``Table`` (one table of a round: its entrants in turn order, its number, the seed it is dealt from) and
``table_seed(seed, dealt)``. What is stored, in which order: docs/tournaments.md, "Resuming a tournament".
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable

from twisted.internet.defer import Deferred, maybeDeferred, succeed
from twisted.logger import Logger

from evolution.host.modes.resumption import StoredTournament
from evolution.host.runner.game_runner import now
from evolution.store.operations import entrant_failed, round_begun
from evolution.store.records import EntrantRecord, FailureRecord, TableRecord
from evolution.tournament.allocation import apart
from evolution.tournament.formats import Knockout, Swiss
from evolution.tournament.standings import Entrant

log = Logger()


@dataclass(frozen=True)
class TournamentSettings:
    format: str = "knockout"
    smallest: int = 3
    largest: int = 8
    rounds: int = 5  # Swiss
    seed: int | None = None  # the first round's shuffle (Swiss) and every table's deal; drawn when a run begins
    final_tiebreak: str = "co-winners"  # knockout: or "playoff"
    runners_up: bool = True  # knockout: the game's rule (``Game.knockout_runners_up``)
    accounts: str = "open"  # who may sign up under a name (--accounts): a resume takes entrants back only so
    owners_may_meet: bool = False  # --accounts roster|closed: two bots of one owner may sit at one table

    def make_format(self) -> Knockout | Swiss:
        if self.format == "swiss":
            return Swiss(self.smallest, self.largest, self.rounds, self.seed)
        return Knockout(self.smallest, self.largest, self.final_tiebreak, self.runners_up)

    def recorded(self) -> dict[str, Any]:
        data: dict[str, Any] = {"players": f"{self.smallest}-{self.largest}", "seed": self.seed,
                                "accounts": self.accounts}
        if self.accounts != "open":
            data.update(owners_may_meet=self.owners_may_meet)
        if self.format == "swiss":
            data.update(rounds=self.rounds)
        else:
            data.update(final_tiebreak=self.final_tiebreak, runners_up=self.runners_up)
        return data

    def seeded(self) -> TournamentSettings:
        """These settings with a seed: the one given, or one drawn now (stored with the tournament)."""
        return self if self.seed is not None else replace(self, seed=random.SystemRandom().randrange(2**31))


class Table(list):
    """One table of a round: its entrants in turn order (the manager's game), its number and its deal's seed."""

    def __init__(self, entrants: Iterable[Entrant], number: int, seed: int | None,
                 walkover: tuple[int, ...] | None = None) -> None:
        super().__init__(entrants)
        self.number, self.seed, self.walkover = number, seed, walkover


def table_seed(seed: int | None, dealt: int) -> int | None:
    """The seed of the tournament's table ``dealt`` (1, 2, ... over its rounds), every time it is played: its seed
    + ``dealt`` - 1, as the host numbers single games' seeds (None: the game is dealt without one)."""
    return None if seed is None else seed + dealt - 1


class Decisions:
    """What one tournament decides, each decision stored before its run acts on it."""

    def __init__(
        self, tournament_id: int, settings: Any, runner: Any, writer: Any, format: Any, entrants: list[Entrant],
        stored: StoredTournament | None = None, owner_of: Callable[[Any], str | None] | None = None,
    ) -> None:
        self.id, self.settings, self.runner, self.writer = tournament_id, settings, runner, writer
        self.format, self.entrants, self.stored = format, entrants, stored
        self.owner_of = owner_of  # --accounts, where owners may not meet: whose bot a connection is
        # Each entrant's owner by name, where one owner's bots are kept apart: taken from the connections as the
        # tournament begins, stored with its settings, read back by a resume (its entrants away until they return)
        self.owners: dict[str, str] | None = None if stored is None else stored.record.settings.get("owners")
        self.round = 0  # the round decided last (0: none yet, the greeting)
        self.closed_round = 0  # the last round over (a failure after it is not one of its round)
        self.tables_dealt = 0  # tables of the rounds decided so far
        self._unkept: dict[int, list[Callable[[], Any]]] = {}  # by entrant, its failure on its way to the store:
        # what waits for it to be kept

    def write(self, operation: dict) -> Deferred:
        """Hand ``operation`` to the store; fires once it is kept (in the database or its journal), never fails."""
        written = maybeDeferred(self.writer.write, operation) if self.writer is not None else succeed(None)
        return written.addErrback(lambda failure: log.failure("tournament {id}: a write failed", failure, id=self.id))

    def begin(self) -> None:
        """The tournament begins: each entrant's owner, from its connection, to be stored with its settings."""
        if self.owner_of is not None:
            self.owners = {entrant.name: owner for entrant in self.entrants
                           if (owner := self.owner_of(entrant.handle)) is not None}

    def decide(self, round: int, games: list[list[Entrant]]) -> list[Table] | Deferred[list[Table]]:
        """The round's tables: those stored before the host stopped, as they were; else the format's, stored
        before any of their games begins."""
        self.round, self.closed_round = round, round - 1
        decided = self.stored.tables.get(round) if self.stored is not None else None
        self.stored_failures(round, FailureRecord.DURING)  # while the round was under way, before the host stopped
        if decided:
            self.tables_dealt += len(decided)
            return [Table([self.entrant(number) for number in table.seats], table.table, table.seed,
                          table.walkover) for table in decided]
        owner = self._owner()
        if owner is not None:  # two bots of one owner never at one table, where the numbers allow
            games = apart(games, owner)
        deal = self.settings.seed if self.runner.setup.seeded else None
        tables = [Table(game, number, table_seed(deal, self.tables_dealt + number))
                  for number, game in enumerate(games, 1)]
        self.tables_dealt += len(tables)
        records = [TableRecord(round, table.number, tuple(e.number for e in table), table.seed, now())
                   for table in tables]
        return self.write(round_begun(self.id, records)).addCallback(lambda _: tables)

    def closed(self, round: int) -> None:
        """``round`` is over: a failure from now on is one after it."""
        self.closed_round = round

    def fail(self, entrant: Entrant, reason: str, phase: int | None = None) -> Deferred:
        """``entrant`` is out of the tournament outside any game: marked, and stored (a game's removals are stored
        with its game)."""
        if entrant.failure is not None:
            return succeed(None)
        round = self.round
        if phase is None:
            phase = FailureRecord.AFTER if round and round == self.closed_round else FailureRecord.DURING
        entrant.fail(round, reason)
        waiting = self._unkept[entrant.number] = []
        written = self.write(entrant_failed(self.id, FailureRecord(entrant.number, round, phase, reason, now())))

        def kept(_: Any) -> None:
            for action in self._unkept.pop(entrant.number, waiting):
                action()

        return written.addCallback(kept)

    def when_kept(self, entrant: Entrant, action: Callable[[], Any]) -> None:
        """``action()`` once ``entrant``'s failure is stored (now, if none is on its way to the store): a removed
        bot is hung up on only once a crash can no longer forget its removal."""
        waiting = self._unkept.get(entrant.number)
        if waiting is None:
            action()
        else:
            waiting.append(action)

    def stored_failures(self, round: int, phase: int) -> list[Entrant]:
        """The entrants a resumed run's store holds as failed in ``round``'s ``phase``, marked failed again."""
        failed = []
        for failure in self.stored.failures_in(round, phase) if self.stored is not None else ():
            failed.append(self.entrant(failure.entrant))
            failed[-1].fail(failure.round, failure.reason)
        return failed

    def _owner(self) -> Callable[[Entrant], str | None] | None:
        """Whose bot an entrant is, where one owner's bots are kept apart (None: they may meet, or no owners)."""
        owners, owner_of = self.owners, self.owner_of
        if owners is not None:
            return lambda entrant: owners.get(entrant.name)
        if owner_of is not None:  # a resumed tournament stored before its owners were: its connections say
            return lambda entrant: owner_of(entrant.handle)
        return None

    def entrant(self, number: int) -> Entrant:
        return self.entrants[number - 1]

    def settings_record(self) -> dict[str, Any]:
        """Everything that shapes its play, as stored when it begins (a resume reads these back, and only these)."""
        if self.stored is not None:
            return self.stored.record.settings
        settings = self.runner.settings
        play = {**self.runner.recorded, "send_scores": settings.send_scores, "tell_removed": settings.tell_removed}
        owners = {} if self.owners is None else {"owners": self.owners}
        return {**self.settings.recorded(), **owners, "play": play}

    def entrant_records(self) -> list[EntrantRecord]:
        return entrant_records(self.format, self.entrants)


def entrant_records(format: Any, entrants: list[Entrant]) -> list[EntrantRecord]:
    """Each entrant as it stands in ``format``'s standings: rank, points, rating, failure, last game."""
    ranks = {id(entrant): rank for rank, entrant in format.standings(entrants)}
    records = []
    for entrant in entrants:
        mu, sigma = format.rating(entrant)
        records.append(EntrantRecord(
            entrant.number, entrant.name, ranks.get(id(entrant)), entrant.points, mu, sigma,
            entrant.winner, entrant.failure, entrant.failed_round, entrant.last_round, entrant.last_place,
            entrant.last_score,
        ))
    return records
