"""The rules pages cannot drift from the engines: every worked example they show is run here.

``docs/rules.md`` (Evolution) and ``docs/fish-rules.md`` (Fish) show each example as
``$ echo '<input>' | evolution-harness [--game GAME] NAME`` followed by the answer;
``docs/check_examples.py`` finds them (and is what a reader runs). Here each one goes
through its game's harness code in-process.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from evolution.games.evolution import GAME as EVOLUTION
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.fish import GAME as FISH
from evolution.jsonwire.wire_errors import WireError
from tests.support.paths import REPO

GAMES = {"evolution": EVOLUTION, "fish": FISH}
PAGES = {"rules.md": ("evolution", {"xattack", "xfeed", "xstep", "xstep4", "xsilly"}, 30),
         "fish-rules.md": ("fish", {"xboard", "xstate", "xtree", "xstrategy", "xref"}, 15)}


def _checker():
    spec = importlib.util.spec_from_file_location("check_examples", REPO / "docs" / "check_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECKER = _checker()
EXAMPLES = {page: CHECKER.examples((REPO / "docs" / page).read_text(encoding="utf-8")) for page in PAGES}
ALL = [(page, example) for page, found in EXAMPLES.items() for example in found]


@pytest.mark.parametrize("page", PAGES)
def test_each_page_has_its_worked_examples_for_every_harness_of_its_game(page):
    game, harnesses, at_least = PAGES[page]
    assert len(EXAMPLES[page]) >= at_least
    assert {example.name for example in EXAMPLES[page]} == harnesses
    assert {example.game for example in EXAMPLES[page]} == {game}


@pytest.mark.parametrize("page, example", ALL, ids=[f"{page}:{example.line}" for page, example in ALL])
def test_each_worked_example_is_what_the_engine_answers(page, example):
    try:
        got = json.dumps(GAMES[example.game].harnesses()[example.name](example.input))
    except (WireError, RulesViolation):
        got = ""
    assert CHECKER.same(example.expected, got), f"docs/{page} line {example.line}: the engine answers {got or '(nothing)'}"


# -- the reasons docs/fish-rules.md quotes are the ones the referee records ----------------

FISH_PAGE = (REPO / "docs" / "fish-rules.md").read_text(encoding="utf-8")


def _removal_reason(state, method: str, answer) -> str:
    """What the referee records when the first player of ``state`` answers ``answer`` to ``method``."""
    from evolution.coroutines import run_locally
    from evolution.games.fish.rules.referee import FishReferee
    from evolution.games.fish.strategies.faulty import Answering
    from evolution.games.fish.strategies.greedy import GreedyPlayer

    referee = FishReferee([Answering(method, answer), GreedyPlayer()], state.board)
    referee.state = state
    run_locally(referee.place_penguins() if method == "setup" else referee.move_penguins())
    return referee.removals[0].reason


def _two_players(board: list, red: list, white: list):
    from evolution.games.fish.rules.board import Board, Position
    from evolution.games.fish.rules.state import Color, GameState, PlayerState

    return GameState(Board.from_rows(board), (PlayerState(Color.RED, 0, tuple(Position(*p) for p in red)),
                                              PlayerState(Color.WHITE, 0, tuple(Position(*p) for p in white))))


@pytest.mark.parametrize("answer", [[1, 1], [9, 0], [2, 3]])
def test_the_fish_page_quotes_the_reasons_of_illegal_placements(answer):
    board = [[1] * 4 for _ in range(6)]
    board[1][1] = 0
    reason = _removal_reason(_two_players(board, [], [[2, 3]]), "setup", answer)
    assert f"`{reason}`" in FISH_PAGE


@pytest.mark.parametrize("answer", [
    [[0, 1], [1, 1]], [[2, 1], [2, 1]], [[2, 1], [3, 1]], [[2, 1], [0, 1]], [[2, 1], [2, 2]], [[2, 1], [4, 2]],
])
def test_the_fish_page_quotes_the_reasons_of_illegal_moves(answer):
    board = [[1, 2, 3], [4, 1, 5], [2, 3, 1], [1, 0, 1], [5, 5, 5]]  # red on [2,1], white on [0,1], [3,1] a hole
    reason = _removal_reason(_two_players(board, [[2, 1]], [[0, 1]]), "take_turn", answer)
    assert f"`{reason}`" in FISH_PAGE
