"""Time limits on a test clock: sign-up deadlines, the lobby's window, each call's limit.

The host's own protocol and factory run over in-memory transports
(``StringTransport``) and a ``task.Clock``, so a 10 s window costs nothing.
"""

from __future__ import annotations

import json

from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.logger import formatEvent, globalLogPublisher
from twisted.trial import unittest

from evolution.games.evolution.net.proxy_player import ProxyPlayer
from evolution.games.evolution.rules.cards import ALL_CARDS
from evolution.games.evolution.rules.feeding import VegetarianChoice
from evolution.games.evolution.rules.player import FeedingState, PlayerFailure
from evolution.games.evolution.rules.player_state import PlayerView
from evolution.games.evolution.rules.species import Species
from evolution.net.host_connection import IN_LOBBY, PLAYING, HostProtocol
from evolution.net.lag import LagProbe
from evolution.net.lobbies import GameLobby
from evolution.net.signup import SignupConfig, SignupFactory


class Lobby:
    """A sign-up factory on a clock, recording the games it starts (held while ``lag``, on that clock, says so)."""

    def __init__(self, lag: LagProbe | None = None, **config) -> None:
        self.clock = lag.clock if lag is not None else Clock()
        self.games: list[list[HostProtocol]] = []
        self.factory = SignupFactory(SignupConfig(**config), GameLobby(self.games.append, lag), self.clock)
        self._port = 40000

    def connect(self) -> tuple[HostProtocol, StringTransport]:
        self._port += 1
        address = IPv4Address("TCP", "127.0.0.1", self._port)
        protocol = self.factory.buildProtocol(address)
        transport = StringTransport(peerAddress=address)
        protocol.makeConnection(transport)
        return protocol, transport

    def sign_up(self, name: str) -> tuple[HostProtocol, StringTransport]:
        protocol, transport = self.connect()
        protocol.dataReceived(json.dumps(name).encode() + b"\n")
        return protocol, transport


def in_game(**config) -> tuple[Clock, HostProtocol, ProxyPlayer]:
    """The first seat of a 3-player game on a test clock, with its proxy (1 s per call)."""
    lobby = Lobby(max_players=3, **config)
    for name in ("a", "b", "c"):
        lobby.sign_up(name)
    connection = lobby.games[0][0]
    connection.proxy = ProxyPlayer(connection, "c", lobby.clock, timeout=1.0)
    return lobby.clock, connection, connection.proxy


def received(transport: StringTransport) -> list:
    return [json.loads(line) for line in transport.value().splitlines()]


class SignUpDeadlineTests(unittest.TestCase):
    def test_no_first_byte_within_the_limit_closes_the_connection(self):
        lobby = Lobby(signup_timeout=5.0)
        _, transport = lobby.connect()
        lobby.clock.advance(4.99)
        self.assertFalse(transport.disconnecting)
        lobby.clock.advance(0.01)
        self.assertTrue(transport.disconnecting)
        self.assertEqual(transport.value(), b"")

    def test_the_rest_of_the_value_gets_the_limit_again_after_the_first_byte(self):
        lobby = Lobby(signup_timeout=5.0)
        protocol, transport = lobby.connect()
        lobby.clock.advance(4.0)
        protocol.dataReceived(b'"slow')
        lobby.clock.advance(4.99)
        self.assertFalse(transport.disconnecting)
        lobby.clock.advance(0.01)
        self.assertTrue(transport.disconnecting)
        self.assertEqual(lobby.factory.lobby, [])

    def test_a_name_in_time_is_answered_ok_and_the_deadline_is_gone(self):
        lobby = Lobby(signup_timeout=5.0)
        protocol, transport = lobby.sign_up("bot")
        self.assertEqual(received(transport), ["ok"])
        self.assertEqual(protocol.state, IN_LOBBY)
        lobby.clock.advance(60)
        self.assertFalse(transport.disconnecting)

    def test_each_of_many_connections_has_its_own_limit(self):
        lobby = Lobby(signup_timeout=5.0, max_players=8, window=60.0)
        silent = [lobby.connect() for _ in range(50)]
        lobby.clock.advance(1.0)
        waiting = [lobby.sign_up(f"bot {n}") for n in range(40)]  # five games' players: their limits end here
        late = [lobby.connect() for _ in range(50)]
        lobby.clock.advance(4.0)
        self.assertTrue(all(transport.disconnecting for _, transport in silent))
        self.assertFalse(any(transport.disconnecting for _, transport in late + waiting))
        lobby.clock.advance(1.0)
        self.assertTrue(all(transport.disconnecting for _, transport in late))
        self.assertEqual(len(lobby.games), 5)
        self.assertFalse(any(transport.disconnecting for _, transport in waiting))


class LobbyWindowTests(unittest.TestCase):
    def test_the_lobby_window_moves_with_each_sign_up_and_closes_once(self):
        lobby = Lobby(window=10.0, max_players=8)
        for name in "abcdefg":
            lobby.sign_up(name)
            lobby.clock.advance(1.0)
        self.assertEqual(lobby.games, [])
        lobby.clock.advance(8.99)
        self.assertEqual(lobby.games, [])
        lobby.clock.advance(0.01)
        self.assertEqual([len(game) for game in lobby.games], [7])
        lobby.factory.stop()
        self.assertEqual(lobby.clock.getDelayedCalls(), [])

    def test_a_game_starts_when_no_one_signed_up_for_the_window(self):
        lobby = Lobby(window=10.0)
        for name in ("a", "b", "c"):
            lobby.sign_up(name)
        lobby.clock.advance(9.99)
        self.assertEqual(lobby.games, [])
        lobby.clock.advance(0.01)
        self.assertEqual([[p.name for p in game] for game in lobby.games], [["c", "b", "a"]])

    def test_each_new_sign_up_restarts_the_window(self):
        lobby = Lobby(window=10.0)
        for name in ("a", "b", "c"):
            lobby.sign_up(name)
        lobby.clock.advance(9)
        lobby.sign_up("d")
        lobby.clock.advance(9)
        self.assertEqual(lobby.games, [])
        lobby.clock.advance(1)
        self.assertEqual([len(game) for game in lobby.games], [4])

    def test_below_the_minimum_the_lobby_waits_for_ever(self):
        lobby = Lobby(window=10.0)
        lobby.sign_up("a")
        lobby.sign_up("b")
        lobby.clock.advance(3600)
        self.assertEqual(lobby.games, [])

    def test_a_full_lobby_starts_at_once_and_a_new_one_opens(self):
        lobby = Lobby(max_players=3, window=10.0)
        for name in ("a", "b", "c", "d"):
            lobby.sign_up(name)
        self.assertEqual([[p.name for p in game] for game in lobby.games], [["c", "b", "a"]])
        self.assertTrue(all(p.state == PLAYING for p in lobby.games[0]))
        self.assertEqual([p.name for p in lobby.factory.lobby], ["d"])

    def test_a_player_leaving_below_the_minimum_stops_the_window(self):
        lobby = Lobby(window=10.0)
        first, transport = lobby.sign_up("a")
        lobby.sign_up("b")
        lobby.sign_up("c")
        first.connectionLost()
        lobby.clock.advance(20)
        self.assertEqual(lobby.games, [])
        self.assertEqual([p.name for p in lobby.factory.lobby], ["b", "c"])

    def test_after_the_last_game_a_sign_up_is_answered_game_full(self):
        lobby = Lobby(max_players=3, max_games=1)
        for name in ("a", "b", "c"):
            lobby.sign_up(name)
        _, transport = lobby.sign_up("late")
        self.assertEqual(received(transport), ["game full"])
        self.assertTrue(transport.disconnecting)


class CallLimitTests(unittest.TestCase):
    """A proxy's calls fail after their limit, measured on the injected clock."""

    def setUp(self) -> None:
        self.clock, self.connection, self.proxy = in_game()
        self.transport = self.connection.transport
        self.transport.clear()
        self.failures: list[str] = []
        self.proxy.on_failure = self.failures.append
        hand = ALL_CARDS[:4]
        self.proxy.start(0, PlayerView(0, (Species(),), hand))

    def test_no_reply_within_the_limit_fails_the_call_and_stops_reading_for_the_game_to_hang_up(self):
        answer = self.proxy.choose((), ((Species(),),))
        self.clock.advance(0.99)
        self.assertNoResult(answer)
        self.clock.advance(0.01)
        failure = self.failureResultOf(answer, PlayerFailure)
        self.assertEqual(failure.getErrorMessage(), "no reply to choose within 1 s")
        self.assertEqual(self.transport.producerState, "paused")  # nothing more is read
        self.assertFalse(self.transport.disconnecting)  # the game hangs up, after its word to the player
        self.assertEqual(self.failures, ["no reply to choose within 1 s"])

    def test_a_seat_nobody_holds_hangs_up_itself_when_it_fails(self):
        self.proxy.on_failure = None
        answer = self.proxy.choose((), ((Species(),),))
        self.clock.advance(1)
        self.failureResultOf(answer, PlayerFailure)
        self.assertTrue(self.transport.disconnecting)

    def test_a_reply_within_the_limit_is_the_answer(self):
        answer = self.proxy.choose((), ((Species(),),))
        self.clock.advance(0.5)
        self.connection.dataReceived(b"[0,[],[],[[1,2]],[]]\n")
        action = self.successResultOf(answer)
        self.assertEqual(action.food_card, 0)
        self.clock.advance(5)
        self.assertFalse(self.transport.disconnecting)

    def test_the_limit_covers_a_reply_that_trickles_in(self):
        state = FeedingState(0, (Species(population=2), Species(population=2)), (), 3, ())
        answer = self.proxy.feed_next(state)
        for byte in b" 1\n":  # the number would be complete on its own, but only after the limit
            self.clock.advance(0.6)
            self.connection.dataReceived(bytes([byte]))
        self.failureResultOf(answer, PlayerFailure)

    def test_every_call_after_a_failure_fails_at_once(self):
        self.connection.connectionLost()
        state = FeedingState(0, (Species(population=2), Species(population=2)), (), 3, ())
        failure = self.failureResultOf(self.proxy.feed_next(state), PlayerFailure)
        self.assertEqual(failure.getErrorMessage(), "disconnected before it was asked anything")
        self.assertRaises(PlayerFailure, self.proxy.start, 0, PlayerView(0, (), ()))

    def test_a_connection_closed_before_its_game_fails_its_first_question_at_once_not_at_the_limit(self):
        # A seat dealt to a bot that hung up before its game began (a tournament's table waiting for others): the
        # game's proxy hears it at once, and its first question fails then, where it waited out the limit.
        self.connection.connectionLost()
        late = ProxyPlayer(self.connection, "c", self.clock, timeout=1.0)
        self.connection.play(late)
        self.assertEqual((self.connection.state, late.failure), ("closed", "disconnected before it was asked anything"))
        state = FeedingState(0, (Species(population=2), Species(population=2)), (), 3, ())
        failure = self.failureResultOf(late.feed_next(state), PlayerFailure)
        self.assertEqual(failure.getErrorMessage(), "disconnected before it was asked anything")

    def test_a_closed_connection_names_the_question_left_unanswered_or_the_last_answered(self):
        state = FeedingState(0, (Species(population=2), Species(population=2)), (), 3, ())
        self.proxy.feed_next(state)
        self.connection.dataReceived(b"1\n")
        self.connection.connectionLost()
        self.assertEqual(self.proxy.failure, "disconnected between questions (its last reply was to feed-next)")

    def test_a_legal_feeding_choice_within_the_limit(self):
        state = FeedingState(0, (Species(population=2), Species(population=2)), (), 3, ())
        answer = self.proxy.feed_next(state)
        self.assertEqual(received(self.transport)[-1], [0, [[["food", 0], ["body", 0], ["population", 2], ["traits", []]]] * 2, [], 3, []])
        self.connection.dataReceived(b"1 ")
        self.assertEqual(self.successResultOf(answer), VegetarianChoice(1))


class NumberGraceTests(unittest.TestCase):
    """A complete number with no byte after it for the grace (0.05 s by default) is the whole answer."""

    def setUp(self) -> None:
        self.clock, self.connection, self.proxy = in_game()
        self.state = FeedingState(0, (Species(population=2), Species(population=2)), (), 3, ())

    def test_a_number_with_nothing_after_it_is_the_answer_once_the_grace_is_over(self):
        answer = self.proxy.feed_next(self.state)
        self.connection.dataReceived(b"1")
        self.clock.advance(0.049)
        self.assertNoResult(answer)
        self.clock.advance(0.001)
        self.assertEqual(self.successResultOf(answer), VegetarianChoice(1))
        self.assertFalse(self.connection.transport.disconnecting)

    def test_each_new_byte_restarts_the_grace(self):
        answer = self.proxy.feed_next(self.state)
        self.connection.dataReceived(b"1")
        self.clock.advance(0.04)
        self.connection.dataReceived(b"0")
        self.clock.advance(0.04)
        self.assertNoResult(answer)
        self.clock.advance(0.01)
        failure = self.failureResultOf(answer, PlayerFailure)
        self.assertIn("invalid reply to feed-next", failure.getErrorMessage())  # 10 is no board of its

    def test_what_cannot_be_a_whole_number_waits_for_more(self):
        answer = self.proxy.feed_next(self.state)
        self.connection.dataReceived(b"1.")
        self.clock.advance(0.5)
        self.assertNoResult(answer)
        self.connection.dataReceived(b"0 ")
        self.failureResultOf(answer, PlayerFailure)  # 1.0 is not an integer

    def test_without_a_grace_a_number_waits_for_its_delimiter(self):
        clock, connection, proxy = in_game(number_grace=0)
        answer = proxy.feed_next(self.state)
        connection.dataReceived(b"1")
        clock.advance(0.9)
        self.assertNoResult(answer)
        connection.dataReceived(b"\n")
        self.assertEqual(self.successResultOf(answer), VegetarianChoice(1))


class Socket(StringTransport):
    """A transport whose incoming bytes wait, as in a kernel's socket buffer, until the protocol reads them."""

    def __init__(self, protocol: HostProtocol) -> None:
        super().__init__()
        self.protocol = protocol
        self.waiting = b""

    def doRead(self) -> None:
        data, self.waiting = self.waiting, b""
        if data:
            self.protocol.dataReceived(data)


class HostDelayTests(unittest.TestCase):
    """A late reactor is the host's delay, never the bot's: what was in the socket in time counts."""

    def setUp(self) -> None:
        self.clock, self.connection, self.proxy = in_game()
        self.socket = Socket(self.connection)
        self.connection.transport = self.socket
        self.connection.read_waiting = lambda: self.socket.doRead()  # the test transport is no TCP connection
        self.failures: list[str] = []
        self.proxy.on_failure = self.failures.append
        self.proxy.start(0, PlayerView(0, (Species(),), ALL_CARDS[:4]))

    def test_a_reply_waiting_in_the_socket_when_the_limit_is_checked_is_the_answer(self):
        answer = self.proxy.choose((), ((Species(),),))
        self.clock.advance(0.5)
        self.socket.waiting = b"[0,[],[],[[1,2]],[]]\n"  # arrived in time; the reactor was busy elsewhere
        self.clock.advance(0.7)  # the sweep runs late, after the limit
        self.assertEqual(self.successResultOf(answer).food_card, 0)
        self.assertEqual(self.failures, [])
        self.assertFalse(self.socket.disconnecting)

    def test_with_nothing_in_the_socket_the_limit_fails_the_call(self):
        answer = self.proxy.choose((), ((Species(),),))
        self.clock.advance(1.0)
        self.assertEqual(self.failureResultOf(answer, PlayerFailure).getErrorMessage(), "no reply to choose within 1 s")
        self.assertEqual(self.failures, ["no reply to choose within 1 s"])


class OverloadTests(unittest.TestCase):
    """While the reactor runs late, a full lobby waits; when the lag falls, its game starts; the log says both once."""

    def test_a_full_lobby_waits_while_the_host_is_overloaded_and_starts_when_the_lag_falls(self):
        lines: list[str] = []
        observer = lambda event: lines.append(formatEvent(event))  # noqa: E731
        globalLogPublisher.addObserver(observer)
        self.addCleanup(globalLogPublisher.removeObserver, observer)
        clock = Clock()
        probe = LagProbe(clock, every=0.05, high=0.1, low=0.05)
        lobby = Lobby(probe, min_players=3, max_players=3)
        games = lobby.games
        clock.advance(0.3)  # the reactor was busy: the probe ran 250 ms late
        self.assertTrue(probe.overloaded)
        for name in ("a", "b", "c", "d", "e", "f", "g"):
            lobby.sign_up(name)
        self.assertEqual(games, [])
        self.assertEqual(len(lobby.factory.lobby), 7)
        held = [line for line in lines if "overloaded" in line]
        self.assertEqual(len(held), 1, lines)  # once, not per sign-up
        self.assertIn("250 ms late", held[0])
        clock.advance(0.05)  # on time again
        self.assertFalse(probe.overloaded)
        self.assertEqual([[p.name for p in game] for game in games], [["c", "b", "a"], ["f", "e", "d"]])
        self.assertEqual([p.name for p in lobby.factory.lobby], ["g"])
        self.assertEqual(len([line for line in lines if "lag fell" in line and "2 games" in line]), 1, lines)
        lobby.factory.stop()
        self.assertEqual(clock.getDelayedCalls(), [])

    def on_time(self, clock: Clock, seconds: float) -> None:
        """Let ``seconds`` pass with the reactor on time (the probe ticks every 50 ms)."""
        for _ in range(round(seconds / 0.05)):
            clock.advance(0.05)

    def test_a_game_whose_quiet_window_closed_while_held_starts_when_the_lag_falls(self):
        probe = LagProbe(Clock())
        lobby = Lobby(probe, min_players=3, max_players=8, window=10.0)
        for name in ("a", "b", "c"):
            lobby.sign_up(name)
        self.on_time(lobby.clock, 9.9)
        lobby.clock.advance(0.2)  # the window closes while the reactor runs 150 ms late
        self.assertTrue(probe.overloaded)
        self.assertEqual(lobby.games, [])
        lobby.clock.advance(0.05)  # on time again: the game has had its quiet window
        self.assertFalse(probe.overloaded)
        self.assertEqual([[p.name for p in game] for game in lobby.games], [["c", "b", "a"]])

    def test_players_left_over_from_a_hold_start_no_game_beyond_max_games(self):
        probe = LagProbe(Clock())
        lobby = Lobby(probe, min_players=3, max_players=3, window=10.0, max_games=1)
        lobby.clock.advance(0.3)
        for name in ("a", "b", "c", "d", "e", "f"):
            lobby.sign_up(name)
        self.on_time(lobby.clock, 20)
        self.assertEqual([[p.name for p in game] for game in lobby.games], [["c", "b", "a"]])
        self.assertEqual([p.name for p in lobby.factory.lobby], ["d", "e", "f"])
