"""The Fish bot author's guide (schemas/fish/README.md) says what the host does.

Its examples are messages the schemas accept (and the replies are legal in the states they
answer), it names every schema of the folder, and the time limits it gives are the host's
defaults, under the options it names.
"""

from __future__ import annotations

import json
import re

import pytest

from evolution.games import game
from evolution.games.fish import FIRST_MOVE_TIMEOUT, START_TIMEOUT
from evolution.games.fish.net.dialects import NAME_TIMEOUT
from evolution.games.fish.wire import codec
from evolution.games.fish.wire.schemas import SCHEMAS
from evolution.host.options import Options
from tests.support.paths import REPO

FOLDER = REPO / "schemas" / "fish"
GUIDE = (FOLDER / "README.md").read_text(encoding="utf-8")
EXAMPLES = [(name, json.loads(text)) for name, text in
            re.findall(r"<!-- message: ([a-z0-9/-]+) -->\n```json\n(.*?)\n```", GUIDE, re.S)]


def test_the_guide_shows_an_example_of_every_call_and_reply_of_a_game():
    assert [name for name, _ in EXAMPLES] == ["playing-as", "playing-with", "setup", "position", "take-turn", "action"]


@pytest.mark.parametrize("name, value", EXAMPLES, ids=[name for name, _ in EXAMPLES])
def test_each_example_is_a_message_the_host_accepts(name, value):
    SCHEMAS.check(name, value)


def test_the_example_replies_are_legal_in_the_states_they_answer():
    examples = dict(EXAMPLES)
    shown = codec.state_from_json(examples["setup"][1][0], "setup")
    assert shown.placement_problem(codec.position_from_json(examples["position"], "position")) is None
    turn = codec.state_from_json(examples["take-turn"][1][0], "take-turn")
    assert turn.move_problem(codec.move_from_json(examples["action"], "action")) is None


def test_the_guide_names_every_schema_of_the_folder():
    files = [path.relative_to(FOLDER).as_posix() for path in FOLDER.rglob("*.json") if path.parent.name != "harness"]
    assert files
    for name in files:
        assert f"({name})" in GUIDE, f"the guide does not link {name}"


def test_the_time_limits_are_the_hosts_defaults_under_the_options_it_names():
    fish = game("fish")
    rows = {option: limit for limit, option in re.findall(r"\| ([0-9 s,]+) \| `(--[a-z-]+)` \|", GUIDE)}
    assert rows == {"--signup-timeout": f"{NAME_TIMEOUT:g} s, {NAME_TIMEOUT:g} s",
                    "--start-timeout": f"{START_TIMEOUT:g} s",
                    "--first-move-timeout": f"{FIRST_MOVE_TIMEOUT:g} s",
                    "--timeout": f"{fish.default_timeout:g} s"}
    names = {option.name for option in fish.options} | {row[0] for row in Options.optParameters}
    assert {option.removeprefix("--") for option in rows} <= names
