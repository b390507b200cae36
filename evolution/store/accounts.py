# -*- test-case-name: tests.store.test_accounts -*-
"""Bot accounts in the results store: owners (a person or a team) and their bots, with secrets kept only hashed.

Offers ``Accounts(connection)`` (``Accounts.open(db)``: an SQLite file or a
PostgreSQL URL, so every host behind one balancer sees the same accounts):
``add_owner``, ``add_bot`` and ``rotate`` (each issuing a secret, returned
once and stored only as its salted scrypt hash, ``evolution.bot_secrets``),
``ban``/``unban`` (a bot or an owner), ``pin`` (a bot's address prefixes),
``claim_session``, ``release_session`` and ``release_host`` (one live session
per bot across the hosts of the store),
``owners()`` and ``bots()`` (``OwnerRecord``, ``BotAccount``: what lists and
hosts read), ``marks()`` and ``mark(name)`` (an owner, banned, a guest: what
the results and the pages show), and ``AccountError`` (one sentence: no such owner, a name taken).

Who uses them: ``evolution-accounts`` writes, a host with ``--accounts
roster|closed`` reads (``evolution.net.identity``); docs/accounts.md.
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from evolution.address_prefixes import parse_prefixes
from evolution.bot_secrets import BotAccount, hash_secret, issue_secret, secret_tag
from evolution.reserved_names import GUEST, HOST_SUFFIX
from evolution.store.database import stored
from evolution.store.postgres import NAMES
from evolution.store.sql_dialects import dialect_for, open_database


class AccountError(Exception):
    """What evolution-accounts was asked cannot be done; the message is one sentence."""


@dataclass(frozen=True)
class OwnerRecord:
    name: str
    display_name: str
    contact: str
    banned: bool
    bots: tuple[str, ...]


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def checked_prefixes(prefixes: Sequence[str]) -> tuple[str, ...]:
    """The CIDR prefixes as written, each checked (``evolution.address_prefixes``); ``AccountError`` for one that
    is not a prefix."""
    try:
        return tuple(str(prefix) for prefix in parse_prefixes(prefixes))
    except ValueError as error:
        raise AccountError(str(error)) from None


class Accounts:
    """The owners and bots of one results store."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.dialect = dialect_for(connection)

    @classmethod
    def open(cls, db: str | Path) -> Accounts:
        return cls(open_database(db))

    def close(self) -> None:
        self.connection.close()

    # -- writes -------------------------------------------------------------------

    def add_owner(self, name: str, display_name: str = "", contact: str = "") -> None:
        with self.connection:
            if self._owner_row(name) is not None:
                raise AccountError(f"there is an owner {name!r} already")
            self.connection.execute(
                "INSERT INTO owners (name, display_name, contact, created_at) VALUES (?, ?, ?, ?)",
                (name, display_name or name, contact, _now()))

    def add_bot(self, name: str, owner: str, letters: bool = False, prefixes: Sequence[str] = ()) -> str:
        """Add the bot ``name`` of ``owner``; return its new secret (shown this once, stored only hashed)."""
        check_bot_name(name)
        pinned = ",".join(checked_prefixes(prefixes))
        secret = issue_secret(letters)
        now = _now()
        with self.connection:
            if self._owner_row(owner) is None:
                raise AccountError(f"there is no owner {owner!r} (add it first: evolution-accounts add-owner)")
            if self._bot_row(name) is not None:
                raise AccountError(f"there is a bot {name!r} already")
            self.connection.execute(
                "INSERT INTO bots (name, owner, secret_hash, secret_tag, prefixes, created_at, rotated_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)", (name, owner, hash_secret(secret), secret_tag(secret), pinned, now, now))
        return secret

    def rotate(self, name: str, letters: bool = False) -> str:
        """A new secret for the bot ``name`` (the old one proves nothing from now on); returned this once."""
        secret = issue_secret(letters)
        with self.connection:
            self._bot(name)
            self.connection.execute("UPDATE bots SET secret_hash = ?, secret_tag = ?, rotated_at = ? WHERE name = ?",
                                    (hash_secret(secret), secret_tag(secret), _now(), name))
        return secret

    def ban(self, name: str, banned: bool = True, kind: str | None = None) -> str:
        """Ban (or unban) the bot or the owner ``name`` (``kind``: only a "bot", only an "owner"); say which it was."""
        when = _now() if banned else None
        with self.connection:
            if kind != "owner" and self._bot_row(name) is not None:
                self.connection.execute("UPDATE bots SET banned_at = ? WHERE name = ?", (when, name))
                return "bot"
            if kind != "bot" and self._owner_row(name) is not None:
                self.connection.execute("UPDATE owners SET banned_at = ? WHERE name = ?", (when, name))
                return "owner"
        raise AccountError(f"there is no {kind or 'bot or owner'} {name!r}")

    def pin(self, name: str, prefixes: Sequence[str]) -> None:
        """The bot ``name`` may connect only from ``prefixes`` (none: from anywhere)."""
        pinned = ",".join(checked_prefixes(prefixes))
        with self.connection:
            self._bot(name)
            self.connection.execute("UPDATE bots SET prefixes = ? WHERE name = ?", (pinned, name))

    # -- live sessions, across the hosts of one store --------------------------------

    def claim_session(self, name: str, host: str, since: str | None = None) -> str | None:
        """Hold the bot ``name``'s one live session for ``host``; None if it does, else the host that holds it.

        ``since`` (default: now) marks this claim: ``release_session`` with it ends this claim and no later one.
        A session held by a host that is not running any more is taken over: in PostgreSQL, one whose name no
        host holds (``postgres.hold_name``); an SQLite store serves one host, so another name there is an
        earlier run's."""
        since = since or _now()
        with self.connection:
            row = self.connection.execute("SELECT host FROM bot_sessions WHERE name = ?", (name,)).fetchone()
            if row is None:
                self.connection.execute("INSERT INTO bot_sessions (name, host, since) VALUES (?, ?, ?)",
                                        (name, host, since))
                return None
            if row[0] != host and self._running(row[0]):
                return row[0]
            self.connection.execute("UPDATE bot_sessions SET host = ?, since = ? WHERE name = ?", (host, since, name))
        return None

    def release_session(self, name: str, host: str, since: str | None = None) -> None:
        """The bot ``name``'s session on ``host`` is over: the claim marked ``since`` (None: whichever claim).

        A host's release and its next claim of one bot run on separate connections, in either order: with
        ``since``, a release that comes after a newer claim leaves that claim's session held."""
        query, values = "DELETE FROM bot_sessions WHERE name = ? AND host = ?", (name, host)
        if since is not None:
            query, values = query + " AND since = ?", (*values, since)
        with self.connection:
            self.connection.execute(query, values)

    def release_host(self, host: str) -> None:
        """Every session ``host`` held (it starts again: whatever it held before has ended)."""
        with self.connection:
            self.connection.execute("DELETE FROM bot_sessions WHERE host = ?", (host,))

    def _running(self, host: str) -> bool:
        if not self.dialect.shared:
            return False  # SQLite: one host
        [[free]] = self.connection.execute("SELECT pg_try_advisory_lock(?, hashtext(?))", (NAMES, host)).fetchall()
        if free:
            self.connection.execute("SELECT pg_advisory_unlock(?, hashtext(?))", (NAMES, host))
        return not free

    # -- reads --------------------------------------------------------------------

    def owners(self) -> list[OwnerRecord]:
        bots: dict[str, list[str]] = {}
        for owner, bot in self.connection.execute("SELECT owner, name FROM bots ORDER BY owner, name").fetchall():
            bots.setdefault(owner, []).append(bot)
        rows = self.connection.execute(
            "SELECT name, display_name, contact, banned_at FROM owners ORDER BY name").fetchall()
        return [OwnerRecord(name, display, contact, banned is not None, tuple(bots.get(name, ())))
                for name, display, contact, banned in rows]

    def bots(self) -> list[BotAccount]:
        """Every bot, its owner's ban folded into its own."""
        rows = self.connection.execute(
            "SELECT b.name, b.owner, b.secret_hash, b.secret_tag, b.banned_at, o.banned_at, b.prefixes,"
            " o.display_name FROM bots b JOIN owners o ON o.name = b.owner ORDER BY b.name").fetchall()
        return [BotAccount(name, owner, hashed, tag, bot_ban is not None or owner_ban is not None,
                           tuple(p for p in prefixes.split(",") if p), display)
                for name, owner, hashed, tag, bot_ban, owner_ban, prefixes, display in rows]

    def marks(self) -> dict[str, dict[str, Any]]:
        """What the pages and the results show of each bot with an account: ``{"owner": display name, "banned"}``."""
        return {bot.name: {"owner": bot.owner_display, "banned": bot.banned} for bot in self.bots()}

    def mark(self, name: str) -> dict[str, Any] | None:
        """What a player's page shows of ``name``: its account's marks, ``{"guest": true}`` for a host's guest
        (``guest-N`` in a store with accounts), or None (no accounts: an open host's name)."""
        row = self.connection.execute(
            "SELECT o.display_name, b.banned_at, o.banned_at FROM bots b JOIN owners o ON o.name = b.owner"
            " WHERE b.name = CAST(? AS TEXT)", (stored(name),)).fetchone()  # a name with a lone surrogate too
        if row is not None:
            return {"owner": row[0], "banned": row[1] is not None or row[2] is not None}
        if name.startswith(GUEST) and self.connection.execute("SELECT 1 FROM bots LIMIT 1").fetchone():
            return {"guest": True}
        return None

    def _owner_row(self, name: str) -> Any:
        return self.connection.execute("SELECT name FROM owners WHERE name = ?", (name,)).fetchone()

    def _bot_row(self, name: str) -> Any:
        return self.connection.execute("SELECT name FROM bots WHERE name = ?", (name,)).fetchone()

    def _bot(self, name: str) -> None:
        if self._bot_row(name) is None:
            raise AccountError(f"there is no bot {name!r}")


def check_bot_name(name: str) -> None:
    """``AccountError`` if ``name`` cannot be a bot's (``Accounts.add_bot`` refuses it): checked before writing."""
    if name.startswith(GUEST) or not name.strip() or HOST_SUFFIX.search(name):
        raise AccountError(f"{name!r} cannot be a bot's name (empty, or of the host's own forms: {GUEST}N, or "
                           "ending in # and digits)")
