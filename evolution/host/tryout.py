# -*- test-case-name: tests.cli.test_evolution_try -*-
"""One bot tried against the house: a private host on loopback, house bots, the author's command, its games.

Offers ``TryoutSettings`` (with ``plan()``: the games, ``evolution.tournament.
gauntlet``'s), ``PlayedGame`` (a game the bot sat in, and its seat),
``BotProcess`` (the author's command as a child process in a process group of
its own, its last lines of output kept) and ``Tryout``, whose coroutine
``run()`` returns ``TryoutOutcome``: the games the bot played (in order) and,
if the tryout stopped before them, why. ``Tryout.interrupt(why)`` stops it
(a signal: the command, the house and the host's worker processes are
stopped, and ``run()`` returns); a second one kills what is left at once.

How the private host, the house bots and the bot's command are set up, and
when a tryout gives up: docs/commands.md, "Trying a bot: evolution-try".
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from twisted.internet import protocol
from twisted.internet.defer import Deferred, ensureDeferred, maybeDeferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.games import game as game_named
from evolution.host.modes.tryout_lobby import Role, TryoutLobby
from evolution.host.runner.game_runner import GameOutcome
from evolution.host.wiring import Options, build_host
from evolution.net.client import play_remote
from evolution.store.records import GameRecord, SeatRecord
from evolution.store.writer import StoreWriter
from evolution.tournament.gauntlet import BOT, House, Plan, Table, gauntlet_plan, tryout_plan

log = Logger()
OUTPUT_LINES = 12  # of the bot's standard output and error, kept to show when it fails
KILL_AFTER = 3.0  # seconds the bot's command has to end after SIGTERM, at the end, before SIGKILL


@dataclass(frozen=True)
class TryoutSettings:
    game: str
    command: tuple[str, ...]  # the author's command; {port} becomes the host's port
    games: int = 3  # in all; with ``gauntlet``, in each seat against each strategy
    players: int = 3
    house: tuple[str, ...] = ()  # the house bots' strategies, in turn (default: the game's honest ones)
    host: tuple[str, ...] = ()  # more twistd evolution options: --timeout, --dialect, --seed ...
    patience: float = 30.0  # seconds the bot has to sign up and begin a game, each time it is needed
    db: Path = Path("tryout.sqlite")
    gauntlet: bool = False

    def host_options(self) -> Options:
        """The private host's options, as ``twistd evolution`` takes them; ``usage.UsageError`` for a bad one."""
        options = Options()
        options.parseOptions([
            "--game", self.game, "--players", f"{self.players}-{self.players}", "--port",
            "tcp:0:interface=127.0.0.1", "--db", str(self.db), *self.host,
        ])
        return options

    def plan(self) -> Plan:
        """The house bots and the games, each with the bot's seat."""
        strategies = self.house or game_named(self.game).house
        make = gauntlet_plan if self.gauntlet else tryout_plan
        return make(self.players, strategies, self.games)

    def house_name(self, house: House) -> str:
        return game_named(self.game).house_name(house.number, house.strategy)


@dataclass(frozen=True)
class PlayedGame:
    """A game the bot sat in: its record, and the table it was planned as (the bot's seat, the house's)."""

    record: GameRecord
    table: Table

    @property
    def seat(self) -> SeatRecord:
        """The bot's seat."""
        return self.record.players[self.table.bot_seat - 1]


@dataclass
class TryoutOutcome:
    games: list[PlayedGame] = field(default_factory=list)  # the games the bot sat in, in order
    problem: str | None = None  # why the tryout stopped before its games were played
    signal: int | None = None  # the signal that stopped it, if one did
    output: list[str] = field(default_factory=list)  # the bot's last lines of output
    port: int = 0


# A trampoline: the command leads a process group of its own, so that what it starts in turn ends with it.
_OWN_GROUP = ("import os, sys\nos.setpgid(0, 0)\ntry:\n    os.execv(sys.argv[1], sys.argv[2:])\n"
              "except OSError as error:\n    sys.exit(f'cannot run {sys.argv[2]}: {error.strerror}')")


class BotProcess(protocol.ProcessProtocol):
    """The author's command, its output's last lines kept; ``ended`` fires with its exit status (or a signal)."""

    def __init__(self, output: deque[str]) -> None:
        self.output = output
        self.ended: Deferred[str] = Deferred()
        self._partial = {1: b"", 2: b""}
        self.group: int | None = None

    def connectionMade(self) -> None:
        self.group = self.transport.pid

    def childDataReceived(self, fd: int, data: bytes) -> None:
        lines = (self._partial.get(fd, b"") + data).split(b"\n")
        self._partial[fd] = lines.pop()[-4096:]
        self.output.extend(line.decode("utf-8", "replace")[:300] for line in lines)

    def processEnded(self, reason: Failure) -> None:
        for rest in self._partial.values():
            if rest:
                self.output.append(rest.decode("utf-8", "replace")[:300])
        status = getattr(reason.value, "exitCode", None)
        number = getattr(reason.value, "signal", None)
        self.ended.callback(f"status {status}" if number is None else f"signal {number}")

    def signal_group(self, number: int) -> None:
        """``number`` to the command's process group (to the command alone before it has made it)."""
        if self.group is None:
            return
        try:
            os.killpg(self.group, number)
        except ProcessLookupError:
            if not self.ended.called and self.transport is not None and self.transport.pid is not None:
                os.kill(self.transport.pid, number)
        except PermissionError:  # the group's number is another's by now
            pass


def start_command(reactor: Any, command: tuple[str, ...], port: int, output: deque[str]) -> BotProcess:
    """Start the author's command with ``{port}`` filled in; ``FileNotFoundError`` if there is no such program."""
    args = [argument.replace("{port}", str(port)) for argument in command]
    program = shutil.which(args[0])
    if program is None:
        raise FileNotFoundError(f"cannot run {args[0]!r}: no such program (give its path, e.g. ./{args[0]})")
    bot = BotProcess(output)
    env = {**os.environ, "EVOLUTION_HOST": "127.0.0.1", "EVOLUTION_PORT": str(port)}
    reactor.spawnProcess(bot, sys.executable, [sys.executable, "-S", "-c", _OWN_GROUP, program, *args], env=env)
    return bot


class Tryout:
    """One tryout, from the private host's start to its stop."""

    def __init__(self, settings: TryoutSettings, reactor: Any,
                 on_game: Callable[[PlayedGame], None] = lambda played: None) -> None:
        self.settings = settings
        self.reactor = reactor
        self.on_game = on_game
        self.plan = settings.plan()
        self.outcome = TryoutOutcome()
        self.output: deque[str] = deque(maxlen=OUTPUT_LINES)
        self.done: Deferred[None] = Deferred()
        self.bot: BotProcess | None = None  # the command's process while it runs
        self.last_bot: BotProcess | None = None
        self.began_since_start = 0
        self.in_game = False
        self.house_ports: dict[int, House] = {}  # the local port of each house bot's connection
        self.house_in: set[House] = set()  # the house bots that have signed up
        self.house_clients: list[Deferred] = []
        self.host: Any = None
        self.lobby: TryoutLobby | None = None
        self._patience: Any = None

    async def run(self) -> TryoutOutcome:
        options = self.settings.host_options()
        writer = StoreWriter(options["db"], self.reactor)
        writer.open()
        host = self.host = build_host(options, writer, self.reactor, lobby=self._lobby)
        host.factory.refusals.append(self._refused)
        listening = self.reactor.listenTCP(0, host.factory, interface="127.0.0.1")
        self.outcome.port = listening.getHost().port
        try:
            for house in self.plan.house:
                self._house_bot(house, options["dialect"])
            self._wait("the house bots did not all sign up")
            await self.done
        finally:
            await self._stop(host, listening, writer)
        self.outcome.output = list(self.output)
        return self.outcome

    def _lobby(self, runner: Any) -> TryoutLobby:
        self.lobby = TryoutLobby(runner, self.plan.tables, self._role, self._arrived, self._began, self._over)
        return self.lobby

    def interrupt(self, why: str, number: int | None = None) -> None:
        """Stop (a signal): the command, the house and the host; a second time, kill what is left at once."""
        if self.done.called:
            self._kill_all()
            return
        self.outcome.signal = number
        self._finish(why)

    # -- the house ------------------------------------------------------------------

    def _house_bot(self, house: House, dialect: str) -> None:
        name = self.settings.house_name(house)
        ports: list[int] = []

        def connected(client: Any) -> None:
            ports.append(client.transport.getHost().port)
            self.house_ports[ports[0]] = house

        playing = ensureDeferred(play_remote(
            self.reactor, "127.0.0.1", self.outcome.port, name, game_named(self.settings.game).strategy(house.strategy),
            retries=0, dialect=dialect, game=self.settings.game, connected=connected,
        ))
        self.house_clients.append(playing)
        playing.addBoth(self._house_gone, house, name, dialect, ports)

    def _house_gone(self, result: Any, house: House, name: str, dialect: str, ports: list[int]) -> None:
        """A house bot's connection has ended: before it signed up, the tryout cannot go on; later, a new one."""
        for port in ports:  # the system may give the port to another connection now: the bot's, say
            self.house_ports.pop(port, None)
        if self.done.called:
            return
        if house not in self.house_in:
            why = result.getErrorMessage() if isinstance(result, Failure) else "the host hung up on it"
            self._finish(f"the house bot {name!r} could not sign up: {why}")
            return
        log.info("house bot {name} is gone; a new one takes its place", name=name)
        self._house_bot(house, dialect)

    def _role(self, connection: Any) -> Role:
        peer = connection.transport.getPeer() if connection.transport is not None else None
        return self.house_ports.get(getattr(peer, "port", None), BOT)

    def _arrived(self, role: Role) -> None:
        """A connection signed up: once every house bot has (they sign up first: their seats are theirs), the
        bot's command starts."""
        if role is BOT or self.done.called:
            return
        self.house_in.add(role)
        if len(self.house_in) == len(self.plan.house) and self.last_bot is None:
            self._start_bot()

    def _refused(self, connection: Any, reason: str) -> None:
        """The host refused a sign-up: the bot's ends the tryout, with the reason (it would not play)."""
        if self._role(connection) is BOT:
            self._finish(f"the host refused the bot's sign-up: {reason}")

    # -- the bot's process ----------------------------------------------------------

    def _start_bot(self) -> None:
        self.began_since_start = 0
        try:
            self.bot = self.last_bot = start_command(self.reactor, self.settings.command, self.outcome.port,
                                                     self.output)
        except (FileNotFoundError, OSError) as error:
            self._finish(str(error))
            return
        self.bot.ended.addCallback(self._bot_ended, self.bot)
        self._wait("it did not sign up and begin a game")

    def _bot_ended(self, status: str, bot: BotProcess) -> None:
        if self.bot is bot:
            self.bot = None
        if self.done.called:
            return
        if self.began_since_start == 0:
            self._finish(f"the bot's command ended ({status}) before it played a game")
        elif not self.in_game:
            log.info("the bot's command ended ({status}) after its game; starting it again", status=status)
            self._start_bot()

    def _wait(self, what: str) -> None:
        self._cancel_patience()
        seconds = self.settings.patience
        self._patience = self.reactor.callLater(seconds, self._finish, f"{what} within {seconds:g} s")

    def _cancel_patience(self) -> None:
        if self._patience is not None and self._patience.active():
            self._patience.cancel()
        self._patience = None

    # -- the games ------------------------------------------------------------------

    def _began(self, table: Table) -> None:
        self.in_game = True
        self.began_since_start += 1
        self._cancel_patience()

    def _over(self, table: Table, outcome: GameOutcome) -> None:
        self.in_game = False
        if self.done.called:
            return
        played = PlayedGame(outcome.record, table)
        self.outcome.games.append(played)
        self.on_game(played)
        if len(self.outcome.games) >= len(self.plan.tables):
            self._finish(None)
        elif self.bot is None:  # its process ended during the game
            self._start_bot()
        else:
            self._wait("the bot neither began its next game nor ended")

    def _finish(self, problem: str | None) -> None:
        if not self.done.called:
            self._cancel_patience()
            if self.lobby is not None:
                self.lobby.close()
            self.outcome.problem = problem
            self.done.callback(None)

    # -- stopping -------------------------------------------------------------------

    async def _stop(self, host: Any, listening: Any, writer: StoreWriter) -> None:
        self._cancel_patience()
        await self._stop_bot()
        host.factory.stop()
        await maybeDeferred(host.runner.stop)  # with worker processes: once they have reported their games
        await listening.stopListening()
        for client in self.house_clients:
            client.cancel()
        await writer.close()

    async def _stop_bot(self) -> None:
        """SIGTERM to the command's process group; SIGKILL to what is left of it once it ends or after a while."""
        bot = self.last_bot
        if bot is None:
            return
        if not bot.ended.called:
            bot.signal_group(signal.SIGTERM)
            kill = self.reactor.callLater(KILL_AFTER, bot.signal_group, signal.SIGKILL)
            await bot.ended
            if kill.active():
                kill.cancel()
        bot.signal_group(signal.SIGKILL)  # whatever it started and left behind

    def _kill_all(self) -> None:
        """SIGKILL to the command's process group and to the host's worker processes."""
        if self.last_bot is not None:
            self.last_bot.signal_group(signal.SIGKILL)
        pool = getattr(self.host.runner, "pool", None) if self.host is not None else None
        if pool is not None:
            pool.kill()
