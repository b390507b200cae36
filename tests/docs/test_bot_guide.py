"""The bot guide's whole example game is what the host plays and ``evolution-replay --transcript`` prints.

``schemas/README.md`` shows one seat's transcript of a short game (seed 94, 5
silly bots signed up as ``bot 1`` .. ``bot 5``). The game is played again on
a real host on loopback, and its transcript must say the same, line by line,
but for the milliseconds.
"""

from __future__ import annotations

from twisted.internet.defer import gatherResults
from twisted.trial import unittest

from evolution.replays.transcripts import transcript, transcript_lines
from tests.support.hosting import new_host, until
from tests.support.paths import REPO

GUIDE = REPO / "schemas" / "README.md"
MARKER = "<!-- the transcript below: tests/docs/test_bot_guide.py plays the game again and compares -->"


def guide_transcript() -> list[str]:
    text = GUIDE.read_text(encoding="utf-8")
    block = text.split(MARKER, 1)[1].split("```\n", 1)[1].split("```", 1)[0]
    return block.splitlines()


def without_times(lines: list[str]) -> list[str]:
    """The lines with their leading milliseconds blanked (header lines are kept whole)."""
    return [line[7:] if line[:7].strip().isdigit() else line for line in lines]


class GuideTranscriptTests(unittest.TestCase):
    timeout = 60

    async def test_the_guide_s_example_game_is_the_game_the_host_plays(self) -> None:
        host = new_host(self, "--players", "5-5", "--seed", "94")
        clients = []
        for number in range(1, 6):  # in order: the host seats them in the reverse of it
            clients.append(host.client(f"bot {number}"))
            await until(lambda: len(host.factory.lobby) == number or host.runner.games_begun)
        await gatherResults(clients)
        [record] = await host.runner.when_games_over(1)
        store = await host.stored()
        played = transcript_lines(transcript(record, store.game_log(record.id), 1))
        shown = guide_transcript()
        self.assertEqual(len(shown), len(played))
        self.assertEqual(without_times(shown), without_times(played))
        self.assertEqual((record.players[0].name, record.players[0].rank, record.players[0].score), ("bot 5", 1, 5))
