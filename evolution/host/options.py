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
from evolution.games import DEFAULT_GAME, GAME_NAMES, Game, game
from evolution.jsonwire.framing import DEFAULT_MAX_DEPTH
from evolution.net.host_connection import SIGNUP_MAX_BYTES
from evolution.net.signup import (
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_PER_ADDRESS,
    DEFAULT_MAX_REPLY,
    DEFAULT_NUMBER_GRACE,
)
from evolution.store.journal import RESERVE_MIB
from evolution.text import short
from evolution.tournament.standings import FINAL_TIEBREAKS, PLAYOFFS

USAGE_STATUS, STARTUP_STATUS = 2, 1
MAX_SEED = 2**53 - 1  # exact in any JSON reader
FEWEST_PLAYERS = min(game(name).min_players for name in GAME_NAMES)  # of any game's
MOST_PLAYERS = max(game(name).max_players for name in GAME_NAMES)

# option: (default, lowest, highest)
SECONDS = {
    "timeout": (None, 0.01, 3600.0),  # the game's own default: Evolution 1 s, Fish 10 s
    "signup-timeout": (None, 0.01, 3600.0),  # the dialect's own (Fish's course protocol: 10 s), else 5 s
    "signup-window": (None, 0.01, 3600.0),  # 10 s for single games, 30 s per tournament sign-up period
    "number-grace": (DEFAULT_NUMBER_GRACE, 0.001, 1.0),
    "linger": (None, 0.01, 1_000_000.0),  # with --web: until stopped
}
WHOLE_NUMBERS = {
    "games": (None, 1, 1_000_000),
    "seed": (None, 0, MAX_SEED),
    "max-message": (DEFAULT_MAX_REPLY, 1024, 64 * 1024 * 1024),
    "max-depth": (DEFAULT_MAX_DEPTH, 3, 512),  # an Action4 nests 3 deep
    "max-connections": (DEFAULT_MAX_CONNECTIONS, MOST_PLAYERS, 1_000_000),
    "max-per-address": (None, 1, 1_000_000),  # DEFAULT_MAX_PER_ADDRESS, the host's own machine not capped
    "signup-periods": (2, 1, 100),
    "min-signups": (None, FEWEST_PLAYERS, 1_000_000),  # MIN of --players
    "max-signups": (1000, FEWEST_PLAYERS, 1_000_000),
    "rounds": (None, 1, 1000),
    "tournaments": (1, 1, 1_000_000),
    "journal-reserve": (RESERVE_MIB, 1, 65536),
    "workers": (os.cpu_count() or 1, 0, 256),
    "web-connections": (256, 1, 100_000),
}
SIGNUP_WINDOW = {"games": 10.0, "tournament": 30.0, "ladder": 1.0}
SIGNUP_TIMEOUT = 5.0  # when the dialect names no limit of its own
SWISS_ROUNDS = 5
TOURNAMENT_ONLY = ("signup-periods", "min-signups", "max-signups", "rounds", "tournaments")
VIEW_ONLY = ("view-only", "web", "db", "web-connections", "game", "host-name")  # what a process that plays no games takes


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


def _quote(text: str, limit: int = 40) -> str:
    """A value from the command line, quoted, escaped and cut short for a message."""
    return repr(short(text, limit))


def parse_players(text: str, chosen: Game | None = None) -> tuple[int, int]:
    """``MIN-MAX`` (or ``N``) within the game's bounds (Evolution's 3..8, Fish's 2..4)."""
    chosen = chosen or game(DEFAULT_GAME)
    low_text, _, high_text = text.partition("-")
    try:
        low = int(low_text)
        high = int(high_text) if high_text else low
    except ValueError:
        raise usage.UsageError(f"--players takes MIN-MAX, such as 3-8, not {_quote(text)}") from None
    fewest, most = chosen.min_players, chosen.max_players
    if not fewest <= low <= high <= most:
        raise usage.UsageError(
            f"--players {short(text, 40)}: a game needs between {fewest} and {most} players ({chosen.title}),"
            " MIN <= MAX"
        )
    return low, high


def _number(name: str, text: str, kind: type, what: str) -> Any:
    try:
        return kind(text)
    except ValueError:
        raise usage.UsageError(f"--{name} takes {what}, not {_quote(text)}") from None


def parse_seconds(name: str, text: str) -> float:
    """A number of seconds within the range ``SECONDS`` gives ``--name``."""
    _default, low, high = SECONDS[name]
    value = _number(name, text, float, "a number of seconds")
    if value <= 0:
        raise usage.UsageError(f"--{name} must be more than 0 seconds (allowed: {low:g} to {high:g})")
    if not low <= value <= high:  # also NaN and infinity
        raise usage.UsageError(f"--{name} must be {low:g} to {high:g} seconds, not {_quote(text)}")
    return value


def parse_whole(name: str, text: str) -> int:
    """A whole number within the range ``WHOLE_NUMBERS`` gives ``--name``."""
    _default, low, high = WHOLE_NUMBERS[name]
    value = _number(name, text, int, "a whole number")
    if value < low:
        raise usage.UsageError(f"--{name} must be at least {low} (allowed: {low} to {high})")
    if value > high:
        raise usage.UsageError(f"--{name} must be at most {high} (allowed: {low} to {high})")
    return value


def _seconds(name: str, what: str) -> list:
    default, low, high = SECONDS[name]
    return [name, None, None if default is None else f"{default:g}", f"{what} ({low:g} to {high:g})"]


def _whole(name: str, what: str) -> list:
    default, low, high = WHOLE_NUMBERS[name]
    return [name, None, None if default is None else str(default), f"{what} ({low} to {high})"]


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
        "stopped: bots sign up at any time and stay for game after game; --signup-window seconds after enough bots "
        "wait, all those waiting are seated at tables of similar openskill ratings, avoiding recent rematches; the ratings are "
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
        _seconds("timeout", "seconds a player has for each answer (default: "
                 + ", ".join(f"{name} {game(name).default_timeout:g}" for name in GAME_NAMES) + ")"),
        _seconds("signup-timeout", f"seconds for a sign-up's first byte, and again for the rest (default "
                 f"{SIGNUP_TIMEOUT:g}; fish's course dialect 10, as the course's server)"),
        _seconds(
            "signup-window",
            "seconds without a new sign-up before a game of at least MIN starts (default 10); with "
            "--tournament, the length of a sign-up period (default 30); with --ladder, how long after enough bots "
            "wait the next games form (default 1)",
        ),
        _seconds("number-grace", "seconds after which a number with nothing after it counts as complete"),
        _whole("games", "stop after this many games are over; by default, run until stopped"),
        _whole("seed", "seed of the first game's deal (a shuffle, a board), game k uses SEED+k-1; by default random,"
               " recorded"),
        ["db", None, "evolution.sqlite", "the results database: an SQLite file (created if missing), or a PostgreSQL "
         "database, postgresql://USER@HOST:PORT/NAME, which several hosts may share (docs/deploy.md)"],
        ["host-name", None, None, "this host's name, stored with each game and tournament it plays (default: the "
         "machine's name and --port's port, such as lab3:45678)"],
        ["journal", None, None, "the journal, where finished games wait while the database cannot take them "
         "(default: <db>.pending beside an SQLite --db; evolution-<host-name>.pending here for a PostgreSQL one)"],
        _whole("max-message", "largest message a signed-up client may send, in bytes"),
        _whole("max-depth", "deepest nesting a client's message may have"),
        _whole("journal-reserve", "MiB of disk reserved at start for the journal <db>.pending, so that a full disk "
               "still keeps finished games (about 50 games of 8 players per MiB)"),
        _whole("max-connections", "most connections at once; more are answered \"game full\""),
        _whole("max-per-address", "most connections one address may hold at once (sign-ups included); more are "
               f"answered \"game full\" (default {DEFAULT_MAX_PER_ADDRESS}, and none for the host's own machine, "
               "127.0.0.0/8 and ::1; given, it holds for every address)"),
        ["dialect", None, None, "the protocol's dialect (default: the game's first, the course's): "
         + "; ".join(f"{name} {', '.join(game(name).dialects)}" for name in GAME_NAMES)
         + " (evolution's seed002: tagged messages, \"ack\", the scores to every player at the end)"],
        ["resume", None, None, "go on with an interrupted tournament of --db: ID, or last (the default when --resume "
         "is given alone); its format, players, rounds, seed, game and time limit are the stored ones; its "
         "entrants sign up again by name (evolution-client --reconnect does) within --signup-window times "
         "--signup-periods seconds"],
        ["web", None, None, "serve the live web view on this endpoint too, e.g. tcp:8080:interface=127.0.0.1 (in a"
         " process of its own when --workers is above 0)"],
        _seconds("linger", "with --web: after the last game (--games) or tournament (--tournaments), keep the web view"
                 " up this long, then stop (default: until the host is stopped)"),
        _whole("web-connections", "with --web: most web connections at once; more are answered 503"),
        _whole("workers", "worker processes that play the games (default: the number of cores); 0 plays every game"
               " in the one process that signs players up"),
        ["tournament", None, None, "run tournaments instead of single games: knockout or swiss"],
        _whole("signup-periods", "with --tournament: sign-up periods before giving up"),
        _whole("min-signups", "with --tournament: players needed when a period ends (default: MIN of --players)"),
        _whole("max-signups", "with --tournament: sign-up ends at once with this many"),
        _whole("rounds", f"with --tournament swiss: rounds to play (default {SWISS_ROUNDS})"),
        _whole("tournaments", "with --tournament: stop after this many tournaments"),
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
        super().parseOptions(options)

    def postOptions(self) -> None:
        if self["view-only"]:
            self._check_view_only()
        if self["game"] not in GAME_NAMES:
            raise usage.UsageError(f"--game takes {' or '.join(GAME_NAMES)}, not {_quote(self['game'])}")
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
                f"--dialect of {chosen.name} takes {' or '.join(chosen.dialects)}, not {_quote(self['dialect'])}"
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
        self._check_port("port", self["port"])
        if self["web"] is not None:
            self._check_port("web", self["web"])
        elif self["linger"] is not None:
            raise usage.UsageError("--linger goes with --web: without a web view the host stops at the end")

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
                f"--final-tiebreak takes {' or '.join(FINAL_TIEBREAKS)}, not {_quote(self['final-tiebreak'])}"
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
            raise usage.UsageError(f"--tournament takes knockout or swiss, not {_quote(mode)}")
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

    def _check_resume(self) -> None:
        which = self["resume"]
        if which != "last" and not (which.isdigit() and int(which) >= 1):
            raise usage.UsageError(f"--resume takes a tournament's id or last, not {_quote(which)}")
        for clash in ("tournament", "games", "rounds"):
            if self[clash] is not None:
                raise usage.UsageError(f"--{clash} does not go with --resume: the tournament keeps its own")
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
        self["signup-timeout"] = chosen.dialect(self["dialect"]).signup.timeout or SIGNUP_TIMEOUT

    @staticmethod
    def _check_port(option: str, description: str) -> None:
        shown = _quote(description, 200)  # paths of certificates
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
