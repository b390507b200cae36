# -*- test-case-name: tests.host.test_logs, tests.host.modes.test_tournament_mode -*-
"""A tournament round's one-line summary, as the log says it and the store keeps it with the round.

Offers ``round_summary(format, entrants, round, reports)``: how many games and players, then in a Swiss its
leader (points and rating), in a knockout what the round decided (who goes on, a play-off, the winners), and who
failed in it.
"""

from __future__ import annotations

from typing import Any

from evolution.text import plural, quoted
from evolution.tournament.formats import Swiss
from evolution.tournament.standings import Entrant, GameReport


def round_summary(format: Any, entrants: list[Entrant], round: int, reports: list[GameReport]) -> str:
    playing = [seat.entrant for report in reports for seat in report.seats]
    failed = [e for e in playing if e.failure is not None and e.failed_round == round]
    text = f"{plural(len(reports), 'game')}, {plural(len(playing), 'player')}"
    if isinstance(format, Swiss):
        standings = format.standings(entrants)
        leader = standings[0][1] if standings and standings[0][0] else None
        if leader is not None:
            mu, sigma = format.rating(leader)
            text += f"; leader {quoted(leader.name)} with {plural(leader.points, 'point')} (rating {mu:.1f} +- {sigma:.1f})"
    else:
        text += "; " + _knockout_outcome(format, round, playing)
    if failed:
        text += f"; {len(failed)} failed: " + ", ".join(quoted(e.name) for e in failed)
    return text


def _knockout_outcome(format: Any, round: int, playing: list[Entrant]) -> str:
    """What a knockout round decided: who goes on, who is tied for a play-off, or who won."""
    names = lambda entrants: ", ".join(quoted(e.name) for e in entrants)  # noqa: E731
    if format.done:
        return f"won by {names(format.winners)}" if format.winners else "no winner"
    if format.playoff is not None:
        return f"{names(format.playoff.tied)} tied for first: play-off {format.playoff.number} follows"
    going_on = [e for e in playing if e.active]
    out = [e for e in playing if e.out_round == round]
    return f"{len(going_on)} {'goes' if len(going_on) == 1 else 'go'} on, {len(out)} knocked out"
