"""The network layer every game shares: the JSON stream protocol, sign-up and lobbies, remote seats, the client.

Built on Twisted; talks to a game only through the registry
(``evolution.games``): its dialects make the proxy players (on
``remote_seat.RemoteSeat``) and the client's conversations.
"""
