"""Tournaments whose bots fail, and a knockout that plays off its tied final, cut at every store write and resumed.

What ``test_crash_at_every_write.py`` does with honest bots, on the paths a resume finds hardest: a bot that hangs
up between its games (Evolution with ``--send-scores``: it hangs up when its first game's scores come; it is out,
stored as a failure outside any game, or removed from its next game where that began first), entrants away at a
resume (each fails, and their table, too few of whom came back, is a walkover), a bot that fails the farewell
(Fish's course dialect: it hangs up at its ``end``; a failure at the END, and a winner no more), and a knockout
whose final is tied (``--final-tiebreak playoff``: play-offs, each made up to the smallest game by a filler whose
seat counts for no entrant). Each store a cut leaves is resumed, each bot coming back as it was (the one that
hangs up does so again after its next game, unless its failure was stored); and a resumed run is cut again at
every one of its writes and resumed. Each time ``check_tournament`` holds (the resume soak's checker); where no bot
acts on when the host stopped, the standings are also those of the run that was never cut.

A host never stores a failure AFTER a round (``FailureRecord.AFTER``) as it runs: the manager deals the next
round in the turn that closes one, so a bot that hangs up after its game fails DURING its round, if that is still
under way, else DURING the next (dealt with it in, as the replay has it), and after the last round the farewells
follow in that same turn. How the replay takes a failure AFTER a round is tested on a store made by hand
(``tests/bench/test_resume_check.py``).
"""

from __future__ import annotations

from pathlib import Path

from evolution.store.results_store import ResultsStore
from tests.support.adversaries import Adversary, disconnect
from tests.support.crashes import BOTS, Bots, CrashCase, check_tournament
from tests.support.fish_bots import FishAdversary

SIGNUPS = ("--max-signups", str(BOTS), "--min-signups", str(BOTS), "--timeout", "30")
HANGS_UP = {"bob": lambda: Adversary("bob", "score", disconnect)}  # at its first game's scores (--send-scores)
NO_FAREWELL = {"bob": lambda: FishAdversary("bob", "end", disconnect)}  # at Fish's course end


def ops_of(operations: list[dict]) -> list[str]:
    return [operation["op"] for operation in operations]


def tables_and_games(db: Path) -> tuple[list, list]:
    store = ResultsStore.open(db)
    try:
        [tournament] = store.tournaments()
        return store.tables(tournament.id), store.games(tournament.id)
    finally:
        store.close()


class CrashWithFailuresTests(CrashCase):
    async def every_cut(self, game: str, whole: list[dict], expected: dict | None = None, bots: Bots | None = None
                        ) -> dict[int, list]:
        """Each cut of ``whole`` resumed and checked (``expected``: the standings each must give); the writes of
        each resumed run, by its cut."""
        ops, cuts = ops_of(whole), {}
        for k in range(len(whole) + 1):
            resumed = await self.resumed(game, whole[:k], bots=bots)
            if resumed is None:  # nothing was begun, or everything was over
                self.assertIn(k, (0, len(whole)))
                continue
            cuts[k], db = resumed
            standings = check_tournament(db)
            if expected is not None:
                self.assertEqual(standings, expected, f"cut after write {k} ({ops[k - 1]})")
        return cuts

    async def test_an_evolution_swiss_with_a_bot_that_hangs_up_between_games_and_entrants_away(self) -> None:
        first = self.store()
        whole = await self.run_host(first, "evolution", "--tournament", "swiss", "--rounds", "3", "--players", "3-5",
                                    "--seed", "3", "--send-scores", *SIGNUPS, bots=HANGS_UP)
        standings = check_tournament(first)
        self.assertEqual([name for name, row in standings.items() if row[3] is not None], ["bob"], standings)
        await self.every_cut("evolution", whole, bots=HANGS_UP)
        # At the resume, round 2's tables are dealt and none of its games is over; of its smallest table, all but
        # two stay away (Evolution's games have 3 players at least): a walkover for the two.
        ops = ops_of(whole)
        k = ops.index("round-begun", ops.index("round-over")) + 1
        names = {entrant["entrant"]: entrant["name"] for entrant in whole[0]["tournament"]["entrants"]}
        table = min(whole[k - 1]["tables"], key=lambda table: len(table["seats"]))
        seated = [names[number] for number in table["seats"] if names[number] != "bob"]
        away = set(seated[:len(table["seats"]) - 2])
        window = self.away_window()
        again, db = await self.resumed("evolution", whole[:k], away=away, window=(
            "--signup-window", str(window), "--signup-periods", "1"), bots=HANGS_UP)
        standings = check_tournament(db)
        self.assertLessEqual({"walkover", "entrant-failed"}, set(ops_of(again)))
        for name in away:
            self.assertTrue(str(standings[name][3]).startswith(f"did not come back within {window:g} s after the "
                                                               "host stopped"), standings[name])
        # bob fails once it has hung up after a game, unless that was the last game (no round follows)
        self.assertLessEqual({name for name, row in standings.items() if row[3] is not None} - away, {"bob"})
        walkovers = [(t.round, t.table, t.walkover) for t in tables_and_games(db)[0] if t.walkover is not None]
        self.assertEqual([(round, number) for round, number, _ in walkovers], [(2, table["table"])])
        # That run cut at every one of its writes (its failures and its walkover among them), and resumed with
        # everyone back: what it decided before the cut stands.
        for j in range(1, len(again) + 1):
            resumed = await self.resumed("evolution", whole[:k], again[:j], bots=HANGS_UP)
            if resumed is None:
                continue
            standings = check_tournament(resumed[1])
            decided = ops_of(again[:j])
            if "walkover" in decided:
                kept = [(t.round, t.table, t.walkover) for t in tables_and_games(resumed[1])[0] if t.walkover]
                self.assertEqual(kept, walkovers, f"cut after {k}, then {j}")
            failed = [op["failure"]["entrant"] for op in again[:j] if op["op"] == "entrant-failed"]
            for number in failed:
                self.assertIsNotNone(standings[names[number]][3], f"cut after {k}, then {j}: {names[number]}")

    async def test_without_a_seed_a_bot_that_fails_between_games_or_at_the_end_is_failed_once_at_any_cut(self) -> None:
        # As the docs start a tournament (no --seed: the host draws one and stores it): Evolution's Swiss with a bot
        # that hangs up after its first game, and Fish's knockout with a bot that hangs up at its end, each cut at
        # every write and resumed; every cut is checked (each round once, one game a player a round, the standings
        # its games give), and the bot is failed, once, wherever its failure was stored before the cut.
        for game, options, bots in (
                ("evolution", ("--tournament", "swiss", "--rounds", "3", "--players", "3-5", "--send-scores"), HANGS_UP),
                ("fish", ("--tournament", "knockout", "--players", "2-4", "--dialect", "course"), NO_FAREWELL)):
            first = self.store()
            whole = await self.run_host(first, game, *options, *SIGNUPS, bots=bots)
            self.assertIsInstance(whole[0]["tournament"]["settings"]["seed"], int)  # drawn, and kept
            failed = [name for name, row in check_tournament(first).items() if row[3] is not None]
            self.assertEqual(failed, ["bob"], game)
            ops = ops_of(whole)
            for k in range(1, len(whole)):
                resumed = await self.resumed(game, whole[:k], bots=bots)
                self.assertIsNotNone(resumed, f"{game}: cut after write {k} ({ops[k - 1]})")
                standings = check_tournament(resumed[1])
                if "entrant-failed" in ops[:k]:
                    self.assertIsNotNone(standings["bob"][3], f"{game}: cut after write {k}")
                    self.assertNotIn("entrant-failed", ops_of(resumed[0]), f"{game}: cut after write {k}")

    async def tied_final(self) -> tuple[list[dict], dict, list]:
        """Seed 14, its honest bots signed up in order: its final ties two, and so does the first play-off, each
        play-off made up by a filler (the final's third); its writes, its standings, its tables."""
        first = self.store()
        whole = await self.run_host(first, "evolution", "--tournament", "knockout", "--players", "3-5", "--seed", "14",
                                    "--final-tiebreak", "playoff", *SIGNUPS, in_order=True)
        expected = check_tournament(first, honest=True)
        tables, games = tables_and_games(first)
        fillers = [game.id for game in games if any(seat.entrant is None for seat in game.players)]
        self.assertEqual(len(fillers), 2, f"no tied final played off with fillers (seed 14): {games}")
        return whole, expected, tables

    async def test_an_evolution_knockout_whose_final_is_tied_plays_it_off_with_fillers(self) -> None:
        whole, _, tables = await self.tied_final()
        cuts = await self.every_cut("evolution", whole)
        # The first play-off's table decided, its game not over: cut again at every write of that resumed run.
        ops = ops_of(whole)
        k = [index for index, op in enumerate(ops) if op == "round-begun"][-2] + 1
        self.assertEqual(whole[k - 1]["tables"][0]["round"], max(table.round for table in tables) - 1)
        for j in range(1, len(cuts[k]) + 1):
            resumed = await self.resumed("evolution", whole[:k], cuts[k][:j])
            if resumed is not None:
                check_tournament(resumed[1])

    async def test_an_evolution_knockout_with_a_tied_final_cut_anywhere_gives_the_standings_never_cut(self) -> None:
        # Its bots are honest: every cut must give the standings of the run never cut (a cut after the final's game
        # is resumed with the play-off's filler back: it is awaited, though knocked out, for it has a game to play).
        whole, expected, _ = await self.tied_final()
        await self.every_cut("evolution", whole, expected)

    async def test_a_fish_knockout_whose_winner_fails_the_farewell(self) -> None:
        # Fish's course dialect bids every player still connected farewell (end), the knocked out too. With the
        # seed 7 and its bots signed up in order, "bob" wins; here it hangs up at its end, every time: out at the
        # END, and a winner no more. A cut after the final's game and before that failure is resumed with no table
        # left to wait for anyone: the farewells go out at once, and a winner not back yet hears none (it stays
        # the winner: the standings of the honest run); any other cut gives the standings of the run never cut.
        honest = check_tournament((await self.fish_knockout())[1], honest=True)
        self.assertTrue(honest["bob"][2], honest)
        whole, first = await self.fish_knockout(NO_FAREWELL)
        expected = check_tournament(first)
        self.assertEqual([name for name, row in expected.items() if row[3] is not None], ["bob"], expected)
        self.assertTrue(expected["bob"][3].startswith("failed the tournament's end"), expected["bob"])
        self.assertFalse(expected["bob"][2])
        self.assertEqual(ops_of(whole)[-2:], ["entrant-failed", "tournament-over"])
        final = max(table["round"] for operation in whole if operation["op"] == "round-begun"
                    for table in operation["tables"])

        def gives(parts: list[list[dict]], standings: dict, where: str) -> None:
            done = [operation for part in parts for operation in part]
            played = any(op["op"] == "game" and op["game"]["round"] == final for op in done)
            failed = any(op["op"] == "entrant-failed" for op in done)
            allowed = [expected, honest] if played and not failed else [expected]
            self.assertIn(standings, allowed, where)

        cuts = {}
        for k in range(len(whole) + 1):
            resumed = await self.resumed("fish", whole[:k], bots=NO_FAREWELL)
            if resumed is None:
                self.assertIn(k, (0, len(whole)))
                continue
            cuts[k], db = resumed
            gives([whole[:k]], check_tournament(db), f"cut after write {k}")
        # The final dealt, its game not played: cut again at every write of that resumed run (its final's game,
        # bob's failure at the end).
        k = [index for index, op in enumerate(ops_of(whole)) if op == "round-begun"][-1] + 1
        self.assertIn("entrant-failed", ops_of(cuts[k]))
        for j in range(1, len(cuts[k]) + 1):
            resumed = await self.resumed("fish", whole[:k], cuts[k][:j], bots=NO_FAREWELL)
            if resumed is not None:
                gives([whole[:k], cuts[k][:j]], check_tournament(resumed[1]), f"cut after {k}, then {j}")

    async def fish_knockout(self, bots: Bots | None = None) -> tuple[list[dict], Path]:
        first = self.store()
        whole = await self.run_host(first, "fish", "--tournament", "knockout", "--players", "2-4", "--dialect",
                                    "course", "--seed", "7", *SIGNUPS, bots=bots, in_order=True)
        return whole, first
