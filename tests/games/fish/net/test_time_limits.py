"""Fish's time limits on a test clock: the name, start, each call, a first-round move, and seed 004's silent sign-up.

The reference's limits (protocol.md 1-3): a name within 10 s (and 10 s more
to complete it), start's "void" within 3 s, every call within 10 s, a move
in a game's first round within 30 s. Each is an option (``--signup-timeout``,
``--start-timeout``, ``--timeout``, ``--first-move-timeout``) and each is
measured on the injected clock, so these tests wait for nothing. Games are
played by the referee with real proxies whose connections are answered by
our own client's conversation after a scripted delay.
"""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any, Callable

from twisted.internet.address import IPv4Address
from twisted.internet.defer import ensureDeferred
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.trial import unittest

from evolution.games import game
from evolution.games.fish.net.dialects import HOST_DIALECTS
from evolution.host.options import Options
from evolution.host.runner.game_runner import GameOutcome, GameRunner, GameSettings
from evolution.net.client import LastReply
from evolution.net.host_connection import IN_LOBBY, PLAYING, HostProtocol
from evolution.net.lobbies import GameLobby
from evolution.net.remote_seat import CallSettings, RemoteSeat
from evolution.net.signup import SignupConfig, SignupFactory
from evolution.outcomes import PlayerFailure

FISH = game("fish")
LIMITS = CallSettings(Clock(), 10.0, None, FISH.setup({}).limits())
Delay = Callable[[str, int], float]
"""How long a scripted player takes over its n-th message of a kind (``take-turn``, 1)."""


def options(*args: str) -> Options:
    parsed = Options()
    parsed.parseOptions(["--port", "tcp:0", *args])
    return parsed


class Lobby:
    """A sign-up factory for one of Fish's dialects on a test clock, with the sign-up limit the host's options give it."""

    def __init__(self, dialect: str, **config: Any) -> None:
        self.clock = Clock()
        self.games: list = []
        rules = HOST_DIALECTS[dialect].signup
        config.setdefault("signup_timeout", options("--game", "fish", "--dialect", dialect)["signup-timeout"])
        self.factory = SignupFactory(SignupConfig(signup=rules, **config), GameLobby(self.games.append), self.clock)

    def connect(self, port: int = 40001) -> tuple[HostProtocol, StringTransport]:
        address = IPv4Address("TCP", "127.0.0.1", port)
        protocol = self.factory.buildProtocol(address)
        transport = StringTransport(peerAddress=address)
        protocol.makeConnection(transport)
        return protocol, transport


class ScriptedConnection:
    """A connection a proxy writes to, answered by our client's conversation after ``delay`` seconds."""

    name, state = "Bot", PLAYING

    def __init__(self, clock: Clock, dialect: str, delay: Delay) -> None:
        self.clock = clock
        self.conversation = HOST_DIALECTS[dialect].client("Bot", FISH.strategy("greedy"))
        self.delay = delay
        self.seat: RemoteSeat | None = None
        self.messages_sent = 0
        self.asked: dict[str, int] = {}
        self.closed = False

    def sendEncoded(self, text: str) -> None:
        self.messages_sent += 1
        value = json.loads(text)
        kind = value[0] if isinstance(value, list) else value["Communication"]
        self.asked[kind] = self.asked.get(kind, 0) + 1
        self.clock.callLater(self.delay(kind, self.asked[kind]), self._answer, value, self.messages_sent)

    def _answer(self, value: Any, sent: int) -> None:
        answer = self.conversation.handle(value)
        if isinstance(answer, LastReply):
            answer = answer.value
        if not self.closed:
            self.seat.message_received(json.loads(json.dumps(answer)), sent)

    def play(self, seat: RemoteSeat) -> None:  # the host's game runner hands it a seat outside any game
        self.seat = seat

    def read_waiting(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


def play(dialect: str, delays: list[Delay], calls: CallSettings = LIMITS) -> tuple[Any, Clock]:
    """A game of greedy scripted players (``delays`` each) on a 4x5 board; its result, after the clock ran out."""
    clock = Clock()
    calls = CallSettings(clock, calls.timeout, None, calls.limits)
    connections = [ScriptedConnection(clock, dialect, delay) for delay in delays]
    proxies = [HOST_DIALECTS[dialect].proxy(c, f"p{seat}", seat, calls) for seat, c in enumerate(connections, 1)]
    for connection, proxy in zip(connections, proxies):
        connection.seat = proxy
    referee = FISH.new_referee(proxies, FISH.setup({"board": (4, 5), "fish": 2}), None)
    result = ensureDeferred(referee.play())
    for _ in range(2000):
        clock.advance(0.5)
    return result, clock


def at_once(kind: str, count: int) -> float:
    return 0.001


def slow(when: str, count: int, seconds: float) -> Delay:
    """Answers at once, except its ``count``-th message of kind ``when``, after ``seconds``."""
    return lambda kind, n: seconds if (kind, n) == (when, count) else 0.001


class SignUpTests(unittest.TestCase):
    def test_the_course_protocol_waits_10_s_for_a_name_seed_004_and_evolution_5(self):
        self.assertEqual(options("--game", "fish")["signup-timeout"], 10.0)
        self.assertEqual(options("--game", "fish", "--signup-timeout", "2")["signup-timeout"], 2.0)
        self.assertEqual(options("--game", "fish", "--dialect", "seed004")["signup-timeout"], 5.0)
        self.assertEqual(options()["signup-timeout"], 5.0)

    def test_a_name_has_10_s_to_begin_and_10_s_more_to_end(self):
        lobby = Lobby("course")
        protocol, transport = lobby.connect()
        lobby.clock.advance(9.99)
        protocol.dataReceived(b'"Sl')
        lobby.clock.advance(9.99)
        self.assertFalse(transport.disconnecting)
        lobby.clock.advance(0.01)
        self.assertTrue(transport.disconnecting)

    def test_a_course_name_is_answered_with_nothing(self):
        lobby = Lobby("course")
        protocol, transport = lobby.connect()
        protocol.dataReceived(b'"Pz"\n')
        self.assertEqual((protocol.state, protocol.name, transport.value()), (IN_LOBBY, "Pz", b""))

    def test_a_name_the_course_server_would_refuse_is_refused(self):
        for name in ("", "bot 1", "x" * 13, "Pz2", ["sign-up", "Pz"], 7):
            lobby = Lobby("course")
            protocol, transport = lobby.connect()
            protocol.dataReceived(json.dumps(name).encode() + b"\n")
            self.assertTrue(transport.disconnecting, name)
            self.assertEqual((lobby.factory.lobby, transport.value()), ([], b""))

    def test_a_seed_004_client_is_signed_up_after_2_s_of_silence_named_after_its_address(self):
        lobby = Lobby("seed004")
        protocol, transport = lobby.connect(45678)
        protocol.dataReceived(b" \n")  # whitespace is silence
        lobby.clock.advance(1.99)
        self.assertEqual(lobby.factory.lobby, [])
        lobby.clock.advance(0.01)
        self.assertEqual((protocol.state, protocol.name, transport.value()), (IN_LOBBY, "127.0.0.1:45678", b""))

    def test_a_seed_004_client_that_speaks_first_is_refused(self):
        lobby = Lobby("seed004")
        protocol, transport = lobby.connect()
        protocol.dataReceived(b'"Pz"')
        self.assertTrue(transport.disconnecting)
        lobby.clock.advance(10)
        self.assertEqual(lobby.factory.lobby, [])


class GreetingTests(unittest.TestCase):
    """start and end as the host's game runner asks them, through the course dialect."""

    def seat(self, delay: float) -> tuple[RemoteSeat, Clock]:
        clock = Clock()
        connection = ScriptedConnection(clock, "course", lambda kind, n: delay)
        seat = RemoteSeat.calling(connection, "Pz", CallSettings(clock, 10.0, None, LIMITS.limits))
        connection.seat = seat
        return seat, clock

    def test_start_is_answered_within_3_s(self):
        seat, clock = self.seat(2.9)
        said = HOST_DIALECTS["course"].greeting(seat)
        clock.advance(2.9)
        self.assertIsNone(self.successResultOf(said))

    def test_no_void_to_start_within_3_s_fails_the_player(self):
        seat, clock = self.seat(3.1)
        said = HOST_DIALECTS["course"].greeting(seat)
        clock.advance(3.0)
        self.assertEqual(self.failureResultOf(said, PlayerFailure).getErrorMessage(), "no reply to start within 3 s")

    def test_end_has_the_time_of_any_call(self):
        seat, clock = self.seat(9.9)
        said = HOST_DIALECTS["course"].farewell(seat, True)
        clock.advance(9.9)
        self.assertIsNone(self.successResultOf(said))

    def test_end_goes_to_the_players_still_in_and_not_to_one_removed_whose_connection_is_closing(self):
        clock = Clock()
        runner = GameRunner.in_host(GameSettings(game="fish"), None, clock)
        winner, removed = (ScriptedConnection(clock, "course", at_once) for _ in range(2))
        record = SimpleNamespace(players=[SimpleNamespace(rank=1), SimpleNamespace(rank=None)])
        runner._farewells(GameOutcome(record, [winner, removed]))
        clock.advance(1)
        self.assertEqual((winner.asked, removed.asked), ({"end": 1}, {}))

    def test_the_start_limit_is_an_option(self):
        self.assertEqual(FISH.setup({"start-timeout": 0.5}).limits()["start"], 0.5)
        self.assertEqual(options("--game", "fish", "--start-timeout", "1.5")["setup"].limits()["start"], 1.5)


class MoveLimitTests(unittest.TestCase):
    def test_a_first_round_move_has_30_s(self):
        result, _ = play("course", [slow("take-turn", 1, 29.5), at_once])
        self.assertEqual(self.successResultOf(result).removals, ())

    def test_a_first_round_move_has_no_more(self):
        result, _ = play("course", [slow("take-turn", 1, 30.5), at_once])
        [removal] = self.successResultOf(result).removals
        self.assertEqual((removal.id, removal.reason), (1, "no reply to take-turn within 30 s"))

    def test_a_later_move_has_10_s(self):
        result, _ = play("course", [slow("take-turn", 2, 10.5), at_once])
        [removal] = self.successResultOf(result).removals
        self.assertEqual((removal.id, removal.reason), (1, "no reply to take-turn within 10 s"))

    def test_placements_and_colours_have_10_s(self):
        for kind in ("setup", "playing-as", "playing-with"):
            result, _ = play("course", [at_once, slow(kind, 1, 10.5)])
            [removal] = self.successResultOf(result).removals
            self.assertEqual((removal.id, removal.reason), (2, f"no reply to {kind} within 10 s"))

    def test_seed_004_gives_a_first_move_the_time_of_any_call(self):
        result, _ = play("seed004", [slow("Action", 1, 10.5), at_once])
        [removal] = self.successResultOf(result).removals
        self.assertEqual(removal.reason, "no reply to Action within 10 s")

    def test_the_first_move_limit_is_an_option(self):
        calls = CallSettings(Clock(), 10.0, None, FISH.setup({"first-move-timeout": 12.0}).limits())
        result, _ = play("course", [slow("take-turn", 1, 12.5), at_once], calls)
        [removal] = self.successResultOf(result).removals
        self.assertEqual(removal.reason, "no reply to take-turn within 12 s")

    def test_a_time_limit_out_of_range_is_a_usage_error(self):
        from twisted.python.usage import UsageError

        for value in ("0", "nan", "inf", "3601", "soon"):
            with self.assertRaises(UsageError) as caught:
                options("--game", "fish", "--first-move-timeout", value)
            self.assertIn("--first-move-timeout takes 0.01 to 3600 seconds", str(caught.exception))
