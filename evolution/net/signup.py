"""Sign-up: the factory that gathers the host's connections into its lobby, and the names it gives them.

Offers ``SignupConfig`` (game sizes, the window, the sign-up and message
limits, the dialect's sign-up rules), ``SignupFactory`` (its protocol is
``evolution.net.host_connection.HostProtocol``, one per connection; its
lobby's policy is ``evolution.net.lobbies``'s; a connection beyond
``max_connections`` is answered "game full" and closed at once),
``signup_name(value)`` (the name a sign-up gives, and whether it asks to be
told it; ``ValueError`` with the reason for anything else) and
``unique_name(name, taken)`` (the name kept as sent, or with the host's
``#k``).

What a sign-up is, what the factory offers a lobby's policy, and how names
are made unique: docs/architecture.md, "A connection in the host"
(docs/options.md, "Names are unique", for organisers).
"""

from __future__ import annotations

import ipaddress
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from twisted.internet.interfaces import IAddress, IReactorTime
from twisted.internet.protocol import Protocol, ServerFactory
from twisted.logger import Logger

from evolution.games import SignupRules
from evolution.jsonwire.framing import DEFAULT_MAX_DEPTH, encode_message
from evolution.net.host_connection import CLOSED, HostProtocol, show_address
from evolution.text import escape, plural, quoted

log = Logger()

DEFAULT_MAX_REPLY = 16 * 1024
"""The default longest message of a signed-up client. A player only ever answers with an
Action4 or a feeding choice; written compactly, the largest legal Action4 is about 2 KB (it
names each of at most 122 cards once, ``evolution.jsonwire.schema_bounds``), so 16 KiB leaves room
for any reasonable whitespace while keeping the reading of one message to a few milliseconds
whatever bytes it holds (the framing scanner reads about 2 bytes a microsecond at worst)."""
DEFAULT_MAX_CONNECTIONS = 4096
DEFAULT_MAX_PER_ADDRESS = 64  # a course lab's machine runs 40 bots; the host's own machine (loopback) is not capped
CAP_LOGGED_EVERY = 60.0  # seconds between log lines of one address held to its cap
DEFAULT_NUMBER_GRACE = 0.05
ASK_NAME = "sign-up"  # ["sign-up", name]: sign up, and be told the name the host gives
_HOST_SUFFIX = re.compile(r"#[0-9]+\Z")
_JSON_KINDS = {dict: "an object", list: "an array", bool: "true or false", int: "a number", float: "a number",
               type(None): "null"}


def signup_name(value: Any) -> tuple[str, bool]:
    """The name a sign-up gives where any JSON string is a name (stored as sent), and whether it asks to be
    told the name it gets (``["sign-up", name]``); ``ValueError`` with the reason for anything else."""
    if isinstance(value, str):
        return value, False
    if isinstance(value, list) and len(value) == 2 and value[0] == ASK_NAME and isinstance(value[1], str):
        return value[1], True
    what = _JSON_KINDS.get(type(value), type(value).__name__)
    raise ValueError(f'the sign-up is neither a JSON string nor ["{ASK_NAME}", name] but {what}')


def unique_name(name: str, taken: set[str]) -> str:
    """``name``, or ``name#k`` (k from 2 up) if it is taken or ends in ``#`` and digits, as the host's names do."""
    if name not in taken and not _HOST_SUFFIX.search(name):
        return name
    k = 2
    while f"{name}#{k}" in taken:
        k += 1
    return f"{name}#{k}"


@dataclass(frozen=True)
class SignupConfig:
    min_players: int = 3
    max_players: int = 8
    signup_timeout: float = 5.0
    window: float = 10.0
    max_games: int | None = None
    max_bytes: int = DEFAULT_MAX_REPLY
    max_depth: int = DEFAULT_MAX_DEPTH
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    number_grace: float = DEFAULT_NUMBER_GRACE
    max_per_address: int | None = None  # None: DEFAULT_MAX_PER_ADDRESS, loopback addresses not capped
    signup: SignupRules = SignupRules("ok", lambda value: signup_name(value))  # the dialect's; "ok" by default


class SignupFactory(ServerFactory):
    """Signs clients up into its lobby; the lobby's policy decides when they play."""

    protocol = HostProtocol
    noisy = False

    def __init__(self, config: SignupConfig, policy: Any, clock: IReactorTime) -> None:
        self.config = config
        self.clock = clock
        self.lobby: list[HostProtocol] = []
        self.open_connections = 0
        self.by_address: Counter[str] = Counter()  # open connections from each address
        self._capped: dict[str, tuple[float, int]] = {}  # address: (when its cap was last logged, refused since)
        self.policy = policy
        self.policy.attach(self)
        self.refusals: list[Callable[[Any, str], None]] = []  # told (connection, reason) of each refused sign-up

    def buildProtocol(self, addr: IAddress) -> Protocol | None:
        limit = self.config.max_connections
        if self.open_connections >= limit:
            log.info(
                "connection from {peer} answered 'game full': the host holds {limit} connections (--max-connections)",
                peer=show_address(addr),
                limit=limit,
            )
            return _GameFull()
        address = getattr(addr, "host", None)
        cap = self.cap_of(address)
        if address is not None and cap is not None and self.by_address[address] >= cap:
            self._held_to_cap(address, cap)
            return _GameFull()
        return super().buildProtocol(addr)

    def cap_of(self, address: str | None) -> int | None:
        """How many connections one address may hold at once (None: no cap)."""
        if self.config.max_per_address is not None:
            return self.config.max_per_address
        return None if address is None or _loopback(address) else DEFAULT_MAX_PER_ADDRESS

    def _held_to_cap(self, address: str, cap: int) -> None:
        """Log an address held to its cap: at once, then at most every CAP_LOGGED_EVERY s, with the count."""
        now = self.clock.seconds()
        logged, refused = self._capped.get(address, (None, 0))
        if logged is not None and now - logged < CAP_LOGGED_EVERY:
            self._capped[address] = (logged, refused + 1)
            return
        log.warn(
            "{address} holds {cap}, as many as one address may (--max-per-address): its next ones are "
            "answered 'game full'{since}", address=address, cap=plural(cap, "connection"),
            since=f" ({refused} refused since the last line)" if refused else "",
        )
        self._capped[address] = (now, 0)

    def opened(self, connection: HostProtocol) -> None:
        """A connection signs up here: counted in all and for its address."""
        self.open_connections += 1
        if connection.address is not None:
            self.by_address[connection.address] += 1

    def closed(self, connection: HostProtocol) -> None:
        """A connection counted here is closed (here, or by the worker it was handed to)."""
        self.open_connections -= 1
        address = connection.address
        if address is not None:
            self.by_address[address] -= 1
            if self.by_address[address] <= 0:
                del self.by_address[address]

    def is_full(self) -> bool:
        """True while the host takes no sign-ups (its policy says so)."""
        return not self.policy.accepting()

    def sign_up(self, connection: HostProtocol, value: Any) -> None:
        if self._full(connection):
            return
        try:
            sent, tell = self.config.signup.name(value)
        except ValueError as error:
            connection.refuse(str(error))
            return
        self._admit(connection, sent, tell)

    def sign_up_silent(self, connection: HostProtocol) -> None:
        """A client of a silent dialect kept silent: it signs up, named after its address."""
        if not self._full(connection):
            self._admit(connection, connection.peer, False)

    def _full(self, connection: HostProtocol) -> bool:
        """Answer "game full" and hang up if the host takes no more players."""
        if not self.is_full():
            return False
        log.info("sign-up from {peer} answered 'game full'", peer=connection.peer)
        connection.sendMessage("game full")
        connection.state = CLOSED
        connection.close()
        return True

    def _admit(self, connection: HostProtocol, sent: str, tell: bool) -> None:
        taken = {waiting.name for waiting in self.lobby} | self.policy.names_held()
        name = self.policy.claim(unique_name(sent, taken))
        if name is None:  # a tournament takes back only its own entrants
            log.info("sign-up of {name} from {peer} answered 'game full': no place awaits that name",
                     name=quoted(sent), peer=connection.peer)
            connection.sendMessage("game full")
            connection.state = CLOSED
            connection.close()
            return
        connection.signed_up(name, tell)
        self.lobby.append(connection)
        log.info(
            "signed up {name}{sent} from {peer} ({count} waiting)",
            name=quoted(connection.name),
            sent="" if sent == connection.name else f" (it sent {quoted(sent)}, taken or of the host's form)",
            peer=connection.peer,
            count=len(self.lobby),
        )
        self.policy.joined()

    def rejoin(self, connection: HostProtocol) -> None:
        """A player back from its game waits in the lobby again, last, as if it had just signed up."""
        if connection.state == CLOSED:
            return
        connection.wait(lambda reason: self.leave(connection, reason))
        self.lobby.append(connection)
        self.policy.joined()

    def leave(self, connection: HostProtocol, reason: str) -> None:
        if connection in self.lobby:
            self.lobby.remove(connection)
            connection.state = CLOSED
            log.info(
                "{name} left the lobby: {reason}", name=quoted(connection.name), reason=escape(reason)
            )
            self.policy.left()

    def status(self) -> dict[str, Any]:
        """Who is waiting, and what for (the policy's ``status``)."""
        return {"waiting": [connection.name for connection in self.lobby], **self.policy.status()}

    def take_lobby(self, count: int | None = None) -> list[HostProtocol]:
        """Everyone in the lobby (or its first ``count``), in sign-up order; they leave the lobby."""
        if count is None or count >= len(self.lobby):
            players, self.lobby = self.lobby, []
        else:
            players, self.lobby = self.lobby[:count], self.lobby[count:]
        return players

    def stop(self) -> None:
        """Close the lobby: the policy stops its timers; everyone waiting is hung up on."""
        self.policy.stop()
        for connection in list(self.lobby):
            self.leave(connection, "the host is stopping")
            connection.close()


class _GameFull(Protocol):
    """A connection beyond the limit: "game full", then hang up without reading."""

    def connectionMade(self) -> None:
        self.transport.write(encode_message("game full"))
        self.transport.loseConnection()


def _loopback(address: str) -> bool:
    try:
        return ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False
