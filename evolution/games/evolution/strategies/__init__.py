"""Playing strategies beyond the course's reference one (``evolution.games.evolution.rules.silly``).

Each is a local player with the player interface (``start``, ``choose``,
``feed_next``) that ``evolution-client --strategy NAME`` can run; ``BY_NAME``
maps the names the command takes to the classes. ``cheater`` and ``sleeper``
fail on purpose (``faulty``): they show what the host does with bad bots.
"""

from __future__ import annotations

from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.evolution.strategies.builder import BuilderPlayer
from evolution.games.evolution.strategies.faulty import CheaterPlayer, SleeperPlayer

BY_NAME = {"silly": SillyPlayer, "builder": BuilderPlayer, "cheater": CheaterPlayer, "sleeper": SleeperPlayer}
