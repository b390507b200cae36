# -*- test-case-name: tests.host.workers.test_pool -*-
"""What the host and its worker processes say to each other (AMP commands over ``evolution.processes.channel``).

Offers the commands, host -> worker: ``Play(game, descriptors)`` (play this
game on these sockets), ``Running()`` (the summaries of the worker's games),
``Picture(game)`` (a running game's live picture), ``Expel(game, seat,
reason)`` (remove a player now: the organiser's ban), ``Stop()``; worker ->
host: ``Hello(pid)`` (ready), ``Over(report, log)`` (a game's record and
log), ``Back(report, descriptors)`` (the connections given back),
``HungUp(game, seat)`` (a player removed), ``Changed(games, stepped)``; and
``CHANGES_EVERY`` (how often, at most, ``Changed`` says a game has stepped).
A worker's log lines go as ``Logged`` (``evolution.processes.channel``).

Every argument's JSON shape, and when each command is sent and answered:
docs/architecture.md, "The host and its workers".
"""

from __future__ import annotations

from twisted.protocols import amp

from evolution.processes.channel import Blob, Descriptors, JSONValue

CHANGES_EVERY = 0.1


class Play(amp.Command):
    arguments = [(b"game", JSONValue()), (b"descriptors", Descriptors())]
    response: list = []


class Running(amp.Command):
    arguments: list = []
    response = [(b"games", JSONValue())]


class Picture(amp.Command):
    arguments = [(b"game", amp.Integer())]
    response = [(b"picture", JSONValue())]


class Expel(amp.Command):
    arguments = [(b"game", amp.Integer()), (b"seat", amp.Integer()), (b"reason", amp.Unicode())]
    response = [(b"done", amp.Boolean())]


class Stop(amp.Command):
    arguments: list = []
    response: list = []


class Hello(amp.Command):
    arguments = [(b"pid", amp.Integer())]
    response: list = []


class Over(amp.Command):
    arguments = [(b"report", JSONValue()), (b"log", Blob())]
    response: list = []


class Back(amp.Command):
    arguments = [(b"report", JSONValue()), (b"descriptors", Descriptors())]
    response: list = []


class HungUp(amp.Command):
    arguments = [(b"game", amp.Integer()), (b"seat", amp.Integer())]
    response: list = []


class Changed(amp.Command):
    arguments = [(b"games", JSONValue()), (b"stepped", amp.Boolean())]
    requiresAnswer = False
