"""Evolution tournament host: rules engine, JSON wire layer, Twisted network host, tournaments, web view.

Layers, each depending only on the ones above it in this list:

- ``evolution.games.evolution.rules``: the game model, the dealer and the "silly" strategy
  (no I/O, no Twisted, no JSON); ``evolution.games.evolution.strategies``: more players;
- ``evolution.games.evolution.wire``: JSON <-> rules values, checked against ``schemas/``;
  the protocol's dialects;
- ``evolution.tournament``: allocation, formats, points, ratings and the
  manager of a tournament (no sockets);
- ``evolution.net``: Twisted framing, sign-up and lobby policies, proxy
  players, message logs and the client;
- ``evolution.host``: the game runner, tournament runs, the results store,
  replays, the service parts and command lines;
- ``evolution.web``: the live web view;
- ``evolution.application``: ``twistd evolution``, composing them all.
"""

__version__ = "0.2.0"
