# -*- test-case-name: tests.cli.test_evolution_try -*-
"""``evolution-try``'s lobby: its planned games, one at a time, each with the bot in its planned seat.

Offers ``TryoutLobby(runner, tables, role, arrived, began, over)``, a lobby
policy (the interface of ``evolution.net.lobbies``'s). ``role(connection)``
says who a signed-up connection is: a house bot of the plan (a ``House`` of
``evolution.tournament.gauntlet``) or the bot (``BOT``); ``arrived(role)`` is
told of each new one. A game begins as soon as the bot and the house bots of
the next table wait, seated as the table says, after the dialect's greeting
to those that have not heard it (Fish's ``start``); after the game, those still
connected wait again, as on a ladder. ``began(table)`` is told as a game
begins, ``over(table, outcome)`` as it ends. ``close()``: no more games.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from evolution.host.runner.game_runner import GameOutcome, GameRunner
from evolution.net.host_connection import CLOSED, PLAYING
from evolution.tournament.gauntlet import House, Table

Role = House | None


class TryoutLobby:
    """Plays ``tables`` in order, one game at a time, on the connections that wait."""

    def __init__(
        self, runner: GameRunner, tables: Sequence[Table], role: Callable[[Any], Role],
        arrived: Callable[[Role], None], began: Callable[[Table], None],
        over: Callable[[Table, GameOutcome], None],
    ) -> None:
        self.runner = runner
        self.tables = list(tables)
        self.played = 0  # tables begun
        self.role, self.arrived, self.began, self.over = role, arrived, began, over
        self.is_open = True
        self.playing: dict[Any, str] = {}  # the connections in the game (or being greeted), and their names
        self.roles: dict[Any, Role] = {}  # every connection seen, and who it is
        self._greeted: set[Any] = set()  # a connection back from a worker is the same object

    def attach(self, factory: Any) -> None:
        self.factory = factory
        self.config = factory.config

    def accepting(self) -> bool:
        return self.is_open

    def names_held(self) -> set[str]:
        """The names of those in the game: a bot hung up on may sign up again as itself."""
        return {name for connection, name in self.playing.items() if connection.state != CLOSED}

    def claim(self, name: str) -> str | None:
        """Any sign-up takes the name the host gives it."""
        return name

    def joined(self) -> None:
        for connection in self.factory.lobby:
            if connection not in self.roles:
                self.roles[connection] = self.role(connection)
                self.arrived(self.roles[connection])
        if self.is_open and not self.playing and self.played < len(self.tables):
            self._seat(self.tables[self.played])

    def left(self) -> None:
        pass

    def _seat(self, table: Table) -> None:
        seated: list[Any] = []
        for role in table.seats:
            found = next((connection for connection in self.factory.lobby
                          if self.roles[connection] == role and connection not in seated), None)
            if found is None:
                return  # the table waits for its players
            seated.append(found)
        self.factory.lobby = [connection for connection in self.factory.lobby if connection not in seated]
        for connection in seated:
            connection.state = PLAYING
            self.playing[connection] = connection.name
        new = [connection for connection in seated if connection not in self._greeted]
        self.runner.greet(new).addCallback(lambda _: self._play(table, seated))

    def _play(self, table: Table, seated: list[Any]) -> None:
        if not self.is_open or any(connection.state == CLOSED for connection in seated):
            self._back(seated)  # some did not answer the greeting: the table waits for them (or new ones)
            return
        self._greeted.update(seated)
        self.played += 1
        self.began(table)
        self.runner.play(seated).addCallback(lambda outcome: self._over(table, seated, outcome))

    def _over(self, table: Table, seated: list[Any], outcome: GameOutcome | None) -> None:
        if outcome is not None:  # (None: no game was played after all)
            self.over(table, outcome)
        self._back(seated)

    def _back(self, connections: list[Any]) -> None:
        for connection in connections:
            self.playing.pop(connection, None)
        for connection in connections:
            if connection.state == CLOSED:
                continue
            if self.is_open:
                self.factory.rejoin(connection)
            else:
                connection.close()

    def status(self) -> dict[str, Any]:
        return {"mode": "tryout", "games": len(self.tables), "played": self.played, "open": self.is_open}

    def close(self) -> None:
        """No more games: those waiting stay until the host hangs up on them, those playing when it ends."""
        self.is_open = False

    def stop(self) -> None:
        self.is_open = False
