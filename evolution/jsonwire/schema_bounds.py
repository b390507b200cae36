"""How much of a message the explainer looks at: the part its schema can see, and no more.

Offers ``View``, built once per schema (``View.of(schema, lookup)``):
``view.cut(value)`` is the part of ``value`` the schema can see, which is all
``jsonschema`` is given when it explains a rejection; ``view.size`` is the
most elements a cut value holds, whatever ``value`` holds (2,325 for an
Action4). And ``Clipped`` (an array cut short, with its real
``length``), ``Opaque`` (what replaces an array or object where the schema
takes none) and ``UnboundedSchema`` (a schema a view cannot bound).

How a value is cut, position by position: docs/architecture.md,
"Checking a message".
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

__all__ = ["Clipped", "Opaque", "UnboundedSchema", "View"]

Lookup = Callable[[str], Any]

_ARRAY_KEYWORDS = ("prefixItems", "items", "contains", "minItems", "maxItems", "uniqueItems")
_LENGTH_KEYWORDS = ("minItems", "maxItems")
_BRANCHES = ("allOf", "anyOf", "oneOf")
_CONDITIONAL = ("if", "then", "else", "not")
MAX_SCHEMA_DEPTH = 32
"""Deeper than any schema of ours nests arrays (about 8 levels): deeper means a schema refers to itself."""


class UnboundedSchema(ValueError):
    """A schema position takes arrays of any length, so explaining it could take any time."""


class Clipped(list):
    """The first elements of a longer array; ``length`` is the original's."""

    def __init__(self, kept: list[Any], length: int) -> None:
        super().__init__(kept)
        self.length = length


class Opaque:
    """Stands for an array or object where the schema takes no array: never looked into."""

    __slots__ = ("original",)

    def __init__(self, original: Any) -> None:
        self.original = original

    def __repr__(self) -> str:
        return "[...]" if isinstance(self.original, list) else "{...}"


@dataclass(frozen=True)
class View:
    """What the schema can see at one position: how many elements, and the view of each."""

    keep: int = 0
    """How many elements of an array are kept; 0 where the schema takes no array."""
    prefix: tuple[View, ...] = ()
    rest: View | None = None
    fields: tuple[tuple[str, View], ...] | None = None
    """For an object: the view of each property its schemas name; ``None`` where the schema takes no object."""
    closed: bool = False
    """For an object: ``additionalProperties`` is false, so one other key is kept to be reported."""

    @classmethod
    def of(cls, schema: Any, lookup: Lookup) -> View:
        """The view of ``schema``, following ``$ref`` with ``lookup`` (absolute URI -> schema)."""
        return _view([schema], schema, lookup, "#", 0)

    @property
    def size(self) -> int:
        """The most elements (arrays and what they hold, counted once each) a cut value can hold."""
        if self.fields is not None:
            return 1 + sum(view.size for _, view in self.fields) + self.closed
        if not self.keep:
            return 1
        prefix = sum(child.size for child in self.prefix[: self.keep])
        return 1 + prefix + max(0, self.keep - len(self.prefix)) * (self.rest or _SCALAR).size

    def child(self, index: int) -> View:
        if index < len(self.prefix):
            return self.prefix[index]
        return self.rest or _SCALAR

    def cut(self, value: Any) -> Any:
        """The part of ``value`` this view can see (a copy; ``value`` is not changed)."""
        kind = type(value)
        if kind is list and self.keep:
            kept = [self.child(i).cut(item) for i, item in enumerate(value[: self.keep])]
            return Clipped(kept, len(value)) if len(value) > self.keep else kept
        if kind is dict and self.fields is not None:
            return self._cut_object(value)
        if kind in (list, dict, tuple):
            return Opaque(value)
        return value

    def _cut_object(self, value: dict[str, Any]) -> dict[str, Any]:
        assert self.fields is not None
        named = dict(self.fields)
        kept = {key: view.cut(value[key]) for key, view in self.fields if key in value}
        other = next((key for key in value if key not in named), None) if self.closed else None
        if other is not None:
            kept[other] = _SCALAR.cut(value[other])
        return kept


_SCALAR = View()
_OBJECT_KEYWORDS_REFUSED = (
    "patternProperties", "propertyNames", "minProperties", "maxProperties",
    "dependentSchemas", "dependentRequired", "unevaluatedProperties",
)


def _view(evaluated: list[Any], accepted: Any, lookup: Lookup, where: str, depth: int) -> View:
    """The view of one position.

    ``evaluated``: every subschema ``jsonschema`` may evaluate there (conditions
    and ``contains`` included), which decides what is kept; ``accepted``: a
    schema that takes at least every value valid there, which must bound it.
    """
    if depth > MAX_SCHEMA_DEPTH:
        raise UnboundedSchema(f"{where}: nested deeper than {MAX_SCHEMA_DEPTH} levels; does a schema refer to itself?")
    seen: set[str] = set()
    applying = [node for schema in evaluated for node in _applying(schema, lookup, seen)]
    if any("properties" in node for node in applying):
        return _object_view(applying, accepted, lookup, where, depth)
    if not any(key in node for node in applying for key in _ARRAY_KEYWORDS):
        if not _refuses_arrays(accepted, lookup):
            raise UnboundedSchema(f"{where}: arrays are valid here, but no keyword says what they hold")
        return _SCALAR
    if not _bounded(accepted, lookup):
        raise UnboundedSchema(f"{where}: arrays of any length are valid here; give a maxItems")
    lengths = [node[key] for node in applying for key in _LENGTH_KEYWORDS if key in node]
    lengths += [len(node["prefixItems"]) for node in applying if "prefixItems" in node]
    width = max((len(node.get("prefixItems", ())) for node in applying), default=0)
    children = [
        _view(_at(applying, i), _element(accepted, i, lookup), lookup, f"{where}/{i}", depth + 1) for i in range(width)
    ]
    rest = _at(applying, width)
    beyond = _element(accepted, width, lookup)
    if not rest and not _refuses_arrays(beyond, lookup):
        raise UnboundedSchema(f"{where}/*: arrays are valid here, but no keyword says what they hold")
    tail = _view(rest, beyond, lookup, f"{where}/*", depth + 1) if rest else None
    return View(max(lengths) + 1, tuple(children), tail)


def _object_view(applying: list[dict[str, Any]], accepted: Any, lookup: Lookup, where: str, depth: int) -> View:
    """The view of a position whose schemas name ``properties``: one view per property named."""
    if not _refuses_arrays(accepted, lookup):
        raise UnboundedSchema(f"{where}: an object is expected here, but arrays are valid too; give a type")
    for node in applying:
        refused = [key for key in _OBJECT_KEYWORDS_REFUSED if key in node]
        if refused or isinstance(node.get("additionalProperties"), dict):
            raise UnboundedSchema(f"{where}: {', '.join(refused) or 'additionalProperties'} is not supported on objects")
    names = list(dict.fromkeys(key for node in applying for key in node.get("properties", {})))
    fields = []
    for key in names:
        evaluated = [node["properties"][key] for node in applying if key in node.get("properties", {})]
        fields.append((key, _view(evaluated, {"anyOf": evaluated}, lookup, f"{where}/{key}", depth + 1)))
    closed = any(node.get("additionalProperties") is False for node in applying)
    return View(fields=tuple(fields), closed=closed)


def _at(applying: list[dict[str, Any]], index: int) -> list[Any]:
    """The subschemas evaluated on element ``index`` of an array."""
    found = []
    for node in applying:
        prefix = node.get("prefixItems", [])
        if index < len(prefix):
            found.append(prefix[index])
        elif isinstance(node.get("items"), dict):
            found.append(node["items"])
        if isinstance(node.get("contains"), dict):
            found.append(node["contains"])
    return found


def _element(schema: Any, index: int, lookup: Lookup) -> Any:
    """A schema that takes at least every value element ``index`` of an array valid under ``schema`` can be.

    Conditions are dropped (``then`` or ``else``), ``oneOf`` widens to ``anyOf``,
    ``contains`` and ``not`` constrain no single element: all of which only
    widen it, so a bound found on it is a bound on the schema.
    """
    if not isinstance(schema, dict) or _refuses_arrays(schema, lookup):
        return False if isinstance(schema, dict) else schema
    parts: list[Any] = []
    prefix = schema.get("prefixItems", ())
    if index < len(prefix):
        parts.append(prefix[index])
    elif "items" in schema:
        parts.append(schema["items"])
    if "$ref" in schema:
        parts.append(_element(lookup(schema["$ref"]), index, lookup))
    parts += [_element(member, index, lookup) for member in schema.get("allOf", ())]
    for key in ("anyOf", "oneOf"):
        if key in schema:
            parts.append({"anyOf": [_element(branch, index, lookup) for branch in schema[key]]})
    if "if" in schema:
        parts.append({"anyOf": [_element(schema.get(key, True), index, lookup) for key in ("then", "else")]})
    return {"allOf": parts}


def _applying(schema: Any, lookup: Lookup, seen: set[str]) -> Iterator[dict[str, Any]]:
    """``schema`` and every subschema evaluated on the same value (refs, branches, conditions).

    ``seen`` holds the refs already followed at this position: each is followed once.
    """
    if not isinstance(schema, dict):
        return
    yield schema
    ref = schema.get("$ref")
    if ref is not None and ref not in seen:
        seen.add(ref)
        yield from _applying(lookup(ref), lookup, seen)
    for key in _BRANCHES:
        for branch in schema.get(key, ()):
            yield from _applying(branch, lookup, seen)
    for key in _CONDITIONAL:
        yield from _applying(schema.get(key), lookup, seen)


def _refuses_arrays(schema: Any, lookup: Lookup) -> bool:
    """No array is valid under ``schema`` (a type without "array", a constant, an enum of scalars)."""
    if schema is False:
        return True
    if not isinstance(schema, dict):
        return False
    kinds = schema.get("type")
    if kinds is not None and "array" not in ([kinds] if isinstance(kinds, str) else kinds):
        return True
    constants = [schema["const"]] if "const" in schema else schema.get("enum")
    if constants is not None and not any(isinstance(c, list) for c in constants):
        return True
    return _by_parts(schema, lookup, _refuses_arrays)


def _bounded(schema: Any, lookup: Lookup) -> bool:
    """No array longer than some length is valid under ``schema``."""
    if not isinstance(schema, dict):
        return schema is False
    if "maxItems" in schema or schema.get("items") is False or _refuses_arrays(schema, lookup):
        return True
    if "enum" in schema or "const" in schema:
        return True
    return _by_parts(schema, lookup, _bounded)


def _by_parts(schema: dict[str, Any], lookup: Lookup, test: Callable[[Any, Lookup], bool]) -> bool:
    """``test`` holds through the parts of ``schema``.

    That is: for its ``$ref`` or one ``allOf`` member, for every branch of an
    ``anyOf`` or ``oneOf``, or for both ``then`` and ``else``.
    """
    if "$ref" in schema and test(lookup(schema["$ref"]), lookup):
        return True
    if any(test(member, lookup) for member in schema.get("allOf", ())):
        return True
    for key in ("anyOf", "oneOf"):
        if key in schema and all(test(branch, lookup) for branch in schema[key]):
            return True
    return "if" in schema and all(test(schema.get(key, True), lookup) for key in ("then", "else"))
