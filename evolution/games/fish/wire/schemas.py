"""Fish's JSON Schemas: the files of ``schemas/fish/``, whose ``$id`` is ``urn:fish:...``.

Offers ``SCHEMAS``, the ``SchemaSet`` (``evolution.jsonwire.schema_set``) every
Fish value is checked against, named by path below ``schemas/fish/``
(``defs``, ``harness/xboard``, ...).
"""

from __future__ import annotations

from evolution.jsonwire.schema_set import SchemaSet, schema_dir

NAMESPACE = "urn:fish:"

SCHEMAS = SchemaSet(schema_dir() / "fish", NAMESPACE)

__all__ = ["NAMESPACE", "SCHEMAS"]
