"""Tournament mechanics without a network: allocation, knockout, Swiss, standings, ratings.

Scripted referees decide each game's scores so every rule can be pinned
down; a local referee plays real games of the silly strategy for whole
tournaments of many sizes.
"""

from __future__ import annotations

import pytest

from evolution.games.evolution.rules.local import run_locally
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.tournament.allocation import allocate, check_sizes
from evolution.tournament.formats import PLAYOFFS, Knockout, Swiss
from evolution.tournament.local_referee import LocalReferee
from evolution.tournament.manager import TournamentManager
from evolution.tournament.scoring import places, points
from evolution.tournament.standings import Entrant, GameReport, Seat
from tests.support.builders import Faulty

# -- allocation (tournament.md 2.4) ---------------------------------------------------


@pytest.mark.parametrize("count", range(3, 201))
def test_every_count_from_3_to_200_is_split_into_games_of_3_to_8_in_order(count):
    players = list(range(count))
    games = allocate(players, 3, 8)
    assert [p for game in games for p in game] == players
    sizes = [len(game) for game in games]
    assert all(3 <= size <= 8 for size in sizes)
    quotient, rest = divmod(count, 8)
    if count <= 8:
        expected = [count]
    elif rest == 0:
        expected = [8] * quotient
    elif rest == 1:
        expected = [8] * (quotient - 1) + [6, 3]
    elif rest == 2:
        expected = [8] * (quotient - 1) + [7, 3]
    else:
        expected = [8] * quotient + [rest]
    assert sizes == expected


def test_game_sizes_that_cannot_hold_every_count_are_refused():
    with pytest.raises(ValueError, match="the largest game must be at least 5"):
        check_sizes(3, 4)
    check_sizes(3, 5)
    assert [len(g) for g in allocate(range(6), 3, 5)] == [3, 3]


def test_places_share_ties_and_points_spread_from_10_to_0():
    assert places({"a": 5, "b": 7, "c": 5, "d": 1}) == {"a": 2, "b": 1, "c": 2, "d": 4}
    assert [points(place, 8) for place in range(1, 9)] == [10, 9, 7, 6, 4, 3, 1, 0]
    assert [points(place, 3) for place in range(1, 4)] == [10, 5, 0]


# -- scripted referees ------------------------------------------------------------------


def entrants(count: int) -> list[Entrant]:
    return [Entrant(number, f"p{number}") for number in range(1, count + 1)]


class Scripted:
    """Scores by a rule of the test's; ``fail`` names entrants removed in their game of a round."""

    def __init__(self, score=lambda entrant, game: entrant.number, fail=None) -> None:
        self.score = score
        self.fail = fail or {}
        self.rounds: list[list[list[int]]] = []

    def __call__(self, round: int, game: list[Entrant]) -> GameReport:
        if len(self.rounds) < round:
            self.rounds.append([])
        self.rounds[round - 1].append([e.number for e in game])
        failing = self.fail.get(round, set())
        return GameReport([
            Seat(e, None, "scripted failure") if e.number in failing else Seat(e, self.score(e, game)) for e in game
        ])


def run(format, count: int, referee) -> tuple[TournamentManager, list[Entrant]]:
    manager = TournamentManager(format, entrants(count), referee)
    winners = run_locally(manager.run())
    return manager, winners


def names(players) -> list[str]:
    return [p.name for p in players]


# -- knockout --------------------------------------------------------------------------


def test_knockout_of_9_plays_6_and_3_then_a_final_of_3_with_the_best_runner_up():
    referee = Scripted()
    manager, winners = run(Knockout(3, 8), 9, referee)
    assert referee.rounds[0] == [[1, 2, 3, 4, 5, 6], [7, 8, 9]]
    # Winners 6 and 9 are too few for a final; the best runner-up is 8 (second, 8 points) over 5.
    assert referee.rounds[1] == [[6, 8, 9]]
    assert names(winners) == ["p9"] and len(referee.rounds) == 2
    standings = manager.standings()
    assert [(rank, e.name) for rank, e in standings[:3]] == [(1, "p9"), (2, "p8"), (3, "p6")]


def test_knockout_of_17_takes_the_game_winners_of_each_round_to_a_final():
    referee = Scripted()
    _, winners = run(Knockout(3, 8), 17, referee)
    assert [len(game) for game in referee.rounds[0]] == [8, 6, 3]
    assert referee.rounds[1] == [[8, 14, 17]]
    assert names(winners) == ["p17"]


def test_everyone_tied_for_first_advances_and_a_tied_final_has_co_winners():
    referee = Scripted(score=lambda entrant, game: 5 if entrant.number in (1, 2, 9, 10, 11) else 1)
    _, winners = run(Knockout(3, 8), 16, referee)
    assert referee.rounds[0] == [list(range(1, 9)), list(range(9, 17))]
    assert referee.rounds[1] == [[1, 2, 9, 10, 11]]
    assert names(winners) == ["p1", "p2", "p9", "p10", "p11"]


def test_a_round_that_eliminates_nobody_ends_the_knockout_with_co_winners():
    referee = Scripted(score=lambda entrant, game: 3)
    manager, winners = run(Knockout(3, 8), 12, referee)
    assert len(referee.rounds) == 1
    assert len(winners) == 12 and all(rank == 1 for rank, _ in manager.standings())


def test_failing_players_are_out_for_good_and_listed_last_with_their_reason():
    referee = Scripted(fail={1: {8, 3}})
    manager, winners = run(Knockout(3, 8), 17, referee)
    assert names(winners) == ["p17"]
    assert all(8 not in game and 3 not in game for game in referee.rounds[1])
    failed = [(rank, e.name, e.failure, e.failed_round) for rank, e in manager.standings() if e.failure]
    assert failed == [(None, "p3", "scripted failure", 1), (None, "p8", "scripted failure", 1)]
    assert referee.rounds[1] == [[7, 14, 17]]  # 7 won the first game once 8 was removed


def test_a_final_whose_players_all_fail_has_no_winner_and_nobody_ranked_first():
    referee = Scripted(fail={2: {6, 8, 9}})
    manager, winners = run(Knockout(3, 8), 9, referee)
    assert winners == []
    standings = manager.standings()
    assert [(rank, e.name) for rank, e in standings[:2]] == [(2, "p5"), (3, "p7")]  # knocked out in round 1
    assert [rank for rank, e in standings if e.failure] == [None, None, None]


def by_round(referee: Scripted, scores: dict[int, dict[int, int]], otherwise: int = 0):
    """A score rule: ``scores[round][number]`` in the round the referee is playing."""
    return lambda entrant, game: scores.get(len(referee.rounds), {}).get(entrant.number, otherwise)


def test_a_tied_final_plays_a_play_off_with_a_filler_whose_result_does_not_count():
    referee = Scripted()
    referee.score = by_round(referee, {1: {1: 5, 2: 5, 3: 1}, 2: {1: 2, 2: 4, 3: 9}})
    manager, winners = run(Knockout(3, 5, final_tiebreak="playoff"), 3, referee)
    assert referee.rounds == [[[1, 2, 3]], [[1, 2, 3]]]  # the final, then the play-off: p1 and p2, p3 to fill
    assert names(winners) == ["p2"]
    assert [(rank, e.name, e.out_round) for rank, e in manager.standings()] == [
        (1, "p2", None), (2, "p1", 2), (3, "p3", 1)
    ]
    filler = manager.entrants[2]
    assert (filler.games, filler.last_round, filler.last_place, filler.last_score, filler.filler) == (1, 1, 3, 1, False)


def test_a_play_off_is_played_again_while_tied_then_the_tied_are_co_winners():
    referee = Scripted(score=lambda entrant, game: 1 if entrant.number == 3 else 5)
    manager, winners = run(Knockout(3, 5, final_tiebreak="playoff"), 3, referee)
    assert len(referee.rounds) == 1 + PLAYOFFS
    assert names(winners) == ["p1", "p2"]
    assert [rank for rank, _ in manager.standings()] == [1, 1, 3]


def test_a_play_off_of_enough_tied_players_needs_no_filler_and_the_default_is_co_winners():
    tie = lambda entrant, game: 1 if entrant.number == 4 else 5  # noqa: E731
    assert names(run(Knockout(3, 8), 4, Scripted(score=tie))[1]) == ["p1", "p2", "p3"]
    referee = Scripted()
    referee.score = by_round(referee, {1: {1: 5, 2: 5, 3: 5, 4: 1}, 2: {1: 1, 2: 3, 3: 3}, 3: {1: 9, 2: 7, 3: 2}})
    manager, winners = run(Knockout(3, 8, final_tiebreak="playoff"), 4, referee)
    assert referee.rounds[1:] == [[[1, 2, 3]], [[2, 3, 1]]]  # then p2 and p3, with p1 (out in round 2) to fill
    assert names(winners) == ["p2"]
    assert [(rank, e.name) for rank, e in manager.standings()] == [(1, "p2"), (2, "p3"), (3, "p1"), (4, "p4")]


def test_a_final_tiebreak_is_co_winners_or_playoff():
    with pytest.raises(ValueError, match="a final's tie-break is co-winners or playoff, not 'toss'"):
        Knockout(3, 8, final_tiebreak="toss")


def test_a_first_round_in_which_everyone_fails_ends_with_no_winner():
    referee = Scripted(fail={1: set(range(1, 11))})
    manager, winners = run(Knockout(3, 8), 10, referee)
    assert winners == [] and manager.round == 1


# -- Swiss -------------------------------------------------------------------------------


def test_swiss_plays_its_rounds_grouping_players_by_points_then_rating():
    referee = Scripted(score=lambda entrant, game: (entrant.number * 7) % 11)
    format = Swiss(3, 8, rounds=4, seed=5)
    manager, winners = run(format, 17, referee)
    assert len(referee.rounds) == 4
    assert all([len(g) for g in games] == [8, 6, 3] for games in referee.rounds)
    assert referee.rounds[0] != [list(range(1, 9)), list(range(9, 15)), list(range(15, 18))]  # shuffled
    assert run(Swiss(3, 8, rounds=4, seed=5), 17, Scripted(score=referee.score))[0].round == 4
    standings = manager.standings()
    ranks = [rank for rank, _ in standings]
    assert ranks == sorted(ranks) and ranks[0] == 1
    assert names(winners) == [e.name for rank, e in standings if rank == 1]
    points = [e.points for _, e in standings]
    assert points == sorted(points, reverse=True)
    mu, sigma = format.rating(standings[0][1])
    assert sigma < 8.3 and mu > format.rating(standings[-1][1])[0]


def test_later_swiss_rounds_put_players_of_similar_points_together():
    rounds_seen: list[list[list[Entrant]]] = []

    def score(entrant, game):
        return entrant.number

    class Watching(Scripted):
        def __call__(self, round, game):
            if len(rounds_seen) < round:
                rounds_seen.append([])
            rounds_seen[round - 1].append([e.points for e in game])  # the points the games were made from
            return super().__call__(round, game)

    run(Swiss(3, 8, rounds=3, seed=1), 16, Watching(score))
    for top, bottom in rounds_seen[1:]:
        assert top == sorted(top, reverse=True) and bottom == sorted(bottom, reverse=True)
        assert min(top) >= max(bottom)


def test_a_swiss_player_that_fails_sits_out_the_rest_and_keeps_its_points():
    referee = Scripted(score=lambda entrant, game: 100 if entrant.number == 4 else entrant.number, fail={2: {4}})
    manager, _ = run(Swiss(3, 8, rounds=3, seed=2), 9, referee)
    [failed] = [e for e in manager.entrants if e.failure]
    assert failed.number == 4 and failed.failed_round == 2 and failed.points > 0
    assert all(4 not in game for game in referee.rounds[2])
    assert manager.standings()[-1] == (None, failed)


# -- whole tournaments of real games ------------------------------------------------------


@pytest.mark.parametrize("count", [3, 9, 10, 17, 40])
@pytest.mark.parametrize("format", ["knockout", "swiss"])
def test_whole_tournaments_of_the_silly_strategy_play_to_winners(format, count):
    make = Knockout(3, 8) if format == "knockout" else Swiss(3, 8, rounds=3, seed=count)
    players = entrants(count)
    for entrant in players:
        entrant.handle = (lambda: Faulty("choose", 2, "raise")) if entrant.number == 2 else SillyPlayer
    manager = TournamentManager(make, players, LocalReferee(seed=count))
    winners = run_locally(manager.run())
    assert winners and all(w.failure is None for w in winners)
    [failed] = [e for e in players if e.failure]
    assert failed.number == 2 and "broke" in failed.failure


def test_players_of_one_owner_are_moved_apart_where_the_numbers_allow_and_the_sizes_stay():
    from evolution.tournament.allocation import apart

    team = {1: "red", 2: "red", 3: "red", 4: "blue", 6: "blue", 7: "green", 8: "green"}  # 5 and 9: no owner
    games = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    moved = apart(games, team.get)
    assert [len(game) for game in moved] == [3, 3, 3] and sorted(sum(moved, [])) == list(range(1, 10))
    for game in moved:
        owners = [team[player] for player in game if player in team]
        assert len(owners) == len(set(owners)), moved
    assert apart(games, lambda player: None) == games  # no owners: the tables as the format dealt them
    assert apart([[1, 2], [3, 4]], lambda player: "one team") == [[1, 2], [3, 4]]  # cannot be apart: left as dealt


def test_a_ladder_seats_as_many_as_the_games_can_keep_apart_each_owners_first_before_anyones_second():
    from evolution.tournament.allocation import apart, spread

    team = {"alice": "ann", "dan": "ann", "bob": "bea", "carol": "cat"}
    # Issue 36's livelock: the first three to wait held two of ann's, so the one table formed could never start
    assert spread(["dan", "alice", "bob", "carol"], 3, 3, 3, team.get) == ["dan", "bob", "carol"]
    assert spread(["alice", "dan", "bob"], 3, 3, 3, team.get) == []  # nobody plays until another owner's bot waits
    assert spread(["alice", "dan", "bob", "carol"], 3, 3, 5, team.get) == ["alice", "bob", "carol"]
    assert spread(list("abcdef"), 6, 3, 5, lambda player: None) == list("abcdef")  # no owners: the first to come
    waiting = [f"{owner}{k}" for k in range(3) for owner in "pqr"] + ["s0", "p3"]  # p has 4 bots, 3 games of 3-4
    chosen = spread(waiting, 11, 3, 4, lambda player: player[0])
    assert len(chosen) == 10 and "p3" not in chosen  # 3 games of 3-4 hold at most three of p's
    games = apart([chosen[:4], chosen[4:7], chosen[7:]], lambda player: player[0])
    assert all(len({player[0] for player in game}) == len(game) for game in games), games
