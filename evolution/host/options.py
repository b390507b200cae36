"""``twistd evolution``'s command line: every option checked, every problem one sentence.

Offers ``Options`` (Twisted's ``usage.Options``): a value out of its range
raises ``usage.UsageError`` naming the option and what it takes; an endpoint
this machine cannot serve (TLS not installed, a certificate that cannot be
read) raises ``StartupError``. ``TwistdOptions`` is what the twistd plugin
parses: there a usage error prints one line and exits with status 2, a
start-up error one line and status 1 (``fail``), instead of twistd's page of
usage text. ``from_options(kind, options, renamed, **given)`` makes a
settings dataclass from them, field by option, by one rule.

Every number has a finite range, stated in ``--help``: a limit of ``inf``
would let a silent bot stall a game for ever, and one of ``1e-300`` would
remove every player.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import sys
from dataclasses import fields
from pathlib import Path
from typing import Any, Mapping, NoReturn, TypeVar

from twisted.python import usage

from evolution import __version__
from evolution.host.console.access import check_console_options
from evolution.games import DEFAULT_GAME, GAME_NAMES, Game, game
from evolution.host.option_values import (
    SECONDS,
    WHOLE_NUMBERS,
    parse_players,
    parse_seconds,
    parse_whole,
    quoted_value,
    seconds_option,
    whole_option,
)
from evolution.net.host_connection import SIGNUP_MAX_BYTES
from evolution.net.signup import DEFAULT_MAX_PER_ADDRESS
from evolution.tournament.standings import FINAL_TIEBREAKS, PLAYOFFS

USAGE_STATUS, STARTUP_STATUS = 2, 1
SIGNUP_WINDOW = {"games": 10.0, "tournament": 30.0, "ladder": 0.1}
SIGNUP_TIMEOUT = 5.0  # when the dialect names no limit of its own
SWISS_ROUNDS = 5
TOURNAMENT_ONLY = ("signup-periods", "min-signups", "max-signups", "rounds", "tournaments")
KEPT_BY_A_TOURNAMENT = (  # stored when a tournament begins: --resume takes them from the store, never again
    "game", "tournament", "players", "rounds", "seed", "timeout", "dialect", "final-tiebreak", "send-scores",
    "tell-removed", "games", "tournaments", "min-signups", "max-signups", "accounts", "owners-may-meet",
)
VIEW_ONLY = ("view-only", "web", "db", "web-connections", "game", "host-name")  # what a process that plays no games takes

MAX_PER_OWNER = 2  # an owner's bots connected at once (--accounts roster|closed)

T = TypeVar("T")


def from_options(kind: type[T], options: Mapping[str, Any], renamed: Mapping[str, str] | None = None,
                 **given: Any) -> T:
    """The dataclass ``kind`` with each field from its option: ``send_scores`` from ``--send-scores``.

    ``renamed`` names the options whose names differ from their fields' (``{"window": "signup-window"}``);
    ``given``, the fields that no option sets. A field with neither is a mistake, raised as ``KeyError``.
    """
    renamed = renamed or {}
    values = {}
    for field in fields(kind):  # type: ignore[arg-type]
        if field.name in given:
            values[field.name] = given[field.name]
            continue
        option = renamed.get(field.name, field.name.replace("_", "-"))
        values[field.name] = options[option] if option in options else options[field.name]
    return kind(**values)


class StartupError(Exception):
    """The options are right, but the host cannot start with them here (one sentence)."""


def default_host_name(port: str) -> str:
    """The machine's name and the port of ``--port``'s endpoint (``lab3:45678``): unique among the hosts of a
    machine."""
    kind, _, rest = port.partition(":")
    number = rest.split(":", 1)[0] if kind in ("tcp", "ssl", "tcp6") else ""
    return f"{socket.gethostname()}:{number}" if number.isdigit() else socket.gethostname()


def fail(message: str, status: int) -> NoReturn:
    """End ``twistd evolution`` with one line on standard error."""
    sys.stderr.write(f"twistd evolution: {message}\n")
    sys.stderr.flush()
    raise SystemExit(status)


class Options(usage.Options):
    synopsis = "[options]"
    longdesc = (
        "Host games of Evolution (the default) or another game (--game) between bots that connect over TCP "
        "(or TLS with an ssl: endpoint). Each client signs up with a JSON string (its name, at most "
        f"{SIGNUP_MAX_BYTES} bytes); a game starts when MAX players are waiting, or when "
        "at least MIN are and no one signed up for --signup-window seconds. Games run side "
        "by side; every finished game is stored in the SQLite database --db "
        "(list them with evolution-results). A connection beyond --max-connections is "
        'answered "game full" and closed. The message formats are in schemas/. '
        "With --tournament knockout or swiss the host runs a tournament instead: sign-ups gather over "
        "--signup-periods periods of --signup-window seconds; it begins once --max-signups have signed "
        "up, or at the end of a period with at least --min-signups; the players of each round are split "
        "into games of MIN-MAX (MAX must be at least 2*MIN-1); every game of a round runs at once; "
        "players that go on get the next game's start on the same connection. It stops after "
        "--tournaments tournaments (see evolution-results --tournaments). With --ladder it runs a ladder until "
        "stopped: bots sign up at any time and stay for game after game; games form as soon as 4 full tables of bots "
        "wait, else --signup-window seconds after enough bots wait, at tables of similar openskill ratings, avoiding "
        "recent rematches; the ratings are "
        "kept in --db across restarts (see evolution-results --ladder). It runs in the foreground only: "
        "twistd -n evolution [options]."
    )
    optParameters = [
        ["game", None, DEFAULT_GAME, "the game to host: " + ", ".join(GAME_NAMES)],
        ["players", None, None, "players per game, MIN-MAX within the game's bounds (default: "
         + "; ".join(f"{name} {'-'.join(map(str, game(name).default_players))}, within "
                     f"{game(name).min_players}..{game(name).max_players}" for name in GAME_NAMES) + ")"],
        ["port", "p", "tcp:45678", "endpoint to listen on, e.g. tcp:45678:interface=127.0.0.1 or "
         "ssl:45678:privateKey=key.pem:certKey=cert.pem (listen backlog 1024 unless it sets backlog=)"],
        seconds_option("timeout", "seconds a player has for each answer (default: "
                 + ", ".join(f"{name} {game(name).default_timeout:g}" for name in GAME_NAMES) + ")"),
        seconds_option("signup-timeout", f"seconds for a sign-up's first byte, and again for the rest (default "
                 f"{SIGNUP_TIMEOUT:g}; fish's course dialect 10, as the course's server)"),
        seconds_option(
            "signup-window",
            "seconds without a new sign-up before a game of at least MIN starts (default 10); with "
            "--tournament, the length of a sign-up period (default 30); with --ladder, the most a bot waits for its "
            "next game once enough bots wait (default 0.1): games form at once when 4 full tables of bots wait",
        ),
        seconds_option("number-grace", "seconds after which a number with nothing after it counts as complete"),
        whole_option("games", "stop after this many games are over; by default, run until stopped"),
        whole_option("seed", "seed of the first game's deal (a shuffle, a board), game k uses SEED+k-1; by default random,"
               " recorded"),
        ["db", None, "evolution.sqlite", "the results database: an SQLite file (created if missing), or a PostgreSQL "
         "database, postgresql://USER@HOST:PORT/NAME, which several hosts may share (docs/deploy.md)"],
        ["host-name", None, None, "this host's name, stored with each game and tournament it plays (default: the "
         "machine's name and --port's port, such as lab3:45678)"],
        ["journal", None, None, "the journal, where finished games wait while the database cannot take them "
         "(default: <db>.pending beside an SQLite --db; evolution-<host-name>.pending here for a PostgreSQL one)"],
        whole_option("max-message", "largest message a signed-up client may send, in bytes"),
        whole_option("max-depth", "deepest nesting a client's message may have"),
        whole_option("journal-reserve", "MiB of disk reserved at start for the journal <db>.pending, so that a full disk "
               "still keeps finished games (about 50 games of 8 players per MiB)"),
        whole_option("max-connections", "most connections at once; more are answered \"game full\""),
        whole_option("max-per-address", "most connections one address may hold at once (sign-ups included); more are "
               f"answered \"game full\" (default {DEFAULT_MAX_PER_ADDRESS}, and none for the host's own machine, "
               "127.0.0.0/8 and ::1; given, it holds for every address)"),
        ["dialect", None, None, "the protocol's dialect (default: the game's first, the course's): "
         + "; ".join(f"{name} {', '.join(game(name).dialects)}" for name in GAME_NAMES)
         + " (evolution's seed002: tagged messages, \"ack\", the scores to every player at the end)"],
        ["resume", None, None, "go on with an interrupted tournament of --db: ID, or last (the default when --resume "
         "is given alone), from what it stored as it went (its settings, each round's tables, finished games and "
         "failures), never dealing a round again; its game, format, players, rounds, seed, dialect and time limits "
         "are the stored ones (giving them again is refused); its entrants sign up again by name "
         "(as evolution-client does with its reconnect option) within --signup-window times --signup-periods seconds; --port, --web, "
         "--workers and the limits may be new"],
        ["web", None, None, "serve the live web view on this endpoint too, e.g. tcp:8080:interface=127.0.0.1 (in a"
         " process of its own when --workers is above 0)"],
        seconds_option("linger", "with --web: after the last game (--games) or tournament (--tournaments), keep the web view"
                 " up this long, then stop (default: until the host is stopped)"),
        whole_option("web-connections", "with --web: most web connections at once; more are answered 503"),
        ["admin", None, None, "serve the operator port on this endpoint, e.g. tcp:9100:interface=127.0.0.1: "
         "/metrics (Prometheus), /livez, /readyz, /bots and the commands of evolution-admin (drain; pause and resume "
         "a ladder; withdraw a bot; end a tournament; announce a line on the web view; ban and unban a bot or "
         "owner, with --accounts); beyond loopback only with --admin-token-file (docs/operations.md)"],
        ["admin-token-file", None, None, "with --admin: a file whose first line is the token every request to the "
         "operator port must carry (Authorization: Bearer TOKEN; evolution-admin --token-file)"],
        ["agent-check", None, None, "with --admin: answer HAProxy's agent-check on this endpoint, e.g. "
         "tcp:9101:interface=127.0.0.1 (\"ready up\"; \"drain\" from the moment a drain begins)"],
        whole_option("workers", "worker processes that play the games (default: the number of cores); 0 plays every game"
               " in the one process that signs players up"),
        ["tournament", None, None, "run tournaments instead of single games: knockout or swiss"],
        whole_option("signup-periods", "with --tournament: sign-up periods before giving up"),
        whole_option("min-signups", "with --tournament: players needed when a period ends (default: MIN of --players)"),
        whole_option("max-signups", "with --tournament: sign-up ends at once with this many"),
        whole_option("rounds", f"with --tournament swiss: rounds to play (default {SWISS_ROUNDS})"),
        whole_option("tournaments", "with --tournament: stop after this many tournaments"),
        ["accounts", None, "open", "who may sign up under a name: open (anyone, as any name: the default), roster "
         "(a bot that proves its account, evolution-accounts, plays under its public name, rated; anyone else as an "
         "unrated guest, guest-N) or closed (only bots that prove their accounts); a banned bot is refused in roster "
         "and closed (docs/accounts.md)"],
        whole_option("max-per-owner", "with --accounts roster or closed: most bots of one owner connected at once "
               "(default 2); a ladder never seats two of them at one table"),
        ["proxy-from", None, None, "with --proxy-protocol: the addresses that may send the PROXY header, CIDR "
         "prefixes comma-separated (e.g. 10.0.0.0/8,127.0.0.1; default: any peer; needed with --accounts roster or "
         "closed); a header from any other peer closes its connection with a log line"],
        ["final-tiebreak", None, "co-winners", "with --tournament knockout: players tied for first in the final "
         f"are co-winners (as the course's reference), or with playoff play again, at most {PLAYOFFS} times, the "
         "final's best runners-up filling the game without counting"],
    ]
    optParameters += [
        [option.name, None, option.default, f"{name}: {option.help}"]
        for name in GAME_NAMES for option in game(name).options if not option.flag
    ]
    optFlags = [
        ["view-only", None, "play no games: serve only the web view (--web) of the store --db, which other hosts "
         "write (a PostgreSQL one several share): every host's games, tournaments and the ladder, and the games "
         "they are playing now (their live pictures are on their own web views). No bot port, no workers; it "
         "writes nothing to the store. Takes only --db, --web, --web-connections, --game (whose ladder) and "
         "--host-name (this view's name; default the machine's and --web's port)"],
        ["proxy-protocol", None, "--port is behind HAProxy (send-proxy or send-proxy-v2): each connection begins "
         "with a PROXY header, whose address is the bot's (logged, limited per address, a seed004 name); a "
         "connection without one is refused with a line"],
        ["owners-may-meet", None, "with --accounts roster or closed and --tournament: let two bots of one owner sit "
         "at one table (by default a round's tables are changed, players swapped between them, so that they do not "
         "where the numbers allow, before the tables are stored)"],
        ["ladder", None, "run a ladder until stopped: bots come and go at any time and play game after game on one "
         "connection; games form from the bots waiting, by rating; ratings kept in --db (evolution-results --ladder)"],
        ["send-scores", None, "send every player still in a game the dialect's scores when it ends "
         "(evolution: the score message [[id, score], ...])"],
        ["tell-removed", None, "send a removed player the dialect's word before hanging up (evolution: "
         "[\"removed\", reason]; default: just hang up)"],
    ] + [
        [option.name, None, f"{name}: {option.help}"]
        for name in GAME_NAMES for option in game(name).options if option.flag
    ]

    def opt_version(self) -> NoReturn:
        """Print the host's version, and Twisted's and Python's, and exit."""
        import twisted

        print(f"twistd evolution (evolution-host) {__version__}; Twisted {twisted.__version__}, Python "
              f"{sys.version.split()[0]}")
        raise SystemExit(0)

    def parseOptions(self, options: list[str] | None = None) -> None:
        """As usage.Options does; a bare ``--resume`` (no ID after it) means the last interrupted tournament."""
        if options is not None:
            options = list(options)
            for index, option in enumerate(options):
                if option == "--resume" and (index + 1 == len(options) or options[index + 1].startswith("-")):
                    options.insert(index + 1, "last")
                    break
        self.given = {argument[2:].partition("=")[0] for argument in (sys.argv[1:] if options is None else options)
                      if argument.startswith("--")}
        super().parseOptions(options)

    def postOptions(self) -> None:
        if self["view-only"]:
            self._check_view_only()
        if self["resume"] is not None:
            self._check_resume_alone()
        if self["game"] not in GAME_NAMES:
            raise usage.UsageError(f"--game takes {' or '.join(GAME_NAMES)}, not {quoted_value(self['game'])}")
        chosen = game(self["game"])
        players = self["players"] or "-".join(map(str, chosen.default_players))
        self["min_players"], self["max_players"] = parse_players(players, chosen)
        for name in SECONDS:
            if self[name] is not None:
                self[name] = parse_seconds(name, self[name])
        for name in WHOLE_NUMBERS:
            if self[name] is not None:
                self[name] = parse_whole(name, self[name])
        if self["timeout"] is None:
            self["timeout"] = chosen.default_timeout
        if self["number-grace"] >= self["timeout"]:
            raise usage.UsageError("--number-grace must be shorter than --timeout")
        if self["dialect"] is None:
            self["dialect"] = chosen.dialects[0]
        if self["dialect"] not in chosen.dialects:
            raise usage.UsageError(
                f"--dialect of {chosen.name} takes {' or '.join(chosen.dialects)}, not {quoted_value(self['dialect'])}"
            )
        if self["signup-timeout"] is None:
            self["signup-timeout"] = chosen.dialect(self["dialect"]).signup.timeout or SIGNUP_TIMEOUT
        if not self["db"].strip():
            raise usage.UsageError("--db takes the path of a file, such as results.sqlite, not an empty name")
        if self["db"].startswith(("postgresql://", "postgres://")) and importlib.util.find_spec("psycopg") is None:
            raise StartupError("--db postgresql://... needs psycopg: pip install 'evolution-host[postgresql]'")
        if self["host-name"] is None:
            self["host-name"] = default_host_name(self["port"])
        elif not self["host-name"].strip() or len(self["host-name"]) > 200:
            raise usage.UsageError("--host-name takes a name of 1 to 200 characters")
        self["setup"] = self._game_setup(chosen)
        self._check_tournament()
        self._check_accounts()
        self._check_port("port", self["port"])
        if self["web"] is not None:
            self._check_port("web", self["web"])
        elif self["linger"] is not None:
            raise usage.UsageError("--linger goes with --web: without a web view the host stops at the end")
        self["admin-token"] = check_console_options(self)
        for option in ("admin", "agent-check"):
            if self[option] is not None:
                self._check_port(option, self[option])

    def _check_accounts(self) -> None:
        """``--accounts`` is a mode; ``--proxy-from`` goes with ``--proxy-protocol`` and holds prefixes, and is
        needed with accounts: a header from any peer could name any address (around pinned prefixes and the
        throttle)."""
        from evolution.address_prefixes import parse_prefixes
        from evolution.net.identity import MODES

        if self["accounts"] not in MODES:
            raise usage.UsageError(f"--accounts takes {', '.join(MODES)}, not {quoted_value(self['accounts'])}")
        if self["max-per-owner"] is None:
            self["max-per-owner"] = MAX_PER_OWNER
        if self["owners-may-meet"] and self["accounts"] == "open":
            raise usage.UsageError("--owners-may-meet goes with --accounts roster or closed (an open host knows no "
                                   "owners)")
        if missing := self._proxy_from_missing():
            raise usage.UsageError(missing)
        if self["proxy-from"] is not None:
            if not self["proxy-protocol"]:
                raise usage.UsageError("--proxy-from goes with --proxy-protocol (which peers may send the header)")
            try:
                self["proxy-from"] = parse_prefixes(self["proxy-from"])
            except ValueError as error:
                raise usage.UsageError(f"--proxy-from: {error}") from None

    def _proxy_from_missing(self) -> str | None:
        """With accounts behind a balancer, the sentence that asks for ``--proxy-from``; None when all is well."""
        if self["proxy-protocol"] and self["proxy-from"] is None and self["accounts"] not in (None, "open"):
            return (f"--accounts {self['accounts']} with --proxy-protocol needs --proxy-from: the balancer's "
                    "addresses, such as 10.0.0.5 (the only peers whose header is believed)")
        return None

    def _check_view_only(self) -> None:
        """``--view-only`` serves the web view alone: what a host that plays games is told makes no sense with it."""
        if self["web"] is None:
            raise usage.UsageError("--view-only serves the web view alone: give it --web ENDPOINT")
        given = [name for name, default in self.defaults.items() if name not in VIEW_ONLY and self[name] != default]
        if given:
            raise usage.UsageError(f"--{given[0]} does not go with --view-only, which plays no games (it takes "
                                   f"{', '.join('--' + name for name in VIEW_ONLY[1:])})")
        if self["host-name"] is None:
            self["host-name"] = default_host_name(self["web"])

    def _game_setup(self, chosen: Game) -> Any:
        """The chosen game's setup from its own options; another game's options are a mistake."""
        given: dict[str, Any] = {"seed": self["seed"]}
        for name in GAME_NAMES:
            for option in game(name).options:
                value = self[option.name]
                if name != chosen.name:
                    if value and value != option.default:
                        raise usage.UsageError(f"--{option.name} goes with --game {name}")
                    continue
                if not value:
                    continue
                try:
                    given[option.name] = True if option.flag else option.parse(value)
                except ValueError as error:
                    raise usage.UsageError(str(error)) from None
        try:
            return chosen.setup(given)
        except ValueError as error:
            raise usage.UsageError(str(error)) from None

    def _check_ladder(self) -> None:
        """A ladder runs until stopped, with any --players; the tournament's options do not go with it."""
        if self["tournament"] is not None:
            raise usage.UsageError("--ladder and --tournament are two ways to run the host: give one of them")
        if self["games"] is not None:
            raise usage.UsageError("--games is for single games; a ladder runs until it is stopped")
        given = [name for name in TOURNAMENT_ONLY if self[name] not in (None, WHOLE_NUMBERS[name][0])]
        if given:
            raise usage.UsageError(f"--{given[0]} goes with --tournament knockout or swiss, not --ladder")
        if self["signup-window"] is None:
            self["signup-window"] = SIGNUP_WINDOW["ladder"]

    def _check_tournament(self) -> None:
        mode = self["tournament"]
        if self["final-tiebreak"] not in FINAL_TIEBREAKS:
            raise usage.UsageError(
                f"--final-tiebreak takes {' or '.join(FINAL_TIEBREAKS)}, not {quoted_value(self['final-tiebreak'])}"
            )
        if mode != "knockout" and self["final-tiebreak"] != FINAL_TIEBREAKS[0]:
            raise usage.UsageError("--final-tiebreak goes with --tournament knockout (only a knockout has a final)")
        if self["ladder"]:
            self._check_ladder()
            return
        if self["resume"] is not None:
            self._check_resume()
            return
        if mode is None:
            given = [name for name in TOURNAMENT_ONLY if self[name] not in (None, WHOLE_NUMBERS[name][0])]
            if given:
                raise usage.UsageError(f"--{given[0]} goes with --tournament knockout or swiss")
            if self["signup-window"] is None:
                self["signup-window"] = SIGNUP_WINDOW["games"]
            return
        if mode not in ("knockout", "swiss"):
            raise usage.UsageError(f"--tournament takes knockout or swiss, not {quoted_value(mode)}")
        if self["games"] is not None:
            raise usage.UsageError("--games is for single games; a tournament decides its own games")
        if self["rounds"] is not None and mode != "swiss":
            raise usage.UsageError("--rounds goes with --tournament swiss; a knockout plays until it has a winner")
        smallest, largest = self["min_players"], self["max_players"]
        if largest < 2 * smallest - 1:
            raise usage.UsageError(
                f"--players {smallest}-{largest}: a tournament needs MAX >= 2*MIN-1 ({2 * smallest - 1}), "
                "or some numbers of players cannot be split into games"
            )
        if self["min-signups"] is None:
            self["min-signups"] = smallest
        if self["min-signups"] < smallest:
            raise usage.UsageError(f"--min-signups must be at least MIN of --players ({smallest})")
        if self["max-signups"] < self["min-signups"]:
            raise usage.UsageError("--max-signups must be at least --min-signups")
        if self["max-signups"] > self["max-connections"]:
            raise usage.UsageError("--max-signups must be at most --max-connections")
        if self["rounds"] is None and mode == "swiss":
            self["rounds"] = SWISS_ROUNDS
        if self["signup-window"] is None:
            self["signup-window"] = SIGNUP_WINDOW["tournament"]

    def _check_resume_alone(self) -> None:
        """``--resume`` goes on with a stored tournament: what it keeps of its own cannot be given again."""
        if self["ladder"]:
            raise usage.UsageError("--resume goes on with an interrupted tournament, and a ladder has none: a ladder "
                                   "keeps its ratings in --db and goes on when started again without --resume")
        kept = KEPT_BY_A_TOURNAMENT + tuple(option.name for name in GAME_NAMES for option in game(name).options)
        clash = next((name for name in kept if name in getattr(self, "given", ())), None)
        if clash is not None:
            raise usage.UsageError(f"--{clash} does not go with --resume: the tournament keeps its own, stored when "
                                   "it began (its game, format, players, rounds, seed, dialect, time limits and "
                                   "accounts mode)")

    def _check_resume(self) -> None:
        which = self["resume"]
        if which != "last" and not (which.isdigit() and int(which) >= 1):
            raise usage.UsageError(f"--resume takes a tournament's id or last, not {quoted_value(which)}")
        if self["signup-window"] is None:
            self["signup-window"] = SIGNUP_WINDOW["tournament"]

    def resumed(self, stored: dict[str, Any]) -> None:
        """Take the settings of the tournament to resume (``StoredTournament.options``) over the defaults."""
        chosen = game(stored["game"])
        self.update({key: value for key, value in stored.items() if value is not None})
        if stored.get("timeout") is None:
            self["timeout"] = chosen.default_timeout
        if stored.get("dialect") is None:
            self["dialect"] = chosen.dialects[0]
        if stored.get("setup") is None:
            self["setup"] = chosen.setup({})
        if "signup-timeout" not in getattr(self, "given", ()):  # the stored dialect's own, unless given anew
            self["signup-timeout"] = chosen.dialect(self["dialect"]).signup.timeout or SIGNUP_TIMEOUT
        if missing := self._proxy_from_missing():  # the tournament's stored --accounts, checked as if given
            raise StartupError(f"{missing}; the tournament to resume keeps its --accounts")

    @staticmethod
    def _check_port(option: str, description: str) -> None:
        shown = quoted_value(description, 200)  # paths of certificates
        from evolution.net.endpoints import EndpointError, EndpointUnavailable, check_server  # not for --help

        try:
            check_server(description)  # nothing listens yet
        except EndpointError as error:
            raise usage.UsageError(
                f"--{option} {shown} is not an endpoint such as tcp:45678: {error}"
            ) from None
        except EndpointUnavailable as error:
            raise StartupError(f"--{option} {shown}: {error}") from None


class TwistdOptions(Options):
    """``Options`` as the twistd plugin parses them: a problem ends the process with one line.

    It also checks what twistd's own options (``self.parent``, parsed already) ask
    for, before twistd acts on them: the host runs in the foreground only (``-n``),
    and a pid file another running process holds is one line, not twistd's five.
    """

    def parseOptions(self, options: list[str] | None = None) -> None:
        try:
            super().parseOptions(options)
            if self.parent is not None:
                check_twistd(self.parent)
        except usage.UsageError as error:
            fail(f"{error} (see twistd evolution --help)", USAGE_STATUS)
        except StartupError as error:
            fail(str(error), STARTUP_STATUS)


def check_twistd(twistd: Any) -> None:
    """Refuse to go into the background, and to start beside the live process a pid file names."""
    if not (twistd.get("nodaemon", True) or twistd.get("debug")):
        raise usage.UsageError(
            "the host runs in the foreground only: twistd -n evolution ... (keep it running with nohup, "
            "tmux or a service manager)"
        )
    pid_file = twistd.get("pidfile")
    holder = _live_pid(pid_file) if pid_file else None
    if holder is not None:
        raise StartupError(
            f"another process ({holder}) holds the pid file {os.path.abspath(pid_file)}: give this host its own "
            "(twistd -n --pidfile=host2.pid evolution ...) or none (twistd -n --pidfile= evolution ...)"
        )


def _live_pid(path: str) -> int | None:
    """The process a pid file names, if it is still running (not this one)."""
    try:
        pid = int(Path(path).read_text().strip())
        os.kill(pid, 0)
    except (OSError, ValueError):  # no file, not a number, no such process (twistd removes a stale file)
        return None
    return pid if pid != os.getpid() else None
