"""The web view's model (``evolution.web.view``) on a fake clock, its store read in this process.

Asserted: a read the reader refuses at once (``Busy``: too many waiting,
or the store overdue) answers a 503 to whoever asked, and the next asker
reads again (no shared read is left behind that never fires).
"""

from __future__ import annotations

from typing import Any

import pytest
from twisted.internet.defer import fail, maybeDeferred, succeed
from twisted.internet.task import Clock

from evolution.host.store import ResultsStore
from evolution.web.feed import Telling
from evolution.web.reader import Busy
from evolution.web.view import Missing, WebView


class Idle(Telling):
    """The feed of a host that runs nothing."""

    game = "evolution"

    def __init__(self) -> None:
        self._watchers = []

    def is_running(self, game_id: int) -> bool:
        return False

    def lobby(self) -> Any:
        return succeed({"lobby": {}, "digest": ""})

    def running(self) -> Any:
        return succeed([])

    def tournaments(self) -> Any:
        return succeed([])

    def finished_log(self, game_id: int) -> None:
        return None

    def is_storing(self, game_id: int) -> bool:
        return False


class Reader:
    """A ``StoreReader`` that reads in this process; while ``busy``, it refuses every read at once, as one does."""

    def __init__(self, store: ResultsStore) -> None:
        self.store = store
        self.busy = False

    def read(self, function: Any, *args: Any) -> Any:
        if self.busy:
            return fail(Busy("the web view is busy; try again in a moment"))
        return maybeDeferred(function, self.store, *args)


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
    view = WebView(Idle(), reader, Clock())
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
