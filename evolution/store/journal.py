# -*- test-case-name: tests.store.test_writer, tests.store.test_faults -*-
"""The journal: the writes the results database has not taken yet, in room reserved on the disk beforehand.

Offers ``Journal(path, reserve)`` (``<db>.pending``) and ``InUse`` (another
host has the lock):

- ``open(lock_wait)`` opens (or creates) the file and takes the lock on the
  database; ``reserve_room()`` allocates ``reserve`` bytes for it and says
  why, if it could not; ``adopt(path, fd, reserve)``: the same journal in a
  child the open file was handed to;
- ``read()``: the operations it holds, in order; ``append(operations)``:
  True once they are synced, False if even the reserve has no room left
  (nothing is written then); ``clear()``, ``count``, ``close()``;
- ``held(path)``: what a journal file holds, read without the lock (for
  tools and tests: the writes a next start would apply);
  ``operation_text(operation)``: an operation as one line of JSON.

Why a reserve, the file's format, and the lock: docs/store.md, "Inside the store".
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

RESERVE_MIB = 16
RESERVE = RESERVE_MIB * 2**20
LOCK_WAIT = 5.0
CHUNK = 1 << 20
Operation = dict[str, Any]


class InUse(Exception):
    """Another process holds the database's lock; the message is one sentence."""


class Journal:
    """``<db>.pending``: lines of operations in reserved room, and the lock on the database."""

    def __init__(self, path: str | Path, reserve: int = RESERVE) -> None:
        self.path = Path(path)
        self.reserve = reserve
        self.fd: int | None = None
        self.size = 0  # bytes allocated
        self.end = 0  # where the next line goes
        self.count = 0  # lines held (some may be applied already: applying again changes nothing)
        self._generation: int | None = None

    # -- opening --------------------------------------------------------------------------

    def open(self, lock_wait: float = LOCK_WAIT) -> None:
        """Open or create the file and take the lock; ``InUse`` if it is not free within ``lock_wait`` s."""
        self.fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + lock_wait
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    self.close()
                    raise InUse(
                        f"the results database {self.path.with_suffix('')} is in use by another host (or by the"
                        " store process of one that stopped and is still writing); give each host its own --db"
                    ) from None
                time.sleep(0.05)
        self.size = os.fstat(self.fd).st_size

    @classmethod
    def adopt(cls, path: str | Path, fd: int, reserve: int = RESERVE) -> Journal:
        journal = cls(path, reserve)
        journal.fd = fd
        journal.size = os.fstat(fd).st_size
        return journal

    def reserve_room(self) -> str | None:
        """Allocate the reserve; None, or why it could not be had."""
        if self.size >= self.reserve:
            return None
        try:
            self._allocate(self.reserve)
        except OSError as error:
            return error.strerror or str(error)
        return None

    def _allocate(self, size: int) -> None:
        os.posix_fallocate(self.fd, 0, size)
        os.fsync(self.fd)
        self.size = max(self.size, size)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    # -- reading --------------------------------------------------------------------------

    def _text(self) -> bytes:
        """The file up to its first zero byte."""
        chunks, offset = [], 0
        while chunk := os.pread(self.fd, CHUNK, offset):
            end = chunk.find(b"\0")
            chunks.append(chunk if end < 0 else chunk[:end])
            if end >= 0:
                break
            offset += len(chunk)
        return b"".join(chunks)

    def read(self) -> list[Operation]:
        """The operations held, in order; sets where the next line goes."""
        operations: list[Operation] = []
        self.end = self.count = 0
        generation = None
        text = self._text()
        for line in text.split(b"\n")[:-1]:  # what follows the last newline is cut short
            parsed = _parse(line, generation, len(operations))
            if parsed is None:
                break
            line_generation, operation = parsed
            if line_generation is not None:
                generation = line_generation
            operations.append(operation)
            self.end += len(line) + 1
        self.count = len(operations)
        self._generation = generation
        return operations

    # -- writing --------------------------------------------------------------------------

    def append(self, operations: list[Operation]) -> bool:
        """Add lines for ``operations``, synced; False (nothing written) if they do not fit."""
        if self.count == 0:
            self._generation, self.end = None, 0
        if self._generation is None:  # empty, or an older host's lines only
            self._generation = secrets.randbits(64)
        lines = b"".join(
            b"%016x %d " % (self._generation, self.count + k)
            + operation_text(operation).encode("ascii") + b"\n"
            for k, operation in enumerate(operations)
        )
        try:
            if self.end + len(lines) > self.size:
                self._allocate_at_least(self.end + len(lines))
            os.pwrite(self.fd, lines, self.end)
            os.fsync(self.fd)
        except OSError:
            return False
        self.end += len(lines)
        self.count += len(operations)
        if self.end > self.size // 2:
            self._grow_quietly()
        return True

    def _allocate_at_least(self, needed: int) -> None:
        try:
            self._allocate(max(needed, 2 * self.size))
        except OSError:
            self._allocate(needed)

    def _grow_quietly(self) -> None:
        try:
            self._allocate(2 * self.size)
        except OSError:
            pass  # the disk is full: what is left of the reserve still holds

    def clear(self) -> None:
        """The database holds everything: an empty journal (raises ``OSError`` if the disk refuses)."""
        os.pwrite(self.fd, b"\0", 0)
        os.fsync(self.fd)
        self.end = self.count = 0

    @property
    def room(self) -> int:
        """Bytes of the reserve still free."""
        return max(0, self.size - self.end)


def operation_text(operation: Operation) -> str:
    """An operation as one line of JSON (a log compressed already goes as ``{"zlib": base64}``)."""
    return json.dumps(operation, separators=(",", ":"), default=_compressed_json)


def _compressed_json(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"zlib": base64.b64encode(value).decode("ascii")}
    raise TypeError(f"{type(value).__name__} is not JSON")


def held(path: str | Path) -> list[Operation]:
    """The operations the journal at ``path`` holds (none if there is no file), read without the lock."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return []
    try:
        return Journal.adopt(path, fd).read()
    finally:
        os.close(fd)


def _parse(line: bytes, generation: int | None, index: int) -> tuple[int | None, Operation] | None:
    """(generation, operation) of a line that follows on; None where the journal ends."""
    if line.startswith(b"{"):  # an older host's journal: plain JSON lines, never after lines of ours
        if generation is not None:
            return None
        payload = line
        found = None
    else:
        head = line.split(b" ", 2)
        if len(head) != 3:
            return None
        try:
            found, number = int(head[0], 16), int(head[1])
        except ValueError:
            return None
        if number != index or (generation is not None and found != generation):
            return None
        payload = head[2]
    try:
        operation = json.loads(payload)
        if not isinstance(operation, dict):
            return None
        if isinstance(operation.get("log"), dict):  # a game's log, compressed already (operation_text)
            operation["log"] = base64.b64decode(operation["log"]["zlib"])
    except (ValueError, KeyError, TypeError):
        return None
    return found, operation
