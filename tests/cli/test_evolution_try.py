"""``evolution-try``: a bot's command tried against the house, as real processes on loopback.

The bot is ``evolution-client`` run as its author would run any program
(``{port}`` in its arguments); the tryout itself runs as a process too: for
every game and dialect, as a gauntlet, and stopped by SIGINT (as a terminal
sends it, to the whole process group) and by SIGTERM mid-run, after which no
process it started is left (``tests.support.process_tree``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from evolution.games import GAME_NAMES, game
from tests.examples.test_java import EXAMPLE, JAVA, JAVAC, MISSING
from tests.support.process_tree import descendants, still_there

pytestmark = pytest.mark.slow

CLIENT = (sys.executable, "-m", "evolution.cli.evolution_client", "--port", "{port}")
TRY = (sys.executable, "-m", "evolution.cli.evolution_try")


def tryout(*arguments: str, limit: float = 120) -> subprocess.CompletedProcess:
    """The tryout, run to its end; one that outlives ``limit`` is killed with its process group, and fails."""
    process = subprocess.Popen([*TRY, *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        out, err = process.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def table_rows(lines: list[str]) -> list[str]:
    start = lines.index("  game  seat  rank  score  the house") + 1
    return [line for line in lines[start:] if line.startswith("  #")]


def test_an_honest_bot_plays_its_games_on_one_connection_in_each_seat_and_passes():
    run = tryout("--games", "3", "--seed", "5", "--", *CLIENT, "--name", "my bot", "--quiet")
    assert (run.returncode, run.stderr) == (0, ""), run.stdout
    lines = run.stdout.splitlines()
    assert lines[0].startswith("evolution-try: 3 games of Evolution for ")
    assert lines[0].endswith(" against house-1 (silly), house-2 (builder)")
    assert [line.split(":")[0] for line in lines[1:4]] == ["game #1 (seat 1)", "game #2 (seat 2)", "game #3 (seat 3)"]
    assert "the bot signed up as 'my bot'" in lines
    rows = table_rows(lines)
    assert [row.split()[:2] for row in rows] == [["#1", "1"], ["#2", "2"], ["#3", "3"]]
    assert all("house-1 (silly)" in row and "house-2 (builder)" in row for row in rows)
    assert lines[-1] == "the bot played 3 games and was never removed"


GAMES_AND_DIALECTS = [(name, dialect) for name in GAME_NAMES for dialect in game(name).dialects]


@pytest.mark.parametrize("name, dialect", GAMES_AND_DIALECTS, ids=[f"{n}-{d}" for n, d in GAMES_AND_DIALECTS])
def test_every_game_and_dialect_the_host_serves_can_be_tried(name, dialect):
    # The house bots' names are the game's (Fish's course protocol takes 1 to 12 letters); a silent dialect
    # names every connection after its address, and the bot is still told apart from the house.
    chosen = game(name)
    run = tryout("--game", name, "--dialect", dialect, "--games", "2", "--patience", "60", "--", *CLIENT,
                 "--game", name, "--dialect", dialect, "--name", "mybot", "--quiet", limit=180)
    assert (run.returncode, run.stderr) == (0, ""), run.stdout
    lines = run.stdout.splitlines()
    house = [chosen.house_name(k, strategy) for k, strategy in enumerate(chosen.house, start=1)]
    assert all(bot in lines[0] for bot in house), lines[0]
    assert "Traceback" not in run.stdout
    rows = table_rows(lines)
    assert [row.split()[1] for row in rows] == ["1", "2"]
    assert all(all(bot in row for bot in house) for row in rows)
    assert lines[-1] == "the bot played 2 games and was never removed"


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


def test_an_illegal_move_is_the_one_reason_in_the_transcript_not_the_host_s_hang_up_after_it():
    run = tryout("--game", "fish", "--games", "1", "--", *CLIENT, "--game", "fish", "--strategy", "cheater")
    assert run.returncode == 1, run.stdout + run.stderr
    transcript = run.stdout.split("the first removal: what the bot's seat received and sent\n")[1].split("\n\n")[0]
    lines = transcript.splitlines()
    assert [line for line in lines[3:] if line.split()[2] == "failed"] == [], transcript  # the referee's removal
    assert lines[-1].split()[:2] == ["1", "removed"] and "illegal move" in lines[-1], transcript


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
    assert run.stdout.count("removed in turn 1 (choose): disconnected before replying to choose") == 4  # a line, a row
    assert "the bot was removed from 2 of 2 games" in run.stdout
    assert "  | RuntimeError: no idea what to choose" in run.stdout


def test_a_gauntlet_plays_each_house_strategy_alone_in_every_seat_and_tallies_by_opponent():
    run = tryout("--game", "fish", "--gauntlet", "--games", "1", "--house", "greedy,cheater", "--", *CLIENT,
                 "--game", "fish", "--name", "mybot", "--quiet")
    assert (run.returncode, run.stderr) == (0, ""), run.stdout
    lines = run.stdout.splitlines()
    assert lines[0].startswith("evolution-try: a gauntlet of 4 games of Fish for ")
    assert lines[0].endswith(" against GreedyOne, CheaterTwo")
    rows = table_rows(lines)  # two players (Fish's fewest): against each strategy, in seat 1 then seat 2
    assert [(row.split()[1], row.split()[-2]) for row in rows] == [
        ("1", "GreedyOne"), ("2", "GreedyOne"), ("1", "CheaterTwo"), ("2", "CheaterTwo")]
    table = lines[lines.index("  opponent  games  wins  mean place  removals") + 1:][:2]
    assert [row.split()[:2] for row in table] == [["greedy", "2"], ["cheater", "2"]]
    assert table[1].split()[2:] == ["2", "1.00", "0"]  # the cheater is removed every game: the bot wins alone


def test_a_gauntlet_table_lists_each_removal_reason_with_its_count():
    run = tryout("--gauntlet", "--", *CLIENT, "--name", "cheat", "--strategy", "cheater")
    assert run.returncode == 1, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    table = lines[lines.index("  opponent  games  wins  mean place  removals") + 1:]
    builder = next(k for k, line in enumerate(table) if line.split()[0] == "builder")
    assert table[0].split() == ["silly", "6", "0", "-", "6"]  # 2 games in each of 3 seats (K = 2 by default)
    assert table[builder].split() == ["builder", "6", "0", "-", "6"]
    reasons = [line.split(maxsplit=2) for line in table[1:builder]]  # each exact reason, and how often
    assert sum(int(count) for count, x, reason in reasons) == 6
    assert all(x == "x" and reason.startswith("invalid reply to choose: ") for count, x, reason in reasons)
    assert "the bot was removed from 12 of 12 games" in lines


STUBBORN_BOT = """
import signal, subprocess, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)  # it does not end when asked, nor does the sleep it starts
subprocess.Popen(["sleep", "600"])
subprocess.run([sys.executable, "-m", "evolution.cli.evolution_client", *sys.argv[1:]])
time.sleep(600)
"""


def stopped_mid_run(number: int, whole_group: bool, bot: tuple[str, ...]) -> tuple[subprocess.Popen, float, str, list]:
    """Start a long tryout, send ``number`` once its first game is over; (process, seconds to end, output, what it
    had started)."""
    process = subprocess.Popen([*TRY, "--games", "100", "--", *bot], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, start_new_session=True, stdin=subprocess.DEVNULL)
    try:
        lines = []
        for line in process.stdout:
            lines.append(line)
            if line.startswith("game #1 "):
                break
        started = descendants(process.pid)
        assert any("evolution_client" in child.command for child in started), lines
        sent = time.monotonic()
        if whole_group:
            os.killpg(process.pid, number)
        else:
            process.send_signal(number)
        rest = process.stdout.read()
        process.wait(timeout=60)
        return process, time.monotonic() - sent, "".join(lines) + rest, started
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        process.stdout.close()


BOUND = 20.0  # seconds: the command's grace after SIGTERM (3) and the workers' (3), on a busy machine


def test_ctrl_c_stops_the_tryout_within_seconds_and_nothing_it_started_is_left():
    process, took, out, started = stopped_mid_run(signal.SIGINT, True, (*CLIENT, "--think", "0.05", "--name", "b"))
    assert took < BOUND, out
    assert process.returncode == 130, out
    assert "evolution-try: SIGINT (Ctrl-C): stopping the bot's command, the house and the host" in out
    assert "the tryout stopped after 1 game: it was stopped by SIGINT (Ctrl-C)" in out
    assert "Traceback" not in out
    assert [child for child in started if still_there(child)] == []


def test_sigterm_stops_the_tryout_and_kills_a_bot_that_ignores_it_with_what_it_started():
    bot = (sys.executable, "-c", STUBBORN_BOT, "--port", "{port}", "--think", "0.05", "--name", "b")
    process, took, out, started = stopped_mid_run(signal.SIGTERM, False, bot)
    assert took < BOUND, out
    assert process.returncode == 143, out
    assert "the tryout stopped after 1 game: it was stopped by SIGTERM" in out
    assert any(child.command == "sleep 600" for child in started)
    assert [child for child in started if still_there(child)] == []
    assert "the bot's last lines of output" in out  # its client, which ends on SIGTERM, said so



BAD_NAME_BOT = """
import socket, sys, time
connection = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
connection.sendall(b'"my-bot"\\n')
time.sleep(60)
"""


def test_a_sign_up_the_host_refuses_ends_the_tryout_at_once_with_the_reason():
    run = tryout("--game", "fish", "--", sys.executable, "-c", BAD_NAME_BOT, "{port}", limit=60)
    assert run.returncode == 1, run.stdout + run.stderr
    summary = run.stdout.splitlines()[-1]
    assert summary.startswith("the tryout stopped after 0 games: the host refused the bot's sign-up: name: "
                              '"my-bot" holds more than ASCII letters'), summary


@pytest.mark.skipif(MISSING is not None, reason=MISSING or "")
def test_the_java_example_passes_a_fish_gauntlet(tmp_path):
    sources = sorted(str(path) for path in (EXAMPLE / "src" / "fish").glob("*.java"))
    subprocess.run([JAVAC, "-d", str(tmp_path), *sources], check=True, capture_output=True, timeout=180)
    run = tryout("--game", "fish", "--gauntlet", "--games", "1", "--", JAVA, "-cp", str(tmp_path), "fish.Bot",
                 "127.0.0.1", "{port}", "javabot", limit=180)
    assert (run.returncode, run.stderr) == (0, ""), run.stdout
    assert run.stdout.splitlines()[-1] == "the bot played 4 games and was never removed"
