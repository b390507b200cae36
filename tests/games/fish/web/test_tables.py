"""Fish's picture in the web view, from games of house players: the table JSON, the last actions, the lines.

Every game here is played locally (``play_local_game``) with an observer that
draws the table and tells the lines after each step, as the live view and a
replay do; the expectations come from the referee's own record (the moves it
was given, the scores, the removals).
"""

from __future__ import annotations

import json
from typing import Any

from evolution.games.fish.rules.board import Board, Position, generate_board
from evolution.games.fish.rules.local import play_local_game
from evolution.games.fish.rules.referee import FishReferee
from evolution.games.fish.strategies.faulty import HolePlacer, IllegalMover, Raiser
from evolution.games.fish.strategies.greedy import GreedyPlayer
from evolution.games.fish.strategies.maximin import MaximinPlayer
from evolution.games.fish.web.tables import DRAWING, Narrator, table_json

NAMES = ["ann", "bo\u202e", "cy", "dee"]


class Recording:
    """Plays like ``inner`` and keeps what it answered, to compare the picture with."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.answers: list = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def setup(self, state):
        self.answers.append(("placed", self.inner.setup(state)))
        return self.answers[-1][1]

    def take_turn(self, state, actions):
        self.answers.append(("moved", self.inner.take_turn(state, actions)))
        return self.answers[-1][1]


def play(players: list, board: Board = generate_board(5, 6, seed=4)) -> tuple[list[tuple[str, Any, list]], Any]:
    """A whole game: (event, table, lines) after every step, and the result."""
    names = NAMES[: len(players)]
    narrator = DRAWING.narrator(names, keep=None)
    steps: list[tuple[str, Any, list]] = []

    def observe(event: str, referee: FishReferee) -> None:
        lines = narrator.step(event, referee, [])
        steps.append((event, DRAWING.table(referee, names), lines))

    result = play_local_game(players, board, observe)
    return steps, result


def texts(lines: list) -> list[tuple[int | None, str]]:
    return [(line["seat"], line["text"]) for line in lines]


# -- the table ---------------------------------------------------------------------------


def test_the_table_shows_the_board_the_players_by_colour_and_the_fish_left():
    board = generate_board(4, 5, seed=9)
    steps, result = play([GreedyPlayer(), MaximinPlayer(1), GreedyPlayer()], board)
    first_placement = next(table for event, table, _ in steps if event == "placed")
    assert (first_placement["rows"], first_placement["cols"], first_placement["board"]) == (4, 5, board.to_rows())
    assert first_placement["fish_left"] == sum(board.tiles) and first_placement["tiles_left"] == 20
    assert [(p["seat"], p["name"], p["color"]) for p in first_placement["players"]] == [
        (2, "bo\u202e", "white"), (3, "cy", "brown"), (1, "ann", "red")]  # turn order: the next to place first
    end = steps[-1][1]
    assert end["step"] == "end" and end["to_act"] is None
    assert {p["seat"]: p["score"] for p in end["players"]} == {r.id: r.score for r in result.ranking}
    assert all(len(p["penguins"]) == 3 and not p["can_move"] for p in end["players"])
    assert all(end["board"][r][c] > 0 for p in end["players"] for r, c in p["penguins"])  # never on a hole
    assert end["fish_left"] == sum(map(sum, end["board"]))
    assert end["tiles_left"] == sum(fish > 0 for row in end["board"] for fish in row)


def test_the_last_actions_are_each_players_latest_placement_or_move_in_turn_order():
    players = [Recording(GreedyPlayer()), Recording(MaximinPlayer(1)), Recording(GreedyPlayer())]
    steps, _ = play(players)
    answers = {seat: iter(player.answers) for seat, player in enumerate(players, 1)}
    acted: dict[str, list[int]] = {"placed": [], "moved": []}  # the seats that acted, in order, per phase
    for event, table, _ in steps:
        seat = table["players"][-1]["seat"]  # the actor goes last in the turn order
        if event == "skipped":
            acted["moved"].append(seat)
        if event not in ("placed", "moved"):
            continue
        kind, answer = next(answers[seat])
        assert kind == event
        acted[event].append(seat)
        latest = table["last"][-1]
        assert (latest["seat"], latest["kind"]) == (seat, event)
        if kind == "placed":
            assert latest["from"] is None and latest["to"] == list(answer)
        else:
            assert [latest["from"], latest["to"]] == [list(answer.source), list(answer.target)]
        recent = acted[event][-3:]
        assert [action["seat"] for action in table["last"]] == recent  # one per player, oldest first
    assert all(next(rest, None) is None for rest in answers.values())  # every answer was shown
    assert acted["placed"] and acted["moved"]


def test_a_skip_shows_in_the_last_actions_and_the_next_mover_is_the_next_that_can_move():
    steps, _ = play([GreedyPlayer(), GreedyPlayer()], generate_board(4, 4, seed=30))  # 8 skips
    skips = [table for event, table, _ in steps if event == "skipped"]
    assert skips, "no player was ever skipped on this board"
    for table in skips:
        skipped = table["last"][-1]
        assert skipped["kind"] == "skipped" and skipped["from"] is None and skipped["to"] is None
        movers = [p["seat"] for p in table["players"] if p["can_move"]]
        assert table["to_act"] == (movers[0] if movers else None)


def test_a_removed_player_leaves_the_board_and_is_listed_with_its_reason():
    steps, _ = play([GreedyPlayer(), IllegalMover(), GreedyPlayer()])
    event, table, lines = next(step for step in steps if step[1]["removed"])
    assert event == "moved"
    assert [p["seat"] for p in table["players"]] == [3, 1]  # white is gone, the turn passes to brown
    [removed] = table["removed"]
    assert (removed["seat"], removed["name"], removed["step"]) == (2, "bo\u202e", "take-turn")
    assert removed["reason"].startswith("illegal move [[")
    assert (2, f"removed: {removed['reason']}") in texts(lines)
    assert table["last"] == []  # the history restarts when a player is removed


# -- the lines -----------------------------------------------------------------------------


def test_the_lines_tell_the_placements_the_moves_with_their_fish_and_the_markers():
    board = generate_board(5, 6, seed=4)
    steps, result = play([GreedyPlayer(), GreedyPlayer(), GreedyPlayer()], board)
    said = [(event, text) for event, _, lines in steps for _, text in texts(lines)]
    assert said[0] == ("placed", "Placing penguins: 3 penguins each")
    first = next(text for event, text in said if text.startswith("placed"))
    row, col = (int(n) for n in first.split("[")[1].split("]")[0].split(", "))
    assert first == f"placed a penguin on [{row}, {col}] ({board.fish_at(Position(row, col))} fish)"
    assert ("moved", "Every penguin is placed: the moves begin") in said
    assert said[-1] == ("end", "No penguin can move: the game is over")
    moves = [text for _, text in said if text.startswith("moved")]
    fish = sum(int(text.split("took ")[1].split(" ")[0]) for text in moves)
    assert fish == sum(r.score for r in result.ranking)  # every fish caught is told once
    assert len(moves) == result.turns - sum(1 for event, _, _ in steps if event == "skipped")


def test_lines_say_who_acted_by_seat_and_a_skip_or_removal_in_words():
    steps, _ = play([HolePlacer(), GreedyPlayer(), Raiser("take_turn")])  # a board without holes: it places off it
    lines = [line for _, _, said in steps for line in said]
    assert (1, "removed: illegal placement [5, 0]: [5, 0] is not on the board") in texts(lines)
    removed = [line for line in lines if line["text"].startswith("removed: ")]
    assert [line["seat"] for line in removed] == [1, 3]
    assert removed[0]["step"] == "setup" and removed[1]["step"] == "take-turn"
    assert "take-turn raised" in removed[1]["text"]
    assert all(line["seat"] in (None, 1, 2, 3) for line in lines)


def test_a_narrator_keeps_its_last_lines():
    narrator = Narrator(NAMES[:2], keep=5)
    told: list = []

    def observe(event: str, referee: FishReferee) -> None:
        told.append(narrator.step(event, referee, []))

    play_local_game([GreedyPlayer(), GreedyPlayer()], generate_board(3, 4, seed=1), observe)
    assert list(narrator.lines) == [line for lines in told for line in lines][-5:]


def test_a_narrator_that_first_sees_a_game_after_its_moves_began_says_so_and_never_calls_a_move_a_placement():
    """The live view follows a game from its first picture, which may come after the moves began."""
    board = generate_board(4, 5, seed=2)
    whole = Narrator(NAMES[:3], keep=None)
    late = Narrator(NAMES[:3], keep=None)
    told: list = []

    def observe(event: str, referee: FishReferee) -> None:
        said = whole.step(event, referee, [])
        if referee.turn >= 2:  # a picture first asked for after two moves
            told.append((said, late.step(event, referee, [])))

    play_local_game([GreedyPlayer(), GreedyPlayer(), GreedyPlayer()], board, observe)
    first, *rest = told
    assert texts(first[1]) == [(None, "Followed from here, after the moves began: the replay tells the whole game")]
    assert [late for _, late in rest] == [whole for whole, _ in rest]  # from there, the same lines as from the start
    assert any(text.startswith("moved") for said, _ in rest for _, text in texts(said))


def test_the_table_is_json_of_plain_values_with_the_documented_fields():
    tables: list = []

    def observe(event: str, referee: FishReferee) -> None:
        tables.append(table_json(referee, NAMES[:2]))

    play_local_game([GreedyPlayer(), GreedyPlayer()], generate_board(3, 4, seed=2), observe)
    for table in tables:
        assert json.loads(json.dumps(table)) == table
        assert set(table) == {"turn", "step", "rows", "cols", "board", "fish_left", "tiles_left", "to_act", "players",
                              "last", "removed"}
        for player in table["players"]:
            assert set(player) == {"seat", "name", "color", "score", "penguins", "can_move"}


def test_every_field_of_the_table_is_documented_in_the_module_and_the_readme():
    from evolution.games.fish.web import tables
    from tests.support.paths import REPO

    section = (REPO / "docs" / "web-view.md").read_text(encoding="utf-8")  # the web view's reference
    steps, _ = play([GreedyPlayer(), IllegalMover()], generate_board(3, 4, seed=2))
    table = next(table for _, table, _ in steps if table["removed"] and table["players"])
    fields = {*table, *table["players"][0], *table["removed"][0]}
    fields |= {key for _, t, _ in steps for action in t["last"] for key in action}
    for field in fields:
        assert f'"{field}"' in tables.__doc__, f"{field} is not in tables.py's docstring"
        assert f'"{field}"' in section, f"{field} is not in docs/web-view.md"
