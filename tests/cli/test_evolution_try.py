"""``evolution-try``: a bot's command tried against the house, as real processes on loopback.

The bot is ``evolution-client`` run as its author would run any program
(``{port}`` in its arguments); the tryout itself runs as a process too.
"""

from __future__ import annotations

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

CLIENT = (sys.executable, "-m", "evolution.cli.evolution_client", "--port", "{port}")


def tryout(*arguments: str, limit: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "evolution.cli.evolution_try", *arguments],
                          capture_output=True, text=True, timeout=limit, stdin=subprocess.DEVNULL)


def test_an_honest_bot_plays_its_games_on_one_connection_and_passes():
    run = tryout("--games", "3", "--seed", "5", "--", *CLIENT, "--name", "my bot", "--quiet")
    assert (run.returncode, run.stderr) == (0, ""), run.stdout
    lines = run.stdout.splitlines()
    assert lines[0].startswith("evolution-try: 3 games of Evolution for ")
    assert lines[0].endswith(" against house-1 (silly), house-2 (builder)")
    assert [line.split(":")[0] for line in lines[1:4]] == ["game #1", "game #2", "game #3"]
    assert "the bot signed up as 'my bot'" in lines
    rows = lines[lines.index("  game  seat  rank  score  the house") + 1:][:3]
    assert [row.split()[0] for row in rows] == ["#1", "#2", "#3"]
    assert all("house-1 (silly)" in row and "house-2 (builder)" in row for row in rows)
    assert lines[-1] == "the bot played 3 games and was never removed"


def test_a_bot_that_breaks_the_rules_fails_with_the_reason_and_its_transcript():
    run = tryout("--games", "2", "--players", "4", "--", *CLIENT, "--name", "cheat", "--strategy", "cheater")
    assert run.returncode == 1, run.stdout + run.stderr
    out = run.stdout
    assert "house-3 (silly)" in out.splitlines()[0]  # four players: the house's strategies in turn
    assert out.count("removed in turn") >= 4  # each game: its line as it ends, and its row in the table
    assert "the bot was removed from 2 of 2 games" in out
    transcript = out.split("the first removal: what the bot's seat received and sent\n")[1].split("\n\n")[0].splitlines()
    assert transcript[0].startswith("game #1 (evolution, finished): what the seat received and sent")
    assert transcript[1].endswith("'cheat'")
    kinds = [line.split()[2] for line in transcript[3:] if not line.lstrip()[0].isalpha() and len(line.split()) > 2]
    assert "received" in kinds and "sent" in kinds
    failed, removed = transcript[-2:]
    assert failed.split()[2] == "failed" and "invalid reply to choose" in failed
    assert removed.split()[1] == "removed" and removed.split("removed", 1)[1].strip().startswith("in turn")


def test_a_bot_that_never_signs_up_is_given_up_on_with_its_output():
    run = tryout("--patience", "2", "--", sys.executable, "-c",
                 "import sys, time; print('listening on nothing', flush=True); time.sleep(60)", limit=60)
    assert run.returncode == 1
    assert "the tryout stopped after 0 games: it did not sign up and begin a game within 2 s" in run.stdout
    assert "  | listening on nothing" in run.stdout


def test_what_cannot_be_tried_is_one_line():
    missing = tryout("--", "no-such-bot-program", "--port", "{port}")
    assert missing.returncode == 1
    assert "cannot run 'no-such-bot-program': no such program" in missing.stdout
    assert "Traceback" not in missing.stdout + missing.stderr
    nowhere = tryout("--db", "/no/such/folder/r.sqlite", "--", "bot")
    assert (nowhere.returncode, nowhere.stderr) == (
        1, "evolution-try: the results database /no/such/folder/r.sqlite cannot be created: the folder"
           " /no/such/folder does not exist\n")
    for arguments, message in [
        ((), "give the bot's command after --"),
        (("--house", "nobody", "--", "bot"), "--house: evolution has no strategy 'nobody'"),
        (("--timeout", "soon", "--", "bot"), "--timeout takes a number of seconds, not 'soon'"),
        (("--games", "0", "--", "bot"), "argument --games: 0 is not within 1..1000"),
    ]:
        run = tryout(*arguments)
        assert run.returncode == 2, (arguments, run.stderr)
        assert run.stderr.startswith("evolution-try: error: ") and message in run.stderr, run.stderr
        assert len(run.stderr.splitlines()) == 1


CRASHING_BOT = """
import json, socket, sys
connection = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
connection.sendall(b'"crasher"\\n')
for line in connection.makefile():
    message = json.loads(line)
    if isinstance(message, list) and len(message) == 2:
        raise RuntimeError("no idea what to choose")
"""


def test_a_bot_that_crashes_in_a_game_is_started_again_and_its_output_shown():
    run = tryout("--games", "2", "--", sys.executable, "-c", CRASHING_BOT, "{port}")
    assert run.returncode == 1, run.stdout + run.stderr
    assert run.stdout.count("removed in turn 1 (choose): disconnected") == 4  # two games: a line each, a row each
    assert "the bot was removed from 2 of 2 games" in run.stdout
    assert "  | RuntimeError: no idea what to choose" in run.stdout
