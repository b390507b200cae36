"""A game's message log keeps each message written as its text, and reads back as the list of entries."""

from __future__ import annotations

import json

from twisted.internet.task import Clock

from evolution.net.game_log import GameLog


def test_the_log_text_embeds_each_message_as_written_and_parses_to_the_entries():
    clock = Clock()
    log = GameLog(clock)
    seat = log.seat(2)
    seat.sent('[1,[],[]]')
    clock.advance(0.0125)
    seat.received([0, [], [], [[1, 2]], []])
    seat.sent('["removed","caf\u00e9"]')  # not ASCII: escaped, as the store keeps ASCII text
    log.failed(2, "sent \u202e", 3)
    text = log.to_text()
    assert text.isascii()
    assert text.startswith('[[0,2,"out",[1,[],[]]],[12,2,"in",')
    assert log.to_json() == json.loads(text) == [
        [0, 2, "out", [1, [], []]],
        [12, 2, "in", [0, [], [], [[1, 2]], []]],
        [12, 2, "out", ["removed", "caf\u00e9"]],
        [12, 2, "fail", "sent \u202e", 3],
    ]
