"""A tournament cut at every one of its store writes, as a kill would cut it, and resumed, finishes as it would have.

For Evolution and Fish, knockout and Swiss, with and without ``--seed``: a small tournament of the house's honest
bots over real sockets is played once (the host's runner in the test's process, ``--workers 0``, its store
real); then, for every k, a store holding only its first k writes (what a host killed right after its k-th write
leaves) is resumed (``--resume``) with the same bots coming back, and also cut a second time during that resumed
run, at every one of its writes, and resumed again; once with an entrant that stays away at the first resume.
Each time: the tournament finishes, every round once, one finished game per player per round, and standings that
are what its stored tables, games and failures give (``tests.support.crashes.check_tournament``); with every
entrant back, the standings of the run that never crashed (the seed is drawn and stored when none is given).
Before any game begins, the tournament and its round's tables are kept (no write of them is still unconfirmed).
An entrant away is given ``CrashCase.away_window()`` seconds, ten times what the bots' sign-ups took in the first
run (a busy machine's take longer), at least 2: the others come back at once.
"""

from __future__ import annotations

from tests.support.crashes import BOTS, NAMES, CrashCase, check_tournament

SIZES = {"evolution": ("--players", "3-5"), "fish": ("--players", "2-4")}


class CrashAtEveryWriteTests(CrashCase):

    async def crash_everywhere(self, game: str, format: str, *seed: str) -> None:
        rounds = ("--rounds", "3") if format == "swiss" else ()
        first = self.store()
        whole = await self.run_host(first, game, "--tournament", format, *SIZES[game], *rounds, *seed,
                                    "--max-signups", str(BOTS), "--min-signups", str(BOTS), "--timeout", "30")
        expected = check_tournament(first, honest=True)
        ops = [operation["op"] for operation in whole]
        self.assertEqual((ops[0], ops[-1]), ("tournament-begun", "tournament-over"))
        cuts = {}
        for k in range(len(whole) + 1):
            resumed = await self.resumed(game, whole[:k])
            if resumed is None:  # nothing was begun, or everything was over
                self.assertIn(k, (0, len(whole)))
                continue
            cuts[k], db = resumed
            self.assertEqual(check_tournament(db, honest=True), expected, f"cut after write {k} ({ops[k - 1]})")
        # A second cut, at every write of a resumed run, and a second resume.
        for k in (len(whole) // 3, len(whole) // 2, 2 * len(whole) // 3):
            again = cuts[k]
            for j in range(1, len(again) + 1):
                resumed = await self.resumed(game, whole[:k], again[:j])
                if resumed is not None:
                    self.assertEqual(check_tournament(resumed[1], honest=True), expected, f"cut after {k}, then {j}")
        # An entrant that stays away at the first resume: it fails, its tables go on without it (or are walkovers),
        # and a second cut anywhere in that run forgets none of it.
        k = len(whole) // 2
        absent = next(name for name, row in expected.items() if row[0] == 1)  # it has games left to play
        window = self.away_window()
        away, db = await self.resumed(game, whole[:k], away={absent}, window=("--signup-window", str(window),
                                                                              "--signup-periods", "1"))
        standings = check_tournament(db)
        self.assertIn("entrant-failed", {operation["op"] for operation in away})  # its failure is cut at too
        self.assertEqual({name for name, row in standings.items() if row[3] is not None}, {absent}, standings)
        self.assertTrue(str(standings[absent][3]).startswith(f"did not come back within {window:g} s after the "
                                                             "host stopped"), standings[absent])
        for j in range(1, len(away) + 1):
            resumed = await self.resumed(game, whole[:k], away[:j])
            if resumed is not None:
                again = check_tournament(resumed[1])
                if any(op["op"] == "entrant-failed" for op in away[:j]):
                    self.assertEqual(again[absent][3], standings[absent][3])

    async def test_an_evolution_knockout_without_a_seed(self) -> None:
        await self.crash_everywhere("evolution", "knockout")

    async def test_an_evolution_knockout_with_a_seed(self) -> None:
        await self.crash_everywhere("evolution", "knockout", "--seed", "7")

    async def test_an_evolution_swiss_without_a_seed(self) -> None:
        await self.crash_everywhere("evolution", "swiss")

    async def test_an_evolution_swiss_with_a_seed(self) -> None:
        await self.crash_everywhere("evolution", "swiss", "--seed", "7")

    async def test_a_fish_knockout_without_a_seed(self) -> None:
        await self.crash_everywhere("fish", "knockout")

    async def test_a_fish_knockout_with_a_seed(self) -> None:
        await self.crash_everywhere("fish", "knockout", "--seed", "7")

    async def test_a_fish_swiss_without_a_seed(self) -> None:
        await self.crash_everywhere("fish", "swiss")

    async def test_a_fish_swiss_with_a_seed(self) -> None:
        await self.crash_everywhere("fish", "swiss", "--seed", "7")

    async def test_with_a_worker_an_entrant_whose_return_completes_a_table_keeps_its_place_while_others_wait(
            self) -> None:
        # The resumed round's tables wait for their entrants; one stays away for its whole window, so the next
        # round waits for it: an entrant whose return completed a table waits far longer than a sign-up may take
        # (--signup-timeout: 1 s, or five times what the first run's sign-ups took on this machine; the window four
        # times that), and is watched between games, not taken for a silent sign-up and hung up on.
        first = self.store()
        whole = await self.run_host(first, "evolution", "--tournament", "swiss", "--rounds", "3", *SIZES["evolution"],
                                    "--seed", "5", "--max-signups", str(BOTS), "--min-signups", str(BOTS))
        ops = [operation["op"] for operation in whole]
        k = ops.index("round-begun", ops.index("round-over")) + 2  # round 2's tables and one game begun
        signup = round(max(1.0, 5 * self.signup_took), 2)
        window = max(4 * signup, self.away_window())
        away, db = await self.resumed("evolution", whole[:k], away={NAMES[0]}, window=(
            "--workers", "1", "--signup-timeout", str(signup), "--signup-window", str(window), "--signup-periods",
            "1"))
        standings = check_tournament(db)
        failed = {name: row[3] for name, row in standings.items() if row[3] is not None}
        self.assertEqual(list(failed), [NAMES[0]], failed)

    async def test_a_tournament_cut_before_its_first_game_ended_keeps_its_dialect_and_time_limit(self) -> None:
        first = self.store()
        whole = await self.run_host(first, "evolution", "--tournament", "knockout", *SIZES["evolution"], "--dialect",
                                    "seed002", "--timeout", "7", "--send-scores", "--max-signups", str(BOTS),
                                    "--min-signups", str(BOTS))
        expected = check_tournament(first, honest=True)
        ops = [operation["op"] for operation in whole]
        for k in (1, ops.index("game")):  # the tournament begun; its first games begun, none over
            _, db = await self.resumed("evolution", whole[:k])
            options = self.last.options
            self.assertEqual((options["dialect"], options["timeout"], options["send-scores"]), ("seed002", 7.0, True))
            self.assertEqual(check_tournament(db), expected)
