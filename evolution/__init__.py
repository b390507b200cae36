"""Evolution tournament host: rules engine, JSON wire layer, Twisted network host.

Layers, each depending only on the ones above it in this list:

- ``evolution.rules``: the game model, the dealer and the "silly" strategy
  (no I/O, no Twisted, no JSON);
- ``evolution.wire``: JSON <-> rules values, checked against ``schemas/``;
- ``evolution.net``: Twisted framing, sign-up, proxy players and the client;
- ``evolution.host``: results store, ``twistd evolution`` service, command lines.
"""

__version__ = "0.1.0"
