"""After a plain ``pip install .`` into a fresh virtualenv, ``twistd evolution`` works from anywhere.

This is how an organiser installs the host: no editable install, no
repository on ``sys.path``. The test installs a copy of the project, finds the
plugin from an unrelated working directory, and plays one real game with the
installed commands, which proves the schemas and the store's SQL files ship
in the package.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evolution.games.fish.wire.schemas import SCHEMAS as FISH_SCHEMAS
from evolution.testing import free_port
from tests.support.paths import REPO

pytestmark = pytest.mark.slow

IGNORED = shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__", ".pytest_cache",
                                 ".hypothesis", "dropin.cache", "*.sqlite")


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("install")
    source = root / "source"
    shutil.copytree(REPO, source, symlinks=True, ignore=IGNORED)
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    result = subprocess.run(
        [str(venv / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check", str(source)],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, result.stderr
    return venv / "bin"


def test_the_plugin_is_found_from_any_directory(installed, tmp_path):
    result = subprocess.run([str(installed / "twistd"), "--help"], cwd=tmp_path, capture_output=True, text=True)
    assert "evolution" in result.stdout
    help_text = subprocess.run([str(installed / "twistd"), "evolution", "--help"], cwd=tmp_path,
                               capture_output=True, text=True).stdout
    assert "--players=" in help_text and "--send-scores" in help_text


def test_the_installed_commands_play_a_game(installed, tmp_path):
    port = free_port()
    host = subprocess.Popen(
        [str(installed / "twistd"), "-n", "--pidfile=", "--logfile=host.log", "evolution",
         "--port", f"tcp:{port}:interface=127.0.0.1", "--players", "3-3", "--games", "1", "--db", "r.sqlite"],
        cwd=tmp_path, stdin=subprocess.DEVNULL,
    )
    try:
        clients = [
            subprocess.Popen([str(installed / "evolution-client"), "--port", str(port), "--name", f"bot {i}",
                              "--retries", "10"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for i in range(3)
        ]
        assert [client.wait(timeout=60) for client in clients] == [0, 0, 0]
        assert host.wait(timeout=60) == 0
    finally:
        if host.poll() is None:
            host.kill()
    listing = subprocess.run([str(installed / "evolution-results"), "--db", "r.sqlite", "--json"], cwd=tmp_path,
                             capture_output=True, text=True, check=True)
    [game] = json.loads(listing.stdout)
    assert game["outcome"] == "finished"
    assert sorted(p["name"] for p in game["players"]) == ["bot 0", "bot 1", "bot 2"]


def test_the_installed_package_ships_fish_with_its_schemas_and_its_drawing(installed, tmp_path):
    script = (
        "from evolution.games.fish.wire.harness import SCHEMAS, run_harness;"
        "from evolution.games.fish.web.tables import DRAWING;"
        "print(len(SCHEMAS.names()), run_harness('xboard', '{\"position\": [0, 0], \"board\": [[1, 1], [1, 1]]}'),"
        " DRAWING.script.is_file(), DRAWING.style.is_file())"
    )
    result = subprocess.run([str(installed / "python"), "-c", script], cwd=tmp_path, capture_output=True, text=True)
    expected = [str(len(FISH_SCHEMAS.names())), "1", "True", "True"]  # every schema, seed004/ too; the drawing
    assert result.stdout.split() == expected, result.stderr
