"""Replaying the reference transcript (spec/reference-transcript-3-players.txt).

The transcript records the course's reference server with three reference
clients that signed up as C1, C2, C3; the server hands players to its dealer in
reverse sign-up order (rules.md 3.3), so our dealer gets C3, C2, C1, with the
sorted deck. Each client is the reference strategy wrapped in a player that
encodes every message it receives and every answer it gives with the wire
codec. The transcript ends during turn 4; every message it holds must be
reproduced exactly (compared as compact JSON text, so ``false`` never equals
``0``). The sign-up lines ("good guy" / "ok") are outside the dealer and are
left out.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.local import play_local_game
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.evolution.wire import codec
from tests.support.paths import SPEC

TRANSCRIPT = SPEC / "reference-transcript-3-players.txt"
CLIENTS = ("C1", "C2", "C3")
SIGN_UP = ('"good guy"', '"ok"')


def compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


def read_transcript() -> list[tuple[str, str, str]]:
    """(client, direction, compact JSON) per line; direction ``S>C`` or ``C>S``."""
    if not TRANSCRIPT.is_file():
        pytest.skip(f"no reference transcript: {TRANSCRIPT} is absent (set EVOLUTION_SHARED to the shared folder)")
    lines = []
    for line in TRANSCRIPT.read_text().splitlines():
        if not line.strip():
            continue
        route, text = line.split(maxsplit=1)
        if text.strip() in SIGN_UP:
            continue
        sender, receiver = route.split(">")
        if sender == "S":
            lines.append((receiver, "S>C", compact(json.loads(text))))
        else:
            lines.append((sender, "C>S", compact(json.loads(text))))
    return lines


class Wiretap(SillyPlayer):
    """The reference strategy, logging each message as the wire would carry it."""

    def __init__(self, name: str, log: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.name = name
        self.log = log

    def _say(self, direction: str, value: Any) -> None:
        self.log.append((self.name, direction, compact(value)))

    def start(self, watering_hole, me):
        self._say("S>C", codec.start_to_json(watering_hole, me))
        return super().start(watering_hole, me)

    def choose(self, before, after):
        self._say("S>C", codec.choose_to_json(before, after))
        answer = super().choose(before, after)
        self._say("C>S", codec.action4_to_json(answer))
        return answer

    def feed_next(self, state):
        self._say("S>C", codec.feed_next_to_json(state))
        answer = super().feed_next(state)
        self._say("C>S", codec.feeding_choice_to_json(answer))
        return answer


@pytest.fixture(scope="module")
def exchanges() -> tuple[list, list]:
    """(transcript lines, our game's lines), both in the order they happened."""
    expected = read_transcript()
    log: list[tuple[str, str, str]] = []
    result = play_local_game([Wiretap(name, log) for name in ("C3", "C2", "C1")], Deck.sorted())
    assert result.removals == ()
    return expected, log


@pytest.mark.parametrize("client", CLIENTS)
def test_each_client_receives_and_answers_what_the_transcript_shows(exchanges, client):
    expected, log = exchanges
    theirs = [(direction, text) for name, direction, text in expected if name == client]
    ours = [(direction, text) for name, direction, text in log if name == client]
    assert len(theirs) > 10
    assert ours[: len(theirs)] == theirs


def test_the_dealer_talks_to_the_clients_in_the_transcripts_order(exchanges):
    expected, log = exchanges
    assert log[: len(expected)] == expected
