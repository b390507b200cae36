# -*- test-case-name: tests.cli.test_evolution_try -*-
"""One bot tried against the house: a private host on loopback, house bots, the author's command, K games.

Offers ``TryoutSettings``, ``BotProcess`` (the author's command as a child
process, its last lines of output kept) and ``Tryout``, whose coroutine
``run()`` returns ``TryoutOutcome``: the records of the games the bot played
(in order) and, if the tryout could not go on, why.

How the private host, the house bots and the bot's command are set up, and
when a tryout gives up: docs/commands.md, "Trying a bot: evolution-try".
"""

from __future__ import annotations

import os
import shutil
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from twisted.internet import protocol
from twisted.internet.defer import Deferred, ensureDeferred, maybeDeferred
from twisted.logger import Logger
from twisted.python.failure import Failure

from evolution.games import game as game_named
from evolution.host.runner.game_runner import RunningGame
from evolution.host.wiring import Options, build_host
from evolution.net.client import play_remote
from evolution.store.records import GameRecord
from evolution.store.writer import StoreWriter

log = Logger()
OUTPUT_LINES = 12  # of the bot's standard output and error, kept to show when it fails


@dataclass(frozen=True)
class TryoutSettings:
    game: str
    command: tuple[str, ...]  # the author's command; {port} becomes the host's port
    games: int = 3
    players: int = 3
    house: tuple[str, ...] = ()  # the house bots' strategies, in turn (default: the game's honest ones)
    host: tuple[str, ...] = ()  # more twistd evolution options: --timeout, --dialect, --seed ...
    patience: float = 30.0  # seconds the bot has to sign up and begin a game, each time it is needed
    db: Path = Path("tryout.sqlite")

    def host_options(self) -> Options:
        """The private host's options, as ``twistd evolution`` takes them; ``usage.UsageError`` for a bad one."""
        options = Options()
        options.parseOptions([
            "--ladder", "--game", self.game, "--players", f"{self.players}-{self.players}", "--signup-window",
            "0.05", "--port", "tcp:0:interface=127.0.0.1", "--db", str(self.db), *self.host,
        ])
        return options

    def house_names(self) -> list[tuple[str, str]]:
        """(name, strategy) of each house bot."""
        strategies = self.house or game_named(self.game).house
        return [(f"house-{k} ({strategies[(k - 1) % len(strategies)]})", strategies[(k - 1) % len(strategies)])
                for k in range(1, self.players)]


@dataclass
class TryoutOutcome:
    games: list[GameRecord] = field(default_factory=list)  # the games the bot sat in, in order
    problem: str | None = None  # why the tryout stopped before its games were played
    output: list[str] = field(default_factory=list)  # the bot's last lines of output
    port: int = 0


class BotProcess(protocol.ProcessProtocol):
    """The author's command, its output's last lines kept; ``ended`` fires with its exit status (or a signal)."""

    def __init__(self, output: deque[str]) -> None:
        self.output = output
        self.ended: Deferred[str] = Deferred()
        self._partial = {1: b"", 2: b""}

    def childDataReceived(self, fd: int, data: bytes) -> None:
        lines = (self._partial.get(fd, b"") + data).split(b"\n")
        self._partial[fd] = lines.pop()[-4096:]
        self.output.extend(line.decode("utf-8", "replace")[:300] for line in lines)

    def processEnded(self, reason: Failure) -> None:
        for rest in self._partial.values():
            if rest:
                self.output.append(rest.decode("utf-8", "replace")[:300])
        status = getattr(reason.value, "exitCode", None)
        signal = getattr(reason.value, "signal", None)
        self.ended.callback(f"status {status}" if signal is None else f"signal {signal}")

    def stop(self) -> None:
        if self.transport is not None and self.transport.pid is not None:
            self.transport.signalProcess("TERM")


def start_command(reactor: Any, command: tuple[str, ...], port: int, output: deque[str]) -> BotProcess:
    """Start the author's command with ``{port}`` filled in; ``FileNotFoundError`` if there is no such program."""
    args = [argument.replace("{port}", str(port)) for argument in command]
    program = shutil.which(args[0])
    if program is None:
        raise FileNotFoundError(f"cannot run {args[0]!r}: no such program (give its path, e.g. ./{args[0]})")
    bot = BotProcess(output)
    env = {**os.environ, "EVOLUTION_HOST": "127.0.0.1", "EVOLUTION_PORT": str(port)}
    reactor.spawnProcess(bot, program, args, env=env)
    return bot


class Tryout:
    """One tryout, from the private host's start to its stop."""

    def __init__(self, settings: TryoutSettings, reactor: Any,
                 on_game: Callable[[GameRecord], None] = lambda record: None) -> None:
        self.settings = settings
        self.reactor = reactor
        self.on_game = on_game
        self.house = {name for name, _ in settings.house_names()}
        self.outcome = TryoutOutcome()
        self.output: deque[str] = deque(maxlen=OUTPUT_LINES)
        self.done: Deferred[None] = Deferred()
        self.bot: BotProcess | None = None
        self.began_since_start = 0
        self.in_game = False
        self._patience: Any = None

    async def run(self) -> TryoutOutcome:
        options = self.settings.host_options()
        writer = StoreWriter(options["db"], self.reactor)
        writer.open()
        host = build_host(options, writer, self.reactor)
        host.ladder.startService()
        listening = self.reactor.listenTCP(0, host.factory, interface="127.0.0.1")
        self.outcome.port = listening.getHost().port
        house = [self._house_bot(name, strategy, options["dialect"]) for name, strategy in self.settings.house_names()]
        host.runner.watch(self._game_event)
        stopped: Deferred[None] = Deferred()  # a signal (Ctrl-C) waits for it: the bot's process is not left behind
        trigger = self.reactor.addSystemEventTrigger("before", "shutdown", self._interrupted, stopped)
        try:
            await self._house_ready(host)
            self._start_bot()
            await self.done
        finally:
            await self._stop(host, listening, writer, house)
            self.reactor.removeSystemEventTrigger(trigger)
            stopped.callback(None)
        self.outcome.output = list(self.output)
        return self.outcome

    def _interrupted(self, stopped: Deferred[None]) -> Deferred[None]:
        self._finish("evolution-try was stopped by a signal")
        return stopped

    def _house_bot(self, name: str, strategy: str, dialect: str) -> Deferred:
        chosen = game_named(self.settings.game)
        playing = ensureDeferred(play_remote(self.reactor, "127.0.0.1", self.outcome.port, name,
                                             chosen.strategy(strategy), retries=0, dialect=dialect,
                                             game=self.settings.game))
        return playing.addErrback(lambda failure: None)  # the house plays until the tryout hangs up on it

    async def _house_ready(self, host: Any) -> None:
        """Until every house bot waits in the lobby (they sign up before the bot, so their names are theirs)."""
        ready: Deferred = Deferred()

        def check() -> None:
            if len(host.factory.lobby) >= len(self.house) and not ready.called:
                ready.callback(None)
            elif not ready.called:
                self.reactor.callLater(0.01, check)

        check()
        await ready

    # -- the bot's process ----------------------------------------------------------

    def _start_bot(self) -> None:
        self.began_since_start = 0
        try:
            self.bot = start_command(self.reactor, self.settings.command, self.outcome.port, self.output)
        except (FileNotFoundError, OSError) as error:
            self._finish(str(error))
            return
        self.bot.ended.addCallback(self._bot_ended)
        self._wait_for_game("it did not sign up and begin a game")

    def _bot_ended(self, status: str) -> None:
        self.bot = None
        if self.done.called:
            return
        if self.began_since_start == 0:
            self._finish(f"the bot's command ended ({status}) before it played a game")
        elif not self.in_game:
            log.info("the bot's command ended ({status}) after its game; starting it again", status=status)
            self._start_bot()

    def _wait_for_game(self, what: str) -> None:
        self._cancel_patience()
        seconds = self.settings.patience
        self._patience = self.reactor.callLater(seconds, self._finish, f"{what} within {seconds:g} s")

    def _cancel_patience(self) -> None:
        if self._patience is not None and self._patience.active():
            self._patience.cancel()
        self._patience = None

    # -- the games ------------------------------------------------------------------

    def _game_event(self, event: str, game: RunningGame) -> None:
        if self.done.called or all(name in self.house for name in game.names):
            return
        if event == "begin":
            self.in_game = True
            self.began_since_start += 1
            self._cancel_patience()
        elif event == "over":
            self.in_game = False
            record = next(record for record in reversed(game.runner.records) if record.id == game.id)
            self.outcome.games.append(record)
            self.on_game(record)
            if len(self.outcome.games) >= self.settings.games:
                self._finish(None)
            elif self.bot is None:  # its process ended during the game
                self._start_bot()
            else:
                self._wait_for_game("the bot neither began its next game nor ended")

    def _finish(self, problem: str | None) -> None:
        if not self.done.called:
            self._cancel_patience()
            self.outcome.problem = problem
            self.done.callback(None)

    async def _stop(self, host: Any, listening: Any, writer: StoreWriter, house: list[Deferred]) -> None:
        self._cancel_patience()
        if self.bot is not None:
            ended = self.bot.ended
            self.bot.stop()
            kill = self.reactor.callLater(5, _kill, self.bot)
            await ended
            if kill.active():
                kill.cancel()
        host.ladder.stopService()
        host.factory.stop()
        await maybeDeferred(host.runner.stop)  # with worker processes: once they have reported their games
        await listening.stopListening()
        for bot in house:
            bot.cancel()
        await writer.close()


def _kill(bot: BotProcess) -> None:
    if bot.transport is not None and bot.transport.pid is not None:
        bot.transport.signalProcess("KILL")

