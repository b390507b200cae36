"""Whole games over real loopback TCP: an in-process host and real clients."""

from __future__ import annotations

from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.trial import unittest

from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.local import play_local_game
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.host.runner import game_runner
from evolution.net.client import Refused
from tests.support import adversaries as bad
from tests.support.hosting import LocalHost, new_host, until


class GameOverTCPTests(unittest.TestCase):
    timeout = 30

    async def sign_up_in_order(self, host: LocalHost, names: list[str]) -> list:
        clients = []
        for name in names:
            clients.append(host.client(name))
            waiting = len(clients)
            await until(lambda: len(host.factory.lobby) >= waiting or host.runner.games_begun)
        return clients

    async def test_scores_equal_the_same_game_played_in_process(self) -> None:
        host = new_host(self, "--deck", "sorted", "--players", "4-4")  # starts when the four are in
        clients = await self.sign_up_in_order(host, ["first", "second", "third", "fourth"])
        outcomes = await gatherResults(clients)
        [record] = await host.runner.when_games_over(1)

        local = play_local_game([SillyPlayer() for _ in range(4)], Deck.sorted())
        expected = {entry.id: (entry.rank, entry.score) for entry in local.ranking}
        got = {seat.seat: (seat.rank, seat.score) for seat in record.players}
        self.assertEqual(got, expected)
        self.assertEqual(record.outcome, "finished")
        self.assertEqual(record.turns, local.turns)
        # turn order is the reverse of the sign-up order: seat 1 signed up last
        self.assertEqual([seat.name for seat in record.players], ["fourth", "third", "second", "first"])
        self.assertEqual({outcome.turns for outcome in outcomes}, {local.turns})
        self.assertEqual((await host.stored()).games()[0].players, record.players)

    async def test_a_full_lobby_starts_at_once_and_the_next_lobby_opens(self) -> None:
        host = new_host(self, "--players", "3-3", "--signup-window", "30")
        clients = [host.client(f"bot {i}") for i in range(6)]
        await gatherResults(clients)
        records = await host.runner.when_games_over(2)
        self.assertEqual([len(record.players) for record in records], [3, 3])
        self.assertEqual(sorted(seat.name for r in records for seat in r.players), [f"bot {i}" for i in range(6)])

    async def test_a_sign_up_after_the_last_game_gets_game_full(self) -> None:
        host = new_host(self, "--players", "3-3", "--games", "1")
        await gatherResults([host.client(f"bot {i}") for i in range(3)])
        late = host.client("late")
        error = await self.assertFailure(late, Refused)
        self.assertIn("game full", str(error))

    async def test_send_scores_ends_with_the_score_message(self) -> None:
        host = new_host(self, "--deck", "sorted", "--players", "3-3", "--send-scores")
        outcomes = await gatherResults([host.client(f"bot {i}") for i in range(3)])
        [record] = await host.runner.when_games_over(1)
        by_rank = sorted(record.players, key=lambda seat: seat.rank)
        expected = [(seat.seat, seat.score) for seat in by_rank]
        for outcome in outcomes:
            self.assertEqual(outcome.scores, expected)

    async def test_duplicate_names_are_told_apart(self) -> None:
        host = new_host(self, "--players", "3-3")
        await gatherResults([host.client("twin") for _ in range(3)])
        [record] = await host.runner.when_games_over(1)
        self.assertEqual(sorted(seat.name for seat in record.players), ["twin", "twin#2", "twin#3"])


class StoppingTests(unittest.TestCase):
    timeout = 30

    async def test_a_game_running_when_the_host_stops_is_stored_as_aborted(self) -> None:
        host = new_host(self, "--players", "3-3", "--timeout", "60")
        stuck = ensureDeferred(bad.adversary(host.port, "stuck", "choose", bad.silent))
        goods = [host.client("good 1"), host.client("good 2")]
        await until(lambda: host.runner.running)
        host.runner.stop()
        [record] = (await host.stored()).games()
        self.assertEqual(record.outcome, "aborted: the host stopped")
        self.assertEqual(sorted(seat.name for seat in record.players), ["good 1", "good 2", "stuck"])
        self.assertTrue(all(seat.rank is None for seat in record.players))
        await stuck
        await gatherResults(goods)  # every client was hung up on


class MemoryTests(unittest.TestCase):
    timeout = 30

    async def test_the_runner_keeps_only_the_latest_records_in_memory(self) -> None:
        # A host that runs for days must not keep every game in memory: the store has them all.
        self.patch(game_runner, "RECENT_RECORDS", 2)
        host = new_host(self, "--players", "3-3")
        for game in range(3):
            await gatherResults([host.client(f"bot {game}.{i}") for i in range(3)])
        records = await host.runner.when_games_over(3)
        self.assertEqual([record.id for record in records], [2, 3])
        self.assertEqual(len((await host.stored()).games()), 3)
