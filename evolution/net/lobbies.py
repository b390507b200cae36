# -*- test-case-name: tests.net.test_time_limits, tests.host.modes.test_ladder_mode -*-
"""Lobby policies: what the sign-up factory does with the players in its lobby.

Offers three policies with the same small interface (``attach(factory)``,
``accepting()``, ``claim(name)``, ``joined()``, ``left()``, ``names_held()``,
``status()``, ``stop()``), and ``Gathering``, what a policy sees of the
factory:

- ``GameLobby(start_game, lag=None)``: single games, as the course's server
  runs them, side by side;
- ``SignupPeriods(...)``: a tournament's sign-up periods (``begin(players)``
  or ``give_up(players)``; ``open()`` again for the next one);
- ``LadderLobby(window, form, lag=None, choose=None)``: a ladder's rounds,
  formed as soon as ``BATCH_TABLES`` full tables wait, else ``window`` seconds
  after enough do; ``choose`` picks whom to seat (default: the first to come);
  its players wait again after each game (``back(connection)``,
  ``gone(connection)``).

When each policy starts a game, and what it does while the host is
overloaded: docs/architecture.md, "A connection in the host".
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

from twisted.internet.interfaces import IDelayedCall
from twisted.logger import Logger

from evolution.net.host_connection import CLOSED, PLAYING
from evolution.net.lag import LagProbe
from evolution.text import plural
from evolution.tournament.allocation import seated

log = Logger()

Players = Callable[[list[Any]], Any]
"""What a policy does with the players it takes from the lobby (connections, in sign-up order)."""

Choose = Callable[[list[Any], int], list[Any]]
"""Which of the players waiting (in sign-up order) take ``count`` seats: at most that many, none if none can play."""


def first_to_come(waiting: list[Any], count: int) -> list[Any]:
    return waiting[:count]


class Gathering(Protocol):
    """What a policy sees of the sign-up factory (``evolution.net.signup.SignupFactory``)."""

    lobby: list[Any]  # the signed-up connections waiting, in sign-up order
    clock: Any
    config: Any

    def take_lobby(self, count: int | None = None) -> list[Any]: ...

    def take(self, players: list[Any]) -> list[Any]: ...


class _Timer:
    """One pending call on the factory's clock, restartable and cancellable."""

    def __init__(self) -> None:
        self.call: IDelayedCall | None = None

    def start(self, clock: Any, seconds: float, function: Callable[[], None]) -> None:
        call = self.call
        if call is not None and call.active() and call.args == (function,):  # moved, not made anew each sign-up
            call.reset(seconds)
            return
        self.cancel()
        self.call = clock.callLater(seconds, self._fire, function)

    def _fire(self, function: Callable[[], None]) -> None:
        self.call = None
        function()

    def cancel(self) -> None:
        if self.call is not None and self.call.active():
            self.call.cancel()
        self.call = None

    def ends_at(self) -> float | None:
        """When the call is due (on the clock's time), or None if none is pending."""
        return self.call.getTime() if self.call is not None and self.call.active() else None


class _HeldWhenOverloaded:
    """What the policies that hold games while the host is overloaded share: attaching, and the lag probe."""

    lag: LagProbe | None

    def attach(self, factory: Gathering) -> None:
        self.factory = factory
        self.config = factory.config
        if self.lag is not None:
            self.lag.watch(self._lag_changed)
            self.lag.start()

    def _lag_changed(self, overloaded: bool) -> None:
        raise NotImplementedError


class GameLobby(_HeldWhenOverloaded):
    """Start a game of the players waiting, at ``max_players`` or after a quiet ``window``."""

    def __init__(self, start_game: Players, lag: LagProbe | None = None) -> None:
        self.start_game = start_game
        self.games_started = 0
        self.lag = lag
        self.holding = False  # a game waits for the host's lag to fall
        self._window = _Timer()
        self._window_passed = False  # the quiet window closed and no one has signed up since

    def accepting(self) -> bool:
        limit = self.config.max_games
        return limit is None or self.games_started < limit

    def claim(self, name: str) -> str | None:
        """Any sign-up takes the name the host gives it."""
        return name

    def joined(self) -> None:
        self._window_passed = False
        waiting = len(self.factory.lobby)
        if waiting >= self.config.max_players:
            self._start()
        elif waiting >= self.config.min_players:
            self._window.start(self.factory.clock, self.config.window, self._window_closed)

    def left(self) -> None:
        if len(self.factory.lobby) < self.config.min_players:
            self._window.cancel()

    def names_held(self) -> set[str]:
        return set()  # a player in a game is no reason to refuse its name to another

    def _window_closed(self) -> None:
        if len(self.factory.lobby) >= self.config.min_players:
            self._window_passed = True  # should the game be held, it need not wait another window
            self._start()

    def _start(self) -> None:
        self._window.cancel()
        if not self.accepting():  # the last game has begun; players left over from a hold keep waiting
            return
        if self.lag is not None and self.lag.overloaded:
            self._hold()
            return
        self._window_passed = False
        players = list(reversed(self.factory.take_lobby(self.config.max_players)))
        self.games_started += 1
        for connection in players:
            connection.state = PLAYING
        self.start_game(players)

    def _hold(self) -> None:
        if not self.holding:
            self.holding = True
            log.info(
                "the host is overloaded (the reactor ran {lag:.0f} ms late): new games wait in the lobby"
                " until the lag is under {low:.0f} ms; {count} waiting",
                lag=self.lag.lag * 1000, low=self.lag.low * 1000, count=len(self.factory.lobby),
            )

    def _lag_changed(self, overloaded: bool) -> None:
        if overloaded or not self.holding:
            return
        self.holding = False
        waiting, before = len(self.factory.lobby), self.games_started
        while len(self.factory.lobby) >= self.config.max_players and self.accepting() and not self.holding:
            self._start()
        if len(self.factory.lobby) >= self.config.min_players and not self.holding:
            if self._window_passed:
                self._start()
            else:
                self._window.start(self.factory.clock, self.config.window, self._window_closed)
        log.info(
            "the reactor's lag fell to {lag:.0f} ms: {games} that waited start ({count} were waiting)",
            lag=self.lag.lag * 1000, games=plural(self.games_started - before, "game"), count=waiting,
        )

    def status(self) -> dict[str, Any]:
        return {
            "mode": "games",
            "min_players": self.config.min_players,
            "max_players": self.config.max_players,
            "window": self.config.window,
            "starts_at": self._window.ends_at(),
            "open": self.accepting(),
        }

    def stop(self) -> None:
        self._window.cancel()
        if self.lag is not None:
            self.lag.stop()


class SignupPeriods:
    """Gather a tournament's players over sign-up periods."""

    def __init__(
        self, window: float, periods: int, minimum: int, maximum: int, begin: Players, give_up: Players
    ) -> None:
        self.window, self.periods = window, periods
        self.minimum, self.maximum = minimum, maximum
        self.begin, self.give_up = begin, give_up
        self.period = 0
        self.is_open = False
        self._timer = _Timer()

    def attach(self, factory: Gathering) -> None:
        self.factory = factory

    def open(self) -> None:
        """Open sign-up: the first period begins now."""
        self.is_open, self.period = True, 0
        self._next_period()

    def _next_period(self) -> None:
        self.period += 1
        log.info(
            "sign-up period {period} of {periods}: {seconds:g} s; {count} signed up, {minimum} needed",
            period=self.period, periods=self.periods, seconds=self.window, count=len(self.factory.lobby),
            minimum=self.minimum,
        )
        self._timer.start(self.factory.clock, self.window, self._period_over)

    def accepting(self) -> bool:
        return self.is_open

    def claim(self, name: str) -> str | None:
        """Any sign-up takes the name the host gives it."""
        return name

    def joined(self) -> None:
        if len(self.factory.lobby) >= self.maximum:
            self._close(self.begin)

    def left(self) -> None:
        pass

    def names_held(self) -> set[str]:
        return set()  # sign-up is closed while a tournament plays

    def _period_over(self) -> None:
        if len(self.factory.lobby) >= self.minimum:
            self._close(self.begin)
        elif self.period < self.periods:
            self._next_period()
        else:
            self._close(self.give_up)

    def _close(self, then: Players) -> None:
        self._timer.cancel()
        self.is_open = False
        then(self.factory.take_lobby())

    def status(self) -> dict[str, Any]:
        return {
            "mode": "tournament",
            "min_signups": self.minimum,
            "max_signups": self.maximum,
            "window": self.window,
            "period": self.period,
            "periods": self.periods,
            "period_ends_at": self._timer.ends_at(),
            "open": self.is_open,
        }

    def stop(self) -> None:
        self._timer.cancel()
        self.is_open = False


def _open(connection: Any) -> bool:
    """The connection is neither closed nor being closed by the host."""
    return connection.state != CLOSED and not getattr(connection.transport, "disconnecting", False)


BATCH_TABLES = 4
"""A ladder forms its next games at once, without waiting out its window, when this many full tables wait."""


class LadderLobby(_HeldWhenOverloaded):
    """A ladder's lobby: games form as soon as ``BATCH_TABLES`` full tables of players wait (full tables only,
    the rest waiting on), else ``window`` seconds after enough wait (everyone waiting then, as far as ``choose``
    can seat them); players come back after each game."""

    def __init__(self, window: float, form: Players, lag: LagProbe | None = None, choose: Choose = first_to_come
                 ) -> None:
        self.window = window
        self.form = form
        self.choose = choose
        self.lag = lag
        self.is_open = True
        self.holding = False  # games wait for the host's lag to fall
        self.playing: dict[Any, str] = {}  # the connections in games, and their names
        self._timer = _Timer()

    def accepting(self) -> bool:
        return self.is_open

    def claim(self, name: str) -> str | None:
        """Any sign-up takes the name the host gives it."""
        return name

    def joined(self) -> None:
        waiting, clock = len(self.factory.lobby), self.factory.clock
        if waiting < self.config.min_players or not self.is_open or self.holding:
            return
        due = self._timer.ends_at()
        if waiting >= BATCH_TABLES * self.config.max_players:
            if due is None or due > clock.seconds():  # on the reactor's next turn, with everyone back by then
                self._timer.start(clock, 0, self._due)
        elif due is None:
            self._timer.start(clock, self.window, self._due)

    def left(self) -> None:
        pass  # the round forms from whoever waits when it is due

    def names_held(self) -> set[str]:
        """The names of the players in games whose connections are open: a bot hung up on may come back as itself."""
        return {name for connection, name in self.playing.items() if _open(connection)}

    def _due(self) -> None:
        if self.lag is not None and self.lag.overloaded:
            self.holding = True
            log.info("the host is overloaded (the reactor ran {lag:.0f} ms late): the ladder's next games wait;"
                     " {count} waiting", lag=self.lag.lag * 1000, count=len(self.factory.lobby))
            return
        config, waiting = self.config, len(self.factory.lobby)
        if waiting >= BATCH_TABLES * config.max_players:  # full tables only: the last to come wait for the next
            count = waiting - waiting % config.max_players
        else:
            count = seated(waiting, config.min_players, config.max_players)
        players = self.factory.take(self.choose(list(self.factory.lobby), count))
        if not players:  # none can play together: they wait for the next to come
            return
        for connection in players:
            connection.state = PLAYING
            self.playing[connection] = connection.name
        self.form(players)
        self.joined()  # those left waiting (games of some sizes cannot hold every count) form the next

    def _lag_changed(self, overloaded: bool) -> None:
        if self.holding and not overloaded:
            self.holding = False
            log.info("the reactor's lag fell to {lag:.0f} ms: the ladder forms games again", lag=self.lag.lag * 1000)
            self.joined()

    def back(self, connection: Any) -> None:
        """``connection``'s game is over and it is still there: it waits for the next (or is hung up on, once closed)."""
        self.playing.pop(connection, None)
        if self.is_open:
            self.factory.rejoin(connection)
        else:
            connection.close()

    def gone(self, connection: Any) -> None:
        """``connection``'s game is over and so is the connection (removed, or it hung up)."""
        self.playing.pop(connection, None)

    def status(self) -> dict[str, Any]:
        return {
            "mode": "ladder",
            "min_players": self.config.min_players,
            "max_players": self.config.max_players,
            "window": self.window,
            "starts_at": self._timer.ends_at(),
            "playing": len(self.playing),
            "open": self.is_open,
        }

    def stop(self) -> None:
        self.is_open = False
        self._timer.cancel()
        if self.lag is not None:
            self.lag.stop()
