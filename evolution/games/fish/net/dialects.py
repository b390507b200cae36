"""Fish's two dialects as the host speaks them (``evolution.games.Dialect``).

Offers ``HOST_DIALECTS``: ``course`` (``CourseDialect``, the course's
protocol, the default) and ``seed004`` (``Seed004Dialect``). Their messages
are ``evolution.games.fish.wire.dialects``'s; this module says when the host
writes them:

    course   sign-up: a name of 1 to 12 ASCII letters within 10 s
             (``--signup-timeout``; 10 s more to complete it), answered with
             nothing; before a connection's first game: start (reply within
             ``--start-timeout``, 3 s); in a game: the ``FishProxy`` asks;
             nothing at a game's end, nothing to a removed player (it is hung
             up on), losers kept connected to the end; at the end: end(true)
             to the winners, end(false) to the others still connected (reply
             within ``--timeout``)
    seed004  sign-up: the client says nothing, and after 2 s of silence it is
             signed up, named after its address; in a game: the proxy asks;
             at every game's end, gameResult to every player still in it
             (reply within ``--timeout``); a removed player hears Disqualify,
             then is hung up on (its [true] is not waited for); losers are
             hung up on when their round ends; nothing more at the end

A client's side is ``evolution.games.fish.net.conversations``.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import Deferred

from evolution.games import SignupRules
from evolution.games.fish.net.conversations import CourseConversation, Seed004Conversation
from evolution.games.fish.net.proxy_player import FishProxy
from evolution.games.fish.wire.dialects import (
    COURSE,
    DISQUALIFY,
    SEED004,
    end_request,
    game_result_request,
    start_request,
)
from evolution.games.fish.wire.messages import read_name
from evolution.net.remote_seat import CallSettings, RemoteSeat
from evolution.outcomes import GameResult

Json = Any

NAME_TIMEOUT = 10.0
"""The course server's limit for a name (and 10 s more to complete it), as ``--signup-timeout``'s default."""


def course_name(value: Json) -> tuple[str, bool]:
    """The name of a course sign-up (``ValueError``, a ``WireError``, for anything else); the host tells none."""
    return read_name(value), False


def _asked(seat: RemoteSeat, request: Any) -> Deferred:
    return seat.ask(request.kind, request.text, request.read)


class CourseDialect:
    """The course's protocol (protocol.md 1-3): what the reference clients speak."""

    name = "course"
    keeps_losers = True  # the reference keeps losers connected, silent, until end(false)
    signup = SignupRules(reply=None, name=course_name, timeout=NAME_TIMEOUT)

    def proxy(self, connection: Any, name: str, seat: int, calls: CallSettings) -> FishProxy:
        return FishProxy(connection, name, calls, COURSE)

    def greeting(self, seat: RemoteSeat) -> Deferred:
        """``["start", [true]]``, once before the connection's first game; "void" within the ``start`` limit."""
        return _asked(seat, start_request())

    def farewell(self, seat: RemoteSeat, won: bool) -> Deferred:
        """``["end", [won]]`` when the host is done with the connection; "void" within ``--timeout``."""
        return _asked(seat, end_request(won))

    def game_over(self, seat: RemoteSeat, result: GameResult, number: int, send_scores: bool) -> None:
        return None  # the course protocol says nothing at a game's end

    def removal(self, reason: str, tell_removed: bool) -> Json | None:
        return None  # nor to a removed player

    def client(self, name: str, player: Any) -> CourseConversation:
        return CourseConversation(name, player)


def no_name(value: Json) -> tuple[str, bool]:
    raise ValueError("a seed 004 client sends no sign-up message")


class Seed004Dialect:
    """Seed 004's object messages (protocol.md 4 and 5), where the document is silent as the guide says."""

    name = "seed004"
    keeps_losers = False  # "if the player has lost, then they will be disconnected"
    signup = SignupRules(reply=None, name=no_name, silent=True)
    greeting = None  # no message before a first game
    farewell = None  # "the final winners will simply be informed that they have won their most recent game"

    def proxy(self, connection: Any, name: str, seat: int, calls: CallSettings) -> FishProxy:
        return FishProxy(connection, name, calls, SEED004)

    def game_over(self, seat: RemoteSeat, result: GameResult, number: int, send_scores: bool) -> Deferred:
        """gameResult, true for the winners (the game's first place, ties included); [true] within ``--timeout``."""
        won = any(entry.id == number and entry.rank == 1 for entry in result.ranking)
        return _asked(seat, game_result_request(won))

    def removal(self, reason: str, tell_removed: bool) -> Json:
        return DISQUALIFY

    def client(self, name: str, player: Any) -> Seed004Conversation:
        return Seed004Conversation(name, player)


HOST_DIALECTS = {dialect.name: dialect for dialect in (CourseDialect(), Seed004Dialect())}
