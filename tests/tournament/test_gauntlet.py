"""A tryout's plan (the bot's seat goes round; a gauntlet meets each strategy alone in every seat) and the
gauntlet's tallies by opponent."""

from __future__ import annotations

from evolution.tournament.gauntlet import BOT, House, Result, gauntlet_plan, tallies, tryout_plan


def test_a_tryout_seats_the_house_in_turn_and_moves_the_bot_round_the_table():
    plan = tryout_plan(3, ("silly", "builder"), 4)
    silly, builder = House(1, "silly"), House(2, "builder")
    assert plan.house == (silly, builder)
    assert [table.seats for table in plan.tables] == [
        (BOT, silly, builder), (silly, BOT, builder), (silly, builder, BOT), (BOT, silly, builder)]
    assert [table.bot_seat for table in plan.tables] == [1, 2, 3, 1]
    assert {table.opponent for table in plan.tables} == {"silly, builder"}


def test_more_seats_than_strategies_take_them_in_turn():
    plan = tryout_plan(5, ("silly", "builder"), 1)
    assert [bot.strategy for bot in plan.house] == ["silly", "builder", "silly", "builder"]


def test_a_gauntlet_meets_each_strategy_alone_in_every_seat_k_games_each():
    plan = gauntlet_plan(3, ("silly", "builder", "silly"), 2)  # a strategy named twice is met once
    assert plan.house == (House(1, "silly"), House(2, "silly"), House(3, "builder"), House(4, "builder"))
    assert [(table.opponent, table.bot_seat) for table in plan.tables] == [
        ("silly", 1), ("silly", 1), ("silly", 2), ("silly", 2), ("silly", 3), ("silly", 3),
        ("builder", 1), ("builder", 1), ("builder", 2), ("builder", 2), ("builder", 3), ("builder", 3)]
    for table in plan.tables:
        assert {bot.strategy for bot in table.seats if bot is not BOT} == {table.opponent}
        assert len(set(table.seats)) == 3


def test_the_tallies_count_wins_and_removals_and_average_the_places_finished():
    results = [Result("greedy", 1), Result("greedy", 2), Result("greedy", None, "no reply to setup within 10 s"),
               Result("maximin", None, "no reply to setup within 10 s"), Result("maximin", None, "disconnected"),
               Result("maximin", None, "no reply to setup within 10 s"), Result("greedy", 1)]
    greedy, maximin = tallies(results)
    assert (greedy.opponent, greedy.games, greedy.wins, greedy.mean_place, greedy.removed) == ("greedy", 4, 2, 4 / 3, 1)
    assert (maximin.games, maximin.wins, maximin.mean_place) == (3, 0, None)
    assert maximin.removals == (("no reply to setup within 10 s", 2), ("disconnected", 1))
