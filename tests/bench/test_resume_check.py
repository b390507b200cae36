"""The resume soak's checker (``bench/resume_check.py``) on small stores made by hand: it passes a tournament whose
standings are those of its tables and games, and fails one with a round played twice, standings its games do not
give, or no end; a store from before version 8 (no tables) is checked from its games alone; failures outside games
(during a round, after it, at the end) and a walkover pass where the host applies them; tables an owner's bots were
kept apart at pass where accounts were on, and fail where they were not.

Each store holds one Swiss tournament of 6 entrants (games of 3, 3 rounds, no seed unless told: its first round is
what its records say), played by the tournament manager with a referee that scores every seat from its entrant and
round, and written as a host writes it: the tournament as it begins, each round's tables, each failure outside a
game as it is decided, each game (or walkover: fewer than 3 of its table still in), each round's end, the end.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from bench.resume_check import check_tournament
from evolution.coroutines import run_locally
from evolution.host.modes.tournament_run import entrant_records
from evolution.store.operations import (
    entrant_failed, round_begun, round_over, tournament_begun, tournament_over, walkover,
)
from evolution.store.records import FailureRecord, GameRecord, RoundRecord, SeatRecord, TableRecord, TournamentRecord
from evolution.tournament.allocation import apart
from evolution.store.results_store import ResultsStore
from evolution.tournament.formats import Swiss
from evolution.tournament.manager import TournamentManager
from evolution.tournament.standings import Entrant, GameReport, Seat

AT = "2026-11-28T20:00:00+00:00"
NAMES = ["ann", "bob", "cy", "dee", "eve", "fay"]


def made_store(db: Path, *, twice: int | None = None, finished: bool = True, points: int = 0,
               tables: bool = True, fails: dict[tuple[int, int], str] | None = None, seed: int | None = None,
               owners: dict[str, str] | None = None, accounts: str = "open") -> list[str]:
    """The tournament, stored; ``twice``: that round's last game stored a second time, as a resume that played it
    again would; ``points``: added to the leader's stored points; ``finished``: False leaves it running (standings
    stored, no end); ``tables``: False stores no tables, as a host before version 8; ``fails``: the entrant named
    fails outside its games in that (round, phase) (phase END: the winner ranked first fails the farewell instead),
    as the host decides it (``FailureRecord.DURING``: once the round's tables are kept); ``seed``: the Swiss's;
    ``owners``: each bot's owner, whose bots the tables keep apart (``allocation.apart``) as a host with accounts
    on does; ``accounts``: the setting stored. The rounds whose tables ``apart`` changed."""
    format, entrants = Swiss(3, 5, 3, seed), [Entrant(k, name) for k, name in enumerate(NAMES, 1)]
    by_name = {entrant.name: entrant for entrant in entrants}
    store = ResultsStore.open(db)
    store.apply(tournament_begun(TournamentRecord(1, "swiss", "running", AT, settings={
        "players": "3-5", "rounds": 3, "seed": seed, "accounts": accounts},
        entrants=tuple(entrant_records(format, entrants)))))
    games: list[GameRecord] = []
    numbered: dict[tuple[int, tuple[int, ...]], int] = {}  # (round, seats) -> table
    swapped: list[str] = []

    def fail(entrant: Entrant, round: int, phase: int) -> None:
        reason = f"failed in phase {phase} of round {round}"
        entrant.fail(round, reason)
        store.apply(entrant_failed(1, FailureRecord(entrant.number, round, phase, reason, AT)))

    def decide(round: int, dealt: list[list[Entrant]]) -> list[list[Entrant]]:
        if owners is not None:
            kept = apart(dealt, lambda entrant: owners.get(entrant.name))
            swapped.extend([f"round {round}"] if kept != dealt else [])
            dealt = kept
        decided = [TableRecord(round, k, tuple(e.number for e in table), decided_at=AT)
                   for k, table in enumerate(dealt, 1)]
        numbered.update({(round, table.seats): table.table for table in decided})
        if tables:
            store.apply(round_begun(1, decided))
        if (round, FailureRecord.DURING) in (fails or {}):
            fail(by_name[fails[(round, FailureRecord.DURING)]], round, FailureRecord.DURING)
        return dealt

    def referee(round: int, table: list[Entrant]) -> GameReport:
        present = [entrant for entrant in table if entrant.failure is None]
        number = numbered[(round, tuple(entrant.number for entrant in table))] if tables else None
        if len(present) < 3:  # too few still in for a game
            store.apply(walkover(1, round, number, [entrant.number for entrant in present]))
            return GameReport([Seat(e, 0) if e in present else Seat(e, None, e.failure) for e in table])
        seats = [Seat(entrant, (entrant.number * 5 + round * 3) % 7) for entrant in present]
        players = tuple(SeatRecord(seat, entrant.name, score.score, entrant=entrant.number)
                        for seat, (entrant, score) in enumerate(zip(present, seats), 1))
        games.append(GameRecord(AT, AT, "shuffled", len(games), 3, "finished", players, len(games) + 1, 1, round,
                                table=number))
        store.record(games[-1])
        return GameReport(seats + [Seat(e, None, e.failure) for e in table if e not in present], games[-1].id)

    class Rounds:
        def round_begins(self, round: int, dealt: list[list[Entrant]]) -> None:
            pass

        def round_over(self, round: int, reports: list) -> None:
            if round == twice:
                store.record(replace(games[-1], id=len(games) + 100))
            if (round, FailureRecord.AFTER) in (fails or {}):
                fail(by_name[fails[(round, FailureRecord.AFTER)]], round, FailureRecord.AFTER)
            store.apply(round_over(1, RoundRecord(round, AT, AT, f"round {round}"), entrant_records(format, entrants)))

    manager = TournamentManager(format, entrants, referee, Rounds(), decide)
    run_locally(manager.run())
    if (manager.round, FailureRecord.END) in (fails or {}):
        winner = next(entrant for rank, entrant in format.standings(entrants) if rank == 1)
        fail(winner, manager.round, FailureRecord.END)
        winner.winner = False
    standings = entrant_records(format, entrants)
    leader = min((e for e in standings if e.rank is not None), key=lambda entrant: entrant.rank)
    standings = [replace(e, points=e.points + points) if e is leader else e for e in standings]
    store.apply(tournament_over(1, "finished" if finished else "running", AT, standings))
    store.close()
    return swapped


def test_a_tournament_whose_standings_are_its_games_passes(tmp_path):
    made_store(tmp_path / "results.sqlite")
    assert check_tournament(tmp_path / "results.sqlite", 1) == []


def test_a_round_played_twice_fails(tmp_path):
    made_store(tmp_path / "results.sqlite", twice=2)
    problems = check_tournament(tmp_path / "results.sqlite", 1)
    assert any(problem.endswith("has 2 finished games in round 2") for problem in problems), problems
    assert "round 2's table 2 played 2 times" in problems
    assert any("is no table the replay plays" in problem for problem in problems), problems


def test_standings_that_its_games_do_not_give_fail_and_so_does_a_tournament_not_finished(tmp_path):
    made_store(tmp_path / "results.sqlite", points=1, finished=False)
    problems = check_tournament(tmp_path / "results.sqlite", 1)
    assert "the tournament is running, not finished" in problems
    [wrong] = [problem for problem in problems if " stands " in problem]  # the leader, one point too many
    shown, given = (int(part.split("'points': ")[1].split(",")[0]) for part in wrong.split("; its records give"))
    assert shown == given + 1, wrong


def test_a_store_from_before_version_8_is_checked_from_its_games(tmp_path):
    made_store(tmp_path / "results.sqlite", tables=False)
    assert check_tournament(tmp_path / "results.sqlite", 1) == []
    made_store(tmp_path / "twice.sqlite", tables=False, twice=3)
    problems = check_tournament(tmp_path / "twice.sqlite", 1)
    assert any(problem.endswith("has 2 finished games in round 3") for problem in problems), problems


def test_failures_outside_games_and_a_walkover_replay_where_the_host_applies_them(tmp_path):
    # Round 2: "cy" fails once its tables are dealt (the round was dealt with it in: its table, 2 left, is a
    # walkover); after round 2 "dee" fails (round 3 is one table of 4); the winner fails the farewell.
    fails = {(2, FailureRecord.DURING): "cy", (2, FailureRecord.AFTER): "dee", (3, FailureRecord.END): "the winner"}
    made_store(tmp_path / "results.sqlite", fails=fails, seed=3)
    assert check_tournament(tmp_path / "results.sqlite", 1, honest=False) == []
    store = ResultsStore.open(tmp_path / "results.sqlite")
    try:
        tables, record = store.tables(1), store.tournament(1)
    finally:
        store.close()
    assert [(table.round, len(table.seats)) for table in tables] == [(1, 3), (1, 3), (2, 3), (2, 3), (3, 4)]
    [cys] = [table for table in tables if table.round == 2 and 3 in table.seats]
    assert [table.walkover for table in tables if table.walkover] == [tuple(n for n in cys.seats if n != 3)]
    failed = {entrant.name: entrant.failure for entrant in record.entrants if entrant.failure}
    assert len(failed) == 3 and {"cy", "dee"} < set(failed), failed
    [farewell] = [name for name, reason in failed.items() if "phase 2 of round 3" in reason]
    assert farewell not in [entrant.name for entrant in record.winners]
    problems = check_tournament(tmp_path / "results.sqlite", 1)  # an honest run has none of these
    assert any(problem.startswith("an honest bot failed: 'cy' in round 2") for problem in problems), problems


def test_tables_that_keep_an_owners_bots_apart_pass_only_where_accounts_were_on(tmp_path):
    owners = {"ann": "team", "bob": "team", "cy": "crew", "dee": "crew"}
    assert made_store(tmp_path / "roster.sqlite", seed=1, owners=owners, accounts="roster")  # a table was changed
    assert check_tournament(tmp_path / "roster.sqlite", 1) == []
    made_store(tmp_path / "open.sqlite", seed=1, owners=owners)
    problems = check_tournament(tmp_path / "open.sqlite", 1)
    assert any("stored tables" in problem and "are not those its standings deal" in problem
               for problem in problems), problems
