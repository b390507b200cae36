"""The read process: the host's child that reads the results store for the web view.

``python -m evolution.host.read_process DB``, started by
``evolution.store.reader.StoreReader``. It reads messages from its standard
input (``evolution.host.child``), each ``(n, function, args)`` with a
function that the pickle names by its module (so only the program's own
functions travel), calls ``function(store, *args)`` on a read connection of
its own (``ResultsStore``, opened at the first read), and answers
``(n, True, result)`` or ``(n, False, error)``, in order. It ends when its
input ends, whatever it was doing (SIGINT and SIGTERM are ignored; see
``child.quiet_child``).
"""

from __future__ import annotations

import pickle
import sys
from typing import Any

from evolution.host.child import messages, quiet_child, send
from evolution.store.results_store import ResultsStore


class LazyStore:
    """The read connection, opened at the first read (a failure to open is that read's answer)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.store: ResultsStore | None = None

    def get(self) -> ResultsStore:
        if self.store is None:
            self.store = ResultsStore.open(self.path)
        return self.store


def answer(store: LazyStore, number: int, function: Any, args: tuple) -> tuple:
    try:
        return number, True, function(store.get(), *args)
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
    quiet_child()
    out = sys.stdout.buffer
    store = LazyStore(path)
    for number, function, args in messages(sys.stdin.buffer):
        try:
            sent = send(out, answer(store, number, function, args))
        except Exception as error:  # an answer that cannot travel back is an error, not the end of this process
            sent = send(out, (number, False, RuntimeError(f"the answer could not be sent: {error}")))
        if not sent:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
