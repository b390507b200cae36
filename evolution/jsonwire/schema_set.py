# -*- test-case-name: tests.schemas.test_schemas, tests.games.fish.wire.test_schemas -*-
"""A game's JSON Schemas, loaded once, as the first gate for every message.

Offers ``SchemaSet(directory, namespace)``, the schemas under ``directory``
whose ``$id`` begins with ``namespace`` (``urn:evolution:``, ``urn:fish:``):

- ``check(name, value)`` raises ``WireError`` with the first violation's
  path and reason; ``is_valid(name, value)``, yes or no (the fast path);
- ``explain(name, value)``, the violations (the first 50) as ``WireError``s,
  ``errors(name, value)`` as ``path: reason`` lines (``evolution-schema check``);
- ``validator(name)``, the reference ``jsonschema`` validator; ``cut(name,
  value)`` and ``view(name)`` (``schema_bounds``);
- ``names()``, ``title(name)``, ``name_of_id(uri)``;

and ``schema_dir()``, where the files live, and ``show(value)``, a value as
short JSON text. How the two checkers share the work: docs/architecture.md,
"Checking a message".
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from evolution.jsonwire.schema_bounds import View
from evolution.jsonwire.schema_fast import FastSchemas
from evolution.jsonwire.schema_reasons import show
from evolution.jsonwire.wire_errors import WireError

if TYPE_CHECKING:
    from referencing import Registry

    from evolution.jsonwire.schema_explain import Explainer

__all__ = ["SchemaSet", "schema_dir", "show"]


def schema_dir() -> Path:
    """The folder holding the schema files (``schemas/``, packaged as ``evolution/schemas``)."""
    return Path(__file__).resolve().parent.parent / "schemas"


class SchemaSet:
    """A game's schema files under one folder, by message name, each with a fast validator and an explainer.

    A schema's name is its file's path below ``directory`` without ``.json``
    (``action4``, ``seed002/start``).
    """

    def __init__(self, directory: Path, namespace: str) -> None:
        self.directory = directory
        self.namespace = namespace
        self.documents: dict[str, dict[str, Any]] = {}
        for path in sorted(directory.rglob("*.json")):
            document = json.loads(path.read_text(encoding="utf-8"))
            if str(document.get("$id", "")).startswith(namespace):
                self.documents[path.relative_to(directory).with_suffix("").as_posix()] = document
        self._fast = FastSchemas(self.documents)
        self._slow: Explainer | None = None
        self._registry: Registry | None = None

    @property
    def _explainer(self) -> Explainer:
        """The slow path, built when a message is first refused (or a reference validator is asked for).

        It loads ``jsonschema`` and ``referencing``, which a process that
        only checks valid messages (a bot, most command lines) never needs.
        """
        if self._slow is None:
            from evolution.jsonwire.schema_explain import Explainer

            self._slow = Explainer(self.documents, self.registry, self._fast)
        return self._slow

    @property
    def registry(self) -> Registry:
        """The schemas as a ``referencing`` registry, by ``$id`` (what ``jsonschema`` resolves ``$ref`` with)."""
        if self._registry is None:
            from referencing import Registry, Resource

            self._registry = Registry().with_resources(
                (document["$id"], Resource.from_contents(document)) for document in self.documents.values()
            )
        return self._registry

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
        """The reference ``jsonschema`` validator of schema ``name`` (strict integers)."""
        self._document(name)
        return self._explainer.validator(name)

    def cut(self, name: str, value: Any) -> Any:
        """The part of ``value`` an explanation looks at (``schema_bounds``)."""
        return self.view(name).cut(value)

    def view(self, name: str) -> View:
        """What an explanation of schema ``name`` looks at; ``view(name).size`` bounds its work."""
        self._document(name)
        return self._explainer.view(name)

    def is_valid(self, name: str, value: Any) -> bool:
        """True when ``value`` is valid under schema ``name``, with strict integers (the fast path)."""
        self._document(name)
        return self._fast.is_valid(name, value)

    def check(self, name: str, value: Any, root: str | None = None) -> None:
        """Raise ``WireError``, naming the first violation, unless ``value`` is valid under schema ``name``."""
        if self.is_valid(name, value):
            return
        for error in self._explainer.explain(name, value, root if root is not None else _root(name), limit=1):
            raise error
        raise WireError(root or _root(name), "is not valid")  # never reached: both validators agree

    def explain(self, name: str, value: Any, root: str | None = None) -> list[WireError]:
        """The violations of ``value`` in document order, the first ``MAX_ERRORS`` (empty when valid)."""
        self._document(name)
        return self._explainer.explain(name, value, root if root is not None else _root(name))

    def errors(self, name: str, value: Any) -> Iterator[str]:
        """The violations, as ``path: reason`` lines (for ``evolution-schema check``)."""
        for error in self.explain(name, value):
            yield str(error)


def _root(name: str) -> str:
    return name.rsplit("/", 1)[-1]

