"""Rerun every engine example of a rules page (docs/rules.md, docs/fish-rules.md) and compare the answers.

The rules pages show their worked examples as shell sessions::

    ```console
    $ echo '<one JSON value>' | evolution-harness [--game GAME] NAME
    <the answer the engine printed>
    ```

This script finds each such block, runs ``evolution-harness`` with that game,
harness and input, and compares the answer (as JSON values, so spacing does
not matter). An expected answer of ``(nothing)`` means the harness must print
nothing (the input is invalid). Run it from the repository, with the host
installed:

    .venv/bin/python docs/check_examples.py [docs/rules.md | docs/fish-rules.md]

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
from typing import NamedTuple

COMMAND = re.compile(r"^\$ echo '(?P<input>[^']*)' \| evolution-harness (?:--game (?P<game>[a-z]+) )?(?P<name>[a-z0-9]+)$")
DEFAULT_GAME = "evolution"
FENCE = "```"


class Example(NamedTuple):
    line: int
    name: str  # the harness
    input: str
    expected: str
    game: str = DEFAULT_GAME


def examples(text: str) -> list[Example]:
    """Each example of a page: where it is, its harness, input and expected output, and its game."""
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
        found.append(Example(start, match["name"], match["input"], "\n".join(expected).strip(),
                             match["game"] or DEFAULT_GAME))
    return found


def harness_command() -> list[str]:
    beside = Path(sys.executable).with_name("evolution-harness")
    if beside.is_file():
        return [str(beside)]
    found = shutil.which("evolution-harness")
    if found:
        return [found]
    return [sys.executable, "-m", "evolution.cli.evolution_harness"]


def run(name: str, value: str, game: str = DEFAULT_GAME) -> str:
    result = subprocess.run(
        [*harness_command(), "--game", game, name], input=value, capture_output=True, text=True, timeout=60, check=False
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
    for example in found:
        got = run(example.name, example.input, example.game)
        if not same(example.expected, got):
            wrong += 1
            print(f"{page.name}:{example.line}: evolution-harness --game {example.game} {example.name} printed"
                  f" {got or '(nothing)'}, the page says {example.expected}")
    print(f"{page.name}: {len(found) - wrong} of {len(found)} examples agree with the engine")
    return 1 if wrong or not found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
