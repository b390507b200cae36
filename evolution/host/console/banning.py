# -*- test-case-name: tests.host.console.test_ban -*-
"""Banning from the console (``evolution-admin ban NAME [--owner]``, ``unban``): in the store, and on this host now.

Offers ``Bans(host, db, reactor)``: ``change(name, owner, banned, reason,
who)`` fires with what the host did, in one line (``AccountError``: no such
bot, or with ``owner`` no such owner: ``name`` is the owner's, never looked
up among the bots). A ban is written to the store's accounts (as
``evolution-accounts ban`` writes it), read back into the sign-up's identity
step at once (so the bot cannot sign up again), and each connection of the
banned bot (with ``owner``, of each bot of its owner) on this host is hung up
on now: a tournament entrant withdrawn (``TournamentRun.withdraw``, recorded
``withdrawn by the organiser: banned: REASON``), a ladder bot withdrawn, a
bot playing removed from its game with the reason (in a worker: the
worker's ``Expel``), a bot waiting hung up on. The other
hosts of the store refuse it within ``roster.RELOAD`` seconds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from twisted.internet.defer import Deferred
from twisted.logger import Logger

from evolution.bot_secrets import BotAccount
from evolution.host.roster import in_threads
from evolution.net.host_connection import AWAY, CLOSED, PLAYING
from evolution.store.accounts import AccountError, Accounts
from evolution.text import escape, quoted

log = Logger()

__all__ = ["AccountError", "Bans"]


class Bans:
    """The console's bans: the store's accounts, this host's identity step and its connections."""

    def __init__(self, host: Any, db: str | Path, reactor: Any) -> None:
        self.host, self.db = host, db
        self.run = in_threads(reactor)

    def change(self, name: str, owner: bool, banned: bool, reason: str, who: str) -> Deferred[str]:
        return self.run(lambda: self._write(name, owner, banned)).addCallback(self._written, banned, reason, who)

    def _write(self, name: str, owner: bool, banned: bool) -> tuple[str, str, list[BotAccount]]:
        """In a thread: the ban written; what was banned ("bot" or "owner", its name) and every bot now."""
        accounts = Accounts.open(self.db)
        try:
            try:
                kind = accounts.ban(name, banned, "owner" if owner else "bot")
            except AccountError:
                raise AccountError(_not_found(accounts, name, owner)) from None
            return kind, name, accounts.bots()
        finally:
            accounts.close()

    def _written(self, found: tuple[str, str, list[BotAccount]], banned: bool, reason: str, who: str) -> str:
        kind, name, bots = found
        self.host.factory.identity.update(bots)
        target = f"{kind} {quoted(name)}"
        if not banned:
            line = f"{target} is unbanned by {who}: it may sign up again"
            log.info("{line}", line=escape(line))
            return line
        names = {bot.name for bot in bots if (bot.owner if kind == "owner" else bot.name) == name}
        done = [self._hang_up(connection, reason) for connection in self._connections(names)]
        line = (f"{target} is banned by {who}: {reason}; "
                + (", ".join(done) if done else "no bot of it is connected here"))
        log.info("{line}", line=escape(line))
        return line

    def _connections(self, names: set[str]) -> list[Any]:
        identities = self.host.factory.identities
        return sorted((connection for connection, identity in list(identities.items())
                       if identity.proven and identity.name in names and connection.state != CLOSED),
                      key=lambda connection: connection.name)

    def _hang_up(self, connection: Any, reason: str) -> str:
        """One connection of a banned bot off this host now; what became of it."""
        name, host = connection.name, self.host
        if connection.state in (PLAYING, AWAY):  # in a game, here or in a worker: removed with the reason
            host.runner.remove(connection, f"banned by the organiser: {reason}")
        run = host.tournaments.current if host.tournaments is not None else None
        if run is not None and run.withdraw(name, f"banned: {reason}"):
            what = f"withdrawn from tournament {run.id}"
        elif host.ladder is not None and host.ladder.withdraw(name, f"banned: {reason}") is not None:
            what = "withdrawn from the ladder"
        else:
            what = "hung up on"
            if connection in host.factory.lobby:
                host.factory.leave(connection, f"banned by the organiser: {reason}")
        if connection.state != CLOSED:
            connection.close()  # one in a worker: as it comes back, if it does
        return f"{quoted(name)} {what}"


def _not_found(accounts: Accounts, name: str, owner: bool) -> str:
    """Why there is nothing to ban: no such owner (perhaps a bot of that name), or no such bot (perhaps an owner)."""
    if owner:
        bot = next((bot for bot in accounts.bots() if bot.name == name), None)
        other = f" ({quoted(name)} is a bot, of the owner {quoted(bot.owner)})" if bot is not None else ""
        return f"there is no owner {quoted(name)}{other}"
    other = any(record.name == name for record in accounts.owners())
    return f"there is no bot {quoted(name)}" + (f" ({quoted(name)} is an owner: give --owner)" if other else "")
