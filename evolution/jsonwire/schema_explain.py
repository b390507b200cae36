# -*- test-case-name: tests.schemas.test_schemas, tests.jsonwire.test_schema_bounds -*-
"""Explaining a rejected message: which part is wrong and why, in work bounded by the schema.

Offers ``Explainer(documents, registry, fast)`` (``fast``: ``schema_fast.FastSchemas``):

- ``explain(name, value, root)``: every violation as a ``WireError``, the
  first in document order first, e.g.
  ``feed-next.boards[2].population: 9 is not in 1..7``; at most
  ``MAX_ERRORS``;
- ``view(name)``: the schema's ``View``, which cuts a value to what the
  explanation looks at;
- ``validator(name)``: the ``jsonschema`` validator it uses, with strict
  integers (``3.0`` and ``true`` are not integers).

How paths are named, and how the work stays bounded whatever the message
holds: docs/architecture.md, "Checking a message".
"""

from __future__ import annotations

from itertools import islice
from typing import Any, Callable, Iterable, Iterator

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from evolution.jsonwire.schema_bounds import Clipped, View
from evolution.jsonwire.schema_fast import FastSchemas
from evolution.jsonwire.schema_reasons import WEAK, describe, json_key
from evolution.jsonwire.wire_errors import WireError

MAX_ERRORS = 50
"""The most violations one explanation collects (``evolution-schema check`` shows as many)."""

_SHAPE = ("type", "minItems", "maxItems", "items", "const", "enum")
_OWN = (
    "type", "const", "enum", "required", "additionalProperties", "minItems", "maxItems", "minimum", "maximum",
    "uniqueItems", "contains", "not",
)
"""A position's own checks, in the order they are reported: its kind, its length, then the rest."""


def _is_integer(checker: object, instance: object) -> bool:
    return type(instance) is int


def _unique_items(validator: Any, unique: bool, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
    """``uniqueItems`` in one pass: equal elements have equal ``json_key``s."""
    if unique and validator.is_type(instance, "array"):
        if len({json_key(item) for item in instance}) < len(instance):
            yield ValidationError("has non-unique elements")


_STRICT = Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer)

StrictValidator = validators.extend(
    Draft202012Validator, validators={"uniqueItems": _unique_items}, type_checker=_STRICT
)
"""Draft 2020-12 with strict integers and a linear ``uniqueItems``: the reference the tests compare with."""


def _skipping_valid_parts(fast: FastSchemas) -> Callable[..., Iterator[ValidationError]]:
    """``$ref`` that first asks ``fast`` whether the value is valid there, and only then looks."""
    look = Draft202012Validator.VALIDATORS["$ref"]

    def ref(validator: Any, uri: str, instance: Any, schema: dict[str, Any]) -> Iterator[ValidationError]:
        if not fast.is_valid_at(uri, instance):
            yield from look(validator, uri, instance, schema)

    return ref


def _own_checks_first(node: Any) -> Any:
    """A copy of a schema whose objects list their own checks before those of their elements."""
    if isinstance(node, list):
        return [_own_checks_first(item) for item in node]
    if not isinstance(node, dict):
        return node

    def rank(key: str) -> tuple[int, int]:
        if key == "items" and node[key] is False:
            return (0, _OWN.index("maxItems"))
        if key in _OWN:
            return (0, _OWN.index(key))
        return (2, 0) if key in ("prefixItems", "items", "properties") else (1, 0)

    return {key: _own_checks_first(node[key]) for key in sorted(node, key=rank)}


class Explainer:
    """The slow path: ``jsonschema`` on the part of a rejected message its schema can see."""

    def __init__(self, documents: dict[str, dict[str, Any]], registry: Registry, fast: FastSchemas) -> None:
        self.documents = documents
        self.registry = registry
        self._targets: dict[str, Any] = {}
        self._views: dict[str, View] = {}
        self._ordered = {name: _own_checks_first(document) for name, document in documents.items()}
        self._ordered_registry = Registry().with_resources(
            (document["$id"], Resource.from_contents(document)) for document in self._ordered.values()
        )
        self._explaining = validators.extend(StrictValidator, validators={"$ref": _skipping_valid_parts(fast)})
        self._validators: dict[str, Any] = {}
        self._explainers: dict[str, Any] = {}

    def view(self, name: str) -> View:
        """What an explanation of schema ``name`` looks at, worked out on first use.

        A message is explained only when it is refused, and every process that
        checks messages (each bot and command line too) would otherwise pay
        for the views of every schema at start-up, most of which it never uses.
        """
        return _once(self._views, name, lambda: _view_of(self.documents[name], self._target))

    def validator(self, name: str) -> Any:
        """The reference ``jsonschema`` validator of schema ``name`` (strict integers), built on first use."""
        return _once(self._validators, name, lambda: StrictValidator(self.documents[name], registry=self.registry))

    def _explainer(self, name: str) -> Any:
        """The validator ``explain`` runs: own checks first, valid parts skipped."""
        ordered = self._ordered[name]
        return _once(self._explainers, name, lambda: self._explaining(ordered, registry=self._ordered_registry))

    def explain(self, name: str, value: Any, root: str, limit: int = MAX_ERRORS) -> list[WireError]:
        """The first ``limit`` violations of ``value`` in document order (empty when valid).

        The first violation is the same whatever the limit: the schemas check a
        position before its elements, and elements in order (tests check it).
        """
        errors = self._explainer(name).iter_errors(self.view(name).cut(value))
        found = list(islice(filter(_sound, errors), limit))
        found = [leaf for error in _strongest(found) for leaf in _leaves(error)]
        found.sort(key=_order)
        explained = (WireError(self.path_of(error, name, root), describe(error)) for error in found)
        return list({str(error): error for error in explained}.values())[:limit]

    def _deref(self, node: Any, key: Any) -> Any:
        """Follow ``$ref`` until ``node`` holds ``key`` (schema paths leave refs out)."""
        while isinstance(node, dict) and key not in node and "$ref" in node:
            node = self._target(node["$ref"])
        return node

    def _target(self, uri: str) -> Any:
        """The schema at absolute ``uri``, resolved once (the views follow thousands of refs to a few dozen)."""
        return _once(self._targets, uri, lambda: self.registry.resolver().lookup(uri).contents)

    def path_of(self, error: ValidationError, name: str, root: str) -> str:
        """Name the instance path of ``error`` with the titles the schemas give positions."""
        steps = list(error.absolute_path)
        keys = list(error.absolute_schema_path)[:-1]  # the last key is the failing keyword
        node: Any = self.documents[name]
        parts = [root]
        i = k = 0
        while i < len(keys):
            key = keys[i]
            node = self._deref(node, key)
            if not isinstance(node, dict) or key not in node:
                break
            if key == "prefixItems" and i + 1 < len(keys):
                parent, node = node, node["prefixItems"][keys[i + 1]]
                k = _name_step(parts, parent, node, steps, k)
                i += 2
            elif key == "properties" and i + 1 < len(keys):
                node = node["properties"][keys[i + 1]]
                if k < len(steps):
                    parts.append(f".{steps[k]}")  # an object's field is named by its key
                    k += 1
                i += 2
            elif key in ("items", "contains"):
                parent, node = node, node[key]
                k = _name_step(parts, parent, node, steps, k)
                i += 1
            elif key in ("oneOf", "anyOf", "allOf") and i + 1 < len(keys):
                node = node[key][keys[i + 1]]
                i += 2
            elif key in ("if", "then", "else", "not"):
                node = node[key]
                i += 1
            else:
                break
        parts.extend(f"[{step}]" for step in steps[k:])
        return "".join(parts)


def _once(cache: dict[str, Any], key: str, make: Callable[[], Any]) -> Any:
    """``cache[key]``, made by ``make()`` the first time."""
    if key not in cache:
        cache[key] = make()
    return cache[key]


_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description"})


def _view_of(document: dict[str, Any], lookup: Any) -> View:
    """The view of a schema file; a file of definitions alone (defs.json) takes every value whole."""
    return View.of(document, lookup) if set(document) - _ANNOTATIONS else View()


# -- choosing what to report ----------------------------------------------------


def _sound(error: ValidationError) -> bool:
    """False for a ``contains`` on a cut array: the element it asks for may have been dropped."""
    return not (error.validator == "contains" and isinstance(error.instance, Clipped))


def _order(error: ValidationError) -> tuple:
    """Document order of the instance position; a parent before its children."""
    return tuple((0, step) if isinstance(step, int) else (1, str(step)) for step in error.absolute_path)


def _strongest(errors: Iterable[ValidationError]) -> list[ValidationError]:
    """Drop "none of the shapes" errors where a plainer error names the same position."""
    errors = list(errors)
    plain = {_order(error) for error in errors if error.validator not in WEAK}
    return [error for error in errors if error.validator not in WEAK or _order(error) not in plain]


def _leaves(error: ValidationError) -> list[ValidationError]:
    """For ``oneOf``/``anyOf``: the errors of the one alternative whose shape fits, if any.

    An alternative fits when none of its errors is a shape error (type, length,
    constant) at the position itself, e.g. ``[0, 0, -1]`` fits the carnivore
    choice (three numbers), so its error is about the third number. Without
    exactly one such alternative, the error itself ("none of the shapes").
    """
    if error.validator not in WEAK or not error.context:
        return [error]
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
        if _sound(sub):
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
    fitting = [
        subs
        for subs in branches.values()
        if not any(not sub.relative_path and sub.validator in _SHAPE for sub in subs)
    ]
    if len(fitting) != 1:
        return [error]
    return [leaf for sub in _strongest(fitting[0]) for leaf in _leaves(sub)]


# -- naming positions -----------------------------------------------------------


def _is_field(schema: Any) -> bool:
    """A ``[label, value]`` pair schema: its first position is a constant string."""
    prefix = schema.get("prefixItems") if isinstance(schema, dict) else None
    return (
        isinstance(prefix, list)
        and len(prefix) == 2
        and isinstance(prefix[0], dict)
        and isinstance(prefix[0].get("const"), str)
    )


def _name_step(parts: list[str], parent: Any, child: Any, steps: list[Any], k: int) -> int:
    if k >= len(steps):
        return k
    title = child.get("title") if isinstance(child, dict) else None
    if _is_field(parent):
        pass  # the label or the value of a [label, value] field: the field's title named it
    elif title:
        parts.append(f".{title}")
    else:
        parts.append(f"[{steps[k]}]")
    return k + 1
