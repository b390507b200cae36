# -*- test-case-name: tests.schemas.test_schemas, tests.games.evolution.wire.test_messages -*-
"""Evolution's JSON Schemas: the files of ``schemas/`` whose ``$id`` is ``urn:evolution:...``.

Offers ``SCHEMAS``, the ``SchemaSet`` (``evolution.jsonwire.schema_set``) every
message of Evolution is checked against: the course's messages at the top of
``schemas/``, the seed-002 dialect's in ``schemas/seed002/``, the harnesses'
inputs in ``schemas/harness/``; ``show``, a value as short JSON text.
"""

from __future__ import annotations

from evolution.jsonwire.schema_set import SchemaSet, schema_dir, show

NAMESPACE = "urn:evolution:"

SCHEMAS = SchemaSet(schema_dir(), NAMESPACE)

__all__ = ["NAMESPACE", "SCHEMAS", "show"]
