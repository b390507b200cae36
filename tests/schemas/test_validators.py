"""The schemas as three validators read them: Ajv 8 strict (JavaScript), jsonschema-rs and jsonschema.

- Ajv, in strict mode with ``allErrors``, compiles every schema and every
  ``$defs`` entry with no error and no warning;
- on the whole corpus of the test suite (every valid and malformed message of
  ``test_schemas``, the messages of real games, the course's harness inputs, and
  mutants of all of them) the three agree on valid or invalid, for every
  schema; the host's verdict (``SCHEMAS.is_valid``: jsonschema-rs and strict
  integers) is jsonschema's with strict integers, which is the generic one for
  every message without a float, and "invalid" for every message with one.

Ajv runs in Node (``tests/support/ajv_check.mjs``) with the Ajv that ``make test``
installs into ``examples/javascript``; without node or that install the Ajv tests
are skipped with a message saying so, and the others still run.
"""

from __future__ import annotations

import functools
import json
import random
import re
import shutil
import subprocess
from typing import Any, Iterator

import jsonschema_rs
import pytest
from jsonschema import Draft202012Validator

from evolution.games.evolution.wire.schemas import SCHEMAS
from evolution.games.fish.wire.harness import SCHEMAS as FISH_SCHEMAS
from evolution.jsonwire.schema_set import schema_dir
from evolution.jsonwire.wire_errors import WireError
from tests.schemas import test_schemas
from tests.support import strategies as S
from tests.support.paths import CONFORMANCE, REPO

KIT = REPO / "examples" / "javascript"
SCRIPT = REPO / "tests" / "support" / "ajv_check.mjs"
MAX_DEPTH = 64
"""The framing's nesting limit: deeper values never reach a validator."""


def ajv(mode: str, cases: Any = None) -> Any:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed: the Ajv checks need Node 18 or later (CI installs it)")
    if not (KIT / "node_modules" / "ajv" / "package.json").is_file():
        pytest.skip(f"Ajv is not installed in {KIT}: run `make test` (it runs npm ci there)")
    done = subprocess.run(
        [node, str(SCRIPT), str(KIT), str(schema_dir()), mode],
        input=None if cases is None else json.dumps(cases).encode(),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    return json.loads(done.stdout)


def test_ajv_strict_compiles_every_schema_without_a_warning():
    report = ajv("compile")
    assert report["errors"] == []
    assert report["warnings"] == []
    documents = [*SCHEMAS.documents.values(), *FISH_SCHEMAS.documents.values()]  # the guide's loader reads all of schemas/
    expected = {d["$id"] for d in documents} | {f"{d['$id']}#/$defs/{k}" for d in documents for k in d.get("$defs", {})}
    assert set(report["compiled"]) == expected


def test_the_lines_the_guide_gives_javascript_authors_are_the_ones_tested():
    guide = (schema_dir() / "README.md").read_text()
    [block] = re.findall(r"```js\n(.*?)\n```", guide, re.S)
    tested = SCRIPT.read_text().replace(", logger", "")
    statements = [line for line in block.splitlines() if line.startswith(("const files", "const ajv"))]
    assert len(statements) == 2
    for line in statements:
        assert line in tested, line


# -- the corpus ------------------------------------------------------------------------


def _depth(value: Any) -> int:
    depth, level = 0, [value]
    while level:
        level = [item for node in level if isinstance(node, list) for item in node]
        depth += 1
    return depth


def _originals() -> Iterator[tuple[str, Any]]:
    for name, value, *_ in test_schemas.MALFORMED:
        yield name, value
    yield from test_schemas.VALID
    for seed, players, fail_at in ((0, 3, None), (1, 5, 7), (2, 8, None)):
        for record in S.record_game(seed, players, fail_at):
            yield record.kind, record.value
    for folder in sorted(CONFORMANCE.glob("x*")):
        for path in sorted(folder.glob("*-in.json"))[:12]:
            yield f"harness/{folder.name}", json.loads(path.read_text())


SUBSTITUTES = [3.0, 1.5, -1, 8, 2**40, "x", "carnivore", True, False, None, [], [0], [[0, 0]]]


def _mutant(value: Any, rng: random.Random) -> Any:
    """``value`` with one position (at any depth) replaced, removed, duplicated or floated."""
    if not isinstance(value, list) or not value or rng.random() < 0.15:
        if type(value) is int and rng.random() < 0.5:
            return float(value)
        return rng.choice(SUBSTITUTES)
    copy = list(value)
    index = rng.randrange(len(copy))
    action = rng.choice(["descend", "descend", "descend", "remove", "duplicate"])
    if action == "descend":
        copy[index] = _mutant(copy[index], rng)
    elif action == "remove":
        del copy[index]
    else:
        copy.insert(index, copy[index])
    return copy


@functools.cache
def corpus() -> list[tuple[str, Any]]:
    """Every message of the suite's corpus, and three mutants of each, within the framing's depth."""
    rng = random.Random(4500)
    cases = []
    for name, value in _originals():
        cases.append((name, value))
        cases.extend((name, _mutant(value, rng)) for _ in range(3))
    return [(name, value) for name, value in cases if _depth(value) <= MAX_DEPTH]


def _has_float(value: Any) -> bool:
    return type(value) is float or (isinstance(value, list) and any(_has_float(item) for item in value))


def _assert_check_names_the_first_violation(name: str, value: Any) -> None:
    """What the host reports (check stops at the first violation) is what evolution-schema lists first."""
    with pytest.raises(WireError) as raised:
        SCHEMAS.check(name, value)
    assert str(raised.value) == str(SCHEMAS.explain(name, value)[0]), (name, value)


def test_the_python_and_rust_validators_and_the_host_agree_on_the_whole_corpus():
    """Without Ajv too: jsonschema-rs and jsonschema say the same, the host says jsonschema's strict verdict."""
    cases = corpus()
    assert len(cases) > 1000
    documents = SCHEMAS.documents
    registry = jsonschema_rs.Registry((document["$id"], document) for document in documents.values())
    rust = {name: jsonschema_rs.validator_for(documents[name], registry=registry) for name in documents}
    disagreements = []
    for name, value in cases:
        generic = _generic(name).is_valid(value)
        strict = SCHEMAS.validator(name).is_valid(value)
        if rust[name].is_valid(value) != generic or strict != (generic and not _has_float(value)):
            disagreements.append((name, json.dumps(value)[:120], generic, strict))
        assert SCHEMAS.is_valid(name, value) == strict, (name, value)
        if not strict:
            _assert_check_names_the_first_violation(name, value)
    assert disagreements == []
    verdicts = [_generic(name).is_valid(value) for name, value in cases]
    assert 0.2 < sum(verdicts) / len(verdicts) < 0.8, "the corpus holds both valid and invalid messages"
    floats_taken = [value for (_, value), ok in zip(cases, verdicts, strict=True) if ok and _has_float(value)]
    assert floats_taken, "the corpus holds 3.0 where integers are due"


def test_ajv_agrees_with_jsonschema_on_the_whole_corpus():
    cases = corpus()
    by_ajv = ajv("validate", [[SCHEMAS.documents[name]["$id"], value] for name, value in cases])
    disagreements = [
        (name, json.dumps(value)[:120], ajv_says)
        for (name, value), ajv_says in zip(cases, by_ajv, strict=True)
        if ajv_says != _generic(name).is_valid(value)
    ]
    assert disagreements == []


@functools.cache
def _generic(name: str) -> Any:
    """jsonschema as every validator reads the schemas: ``3.0`` is an integer."""
    return Draft202012Validator(SCHEMAS.documents[name], registry=SCHEMAS.registry)
