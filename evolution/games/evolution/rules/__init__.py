"""The rules of Evolution as the course's reference dealer enforces them.

Pure game logic: no I/O, no Twisted, no JSON. The dealer talks to players only
through the player interface of ``evolution.games.evolution.rules.player``.
"""
