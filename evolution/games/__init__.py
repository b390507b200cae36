"""The games the host serves, each one package behind one small interface.

Offers ``game(name)`` (the registered ``Game`` of that name, its package
imported on first use), ``GAME_NAMES`` (in the order registered),
``DEFAULT_GAME`` (``evolution``), ``UnknownGame``, and the interface a game
package offers the host: ``Game``, ``GameSetup``, ``Referee``, ``Dialect``,
``SignupRules``, ``Drawing`` and ``GameOption``; ``PackagedParts``, the part
of ``Game`` that a package laid out as Evolution and Fish are gets for free.

A game lives in ``evolution/games/<name>/``; its ``__init__`` holds ``GAME``,
the object that meets ``Game``, and imports nothing heavy (its rules, wire,
net and web modules load when the host first asks for them). Registering a
game is one line of ``REGISTERED``. The host's layers (sign-up, lobby,
tournaments, store, replays, web view, command lines) reach a game only
through ``game(name)``, never by importing its modules; inside a game,
dependencies point one way: rules (pure: no I/O, no Twisted, no JSON) ->
wire (JSON <-> rules values, checked against the game's schemas) -> net
(its proxy players and dialects, on the host's generic ``evolution.net``)
-> web (its drawing).

What the host asks of a game, in its own words (seats are numbered from 1 in
turn order, as the referee was given the players):

- a **referee** for a group of players (``Game.new_referee``): a coroutine
  ``play()`` that awaits a player's answer only when the answer is
  awaitable (so local games run with no event loop and remote ones on the
  reactor) and returns an ``evolution.outcomes.GameResult``; ``expel`` for a
  failure noticed between calls; ``removals``, ``turn``, ``step`` and
  ``scores()`` for the web view; an ``observer(event, referee)`` after each
  step;
- **dialects** (``Game.dialect``): how a connection signs up, the proxy
  player that stands for a remote player in one game, and what a player
  hears between and after games;
- **house players** (``Game.strategy``), **harnesses**, **schemas**, and its
  **drawing** for the web view.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any, Callable, Mapping, Protocol, Sequence

from evolution.outcomes import GameResult, Removal

DEFAULT_GAME = "evolution"

REGISTERED = {
    "evolution": "evolution.games.evolution",
    "fish": "evolution.games.fish",
}
"""Game name -> the package that holds it (its ``GAME``)."""

GAME_NAMES = tuple(REGISTERED)

Json = Any
Observer = Callable[[str, Any], None]


class UnknownGame(KeyError):
    """No game of that name is registered."""

    def __str__(self) -> str:
        return f"no game named {self.args[0]!r}; the games are {', '.join(GAME_NAMES)}"


_loaded: dict[str, Game] = {}


def game(name: str = DEFAULT_GAME) -> Game:
    """The game registered as ``name``; ``UnknownGame`` if there is none."""
    found = _loaded.get(name)
    if found is None:
        if name not in REGISTERED:
            raise UnknownGame(name)
        found = _loaded[name] = importlib.import_module(REGISTERED[name]).GAME
    return found


@dataclass(frozen=True)
class GameOption:
    """A command-line option of one game (``twistd evolution --game NAME``): ``--name VALUE``.

    ``parse(text)`` gives the value or raises ``ValueError`` with the sentence
    a user reads; ``default`` is the text parsed when the option is not given.
    """

    name: str
    default: str | None
    help: str
    parse: Callable[[str], Any] = str
    flag: bool = False  # an option without a value (True when given)


class GameSetup(Protocol):
    """How one game of this kind is set up, from the host's options (a deck, a board size...).

    ``seeded``: each game is dealt from a seed (game k of a host gets
    ``--seed + k - 1``, or a random one, recorded); otherwise every game is
    dealt alike. ``deal(seed)`` is the word the results store keeps (its
    ``deck`` column: ``shuffled``, ``sorted``, ``random``...). ``recorded()``
    is what a stored game keeps of its setup, as JSON, enough to replay it
    (``Game.setup_of`` reads it back). ``limits()``: the time limits of
    particular kinds of question, in seconds, beyond ``--timeout`` (Fish's
    ``start`` and ``first-move``; see ``CallSettings`` in
    ``evolution.net.remote_seat``).
    """

    seeded: bool

    def deal(self, seed: int | None) -> str: ...

    def recorded(self) -> dict[str, Json]: ...

    def limits(self) -> Mapping[str, float]: ...


class Referee(Protocol):
    """One game in progress (see the module's docstring); Evolution's ``Dealer``, Fish's ``FishReferee``."""

    turn: int
    step: str
    removals: list[Removal]
    checkpoints: int
    observer: Observer | None

    async def play(self) -> GameResult: ...

    def expel(self, player: Any, reason: str, after: int | None = None) -> int: ...

    def scores(self) -> dict[int, int]: ...


@dataclass(frozen=True)
class SignupRules:
    """How a connection of a dialect signs up.

    ``reply``: what the host answers a good sign-up (None: nothing, as Fish's
    course server). ``name(value)``: the name the first message gives and
    whether it asks to be told the name the host gives it (the reply is then
    ``[reply, name]``), or ``ValueError`` with the reason it is refused. ``silent``: the client
    sends no sign-up message at all; after ``silent_wait`` seconds of
    silence the host names it itself (``peer``, its address), and a client
    that says anything before is refused. ``timeout``: the sign-up's time
    limit when ``--signup-timeout`` is not given (None: the host's default).
    """

    reply: str | None
    name: Callable[[Json], tuple[str, bool]]
    silent: bool = False
    silent_wait: float = 2.0
    timeout: float | None = None


class Dialect(Protocol):
    """One way of speaking a game on the wire, as the host needs it.

    ``proxy(connection, name, seat, calls)``: the player that stands for the
    remote player on ``connection`` in one game (``calls``: ``CallSettings``
    of ``evolution.net.remote_seat``); ``greeting(seat)`` and
    ``farewell(seat, won)``: what a connection hears before its first game
    and when the host is done with it while it is still in (a ``Deferred``
    of the calls; a dialect that says nothing then sets them to None); ``game_over(seat,
    result, number, send_scores)``: what the player in seat ``number``, still
    in the game, hears when it ends (the dialect tells or asks through
    ``seat``, the game's proxy; a Deferred of that, or None); ``removal(reason,
    tell_removed)``: the message (a JSON value) a removed player hears before
    it is hung up on, or None.
    ``keeps_losers``: a player knocked out of a tournament stays connected,
    hearing nothing, until the farewell at its end (Fish's course protocol);
    otherwise it is hung up on when its round ends.
    """

    name: str
    signup: SignupRules
    keeps_losers: bool

    def proxy(self, connection: Any, name: str, seat: int, calls: Any) -> Any: ...

    greeting: Callable[[Any], Any] | None

    farewell: Callable[[Any, bool], Any] | None

    def game_over(self, seat: Any, result: GameResult, number: int, send_scores: bool) -> Any: ...

    def removal(self, reason: str, tell_removed: bool) -> Json | None: ...

    def client(self, name: str, player: Any) -> Any: ...


class Drawing(Protocol):
    """A game's picture in the web view.

    ``table(referee, names, hands)``: the JSON of the table after a step
    (``hands``: show what players hold, in replays only); ``narrator(names)``:
    an object whose ``step(event, referee, entries)`` reads the game's message
    log entries the step added and returns (and keeps, in ``lines``) short
    lines saying what happened; ``script``: the file of the game's drawing
    module (JavaScript), which the web view serves as
    ``/static/js/games/<game>.js``: it exports ``table(data, options)``,
    ``changes(table, before)`` and ``dealt(game)``, and may export ``words``
    (how its steps, turns and scores read) and ``style`` (its style sheet's
    name, beside it); ``style``: that style sheet's file (or None), served
    as ``/static/js/games/<game>.css`` (``evolution/web/static/js/drawings.js``
    says more).
    """

    script: Path
    style: Path | None

    def table(self, referee: Referee, names: Sequence[str], hands: bool = False) -> Json: ...

    def narrator(self, names: Sequence[str], keep: int | None = ...) -> Any: ...


class Game(Protocol):
    """What a game package offers the host (its ``GAME``)."""

    name: str  # as --game takes it
    title: str  # as people write it
    tie_break: str | None  # how its ranking splits equal scores, in words; None: equal scores share a rank
    min_players: int  # the rules' bounds on players per game
    max_players: int
    default_players: tuple[int, int]  # --players when not given
    default_timeout: float  # seconds for each answer, when --timeout is not given
    dialects: tuple[str, ...]  # the first is the default
    strategies: tuple[str, ...]  # house strategies by name; the first is what a client plays by default
    house: tuple[str, ...]  # the honest house players (evolution-local, evolution-try)
    player_methods: tuple[str, ...]  # the player interface a strategy of one's own must have
    options: tuple[GameOption, ...]  # the game's own command-line options
    knockout_runners_up: bool  # a knockout round leaving fewer than MIN players sends the best runners-up on

    def setup(self, options: Mapping[str, Any]) -> GameSetup: ...

    def setup_of(self, recorded: Mapping[str, Json]) -> GameSetup: ...

    def bot_name(self, strategy: str) -> str:
        """The name ``evolution-client`` signs up with when given none, playing the house strategy ``strategy``."""

    def house_name(self, number: int, strategy: str) -> str:
        """The name the ``number``-th house bot (from 1) of ``strategy`` signs up with (``evolution-try``): one
        that every dialect of the game takes, and that no two house bots share."""

    def deal_text(self, deck: str, seed: int | None) -> str:
        """How a game was dealt, for a person: ``seed 5``, ``sorted deck`` (from a record's deck and seed)."""

    def new_referee(
        self, players: Sequence[Any], setup: GameSetup, seed: int | None, observer: Observer | None = None
    ) -> Referee: ...

    def dialect(self, name: str) -> Dialect: ...

    def strategy(self, name: str) -> Any: ...

    def harnesses(self) -> Mapping[str, Callable[[str], Json]]:
        """The course's test harnesses: name -> answer(text), raising ``WireError`` for invalid input."""

    def schemas(self) -> Any:
        """The game's ``SchemaSet`` (``evolution.jsonwire.schema_set``)."""

    def message_checks(self) -> Any:
        """What ``evolution-schema check`` does beyond the schema: ``(readers, contexts)``.

        ``readers``: message name -> read(value), the whole pipeline for a
        message that needs nothing else; ``contexts``: reply name -> (the
        message it answers, read(that message), read(reply, context)).
        """

    def drawing(self) -> Drawing: ...


class PackagedParts:
    """``Game``'s parts, found where a game package keeps them, each module imported on first use.

    A game's ``GAME`` inherits these when its package (the module its class is defined in) holds
    ``net/dialects.py`` (``HOST_DIALECTS``), ``strategies`` (``BY_NAME``), ``wire/harness.py``
    (``HARNESSES`` and ``run_harness``), ``wire/schemas.py`` (``SCHEMAS``), ``wire/messages.py``
    (``MESSAGE_CHECKS``) and ``web/tables.py`` (``DRAWING``).
    """

    def _part(self, module: str, name: str) -> Any:
        return getattr(importlib.import_module(f"{type(self).__module__}.{module}"), name)

    def dialect(self, name: str) -> Dialect:
        return self._part("net.dialects", "HOST_DIALECTS")[name]

    def strategy(self, name: str) -> Any:
        return self._part("strategies", "BY_NAME")[name]()

    def harnesses(self) -> Mapping[str, Callable[[str], Json]]:
        names, run = self._part("wire.harness", "HARNESSES"), self._part("wire.harness", "run_harness")
        return {name: partial(run, name) for name in names}

    def schemas(self) -> Any:
        return self._part("wire.schemas", "SCHEMAS")

    def message_checks(self) -> Any:
        return self._part("wire.messages", "MESSAGE_CHECKS")

    def drawing(self) -> Drawing:
        return self._part("web.tables", "DRAWING")
