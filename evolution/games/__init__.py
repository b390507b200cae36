"""The games the host serves, each one package behind one small interface.

A game lives in ``evolution/games/<name>/`` and is registered here with one
line (``REGISTERED``). The host's layers (sign-up, lobby, tournaments, store,
replays, web view, command lines) reach a game only through ``game(name)``,
never by importing its modules.
"""

from __future__ import annotations

DEFAULT_GAME = "evolution"

REGISTERED = {
    "evolution": "evolution.games.evolution",
    "fish": "evolution.games.fish",
}
"""Game name -> the package that holds it."""
