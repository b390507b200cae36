"""Fish ("Hey, That's My Fish!"), the course's later game: 2-4 players, penguins on a hexagonal board of fish tiles.

Its layers, each depending only on those before it: ``rules`` (the board,
states, moves, the referee and the player interface: pure, no I/O, no
Twisted, no JSON), ``strategies`` (the house players), ``wire`` (JSON <->
rules values, the course's harnesses).
"""
