"""The demo's reading of the host's log (``evolution.cli.demo_log``): a quiet wait in a tournament says how far the
round under way is, counting that round's games only, as the host's own round lines do."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from evolution.cli.demo import Lines
from evolution.cli.demo_log import LogFollower

RUNNING = SimpleNamespace(process=SimpleNamespace(poll=lambda: None))  # a host that has not exited
STAMP = "2026-11-28T19:00:00+0000 [-] "
SIGN_UPS = [f"signed up 'Bot{k}' from 127.0.0.1:{40000 + k} ({k} waiting)" for k in range(1, 6)]
ROUND_1 = [
    "tournament 1 (knockout) begins with 5 players: 'Bot1', 'Bot2', 'Bot3', 'Bot4', 'Bot5'",
    "tournament 1 round 1 of about 2: 2 games, 5 players",
    "game 1 begins: 'Bot1', 'Bot2', 'Bot3' (seed 7)",
    "game 2 begins: 'Bot4', 'Bot5' (seed 8)",
    "game 1 finished after 30 turns: 1. 'Bot3' 38; 2. 'Bot2' 28; 3. 'Bot1' 7",
    "tournament 1 round 1 of about 2: 1 of 2 games done, 1 running",
]
ROUND_2 = [
    "game 2 finished after 21 turns: 1. 'Bot4' 40; 2. 'Bot5' 34",
    "tournament 1 round 1 of about 2: 2 of 2 games done, 0 running",
    "tournament 1 round 1: 2 games, 5 players; 2 go on, 3 knocked out",
    "tournament 1 round 2 of about 2: 1 game, 2 players",
    "game 3 begins: 'Bot3', 'Bot4' (seed 9)",
]


def follow(log: Path, *parts: list[str]) -> LogFollower:
    follower = LogFollower(log, RUNNING, Lines(), 5)
    for part in parts:
        with log.open("a") as file:
            file.writelines(STAMP + line + "\n" for line in part)
        follower.poll()
    return follower


def test_a_quiet_round_says_how_many_of_its_games_are_over(tmp_path, capsys):
    follower = follow(tmp_path / "host.log", SIGN_UPS, ROUND_1)
    assert follower.status(10) == "tournament 1 round 1 of about 2: still playing (1 of its 2 games over)"


def test_the_next_round_counts_its_own_games_not_the_tournament_s(tmp_path, capsys):
    follower = follow(tmp_path / "host.log", SIGN_UPS, ROUND_1, ROUND_2)
    assert follower.status(10) == "tournament 1 round 2 of about 2: still playing (0 of its 1 game over)"
    said = capsys.readouterr().out.splitlines()
    assert said[-1] == "tournament 1 round 2 of about 2: 1 game, 2 players"
