"""The Evolution tournament host: games, tournaments and a web view for the course's games, between bots over TCP.

Rooms, each depending only on the ones before it in this list (``docs/architecture.md``
draws them; ``tests/test_architecture.py`` holds them to it):

- ``evolution.games``: the registry of games and the interface each game
  package offers (Evolution's ``evolution.games.evolution``, Fish's
  ``evolution.games.fish``: each with its rules, strategies, wire, net and
  web layers); ``evolution.outcomes`` and ``evolution.coroutines``: what any
  referee reports, and running one with no event loop;
- ``evolution.processes``: child processes and the channels to them;
- ``evolution.jsonwire``: framing JSON values on a stream, ``WireError``,
  a game's schema set;
- ``evolution.tournament``: allocation, formats, points, ratings and the
  manager of a tournament (no sockets);
- ``evolution.store``: the results store (an SQLite file, or PostgreSQL that
  several hosts share), its writer and reader processes;
- ``evolution.net``: the Twisted protocol, sign-up and lobby policies, the
  remote seat every proxy player builds on, message logs and the client;
- ``evolution.replays``: stored games re-run, replay frames, transcripts;
- ``evolution.host``: ``twistd evolution`` (``host.tap``), the game runner,
  the tournament and ladder modes, the worker processes;
- ``evolution.web``: the live web view;
- ``evolution.cli``: the commands; ``evolution.testing``: process helpers;
  ``evolution.stock_servers``: throw-away PostgreSQL and HAProxy on loopback
  (tests, benchmarks, ``make demo-cluster``).
"""

__version__ = "0.2.0"
