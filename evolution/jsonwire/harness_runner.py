# -*- test-case-name: tests.games.evolution.test_conformance, tests.games.fish.test_conformance -*-
"""Running one of a game's course test harnesses: one JSON text in, one JSON value out.

Offers ``run_harness_of(harnesses, schemas, name, text)``: decodes the one
JSON value ``text`` holds, checks it against the schema ``harness/<name>``
of ``schemas`` (a ``SchemaSet``, or anything with ``check(name, value)``)
and answers ``harnesses[name](value)``. Input that is not JSON or breaks
the schema raises ``WireError``; so does, by the harnesses' own checks,
input outside a harness's domain.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Protocol

from evolution.jsonwire.framing import FramingError, decode_one
from evolution.jsonwire.wire_errors import WireError


class Checks(Protocol):
    def check(self, name: str, value: Any) -> None: ...


def run_harness_of(harnesses: Mapping[str, Callable[[Any], Any]], schemas: Checks, name: str, text: str) -> Any:
    """The answer of harness ``name`` to ``text``; raises ``WireError`` on bad input."""
    try:
        value = decode_one(text.encode("utf-8"))
    except FramingError as error:
        raise WireError("", str(error)) from None
    schemas.check(f"harness/{name}", value)
    return harnesses[name](value)
