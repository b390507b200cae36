"""The resume soak's verdict on one stored tournament: what ``evolution-results`` shows, checked against its records.

Offers ``check_tournament(db, tournament_id, honest=True)``, the list of what
is wrong (empty: nothing), ``check_store(db, tournament_id, honest=True)``,
the same checks of what the store itself holds as shown (no process: a test
checks hundreds of stores with it, ``tests/support/crashes.py``), and
``results_json(db, *options)``, what ``evolution-results --db DB OPTIONS
--json`` prints. ``check_tournament`` reads the tournament and its games as an
organiser does, through ``evolution-results --json``, and what the tournament
decided (its entrants, each round's tables, its failures outside games) from
the store (``ResultsStore``), and checks:

1. the tournament finished;
2. each round is listed once, numbered 1, 2, ... with none unfinished (each
   has its end);
3. each player has at most one finished game per round (none twice);
4. each stored table has exactly one finished game, or a walkover and no
   game; each finished game was played for a stored table of its round and
   seats only that table's entrants;
5. replayed from those records, the tournament's own format deals exactly
   the tables stored for each round, and no round more or fewer (a Swiss
   whose settings keep no seed: its first round aside, the one free
   choice; with accounts on, ``--accounts roster`` or ``closed``, the same
   entrants at tables of the same sizes: ``allocation.apart`` swaps two bots
   of one owner away from one table, and the store keeps no owners), and the
   standings, winners and failures the stored games give are those
   ``evolution-results`` shows (a knockout's round reached, place and score:
   those of the entrant's last finished game, all the store keeps);
6. with ``honest`` (every bot honest and coming back): no seat removed, no
   entrant failed.

The replay is the tournament manager with the tournament's format, each
table answered by its stored game (or walkover), each failure outside a game
applied where the host applies it when it resumes the tournament
(``evolution.host.modes.tournament_run``): one at the greeting before the
first round, one during a round once that round's tables are dealt (it was
decided while the round was under way, so the round was dealt with it in),
one after a round once the format has settled that round, one at the
farewell after the winners are marked (a winner that failed it wins no
more). ``tests/support/crashes.py`` checks every store it cuts with it. A store from
before version 8 keeps no tables: the replay then follows what the format
deals, a Swiss's first round without a seed taken from the stored games of
round 1, each table answered by the game of its round and names.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from evolution.coroutines import run_locally
from evolution.host.modes.tournament_run import entrant_records
from evolution.store.records import FailureRecord, TableRecord, TournamentRecord
from evolution.store.results_store import reading
from evolution.tournament.formats import Knockout, Swiss
from evolution.tournament.manager import TournamentManager
from evolution.tournament.scoring import places
from evolution.tournament.standings import Entrant, GameReport, Seat

Game = dict[str, Any]  # a game as evolution-results --json prints it
ACCOUNTS_ON = ("roster", "closed")  # --accounts modes under which a tournament keeps an owner's bots apart


class Unplayed(Exception):
    """The replay dealt a table that no stored finished game (or walkover) answers."""


def results_json(db: Path | str, *options: str, limit: float = 60.0) -> Any:
    """What ``evolution-results --db DB OPTIONS --json`` prints, read as JSON; ``RuntimeError`` if it fails."""
    done = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db", str(db), *options,
                           "--json"], capture_output=True, text=True, timeout=limit, stdin=subprocess.DEVNULL)
    if done.returncode != 0:
        raise RuntimeError(f"evolution-results {' '.join(options)} failed: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout)


def check_tournament(db: Path | str, tournament_id: int, honest: bool = True) -> list[str]:
    """What is wrong with tournament ``tournament_id`` of the store ``db`` (see the module's docstring)."""
    tournament = results_json(db, "--tournament", str(tournament_id))
    finished = [game for game in results_json(db) if game.get("tournament_id") == tournament_id
                and game["outcome"] == "finished"]
    stored = reading(db, lambda store: (store.tournament(tournament_id), store.tables(tournament_id),
                                        store.failures(tournament_id)))
    return record_problems(tournament, finished, *stored, honest=honest)


def check_store(db: Path | str, tournament_id: int, honest: bool = True) -> list[str]:
    """What is wrong with tournament ``tournament_id`` of the store ``db``, read from the store alone: the
    tournament as ``evolution-results`` would show it (``TournamentRecord.to_json``), its finished games."""

    def read(store: Any) -> tuple:
        games = [game.to_json() for game in store.games(tournament_id) if game.finished]
        return store.tournament(tournament_id), games, store.tables(tournament_id), store.failures(tournament_id)

    record, finished, tables, failures = reading(db, read)
    if record is None:
        return ["the store holds no such tournament"]
    return record_problems(record.to_json(), finished, record, tables, failures, honest=honest)


def record_problems(tournament: dict[str, Any], finished: list[Game], record: TournamentRecord | None,
                    tables: list[TableRecord], failures: list[FailureRecord], honest: bool = True) -> list[str]:
    """What is wrong with a tournament as shown (``tournament``: its JSON; ``finished``: its finished games' JSON),
    against its records in the store (``record``, ``tables``, ``failures``)."""
    problems = []
    if tournament["status"] != "finished":
        problems.append(f"the tournament is {tournament['status']}, not finished")
    numbers = [round["round"] for round in tournament["rounds"]]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"its rounds are {numbers}, not 1 to {len(numbers)} once each")
    unfinished = [round["round"] for round in tournament["rounds"]
                  if round["summary"] == "unfinished" or not round.get("ended_at")]
    if unfinished:
        problems.append(f"round(s) {unfinished} unfinished")
    twice = Counter((game["round"], seat["name"]) for game in finished for seat in game["players"])
    problems += [f"{name!r} has {count} finished games in round {round}"
                 for (round, name), count in sorted(twice.items()) if count > 1]
    if honest:
        removed = [f"{seat['name']!r} (game {game['id']}: {seat['removed_reason']})" for game in finished
                   for seat in game["players"] if seat.get("removed_reason")]
        problems += [f"an honest bot removed: {', '.join(removed[:3])}"] if removed else []
        problems += [f"an honest bot failed: {failure['name']!r} in round {failure['round']}: {failure['reason']}"
                     for failure in tournament["failures"]]
    return problems + table_problems(tables, finished) + replayed_differences(tournament, finished, record, tables,
                                                                              failures)


def table_problems(tables: list[TableRecord], finished: list[Game]) -> list[str]:
    """How the finished games and the stored tables do not answer each other one for one."""
    if not tables:
        return []
    decided = {(table.round, table.table): table for table in tables}
    played = Counter((game["round"], game.get("table")) for game in finished)
    problems = [f"round {round}'s table {table} played {count} times" for (round, table), count in sorted(
        played.items(), key=str) if count > 1]
    for game in finished:
        table = decided.get((game["round"], game.get("table")))
        seated = {seat["entrant"] for seat in game["players"] if seat.get("entrant") is not None}
        if table is None or table.walkover is not None or not seated <= set(table.seats):
            problems.append(f"game {game['id']} (round {game['round']}, table {game.get('table')}) is no stored "
                            "table's game")
    problems += [f"round {table.round}'s table {table.table} has " + ("a walkover and a game" if table.walkover
                 is not None else "no finished game") for table in tables
                 if (table.walkover is not None) == ((table.round, table.table) in played)]
    return problems


def replayed_differences(tournament: dict[str, Any], finished: list[Game], record: TournamentRecord | None,
                         tables: list[TableRecord], failures: list[FailureRecord]) -> list[str]:
    """How the tournament as shown differs from its replay from its records (see the module's docstring)."""
    if record is None:
        return ["the store holds no such tournament"]
    entrants = [Entrant(entrant.entrant, entrant.name) for entrant in record.entrants]
    format = Replayed(tournament, entrants, finished, tables, failures)
    try:
        run_locally(TournamentManager(format, entrants, format.referee).run())
    except Unplayed as unplayed:
        return [f"replayed from its records, {unplayed}"]
    format.at_the_end(entrants)
    problems = list(format.mismatches)
    problems += [f"game {game['id']} (round {game['round']}: {[seat['name'] for seat in game['players']]}) is no "
                 "table the replay plays" for game in finished if game["id"] not in format.answered]
    dealt, decided = max(format.rounds, default=0), max((table.round for table in tables), default=None)
    if dealt != len(tournament["rounds"]) or decided not in (None, dealt):
        stored = "" if decided is None else f" and stores tables for {decided}"
        problems.append(f"it shows {len(tournament['rounds'])} rounds{stored}; its records give {dealt}")
    counted = last_games([game for game in finished if game["id"] in format.answered])
    records = [replace(entrant, **dict(zip(("reached", "place", "score"), counted.get(entrant.name, (None,) * 3))))
               for entrant in entrant_records(format, entrants)]
    again = TournamentRecord(tournament["id"], tournament["format"], "finished", "", entrants=tuple(records)).to_json()
    expected = {row["name"]: row for row in again["standings"]}
    shown = {row["name"]: row for row in tournament["standings"]}
    problems += [f"{name!r} stands {shown.get(name)}; its records give {expected.get(name)}"
                 for name in sorted(set(expected) | set(shown)) if expected.get(name) != shown.get(name)]
    for key in ("winners", "failures"):
        if sorted(map(str, again[key])) != sorted(map(str, tournament[key])):
            problems.append(f"its {key} are {tournament[key]}; its records give {again[key]}")
    return problems


class Replayed:
    """The tournament's format from its stored settings, its rounds played again from its records.

    ``referee`` answers each table with its stored game; ``mismatches`` says where the format deals other
    tables than those stored; ``answered`` holds the ids of the games that answered a table, ``rounds`` the
    rounds dealt.
    """

    def __init__(self, tournament: dict[str, Any], entrants: list[Entrant], finished: list[Game],
                 tables: list[TableRecord], failures: list[FailureRecord]) -> None:
        settings = tournament["settings"]
        smallest, largest = (int(size) for size in settings["players"].split("-"))
        if tournament["format"] == "knockout":
            self.format: Any = Knockout(smallest, largest, settings.get("final_tiebreak", "co-winners"),
                                        settings.get("runners_up", True))
        else:
            self.format = Swiss(smallest, largest, settings["rounds"], settings.get("seed"))
        self.shuffled = tournament["format"] == "swiss" and settings.get("seed") is None  # round 1: as stored
        self.apart = settings.get("accounts") in ACCOUNTS_ON  # an owner's bots kept apart: tables swapped
        self.numbered = {entrant.number: entrant for entrant in entrants}
        self.tables = tables
        self.failures = failures if tables else [
            FailureRecord(next(e.number for e in entrants if e.name == failure["name"]), failure["round"] or 1,
                          FailureRecord.DURING, failure["reason"])
            for failure in tournament["failures"] if failure["name"] not in removed_in(finished)]
        self.by_table = {(game["round"], game.get("table")): game for game in finished}
        self.by_names = {(game["round"], tuple(seat["name"] for seat in game["players"])): game for game in finished}
        self.mismatches: list[str] = []
        self.answered: set[int] = set()
        self.rounds: list[int] = []
        self.fail(0, FailureRecord.DURING)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.format, name)

    def fail(self, round: int, phase: int) -> None:
        for failure in self.failures:
            if failure.round == round and failure.phase == phase:
                self.numbered[failure.entrant].fail(round, failure.reason)

    def next_round(self, round: int, entrants: list[Entrant]) -> Any:
        dealt = self.format.next_round(round, entrants)
        if dealt is None:
            return None
        self.rounds.append(round)
        self.fail(round, FailureRecord.DURING)  # decided while the round was under way: after its deal
        if self.tables:
            stored = [[self.numbered[number] for number in table.seats] for table in self.tables
                      if table.round == round]
            if not (round == 1 and self.shuffled) and names(dealt) != names(stored) and not (
                    self.apart and swapped_only(dealt, stored)):
                self.mismatches.append(f"round {round}'s stored tables {names(stored)} are not those its standings "
                                       f"deal, {names(dealt)}")
            return stored
        if round == 1 and self.shuffled:  # a store without tables: round 1 as its games were played
            by_name = {entrant.name: entrant for entrant in entrants}
            return [[by_name[name] for name in table] for played, table in self.by_names if played == 1]
        return dealt

    def round_over(self, round: int, reports: list[GameReport], entrants: list[Entrant]) -> None:
        self.format.round_over(round, reports, entrants)
        self.fail(round, FailureRecord.AFTER)

    def at_the_end(self, entrants: list[Entrant]) -> None:
        """The failures at the tournament's end (its farewell): out, and no longer winners."""
        for failure in self.failures:
            if failure.phase == FailureRecord.END:
                self.numbered[failure.entrant].fail(failure.round, failure.reason)
                self.numbered[failure.entrant].winner = False

    def referee(self, round: int, seats: list[Entrant]) -> GameReport:
        table = next((t for t in self.tables if t.round == round and list(t.seats) == [e.number for e in seats]),
                     None)
        if table is not None and table.walkover is not None:
            return GameReport([Seat(e, 0) if e.number in table.walkover else Seat(e, None, e.failure) for e in seats])
        game = (self.by_table.get((round, table.table)) if table is not None
                else self.by_names.get((round, tuple(entrant.name for entrant in seats))))
        if game is None:
            raise Unplayed(f"round {round}'s table {[entrant.name for entrant in seats]} has no finished game")
        self.answered.add(game["id"])
        sat = {seat["name"]: seat for seat in game["players"]}
        return GameReport([Seat(e, sat[e.name].get("score"), sat[e.name].get("removed_reason")) if e.name in sat
                           else Seat(e, None, e.failure) for e in seats], game["id"])


def last_games(finished: list[Game]) -> dict[str, tuple[int, int | None, int | None]]:
    """Each entrant's last game of ``finished``: its round, place and score, what a knockout's standings show (the
    store keeps no other: a walkover, or a table it failed at before its game, is no game; a filler's seat none)."""
    last = {}
    for game in sorted(finished, key=lambda game: (game["round"], game["id"])):
        placed = places({seat["seat"]: seat["score"] for seat in game["players"] if seat.get("score") is not None})
        for seat in game["players"]:
            if seat.get("entrant") is not None:
                last[seat["name"]] = (game["round"], placed.get(seat["seat"]), seat.get("score"))
    return last


def swapped_only(dealt: list[list[Entrant]], stored: list[list[Entrant]]) -> bool:
    """Whether ``stored`` seats ``dealt``'s entrants at as many tables of the same sizes: all ``apart`` changes."""
    def seated(tables: list[list[Entrant]]) -> list[int]:
        return sorted(entrant.number for table in tables for entrant in table)

    return [len(table) for table in dealt] == [len(table) for table in stored] and seated(dealt) == seated(stored)


def names(tables: list[list[Entrant]]) -> list[list[str]]:
    return [[entrant.name for entrant in table] for table in tables]


def removed_in(finished: list[Game]) -> set[str]:
    """The names removed from a finished game (their failures are the games', not outside them)."""
    return {seat["name"] for game in finished for seat in game["players"] if seat.get("removed_reason")}
