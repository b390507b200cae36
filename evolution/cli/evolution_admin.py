# -*- test-case-name: tests.cli.test_evolution_admin, tests.host.console.test_draining, tests.host.console.test_operator_port -*-
"""``evolution-admin --admin URL COMMAND``: the organiser's commands to a running host, through its operator port.

Commands: ``bots`` (the bots connected: waiting, and in each running game),
``drain`` (no new sign-ups or games; the running games finish, then the host
stops), ``pause-ladder`` and ``resume-ladder``, ``withdraw NAME [--reason
TEXT]`` (from the running tournament: its remaining games lost, recorded as
withdrawn by the organiser; or from the ladder: after its game),
``end-tournament`` (the running tournament ends now: its standings as they
stand, marked ended-early; the games under way finish), ``announce TEXT``
(a line on every page of the web view, until replaced, or taken down with
``announce --clear``: people read it, bots get no message for it), ``ban
NAME [--owner] [--reason TEXT]`` and ``unban NAME [--owner]`` (on a host
with ``--accounts``: the bot NAME, or with ``--owner`` the owner NAME and
so all its bots, banned in the store and its connections here hung up on
now), ``ready`` (the host's
``/readyz``), ``metrics`` (its ``/metrics``, as Prometheus reads them). Each
command is logged by the host with who asked (``--as``, by default
USER@MACHINE, sent as the header ``X-Operator``, without which the host
takes no command: a web page cannot send it) and from which address.
``--token-file`` sends the token of a host whose operator port asks for one
(``twistd evolution --admin-token-file``). What the host says is shown with
every character a terminal would interpret escaped. Status 0 when done, 1
when the host refused, could not be reached, or what answered is not an
operator port (one line), 2 for a bad command line (a URL that is not one
too).

``evolution-admin --db DB abort-host NAME [--force]`` needs no running host:
a host that will never come back (its machine is gone) leaves its games
running in a shared store; this stores them as aborted and its running
tournaments as interrupted, as its own restart would. A host heard from in the
last ``heartbeats.RECENT`` seconds may be alive: refused unless ``--force``.
"""

from __future__ import annotations

import getpass
import http.client
import json
import re
import socket
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from evolution.cli.arguments import ArgumentParser
from evolution.text import escape, quoted

COMMANDS = {  # command: (method, path)
    "bots": ("GET", "/bots"),
    "drain": ("POST", "/drain"),
    "pause-ladder": ("POST", "/ladder/pause"),
    "resume-ladder": ("POST", "/ladder/resume"),
    "withdraw": ("POST", "/withdraw"),
    "end-tournament": ("POST", "/tournament/end"),
    "announce": ("POST", "/announce"),
    "ban": ("POST", "/ban"),
    "unban": ("POST", "/unban"),
    "ready": ("GET", "/readyz"),
    "metrics": ("GET", "/metrics"),
}
TIMEOUT = 30.0


def parser() -> ArgumentParser:
    p = ArgumentParser(prog="evolution-admin", description="Commands to a running host, through its operator port "
                       "(twistd evolution --admin ENDPOINT); docs/operations.md.")
    p.add_argument("--admin", metavar="URL", help="the host's operator port, such as http://127.0.0.1:9100")
    p.add_argument("--db", metavar="DB", help="abort-host: the results store (an SQLite file, postgresql://...)")
    p.add_argument("--force", action="store_true", help="abort-host: even a host heard from in the last minutes")
    p.add_argument("--token-file", metavar="FILE", help="a file whose first line is the operator port's token")
    p.add_argument("--as", dest="who", default=None, metavar="NAME",
                   help="who asks, as the host's log names them (default: USER@MACHINE)")
    p.add_argument("command", choices=sorted([*COMMANDS, "abort-host"]),
                   help="what to do: " + ", ".join(COMMANDS) + "; with --db: abort-host NAME")
    p.add_argument("name", nargs="*", help="withdraw, ban, unban: the bot's name (ban --owner, unban --owner: the "
                   "owner's); announce: the line to show; abort-host: the host's")
    p.add_argument("--reason", default="no reason given", help="withdraw, ban: why, as the log and the store say it")
    p.add_argument("--owner", action="store_true", help="ban, unban: NAME is an owner's: the owner, and so all its bots")
    p.add_argument("--clear", action="store_true", help="announce: take the announcement down")
    return p


NAMED = ("withdraw", "ban", "unban", "abort-host")  # the commands that take one name


def _form(p: ArgumentParser, args: Any) -> dict[str, str]:
    """The form a command sends (an error on the command line ends here, status 2)."""
    if args.command == "announce":
        if args.clear == bool(args.name):
            p.error("announce takes the line to show, or --clear to take it down")
        return {"clear": "1"} if args.clear else {"text": " ".join(args.name)}
    if (args.command in NAMED) != (len(args.name) == 1) or len(args.name) > 1:
        p.error("withdraw, ban and unban take the bot's name, abort-host the host's, announce a line, and no other "
                "command takes one")
    if args.command not in NAMED:
        return {}
    form = {"name": args.name[0], "reason": args.reason}
    return form | {"owner": "1"} if args.owner else form


class NotTheOperatorPort(Exception):
    """What answered is not a host's operator port (its answer is not of the kind the port gives)."""


ANSWERS = {"bots": "application/json", "metrics": "text/plain"}  # the content type of each command's answer
SHOWN = 300  # characters of the host's line, at most
_UNSAFE_IN_URL = re.compile("[\x00-\x20\x7f]")  # as http.client refuses them


def _bots(text: str) -> str:
    """The host's ``/bots``, one line for its state and one for each game; every name escaped."""
    try:
        bots = json.loads(text)
        lines = [f"{escape(str(bots['state']))}{'; the ladder is paused' if bots['ladder_paused'] else ''}",
                 f"{len(bots['waiting'])} waiting: "
                 + ", ".join(f"{escape(str(b['name']))} ({escape(str(b['address']))})" for b in bots["waiting"])]
        lines += [f"game {escape(str(game['game']))}: " + ", ".join(escape(str(name)) for name in game["players"])
                  for game in bots["games"]]
    except (ValueError, KeyError, TypeError) as error:
        raise NotTheOperatorPort(f"its answer to bots is not the list of bots ({type(error).__name__})") from None
    return "\n".join(lines)


def _visible(text: str) -> str:
    """The host's own words, each character a terminal would interpret shown escaped (its escapes kept as they are)."""
    return "\n".join("".join(char if char == "\\" else escape(char) for char in line) for line in text.split("\n"))


def _one_line(text: str) -> str:
    first = next((line for line in text.split("\n") if line.strip()), "")
    shown = _visible(first.strip())
    return shown if len(shown) <= SHOWN else shown[:SHOWN - 1] + "\u2026"


def _url(p: ArgumentParser, admin: str, path: str) -> str:
    """The URL of ``path`` on the operator port ``admin`` (a bad one ends here, status 2)."""
    url = admin.rstrip("/")
    if "://" not in url:
        url = "http://" + url
    try:
        if _UNSAFE_IN_URL.search(url):
            raise ValueError("a space or a control character in it")
        parts = urllib.parse.urlsplit(url)
        parts.port  # raises ValueError for a port that is not a number
    except ValueError as error:
        p.error(f"--admin {quoted(admin)} is not a URL ({error}): write it as http://127.0.0.1:9100")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        p.error(f"--admin {quoted(admin)} is not an http:// URL with a host: write it as http://127.0.0.1:9100")
    return url + path


def _refusal(error: urllib.error.HTTPError, admin: str) -> str:
    """The host's line for a refusal (its operator port answers one, as plain text), or what else answered."""
    try:
        text = error.read(64 * 1024).decode("utf-8", "replace") if error.fp is not None else ""
    except (OSError, http.client.HTTPException):
        text = ""
    if error.headers is not None and error.headers.get_content_type() == "text/plain" and text.strip():
        return _one_line(text)
    return (f"HTTP {error.code} {_one_line(str(error.reason))}: not an answer of an operator port (is {quoted(admin)} "
            "a host's --admin port?)")


def main(argv: list[str] | None = None) -> int:
    p = parser()
    args = p.parse_args(argv)
    form = _form(p, args)
    if args.command == "abort-host":
        if args.db is None:
            p.error("abort-host works on the results store: give it --db DB")
        return abort_host_command(args.db, form["name"], args.force)
    if args.admin is None:
        p.error(f"{args.command} asks a running host: give it --admin URL (its operator port)")
    method, path = COMMANDS[args.command]
    url = _url(p, args.admin, path)
    # X-Operator names who asks, for the host's log; the host takes no command without it (a web page cannot send it)
    headers = {"X-Operator": (args.who or "").strip() or f"{getpass.getuser()}@{socket.gethostname()}"}
    if args.token_file:
        try:
            with open(args.token_file, encoding="utf-8") as file:
                headers["Authorization"] = "Bearer " + file.readline().strip()
        except (OSError, UnicodeDecodeError) as error:
            print(f"evolution-admin: cannot read --token-file {quoted(args.token_file)}: "
                  f"{getattr(error, 'strerror', None) or error}", file=sys.stderr)
            return 1
    body = urllib.parse.urlencode(form)
    request = urllib.request.Request(url, method=method, headers=headers,
                                     data=body.encode("utf-8") if method == "POST" else None)
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            kind = answer.headers.get_content_type()
            text = answer.read().decode("utf-8", "replace")
        if kind != ANSWERS.get(args.command, "text/plain"):
            raise NotTheOperatorPort(f"it answered with {escape(kind)}")
        shown = _bots(text) if args.command == "bots" else _visible(text.rstrip("\n"))
    except urllib.error.HTTPError as error:
        print(f"evolution-admin: {args.command}: {_refusal(error, args.admin)}", file=sys.stderr)
        return 1
    except NotTheOperatorPort as error:
        print(f"evolution-admin: {args.command}: {quoted(args.admin)} is not a host's operator port: {error}",
              file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
        reason = getattr(error, "reason", None) or error
        print(f"evolution-admin: cannot reach the operator port {quoted(args.admin)}: "
              f"{_one_line(str(reason)) or type(error).__name__}", file=sys.stderr)
        return 1
    print(shown)
    return 0


def abort_host_command(db: str, host: str, force: bool) -> int:
    """``abort-host``: a dead host's running games aborted and tournaments interrupted, unless heard from lately."""
    from evolution.store.database import StoreError
    from evolution.store.heartbeats import RECENT, abort_host, last_heard, silent_for
    from evolution.store.postgres import shown
    from evolution.store.results_store import reading
    from evolution.text import plural

    def act(store: Any) -> tuple[int, str]:
        seen = last_heard(store).get(host)
        if seen is not None and silent_for(seen) < RECENT and not force:
            return 1, (f"host {escape(host)} was heard from {silent_for(seen):.0f} s ago: it may be running (a host "
                       f"writes a heartbeat every minute); stop it, or wait, or give --force")
        running = [row for row in store.hosts() if row["host"] == host]
        if not running and seen is None:
            return 1, f"no host {escape(host)} in {shown(db)} (evolution-results --db DB --hosts lists them)"
        games, tournaments = abort_host(store, host)
        return 0, (f"host {escape(host)}: {plural(len(games), 'game')} stored as aborted"
                   f"{' (' + ', '.join(f'#{id}' for id in games) + ')' if games else ''}, "
                   f"{plural(len(tournaments), 'tournament')} marked interrupted"
                   f"{' (' + ', '.join(f'#{id}' for id in tournaments) + ')' if tournaments else ''}")

    try:
        status, line = reading(db, act)
    except StoreError as error:
        print(f"evolution-admin: {error}", file=sys.stderr)
        return 1
    print(line, file=sys.stdout if status == 0 else sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
