"""The ladder's matching rule and standings, as pure functions: who plays, who sits together, how ratings move."""

from __future__ import annotations

from collections import Counter

import pytest

from evolution.tournament.allocation import seated
from evolution.tournament.ladder_standings import LadderSeat, Standing, Standings, ranked
from evolution.tournament.matching import tables
from evolution.tournament.ratings import ESTABLISHED, provisional, tier


def no_meetings(a: str, b: str) -> int:
    return 0


def test_every_bot_waiting_plays_when_the_sizes_can_hold_them_all():
    for count in range(3, 40):
        assert seated(count, 3, 8) == count
        games = tables([f"b{k}" for k in range(count)], 3, 8, lambda name: 0.0, no_meetings)
        assert sorted(name for game in games for name in game) == sorted(f"b{k}" for k in range(count))
        assert all(3 <= len(game) <= 8 for game in games)


def test_sizes_that_cannot_hold_everyone_seat_the_longest_waiting():
    assert [seated(count, 4, 4) for count in (3, 4, 7, 8, 11)] == [0, 4, 4, 8, 8]
    waiting = [f"b{k}" for k in range(7)]  # in the order they came to wait
    [game] = tables(waiting, 4, 4, lambda name: int(name[1:]), no_meetings)
    assert sorted(game) == ["b0", "b1", "b2", "b3"]
    assert tables(waiting[:3], 4, 4, lambda name: 0.0, no_meetings) == []


def test_tables_hold_neighbours_in_rating_best_first():
    skill = {f"b{k}": float(k) for k in range(16)}
    waiting = sorted(skill, key=lambda name: (int(name[1:]) * 7) % 16)  # come to wait in a jumbled order
    games = tables(waiting, 4, 8, skill.get, no_meetings)
    assert [sorted(game, key=skill.get) for game in games] == [
        [f"b{k}" for k in range(8, 16)], [f"b{k}" for k in range(8)]
    ]


def test_a_table_reaches_a_few_places_down_the_ratings_to_avoid_a_rematch():
    skill = {f"b{k}": float(20 - k) for k in range(12)}  # b0 best
    recently = {frozenset(("b0", "b1")), frozenset(("b0", "b2"))}

    def met(a: str, b: str) -> int:
        return int(frozenset((a, b)) in recently)

    first, second, third = tables(list(skill), 4, 4, skill.get, met)
    assert first == ["b0", "b3", "b4", "b5"]  # b1 and b2 met b0 lately; the next three did not
    assert second == ["b1", "b2", "b6", "b7"]
    assert third == ["b8", "b9", "b10", "b11"]


def test_when_every_choice_is_a_rematch_the_fewest_meetings_win():
    met = {("b3", "b0"): 2, ("b4", "b0"): 1}
    games = tables(["b0", "b1", "b2", "b3", "b4"], 2, 2, lambda name: -int(name[1:]),
                   lambda a, b: met.get((a, b), 0) + 1, look_ahead=3)
    assert games[0] == ["b0", "b1"]  # every candidate met b0; b1 and b2 once, the first of them is taken


def test_standings_move_every_rating_of_a_game_and_count_wins_and_removals():
    standings = Standings()
    after = standings.game_over([LadderSeat("a", 10), LadderSeat("b", 10), LadderSeat("c", 3), LadderSeat("d", None)])
    by_name = {standing.name: standing for standing in after}
    assert [standing.name for standing in after] == ["a", "b", "c", "d"]
    assert by_name["a"].rating_mu == pytest.approx(by_name["b"].rating_mu)  # equal scores share first place
    assert min(by_name[name].rating_mu for name in "abc") > by_name["d"].rating_mu  # a removal is the last place
    assert all(standing.rating_sigma < 25 / 3 for standing in after)
    assert [(s.games, s.wins, s.removals) for s in after] == [(1, 1, 0), (1, 1, 0), (1, 0, 0), (1, 0, 1)]
    e, f, g = standings.game_over([LadderSeat("e", 9), LadderSeat("f", 4), LadderSeat("g", 7)])
    assert e.rating_mu > g.rating_mu > 25 > f.rating_mu
    assert standings.met("a", "d") == 1 and standings.met("a", "a") == 0 and standings.met("e", "a") == 0
    for _ in range(3):
        standings.game_over([LadderSeat("a", 1), LadderSeat("e", 2), LadderSeat("f", 3)])
    assert standings.met("a", "d") == 0  # it falls out of the last three games a remembers
    assert standings.met("a", "e") == 3


def test_standings_go_on_from_what_was_kept():
    kept = [Standing("old", 30.0, 2.0, 40, 12, 1)]
    standings = Standings(kept)
    assert standings.standing("old") == kept[0]
    assert standings.skill("old") == 30.0 and standings.skill("new") == 25.0
    [old, new] = standings.game_over([LadderSeat("old", 1), LadderSeat("new", 5)])
    assert (old.games, old.wins, old.removals) == (41, 12, 1)
    assert old.rating_mu < 30.0 and new.rating_mu > 25.0
    assert len(standings) == 2


def test_the_leaderboard_ranks_by_mu_minus_three_sigma_and_ties_share_a_rank():
    rows = ranked([Standing("sure", 25.0, 1.0, 9), Standing("lucky", 35.0, 8.0, 9), Standing("also", 25.0, 1.0, 9),
                   Standing("new", 25.0, 25 / 3, 9)])
    assert [(rank, standing.name) for rank, standing in rows] == [(1, "also"), (1, "sure"), (3, "lucky"), (4, "new")]
    assert rows[0][1].to_json(1) == {"name": "also", "rank": 1, "rating": 25.0, "rating_sigma": 1.0, "games": 9,
                                     "wins": 0, "removals": 0, "provisional": False}


def test_provisional_ratings_come_after_every_established_one_and_bots_removed_from_every_game_last():
    assert ESTABLISHED == 5
    rows = ranked([
        Standing("steady loser", 5.0, 6.0, 15, 0, 0),  # mu - 3 sigma = -13: the worst rating here
        Standing("sleeper", 21.0, 8.1, 1, 0, 1),  # removed in its only game: -3.3
        Standing("lucky", 32.0, 7.9, 4, 4, 0),  # 4 wins in 4 games: 8.3, the best rating here
        Standing("often removed", 20.0, 7.0, 9, 0, 5),  # 4 games played to the end: provisional
        Standing("cheater", 22.0, 7.5, 6, 0, 6),  # removed from all 6 games it sat in: -0.5
        Standing("regular", 26.0, 6.5, 12, 3, 1),  # 11 to the end: 6.5
    ])
    assert [(rank, standing.name, standing.provisional) for rank, standing in rows] == [
        (1, "regular", False), (2, "steady loser", False),
        (3, "lucky", True), (4, "often removed", True),
        (5, "cheater", True), (6, "sleeper", True),  # removed from every game: last, by their ratings
    ]
    assert [tier(games, removals) for games, removals in ((5, 0), (6, 1), (5, 1), (1, 0), (3, 3), (0, 0))] == [
        0, 0, 1, 1, 2, 2]
    assert [provisional(games, removals) for games, removals in ((5, 0), (4, 0), (7, 3))] == [False, True, True]


def test_a_bot_removed_from_its_only_game_never_ranks_above_an_honest_bot_of_many_games():
    """The issue's ladder: a sleeper and a cheater, one game each, were 18th and 19th, above a silly bot of 15."""
    standings = Standings()
    for game in range(15):  # silly always last, against two strong bots
        standings.game_over([LadderSeat("strong", 30), LadderSeat("also strong", 20), LadderSeat("silly", 1)])
    standings.game_over([LadderSeat("winner", 9), LadderSeat("sleeper", None), LadderSeat("cheater", None)])
    silly, sleeper = standings.standing("silly"), standings.standing("sleeper")
    assert sleeper.ordinal > silly.ordinal  # what mu - 3 sigma alone said
    order = [standing.name for _, standing in ranked(standings.standing(name) for name in standings.counts)]
    assert order.index("silly") < order.index("winner") < order.index("sleeper")
    assert set(order[-2:]) == {"cheater", "sleeper"}


def test_bots_that_all_play_every_round_play_equally_often():
    """A ladder of 23 bots in games of 3 to 5 for 60 rounds: everyone waiting plays, whatever the ratings."""
    standings = Standings()
    names = [f"b{k}" for k in range(23)]
    played: Counter[str] = Counter()
    for round in range(60):
        for game in tables(names, 3, 5, standings.skill, standings.met):
            standings.game_over([LadderSeat(name, (hash((name, round)) % 7)) for name in game])
            played.update(game)
    assert set(played.values()) == {60}
