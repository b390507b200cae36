# -*- test-case-name: tests.host.workers.test_pool -*-
"""What the host and its worker processes say to each other (AMP commands over ``evolution.processes.channel``).

Host -> worker:

- ``Play(game, descriptors)``: play this game on these connections (the
  sockets, in seat order). ``game`` = ``{"id", "seed", "tournament": [id,
  round] or null, "whole": bool, "seats": [{"name", "family", "unread",
  "unsent"}, ...]}`` (``evolution.net.handover.Handover``). ``whole``: a
  single game, which the worker greets, plays and ends, hanging up on
  everyone; otherwise (a tournament's game) the worker plays it and gives
  back the connections still in. Answered at once, when the worker has
  adopted the connections: the host closes its copies then.
- ``Running()`` -> ``games``: the web view's summary of each game the worker
  plays (``evolution.host.runner.live_pictures.running_game``).
- ``Picture(game)`` -> ``picture``: a running game's whole live picture
  (summary, table, lines), or null; from then on the worker follows the game
  (``Changed``).
- ``Stop()``: the host is stopping: every game ends as aborted (``Over``
  and ``Back`` for each), hang up; answered once every ``Back`` has been
  answered.

Worker -> host:

- ``Hello(pid)``: the worker is ready for games.
- ``Over(report, log)``: a game is over, ``report`` = ``{"id", "record":
  GameRecord.to_json()}``; ``log``: its message log, compressed as the store
  keeps it (``evolution.store.operations.compressed_log``). Sent when the game
  ends; its players are hung up on (or given back) once the host answers.
- ``Back(report, descriptors)``: the worker is done with a game's
  connections. ``report`` = ``{"id", "returned": [seat index, ...], "seats":
  [handover, ...], "failed_after": [reason or null per seat]}`` (``GameOutcome.failed_after``); ``descriptors``: the sockets of the connections given
  back (a tournament's players still in), in the order of ``returned``; the
  others were closed. A game with a ``Back`` and no ``Over`` was no game
  (too few answered the greeting).
- ``HungUp(game, seat)``: the worker removed the player at ``seat`` (index
  in the game's seats) and hangs up on it once the host has answered: the
  host takes its connection as closed first (a ladder frees its name, so the
  player may come back at once, as in one process).
- ``Changed(games, stepped)``: games whose picture was asked for have moved
  on; ``stepped``: some game has (at most every ``CHANGES_EVERY`` seconds).
- ``Logged(events)`` (``evolution.processes.channel``): its log lines.
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
