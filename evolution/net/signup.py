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

import weakref
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any, Callable

from twisted.internet.defer import Deferred, maybeDeferred
from twisted.internet.interfaces import IAddress, IReactorTime
from twisted.internet.protocol import Protocol, ServerFactory
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.address_prefixes import loopback
from evolution.games import SignupRules
from evolution.jsonwire.framing import DEFAULT_MAX_DEPTH, encode_message
from evolution.net.host_connection import CLOSED, IN_LOBBY, SIGNING_UP, HostProtocol, show_address
from evolution.net.identity import ASK_NAME, Identity, IdentityStep, split_key
from evolution.reserved_names import HOST_SUFFIX
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
    if name not in taken and not HOST_SUFFIX.search(name):
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
        self.signups: Counter[str] = Counter()  # sign-ups by result: accepted, refused, full (the operator's figures)
        self.identity: IdentityStep | None = None  # --accounts roster|closed: who a sign-up is (None: open)
        self.identities: weakref.WeakKeyDictionary[HostProtocol, Identity] = weakref.WeakKeyDictionary()
        self._proving: set[HostProtocol] = set()
        self._pending: dict[HostProtocol, Identity] = {}  # proven, their sessions being claimed in the store
        self.sessions: Any = None  # a store several hosts share: each proven bot's one session (host.roster)

    def buildProtocol(self, addr: IAddress) -> Protocol | None:
        limit = self.config.max_connections
        if self.open_connections >= limit:
            log.info(
                "connection from {peer} answered 'game full': the host holds {limit} connections (--max-connections)",
                peer=show_address(addr),
                limit=limit,
            )
            self.signups["full"] += 1
            return _GameFull()
        address = getattr(addr, "host", None)
        cap = self.cap_of(address)
        if address is not None and cap is not None and self.by_address[address] >= cap:
            self._held_to_cap(address, cap)
            self.signups["full"] += 1
            return _GameFull()
        return super().buildProtocol(addr)

    def cap_of(self, address: str | None) -> int | None:
        """How many connections one address may hold at once (None: no cap)."""
        if self.config.max_per_address is not None:
            return self.config.max_per_address
        return None if address is None or loopback(address) else DEFAULT_MAX_PER_ADDRESS

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
        identity = self.identities.get(connection)
        if identity is not None and identity.session is not None:
            self.sessions.release(identity.name, identity.session)
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
        if connection in self._proving:
            connection.refuse("sent a second message before its sign-up was answered")
            return
        value, key = split_key(value)
        try:
            sent, tell = self.config.signup.name(value)
        except ValueError as error:
            self.signups["refused"] += 1
            connection.refuse(str(error) if self.identity is None else _unshown(value))
            return
        if self.identity is None:
            self._admit(connection, sent, tell)
        else:
            self._identify(connection, sent, key, tell)

    # -- the identity step (--accounts roster|closed: evolution.net.identity) ------------

    def _identify(self, connection: HostProtocol, sent: str, key: str | None, tell: bool) -> None:
        """Prove who the sign-up is (perhaps in a thread); then admit it under its public name, or refuse it."""
        self._proving.add(connection)
        maybeDeferred(self.identity.identify, sent, key, connection.address).addCallback(
            self._identified, connection, tell).addErrback(self._failed, connection)

    def is_live(self, name: str, asking: HostProtocol | None = None) -> bool:
        """True if a connection named ``name`` (not ``asking``) waits here, plays, or is being proven as that bot."""
        return (any(waiting.name == name for waiting in self.lobby) or name in self.policy.names_held()
                or any(identity.name == name for connection, identity in self._held() if connection is not asking))

    def _held(self) -> list[tuple[HostProtocol, Identity]]:
        """Each proven bot's connection here: open and signed up, or being signed up (its session being claimed)."""
        return [(connection, identity) for connection, identity in list(self.identities.items())
                if identity.proven and connection.state != CLOSED] + list(self._pending.items())

    def _one_session(self, identity: Identity, connection: HostProtocol) -> Identity:
        """``identity`` if it may sign up beside the connections held and being signed up here, else its refusal:
        its bot connected already, its owner at --max-per-owner, or the accounts read since refuse it."""
        if not identity.proven:
            return identity
        cap = self.identity.max_per_owner
        if self.is_live(identity.name, connection):
            refused = f"{identity.name} is connected already: one session per bot"
        elif cap is not None and sum(1 for other, held in self._held()
                                     if other is not connection and held.owner == identity.owner) >= cap:
            refused = f"{identity.owner} has {cap} bots connected, as many as an owner may (--max-per-owner)"
        else:
            refused = self.identity.refusal(identity, connection.address)
        return identity if refused is None else Identity(refused=refused)

    def _identified(self, identity: Identity, connection: HostProtocol, tell: bool) -> Deferred | None:
        if connection.state != SIGNING_UP:  # hung up, or refused, while it was being proven
            self._proving.discard(connection)
            return None
        identity = self._one_session(identity, connection)
        if identity.proven and self.sessions is not None:  # and on no other host of the store
            self._pending[connection] = identity  # counted until it is decided, so that two at once cannot pass
            return self.sessions.claim(identity.name).addCallback(self._claimed, identity, connection, tell)
        self._decided(identity, connection, tell)
        return None

    def _claimed(self, claim: tuple[str | None, str | None], identity: Identity, connection: HostProtocol,
                 tell: bool) -> None:
        holder, since = claim
        if holder is not None:
            identity = Identity(refused=f"{identity.name} is connected to the host {holder} already: one session"
                                        " per bot")
        else:
            identity = replace(identity, session=since)
        self._decided(identity, connection, tell)

    def _decided(self, identity: Identity, connection: HostProtocol, tell: bool) -> None:
        self._proving.discard(connection)
        self._pending.pop(connection, None)
        going_on = connection.state == SIGNING_UP
        checked = self._one_session(identity, connection) if going_on else identity  # again: what came meanwhile
        if identity.session is not None and (checked is not identity or not going_on):
            self.sessions.release(identity.name, identity.session)  # claimed for a sign-up that goes no further
        if not going_on:
            return
        if checked.silent:
            connection.state = CLOSED
            connection.close()
        elif checked.refused is not None:
            self.signups["refused"] += 1
            connection.refuse(checked.refused)
        else:
            self.identities[connection] = checked  # before _full: a connection hung up on releases its session
            if not self._full(connection):
                self._admit(connection, checked.name, tell)

    def _failed(self, failure: Failure, connection: HostProtocol) -> None:
        """The identity step or the session's claim failed (the host's fault): one line, and the sign-up ends."""
        self._proving.discard(connection)
        self._pending.pop(connection, None)
        log.error("sign-up from {peer}: its identity could not be decided ({why}): hung up on",
                  peer=connection.peer, why=escape(f"{failure.type.__name__}: {failure.getErrorMessage()}"))
        if connection.state == SIGNING_UP:
            self.signups["refused"] += 1
        connection.close()

    def no_longer_proven(self, connection: HostProtocol) -> str | None:
        """Why ``connection``, a bot proven as it signed up, may not stay as the accounts stand now (None: it may)."""
        identity = self.identities.get(connection) if self.identity is not None else None
        return None if identity is None else self.identity.refusal(identity, connection.address)

    def turn_away_unproven(self) -> None:
        """The accounts were read again: each bot proven here that is now banned, outside its pinned prefixes or
        proven by a secret since replaced is hung up on: at once if it waits; if it plays, as its game ends (the
        game goes on), when it would wait again (``HostProtocol.wait``)."""
        for connection, _ in self._held():
            reason = self.no_longer_proven(connection)
            if reason is not None and connection.state == IN_LOBBY:
                connection.fail_waiting(reason)

    def sign_up_silent(self, connection: HostProtocol) -> None:
        """A client of a silent dialect kept silent: it signs up, named after its address."""
        if self._full(connection):
            return
        if self.identity is None:
            self._admit(connection, connection.peer, False)
        else:  # named after its address, which proves nothing: a guest in roster mode, refused in closed mode
            self._identify(connection, connection.peer, None, False)

    def _full(self, connection: HostProtocol) -> bool:
        """Answer "game full" and hang up if the host takes no more players."""
        if not self.is_full():
            return False
        log.info("sign-up from {peer} answered 'game full'", peer=connection.peer)
        self.signups["full"] += 1
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
            self.signups["full"] += 1
            connection.sendMessage("game full")
            connection.state = CLOSED
            connection.close()
            return
        connection.signed_up(name, tell)
        self.signups["accepted"] += 1
        connection.waiting_since = self.clock.seconds()
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
        """A player back from its game waits in the lobby again, last, as if it had just signed up (a bot whose
        proof no longer holds leaves it at once: ``HostProtocol.wait``)."""
        if connection.state == CLOSED:
            return
        connection.waiting_since = self.clock.seconds()
        self.lobby.append(connection)
        connection.wait(lambda reason: self.leave(connection, reason))
        if connection.state != CLOSED:
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

    def take(self, players: list[HostProtocol]) -> list[HostProtocol]:
        """``players`` (all waiting in the lobby) leave it; they are returned."""
        taken = set(players)
        self.lobby = [connection for connection in self.lobby if connection not in taken]
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


def _unshown(value: Any) -> str:
    """Why a sign-up that gives no name is refused with --accounts on: what it sent is named only by its kind (a
    course client's name may be its secret; a key form with a field too many holds the key)."""
    what = f"a string of {len(value)} characters" if isinstance(value, str) else _JSON_KINDS.get(type(value), "?")
    return f"the sign-up gives no name this game takes ({what}; not shown, as it may hold a secret)"
