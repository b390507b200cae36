"""``evolution-local``, run as a real command (``python -m evolution.cli.evolution_local``).

What a user of the command sees: a game of N silly players that finishes, the
same output for the same seed, the ``--json`` shape documented in the module,
``--deck sorted`` (the course's unshuffled deck), ``--games K`` (seeds S, S+1,
...), and one line on standard error with exit status 2 for a bad argument.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.local import play_local_game
from evolution.games.evolution.rules.silly import SillyPlayer


def local(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evolution.cli.evolution_local", *args], capture_output=True, text=True, timeout=60
    )


def games(*args: str) -> list[dict]:
    run = local(*args, "--json")
    assert run.returncode == 0 and run.stderr == ""
    return [json.loads(line) for line in run.stdout.splitlines()]


def test_a_game_of_8_players_finishes_and_the_same_seed_gives_the_same_output():
    first, again = local("8", "--seed", "1"), local("8", "--seed", "1")
    assert first.returncode == 0 and first.stderr == ""
    lines = first.stdout.splitlines()
    assert lines[0].startswith("game 1 of 1 (seed 1, ")
    assert len(lines) == 2 + 8 + 1  # title, header, one row per player, what "=" means (seed 1 ends in ties)
    assert lines[-1].startswith("  = equal scores share a place, as tournament points and ratings count them;"
                                " the game's ranks split them by the reverse of the final turn order")
    assert again.stdout == first.stdout


def test_json_output_has_one_entry_per_seat():
    [game] = games("5", "--seed", "7")
    assert set(game) == {"game", "seed", "deck", "results"}
    assert (game["game"], game["seed"], game["deck"]) == ("evolution", 7, "shuffled")
    rows = game["results"]
    assert [row["seat"] for row in rows] == [1, 2, 3, 4, 5]
    assert [row["name"] for row in rows] == [f"silly-{seat}" for seat in range(1, 6)]
    for row in rows:
        assert {"seat", "name", "score", "rank", "place"} <= set(row) <= {"seat", "name", "score", "rank", "place",
                                                                          "removed"}
        assert row["place"] == (None if row["score"] is None else
                                1 + sum(other["score"] > row["score"] for other in rows if other["score"] is not None))
    ranked = sorted((row for row in rows if row["rank"] is not None), key=lambda row: row["rank"])
    assert [row["rank"] for row in ranked] == list(range(1, len(ranked) + 1))
    assert [row["score"] for row in ranked] == sorted((row["score"] for row in ranked), reverse=True)
    assert all(row["score"] is None and row["removed"] for row in rows if row["rank"] is None)


def test_the_sorted_deck_plays_the_courses_game():
    [game] = games("3", "--deck", "sorted")
    assert (game["seed"], game["deck"]) == (None, "sorted")
    expected = play_local_game([SillyPlayer() for _ in range(3)], Deck.sorted())
    assert {row["seat"]: (row["rank"], row["score"]) for row in game["results"]} == {
        entry.id: (entry.rank, entry.score) for entry in expected.ranking
    }


def test_several_games_use_consecutive_seeds():
    played = games("4", "--seed", "10", "--games", "3")
    assert [game["seed"] for game in played] == [10, 11, 12]
    assert played[1] == games("4", "--seed", "11")[0]


def test_without_a_seed_the_printed_seed_replays_the_game():
    [game] = games("3")
    assert games("3", "--seed", str(game["seed"])) == [game]


@pytest.mark.parametrize(
    "args",
    [["9"], ["2"], ["x"], [], ["3", "--seed", "1", "--deck", "sorted"], ["3", "--seed", "x"], ["3", "--games", "0"]],
    ids=["9 players", "2 players", "not a number", "no N", "seed and sorted deck", "seed not a number", "0 games"],
)
def test_a_bad_argument_prints_one_line_and_exits_2(args):
    run = local(*args)
    assert run.returncode == 2
    assert run.stdout == ""
    assert len(run.stderr.splitlines()) == 1
    assert run.stderr.startswith("evolution-local: error: ")
