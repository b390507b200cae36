"""The web view's model (``evolution.web.model``) on a fake clock, its store read in this process.

Asserted: a read the reader refuses at once (``Busy``: too many waiting,
or the store overdue) answers a 503 to whoever asked, and the next asker
reads again (no shared read is left behind that never fires).

Fed over the channel (``evolution.web.feed_channel``), as in the web
view's own process: the host's end (``FeedServer``) and the web process's
(``FeedClient``) talk AMP over an in-memory connection
(``twisted.test.iosim``); the host's feed is a stand-in that tells what a
``HostFeed`` tells. Asserted: the moment a game is over, its page shows its
result, and its replay and transcript wait for the store to hold the game;
its page asked before the web process has heard that it is over waits for
that: never a 404, and at most ``STORING_WAIT`` seconds (then ``Busy``, a
503).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from twisted.internet.defer import fail, maybeDeferred, succeed
from twisted.internet.task import Clock
from twisted.test.iosim import connectedServerAndClient, makeFakeClient

from evolution.store.operations import game_operation
from evolution.store.queries import Missing
from evolution.store.reader import Busy
from evolution.store.records import GameRecord
from evolution.store.results_store import ResultsStore
from evolution.web.feed import NoGames, Telling
from evolution.web.feed_channel import POLL_EVERY, FeedClient, FeedServer
from evolution.web.model import STORING_WAIT, WebModel
from evolution.web.read_process import READS, Encoded
from tests.support.webhosting import tournament_operations


class Host(Telling):
    """What a ``HostFeed`` tells of one game, told when the test says."""

    game = "evolution"

    def __init__(self) -> None:
        self._watchers = []
        self.storing: set[int] = set()

    def begin(self, record: GameRecord) -> None:
        self._tell("begin", (record.id, record.tournament_id))

    def over(self, record: GameRecord) -> None:
        self.storing.add(record.id)
        self._tell("over", record)

    def stored(self, record: GameRecord) -> None:
        self.storing.discard(record.id)
        self._tell("stored", (record.id, record.tournament_id))

    def picture(self, game_id: int) -> Any:
        return succeed(None)  # asked only of games over here

    def announcement(self) -> None:
        return None  # none: the organiser's is tested in tests/host/console/test_announce.py


class Reader:
    """A ``StoreReader`` that reads in this process; while ``busy``, it refuses every read at once, as one does."""

    def __init__(self, store: ResultsStore) -> None:
        self.store = store
        self.busy = False

    def read(self, name: str, *args: Any) -> Any:
        if self.busy:
            return fail(Busy("the web view is busy; try again in a moment"))
        return maybeDeferred(READS[name], self.store, *args)


def answered(deferred: Any) -> bool:
    """Whether a Deferred has its result (which stays for the next callback)."""
    found: list = []
    deferred.addBoth(lambda result: found.append(result) or result)
    return bool(found)


def fired(deferred: Any) -> Any:
    """What a Deferred fired with (a failure raises); pytest.fail if it has not fired."""
    found: list = []
    deferred.addBoth(found.append)
    if not found:
        pytest.fail("not answered")
    if hasattr(found[0], "raiseException"):
        found[0].raiseException()
    return found[0]


@pytest.fixture
def store(tmp_path):
    store = ResultsStore.open(tmp_path / "results.sqlite")
    yield store
    store.close()


@pytest.mark.parametrize("page", ["overview", "replay"])
def test_a_read_refused_at_once_is_busy_and_the_next_asker_reads_again(store, page):
    reader = Reader(store)
    view = WebModel(NoGames("evolution"), reader, Clock())
    ask = view.overview if page == "overview" else lambda: view.replay(7)
    reader.busy = True
    with pytest.raises(Busy):
        fired(ask())
    reader.busy = False
    if page == "overview":
        assert fired(ask())["recent_games"] == []
    else:
        with pytest.raises(Missing, match="there is no game 7"):
            fired(ask())


# -- a game just over, fed over the channel -------------------------------------------------


class Fed:
    """A web view fed by ``Host`` over the channel, the store, and the game's store operation."""

    def __init__(self, tmp_path: Any) -> None:
        self.clock = Clock()
        self.host = Host()
        self.client, _server, self.pump = connectedServerAndClient(
            lambda: FeedServer(self.host), lambda: FeedClient(self.clock, "evolution"), connected)
        self.store = ResultsStore.open(tmp_path / "results.sqlite")
        self.view = WebModel(self.client, Reader(self.store), self.clock)
        begun, game, *_ = tournament_operations(1, "knockout", ["a", "b", "c"], 1)
        self.store.apply(begun)
        self.record = GameRecord.from_json(game["game"])
        self.operation = game_operation(self.record, [])  # a message log with no entry (a replay all the same)

    def poll(self) -> None:
        """The web process's next poll, answered."""
        self.clock.advance(POLL_EVERY)
        self.pump.flush()

    def store_the_game(self) -> None:
        self.store.apply(self.operation)
        self.host.stored(self.record)


def connected(protocol: Any) -> Any:
    transport = makeFakeClient(protocol)
    transport.connected = True  # as a real transport says (the client polls again while it is)
    return transport


@pytest.fixture
def fed(tmp_path):
    fed = Fed(tmp_path)
    yield fed
    fed.store.close()


def test_a_game_just_over_shows_its_result_at_once_and_its_replay_once_it_is_stored(fed):
    game_id = fed.record.id
    fed.host.begin(fed.record)
    fed.poll()
    assert fed.view.is_running(game_id)

    fed.host.over(fed.record)
    fed.poll()
    assert not fed.view.is_running(game_id)
    page = fired(fed.view.game(game_id))
    assert page["status"] == "finished" and page["replay"] == f"/api/games/{game_id}/replay"
    replay, transcript = fed.view.replay(game_id), fed.view.transcript(game_id)
    assert not answered(replay) and not answered(transcript)  # the store does not hold it yet: they wait

    fed.store_the_game()
    fed.poll()
    answer = fired(replay)
    assert isinstance(answer, Encoded) and "frames" in json.loads(answer.plain)
    assert fired(transcript)["id"] == game_id


def test_a_game_the_store_is_slow_to_hold_is_busy_after_a_bounded_wait(fed):
    fed.host.begin(fed.record)
    fed.poll()
    fed.host.over(fed.record)
    fed.poll()
    replay = fed.view.replay(fed.record.id)
    fed.clock.advance(STORING_WAIT)
    with pytest.raises(Busy, match="not yet stored"):
        fired(replay)
    fed.store_the_game()
    fed.poll()
    assert "frames" in json.loads(fired(fed.view.replay(fed.record.id)).plain)


def test_a_game_over_and_stored_between_two_polls_is_read_from_the_store_at_once(fed):
    fed.host.begin(fed.record)
    fed.poll()
    fed.host.over(fed.record)
    fed.store_the_game()
    fed.poll()
    assert fired(fed.view.game(fed.record.id))["status"] == "finished"
    assert "frames" in json.loads(fired(fed.view.replay(fed.record.id)).plain)


def test_a_game_over_before_the_web_process_has_heard_of_it_is_shown_once_it_has(fed):
    fed.host.begin(fed.record)
    fed.poll()
    fed.host.over(fed.record)
    page = fed.view.game(fed.record.id)
    fed.pump.flush()
    assert fed.view.is_running(fed.record.id) and not answered(page)  # the host has no picture of it: it waits
    fed.poll()
    assert fired(page)["status"] == "finished"
