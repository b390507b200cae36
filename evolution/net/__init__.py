"""The network layer: the JSON stream protocol, the host's sign-up and proxy players, the client.

Built on Twisted; talks to the rules only through the player interface and to
JSON only through ``evolution.games.evolution.wire``.
"""
