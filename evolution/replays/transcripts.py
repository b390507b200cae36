"""A stored game's transcript: what each seat received and sent, with times, and how it left the game.

Offers ``transcript(game, log, seat=None)``, the transcript as JSON (the
form ``evolution-replay GAME --transcript --json`` prints and the web view's
``/api/games/ID/transcript`` serves), ``transcript_lines(data)``, the same as
lines of text, and ``NoSuchSeat``; and the read functions the web view's
read process runs (``evolution.web.read_process``): ``stored_transcript(store,
id, seat)`` and ``transcript_of_text(store, record, log_text, seat)``, each
failing with ``evolution.store.queries.Missing`` where there is none. Both
read the game's message log (``evolution.net.game_log``) from the seat's side.

The JSON's fields, and how the text shows messages and removals:
docs/store.md, "Replays and transcripts".
"""

from __future__ import annotations

import json
from typing import Any, Sequence

from evolution.store.queries import Missing, game_and_log
from evolution.store.records import GameRecord
from evolution.text import escape, plural, quoted

Json = Any
DIRECTIONS = {"out": "received", "in": "sent", "fail": "failed"}
NAME_SHOWN = 40


class NoSuchSeat(ValueError):
    """The game has no such seat; the message says which it has."""


def _entry(ms: int, seat: int, kind: str, payload: Any) -> Json:
    direction = DIRECTIONS[kind]
    return {"ms": ms, "seat": seat, "direction": direction, ("reason" if kind == "fail" else "message"): payload}


def transcript(game: GameRecord, log: Sequence[Sequence[Any]], seat: int | None = None) -> Json:
    """What each seat of ``game`` (or only ``seat``) received and sent, from its message log."""
    seats = game.seat_summaries()
    if seat is not None:
        seats = [summary for summary in seats if summary["seat"] == seat]
        if not seats:
            raise NoSuchSeat(f"game #{game.id} has seats 1 to {len(game.players)}, not {seat}")
    kept = {summary["seat"] for summary in seats}
    return {
        "id": game.id,
        "game": game.game,
        "outcome": game.outcome,
        "seed": game.seed,
        "tie_break": game.tie_break(),
        "seats": seats,
        "entries": [_entry(ms, number, kind, payload) for ms, number, kind, payload, *_ in log if number in kept],
    }


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=True)


def _removal_text(removed: Json) -> str:
    return f"in turn {removed['turn']} ({escape(removed['step'] or '')}): {escape(removed['reason'])}"


def transcript_lines(data: Json) -> list[str]:
    """The transcript as text: a header naming the seats, then one line per message, failure and removal."""
    seats = data["seats"]
    names = ", ".join(f"seat {seat['seat']} {quoted(seat['name'], NAME_SHOWN)}" for seat in seats)
    lines = [
        f"game #{data['id']} ({escape(data['game'])}, {escape(data['outcome'])}): what "
        f"{'the seat' if len(seats) == 1 else plural(len(seats), 'seat')} received and sent;"
        " ms since the game began",
        names,
        f"{'ms':>7}  seat  what      message",
    ]
    removals = {seat["seat"]: seat["removed"] for seat in seats if seat["removed"] is not None}
    last = _last_lines(data["entries"], removals)
    for index, entry in enumerate(data["entries"]):
        text = escape(entry["reason"]) if entry["direction"] == "failed" else _compact(entry["message"])
        lines.append(f"{entry['ms']:>7}  {entry['seat']:>4}  {entry['direction']:<8}  {text}")
        if last.get(entry["seat"]) == index:
            lines.append(f"{'':>7}  {entry['seat']:>4}  {'removed':<8}  {_removal_text(removals[entry['seat']])}")
    for number, removed in removals.items():
        if number not in last:  # removed before the log holds anything of it
            lines.append(f"{'':>7}  {number:>4}  {'removed':<8}  {_removal_text(removed)}")
    return lines


def _last_lines(entries: list[Json], removals: dict[int, Json]) -> dict[int, int]:
    """For each removed seat, the entry its removal follows: its first failure, else its last entry."""
    after: dict[int, int] = {}
    failed: set[int] = set()
    for index, entry in enumerate(entries):
        number = entry["seat"]
        if number not in removals or number in failed:
            continue
        after[number] = index
        if entry["direction"] == "failed":
            failed.add(number)
    return after


def _transcript(record: GameRecord | None, entries: list | None, game_id: int, seat: int | None) -> Json:
    if record is None:
        raise Missing(f"there is no game {game_id}")
    if entries is None:
        raise Missing(f"game {game_id} has no stored message log")
    try:
        return transcript(record, entries, seat)
    except NoSuchSeat as error:
        raise Missing(str(error)) from None


def transcript_of_text(_store: Any, record: GameRecord, log_text: str, seat: int | None) -> Json:
    """A game the host still holds in memory (its log's JSON text): its transcript."""
    return _transcript(record, json.loads(log_text), record.id, seat)


def stored_transcript(store: Any, game_id: int, seat: int | None) -> Json:
    """A stored game's transcript (one seat's, with ``seat``)."""
    return _transcript(*game_and_log(store, game_id), game_id, seat)
