# -*- test-case-name: tests.games.evolution.wire.test_messages, tests.games.fish.wire.test_codec -*-
"""The wire layer's one error type.

``WireError`` says which part of a JSON message is wrong and why, as
``<path>: <reason>``, e.g. ``feed-next.boards[2].population: 9 is not in 1..7``.
"""

from __future__ import annotations


class WireError(ValueError):
    """A JSON message that is malformed, of the wrong shape, or against the rules."""

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.path = path
        self.reason = reason
