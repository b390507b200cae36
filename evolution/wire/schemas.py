"""The JSON Schemas of ``schemas/``, loaded once, as the first gate for every message.

Offers ``SCHEMAS`` (the shared ``SchemaSet``):

- ``check(name, value)`` raises ``WireError`` with one readable path and
  reason, e.g. ``feed-next.boards[2].population: 9 is not in 1..7``;
- ``is_valid(name, value)`` answers only yes or no (the fast path);
- ``errors(name, value)`` yields every violation as ``path: reason`` lines
  (for ``evolution-schema check``);
- ``names()``, ``title(name)``, ``name_of_id(uri)``;

and ``schema_dir()``, where the files live.

Paths start with the message name and name each position by the ``title`` its
schema gives it (``boards``, ``population``), else by its index (``[2]``); a
``[label, value]`` field is named by its label alone.

How: ``jsonschema-rs`` (Rust) answers yes or no, in a few microseconds for
a feed-next State (``make bench``). Integers are stricter here than in JSON
Schema: ``3.0`` and ``true`` are not integers (messages.md 0), though every
generic validator, ``jsonschema-rs`` included, takes ``3.0``. No schema has
a place for any number but an integer, so a value ``jsonschema-rs`` accepts
is valid exactly when it holds no float: one pass over its elements, at C
speed, settles it (``_only_json``). Only a rejected message is walked again,
by ``jsonschema`` (Python, the reference implementation, with strict
integers), to find the path and the reason; tests check that the two always
agree. Values nested deeper than any schema looks are cut before they are
explained, so a deeply nested message is rejected, never a
``RecursionError``.

Values are what a JSON parser makes: list, dict, str, int, float, bool,
None. Any other type is not JSON and never valid.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any, Iterable, Iterator

import jsonschema_rs
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError
from referencing import Registry, Resource

from evolution.wire.errors import WireError

ID_PREFIX = "urn:evolution:"
EXPLAIN_DEPTH = 16
"""Deeper than any position a schema constrains; the slow path cuts values here."""


def schema_dir() -> Path:
    """The folder holding the schema files (``schemas/``, packaged as ``evolution/schemas``)."""
    return Path(__file__).resolve().parent.parent / "schemas"


def _is_integer(checker: object, instance: object) -> bool:
    return type(instance) is int


_StrictValidator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


def _only_json(value: Any) -> bool:
    """True when ``value`` is built of lists, dicts, strings, integers, booleans and ``None`` alone.

    So: no float (no schema position takes one) and nothing that is not JSON.
    It walks the value one level at a time; ``gc.get_referents`` lists the
    elements of every list and the values of every dict of a level in one C
    call (strings and numbers hold no references). It is only ever given
    lists and dicts whose elements were just checked, so it sees nothing but
    finished containers of JSON values.
    """
    level = [value]
    while level:
        if not _JSON_TYPES.issuperset(map(type, level)):
            return False
        level = gc.get_referents(*level)
    return True


_JSON_TYPES = frozenset({list, dict, str, int, bool, type(None)})


def _refuse_numbers(documents: dict[str, dict[str, Any]]) -> None:
    """``_only_json`` refuses every float: make sure no schema has a place for one."""
    for name, document in documents.items():
        for node in _subschemas(document):
            kinds = node.get("type")
            if kinds == "number" or (isinstance(kinds, list) and "number" in kinds):
                raise ValueError(f"schema {name} allows numbers with a fraction; is_valid would refuse them")


def _subschemas(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for child in node.values():
            yield from _subschemas(child)
    elif isinstance(node, list):
        for child in node:
            yield from _subschemas(child)


class SchemaSet:
    """All schema files of one folder, by message name, each with a fast validator."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.documents: dict[str, dict[str, Any]] = {}
        for path in sorted(directory.rglob("*.json")):
            name = path.relative_to(directory).with_suffix("").as_posix()
            self.documents[name] = json.loads(path.read_text(encoding="utf-8"))
        self.registry: Registry = Registry().with_resources(
            (document["$id"], Resource.from_contents(document)) for document in self.documents.values()
        )
        _refuse_numbers(self.documents)
        fast_registry = jsonschema_rs.Registry((document["$id"], document) for document in self.documents.values())
        self._fast = {
            name: jsonschema_rs.validator_for(document, registry=fast_registry)
            for name, document in self.documents.items()
        }
        self._validators: dict[str, Any] = {}

    def names(self) -> list[str]:
        return sorted(self.documents)

    def title(self, name: str) -> str:
        return self._document(name).get("title", "")

    def name_of_id(self, uri: str) -> str | None:
        """The name of the schema whose ``$id`` is ``uri``, if it is one of ours."""
        for name, document in self.documents.items():
            if document.get("$id") == uri:
                return name
        return None

    def _document(self, name: str) -> dict[str, Any]:
        try:
            return self.documents[name]
        except KeyError:
            raise KeyError(f"no schema named {name!r}; known: {', '.join(self.names())}") from None

    def validator(self, name: str) -> Any:
        """The ``jsonschema`` validator (strict integers), built on first use."""
        validator = self._validators.get(name)
        if validator is None:
            validator = _StrictValidator(self._document(name), registry=self.registry)
            self._validators[name] = validator
        return validator

    def is_valid(self, name: str, value: Any) -> bool:
        """True when ``value`` is valid under schema ``name``, with strict integers (the fast path)."""
        self._document(name)
        try:
            return self._fast[name].is_valid(value) and _only_json(value)
        except ValueError:  # jsonschema-rs met a type no JSON parser makes
            return False

    def check(self, name: str, value: Any, root: str | None = None) -> None:
        """Raise ``WireError`` unless ``value`` is valid under schema ``name``."""
        if self.is_valid(name, value):
            return
        for error in self.explain(name, value, root):
            raise error
        raise WireError(root or _root(name), "is not valid")  # never reached: both validators agree

    def explain(self, name: str, value: Any, root: str | None = None) -> list[WireError]:
        """Every violation of ``value``, the most telling first (empty when valid)."""
        root = root if root is not None else _root(name)
        clipped = clip(value, EXPLAIN_DEPTH)
        try:
            found = list(self.validator(name).iter_errors(clipped))
        except RecursionError:
            return [WireError(root, "is nested too deeply")]
        found = [leaf for error in _strongest(found) for leaf in _leaves(error)]
        found.sort(key=_order)
        explained = (WireError(self.path_of(error, name, root), describe(error)) for error in found)
        return list({str(error): error for error in explained}.values())

    def errors(self, name: str, value: Any) -> Iterator[str]:
        """Every violation, as ``path: reason`` lines (for ``evolution-schema check``)."""
        for error in self.explain(name, value):
            yield str(error)

    def _deref(self, node: Any, key: Any) -> Any:
        """Follow ``$ref`` until ``node`` holds ``key`` (schema paths leave refs out)."""
        resolver = self.registry.resolver()
        while isinstance(node, dict) and key not in node and "$ref" in node:
            node = resolver.lookup(node["$ref"]).contents
        return node

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
            if not isinstance(node, dict):
                break
            if key not in node:
                break
            if key == "prefixItems" and i + 1 < len(keys):
                parent, node = node, node["prefixItems"][keys[i + 1]]
                k = _name_step(parts, parent, node, steps, k)
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
        for step in steps[k:]:
            parts.append(f"[{step}]")
        return "".join(parts)


def _root(name: str) -> str:
    return name.rsplit("/", 1)[-1]


# -- choosing what to report ----------------------------------------------------

_WEAK = ("oneOf", "anyOf")
_SHAPE = ("type", "minItems", "maxItems", "items", "const", "enum")


def _order(error: ValidationError) -> tuple:
    """Document order of the instance position; a parent before its children."""
    return tuple((0, step) if isinstance(step, int) else (1, str(step)) for step in error.absolute_path)


def _strongest(errors: Iterable[ValidationError]) -> list[ValidationError]:
    """Drop "none of the shapes" errors where a plainer error names the same position."""
    errors = list(errors)
    plain = {_order(error) for error in errors if error.validator not in _WEAK}
    return [error for error in errors if error.validator not in _WEAK or _order(error) not in plain]


def _leaves(error: ValidationError) -> list[ValidationError]:
    """For ``oneOf``/``anyOf``: the errors of the one alternative whose shape fits, if any.

    An alternative fits when none of its errors is a shape error (type, length,
    constant) at the position itself, e.g. ``[0, 0, -1]`` fits the carnivore
    choice (three numbers), so its error is about the third number. Without
    exactly one such alternative, the error itself ("none of the shapes").
    """
    if error.validator not in _WEAK or not error.context:
        return [error]
    branches: dict[int, list[ValidationError]] = {}
    for sub in error.context:
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
    step = steps[k]
    title = child.get("title") if isinstance(child, dict) else None
    if _is_field(parent):
        pass  # the label or the value of a [label, value] field: the field's title named it
    elif title:
        parts.append(f".{title}")
    else:
        parts.append(f"[{step}]")
    return k + 1


# -- reasons ----------------------------------------------------------------------


class _Cut:
    """Stands for a part of a value nested deeper than any schema looks."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "[...]"


def clip(value: Any, depth: int = EXPLAIN_DEPTH) -> Any:
    """A copy of ``value`` with everything below ``depth`` levels of arrays/objects cut."""
    if isinstance(value, list):
        return [clip(item, depth - 1) for item in value] if depth > 0 else _Cut()
    if isinstance(value, dict):
        return {key: clip(item, depth - 1) for key, item in value.items()} if depth > 0 else _Cut()
    return value


def _render(value: Any, budget: int, depth: int) -> str:
    if isinstance(value, (list, dict)):
        if depth > 12:
            return "[...]" if isinstance(value, list) else "{...}"
        items = value if isinstance(value, list) else value.items()
        parts: list[str] = []
        used = 2
        for item in items:
            if used > budget:
                parts.append("...")
                break
            if isinstance(value, dict):
                key, item = item
                piece = f"{json.dumps(str(key), ensure_ascii=False)}: {_render(item, budget - used, depth + 1)}"
            else:
                piece = _render(item, budget - used, depth + 1)
            parts.append(piece)
            used += len(piece) + 2
        opening, closing = ("[", "]") if isinstance(value, list) else ("{", "}")
        return opening + ", ".join(parts) + closing
    if isinstance(value, str) and len(value) > budget:
        value = value[:budget]
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)[:budget]


def show(value: Any, limit: int = 60) -> str:
    """``value`` as short JSON text for a reason (cut with ``...``; safe for any nesting)."""
    text = _render(value, limit + 1, 0)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_TYPE_WORDS = {
    "integer": "an integer",
    "array": "an array",
    "string": "a string",
    "boolean": "a boolean",
    "number": "a number",
    "object": "an object",
    "null": "null",
}


def describe(error: ValidationError) -> str:
    """A sentence for the failing keyword of ``error``."""
    keyword, value, schema = error.validator, error.instance, error.schema
    if keyword == "type":
        wanted = schema["type"]
        words = " or ".join(_TYPE_WORDS.get(t, t) for t in ([wanted] if isinstance(wanted, str) else wanted))
        reason = f"{show(value)} is not {words}"
        if wanted == "integer" and _integral_float(value):
            reason += " (write integers without a fraction or exponent)"
        return reason
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
        return f"has {_elements(len(value))}, expected {_count(schema)}"
    if keyword == "uniqueItems" and isinstance(value, list):
        return _duplicate(value)
    if keyword == "contains":
        wanted = error.validator_value
        what = show(wanted["const"]) if isinstance(wanted, dict) and "const" in wanted else "a matching element"
        reason = f"{show(value)} has no {what}"
        return f"{reason}: {schema['description']}" if "description" in schema else reason
    if keyword == "not":
        negated = error.validator_value
        if isinstance(negated, dict) and "description" in negated:
            return f"{show(value)} is not accepted: {negated['description']}"
        return f"{show(value)} is not accepted"
    if keyword in _WEAK:
        titles = [branch.get("title") for branch in schema[keyword] if isinstance(branch, dict)]
        hint = " (write integers without a fraction or exponent)" if _integral_float(value) else ""
        if titles and all(titles):
            return f"{show(value)} is none of: {', '.join(titles)}{hint}"
        return f"{show(value)} does not have any of the allowed shapes{hint}"
    if keyword == "false":
        return f"{show(value)} is not allowed here"
    return error.message


def _integral_float(value: Any) -> bool:
    return type(value) is float and value.is_integer()


def _elements(count: int) -> str:
    return "1 element" if count == 1 else f"{count} elements"


def json_key(value: Any) -> Any:
    """A hashable key with JSON's equality: ``1 == 1.0``, but ``true`` is not ``1``."""
    kind = type(value)
    if kind is str:
        return value
    if kind is list:
        return ("array", tuple(json_key(item) for item in value))
    if kind is bool:
        return ("boolean", value)
    if kind is int or kind is float:
        return ("number", value)
    if kind is dict:
        return ("object", frozenset((k, json_key(v)) for k, v in value.items()))
    if value is None:
        return ("null",)
    return ("other", id(value))  # not JSON: equal only to itself


def _duplicate(value: list[Any]) -> str:
    first: dict[Any, int] = {}
    for index, item in enumerate(value):
        try:
            key = json_key(item)
        except RecursionError:
            break
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


SCHEMAS = SchemaSet(schema_dir())
