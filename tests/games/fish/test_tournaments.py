"""Tournaments of Fish: the reference manager's knockout (tournament.md 2-3) and our Swiss, for games of 2 to 4.

Without sockets, scripted referees pin down each rule of the knockout as
the reference manager runs it, and where ours differs from Evolution's (no
runners-up). Over loopback, whole Swiss and knockout tournaments of greedy
and maximin clients are stored, ranked and replayed, and ``evolution-results``
shows them.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from twisted.trial import unittest

from evolution.coroutines import run_locally
from evolution.games import game
from evolution.tournament.allocation import allocate
from evolution.tournament.formats import Knockout, Swiss
from evolution.tournament.local_referee import LocalReferee
from evolution.tournament.manager import TournamentManager
from tests.support.fish_bots import Recorder, sign_up
from tests.support.hosting import new_host, stored_tournament
from tests.tournament.test_formats import Scripted, entrants, names, run

FISH = game("fish")


def fish_knockout() -> Knockout:
    """A knockout of Fish as the host makes it: games of 2 to 4, the game's runner-up rule (none)."""
    return Knockout(FISH.min_players, FISH.max_players, runners_up=FISH.knockout_runners_up)


# -- the reference manager's knockout, without sockets --------------------------------------------


@pytest.mark.parametrize("count, sizes", [
    (2, [2]), (4, [4]), (5, [3, 2]), (6, [4, 2]), (7, [4, 3]), (8, [4, 4]), (9, [4, 3, 2]), (10, [4, 4, 2]),
    (11, [4, 4, 3]), (12, [4, 4, 4]), (13, [4, 4, 3, 2]),
])
def test_games_of_4_back_off_to_3_and_2_in_sign_up_order_as_the_reference_allocates(count, sizes):
    games = allocate(list(range(count)), 2, 4)
    assert [len(game) for game in games] == sizes  # tournament.md 2, computed with the reference
    assert [player for game in games for player in game] == list(range(count))


def test_every_player_tied_for_first_goes_on():
    tied = Scripted(score=lambda entrant, game: 5 if entrant.number in (1, 2, 5, 7) else 1)
    _, winners = run(fish_knockout(), 10, tied)
    assert tied.rounds[0] == [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]]
    # 1 and 2, 5 and 7, 9 and 10 (tied on 1 fish) go on: six, so no final yet; then every game is a tie.
    assert tied.rounds[1] == [[1, 2, 5, 7], [9, 10]]
    assert names(winners) == ["p1", "p2", "p5", "p7", "p9", "p10"]


def test_ten_players_play_four_four_two_and_the_game_winners_meet_in_the_final():
    referee = Scripted()
    manager, winners = run(fish_knockout(), 10, referee)
    assert referee.rounds == [[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10]], [[4, 8, 10]]]
    assert names(winners) == ["p10"]


def test_one_player_left_by_a_round_wins_as_it_is_with_no_final():
    # Round 1: [1 2 3 4] all fail, [5 6 7]: 7 wins. The reference stops with fewer than 2 left; Evolution's
    # rule would lift the best runner-up, 6, into a final.
    referee = Scripted(fail={1: {1, 2, 3, 4}})
    manager, winners = run(fish_knockout(), 7, referee)
    assert (referee.rounds, names(winners)) == ([[[1, 2, 3, 4], [5, 6, 7]]], ["p7"])
    assert [(rank, entrant.name) for rank, entrant in manager.standings()[:3]] == [(1, "p7"), (2, "p6"), (3, "p5")]
    lifted = Scripted(fail={1: {1, 2, 3, 4}})
    _, winners = run(Knockout(2, 4, runners_up=True), 7, lifted)
    assert lifted.rounds[1] == [[6, 7]] and names(winners) == ["p7"]


def test_a_round_whose_winners_are_the_last_round_s_ends_the_tournament_with_them():
    # The reference means to stop when a round's winners equal the previous round's, but compares a list
    # with a number (tournament.md 3); here a round of all-way ties ends it with its players as co-winners.
    referee = Scripted(score=lambda entrant, game: 3)
    manager, winners = run(fish_knockout(), 9, referee)
    assert len(referee.rounds) == 1
    assert names(winners) == [f"p{k}" for k in range(1, 10)]
    assert all(rank == 1 for rank, _ in manager.standings())


def test_a_final_in_which_every_player_fails_has_no_winner_rather_than_a_crash():
    referee = Scripted(fail={2: {4, 8, 10}})
    manager, winners = run(fish_knockout(), 10, referee)
    assert winners == [] and len(referee.rounds) == 2
    assert [rank for rank, entrant in manager.standings() if entrant.failure] == [None, None, None]
    assert 1 not in [rank for rank, _ in manager.standings()]


class Counting(LocalReferee):
    """A local referee of Fish that keeps the size of every game it plays."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed, "fish")
        self.sizes: list[int] = []

    def __call__(self, round: int, game: list) -> object:
        self.sizes.append(len(game))
        return super().__call__(round, game)


@pytest.mark.parametrize("count", [2, 3, 5, 9, 17])
def test_whole_knockouts_and_swiss_tournaments_of_greedy_fish_players_play_out_locally(count):
    for format in (fish_knockout(), Swiss(2, 4, 3, seed=count)):
        field = entrants(count)
        for entrant in field:
            entrant.handle = lambda: FISH.strategy("greedy")
        referee = Counting(count)
        winners = run_locally(TournamentManager(format, field, referee).run())
        assert winners and all(2 <= size <= 4 for size in referee.sizes), (count, format.name)


# -- over loopback -------------------------------------------------------------------------------

FAST = ("--game", "fish", "--timeout", "2", "--first-move-timeout", "2", "--start-timeout", "2",
        "--signup-timeout", "2", "--number-grace", "0.01")
NAMES = ["Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus"]


class HostedTournamentTests(unittest.TestCase):
    timeout = 60

    async def tournament(self, *options: str) -> tuple:
        host = new_host(self, *FAST, "--max-signups", str(len(NAMES)), "--signup-window", "5", *options)
        strategies = [FISH.strategy("maximin" if index % 3 == 0 else "greedy") for index in range(len(NAMES))]
        clients = await sign_up(host, [
            lambda name=name, strategy=strategy: Recorder(name, "course", strategy)
            for name, strategy in zip(NAMES, strategies)
        ])
        store, tournament, _ = await stored_tournament(self, host, [client.done for client in clients])
        return host, store, tournament, clients

    async def test_a_swiss_tournament_of_fish_plays_its_rounds_in_games_of_2_to_4_with_ratings(self) -> None:
        host, store, tournament, clients = await self.tournament("--tournament", "swiss", "--rounds", "3",
                                                                 "--seed", "4")
        summary = tournament.to_json()
        self.assertEqual((summary["status"], len(summary["rounds"]), summary["format"]), ("finished", 3, "swiss"))
        games = store.games(tournament.id)
        self.assertEqual([[len(game.players) for game in games if game.round == r] for r in (1, 2, 3)], [[4, 3]] * 3)
        self.assertTrue(all(row["rating"] is not None for row in summary["standings"]))
        self.assertEqual(summary["winners"], [row["name"] for row in summary["standings"] if row["rank"] == 1])
        for client in clients:  # every game on one connection, start before the first and end after the last
            won = client.name in summary["winners"]
            self.assertEqual((client.received[0][0], client.received[-1]), ("start", ["end", [won]]))
            self.assertEqual(client.outcome.games, 3)

    async def test_evolution_results_shows_a_fish_knockout_and_its_games(self) -> None:
        host, store, tournament, _ = await self.tournament("--tournament", "knockout", "--seed", "8")
        self.assertEqual(tournament.game, "fish")
        self.assertEqual(tournament.settings["runners_up"], False)
        db = host.options["db"]
        listed = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db", str(db), "--tournaments",
                                 "--json"], capture_output=True, text=True, check=True)
        [shown] = json.loads(listed.stdout)
        self.assertEqual((shown["format"], shown["status"], shown["winners"]), ("knockout", "finished",
                                                                                tournament.to_json()["winners"]))
        table = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db", str(db), "--tournament",
                                str(tournament.id)], capture_output=True, text=True, check=True).stdout
        self.assertIn("fish  knockout  finished", table)
        replayed = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_replay", str(tournament.games[0]), "--db",
                                   str(db)], capture_output=True, text=True)
        self.assertEqual(replayed.returncode, 0, replayed.stderr)
        self.assertIn("the stored result", replayed.stdout)
