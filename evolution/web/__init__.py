"""The live web view: watch games as they are played, follow a tournament, replay any game.

- ``push``: the hub of Server-Sent Event streams, with a bound per watcher;
- ``summaries``, ``tables``, ``frames``: the JSON of games, tournaments,
  the lobby, a game's table, what its players did, and replay frames (pure
  functions of the host's values).
"""
