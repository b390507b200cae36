"""Fish's twins of Evolution's adversarial tests: a misbehaving bot goes, the game and the host go on.

Each test runs a real host on loopback (3 s per answer, ``hosting.ANSWER_LIMIT``: long enough for honest
bots in the test's process on a busy machine) with real clients:
good greedy ones and one offender, which plays greedily until its moment
comes (``fish_bots.FishAdversary``). The results store must show the
offender removed with a reason that says what it did, the game finished,
the others ranked, and the stored log must replay to the same result.
Course-protocol games begin with ``start`` and end with ``end``; seed 004's
tell a removed player ``Disqualify``.
"""

from __future__ import annotations

from typing import Any, Callable

from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.trial import unittest

from evolution.cli.evolution_replay import check
from tests.support import adversaries as bad
from tests.support.fish_bots import (
    FishAdversary,
    Recorder,
    connect,
    fish_adversary,
    fish_client,
    greedy,
    humble,
    message_kind,
    sign_up,
)
from tests.support.hosting import ANSWER_LIMIT, log_lines, new_host, stored_tournament, until

LIMITS = ("--game", "fish", "--timeout", ANSWER_LIMIT, "--first-move-timeout", ANSWER_LIMIT, "--start-timeout",
          ANSWER_LIMIT, "--signup-timeout", "1", "--signup-window", "0.2", "--seed", "7")
NO_REPLY = f"no reply to {{}} within {ANSWER_LIMIT} s"


def first_free_hole(message: Any) -> list[int]:
    """A placement on a hole (a tile with no fish), or off the board if there is none."""
    state = message[1][0] if isinstance(message, list) else message["State"]
    for row, tiles in enumerate(state["board"]):
        for col, fish in enumerate(tiles):
            if fish == 0:
                return [row, col]
    return [len(state["board"]), 0]


def taken_tile(message: Any) -> list[int]:
    """A placement where a penguin stands (the first placer gets the board's first tile, then it is taken)."""
    state = message[1][0]
    places = [place for player in state["players"] for place in player["places"]]
    return places[0] if places else [0, 0]


def onto_itself(message: Any) -> list[list[int]]:
    place = message[1][0]["players"][0]["places"][0]
    return [place, place]


class FishAdversaryCase(unittest.TestCase):
    timeout = 60
    dialect = "course"

    def setUp(self) -> None:
        self.host = new_host(self, "--players", "3-3", "--dialect", self.dialect, *LIMITS)

    async def game_with(self, when: str, act: bad.Act, good: int = 2) -> tuple[Any, Any]:
        """Sign up the offender first (it sits last) and ``good`` greedy clients; the stored game and its seat."""
        host = self.host
        offender = ensureDeferred(fish_adversary(host.port, "Offender", when, act, self.dialect))
        await until(lambda: len(host.factory.lobby) == 1)
        await gatherResults([fish_client(host.port, f"Good{'abc'[i]}", self.dialect) for i in range(good)])
        await offender
        [record] = await host.runner.when_games_over(1)
        self.assertEqual(record.outcome, "finished")
        *others, seat = record.players  # it signed up first: the last seat, as on the course's server
        if self.dialect == "course":
            self.assertEqual(seat.name, "Offender")
        self.assertTrue(all(s.rank is not None for s in others))
        self.assertIsNone(seat.rank)
        status, lines = check(await self.host.stored(), record.id, every=True)
        self.assertEqual(status, 0, "\n".join(lines))  # the stored log replays to the same result
        return record, seat


class CourseAdversaryTests(FishAdversaryCase):
    async def test_never_answers_setup(self) -> None:
        _, seat = await self.game_with("setup", bad.silent)
        self.assertEqual((seat.removed_reason, seat.removed_step), (NO_REPLY.format("setup"), "setup"))

    async def test_never_answers_take_turn(self) -> None:
        _, seat = await self.game_with("take-turn", bad.silent)
        self.assertEqual((seat.removed_reason, seat.removed_step), (NO_REPLY.format("take-turn"), "take-turn"))

    async def test_never_acknowledges_its_colour(self) -> None:
        _, seat = await self.game_with("playing-as", bad.silent)
        self.assertEqual((seat.removed_reason, seat.removed_step), (NO_REPLY.format("playing-as"), "playing-as"))

    async def test_acknowledges_with_something_else_than_void(self) -> None:
        _, seat = await self.game_with("playing-with", bad.send("ok"))
        self.assertEqual(seat.removed_reason, 'invalid reply to playing-with: void: expected "void", got "ok"')

    async def test_places_a_penguin_on_a_hole_or_off_the_board(self) -> None:
        _, seat = await self.game_with("setup", lambda client, message: client.sendMessage(first_free_hole(message)))
        where = r"\[\d+, \d+\]"
        self.assertRegex(seat.removed_reason, rf"^illegal placement {where}: {where} is (a hole|not on the board)$")

    async def test_places_a_penguin_where_one_stands(self) -> None:
        _, seat = await self.game_with("setup", lambda client, message: client.sendMessage(taken_tile(message)))
        self.assertRegex(seat.removed_reason, r"^illegal placement \[\d+, \d+\]: a penguin already stands on")

    async def test_moves_a_penguin_onto_its_own_tile(self) -> None:
        _, seat = await self.game_with("take-turn", lambda client, message: client.sendMessage(onto_itself(message)))
        self.assertIn("a move leaves the tile: the penguin already stands on", seat.removed_reason)
        self.assertEqual(seat.removed_step, "take-turn")

    async def test_answers_a_placement_with_three_numbers(self) -> None:
        _, seat = await self.game_with("setup", bad.send([1, 0, 0]))
        self.assertEqual(seat.removed_reason, "invalid reply to setup: position: has 3 elements, expected 2")

    async def test_answers_a_move_with_fractions(self) -> None:
        _, seat = await self.game_with("take-turn", bad.send([[0, 0], [1, 1.0]]))
        self.assertIn("invalid reply to take-turn: action.to.column: 1.0 is not an integer", seat.removed_reason)

    async def test_sends_a_10_mb_line(self) -> None:
        _, seat = await self.game_with("take-turn", bad.raw(b'"' + b"x" * 10_000_000 + b'"\n'))
        self.assertEqual(seat.removed_reason, "malformed message: a message is longer than 16384 bytes")

    async def test_sends_10000_nested_brackets(self) -> None:
        _, seat = await self.game_with("setup", bad.raw(b"[" * 10_000 + b"]" * 10_000 + b"\n"))
        self.assertEqual(seat.removed_reason, "malformed message: a message is nested deeper than 64 levels")

    async def test_sends_bytes_that_are_not_json(self) -> None:
        _, seat = await self.game_with("setup", bad.raw(b"(1 1)\n"))
        self.assertIn("malformed message: not JSON", seat.removed_reason)

    async def test_disconnects_mid_game(self) -> None:
        _, seat = await self.game_with("take-turn", bad.disconnect)
        self.assertEqual(seat.removed_reason, "disconnected before replying to take-turn")

    async def test_trickles_one_byte_at_a_time_past_its_limit(self) -> None:
        _, seat = await self.game_with("take-turn", bad.trickle(b"[[0,0],[1,0]]\n", 0.3))  # 4.2 s in all
        self.assertEqual(seat.removed_reason, NO_REPLY.format("take-turn"))

    async def test_talks_out_of_turn(self) -> None:
        # It is told its colours first and answers, then says more: nobody asked.
        def chatty(client: FishAdversary, message: Any) -> None:
            client.sendMessage("void")
            client.sendMessage("hello")

        _, seat = await self.game_with("playing-with", chatty)
        self.assertEqual(seat.removed_reason, 'sent a message nobody asked for: "hello"')

    async def test_answers_twice_in_one_write(self) -> None:
        def twice(client: FishAdversary, message: Any) -> None:
            client.transport.write(b'"void"\n"void"\n')

        _, seat = await self.game_with("playing-as", twice)
        self.assertIn("sent a message nobody asked for", seat.removed_reason)

    async def test_a_failing_player_hears_nothing_more(self) -> None:
        host = self.host
        offender = await connect(host.port, lambda: FishAdversary("Offender", "setup", bad.silent))
        await until(lambda: len(host.factory.lobby) == 1)
        goods = [await connect(host.port, lambda name=name: Recorder(name)) for name in ("Ann", "Bea")]
        await gatherResults([client.done for client in goods])
        await offender.done.addErrback(lambda failure: None)
        self.assertEqual(offender.outcome.won, None)  # no end, no message after its setup went unanswered
        self.assertTrue(all(client.received[-1][0] == "end" for client in goods))


class Seed004AdversaryTests(FishAdversaryCase):
    dialect = "seed004"

    async def test_a_removed_player_is_told_disqualify(self) -> None:
        host = self.host
        offender = await connect(
            host.port, lambda: FishAdversary("Offender", "Placement", bad.send([99, 99]), "seed004")
        )
        await until(lambda: len(host.factory.lobby) == 1)
        await gatherResults([fish_client(host.port, name, "seed004") for name in ("Ann", "Bea")])
        error = await offender.done.addErrback(lambda failure: failure.value)
        self.assertEqual(str(error), "the host disqualified this player")
        [record] = await host.runner.when_games_over(1)
        [seat] = [seat for seat in record.players if seat.removed_reason]
        self.assertEqual(seat.removed_reason, "illegal placement [99, 99]: [99, 99] is not on the board")

    async def test_never_answers_an_action(self) -> None:
        _, seat = await self.game_with("Action", bad.silent)
        self.assertEqual(seat.removed_reason, NO_REPLY.format("Action"))

    async def test_acknowledges_its_colour_with_something_else(self) -> None:
        _, seat = await self.game_with("Color", bad.send(True))
        self.assertEqual(seat.removed_reason, "invalid reply to Color: ack: true is not an array")


class BetweenGamesTests(unittest.TestCase):
    """In a tournament, a player that speaks between games, or fails its game's end, is out with that reason."""

    timeout = 60

    async def tournament(self, dialect: str, offender: Any, held: Callable[[str], bool] = lambda name: False,
                         *extra: str) -> Any:
        """A knockout of ``offender`` (signed up first) and four greedy players, each of which holds its answers
        while ``held(its name)``; it begins when the fifth is in (the sign-up period is long enough for a busy
        machine)."""
        host = new_host(self, *LIMITS, "--dialect", dialect, "--tournament", "knockout", "--max-signups", "5",
                        "--signup-window", "30", *extra)
        goods = [lambda name=name: Recorder(name, dialect, HeldWhile(greedy(), lambda name=name: held(name)))
                 for name in ("Ann", "Bea", "Cid", "Dee")]
        clients = await sign_up(host, [lambda: offender, *goods])
        _, tournament, _ = await stored_tournament(self, host, [client.done for client in clients])
        [entrant] = [e for e in tournament.entrants if e.entrant == 1]
        return entrant

    async def test_a_loser_that_speaks_while_it_waits_for_the_end_is_out_and_hears_no_end(self) -> None:
        # The other game of round 1 is held until the host has put Eve out: Eve speaks once the host says
        # that the first game of round 1 (its own) is over, and it is still round 1, so it is still in.
        lines = log_lines(self)
        said = lambda text: any(text in line for line in lines)  # noqa: E731
        impatient = Impatient("Eve")

        def held(name: str) -> bool:  # at the other table, until Eve is out
            eves_table = any(line.startswith("game ") and " begins: " in line and "'Eve'" in line
                             and f"'{name}'" in line for line in lines)
            return not eves_table and not said("'Eve' is out")

        async def speak_when_its_game_is_over() -> None:
            await until(lambda: said("round 1 of about 2: 1 of 2 games done") or impatient.done.called)
            if not impatient.done.called:
                impatient.speak()

        speaking = ensureDeferred(speak_when_its_game_is_over())
        entrant = await self.tournament("course", impatient, held, "--timeout", "30")
        await speaking
        self.assertEqual(entrant.reached, 1)  # it lost round 1 and waited while the final was played
        self.assertEqual(entrant.failure, "sent a message while waiting for a game")
        self.assertEqual(message_kind(impatient.received[-1]), "take-turn")  # no end

    async def test_a_seed_004_player_that_does_not_acknowledge_its_game_s_result_is_out(self) -> None:
        entrant = await self.tournament("seed004", FishAdversary("Eve", "gameResult", bad.silent, "seed004"))
        self.assertEqual(entrant.failure, "failed at the game's end: " + NO_REPLY.format("gameResult"))


class HeldWhile:
    """A player that holds each answer while ``held()`` says so."""

    def __init__(self, player: Any, held: Callable[[], bool]) -> None:
        self.player, self.held = player, held

    def __getattr__(self, method: str) -> Any:
        answer = getattr(self.player, method)

        async def later(*args: Any) -> Any:
            await until(lambda: not self.held())
            return answer(*args)

        return lambda *args: ensureDeferred(later(*args))


class Impatient(Recorder):
    """A course client that plays to lose and, when told to ``speak``, asks whether it is out."""

    def __init__(self, name: str) -> None:
        super().__init__(name, "course", humble())

    def speak(self) -> None:
        self.transport.write(b'"am I out?"\n')


class SignUpAdversaryTests(bad.BadSignUps, unittest.TestCase):
    """Bad course sign-ups never join a game, hear nothing, and do not disturb anyone."""

    timeout = 30

    def setUp(self) -> None:
        self.host = new_host(self, "--players", "2-2", *LIMITS)

    async def game_beside(self, data: bytes) -> bytes:
        host = self.host
        answer = ensureDeferred(bad.raw_client(host.port, data))
        await gatherResults([fish_client(host.port, name) for name in ("Ann", "Bea")])
        received = await answer
        [record] = await host.runner.when_games_over(1)
        self.assertEqual(sorted(seat.name for seat in record.players), ["Ann", "Bea"])
        return received

    async def test_signs_up_with_a_name_the_course_server_refuses(self) -> None:
        self.assertEqual(await self.game_beside(b'"bot 1"\n'), b"")
