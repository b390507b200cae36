# -*- test-case-name: tests.web.test_tables -*-
"""The sign-up lobby as the web view's JSON.

Offers ``lobby_json(lobby, clock)``: who is waiting, and when the sign-up
window starts a game (or, in tournament mode, which sign-up period runs and
how long it has left); and ``lobby_digest(lobby)``, what changes when that
picture does. Stored games' JSON is ``evolution.store.queries``; a running
game's is made where it runs (``evolution.host.runner.live_pictures``).
"""

from __future__ import annotations

from typing import Any

Json = Any


def lobby_json(lobby: Any, clock: Any) -> Json:
    """The sign-up lobby (``SignupFactory.status``), with the countdown in seconds from now."""
    if lobby is None:
        return {"mode": "games", "waiting": [], "open": False, "starts_in": None}
    data = dict(lobby.status())
    for at, left in (("starts_at", "starts_in"), ("period_ends_at", "period_ends_in")):
        if at in data:
            when = data.pop(at)
            data[left] = None if when is None else round(max(0.0, when - clock.seconds()), 2)
    return data


def lobby_digest(lobby: Any) -> tuple:
    """What changes when the lobby's picture does (the countdown runs in the page)."""
    return () if lobby is None else tuple(sorted((key, str(value)) for key, value in lobby.status().items()))
