"""Standings as files to download: a tournament's and a ladder's, as CSV or JSON.

Offers ``Download`` (a file's bytes, content type and name, which the routes
send as an attachment), ``tournament_standings(data, kind)`` (from a
tournament's JSON, ``TournamentRecord.to_json()`` or the live one) and
``ladder_standings(rows, game, kind)`` (from ``/api/ladder``'s rows), ``kind``
``csv`` or ``json``; ``KINDS``.

A row per player, best first, with what ranked it: a tournament's rank,
name, its format's columns (Swiss: points, rating, rating_sigma, ordinal;
knockout: reached, place, score), winner, failed_round, failure; a ladder's
rank, name, provisional, rating, rating_sigma, ordinal, games, wins,
removals. The JSON keeps names and reasons exactly; the CSV shows them as the
command-line tables do (``evolution.text.escape``: no control character, one
name never looks like another), and a text cell that a spreadsheet would take
for a formula (``=``, ``+``, ``-``, ``@`` first) starts with ``'``.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Sequence

from evolution.text import escape

Json = Any
KINDS = ("csv", "json")
TYPES = {"csv": b"text/csv; charset=utf-8", "json": b"application/json; charset=utf-8"}
FORMULA = ("=", "+", "-", "@")
FORMAT_COLUMNS = {
    "swiss": ("points", "rating", "rating_sigma", "ordinal"),
    "knockout": ("reached", "place", "score"),
}
LADDER_COLUMNS = ("rank", "name", "provisional", "rating", "rating_sigma", "ordinal", "games", "wins", "removals")
TEXT = ("name", "failure")


@dataclass(frozen=True)
class Download:
    body: bytes
    kind: bytes  # its content type
    name: str  # the file's name


def tournament_standings(data: Json, kind: str) -> Download:
    """The standings of the tournament ``data``, a row per entrant, as ``kind`` (csv or json)."""
    columns = ("rank", "name", *FORMAT_COLUMNS.get(data["format"], FORMAT_COLUMNS["knockout"]),
               "winner", "failed_round", "failure")
    winners = set(data["winners"])
    failures = {failure["name"]: failure for failure in data["failures"]}
    rows = []
    for standing in data["standings"]:
        failure = failures.get(standing["name"], {})
        rows.append(standing | {"winner": standing["name"] in winners, "failed_round": failure.get("round"),
                                "failure": failure.get("reason")})
    about = {"tournament": data["id"], "game": data["game"], "format": data["format"], "status": data["status"],
             "ranked_by": data["ranked_by"]}
    return _file(kind, f"tournament-{data['id']}-standings", columns, rows, about)


def ladder_standings(rows: list[Json], game: str, kind: str) -> Download:
    """``game``'s ladder (``/api/ladder``'s rows, best first), a row per bot, as ``kind`` (csv or json)."""
    full = [row | {"ordinal": round(row["rating"] - 3 * row["rating_sigma"], 3)} for row in rows]
    return _file(kind, f"{game}-ladder-standings", LADDER_COLUMNS, full, {"ladder": game})


def _file(kind: str, name: str, columns: Sequence[str], rows: list[Json], about: Json) -> Download:
    if kind == "json":
        data = about | {"standings": [{column: row.get(column) for column in columns} for row in rows]}
        body = json.dumps(data, indent=1, ensure_ascii=True).encode("ascii")
    else:
        body = _csv(columns, rows).encode("utf-8")
    return Download(body, TYPES[kind], f"{name}.{kind}")


def _csv(columns: Sequence[str], rows: list[Json]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(column, row.get(column)) for column in columns])
    return out.getvalue()


def _cell(column: str, value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if column in TEXT:
        shown = escape(str(value))
        return "'" + shown if shown.startswith(FORMULA) else shown
    return value
