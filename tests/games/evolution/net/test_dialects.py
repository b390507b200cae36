"""The seed-002 dialect, the opt-in removal message, and the course server's order of messages, on loopback.

Real host, real sockets. The clients record every byte they receive and
every message they send, so the tests see the conversation as a bot author
would.
"""

from __future__ import annotations

import json
from typing import Any

from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.internet.endpoints import TCP4ClientEndpoint
from twisted.internet.protocol import Factory
from twisted.trial import unittest

from evolution.cli.evolution_replay import check
from evolution.games.evolution.rules.actions import Action4, Growth
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.evolution.wire.dialects import SEED000, SEED002, Dialect
from evolution.games.evolution.wire.schemas import SCHEMAS
from evolution.net.client import ClientProtocol, Removed, conversation
from tests.support import adversaries as bad
from tests.support.hosting import ANSWER_LIMIT, new_host, until
from tests.support.paths import SPEC


class Recording(ClientProtocol):
    """A silly client that keeps every line it receives and every message it sends, as bytes."""

    def __init__(self, name: str, dialect: Dialect, log: list | None = None) -> None:
        super().__init__(conversation(name, SillyPlayer(), dialect=dialect.name))
        self.received: list[bytes] = []
        self.sent: list[str] = []
        self.shared = log if log is not None else []
        self._partial = b""

    def dataReceived(self, data: bytes) -> None:
        *lines, self._partial = (self._partial + data).split(b"\n")
        self.received += lines
        self.shared += [(self.name, "S>C", line.decode()) for line in lines]
        super().dataReceived(data)

    def sendMessage(self, value: Any) -> None:
        text = json.dumps(value, separators=(",", ":"))
        self.sent.append(text)
        self.shared.append((self.name, "C>S", text))
        super().sendMessage(value)


async def connect(port: int, name: str, dialect: Dialect = SEED000, log: list | None = None) -> Recording:
    endpoint = TCP4ClientEndpoint(reactor, "127.0.0.1", port)
    return await endpoint.connect(Factory.forProtocol(lambda: Recording(name, dialect, log)))


async def sign_up_in_order(host: Any, names: list[str], dialect: Dialect, log: list | None = None) -> list:
    clients = []
    for name in names:
        clients.append(await connect(host.port, name, dialect, log))
        await until(lambda: len(host.factory.lobby) == len(clients) or host.runner.games_begun)
    return clients


class Seed002Tests(unittest.TestCase):
    timeout = 30

    async def test_a_seed_002_game_speaks_tagged_messages_and_ends_with_the_scores_for_everyone(self) -> None:
        host = new_host(self, "--dialect", "seed002", "--players", "3-3", "--deck", "sorted")
        clients = await sign_up_in_order(host, ["Hello", "Hello", "Hello"], SEED002)
        outcomes = await gatherResults([client.done for client in clients])
        [record] = await host.runner.when_games_over(1)
        scores = [(seat.seat, seat.score) for seat in sorted(record.players, key=lambda seat: seat.rank)]
        for client in clients:
            messages = [json.loads(line) for line in client.received]
            self.assertEqual(messages[0], "ack")
            self.assertEqual(messages[-1], [list(entry) for entry in scores])
            kinds = [SEED002.kind(message) for message in messages[1:-1]]
            self.assertEqual(kinds[0], "start")
            self.assertLessEqual(set(kinds), {"start", "choose", "feed-next"})
            schema = {"start": "seed002/start", "choose": "seed002/choose", "feed-next": "seed002/feed-next"}
            for kind, message in zip(kinds, messages[1:-1]):
                SCHEMAS.check(schema[kind], message)
        # Each player is told its own id, which is its seat: turn order is the reverse of sign-up.
        ids = [json.loads(client.received[1])[1][0] for client in clients]
        self.assertEqual(ids, [["id", 3], ["id", 2], ["id", 1]])
        self.assertEqual({outcome.games for outcome in outcomes}, {1})
        store = await host.stored()
        self.assertEqual(store.games()[0].settings["dialect"], "seed002")
        status, lines = check(store, record.id)
        self.assertEqual(status, 0, lines)  # a seed-002 game replays in its own dialect

    async def test_the_dialect_changes_the_words_not_the_game(self) -> None:
        results = []
        for dialect in (SEED000, SEED002):
            host = new_host(self, "--dialect", dialect.name, "--players", "4-4", "--seed", "77")
            clients = await sign_up_in_order(host, ["a", "b", "c", "d"], dialect)
            await gatherResults([client.done for client in clients])
            [record] = await host.runner.when_games_over(1)
            results.append([(seat.seat, seat.score, seat.rank) for seat in record.players])
        self.assertEqual(results[0], results[1])


class TellRemovedTests(unittest.TestCase):
    timeout = 30

    async def test_a_removed_bot_is_told_why_when_the_operator_asks(self) -> None:
        host = new_host(self, "--players", "3-3", "--tell-removed", "--timeout", ANSWER_LIMIT, "--deck", "sorted")
        offender = ensureDeferred(bad.adversary(host.port, "offender", "choose", bad.send([0, [[0, 0]], [], [], []])))
        await until(lambda: len(host.factory.lobby) == 1)
        goods = [host.client("good 1"), host.client("good 2")]
        error = await offender
        await gatherResults(goods)
        self.assertIsInstance(error, Removed)
        [record] = await host.runner.when_games_over(1)
        [seat] = [seat for seat in record.players if seat.name == "offender"]
        self.assertEqual(str(error), f"the host removed this player: {seat.removed_reason}")

    async def test_every_removed_bot_is_told_wherever_it_sits(self) -> None:
        """Seated first (signed up last) it is asked before the others answer; it is told all the same."""
        host = new_host(self, "--players", "3-3", "--tell-removed", "--timeout", "0.5", "--deck", "sorted")
        goods = [host.client("good 1"), host.client("good 2")]
        await until(lambda: len(host.factory.lobby) == 2)
        error = await bad.adversary(host.port, "offender", "choose", bad.send([0, [[0, 0]], [], [], []]))
        await gatherResults(goods)
        [record] = await host.runner.when_games_over(1)
        [seat] = [seat for seat in record.players if seat.name == "offender"]
        self.assertEqual(seat.seat, 1)
        self.assertIsInstance(error, Removed)
        self.assertEqual(str(error), f"the host removed this player: {seat.removed_reason}")

    async def test_by_default_a_removed_bot_is_just_hung_up_on(self) -> None:
        host = new_host(self, "--players", "3-3", "--timeout", ANSWER_LIMIT)
        recorder = await connect(host.port, "offender")
        recorder.conversation.player = _Cheat()
        await until(lambda: len(host.factory.lobby) == 1)
        await gatherResults([host.client("good 1"), host.client("good 2")])
        await recorder.done.addErrback(lambda failure: None)
        self.assertNotIn(b'"removed"', b"".join(recorder.received))
        [record] = await host.runner.when_games_over(1)
        [seat] = [seat for seat in record.players if seat.name == "offender"]
        self.assertIn("invalid reply to choose", seat.removed_reason or "")  # removed, and not told so


class _Cheat(SillyPlayer):
    def choose(self, before: Any, after: Any) -> Any:
        action = super().choose(before, after)
        return Action4(action.food_card, (Growth(0, action.food_card),))  # the food card used twice


class CourseOrderTests(unittest.TestCase):
    """Remote-protocol.md 4.2: the reference transcript, byte for byte, over TCP."""

    timeout = 30

    async def test_a_sorted_deck_game_sends_the_reference_transcript_in_its_order(self) -> None:
        transcript = SPEC / "reference-transcript-3-players.txt"
        if not transcript.is_file():
            raise unittest.SkipTest(f"no reference transcript: {transcript} is absent")
        expected = []
        for line in transcript.read_text().splitlines():
            if line.strip():
                route, text = line.split(maxsplit=1)
                sender, receiver = route.split(">")
                client, direction = (receiver, "S>C") if sender == "S" else (sender, "C>S")
                expected.append((client, direction, json.dumps(json.loads(text), separators=(",", ":"))))
        host = new_host(self, "--players", "3-3", "--deck", "sorted")
        log: list = []
        clients = await sign_up_in_order(host, ["C1", "C2", "C3"], SEED000, log)
        self.assertEqual([client.sent[0] for client in clients], ['"C1"', '"C2"', '"C3"'])
        await gatherResults([client.done for client in clients])
        # Per client: exactly the transcript's bytes, the sign-up aside (the names differ).
        for client in clients:
            theirs = [(d, text) for c, d, text in expected if c == client.name][1:]
            ours = [(d, text) for c, d, text in log if c == client.name][1:]
            self.assertEqual(ours[: len(theirs)], theirs, client.name)
        # Across clients: the order in which the host wrote and read them (its message log).
        [game] = (await host.stored()).games()
        seat_name = {seat.seat: seat.name for seat in game.players}
        entries = (await host.stored()).game_log(game.id)
        host_order = [
            (seat_name[seat], "S>C" if kind == "out" else "C>S", json.dumps(message, separators=(",", ":")))
            for _, seat, kind, message, *_ in entries if kind in ("out", "in")
        ]
        game_lines = [entry for entry in expected if entry[2] not in ('"good guy"', '"ok"')]
        self.assertEqual(host_order[: len(game_lines)], game_lines)
