"""``evolution-replay``: a stored game re-runs from its message log to the stored result, or says where not.

The games are real games on loopback (honest and misbehaving clients; the
adversary tests also replay every game they play); the checks then read the
store as ``evolution-replay`` does, and the command runs as a process.
"""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import zlib

from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.trial import unittest

from evolution.cli.evolution_replay import check
from tests.support import adversaries as bad
from tests.support.hosting import ANSWER_LIMIT, SIGNUP_LIMIT, new_host, until

QUICK = ("--timeout", ANSWER_LIMIT, "--signup-timeout", SIGNUP_LIMIT)


def replay_command(game: int, db: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evolution.cli.evolution_replay", str(game), "--db", db, *extra],
        capture_output=True, text=True, timeout=60,
    )


def rewrite_log(db: str, game: int, change) -> None:
    """Change a stored log in place, as a damaged or forged store would hold it."""
    with sqlite3.connect(db) as connection:
        [blob] = connection.execute("SELECT log FROM game_logs WHERE game_id = ?", (game,)).fetchone()
        log = json.loads(zlib.decompress(blob))
        change(log)
        blob = zlib.compress(json.dumps(log).encode("ascii"))
        connection.execute("UPDATE game_logs SET log = ? WHERE game_id = ?", (blob, game))
    connection.close()


class ReplayTests(unittest.TestCase):
    timeout = 60

    async def play(self, *options: str, players: int = 4) -> tuple:
        host = new_host(self, "--players", f"{players}-{players}", *QUICK, *options)
        leaver = ensureDeferred(bad.adversary(host.port, "leaver", "feed-next", bad.disconnect))
        await until(lambda: len(host.factory.lobby) == 1)
        await gatherResults([host.client(f"bot {i}") for i in range(players - 1)])
        await leaver
        [record] = await host.runner.when_games_over(1)
        await host.stored()
        return host, record

    async def test_a_stored_game_replays_to_its_result_from_the_command_line(self) -> None:
        host, record = await self.play("--seed", "7")
        run = replay_command(record.id, host.options["db"])
        self.assertEqual((run.returncode, run.stderr), (0, ""))
        self.assertRegex(run.stdout, rf"^game #{record.id} replayed: 4 seats, {record.turns} turns, \d+ messages")

    async def test_a_game_played_with_parallel_choose_replays(self) -> None:
        host, record = await self.play("--seed", "11", "--parallel-choose", players=5)
        status, lines = check(await host.stored(), record.id)
        self.assertEqual(status, 0, lines)

    async def test_a_forged_reply_shows_as_the_first_difference(self) -> None:
        host, record = await self.play("--deck", "sorted")
        db = host.options["db"]

        def forge(log: list) -> None:
            # the first seat's first Action4 becomes one that plays no card for food twice
            first_reply = next(entry for entry in log if entry[2] == "in" and isinstance(entry[3], list))
            first_reply[3] = [0, [[0, 0]], [], [], []]

        rewrite_log(db, record.id, forge)
        run = replay_command(record.id, db)
        self.assertEqual(run.returncode, 1)
        self.assertRegex(run.stderr.splitlines()[0], rf"^evolution-replay: game #{record.id} does not replay: ")
        self.assertIn("more differences", run.stderr)

    async def test_a_forged_message_to_a_player_is_named_with_its_number_and_seat(self) -> None:
        host, record = await self.play("--seed", "3")
        db = host.options["db"]

        def forge(log: list) -> None:
            out = [entry for entry in log if entry[2] == "out" and entry[1] == 2]
            out[1][3] = ["forged"]

        rewrite_log(db, record.id, forge)
        status, lines = check(await host.stored(), record.id)
        self.assertEqual(status, 1)
        self.assertRegex(lines[0], r"message \d+, to seat 2 \(.*\), differs: stored \[\"forged\"\], replayed \[")

    async def test_a_forged_score_is_found(self) -> None:
        host, record = await self.play("--seed", "5")
        winner = min((seat for seat in record.players if seat.rank), key=lambda seat: seat.rank)
        with sqlite3.connect(host.options["db"]) as connection:
            connection.execute("UPDATE players SET score = score + 1 WHERE game_id = ? AND seat = ?",
                               (record.id, winner.seat))
        connection.close()
        status, lines = check(await host.stored(), record.id)
        self.assertEqual(status, 1)
        self.assertIn(f"seat {winner.seat} ({winner.name}): stored score {winner.score + 1}, replayed {winner.score}",
                      lines[0])

    async def test_what_cannot_be_replayed_is_said_in_one_line(self) -> None:
        host, record = await self.play("--seed", "1")
        db = host.options["db"]
        missing = replay_command(99, db)
        self.assertEqual((missing.returncode, missing.stderr), (1, f"evolution-replay: no game #99 in {db}\n"))
        with sqlite3.connect(db) as connection:
            connection.execute("UPDATE games SET outcome = 'aborted: the host stopped' WHERE id = ?", (record.id,))
        connection.close()
        aborted = replay_command(record.id, db)
        self.assertEqual(aborted.returncode, 1)
        self.assertIn("was aborted: the host stopped: only finished games can be replayed", aborted.stderr)
        nowhere = replay_command(1, db + ".missing")
        self.assertEqual(nowhere.returncode, 1)
        self.assertIn("no results database at", nowhere.stderr)
