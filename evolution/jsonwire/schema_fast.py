# -*- test-case-name: tests.schemas.test_validators -*-
"""The fast check: jsonschema-rs, with this project's strict integers.

Offers ``FastSchemas(documents)``: ``is_valid(name, value)`` for a whole
message and ``is_valid_at(uri, value)`` for a value against the schema at an
absolute URI (``urn:evolution:defs#/$defs/GP``), which the explainer uses to
skip the parts of a rejected message that are valid; it refuses a schema
that says ``"type": "number"``. And ``only_json(value)``: is the value built
of lists, dicts, strings, integers, booleans and None alone (no float,
nothing that is not JSON)? ``3.0`` and ``true`` are not integers here
(messages.md 0).

Why that settles strict integers, and what it cannot see: docs/architecture.md,
"Checking a message".
"""

from __future__ import annotations

import gc
from typing import Any, Iterator

import jsonschema_rs

_JSON_TYPES = frozenset({list, dict, str, int, bool, type(None)})


def only_json(value: Any) -> bool:
    """True when ``value`` is built of lists, dicts, strings, integers, booleans and ``None`` alone.

    So: no float, and nothing that is not JSON. It walks the value one level
    at a time; ``gc.get_referents`` lists the elements of every list and the
    values of every dict of a level in one C call (strings and numbers hold no
    references), twice as fast as a Python loop. It is only ever given lists
    and dicts whose elements were just checked, so it sees nothing but
    finished containers of JSON values.
    """
    level = [value]
    while level:
        if not _JSON_TYPES.issuperset(map(type, level)):
            return False
        level = gc.get_referents(*level)
    return True


class FastSchemas:
    """One jsonschema-rs validator per schema file, and per referenced definition on demand."""

    def __init__(self, documents: dict[str, dict[str, Any]]) -> None:
        for name, document in documents.items():
            _refuse_fractions(name, document)
        self._registry = jsonschema_rs.Registry((document["$id"], document) for document in documents.values())
        self._by_name = {name: self._compile(document) for name, document in documents.items()}
        self._by_uri: dict[str, Any] = {}

    def _compile(self, schema: dict[str, Any]) -> Any:
        return jsonschema_rs.validator_for(schema, registry=self._registry)

    def is_valid(self, name: str, value: Any) -> bool:
        """True when ``value`` is valid under schema ``name``, with strict integers."""
        return _valid(self._by_name[name], value)

    def is_valid_at(self, uri: str, value: Any) -> bool:
        """True when ``value`` is valid under the schema at ``uri``, with strict integers."""
        validator = self._by_uri.get(uri)
        if validator is None:
            validator = self._by_uri[uri] = self._compile({"$ref": uri})
        return _valid(validator, value)


def _valid(validator: Any, value: Any) -> bool:
    try:
        return validator.is_valid(value) and only_json(value)
    except ValueError:  # jsonschema-rs met a type no JSON parser makes
        return False


def _refuse_fractions(name: str, document: dict[str, Any]) -> None:
    """``only_json`` refuses every float: refuse a schema that asks for numbers with a fraction."""
    for node in _subschemas(document):
        kinds = node.get("type")
        if kinds == "number" or (isinstance(kinds, list) and "number" in kinds):
            raise ValueError(f"schema {name} takes numbers with a fraction, which the fast check refuses")


def _subschemas(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for child in node.values():
            yield from _subschemas(child)
    elif isinstance(node, list):
        for child in node:
            yield from _subschemas(child)
