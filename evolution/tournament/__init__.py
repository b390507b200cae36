"""Tournaments: many bots, many games, winners and failures.

A layer of its own above single games, and below the host: it knows nothing
of sockets. ``allocation`` splits players into games; ``scoring`` turns a
game's result into places and points; ``ratings`` keeps a multiplayer rating
(openskill's Plackett-Luce); ``formats`` holds the knockout and Swiss
formats, small strategies that pick each round's games from the standings;
``manager`` runs the rounds, asking a referee (the host's game runner, or
local players) to play each game.
"""
