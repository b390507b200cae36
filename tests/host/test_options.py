"""``from_options``: a settings value made from ``twistd evolution``'s options by one rule, none forgotten.

(The options' own checks are ``tests/host/test_tap.py``'s, with the service they build.)
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from evolution.host.options import Options, from_options
from evolution.host.runner.settings import GameSettings
from evolution.net.signup import SignupConfig


def parsed(*argv: str) -> Options:
    options = Options()
    options.parseOptions(list(argv))
    return options


def test_every_game_setting_comes_from_the_option_of_its_name():
    options = parsed("--game", "fish", "--timeout", "2.5", "--seed", "7", "--send-scores", "--tell-removed")
    settings = from_options(GameSettings, options)
    assert (settings.game, settings.timeout, settings.seed, settings.send_scores, settings.tell_removed) == (
        "fish", 2.5, 7, True, True)
    assert settings.setup == options["setup"]


def test_renamed_options_and_given_fields_make_the_sign_up_settings():
    options = parsed("--players", "3-5", "--signup-window", "4", "--games", "9", "--max-message", "2048")
    config = from_options(SignupConfig, options, {"window": "signup-window", "max_games": "games",
                                                  "max_bytes": "max-message"}, signup="given")
    assert (config.min_players, config.max_players, config.window, config.max_games, config.max_bytes,
            config.signup) == (3, 5, 4.0, 9, 2048, "given")


def test_a_field_no_option_sets_and_nobody_gives_is_a_mistake_said_at_once():
    @dataclass
    class Forgotten:
        timeout: float
        colour: str

    with pytest.raises(KeyError, match="colour"):
        from_options(Forgotten, parsed())
