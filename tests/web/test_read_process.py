"""The web view's read process runs the store's and the replays' reads by name, and nothing else.

A real read process (``python -m evolution.web.read_process``) behind a real
``StoreReader`` on the reactor, on a store in the test's folder.
"""

from __future__ import annotations

from twisted.internet import reactor
from twisted.trial.unittest import TestCase

from evolution.store.queries import Missing
from evolution.store.reader import StoreReader
from evolution.store.results_store import ResultsStore
from evolution.web import read_process
from evolution.web.read_process import READS, Encoded, UnknownRead


class ReadProcessTests(TestCase):
    timeout = 60

    def setUp(self) -> None:
        path = self.mktemp() + ".sqlite"
        ResultsStore.open(path).close()
        self.reader = StoreReader(path, reactor, read_process.__name__)
        self.addCleanup(self.reader.stop)

    async def test_a_read_it_offers_is_answered(self) -> None:
        overview = await self.reader.read("stored_overview", "evolution")
        self.assertEqual(overview, {"recent_games": [], "tournaments": [], "leaderboard": [], "ladder": [],
                                    "running_games": []})

    async def test_any_other_name_is_refused_with_the_list_it_offers_and_the_process_answers_on(self) -> None:
        for name in ("os.system", "evolution.store.results_store.ResultsStore.apply", "__import__", "apply"):
            error = await self.assertFailure(self.reader.read(name, "rm -rf /"), UnknownRead)
            self.assertIn(f"offers no read named {name!r}", str(error))
            self.assertIn("stored_replay", str(error))
        self.assertEqual(await self.reader.read("recent_games", 10), ([], None))

    async def test_what_is_missing_says_so(self) -> None:
        error = await self.assertFailure(self.reader.read("stored_replay", 7), Missing)
        self.assertEqual(str(error), "there is no game 7")


def test_the_list_holds_only_the_stores_queries_and_the_replays_reads():
    for name, read in READS.items():
        module = read.__module__
        assert module in ("evolution.store.queries", "evolution.replays.frames", "evolution.replays.transcripts",
                          "evolution.web.read_process"), (name, module)
        if module == "evolution.web.read_process":  # a replay, encoded once here
            assert read.__qualname__ == "_encoded.<locals>.encoded" and name in ("stored_replay", "replay_of_text")
    assert Encoded.of({"a": 1}).plain == b'{"a":1}'
