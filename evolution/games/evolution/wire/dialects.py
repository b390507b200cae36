# -*- test-case-name: tests.games.evolution.net.test_dialects, tests.games.evolution.wire.test_texts -*-
"""The two dialects of the remote protocol: seed 000 (the course's, our default) and seed 002.

Offers ``Dialect`` and ``DIALECTS`` (``seed000``, ``seed002``). A dialect is a
codec choice, nothing more: the host's dealer, proxies and checks are the
same, and so are the replies (Action4, FeedingChoice). What differs
(remote-protocol.md 8, messages.md 12):

    seed 000  sign-up reply "ok"; start [wh, bag, boards, hand];
              choose [before, after]; feedNext [bag, boards, hand, wh, others];
              the score message only with --send-scores
    seed 002  sign-up reply "ack"; ["start", Player+]; ["choose", [before, after]];
              ["feed", wh, others, Player+]; the score message
              [[id, score], ...] to every player at the end of every game

(Player+ is ``[["id", i], ["species", boards], ["bag", b], ["cards", hand]]``,
``cards`` only for a non-empty hand.) For the host a dialect gives
``start(wh, me, id)``, ``choose(before, after)`` and ``feed_next(state,
id)``, each the message's compact JSON text (``evolution.games.evolution.wire.texts``: the
text of ``codec``'s values, made from pieces encoded once); for a client, ``kind(message)`` (which message it is, by shape) and
``read(kind, message)`` (checked against the dialect's schema, then
decoded). Seed 002's start carries no watering hole: a client hears 0 there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from evolution.games.evolution.rules.player import LOB, FeedingState
from evolution.games.evolution.rules.player_state import PlayerView
from evolution.games.evolution.wire import codec
from evolution.games.evolution.wire.messages import message_kind, read_choose, read_feed_next, read_score, read_start
from evolution.games.evolution.wire.schemas import SCHEMAS
from evolution.games.evolution.wire.texts import boards_text, cards_text, lob_text, player_plus_text

Json = Any


def _view_of_player(value: Json) -> PlayerView:
    player = codec.player_from_json(value, "player")
    return PlayerView(player.bag, tuple(player.boards), tuple(player.hand))


# -- seed 002, the client's side -------------------------------------------------------


_KIND_OF_TAG_002 = {"start": "start", "choose": "choose", "feed": "feed-next", "removed": "removed"}


def _kind_002(value: Json) -> str:
    if isinstance(value, list) and value and isinstance(value[0], str):
        return _KIND_OF_TAG_002.get(value[0], "unknown")
    return message_kind(value)


def _read_002(kind: str, value: Json) -> Any:
    if kind == "start":
        SCHEMAS.check("seed002/start", value)
        return 0, _view_of_player(value[1])
    if kind == "choose":
        SCHEMAS.check("seed002/choose", value)
        return codec.choose_from_json(value[1])
    if kind == "feed-next":
        SCHEMAS.check("seed002/feed-next", value)
        _, watering_hole, others, me = value
        view = _view_of_player(me)
        return FeedingState(view.bag, view.boards, view.hand, watering_hole, codec.lob_from_json(others, "feed.others"))
    return _read_000(kind, value)


# -- seed 000 ------------------------------------------------------------------------------


def _kind_000(value: Json) -> str:
    if isinstance(value, list) and len(value) == 2 and value[0] == "removed":
        return "removed"
    return message_kind(value)


def _read_000(kind: str, value: Json) -> Any:
    if kind == "start":
        return read_start(value)
    if kind == "choose":
        return read_choose(value)
    if kind == "feed-next":
        return read_feed_next(value)
    if kind == "score":
        return read_score(value)
    if kind == "removed":
        SCHEMAS.check("removed", value)
        return value[1]
    raise ValueError(f"no reader for {kind!r}")


@dataclass(frozen=True)
class Dialect:
    name: str
    signup_ok: str
    always_scores: bool  # the score message ends every game, whatever --send-scores says
    start: Callable[[int, PlayerView, int], str]
    choose: Callable[[LOB, LOB], str]
    feed_next: Callable[[FeedingState, int], str]
    kind: Callable[[Json], str]
    read: Callable[[str, Json], Any]


SEED000 = Dialect(
    name="seed000",
    signup_ok="ok",
    always_scores=False,
    start=lambda watering_hole, me, id: f"[{watering_hole},{me.bag},{boards_text(me.boards)},{cards_text(me.hand)}]",
    choose=lambda before, after: f"[{lob_text(before)},{lob_text(after)}]",
    feed_next=lambda state, id: (
        f"[{state.bag},{boards_text(state.boards)},{cards_text(state.hand)},{state.watering_hole},"
        f"{lob_text(state.others)}]"
    ),
    kind=_kind_000,
    read=_read_000,
)

SEED002 = Dialect(
    name="seed002",
    signup_ok="ack",
    always_scores=True,
    start=lambda watering_hole, me, id: f'["start",{player_plus_text(id, me.bag, me.boards, me.hand)}]',
    choose=lambda before, after: f'["choose",[{lob_text(before)},{lob_text(after)}]]',
    feed_next=lambda state, id: (
        f'["feed",{state.watering_hole},{lob_text(state.others)},'
        f"{player_plus_text(id, state.bag, state.boards, state.hand)}]"
    ),
    kind=_kind_002,
    read=_read_002,
)

DIALECTS = {dialect.name: dialect for dialect in (SEED000, SEED002)}
