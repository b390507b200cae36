"""``evolution-accounts --db DB COMMAND ...``: the owners and bots a host with ``--accounts roster|closed`` knows.

Commands: ``add-owner NAME [--display-name TEXT] [--contact TEXT]``;
``add-bot NAME --owner OWNER [--letters] [--pin PREFIXES]`` (prints the
bot's secret, once); ``rotate BOT [--letters]`` (a new secret, printed once;
the old one proves nothing any more); ``ban NAME`` / ``unban NAME`` (a bot,
or an owner and so all its bots; ``--bot`` or ``--owner`` says which, and a
name that is both a bot's and an owner's needs one); ``pin BOT PREFIXES`` (the bot may connect
only from these CIDR prefixes, comma-separated; ``""`` for anywhere);
``list [--json]``; ``import ROSTER.csv [--letters] [--secrets FILE]`` (a
class: each row an owner and its bots' names; every row is checked first,
and one that cannot be imported stops the import, naming its line, before
anything is written; then owners and bots that are new are added, each new
bot's secret written to FILE, made for the organiser alone, or printed).

``--db`` names the host's store: an SQLite file that is not there is refused
(a mistyped path would begin an empty store of its own), except by
``add-owner`` and ``import``, which begin one.

A secret is shown only here, once; the store keeps its salted hash
(``evolution.store.accounts``). ``--letters`` issues 12 ASCII letters, a
sign-up name a Fish course client can send; otherwise 128 random bits. A
mistake is one line and exit 1. The organiser's walk: docs/accounts.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from pathlib import Path
from typing import Any, NamedTuple, TextIO

from evolution.cli.arguments import ArgumentParser, quiet_broken_pipe
from evolution.store.accounts import AccountError, Accounts, check_bot_name
from evolution.store.database import StoreError
from evolution.store.sql_dialects import SQLITE, dialect_of
from evolution.text import escape

PROG = "evolution-accounts"
BEGIN_STORE = ("add-owner", "import")  # the commands that may begin a store where there is none


def parser() -> ArgumentParser:
    top = ArgumentParser(prog=PROG, description="The owners and bots a host with --accounts roster|closed knows: "
                         "add them, issue and rotate secrets (each shown once), ban, list, import a class.")
    top.add_argument("--db", required=True, help="the results store: an SQLite file or a postgresql:// URL")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND", parser_class=ArgumentParser)
    owner = commands.add_parser("add-owner", help="add an owner (a person or a team)")
    owner.add_argument("name")
    owner.add_argument("--display-name", default="", help="the name the pages show (default: NAME)")
    owner.add_argument("--contact", default="", help="how to reach the owner (kept, never shown on the pages)")
    bot = commands.add_parser("add-bot", help="add a bot of an owner and print its secret, once")
    bot.add_argument("name", help="the bot's public name")
    bot.add_argument("--owner", required=True)
    _letters(bot)
    bot.add_argument("--pin", default="", metavar="PREFIXES", help="CIDR prefixes the bot must connect from, "
                     "comma-separated (after a PROXY header: the bot's address)")
    rotate = commands.add_parser("rotate", help="issue a bot a new secret (printed once); the old one stops working")
    rotate.add_argument("name")
    _letters(rotate)
    for verb, what in (("ban", "refuse"), ("unban", "take back")):
        command = commands.add_parser(verb, help=f"{what} a bot, or an owner with all its bots")
        command.add_argument("name")
        which = command.add_mutually_exclusive_group()
        which.add_argument("--owner", dest="kind", action="store_const", const="owner",
                           help="NAME is an owner's: the owner, and so all its bots")
        which.add_argument("--bot", dest="kind", action="store_const", const="bot",
                           help="NAME is a bot's (needed, or --owner, when an owner has the same name)")
    pin = commands.add_parser("pin", help="pin a bot to address prefixes ('' for anywhere)")
    pin.add_argument("name")
    pin.add_argument("prefixes")
    listing = commands.add_parser("list", help="the owners and their bots (never a secret)")
    listing.add_argument("--json", action="store_true")
    roster = commands.add_parser("import", help="add a class from a CSV roster: each row an owner, then its bots")
    roster.add_argument("roster", type=Path)
    _letters(roster)
    roster.add_argument("--secrets", type=Path, metavar="FILE",
                        help="write the new bots' secrets there (owner,bot,secret; a new file only the "
                        "organiser may read) instead of printing them")
    return top


def _letters(command: argparse.ArgumentParser) -> None:
    command.add_argument("--letters", action="store_true",
                         help="a secret of 12 ASCII letters, which a Fish course client can send as its name")


def _prefixes(text: str) -> list[str]:
    return [prefix for prefix in text.split(",") if prefix.strip()]


def run(accounts: Accounts, args: argparse.Namespace, out: TextIO) -> None:
    if args.command == "add-owner":
        accounts.add_owner(args.name, args.display_name, args.contact)
        print(f"owner {escape(args.name)} added", file=out)
    elif args.command == "add-bot":
        secret = accounts.add_bot(args.name, args.owner, args.letters, _prefixes(args.pin))
        print(f"bot {escape(args.name)} of {escape(args.owner)} added; its secret (shown only now): {secret}", file=out)
    elif args.command == "rotate":
        secret = accounts.rotate(args.name, args.letters)
        print(f"bot {escape(args.name)} has a new secret (shown only now; the old one no longer works): {secret}",
              file=out)
    elif args.command in ("ban", "unban"):
        what = accounts.ban(args.name, args.command == "ban", args.kind or _which(accounts, args.name))
        print(f"{what} {escape(args.name)} {args.command}ned", file=out)
    elif args.command == "pin":
        accounts.pin(args.name, _prefixes(args.prefixes))
        print(f"bot {escape(args.name)} pinned to {args.prefixes or 'no prefix (anywhere)'}", file=out)
    elif args.command == "list":
        _list(accounts, args.json, out)
    else:
        import_roster(accounts, args.roster, args.letters, args.secrets, out)


def _list(accounts: Accounts, as_json: bool, out: TextIO) -> None:
    owners, bots = accounts.owners(), {bot.name: bot for bot in accounts.bots()}
    if as_json:
        print(json.dumps([{"owner": owner.name, "display_name": owner.display_name, "contact": owner.contact,
                           "banned": owner.banned,
                           "bots": [{"name": name, "banned": bots[name].banned, "prefixes": list(bots[name].prefixes)}
                                    for name in owner.bots]} for owner in owners], ensure_ascii=True), file=out)
        return
    for owner in owners:
        contact = f", {escape(owner.contact)}" if owner.contact else ""
        print(f"{escape(owner.name)} ({escape(owner.display_name)}{contact}){' BANNED' if owner.banned else ''}",
              file=out)
        for name in owner.bots:
            bot = bots[name]
            pinned = f" from {','.join(bot.prefixes)}" if bot.prefixes else ""
            print(f"  {escape(name)}{pinned}{' BANNED' if bot.banned else ''}", file=out)


def _which(accounts: Accounts, name: str) -> None:
    """``AccountError`` when ``name`` is both a bot's and an owner's (ban and unban must be told which)."""
    bot = next((bot for bot in accounts.bots() if bot.name == name), None)
    if bot is not None and any(owner.name == name for owner in accounts.owners()):
        raise AccountError(f"{name!r} is both a bot (of {bot.owner!r}) and an owner: say which, with --bot or --owner")


class RosterRow(NamedTuple):
    line: int  # of the file, as an editor numbers it
    owner: str
    bots: list[str]


def read_roster(path: Path) -> list[RosterRow]:
    """The rows of a CSV roster: their lines, owners and bots' names; a first row ``owner,bot...`` is a header."""
    try:
        with path.open(newline="", encoding="utf-8") as file:
            reader = csv.reader(file)
            rows = [(reader.line_num, [cell.strip() for cell in row]) for row in reader]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise AccountError(f"cannot read the roster {path}: {error}") from None
    rows = [(line, row) for line, row in rows if any(row)]
    if rows and rows[0][1][0].lower() == "owner":
        rows = rows[1:]
    found = []
    for line, row in rows:
        bots = [cell for cell in row[1:] if cell]
        if not row[0] or not bots:
            raise AccountError(f"line {line} of the roster {path} names no owner or no bot (write: owner,bot,bot...); "
                               "nothing is imported")
        found.append(RosterRow(line, row[0], bots))
    return found


def check_roster(accounts: Accounts, roster: list[RosterRow], path: Path) -> None:
    """``AccountError`` naming the first line that cannot be imported, and why, before anything is written: a bot
    name a bot cannot have, a bot named twice, a bot the store holds for another owner."""
    stored = {bot.name: bot.owner for bot in accounts.bots()}
    named: dict[str, int] = {}
    problems = []
    for line, owner, bots in roster:
        for bot in bots:
            try:
                check_bot_name(bot)
            except AccountError as error:
                problems.append(f"line {line} of the roster {path}: {error}")
            if bot in named:
                problems.append(f"line {line} of the roster {path}: the bot {bot!r} is on line {named[bot]} already")
            elif stored.get(bot, owner) != owner:
                problems.append(f"line {line} of the roster {path}: the bot {bot!r} is {stored[bot]!r}'s in the "
                                f"store, not {owner!r}'s")
            named.setdefault(bot, line)
    if problems:
        more = f" ({len(problems) - 1} more after it)" if len(problems) > 1 else ""
        raise AccountError(f"{problems[0]}{more}; nothing is imported")


def import_roster(accounts: Accounts, path: Path, letters: bool, secrets_file: Path | None, out: TextIO) -> None:
    roster = read_roster(path)
    check_roster(accounts, roster, path)
    have_owners = {owner.name for owner in accounts.owners()}
    have_bots = {bot.name for bot in accounts.bots()}
    sink = _secrets_sink(secrets_file) if secrets_file is not None else out
    added = kept = 0
    total = sum(len(row.bots) for row in roster)
    try:
        writer = csv.writer(sink)
        if secrets_file is not None:
            writer.writerow(["owner", "bot", "secret"])
        for _, owner, bots in roster:
            if owner not in have_owners:
                accounts.add_owner(owner)
                have_owners.add(owner)
            for bot in bots:
                if bot in have_bots:
                    kept += 1
                    print(f"bot {escape(bot)} is there already: its secret is unchanged (rotate it to issue one)",
                          file=sys.stderr)
                    continue
                writer.writerow([owner, bot, accounts.add_bot(bot, owner, letters)])
                sink.flush()
                have_bots.add(bot)
                added += 1
                if added % 10 == 0:
                    print(f"{added} of {total} bots added", file=sys.stderr)
    finally:
        if sink is not out:
            sink.close()
    where = f"their secrets are in {secrets_file}" if secrets_file is not None else "their secrets are above"
    print(f"{added} bots added ({where}), {kept} there already", file=out if secrets_file is not None else sys.stderr)


def _secrets_sink(path: Path) -> Any:
    """A new file only its owner may read (an existing one is never overwritten: it may hold secrets handed out)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise AccountError(f"{path} exists already: give --secrets a new file") from None
    except OSError as error:
        raise AccountError(f"cannot write the secrets to {path}: {error.strerror}") from None
    return os.fdopen(fd, "w", newline="", encoding="utf-8")


@quiet_broken_pipe
def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command not in BEGIN_STORE and dialect_of(args.db) is SQLITE and not Path(args.db).exists():
        print(f"{PROG}: the store {escape(args.db)} does not exist: give --db the host's store (or begin one with "
              "add-owner or import)", file=sys.stderr)
        return 1
    try:
        accounts = Accounts.open(args.db)
    except StoreError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    try:
        run(accounts, args, sys.stdout)
    except AccountError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    finally:
        accounts.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
