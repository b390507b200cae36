# -*- test-case-name: tests.host.test_roster, tests.net.test_live_accounts -*-
"""A host's bot accounts (``--accounts roster|closed``): read from the store at start, and again every few seconds.

Offers ``identity_step(mode, db, reactor)`` (the sign-up's
``evolution.net.identity.IdentityStep``, its accounts read now, its secrets
checked in the reactor's thread pool; ``StartupError`` if the store cannot
be read), ``read_accounts(db)``, ``Sessions(db, host, reactor)`` (each proven
bot's one live session across the hosts of one store: claimed at sign-up,
released when its connection closes, each release ending only its own claim,
and all of this host's at its start) and ``RosterService(step, db, reactor,
every, reloaded)``, which reads them again every ``RELOAD`` seconds in a
thread (a ban, a rotated secret or a new bot holds on every host of the store
within that time; a store that cannot be read keeps the accounts read last,
with a line), then calls ``reloaded()``: the host's sign-up factory hangs up
on the bots connected that the accounts no longer admit
(``SignupFactory.turn_away_unproven``).

What the modes do: docs/accounts.md.
"""

from __future__ import annotations

import datetime
from pathlib import Path
from typing import Any, Callable

from twisted.application import internet
from twisted.internet import threads
from twisted.internet.defer import Deferred
from twisted.logger import Logger

from evolution.bot_secrets import BotAccount
from evolution.host.options import StartupError
from evolution.net.identity import IdentityStep
from evolution.net.throttle import ProofThrottle
from evolution.store.accounts import Accounts
from evolution.store.database import StoreError
from evolution.text import plural

log = Logger()
RELOAD = 10.0  # seconds between two reads of the accounts


def read_accounts(db: str | Path) -> list[BotAccount]:
    """Every bot account of the store ``db`` (``StoreError`` if it cannot be read)."""
    accounts = Accounts.open(db)
    try:
        return accounts.bots()
    finally:
        accounts.close()


def in_threads(reactor: Any) -> Callable[[Callable[[], Any]], Deferred]:
    """Run a function in the reactor's thread pool (scrypt takes some tens of milliseconds)."""
    return lambda function: threads.deferToThreadPool(reactor, reactor.getThreadPool(), function)


def identity_step(mode: str, db: str | Path, reactor: Any, run: Callable | None = None) -> IdentityStep:
    step = IdentityStep(mode, ProofThrottle(reactor), run if run is not None else in_threads(reactor))
    try:
        bots = read_accounts(db)
    except StoreError as error:
        raise StartupError(f"--accounts {mode} cannot read the accounts: {error}") from None
    step.update(bots)
    log.info("--accounts {mode}: {bots} of {owners} in the store", mode=mode, bots=plural(len(bots), "bot"),
             owners=plural(len({bot.owner for bot in bots}), "owner"))
    return step


class Sessions:
    """Each proven bot's one live session across the hosts of one store (``SignupFactory.sessions``): claimed in
    a thread as it signs up, released when its connection closes; what this host held before it started (killed?)
    released at once."""

    def __init__(self, db: str | Path, host: str, reactor: Any) -> None:
        self.db, self.host, self.clock = db, host, reactor
        self.run = in_threads(reactor)
        self._last: datetime.datetime | None = None
        self._use(lambda accounts: accounts.release_host(host))

    def _use(self, work: Callable[[Accounts], Any]) -> Any:
        accounts = Accounts.open(self.db)
        try:
            return work(accounts)
        finally:
            accounts.close()

    def claim(self, name: str) -> Deferred:
        """Fires with (None, its mark) once this host holds ``name``'s session, or with (the host that holds it,
        None); a store that cannot be reached now holds it for no one (the host's own rule, one session here, still
        holds). The mark, the claim's ``since``, goes to ``release``: a release ends its own claim, never a later one
        (each runs in a thread of its own, so a bot that comes back at once may be claimed before it is released)."""
        since = self._since()
        claimed = self.run(lambda: self._use(lambda accounts: accounts.claim_session(name, self.host, since)))
        return claimed.addCallbacks(lambda holder: (holder, since if holder is None else None), self._unreachable,
                                    errbackArgs=(name, since))

    def release(self, name: str, since: str | None) -> None:
        self.run(lambda: self._use(lambda accounts: accounts.release_session(name, self.host, since))).addErrback(
            self._unreachable, name)

    def _since(self) -> str:
        """Now, to the microsecond, and later than any claim's before it: each claim of this host its own mark."""
        now = datetime.datetime.fromtimestamp(self.clock.seconds(), datetime.timezone.utc)
        if self._last is not None and now <= self._last:
            now = self._last + datetime.timedelta(microseconds=1)
        self._last = now
        return now.isoformat(timespec="microseconds")

    def _unreachable(self, failure: Any, name: str, since: str | None = None) -> tuple[None, str | None]:
        log.warn("the store's sessions cannot be written now ({name}'s): {why}", name=name,
                 why=failure.getErrorMessage())
        return None, since


class RosterService(internet.TimerService):
    """Reads the accounts again every ``RELOAD`` seconds, in a thread, into the identity step; then ``reloaded()``."""

    def __init__(self, step: IdentityStep, db: str | Path, reactor: Any, every: float = RELOAD,
                 reloaded: Callable[[], None] = lambda: None) -> None:
        super().__init__(every, self.reload)  # TimerService's own ``step`` is the interval: ours is ``identity``
        self.clock = reactor
        self.identity, self.db, self.reactor = step, db, reactor
        self.reloaded = reloaded
        self._failing = False

    def reload(self) -> Deferred:
        read = in_threads(self.reactor)(lambda: read_accounts(self.db)).addCallbacks(self._read, self._failed)
        return read.addErrback(self._not_applied)  # and the timer reads on (a failure would stop it)

    def _read(self, bots: list[BotAccount]) -> None:
        self.identity.update(bots)
        self.reloaded()
        if self._failing:
            self._failing = False
            log.info("the accounts are read again: {bots}", bots=plural(len(bots), "bot"))

    def _not_applied(self, failure: Any) -> None:
        log.failure("the accounts were read, but applying them failed", failure)

    def _failed(self, failure: Any) -> None:
        if not self._failing:
            self._failing = True
            log.warn("cannot read the accounts now (the ones read last hold): {why}",
                     why=failure.getErrorMessage())
