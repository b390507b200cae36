"""What the make targets print while they work: no long silence, no stray characters, no warnings.

- ``make test``/``make demo`` from nothing: a line says what is installed and that it takes a while,
  before pip's quiet minute (the Makefile, copied, with a stand-in Python whose pip does nothing);
- the JavaScript kit's ``npm ci`` on a terminal draws no spinner (a pseudo-terminal; needs npm);
- the TLS tests end with no warning (pytest on them, as ``make test`` runs them);
- ``make demo``: a line as the bot processes start, the count of bots signed up while they sign up, the
  round and game lines; never silent for long: every wait says where it stands after ``QUIET`` seconds
  without a line (``Lines``, on a clock of the test's);
- ``make demo-ladder``: the same first lines, then the games as they are played, then the leaders by what
  ranks them;
- the demos leave nothing in the system's temporary folder (``TMPDIR``, the test's own), on Ctrl-C too,
  unless ``--keep`` or their host died (its log is kept), and their last line says where their folder was;
- ``make soak``: a progress line every few seconds (here, every half second of a small run).
"""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evolution.cli.demo import QUIET, Lines, started
from tests.support.paths import REPO
from tests.support.process_tree import descendants, still_there

pytestmark = pytest.mark.slow

FAKE_PYTHON = """#!/bin/sh
# python -m venv DIR: a virtualenv whose pip does nothing
mkdir -p "$3/bin"
printf '#!/bin/sh\\nexit 0\\n' > "$3/bin/pip"
chmod +x "$3/bin/pip"
"""


def test_the_first_make_says_what_it_installs_and_that_it_takes_a_while(tmp_path):
    shutil.copy(REPO / "Makefile", tmp_path)
    (tmp_path / "setup.cfg").touch()
    (tmp_path / "pyproject.toml").touch()
    python = tmp_path / "python"
    python.write_text(FAKE_PYTHON)
    python.chmod(0o755)
    result = subprocess.run(["make", "--no-print-directory", ".venv/.installed", f"PYTHON={python}"], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == ("Installing the host and its test tools (Twisted, jsonschema, openskill, pytest, Playwright...) "
                        "into .venv/; pip is quiet and this takes a minute or so the first time")
    assert lines[2].startswith(".venv/bin/pip install --quiet")


def on_a_terminal(command: list[str], cwd: Path, limit: float = 120.0) -> tuple[int, bytes]:
    """Run ``command`` with a pseudo-terminal as its standard input, output and error; (status, what it wrote)."""
    main, child = pty.openpty()
    process = subprocess.Popen(command, cwd=cwd, stdin=child, stdout=child, stderr=child)
    os.close(child)
    written, deadline = b"", time.monotonic() + limit
    try:
        while time.monotonic() < deadline:
            if select.select([main], [], [], 0.5)[0]:
                try:
                    data = os.read(main, 65536)
                except OSError:  # the terminal's other side is closed: the command is done
                    break
                if not data:
                    break
                written += data
            elif process.poll() is not None:
                break
    finally:
        os.close(main)
    return process.wait(timeout=limit), written


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_npm_draws_no_spinner_on_a_terminal(tmp_path):
    shutil.copy(REPO / "Makefile", tmp_path)
    kit = tmp_path / "examples" / "javascript"
    kit.mkdir(parents=True)
    for name in ("package.json", "package-lock.json"):
        shutil.copy(REPO / "examples" / "javascript" / name, kit)
    status, written = on_a_terminal(["make", "--no-print-directory", "examples/javascript/node_modules/.installed"],
                                    tmp_path)
    text = written.decode(errors="replace")
    assert status == 0, text
    assert (kit / "node_modules" / ".installed").is_file()
    assert re.findall("[\u2800-\u28ff]|\x1b\\[", text) == [], repr(text)


def test_the_tls_tests_end_without_warnings():
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/net/test_tls.py"],
                            cwd=REPO, capture_output=True, text=True, timeout=120)
    last = result.stdout.strip().splitlines()[-1]
    assert result.returncode == 0, result.stdout
    assert "warning" not in last, result.stdout


STARTING = "starting 5 bot processes (evolution-client, one Python process each); they sign up as they start"
STATUS = re.compile(r"sign-up: [0-5] of 5 bots signed up(; the others' processes are still starting)?")


def in_temp(folder: Path) -> dict[str, str]:
    """An environment whose temporary folder (``TMPDIR``) is ``folder``."""
    return {**os.environ, "TMPDIR": str(folder)}


def removed(lines: list[str], temp: Path) -> None:
    """The demo's first line named its folder in ``temp``, its last says it removed it, and ``temp`` is empty."""
    folder = re.search(r"results in (.*)/results\.sqlite,", lines[0]).group(1)
    assert Path(folder).parent == temp, lines[0]
    assert lines[-1] == f"removed the demo's folder {folder} (results, journal, log; --keep keeps it)", lines
    assert list(temp.iterdir()) == []


def test_the_demo_says_the_bots_start_and_counts_them_as_they_sign_up(tmp_path):
    result = subprocess.run([sys.executable, "-m", "evolution.cli.demo", "--bots", "5", "--think", "0", "--linger", "0"],
                            cwd=REPO, capture_output=True, text=True, timeout=180, env=in_temp(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    removed(lines, tmp_path)
    lines.pop()
    assert lines[3] == STARTING, lines
    counts = [k for k, line in enumerate(lines) if STATUS.fullmatch(line)]
    first_round = next(k for k, line in enumerate(lines) if line.startswith("tournament 1 round 1 "))
    assert counts and counts[0] == 4 and counts[-1] < first_round, lines
    assert "sign-up: 5 of 5 bots signed up" in lines[counts[0]:first_round]
    games_done = [line for line in lines if re.fullmatch(r"tournament 1 round 1 of about \d+: \d of \d games? done.*",
                                                         line)]
    assert games_done, lines  # a line as each game ends, not only as each round does
    assert lines[-1].startswith("a ladder, where bots come and go and play game after game: make demo-ladder")


LEADERS = re.compile(r"ladder: \d+ games? so far; leaders by mu - 3 sigma \(\? provisional, ranked after\): "
                     r"(\d+\. \S+ (-?\d+\.\d)\??)(, \d+\. \S+ -?\d+\.\d\??)*")


def test_the_ladder_demo_counts_the_bots_then_the_games_then_prints_the_leaders_and_the_ladder(tmp_path):
    result = subprocess.run([sys.executable, "-m", "evolution.cli.demo", "--ladder", "--bots", "5", "--seconds", "10"],
                            cwd=REPO, capture_output=True, text=True, timeout=180, env=in_temp(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    removed(lines, tmp_path)
    lines.pop()
    assert lines[3] == STARTING and STATUS.fullmatch(lines[4]), lines  # not "0 games so far; leaders -"
    progress = lines[4:lines.index("")]
    leaders = [k for k, line in enumerate(progress) if LEADERS.fullmatch(line)]
    assert leaders and all(STATUS.fullmatch(line) or line.startswith("ladder: ") for line in progress[:leaders[0]])
    assert progress[-1] == "the demo stops the host: the games being played are stored as aborted"
    table = lines[lines.index("") + 1:]
    assert table[0] == "  ladder of evolution: 5 bots, ranked by the rating mu - 3 sigma; equal values share a rank"
    assert len(table) == 3 + 5
    for k in leaders:  # the order is that of the values printed (established ratings first, then provisional ones)
        shown = re.findall(r"\d+\. \S+ (-?\d+\.\d)(\??)", progress[k].split(": ", 1)[1])
        order = [(mark == "?", -float(value)) for value, mark in shown]
        assert order == sorted(order), progress[k]


def test_a_demo_stopped_with_ctrl_c_removes_its_folder_and_says_so_and_leaves_no_process(tmp_path):
    demo = subprocess.Popen([sys.executable, "-m", "evolution.cli.demo", "--bots", "5"], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=in_temp(tmp_path),
                            start_new_session=True)
    try:
        lines = []
        for line in demo.stdout:  # until its host listens: then its folder holds the store, the journal, the log
            lines.append(line.rstrip("\n"))
            if line.startswith("web view: "):
                break
        started = descendants(demo.pid)
        assert any("twistd" in child.command for child in started), lines
        os.killpg(demo.pid, signal.SIGINT)  # as a terminal's Ctrl-C: to the demo, its host and its bots
        lines += demo.communicate(timeout=60)[0].splitlines()
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
    assert demo.returncode == 1 and "demo: stopped" in lines, lines
    removed(lines, tmp_path)
    assert [child for child in started if still_there(child)] == []


def test_a_demo_whose_host_dies_keeps_its_folder_for_the_host_s_log(tmp_path):
    demo = subprocess.Popen([sys.executable, "-m", "evolution.cli.demo", "--bots", "5"], cwd=REPO, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=in_temp(tmp_path),
                            start_new_session=True)
    started, left = [], []
    try:
        lines = []
        for line in demo.stdout:
            lines.append(line.rstrip("\n"))
            if line.startswith("web view: "):
                break
        started = descendants(demo.pid)
        [host] = [child for child in started if "--logfile=" in child.command]  # twistd's
        os.kill(host.pid, signal.SIGKILL)
        lines += demo.communicate(timeout=60)[0].splitlines()
        deadline = time.monotonic() + 60  # its bots give up on a host that is gone (their retries, 2 s apart)
        while any(still_there(child) for child in started) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [child for child in started if still_there(child)]
    finally:
        for child in started:
            if still_there(child):
                os.kill(child.pid, signal.SIGKILL)
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
    assert left == []
    [folder] = tmp_path.iterdir()
    assert demo.returncode == 1 and any(line.startswith("demo: the host stopped with status") for line in lines)
    assert lines[-1].startswith(f"the demo's folder is kept: {folder} "), lines
    assert (folder / "host.log").is_file()


def test_a_kept_demo_folder_stays_and_the_last_line_says_where(tmp_path):
    # Fish has no single-games demo: it ends at once, with its folder made
    result = subprocess.run([sys.executable, "-m", "evolution.cli.demo", "--game", "fish", "--games", "1", "--keep"],
                            cwd=REPO, capture_output=True, text=True, timeout=60, env=in_temp(tmp_path))
    assert result.returncode == 1 and result.stderr.startswith("demo: single games are Evolution's demo"), result
    [folder] = tmp_path.iterdir()
    assert result.stdout.splitlines()[-1] == (
        f"the demo's folder is kept: {folder} (results, journal, log; evolution-results --db "
        f"{folder / 'results.sqlite'} reads them; rm -r {folder} removes it)")


class Silent:
    """A clock and a sleep for ``Lines``: time passes only as the demo sleeps; what it prints is kept."""

    def __init__(self) -> None:
        self.now = 0.0

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_every_wait_of_the_demo_says_where_it_stands_after_a_few_silent_seconds(capsys):
    time_ = Silent()
    lines = Lines(clock=time_.clock, sleep=time_.sleep)
    lines.say("host: twistd evolution on 127.0.0.1:1")
    waited: list[float] = []
    lines.wait_for(lambda: time_.now >= 30, lambda seconds: waited.append(seconds) or f"still waiting ({seconds:.0f} s)",
                   60, "never")
    said = capsys.readouterr().out.splitlines()
    assert said[0] == "host: twistd evolution on 127.0.0.1:1"
    assert said[1:] == [f"still waiting ({seconds:.0f} s)" for seconds in waited] and len(waited) == 7
    assert all(QUIET <= later - earlier < QUIET + 0.5 for earlier, later in zip([0.0, *waited], waited))


def test_a_wait_that_outlasts_its_limit_ends_the_demo_with_one_sentence():
    time_ = Silent()
    lines = Lines(clock=time_.clock, sleep=time_.sleep)
    with pytest.raises(RuntimeError, match=r"^the host did not listen on port 1 within 180 s$"):
        started(type("Host", (), {"listening": lambda self: False, "port": 1})(), lines)


PROGRESS_LINE = re.compile(
    r"load: \d+ s, (bots signing up and warming up|measuring \(\d+ s left\)|waiting for the last games), "
    r"(no game stored yet|[\d,]+ games stored)"
)


def test_the_soak_prints_progress_lines_while_it_runs():
    result = subprocess.run(
        [sys.executable, "-m", "bench.soak", "--bots", "16", "--seconds", "1.5", "--warmup", "0.5", "--progress", "0.5"],
        cwd=REPO, capture_output=True, text=True, timeout=180,
    )
    lines = result.stdout.splitlines()
    # A 1.5 s window may hold no game on a machine whose cores are busy (games of 8 slow bots): the soak says so
    # and fails, rightly; any other failure is this test's.
    failed = [line for line in lines if line.startswith("FAIL: ")]
    assert all(line.startswith("FAIL: the load did not run as planned: 0 games in the window") for line in failed), lines
    assert result.returncode == (1 if failed else 0), result.stdout + result.stderr
    assert re.fullmatch(r"soak: \d+ passed, \d+ failed", lines[-1]), lines
    progress = [line for line in lines if PROGRESS_LINE.fullmatch(line)]
    assert len(progress) >= 3, lines
    assert any("measuring" in line for line in progress), lines
