"""``evolution-replay GAME --transcript``: what each seat of a stored game received and sent, with times.

The games are real games on loopback with a bot that misbehaves; the
command runs as a process and reads the store; the text and the JSON are
checked against the stored message log entry by entry.
"""

from __future__ import annotations

import json
import subprocess
import sys

from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.trial import unittest

from evolution.replays.transcripts import transcript, transcript_lines
from evolution.store.records import GameRecord, SeatRecord
from tests.support import adversaries as bad
from tests.support.hosting import new_host, until

QUICK = ("--timeout", "0.3", "--signup-window", "0.2", "--signup-timeout", "0.3")


def replay_command(game: int, db: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "evolution.cli.evolution_replay", str(game), "--db", db, *extra],
        capture_output=True, text=True, timeout=60,
    )


class TranscriptCommandTests(unittest.TestCase):
    timeout = 60

    async def play(self) -> tuple:
        """A 4-player game in which seat 4 (signed up first) sends a word instead of its first Action4."""
        host = new_host(self, "--players", "4-4", "--seed", "7", *QUICK)
        cheat = ensureDeferred(bad.adversary(host.port, "cheat", "choose", bad.send("no")))
        await until(lambda: len(host.factory.lobby) == 1)
        await gatherResults([host.client(f"bot {i}") for i in range(3)])
        await cheat
        [record] = await host.runner.when_games_over(1)
        store = await host.stored()
        return host, record, store.game_log(record.id)

    async def test_the_text_shows_every_message_of_every_seat_and_the_removal_with_its_reason(self) -> None:
        host, record, log = await self.play()
        run = replay_command(record.id, host.options["db"], "--transcript")
        self.assertEqual((run.returncode, run.stderr), (0, ""))
        lines = run.stdout.splitlines()
        self.assertEqual(lines[0], f"game #{record.id} (evolution, finished): what 4 seats received and sent;"
                                   " ms since the game began")
        self.assertEqual(lines[1], ", ".join(f"seat {seat.seat} '{seat.name}'" for seat in record.players))
        self.assertTrue(lines[1].endswith(", seat 4 'cheat'"))
        body = [line for line in lines[3:] if " removed " not in line]
        self.assertEqual(len(body), len(log))
        for line, (ms, seat, kind, payload, *_) in zip(body, log):
            words = line.split(maxsplit=3)
            self.assertEqual(words[:3], [str(ms), str(seat), {"out": "received", "in": "sent", "fail": "failed"}[kind]])
            self.assertEqual(words[3] if kind == "fail" else json.loads(words[3]), payload)
        [cheat] = [seat for seat in record.players if seat.name == "cheat"]
        [removal] = [line for line in lines if " removed " in line]
        self.assertEqual(removal.split(maxsplit=2)[1:],
                         ["removed", f"in turn 1 (choose): {cheat.removed_reason}"])
        self.assertEqual(lines[lines.index(removal) - 1].split(maxsplit=3)[1:],
                         ["4", "failed", cheat.removed_reason])

    async def test_one_seat_as_json_holds_that_seat_s_side_only(self) -> None:
        host, record, log = await self.play()
        run = replay_command(record.id, host.options["db"], "--transcript", "--seat", "4", "--json")
        self.assertEqual((run.returncode, run.stderr), (0, ""))
        data = json.loads(run.stdout)
        self.assertEqual((data["id"], data["game"], data["outcome"], data["seed"]), (record.id, "evolution", "finished", 7))
        [seat] = data["seats"]
        self.assertEqual((seat["seat"], seat["name"], seat["score"], seat["rank"]), (4, "cheat", None, None))
        self.assertEqual(seat["removed"]["step"], "choose")
        mine = [entry for entry in log if entry[1] == 4]
        self.assertEqual(
            [(e["ms"], e["direction"], e.get("message", e.get("reason"))) for e in data["entries"]],
            [(ms, {"out": "received", "in": "sent", "fail": "failed"}[kind], payload) for ms, _, kind, payload, *_ in mine],
        )
        self.assertEqual([e["direction"] for e in data["entries"][-2:]], ["sent", "failed"])
        self.assertEqual(data["entries"][-2]["message"], "no")
        self.assertEqual(data["entries"][-1]["reason"], seat["removed"]["reason"])

    async def test_what_cannot_be_shown_is_one_line(self) -> None:
        host, record, _ = await self.play()
        db = host.options["db"]
        seat = replay_command(record.id, db, "--transcript", "--seat", "9")
        self.assertEqual((seat.returncode, seat.stderr),
                         (1, f"evolution-replay: game #{record.id} has seats 1 to 4, not 9\n"))
        missing = replay_command(99, db, "--transcript")
        self.assertEqual((missing.returncode, missing.stderr), (1, f"evolution-replay: no game #99 in {db}\n"))
        alone = replay_command(record.id, db, "--seat", "1")
        self.assertEqual(alone.returncode, 2)
        self.assertEqual(alone.stderr, "evolution-replay: error: --seat goes with --transcript (see --help)\n")


def test_a_failure_comes_before_the_removal_and_names_are_escaped():
    game = GameRecord("t0", "t1", "shuffled", 3, 1, "finished", (
        SeatRecord(1, "a\x1b[31m", 5, 1),
        SeatRecord(2, "slow", removed_turn=1, removed_step="feed-next", removed_reason="no reply to feed-next within 1 s"),
    ), id=12)
    log = [[0, 1, "out", [0]], [1, 2, "out", [0]], [1001, 2, "fail", "no reply to feed-next within 1 s", 3],
           [1002, 1, "in", "\u202e"]]
    lines = transcript_lines(transcript(game, log))
    assert lines[1] == "seat 1 'a\\x1b[31m', seat 2 'slow'"
    assert lines[3:] == [
        "      0     1  received  [0]",
        "      1     2  received  [0]",
        "   1001     2  failed    no reply to feed-next within 1 s",
        "            2  removed   in turn 1 (feed-next): no reply to feed-next within 1 s",
        '   1002     1  sent      "\\u202e"',
    ]


def test_each_seat_has_the_place_its_score_gives_it_and_a_split_tie_names_its_rule():
    seats = (SeatRecord(1, "a", 6, 2), SeatRecord(2, "b", 6, 1), SeatRecord(3, "c", 4, 3),
             SeatRecord(4, "d", removed_turn=1, removed_step="choose", removed_reason="late"))
    data = transcript(GameRecord("t0", "t1", "shuffled", 3, 1, "finished", seats, id=5), [])
    assert [(seat["rank"], seat["place"]) for seat in data["seats"]] == [(2, 1), (1, 1), (3, 3), (None, None)]
    assert data["tie_break"] == "the reverse of the final turn order (the course's rule: every player its own rank)"
    one = transcript(GameRecord("t0", "t1", "shuffled", 3, 1, "finished", seats, id=5), [], seat=3)
    assert [(seat["seat"], seat["place"]) for seat in one["seats"]] == [(3, 3)]
    fish = GameRecord("t0", "t1", "random", 3, 1, "finished", (SeatRecord(1, "a", 6, 1), SeatRecord(2, "b", 6, 1)),
                      id=6, game="fish")
    assert transcript(fish, [])["tie_break"] is None  # Fish's referee ranks equal scores alike
    assert [seat["place"] for seat in transcript(fish, [])["seats"]] == [1, 1]
