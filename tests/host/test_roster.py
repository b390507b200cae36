"""A host's accounts: read at start (a store that cannot be read stops the start in one line), then again in a
thread, so that a ban or a rotated secret holds without a restart."""

from __future__ import annotations

from pathlib import Path

from twisted.internet import reactor
from twisted.trial import unittest

from evolution.host.options import StartupError
from evolution.host.roster import RosterService, identity_step
from evolution.store.accounts import Accounts
from tests.support.hosting import until


class RosterTests(unittest.TestCase):
    async def test_a_ban_holds_at_the_next_reading(self):
        db = Path(self.mktemp())
        db.parent.mkdir(parents=True, exist_ok=True)
        accounts = Accounts.open(db)
        accounts.add_owner("ann")
        accounts.add_bot("alice", "ann")
        step = identity_step("roster", db, reactor)
        self.assertFalse(step.bots["alice"].banned)
        accounts.ban("alice")
        accounts.close()
        service = RosterService(step, db, reactor, every=0.05)
        service.startService()  # as twistd starts it: reads at once, then every 0.05 s here
        self.addCleanup(service.stopService)
        await until(lambda: step.bots["alice"].banned)

    def test_a_store_that_cannot_be_read_is_one_line(self):
        with self.assertRaises(StartupError) as raised:
            identity_step("closed", Path(self.mktemp()) / "missing" / "r.sqlite", reactor)
        self.assertIn("--accounts closed cannot read the accounts", str(raised.exception))
