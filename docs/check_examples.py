"""Rerun every engine example of docs/rules.md and compare the answers.

The rules page shows its worked examples as shell sessions::

    ```console
    $ echo '<one JSON value>' | evolution-harness NAME
    <the answer the engine printed>
    ```

This script finds each such block, runs ``evolution-harness NAME`` with that
input, and compares the answer (as JSON values, so spacing does not matter).
An expected answer of ``(nothing)`` means the harness must print nothing (the
input is invalid). Run it from the repository, with the host installed:

    .venv/bin/python docs/check_examples.py [docs/rules.md]

It prints one line per disagreement and a count, and exits 1 when any
example disagrees with the engine.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

COMMAND = re.compile(r"^\$ echo '(?P<input>[^']*)' \| evolution-harness (?P<name>[a-z0-9]+)$")
FENCE = "```"


def examples(text: str) -> list[tuple[int, str, str, str]]:
    """(line number, harness name, input, expected output) for each example."""
    found = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        match = COMMAND.match(lines[i].strip())
        if not match:
            i += 1
            continue
        start = i + 1
        i += 1
        expected = []
        while i < len(lines) and not lines[i].strip().startswith(("$ ", FENCE)):
            expected.append(lines[i].strip())
            i += 1
        found.append((start, match["name"], match["input"], "\n".join(expected).strip()))
    return found


def harness_command() -> list[str]:
    beside = Path(sys.executable).with_name("evolution-harness")
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("evolution-harness")
    if found:
        return [found]
    return [sys.executable, "-m", "evolution.games.evolution.wire.harness"]


def run(name: str, value: str) -> str:
    result = subprocess.run(
        [*harness_command(), name], input=value, capture_output=True, text=True, timeout=60, check=False
    )
    return result.stdout.strip()


def same(expected: str, got: str) -> bool:
    if expected == "(nothing)":
        return got == ""
    try:
        return json.loads(expected) == json.loads(got)
    except json.JSONDecodeError:
        return False


def main(argv: list[str]) -> int:
    page = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent / "rules.md"
    found = examples(page.read_text(encoding="utf-8"))
    wrong = 0
    for line, name, value, expected in found:
        got = run(name, value)
        if not same(expected, got):
            wrong += 1
            print(f"{page.name}:{line}: evolution-harness {name} printed {got or '(nothing)'}, the page says {expected}")
    print(f"{page.name}: {len(found) - wrong} of {len(found)} examples agree with the engine")
    return 1 if wrong or not found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
