"""Compiling a JSON Schema into one fast Python predicate.

Offers ``compile_schema(schema, lookup)``, which turns a schema of ``schemas/``
into ``predicate(value) -> bool``, and ``SchemaCompileError``.

The predicate answers only "valid or not", some 50 times faster than a
generic validator walking the schema (``make bench``), so it is the first
gate every message passes; when it says no, ``evolution.wire.schemas`` asks
``jsonschema`` for the path and the reason (the rare, slow path). Tests check
on valid and malformed messages that both always agree.

Supported: boolean schemas, ``$ref`` (absolute URIs, resolved by ``lookup``),
``type``, ``const``, ``enum``, ``minimum``/``maximum`` (and the exclusive
forms), ``minLength``/``maxLength``, ``prefixItems``, ``items``,
``minItems``/``maxItems``, ``uniqueItems``, ``contains``, ``allOf``,
``anyOf``, ``oneOf``, ``not``, ``if``/``then``/``else``, and annotations.
Any other keyword is a ``SchemaCompileError`` at start-up, so a constraint is
never silently ignored. Integers are strict, as everywhere in this project:
``type(x) is int``, so neither ``3.0`` nor ``true`` is an integer.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

Predicate = Callable[[Any], bool]
Lookup = Callable[[str], Any]

ANNOTATIONS = frozenset(
    {"$schema", "$id", "$defs", "$comment", "title", "description", "examples", "default", "deprecated"}
)
_NUMBER_TYPES = (int, float)
_EXCLUSIVE = frozenset({"exclusiveMinimum", "exclusiveMaximum"})


class SchemaCompileError(ValueError):
    """A schema uses something ``compile_schema`` cannot honour."""


def compile_schema(schema: Any, lookup: Lookup) -> Predicate:
    """A predicate that is true exactly for the values ``schema`` accepts."""
    return _Compiler(lookup).compile(schema)


def _accept(value: Any) -> bool:
    return True


def _reject(value: Any) -> bool:
    return False


def _is_number(value: Any) -> bool:
    return type(value) in _NUMBER_TYPES


_TYPE_TESTS: dict[str, Predicate] = {
    "integer": lambda v: type(v) is int,
    "number": _is_number,
    "string": lambda v: type(v) is str,
    "array": lambda v: type(v) is list,
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "object": lambda v: type(v) is dict,
}


def json_key(value: Any) -> Any:
    """A hashable key with JSON's equality: ``1 == 1.0``, but ``true`` is not ``1``."""
    kind = type(value)
    if kind is str:
        return value
    if kind is list:
        return ("array", tuple(json_key(item) for item in value))
    if kind is bool:
        return ("boolean", value)
    if kind in _NUMBER_TYPES:
        return ("number", value)
    if kind is dict:
        return ("object", frozenset((k, json_key(v)) for k, v in value.items()))
    if value is None:
        return ("null",)
    return ("other", id(value))  # not JSON: equal only to itself


def _integer_in(low: Any, high: Any) -> Predicate:
    """``type: integer`` with ``minimum``/``maximum``, in one test."""
    if low is not None and high is not None:
        return lambda v: type(v) is int and low <= v <= high
    if low is not None:
        return lambda v: type(v) is int and v >= low
    return lambda v: type(v) is int and v <= high


def _unique(value: list[Any]) -> bool:
    if len(value) < 2:
        return True
    return len({json_key(item) for item in value}) == len(value)


def _list_of(items: Predicate | None, low: int, high: float, unique: bool, required: bool) -> Predicate:
    """An array whose elements all meet ``items``."""

    def list_of(value: Any) -> bool:
        if type(value) is not list:
            return not required
        if not low <= len(value) <= high:
            return False
        if items is not None:
            for item in value:
                if not items(item):
                    return False
        return not unique or _unique(value)

    return list_of


def _tuple(prefix: tuple[Predicate, ...], low: int, high: float, required: bool) -> Predicate:
    """A fixed-shape array: one predicate per position."""

    def tuple_(value: Any) -> bool:
        if type(value) is not list:
            return not required
        if not low <= len(value) <= high:
            return False
        for predicate, item in zip(prefix, value):
            if not predicate(item):
                return False
        return True

    return tuple_


def _general_array(
    prefix: tuple[Predicate, ...],
    items: Predicate | None,
    low: int,
    high: float,
    unique: bool,
    contains: Predicate | None,
    required: bool,
) -> Predicate:
    count = len(prefix)

    def array(value: Any) -> bool:
        if type(value) is not list:
            return not required
        size = len(value)
        if not low <= size <= high:
            return False
        for predicate, item in zip(prefix, value):
            if not predicate(item):
                return False
        if items is not None:
            for index in range(count, size):
                if not items(value[index]):
                    return False
        if unique and not _unique(value):
            return False
        if contains is not None and not any(contains(item) for item in value):
            return False
        return True

    return array


def _all_of(predicates: Sequence[Predicate]) -> Predicate:
    if not predicates:
        return _accept
    if len(predicates) == 1:
        return predicates[0]
    if len(predicates) == 2:
        first, second = predicates
        return lambda v: first(v) and second(v)
    frozen = tuple(predicates)

    def all_of(value: Any) -> bool:
        for predicate in frozen:
            if not predicate(value):
                return False
        return True

    return all_of


class _Compiler:
    def __init__(self, lookup: Lookup) -> None:
        self.lookup = lookup
        self.refs: dict[str, list[Predicate]] = {}

    def compile(self, schema: Any) -> Predicate:
        if schema is True:
            return _accept
        if schema is False:
            return _reject
        if not isinstance(schema, dict):
            raise SchemaCompileError(f"a schema must be an object or a boolean, not {schema!r}")
        unknown = set(schema) - ANNOTATIONS - _HANDLED
        if unknown:
            raise SchemaCompileError(f"unsupported keyword(s): {', '.join(sorted(unknown))}")
        predicates: list[Predicate] = []
        array = self.array(schema)
        kinds = schema.get("type")
        if kinds is not None and not (kinds == "array" and array is not None):
            predicates.append(self.type(kinds))
        if "const" in schema:
            predicates.append(self.enum([schema["const"]]))
        if "enum" in schema:
            predicates.append(self.enum(schema["enum"]))
        number = self.number(schema)
        if number is not None and kinds == "integer" and not _EXCLUSIVE & schema.keys():
            predicates[0] = _integer_in(schema.get("minimum"), schema.get("maximum"))  # type and range in one
        elif number is not None:
            predicates.append(number)
        string = self.string(schema)
        if string is not None:
            predicates.append(string)
        if array is not None:
            predicates.append(array)
        predicates.extend(self.combinators(schema))
        if "$ref" in schema:
            predicates.append(self.ref(schema["$ref"]))
        return _all_of(predicates)

    # -- single keywords ----------------------------------------------------

    def type(self, kinds: str | list[str]) -> Predicate:
        names = [kinds] if isinstance(kinds, str) else list(kinds)
        try:
            tests = [_TYPE_TESTS[name] for name in names]
        except KeyError as missing:
            raise SchemaCompileError(f"unknown type {missing}") from None
        if len(tests) == 1:
            return tests[0]
        return lambda v: any(test(v) for test in tests)

    def enum(self, members: list[Any]) -> Predicate:
        if all(type(member) is str for member in members):
            allowed = frozenset(members)
            if len(allowed) == 1:
                (only,) = allowed
                return lambda v: type(v) is str and v == only
            return lambda v: type(v) is str and v in allowed
        if len(members) == 1 and type(members[0]) is bool:
            only_bool = members[0]
            return lambda v: v is only_bool
        keys = frozenset(json_key(member) for member in members)
        return lambda v: json_key(v) in keys

    def number(self, schema: dict[str, Any]) -> Predicate | None:
        bounds = [schema.get(k) for k in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")]
        if all(bound is None for bound in bounds):
            return None
        low, high, above, below = bounds

        def in_range(value: Any) -> bool:
            if type(value) not in _NUMBER_TYPES:
                return True  # number keywords constrain numbers only
            return (
                (low is None or value >= low)
                and (high is None or value <= high)
                and (above is None or value > above)
                and (below is None or value < below)
            )

        return in_range

    def string(self, schema: dict[str, Any]) -> Predicate | None:
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        if low == 0 and high is None:
            return None
        return lambda v: type(v) is not str or (len(v) >= low and (high is None or len(v) <= high))

    def array(self, schema: dict[str, Any]) -> Predicate | None:
        keys = ("prefixItems", "items", "minItems", "maxItems", "uniqueItems", "contains")
        if not any(key in schema for key in keys):
            return None
        required = schema.get("type") == "array"
        prefix = tuple(self.compile(item) for item in schema.get("prefixItems", ()))
        low = schema.get("minItems", 0)
        high = schema.get("maxItems")
        items_schema = schema.get("items", True)
        items: Predicate | None = None
        if items_schema is False:
            high = len(prefix) if high is None else min(high, len(prefix))
        elif items_schema is not True:
            items = self.compile(items_schema)
        unique = schema.get("uniqueItems", False) is True
        contains = self.compile(schema["contains"]) if "contains" in schema else None
        limit = high if high is not None else float("inf")
        if not prefix and contains is None:
            return _list_of(items, low, limit, unique, required)
        if items is None and not unique and contains is None:
            return _tuple(prefix, low, limit, required)
        return _general_array(prefix, items, low, limit, unique, contains, required)

    def combinators(self, schema: dict[str, Any]) -> list[Predicate]:
        predicates: list[Predicate] = []
        if "allOf" in schema:
            predicates.append(_all_of([self.compile(branch) for branch in schema["allOf"]]))
        if "anyOf" in schema:
            branches = [self.compile(branch) for branch in schema["anyOf"]]
            predicates.append(lambda v: any(branch(v) for branch in branches))
        if "oneOf" in schema:
            one_of = [self.compile(branch) for branch in schema["oneOf"]]
            predicates.append(lambda v: sum(1 for branch in one_of if branch(v)) == 1)
        if "not" in schema:
            negated = self.compile(schema["not"])
            predicates.append(lambda v: not negated(v))
        if "if" in schema:
            condition = self.compile(schema["if"])
            then = self.compile(schema.get("then", True))
            otherwise = self.compile(schema.get("else", True))
            predicates.append(lambda v: then(v) if condition(v) else otherwise(v))
        return predicates

    def ref(self, uri: str) -> Predicate:
        """The predicate of the schema at ``uri``, compiled once (a cell allows recursion)."""
        if ":" not in uri.split("#", 1)[0]:
            raise SchemaCompileError(f"$ref {uri!r} is not an absolute URI (our schemas use urn:evolution:...)")
        cell = self.refs.get(uri)
        if cell is None:
            cell = self.refs[uri] = []
            cell.append(self.compile(self.lookup(uri)))
        if cell:
            return cell[0]
        return lambda v: cell[0](v)  # a schema that refers to itself, still being compiled


_HANDLED = frozenset(
    {
        "type", "const", "enum",
        "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
        "minLength", "maxLength",
        "prefixItems", "items", "minItems", "maxItems", "uniqueItems", "contains",
        "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
        "$ref",
    }
)
