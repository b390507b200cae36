"""Fish over loopback in both dialects: what the host writes, in which order, and what it stores.

Real host, real sockets. Course-protocol games are played by stand-ins of
the course's reference client (``fish_bots.StandIn``: name first, every
reply after 2,040 spaces and trickled), which must play whole tournaments
as the recorded course tournaments show (``spec/fish/transcript-*``);
seed 004's by our own clients. Every stored game must replay to its result.
``evolution-client --game fish`` checks its name before it connects.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from typing import Any

from twisted.internet.defer import gatherResults
from twisted.trial import unittest

from evolution.cli.evolution_client import main as client_main
from evolution.games import game
from tests.support.fish_bots import Recorder, StandIn, connect, message_kind, sign_up
from tests.support.hosting import new_host, stored_tournament
from tests.support.paths import SPEC

FAST = ("--game", "fish", "--timeout", "2", "--first-move-timeout", "2", "--start-timeout", "2",
        "--signup-timeout", "2", "--number-grace", "0.01")
NAMES = ["Pz", "Po", "Ptw", "Pth", "Pfo", "Pfi", "Psi", "Pse", "Pe", "Pnine"]


def knockout(count: int, *extra: str) -> tuple[str, ...]:
    return (*FAST, "--tournament", "knockout", "--max-signups", str(count), "--signup-window", "5", *extra)


def shape(messages: list[Any]) -> str:
    """A connection's messages as one word each: ``start as with setup setup turn ... end``."""
    words = {"playing-as": "as", "playing-with": "with", "take-turn": "turn"}
    return " ".join(words.get(kind, kind) for kind in map(message_kind, messages))


COURSE_CONNECTION = re.compile(r"start( as with( setup)+( turn)*)+ end")
"""What every connection of a course tournament hears (observed on the reference, protocol.md 3)."""


def transcript_shapes(path: Any) -> dict[int, str]:
    """Each connection's messages from the server in a recorded course tournament, as ``shape`` words."""
    messages: dict[int, list] = {}
    for line in path.read_text().splitlines():
        entry = json.loads(line)
        if entry.get("dir") == "s2c":
            messages.setdefault(entry["conn"], []).append(entry["msg"])
    return {conn: shape(sent) for conn, sent in messages.items()}


class FishHostCase(unittest.TestCase):
    timeout = 60

    async def tournament(self, host: Any, make: Any, names: list[str]) -> tuple:
        clients = await sign_up(host, [lambda name=name: make(name) for name in names])
        store, tournament, _ = await stored_tournament(self, host, [client.done for client in clients])
        return store, tournament, clients

    def rounds(self, store: Any, tournament: Any) -> list[list[list[str]]]:
        games = {game.id: game for game in store.games(tournament.id)}
        return [[[seat.name for seat in games[g].players] for g in round.games] for round in tournament.rounds]


class CourseTests(FishHostCase):
    async def test_five_reference_clients_play_the_recorded_tournament_s_course(self) -> None:
        host = new_host(self, *knockout(5, "--seed", "5"))
        store, tournament, clients = await self.tournament(host, StandIn, NAMES[:5])
        rounds = self.rounds(store, tournament)
        self.assertEqual(rounds[0], [NAMES[:3], NAMES[3:5]])  # as the reference allocates 5 (tournament.md 2)
        self.assertEqual(tournament.status, "finished")
        winners = tournament.to_json()["winners"]
        self.assertTrue(winners)
        for client in clients:
            self.assertRegex(shape(client.received), COURSE_CONNECTION)
            self.assertEqual(client.received[0], ["start", [True]])
            self.assertEqual(client.received[-1], ["end", [client.name in winners]])
        recorded = transcript_shapes(SPEC / "fish" / "transcript-5-players.jsonl")
        self.assertTrue(all(COURSE_CONNECTION.fullmatch(words) for words in recorded.values()))

    async def test_ten_reference_clients_play_four_four_two_then_the_final(self) -> None:
        host = new_host(self, *knockout(10, "--seed", "10"))
        store, tournament, clients = await self.tournament(host, StandIn, NAMES)
        rounds = self.rounds(store, tournament)
        self.assertEqual(rounds[0], [NAMES[:4], NAMES[4:8], NAMES[8:]])
        games = store.games(tournament.id)
        firsts = [seat.name for game in games[:3] for seat in game.players if seat.rank == 1]
        if len(firsts) <= 4:  # the final, its players in sign-up order (red is the earliest)
            self.assertEqual(rounds[1], [sorted(firsts, key=NAMES.index)])
        for client in clients:
            self.assertRegex(shape(client.received), COURSE_CONNECTION)

    async def test_each_call_is_the_course_s_json(self) -> None:
        host = new_host(self, *knockout(2, "--seed", "2", "--board", "3x4"))
        _, _, clients = await self.tournament(host, StandIn, ["Red", "White"])
        red, white = (client.received for client in clients)
        self.assertEqual(red[:3], [["start", [True]], ["playing-as", ["red"]], ["playing-with", [["white"]]]])
        self.assertEqual(white[1:3], [["playing-as", ["white"]], ["playing-with", [["red"]]]])
        setup = red[3]
        self.assertEqual((setup[0], list(setup[1][0])), ("setup", ["board", "players"]))
        self.assertEqual([player["color"] for player in setup[1][0]["players"]], ["red", "white"])
        self.assertEqual([message_kind(m) for m in red].count("setup"), 4)  # two players: four penguins each
        turns = [m for m in red if message_kind(m) == "take-turn"]
        self.assertEqual(turns[0][1][1], [])  # nothing before the first turn
        for turn in turns[2:]:  # later turns: the other player's last action (a move or "skip")
            self.assertEqual(len(turn[1][1]), 1)

    async def test_a_single_game_is_begun_with_start_and_ended_with_end(self) -> None:
        host = new_host(self, *FAST, "--players", "2-2", "--games", "1", "--seed", "1")
        clients = [await connect(host.port, lambda name=name: StandIn(name)) for name in ("Ann", "Bea")]
        [record] = await host.runner.when_games_over(1)
        await gatherResults([client.done for client in clients])
        for client, seat in zip(sorted(clients, key=lambda c: c.name, reverse=True), record.players):
            self.assertEqual(client.received[0], ["start", [True]])  # seats in reverse sign-up order, as the course's
            self.assertEqual(client.received[-1], ["end", [seat.rank == 1]])


class Seed004Tests(FishHostCase):
    async def test_five_seed_004_clients_play_a_knockout_told_each_game_s_result(self) -> None:
        host = new_host(self, *knockout(5, "--seed", "5", "--dialect", "seed004"))
        store, tournament, clients = await self.tournament(host, lambda name: Recorder(name, "seed004"), NAMES[:5])
        addresses = [client.address for client in clients]  # the names the host gave them, in sign-up order
        self.assertEqual(self.rounds(store, tournament)[0], [addresses[:3], addresses[3:]])
        winners = tournament.to_json()["winners"]
        self.assertEqual(len(winners), 1)
        for client in clients:
            kinds = [message_kind(m) for m in client.received]
            game = r"Color( Placement)+( Action)* gameResult"
            self.assertRegex(" ".join(kinds), rf"^{game}( {game})*$")
            results = [m["Result"] for m in client.received if message_kind(m) == "gameResult"]
            self.assertEqual(results[:-1], [True] * (len(results) - 1))  # a loser hears no more
            self.assertEqual(client.outcome.won, results[-1])
            self.assertEqual(client.outcome.games, len(results))
        self.assertEqual(sum(client.outcome.won for client in clients), 1)

    async def test_each_seed_004_message_is_as_the_seed_writes_it(self) -> None:
        host = new_host(self, *knockout(2, "--seed", "2", "--board", "3x4", "--dialect", "seed004"))
        _, _, clients = await self.tournament(host, lambda name: Recorder(name, "seed004"), ["a", "b"])
        first, second = (client.received for client in clients)
        self.assertEqual(first[0], {"Communication": "Color", "Color": "red"})
        self.assertEqual(second[0], {"Communication": "Color", "Color": "white"})
        self.assertEqual((list(first[1]), first[1]["Communication"]), (["Communication", "State"], "Placement"))
        action = next(m for m in first if message_kind(m) == "Action")
        self.assertEqual(list(action), ["Communication", "State"])
        self.assertEqual(first[-1]["Communication"], "gameResult")


class ClientNameTests(unittest.TestCase):
    def refused(self, *argv: str) -> str:
        """What ``evolution-client argv`` writes on standard error as it exits with status 2 (a usage error)."""
        err = io.StringIO()
        with contextlib.redirect_stderr(err), self.assertRaises(SystemExit) as exited:
            client_main(list(argv))
        self.assertEqual(exited.exception.code, 2)
        return err.getvalue()

    def test_a_name_the_course_protocol_refuses_is_one_line_before_connecting(self) -> None:
        for name in ("bad name!", "x" * 13, ""):
            said = self.refused("--game", "fish", "--port", "1", "--retries", "0", "--name", name)
            self.assertEqual(said.count("\n"), 1, said)
            self.assertIn("--name: the course's Fish protocol takes a name of 1 to 12 ASCII letters", said)

    def test_without_a_name_a_fish_client_takes_its_strategy_s_letters(self) -> None:
        fish = game("fish")
        self.assertEqual(fish.bot_name("greedy"), "greedy")
        self.assertEqual(fish.bot_name("hole-placer"), "holeplacer")
        self.assertEqual(fish.bot_name("my_bots.v2:Penguin"), "Penguin")
        self.assertEqual(fish.bot_name("a:_1"), "bot")
        self.assertEqual(game("evolution").bot_name("builder"), "silly bot")
        for strategy in fish.strategies:  # every house player's default name is one the course protocol takes
            fish.dialect("course").client(fish.bot_name(strategy), None)
