"""The web view's read process: the store's and the replays' read functions, by name, off the web view's reactor.

``python -m evolution.web.read_process DB``, started by the web view's
``evolution.store.reader.StoreReader``. It reads messages from its standard
input (``evolution.processes.child``), each ``(n, name, args)``, runs
``READS[name](store, *args)`` on a read connection of its own (a
``ResultsStore`` opened at the first read) and answers ``(n, True, result)``
or ``(n, False, error)``, in order. ``READS`` is a fixed list: the store's
queries (``evolution.store.queries``) and the replays' frames and transcripts
(``evolution.replays``); any other name is refused with ``UnknownRead``; a
database that cannot be reached is ``Unreachable`` (its connection is let go:
the next read connects again). It
ends when its input ends, whatever it was doing (SIGINT and SIGTERM are
ignored; see ``stopping.heed_only_the_host``).

Offers ``READS``, ``Encoded`` (a JSON answer encoded once, plain and gzipped:
a replay is encoded here, not by the web view) and ``answer``.
"""

from __future__ import annotations

import gzip
import json
import pickle
import sys
from dataclasses import dataclass
from typing import Any, Callable

from evolution.processes.child import messages, send
from evolution.processes.stopping import heed_only_the_host
from evolution.replays.frames import replay_of_text, stored_replay
from evolution.replays.transcripts import stored_transcript, transcript_of_text
from evolution.store import postgres, queries
from evolution.store.database import StoreUnreachable
from evolution.store.reader import Unreachable
from evolution.store.results_store import ResultsStore

Json = Any


@dataclass(frozen=True)
class Encoded:
    """A JSON answer, encoded once (off the web view's reactor), plain and gzipped."""

    plain: bytes
    gzipped: bytes

    @classmethod
    def of(cls, value: Json) -> Encoded:
        plain = json.dumps(value, separators=(",", ":")).encode("ascii")
        return cls(plain, gzip.compress(plain, 6))


def _encoded(read: Callable[..., Json]) -> Callable[..., Encoded]:
    def encoded(store: ResultsStore, *args: Any) -> Encoded:
        return Encoded.of(read(store, *args))

    return encoded


READS: dict[str, Callable[..., Any]] = {
    "recent_games": queries.recent_games,
    "stored_or_running": queries.stored_or_running,
    "tournament_and_games": queries.tournament_and_games,
    "all_tournaments": queries.all_tournaments,
    "ladder": queries.ladder,
    "ladder_removals": queries.ladder_removals,
    "player": queries.player,
    "players": queries.players,
    "stored_overview": queries.stored_overview,
    "hosts": queries.hosts,
    "stored_replay": _encoded(stored_replay),
    "replay_of_text": _encoded(replay_of_text),
    "stored_transcript": stored_transcript,
    "transcript_of_text": transcript_of_text,
}


class UnknownRead(LookupError):
    """A read the read process does not offer (a name not in ``READS``)."""


class LazyStore:
    """The read connection, opened at the first read (a failure to open is that read's answer)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.store: ResultsStore | None = None

    def get(self) -> ResultsStore:
        if self.store is None:
            self.store = ResultsStore.open(self.path)
        return self.store

    def forget(self) -> None:
        """Let go of a connection the database has dropped: the next read opens another."""
        store, self.store = self.store, None
        if store is not None:
            try:
                store.close()
            except Exception:
                pass  # a connection that is gone already


def answer(store: LazyStore, number: int, name: str, args: tuple) -> tuple:
    read = READS.get(name) if isinstance(name, str) else None
    if read is None:
        return number, False, UnknownRead(f"the read process offers no read named {name!r}: only {', '.join(READS)}")
    try:
        return number, True, read(store.get(), *args)
    except (StoreUnreachable, *postgres.unavailable()) as error:
        store.forget()
        return number, False, Unreachable(" ".join(str(error).split()) or type(error).__name__)
    except Exception as error:
        return number, False, _travelling(error)


def _travelling(error: Exception) -> Exception:
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")


def main(argv: list[str] | None = None) -> int:
    [path] = argv if argv is not None else sys.argv[1:]
    heed_only_the_host()
    out = sys.stdout.buffer
    store = LazyStore(path)
    for number, name, args in messages(sys.stdin.buffer):
        try:
            sent = send(out, answer(store, number, name, args))
        except Exception as error:  # an answer that cannot travel back is an error, not the end of this process
            sent = send(out, (number, False, RuntimeError(f"the answer could not be sent: {error}")))
        if not sent:
            break
    return 0


if __name__ == "__main__":  # run from the module by its name, so that what it pickles (Encoded) is named by it
    from evolution.web.read_process import main as named_main

    sys.exit(named_main())
