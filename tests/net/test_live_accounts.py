"""``--accounts``: what a host does when the accounts change under bots already connected, and with sign-ups at once.

A ban or a new secret read while a bot is connected hangs it up (at once if it waits, once its game is over if it
plays: the game goes on); sign-ups of one bot, or of one owner's bots, that arrive together get no more than one
session each and no more than --max-per-owner between them; a sign-up the game's name check refuses is logged
without what it sent (it may be a secret); a sign-up whose identity cannot be decided is hung up on with a line.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from twisted.internet import reactor
from twisted.internet.defer import Deferred, ensureDeferred
from twisted.internet.task import Clock
from twisted.trial import unittest

from evolution.host.roster import RosterService
from evolution.net.client import play_remote
from evolution.net.identity import ROSTER, IdentityStep
from evolution.net.throttle import ProofThrottle
from evolution.store.accounts import Accounts
from tests.net.test_identity import ALICE_KEY, LADDER, account, ladder_accounts
from tests.support import adversaries as bad
from tests.support.hosting import log_lines, new_host, until
from tests.support.webhosting import SlowPlayer


def key_sign_up(name: str, key: str) -> bytes:
    return json.dumps(["sign-up", name, {"key": key}]).encode() + b"\n"


def change(folder: Path, write) -> object:
    """``write(accounts)`` on the store of a host in ``folder``, as ``evolution-accounts`` does; what it returns."""
    accounts = Accounts.open(folder / "results.sqlite")
    try:
        return write(accounts)
    finally:
        accounts.close()


def damage(accounts: Accounts) -> None:
    with accounts.connection:
        accounts.connection.execute("UPDATE bots SET secret_hash = 'scrypt$999999999999999999999$8$1$00$00'")


def refusals(lines: list[str]) -> list[str]:
    return [line.split(" refused: ", 1)[1] for line in lines if " refused: " in line]


class ChecksAgainstTheAccountsNowTests(unittest.TestCase):
    """The identity step judges a bot as the accounts stand once its secret is checked, and again later."""

    def step(self):
        checks: list[tuple] = []

        def later(check):  # the thread pool, its checks run when the test says
            done = Deferred()
            checks.append((check, done))
            return done

        step = IdentityStep(ROSTER, ProofThrottle(Clock(), capacity=3), later)
        alice = account("alice", ALICE_KEY)
        step.update([alice])
        return step, alice, checks

    def test_a_ban_or_a_new_secret_read_during_the_check_holds(self):
        for changed, refused in (({"banned": True}, "alice is banned"),
                                 ({"secret_hash": account("alice", "new").secret_hash}, "does not prove alice")):
            step, alice, checks = self.step()
            found = []
            step.identify("alice", ALICE_KEY, "192.0.2.1").addCallback(found.append)
            step.update([replace(alice, **changed)])
            check, done = checks.pop()
            done.callback(check())
            self.assertIn(refused, found[0].refused)

    def test_a_proof_is_void_once_its_bot_is_banned_pinned_elsewhere_or_given_a_new_secret(self):
        step, alice, checks = self.step()
        step.identify("alice", ALICE_KEY, "192.0.2.1")
        check, done = checks.pop()
        proven = []
        done.addCallback(proven.append)
        done.callback(check())
        [identity] = proven
        self.assertIsNone(step.refusal(identity, "192.0.2.1"))
        for changed, refused in (({"banned": True}, "alice is banned"),
                                 ({"prefixes": ("10.0.0.0/8",)}, "may not connect from 192.0.2.1"),
                                 ({"secret_hash": account("alice", "new").secret_hash}, "alice has a new secret")):
            step.update([replace(alice, **changed)])
            self.assertIn(refused, step.refusal(identity, "192.0.2.1"))


class ChangedAccountsTests(unittest.TestCase):
    """A ladder host whose accounts are read again (as every 10 s) while its bots are connected."""

    timeout = 180

    async def ladder(self, bots: dict[str, str]):
        folder = Path(self.mktemp())
        keys = ladder_accounts(folder, bots)
        host = new_host(self, *LADDER, folder=folder)
        roster = RosterService(host.factory.identity, folder / "results.sqlite", reactor,
                               reloaded=host.factory.turn_away_unproven)  # as twistd's host has it
        await host.ready()
        return folder, host, keys, roster

    async def test_a_waiting_bot_is_hung_up_on_once_its_ban_or_its_new_secret_is_read(self):
        folder, host, keys, roster = await self.ladder({"alice": "ann", "bob": "bea"})
        lines = log_lines(self)
        alice = await bad.raw_connection(host.port, key_sign_up("alice", keys["alice"]))
        bob = await bad.raw_connection(host.port, key_sign_up("bob", keys["bob"]))
        self.assertEqual([await alice.first_line, await bob.first_line], [b'"ok"\n', b'"ok"\n'])
        await until(lambda: len(host.factory.lobby) == 2)  # too few for a game: they wait
        change(folder, lambda accounts: accounts.ban("alice"))
        await roster.reload()
        self.assertEqual(await alice.closed, b'"ok"\n')
        self.assertEqual([connection.name for connection in host.factory.lobby], ["bob"])
        self.assertIn("'alice' left the lobby: alice is banned (its own ban or its owner's)", "\n".join(lines))

        key = change(folder, lambda accounts: accounts.rotate("bob"))  # bob's old secret leaked: an impostor has it
        await roster.reload()
        await bob.closed
        again = await bad.raw_connection(host.port, key_sign_up("bob", key))
        self.assertEqual(await again.first_line, b'"ok"\n')  # not "connected already": the impostor is gone
        self.assertIn("'bob' left the lobby: bob has a new secret", "\n".join(lines))
        again.transport.loseConnection()

    async def test_a_bot_banned_while_it_plays_finishes_its_game_and_is_hung_up_on_after_it(self):
        folder, host, keys, roster = await self.ladder({"alice": "ann", "bob": "bea", "carol": "cat"})
        clients = [ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, name, SlowPlayer(0.02), retries=0,
                                              key=key)) for name, key in keys.items()]
        await until(lambda: "alice" in host.ladder.policy.playing.values())
        change(folder, lambda accounts: accounts.ban("alice"))
        await roster.reload()
        playing = "alice" in host.ladder.policy.playing.values()  # its game goes on (on a busy machine: the next)
        played = host.ladder.standings.standing("alice").games + playing
        await clients[0].addErrback(lambda failure: None)  # the host hung up on alice
        await host.stop()
        for client in clients[1:]:
            await client.addErrback(lambda failure: None)
        store = await host.stored()
        games = [game for game in store.games() if "alice" in {seat.name for seat in game.players}]
        self.assertEqual(len(games), played)  # none begun once the ban was read
        for game in games:
            self.assertTrue(game.finished)
            self.assertEqual([seat.removed_reason for seat in game.players], [None, None, None])


class SignUpsAtOnceTests(unittest.TestCase):
    """Sign-ups that arrive together: each is counted from the moment its proof is known."""

    timeout = 120

    async def test_one_session_per_bot_and_max_per_owner_hold_for_sign_ups_at_once(self):
        folder = Path(self.mktemp())
        keys = ladder_accounts(folder, {"ann1": "ann", "ann2": "ann", "ann3": "ann", "ann4": "ann"})
        lines = log_lines(self)
        host = new_host(self, "--accounts", "closed", "--max-per-owner", "2", "--players", "8-8", folder=folder)
        await host.ready()
        for name, key in keys.items():  # each proven once: its secret remembered, as a bot that comes back
            first = await bad.raw_connection(host.port, key_sign_up(name, key))
            self.assertEqual(await first.first_line, b'"ok"\n')
            first.transport.loseConnection()
            await until(lambda: host.factory.open_connections == 0)
        tries = [("ann1", keys["ann1"]), *keys.items()]  # ann1 twice
        clients = [await bad.raw_connection(host.port) for _ in tries]
        await until(lambda: host.factory.open_connections == len(tries))
        for client, (name, key) in zip(clients, tries):  # in one turn of the reactor
            client.transport.write(key_sign_up(name, key))
        heard = [await client.first_line for client in clients]
        self.assertEqual(heard.count(b'"ok"\n'), 2, heard)
        await until(lambda: host.factory.open_connections == 2)
        self.assertEqual(len({connection.name for connection in host.factory.lobby}), 2)
        refused = refusals(lines)  # which of them come first is the network's choice
        self.assertEqual(len(refused), 3, refused)
        self.assertLessEqual(set(refused), {"ann1 is connected already: one session per bot",
                                            "ann has 2 bots connected, as many as an owner may (--max-per-owner)"})
        for client in clients:
            client.transport.loseConnection()


class RefusedWithoutTheSecretTests(unittest.TestCase):
    timeout = 60

    async def test_a_fish_host_logs_no_secret_of_a_sign_up_it_refuses(self):
        folder = Path(self.mktemp())
        key = ladder_accounts(folder, {"Red": "ann"})["Red"]  # a 22-character key: too long for a Fish name
        letters = change(folder, lambda accounts: accounts.add_bot("White", "ann", letters=True))
        lines = log_lines(self)
        host = new_host(self, "--game", "fish", "--accounts", "closed", "--players", "2-2", "--signup-timeout", "5",
                        folder=folder)
        await host.ready()
        for sent in (json.dumps(key).encode() + b"\n",  # the key as the name
                     json.dumps(["sign-up", "Red", {"key": key, "note": 1}]).encode() + b"\n",  # a field too many
                     letters.encode() + b"\n"):  # the 12 letters without quotes: not JSON
            self.assertEqual(await bad.raw_client(host.port, sent), b"")
        self.assertEqual(refusals(lines), [
            "the sign-up gives no name this game takes (a string of 22 characters; not shown, as it may hold a secret)",
            "the sign-up gives no name this game takes (an array; not shown, as it may hold a secret)",
            "malformed sign-up: not JSON (what it sent is not shown)"])
        self.assertFalse([line for line in lines if key in line or letters in line or repr(letters[0]) in line])


class UndecidedSignUpTests(unittest.TestCase):
    timeout = 60

    async def test_a_bot_proven_in_a_thread_waits_on_past_the_sign_up_time_limit(self):
        folder = Path(self.mktemp())
        keys = ladder_accounts(folder, {"alice": "ann"})
        lines = log_lines(self)
        host = new_host(self, "--accounts", "closed", "--players", "3-3", "--signup-timeout", "1", folder=folder)
        await host.ready()
        alice = await bad.raw_connection(host.port, key_sign_up("alice", keys["alice"]))  # its secret: scrypt, a thread
        self.assertEqual(await alice.first_line, b'"ok"\n')
        silent = await bad.raw_connection(host.port)  # hung up on 1 s from now: alice has waited longer by then
        self.assertEqual(await silent.closed, b"")
        self.assertFalse(alice.closed.called)
        self.assertEqual(refusals(lines), ["no sign-up message within 1 s"])
        alice.transport.loseConnection()

    async def test_a_sign_up_whose_identity_cannot_be_decided_is_hung_up_on_with_one_line(self):
        folder = Path(self.mktemp())
        keys = ladder_accounts(folder, {"alice": "ann"})
        change(folder, damage)  # its hash damaged by hand: scrypt cannot run with it
        lines = log_lines(self)
        host = new_host(self, "--accounts", "closed", "--players", "3-3", "--signup-timeout", "5", folder=folder)
        await host.ready()
        self.assertEqual(await bad.raw_client(host.port, key_sign_up("alice", keys["alice"])), b"")
        undecided = [line for line in lines if "could not be decided" in line]
        self.assertEqual(len(undecided), 1, lines)
        self.assertIn("hung up on", undecided[0])
        await until(lambda: host.factory.open_connections == 0)
