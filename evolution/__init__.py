"""The Evolution tournament host: games, tournaments and a web view for the course's games, between bots over TCP.

Layers, each depending only on the ones above it in this list:

- ``evolution.games``: the registry of games and the interface each game
  package offers (Evolution's ``evolution.games.evolution``, Fish's
  ``evolution.games.fish``: each with its rules, strategies, wire, net and
  web layers); ``evolution.outcomes`` and ``evolution.coroutines``: what any
  referee reports, and running one with no event loop;
- ``evolution.jsonwire``: framing JSON values on a stream, ``WireError``,
  a game's schema set;
- ``evolution.tournament``: allocation, formats, points, ratings and the
  manager of a tournament (no sockets);
- ``evolution.net``: the Twisted protocol, sign-up and lobby policies, the
  remote seat every proxy player builds on, message logs and the client;
- ``evolution.host``: the game runner, tournament runs, the results store,
  replays, the service parts and command lines;
- ``evolution.web``: the live web view;
- ``evolution.host.tap``: ``twistd evolution``, composing them all.

The host's layers reach a game only through ``evolution.games.game(name)``.
"""

__version__ = "0.2.0"
