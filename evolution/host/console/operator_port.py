# -*- test-case-name: tests.host.console.test_operator_port -*-
"""The operator port (``--admin ENDPOINT``): figures, health and commands for a running event, over HTTP.

Offers ``OperatorPort(host, figures, drain, token, notices, bans)``, a ``twisted.web``
resource: ``GET /metrics`` (Prometheus's text format), ``GET /livez``,
``GET /readyz`` (503 while draining, or while the store is away beyond the
journal's promise), ``GET /bots`` (JSON: the bots connected, waiting or in
which game), and the commands, each a ``POST`` logged with who asked
(``X-Operator``, as ``evolution-admin`` sends it) from which address:
``/drain``, ``/ladder/pause``, ``/ladder/resume``, ``/withdraw`` (form fields
``name`` and ``reason``: from the running tournament, or the ladder),
``/tournament/end`` (the running tournament ends now, marked ended-early),
``/announce`` (field ``text``, or ``clear``: the web view's banner,
``announcements.NoticeBoard``), ``/ban`` and ``/unban`` (fields ``name``,
``owner``, ``reason``: on a host with accounts, ``banning.Bans``). With a token
(``--admin-token-file``) every request must carry it
(``Authorization: Bearer TOKEN``). A command that a web page may have sent
(no ``X-Operator``, another site's ``Origin`` or ``Sec-Fetch-Site``, or, with
no token, a ``Host`` not of this machine: ``access.forged``) is refused, 403.
What each answers: docs/operations.md.
"""

from __future__ import annotations

import json
from typing import Any

from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from twisted.internet.defer import Deferred
from twisted.logger import Logger
from twisted.web.resource import Resource
from twisted.web.server import NOT_DONE_YET

from evolution.host.console.banning import AccountError

from evolution.host.console.access import allowed, forged
from evolution.text import escape, short

log = Logger()
COMMANDS = ("drain", "ladder/pause", "ladder/resume", "withdraw", "tournament/end", "announce", "ban", "unban")
LONGEST_NAME = 100  # of X-Operator, in the log


class OperatorPort(Resource):
    """Every path of the operator port, answered here (no children)."""

    isLeaf = True

    def __init__(self, host: Any, figures: Any, drain: Any, token: str | None, notices: Any = None,
                 bans: Any = None) -> None:
        super().__init__()
        self.host, self.figures, self.drain, self.token = host, figures, drain, token
        self.notices, self.bans = notices, bans

    def render(self, request: Any) -> bytes | int:
        if not allowed(request, self.token):
            return _answer(request, 401, "this operator port asks for its token: Authorization: Bearer TOKEN")
        path = request.path.decode("utf-8", "replace").strip("/")
        method = request.method.decode("ascii", "replace")
        if method == "POST" and (refused := forged(request, self.token)) is not None:
            shown = short(path, LONGEST_NAME)
            log.warn("refused POST /{path} from {address}: {why}", path=shown, why=refused,
                     address=getattr(request.getClientAddress(), "host", "?"))
            return _answer(request, 403, f"POST /{shown} refused: {refused}")
        if method == "POST" and path in COMMANDS:
            try:
                return self._command(request, path)
            except Exception:  # a command must never take the host down, nor answer with a page of HTML
                log.failure("the operator's command {path} failed", path=path)
                return _answer(request, 500, f"{path} failed: see the host's log")
        if method not in ("GET", "HEAD"):
            return _answer(request, 405, f"{method} /{path}: the commands are POST /" + ", POST /".join(COMMANDS))
        if path == "metrics":
            request.setHeader(b"content-type", CONTENT_TYPE_LATEST.encode("ascii"))
            return generate_latest(self.figures.registry)
        if path == "livez":
            return _answer(request, 200, "live")
        if path == "readyz":
            return self._ready(request)
        if path == "bots":
            return _json(request, 200, self.bots())
        return _answer(request, 404, f"no /{path} here: /metrics, /livez, /readyz, /bots, and POST /"
                       + ", POST /".join(COMMANDS))

    def _ready(self, request: Any) -> bytes:
        if self.drain.draining:
            return _answer(request, 503, "draining: no new sign-ups; the running games finish, then the host stops")
        if self.figures.store_overdue:
            return _answer(request, 503, f"the store is away: {self.figures.writer.waiting} writes wait,"
                           " more than the journal's reserve promises (--journal-reserve)")
        return _answer(request, 200, "ready")

    def bots(self) -> dict[str, Any]:
        """The bots connected: those waiting (and since when they signed up), and those in each running game."""
        waiting = [{"name": c.name, "address": c.peer} for c in self.host.factory.lobby]
        games = [{"game": game_id, "players": [c.name for c in getattr(game, "connections", ())]}
                 for game_id, game in sorted(self.host.runner.running.items())]
        return {"waiting": waiting, "games": games, "state": self.drain.state(),
                "ladder_paused": bool(self.host.ladder is not None and self.host.ladder.paused)}

    def _command(self, request: Any, path: str) -> bytes | int:
        who = _who(request)
        if path == "announce":
            return self._announce(request, who)
        if path in ("ban", "unban"):
            return self._ban(request, who, path == "ban")
        if path == "drain":
            return _answer(request, 202, self.drain.begin(who))
        if path == "withdraw":
            return self._withdraw(request, who)
        if path == "tournament/end":
            run = self.host.tournaments.current if self.host.tournaments is not None else None
            if run is None or not run.end_now():
                return _answer(request, 409, "no tournament is running here")
            log.info("tournament {id} ended early, asked by {who}", id=run.id, who=who)
            return _answer(request, 200, f"tournament {run.id} is ended early: its standings as they stand; the games "
                           "under way finish, no round follows")
        ladder = self.host.ladder
        if ladder is None:
            return _answer(request, 409, "this host runs no ladder (twistd evolution --ladder)")
        if path == "ladder/pause":
            done = ladder.pause(who)
            return _answer(request, 200, "the ladder is paused: the running games finish, no new ones form"
                           if done else "the ladder was paused already")
        done = ladder.resume(who)
        return _answer(request, 200, "the ladder is resumed" if done else "the ladder was not paused")


    def _withdraw(self, request: Any, who: str) -> bytes:
        name = _field(request, "name")
        reason = _field(request, "reason") or "no reason given"
        if not name:
            return _answer(request, 400, "withdraw takes the bot's name (name=...)")
        tournaments, ladder = self.host.tournaments, self.host.ladder
        run = tournaments.current if tournaments is not None else None
        if run is not None and run.withdraw(name, reason):
            line = f"{name!r} is withdrawn from tournament {run.id} by {who}: {reason}"
        elif ladder is not None and (done := ladder.withdraw(name, reason)) is not None:
            line = f"{name!r} is withdrawn from the ladder by {who}: {reason} ({done})"
        else:
            return _answer(request, 404, f"no bot {name!r} is in a running tournament or the ladder here")
        log.info("{line}", line=escape(line))
        return _answer(request, 200, line)


    def _announce(self, request: Any, who: str) -> bytes:
        if self.notices is None:
            return _answer(request, 409, "this host keeps no announcements")
        if _field(request, "clear"):
            return _answer(request, 200, self.notices.clear(who))
        try:
            return _answer(request, 200, self.notices.announce(_text(request, "text"), who))
        except ValueError as error:
            return _answer(request, 400, str(error))

    def _ban(self, request: Any, who: str, banned: bool) -> bytes | int:
        name, verb = _field(request, "name"), "ban" if banned else "unban"
        if self.bans is None or self.host.factory.identity is None:
            return _answer(request, 409, f"this host has no bot accounts (twistd evolution --accounts roster|closed); "
                           f"evolution-accounts --db DB {verb} NAME {verb}s in a store that has them")
        if not name:
            return _answer(request, 400, f"{verb} takes the bot's name (name=...)")
        reason = _field(request, "reason") or "no reason given"
        return _later(request, self.bans.change(name, bool(_field(request, "owner")), banned, reason, who))


def _later(request: Any, answer: Deferred) -> int:
    """Answer with the line ``answer`` fires with (an ``AccountError``: 404, its sentence; else 500)."""

    def failed(failure: Any) -> None:
        if failure.check(AccountError):
            return _finish(request, 404, failure.getErrorMessage())
        log.failure("the operator's command {path} failed", failure, path=request.path)
        return _finish(request, 500, "the command failed: see the host's log")

    answer.addCallback(lambda line: _finish(request, 200, line)).addErrback(failed)
    return NOT_DONE_YET


def _finish(request: Any, status: int, line: str) -> None:
    if not request.finished and not getattr(request, "_disconnected", False):
        request.write(_answer(request, status, line))
        request.finish()


def _text(request: Any, name: str) -> str:
    """A form field as sent (``announcements.one_line`` says whether it is too long)."""
    values = request.args.get(name.encode("ascii")) or [b""]
    return values[0].decode("utf-8", "replace")


def _field(request: Any, name: str) -> str:
    values = request.args.get(name.encode("ascii")) or [b""]
    return values[0].decode("utf-8", "replace").strip()[:LONGEST_NAME * 2]


def _who(request: Any) -> str:
    """Who asked (``X-Operator``, else someone) and from where, for the log."""
    named = (request.getHeader("x-operator") or "someone").strip()[:LONGEST_NAME]
    address = request.getClientAddress()
    return f"{escape(named)} from {getattr(address, 'host', address)}"


def _answer(request: Any, status: int, line: str) -> bytes:
    request.setResponseCode(status)
    request.setHeader(b"content-type", b"text/plain; charset=utf-8")
    return (line + "\n").encode("utf-8")


def _json(request: Any, status: int, value: Any) -> bytes:
    request.setResponseCode(status)
    request.setHeader(b"content-type", b"application/json")
    return json.dumps(value).encode("utf-8")
