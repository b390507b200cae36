# -*- test-case-name: tests.schemas.test_schemas -*-
"""The words of a rejection: a value shown short, and a sentence for each failing keyword.

Offers ``show(value, limit)``, the value as JSON text of at most ``limit``
characters (cut with ``...``; it reads only what it shows, so any size or
nesting costs the same), ``describe(error)``, the reason for one
``jsonschema`` error (``9 is not in 1..7``, ``has 5 elements, expected
1..4``), and ``json_key``, a hashable key with JSON's equality.

Values may be cut by ``schema_bounds``: an ``Opaque`` shows the start of what
it stands for, a ``Clipped`` array gives its real length and ends in ``...``.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from evolution.jsonwire.schema_bounds import Clipped, Opaque

if TYPE_CHECKING:  # jsonschema loads only when a refused message is explained
    from jsonschema.exceptions import ValidationError

WEAK = ("oneOf", "anyOf")
"""Keywords whose error only says that no alternative fits."""

_SHOWN_DEPTH = 12

_TYPE_WORDS = {
    "integer": "an integer",
    "array": "an array",
    "string": "a string",
    "boolean": "a boolean",
    "number": "a number",
    "object": "an object",
    "null": "null",
}


def show(value: Any, limit: int = 60) -> str:
    """``value`` as short JSON text for a reason (cut with ``...``; safe for any size and nesting)."""
    text = _render(value, limit + 1, 0)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _render(value: Any, budget: int, depth: int) -> str:
    if isinstance(value, Opaque):
        return _render(value.original, budget, depth)
    if isinstance(value, (list, dict)):
        if depth > _SHOWN_DEPTH:
            return "[...]" if isinstance(value, list) else "{...}"
        items = value if isinstance(value, list) else value.items()
        parts: list[str] = []
        used = 2
        cut = isinstance(value, Clipped)
        for item in items:
            if used > budget:
                cut = True
                break
            if isinstance(value, dict):
                key, item = item
                label = json.dumps(str(key)[:budget], ensure_ascii=False)
                piece = f"{label}: {_render(item, budget - used, depth + 1)}"
            else:
                piece = _render(item, budget - used, depth + 1)
            parts.append(piece)
            used += len(piece) + 2
        if cut:
            parts.append("...")
        opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
        return opening + ", ".join(parts) + closing
    if isinstance(value, str) and len(value) > budget:
        value = value[:budget]
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)[:budget]


def describe(error: ValidationError) -> str:
    """A sentence for the failing keyword of ``error``."""
    keyword, value, schema = error.validator, error.instance, error.schema
    if keyword == "type":
        return _wrong_type(value, schema["type"])
    if keyword in ("minimum", "maximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"{show(value)} is not in {low}..{high}"
        return f"{show(value)} is less than {low}" if keyword == "minimum" else f"{show(value)} is more than {high}"
    if keyword == "const":
        return f"expected {show(schema['const'])}, got {show(value)}"
    if keyword == "enum":
        allowed = ", ".join(show(v) for v in schema["enum"])
        if "title" in schema and "$id" not in schema:  # a named definition, e.g. Trait
            return f"{show(value)} is not a {schema['title']} (one of {allowed})"
        return f"{show(value)} is not one of {allowed}"
    if keyword in ("minItems", "maxItems", "items") and isinstance(value, list):
        return f"has {_elements(getattr(value, 'length', len(value)))}, expected {_count(schema)}"
    if keyword == "uniqueItems" and isinstance(value, list):
        return _duplicate(value)
    if keyword == "contains":
        return _missing(value, error.validator_value, schema)
    if keyword == "not":
        negated = error.validator_value
        if isinstance(negated, dict) and "description" in negated:
            return f"{show(value)} is not accepted: {negated['description']}"
        return f"{show(value)} is not accepted"
    if keyword == "required" and isinstance(value, dict):
        missing = [key for key in schema["required"] if key not in value]
        return f"lacks the field{'s' if len(missing) > 1 else ''} {', '.join(json.dumps(key) for key in missing)}"
    if keyword == "additionalProperties" and isinstance(value, dict):
        named = schema.get("properties", {})
        other = next((key for key in value if key not in named), "")
        return f"has the field {json.dumps(other)}, which is none of {', '.join(named)}"
    if keyword in WEAK:
        return _no_alternative(value, schema[keyword])
    if keyword == "false":
        return f"{show(value)} is not allowed here"
    return error.message


def _wrong_type(value: Any, wanted: str | list[str]) -> str:
    words = " or ".join(_TYPE_WORDS.get(t, t) for t in ([wanted] if isinstance(wanted, str) else wanted))
    reason = f"{show(value)} is not {words}"
    if wanted == "integer" and _integral_float(value):
        reason += " (write integers without a fraction or exponent)"
    return reason


def _missing(value: Any, wanted: Any, schema: dict[str, Any]) -> str:
    what = show(wanted["const"]) if isinstance(wanted, dict) and "const" in wanted else "a matching element"
    reason = f"{show(value)} has no {what}"
    return f"{reason}: {schema['description']}" if "description" in schema else reason


def _no_alternative(value: Any, alternatives: list[Any]) -> str:
    titles = [branch.get("title") for branch in alternatives if isinstance(branch, dict)]
    hint = " (write integers without a fraction or exponent)" if _integral_float(value) else ""
    if titles and all(titles):
        return f"{show(value)} is none of: {', '.join(titles)}{hint}"
    return f"{show(value)} does not have any of the allowed shapes{hint}"


def _integral_float(value: Any) -> bool:
    return type(value) is float and value.is_integer()


def _elements(count: int) -> str:
    return "1 element" if count == 1 else f"{count} elements"


def json_key(value: Any) -> Any:
    """A hashable key with JSON's equality: ``1 == 1.0``, but ``true`` is not ``1``.

    Anything else (an ``Opaque`` among them) equals only itself.
    """
    kind = type(value)
    if kind is str:
        return value
    if kind is list or kind is Clipped:
        return ("array", tuple(json_key(item) for item in value))
    if kind is bool:
        return ("boolean", value)
    if kind is int or kind is float:
        return ("number", value)
    if value is None:
        return ("null",)
    if kind is dict:
        return ("object", frozenset((key, json_key(item)) for key, item in value.items()))
    return ("other", id(value))


def _duplicate(value: list[Any]) -> str:
    first: dict[Any, int] = {}
    for index, item in enumerate(value):
        key = json_key(item)
        if key in first:
            return f"holds {show(item)} twice (elements {first[key]} and {index})"
        first[key] = index
    return f"{show(value)} holds the same value twice"


def _count(schema: dict[str, Any]) -> str:
    low = schema.get("minItems", 0)
    high = schema.get("maxItems")
    if schema.get("items") is False:
        prefix = len(schema.get("prefixItems", []))
        high = prefix if high is None else min(high, prefix)
    if high is None:
        return f"at least {low}"
    return f"{low}" if low == high else f"{low}..{high}"
