"""``evolution-schema``: check a message against the schemas, from any language's output.

    evolution-schema list
    evolution-schema check SCHEMA [FILE]            SCHEMA: a name (action4) or a schema file
    evolution-schema check --message NAME [FILE]    FILE defaults to standard input

Exits 0 when the message is valid, 1 when it is not (each violation printed as
``path: reason``, the first 50 at most, or one line saying why the input is not
a JSON message at all), 2 on a usage error. The checks are the host's: strict integers (``3.0``
is not an integer), the host's size and nesting limits, the schema, then what
a schema cannot say (food <= population, fat-food <= body). With ``--context``
a reply is checked against the message it answers, as the host does: an
Action4 against the ``start`` message that gave the hand, a FeedingChoice
against its ``feed-next`` message.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

from evolution.cli import ArgumentParser, quiet_broken_pipe
from evolution.wire import messages
from evolution.jsonwire.errors import WireError
from evolution.jsonwire.framing import DEFAULT_MAX_DEPTH, FramingError, decode_one
from evolution.wire.schema_explain import MAX_ERRORS
from evolution.wire.schemas import SCHEMAS

READERS: dict[str, Callable[[Any], Any]] = {
    "signup": messages.read_signup,
    "signup-reply": messages.read_signup_reply,
    "start": messages.read_start,
    "choose": messages.read_choose,
    "feed-next": messages.read_feed_next,
    "score": messages.read_score,
}
"""Messages whose whole pipeline needs nothing but the message."""

CONTEXTS: dict[str, tuple[str, Callable[[Any], Any], Callable[[Any, Any], Any]]] = {
    "action4": ("start", lambda v: messages.read_start(v)[1], messages.read_action4),
    "feeding-choice": ("feed-next", messages.read_feed_next, messages.read_feeding_choice),
}
"""Replies: the host message they are checked against, how to read it, how to read the reply."""


def _read(source: str) -> bytes:
    if source == "-":
        return sys.stdin.buffer.read()
    return Path(source).read_bytes()


def _schema_name(parser: ArgumentParser, given: str) -> str:
    name = given if given in SCHEMAS.documents else _name_of_file(parser, given)
    if name == "defs":
        parser.error("defs holds the shared definitions, not a message; see evolution-schema list")
    return name


def _name_of_file(parser: ArgumentParser, given: str) -> str:
    path = Path(given)
    if path.suffix == ".json" and path.is_file():
        try:
            uri = json.loads(path.read_text(encoding="utf-8")).get("$id", "")
        except (ValueError, AttributeError):
            parser.error(f"{given} is not a JSON Schema file")
        name = SCHEMAS.name_of_id(uri)
        if name is None:
            parser.error(f"{given} has $id {uri!r}, which is none of ours; see evolution-schema list")
        return name
    parser.error(f"no schema named {given!r}; see evolution-schema list")


def build_parser() -> ArgumentParser:
    parser = ArgumentParser(
        prog="evolution-schema",
        description="Check a message against the Evolution host's JSON Schemas, as the host checks it.",
    )
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
    if args.command == "list":
        width = max(len(name) for name in SCHEMAS.names())
        for name in SCHEMAS.names():
            if name != "defs":
                print(f"{name:<{width}}  {SCHEMAS.title(name)}")
        return 0
    if args.message is not None:
        if args.file is not None:
            parser.error("give either --message NAME or SCHEMA, not both")
        given, source = args.message, args.schema or "-"
    else:
        if args.schema is None:
            parser.error("check needs SCHEMA (or --message NAME)")
        given, source = args.schema, args.file or "-"
    name = _schema_name(parser, given)
    if args.context is not None and name not in CONTEXTS:
        parser.error(f"--context applies to {' and '.join(CONTEXTS)}, not {name}")
    shown = "standard input" if source == "-" else source
    try:
        value = decode_one(_read(source), max_depth=args.max_depth)
    except OSError as error:
        parser.error(f"cannot read {shown}: {error.strerror}")
    except FramingError as error:
        print(f"evolution-schema: {shown}: {error}", file=sys.stderr)
        return 1
    context = _context(parser, name, args.context, args.max_depth)
    return _report(name, value, shown, context)


def _context(parser: ArgumentParser, name: str, source: str | None, max_depth: int) -> Any:
    if source is None:
        return None
    kind, reader, _ = CONTEXTS[name]
    try:
        return reader(decode_one(_read(source), max_depth=max_depth))
    except OSError as error:
        parser.error(f"cannot read {source}: {error.strerror}")
    except (FramingError, WireError) as error:
        parser.error(f"--context {source} is not a valid {kind} message: {error}")


def _report(name: str, value: Any, shown: str, context: Any) -> int:
    violations = SCHEMAS.explain(name, value) if not SCHEMAS.is_valid(name, value) else []
    note = ""
    if not violations:
        try:
            if name in READERS:
                READERS[name](value)
            elif name in CONTEXTS and context is not None:
                CONTEXTS[name][2](value, context)
            elif name in CONTEXTS:
                note = f" (schema only; --context with the {CONTEXTS[name][0]} message also checks the indexes)"
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
