"""The network layer: framing, the host's sign-up and proxy players, the client.

Built on Twisted; talks to the rules only through the player interface and to
JSON only through ``evolution.wire``.
"""
