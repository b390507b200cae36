"""``evolution-schema``: check a message against a game's schemas, from any language's output.

    evolution-schema [--game GAME] list
    evolution-schema [--game GAME] check SCHEMA [FILE]            SCHEMA: a name (action4) or a schema file
    evolution-schema [--game GAME] check --message NAME [FILE]    FILE defaults to standard input

Exits 0 when the message is valid, 1 when it is not (each violation printed as
``path: reason``, the first 50 at most, or one line saying why the input is not
a JSON message at all), 2 on a usage error. The checks are the host's: strict integers (``3.0``
is not an integer), the host's size and nesting limits, the schema, then what
a schema cannot say (the game's ``message_checks``: in Evolution, food <=
population, fat-food <= body). With ``--context`` a reply is checked against
the message it answers, as the host does: in Evolution, an Action4 against
the ``start`` message that gave the hand, a FeedingChoice against its
``feed-next`` message. ``--game`` picks the game (Evolution by default).
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from evolution.cli.arguments import ArgumentParser, add_game, quiet_broken_pipe
from evolution.games import game
from evolution.jsonwire.framing import DEFAULT_MAX_DEPTH, FramingError, decode_one
from evolution.jsonwire.schema_explain import MAX_ERRORS
from evolution.jsonwire.schema_set import SchemaSet
from evolution.jsonwire.wire_errors import WireError

Readers = dict[str, Callable[[Any], Any]]
"""Messages whose whole pipeline needs nothing but the message."""
Contexts = dict[str, tuple[str, Callable[[Any], Any], Callable[[Any, Any], Any]]]
"""Replies: the host message they are checked against, how to read it, how to read the reply."""


@dataclass(frozen=True)
class Checks:
    """One game's checks: its schemas, then what its wire layer checks beyond them."""

    schemas: SchemaSet
    readers: Readers
    contexts: Contexts

    @classmethod
    def of(cls, name: str) -> Checks:
        chosen = game(name)
        readers, contexts = chosen.message_checks()
        return cls(chosen.schemas(), readers, contexts)


def _read(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    return Path(source).read_bytes()


def _schema_name(parser: ArgumentParser, given: str, schemas: SchemaSet) -> str:
    name = given if given in schemas.documents else _name_of_file(parser, given, schemas)
    if name == "defs":
        parser.error("defs holds the shared definitions, not a message; see evolution-schema list")
    return name


def _name_of_file(parser: ArgumentParser, given: str, schemas: SchemaSet) -> str:
    path = Path(given)
    if path.suffix == ".json" and path.is_file():
        try:
            uri = json.loads(path.read_text(encoding="utf-8")).get("$id", "")
        except (ValueError, AttributeError):
            parser.error(f"{given} is not a JSON Schema file")
        name = schemas.name_of_id(uri)
        if name is None:
            parser.error(f"{given} has $id {uri!r}, which is none of ours; see evolution-schema list")
        return name
    parser.error(f"no schema named {given!r}; see evolution-schema list")


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="evolution-schema",
        description="Check a message against a game's JSON Schemas, as the host checks it.",
    )
    add_game(parser)
    commands = parser.add_subparsers(dest="command", required=True, metavar="{list,check}")
    commands.add_parser("list", help="the schema names and what each describes")
    check = commands.add_parser("check", help="check one JSON message (exit 0 valid, 1 invalid)")
    check.add_argument("schema", nargs="?", metavar="SCHEMA", help="a schema name (see list) or schema file")
    check.add_argument("file", nargs="?", metavar="FILE", help="the message; - or absent: standard input")
    check.add_argument("--message", "-m", metavar="NAME", help="the schema name, instead of SCHEMA")
    check.add_argument(
        "--context",
        metavar="FILE",
        help="for action4: the start message that gave the hand; for feeding-choice: the feed-next message",
    )
    check.add_argument("--max-depth", type=int, default=DEFAULT_MAX_DEPTH, metavar="N", help="nesting limit (64)")
    return parser


@quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    checks = Checks.of(args.game)
    schemas = checks.schemas
    if args.command == "list":
        width = max(len(name) for name in schemas.names())
        for name in schemas.names():
            if name != "defs":
                print(f"{name:<{width}}  {schemas.title(name)}")
        return 0
    if args.message is not None:
        if args.file is not None:
            parser.error("give either --message NAME or SCHEMA, not both")
        given, source = args.message, args.schema or "-"
    else:
        if args.schema is None:
            parser.error("check needs SCHEMA (or --message NAME)")
        given, source = args.schema, args.file or "-"
    name = _schema_name(parser, given, schemas)
    if args.context is not None and name not in checks.contexts:
        parser.error(f"--context applies to {' and '.join(checks.contexts) or 'no message'}, not {name}")
    shown = "standard input" if source == "-" else source
    try:
        value = decode_one(_read(source), max_depth=args.max_depth)
    except OSError as error:
        parser.error(f"cannot read {shown}: {error.strerror}")
    except FramingError as error:
        print(f"evolution-schema: {shown}: {error}", file=sys.stderr)
        return 1
    context = _context(parser, checks, name, args.context, args.max_depth)
    return _report(checks, name, value, shown, context)


def _context(parser: ArgumentParser, checks: Checks, name: str, source: str | None, max_depth: int) -> Any:
    if source is None:
        return None
    kind, reader, _ = checks.contexts[name]
    try:
        return reader(decode_one(_read(source), max_depth=max_depth))
    except OSError as error:
        parser.error(f"cannot read {source}: {error.strerror}")
    except (FramingError, WireError) as error:
        parser.error(f"--context {source} is not a valid {kind} message: {error}")


def _report(checks: Checks, name: str, value: Any, shown: str, context: Any) -> int:
    schemas, readers, contexts = checks.schemas, checks.readers, checks.contexts
    violations = schemas.explain(name, value) if not schemas.is_valid(name, value) else []
    note = ""
    if not violations:
        try:
            if name in readers:
                readers[name](value)
            elif name in contexts and context is not None:
                contexts[name][2](value, context)
            elif name in contexts:
                note = f" (schema only; --context with the {contexts[name][0]} message also checks the indexes)"
        except WireError as error:
            violations = [error]
    if not violations:
        print(f"{shown}: valid {name}{note}")
        return 0
    for violation in violations:
        print(violation)
    if len(violations) >= MAX_ERRORS:
        print(f"... and maybe more (the first {MAX_ERRORS} are listed)")
    return 1


if __name__ == "__main__":
    sys.exit(main())
