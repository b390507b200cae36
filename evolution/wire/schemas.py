"""The JSON Schemas of ``schemas/``, compiled once, as the first gate for every message.

Offers ``SCHEMAS`` (the shared ``SchemaSet``) whose ``check(name, value)``
raises ``WireError`` with a readable path and reason, ``names()`` lists the
message names (``action4``, ``feed-next``, ``harness/xstep``, ...), and
``schema_dir()``, where the files live.

Integers are stricter than JSON Schema: ``3.0`` and ``true`` are not integers
here (messages.md 0), though a generic validator accepts ``3.0``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from evolution.wire.errors import WireError


def schema_dir() -> Path:
    """The folder holding the schema files (``schemas/``, packaged as ``evolution/schemas``)."""
    return Path(__file__).resolve().parent.parent / "schemas"


def _is_integer(checker: object, instance: object) -> bool:
    return type(instance) is int


_StrictValidator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_integer),
)


class SchemaSet:
    """All schema files of one folder, by message name, with compiled validators."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.documents: dict[str, dict[str, Any]] = {}
        for path in sorted(directory.rglob("*.json")):
            name = path.relative_to(directory).with_suffix("").as_posix()
            self.documents[name] = json.loads(path.read_text(encoding="utf-8"))
        self.registry: Registry = Registry().with_resources(
            (document["$id"], Resource.from_contents(document)) for document in self.documents.values()
        )
        self._validators: dict[str, Any] = {}

    def names(self) -> list[str]:
        return sorted(self.documents)

    def validator(self, name: str) -> Any:
        validator = self._validators.get(name)
        if validator is None:
            if name not in self.documents:
                raise KeyError(f"no schema named {name!r}; known: {', '.join(self.names())}")
            validator = _StrictValidator(self.documents[name], registry=self.registry)
            self._validators[name] = validator
        return validator

    def check(self, name: str, value: Any, root: str | None = None) -> None:
        """Raise ``WireError`` unless ``value`` is valid under schema ``name``."""
        validator = self.validator(name)
        if validator.is_valid(value):
            return
        error = best_match(validator.iter_errors(value))
        root = root if root is not None else name.rsplit("/", 1)[-1]
        raise WireError(self.path_of(error, name, root), describe(error))

    def errors(self, name: str, value: Any) -> Iterator[str]:
        """Every violation, as ``path: reason`` lines (for ``evolution-schema check``)."""
        root = name.rsplit("/", 1)[-1]
        for error in self.validator(name).iter_errors(value):
            for leaf in _leaves(error):
                yield f"{self.path_of(leaf, name, root)}: {describe(leaf)}"

    def _deref(self, node: Any, key: str) -> Any:
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
            if key == "prefixItems" and i + 1 < len(keys):
                parent, node = node, node["prefixItems"][keys[i + 1]]
                k = _name_step(parts, parent, node, steps, k)
                i += 2
            elif key == "items":
                parent, node = node, node["items"]
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


def _is_field(schema: Any) -> bool:
    """A ``[label, value]`` pair schema: its first position is a constant string."""
    prefix = schema.get("prefixItems") if isinstance(schema, dict) else None
    return bool(prefix) and isinstance(prefix[0].get("const"), str) and len(prefix) == 2


def _name_step(parts: list[str], parent: Any, child: Any, steps: list[Any], k: int) -> int:
    if k >= len(steps):
        return k
    step = steps[k]
    title = child.get("title") if isinstance(child, dict) else None
    if _is_field(parent) and step == 1:
        pass  # the value of a [label, value] field: the label already named it
    elif title:
        parts.append(f".{title}")
    else:
        parts.append(f"[{step}]")
    return k + 1


def _leaves(error: ValidationError) -> Iterator[ValidationError]:
    if error.validator in ("oneOf", "anyOf") and error.context:
        yield best_match(error.context)
    else:
        yield error


def _show(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


_TYPE_WORDS = {"integer": "an integer", "array": "an array", "string": "a string", "boolean": "a boolean"}


def describe(error: ValidationError) -> str:
    """A sentence for the failing keyword of ``error``."""
    keyword, value, schema = error.validator, error.instance, error.schema
    if keyword == "type":
        return f"{_show(value)} is not {_TYPE_WORDS.get(schema['type'], schema['type'])}"
    if keyword in ("minimum", "maximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None and high is not None:
            return f"{_show(value)} is not in {low}..{high}"
        return f"{_show(value)} is less than {low}" if keyword == "minimum" else f"{_show(value)} is more than {high}"
    if keyword == "const":
        return f"expected {_show(schema['const'])}, got {_show(value)}"
    if keyword == "enum":
        allowed = ", ".join(_show(v) for v in schema["enum"])
        if "title" in schema:
            return f"{_show(value)} is not a {schema['title']} (one of {allowed})"
        return f"{_show(value)} is not one of {allowed}"
    if keyword in ("minItems", "maxItems", "items") and isinstance(value, list):
        return f"has {len(value)} elements, expected {_count(schema)}"
    if keyword == "uniqueItems":
        return f"{_show(value)} holds the same value twice"
    if keyword in ("oneOf", "anyOf"):
        titles = [branch.get("title") for branch in schema[keyword] if isinstance(branch, dict)]
        if all(titles):
            return f"{_show(value)} is none of: {', '.join(titles)}"
        return f"{_show(value)} does not have any of the allowed shapes"
    return error.message


def _count(schema: dict[str, Any]) -> str:
    low = schema.get("minItems", 0)
    high = schema.get("maxItems")
    if schema.get("items") is False:
        high = len(schema.get("prefixItems", []))
    if high is None:
        return f"at least {low}"
    return f"{low}" if low == high else f"{low}..{high}"


SCHEMAS = SchemaSet(schema_dir())
