"""``--accounts roster|closed``: a name belongs to its owner.

The identity step on its own (accounts in memory, a ``Clock``), then real hosts on loopback with real clients:
a proven bot plays under its public name, by its key or by a sign-up name that is its secret, and nothing else
ever shows the secret (the log, the store); a stranger who sends its name is a guest (roster) or refused
(closed); a banned bot, one outside its pinned prefixes, and a second session of one bot are refused.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred
from twisted.internet.task import Clock
from twisted.internet.threads import deferToThread
from twisted.trial import unittest

from evolution.bot_secrets import BotAccount, hash_secret, secret_tag
from evolution.net.client import ClientError, play_remote
from evolution.net.identity import CLOSED, OPEN, ROSTER, IdentityStep, split_key
from evolution.net.throttle import ProofThrottle
from evolution.store.accounts import Accounts
from evolution.store.results_store import ResultsStore
from tests.support import adversaries as bad
from tests.support.hosting import HonestSilly, log_lines, new_host, until
from tests.support.webhosting import SlowPlayer

ALICE_KEY, BOB_SECRET = "alice's 128-bit key, say", "QwErTyUiOpAs"


def account(name: str, secret: str, owner: str = "ann", **more) -> BotAccount:
    return BotAccount(name, owner, hash_secret(secret), secret_tag(secret), **more)


def identified(step: IdentityStep, sent: str, key: str | None = None, address: str = "192.0.2.1"):
    found = []
    step.identify(sent, key, address).addCallback(found.append)
    return found[0]


class IdentityStepTests(unittest.TestCase):
    def step(self, mode: str = ROSTER) -> IdentityStep:
        step = IdentityStep(mode, ProofThrottle(Clock(), capacity=3))
        step.update([account("alice", ALICE_KEY), account("bob", BOB_SECRET, "bea"),
                     account("carol", "carol's", banned=True), account("dave", "dave's", prefixes=("10.0.0.0/8",))])
        return step

    def test_the_key_form_gives_the_name_and_the_key(self):
        self.assertEqual(split_key(["sign-up", "alice", {"key": "k"}]), ("alice", "k"))
        self.assertEqual(split_key(["sign-up", "alice"]), (["sign-up", "alice"], None))
        self.assertEqual(split_key(["sign-up", "alice", {"key": 1}]), (["sign-up", "alice", {"key": 1}], None))

    def test_a_bot_proves_itself_by_its_key_or_by_its_secret_as_its_name(self):
        step = self.step()
        by_key = identified(step, "alice", ALICE_KEY)
        self.assertEqual((by_key.name, by_key.proven, by_key.owner), ("alice", True, "ann"))
        by_name = identified(step, BOB_SECRET)
        self.assertEqual((by_name.name, by_name.proven, by_name.owner), ("bob", True, "bea"))
        self.assertEqual(identified(step, BOB_SECRET).name, "bob")  # remembered: no second scrypt

    def test_anyone_else_is_a_guest_in_roster_mode_and_refused_in_closed_mode(self):
        step = self.step()
        self.assertEqual([identified(step, "alice").name, identified(step, "mallory").name], ["guest-1", "guest-2"])
        self.assertIn("does not prove alice", identified(step, "alice", "wrong").refused)
        closed = self.step(CLOSED)
        self.assertIn("only bots that prove", identified(closed, "alice").refused)
        self.assertEqual(identified(closed, BOB_SECRET).name, "bob")
        self.assertEqual(identified(self.step(OPEN), "alice").name, "alice")

    def test_banned_and_pinned_bots_are_refused(self):
        step = self.step()
        self.assertIn("carol is banned", identified(step, "carol", "carol's").refused)
        self.assertIn("may not connect from 192.0.2.1", identified(step, "dave", "dave's").refused)
        self.assertTrue(identified(step, "dave", "dave's", address="10.1.2.3").proven)
        self.assertTrue(identified(step, "dave", "dave's", address="::ffff:10.1.2.3").proven)  # a dual-stack port

    def test_no_refusal_names_what_was_sent(self):
        step = self.step(CLOSED)
        self.assertNotIn("Zyx", identified(step, "ZyxwvutsRqpo").refused)
        self.assertNotIn("Zyx", identified(step, "ZyxwvutsRqpo", "key").refused)


def add_accounts(folder: Path) -> dict[str, str]:
    """The store of a host in ``folder`` with owners ann (alice, a key) and bea (bob, 12 letters); their secrets."""
    folder.mkdir(exist_ok=True)
    accounts = Accounts.open(folder / "results.sqlite")
    try:
        accounts.add_owner("ann")
        accounts.add_owner("bea")
        return {"alice": accounts.add_bot("alice", "ann"), "bob": accounts.add_bot("bob", "bea", letters=True)}
    finally:
        accounts.close()


def sign_up_raw(port: int, message: object, before: bytes = b"") -> bytes:
    """Connect, send ``before`` (a PROXY header) and ``message``, read until the host answers or hangs up: what it
    said."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as connection:
        connection.sendall(before + json.dumps(message).encode() + b"\n")
        heard = b""
        while not heard.endswith(b"\n"):
            data = connection.recv(100)
            if not data:
                break
            heard += data
        return heard


class RosterHostTests(unittest.TestCase):
    timeout = 60

    async def test_proven_bots_play_under_their_public_names_and_a_stranger_is_a_guest(self):
        folder = Path(self.mktemp())
        secrets = add_accounts(folder)
        lines = log_lines(self)
        host = new_host(self, "--accounts", "roster", "--games", "1", "--players", "3-3", "--timeout", "3",
                        folder=folder)
        await host.ready()
        play = [
            play_remote(reactor, "127.0.0.1", host.port, "alice", HonestSilly(), retries=0, key=secrets["alice"]),
            play_remote(reactor, "127.0.0.1", host.port, secrets["bob"], HonestSilly(), retries=0),
            play_remote(reactor, "127.0.0.1", host.port, "alice", HonestSilly(), retries=0),  # the stranger
        ]
        clients = [ensureDeferred(client) for client in play]
        for client in clients:
            await client
        store = await host.stored()
        [game] = store.recent_games(10)
        self.assertEqual(sorted(seat.name for seat in game.players), ["alice", "bob", "guest-1"])
        log = "\n".join(lines)
        self.assertIn("signed up 'bob' from 127.0.0.1", log)
        for secret in secrets.values():
            self.assertNotIn(secret, log)
            self.assertFalse(any(secret.encode() in path.read_bytes() for path in folder.rglob("*") if path.is_file()))

    async def test_closed_refuses_strangers_banned_bots_and_a_second_session(self):
        folder = Path(self.mktemp())
        secrets = add_accounts(folder)
        accounts = Accounts.open(folder / "results.sqlite")
        accounts.ban("bea")
        accounts.close()
        lines = log_lines(self)
        host = new_host(self, "--accounts", "closed", "--players", "3-3", "--timeout", "3", folder=folder)
        await host.ready()
        self.assertEqual(await deferToThread(sign_up_raw, host.port, "alice"), b"")  # the reactor runs meanwhile
        self.assertEqual(await deferToThread(sign_up_raw, host.port, secrets["bob"]), b"")
        first = socket.create_connection(("127.0.0.1", host.port), timeout=30)
        self.addCleanup(first.close)
        first.sendall(json.dumps(["sign-up", "alice", {"key": secrets["alice"]}]).encode() + b"\n")
        self.assertEqual(await deferToThread(first.recv, 100), b'"ok"\n')
        await until(lambda: len(host.factory.lobby) == 1)
        with self.assertRaises(ClientError):
            await ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, "alice", HonestSilly(), retries=0,
                                             key=secrets["alice"]))
        refusals = [line.split(" refused: ")[1] for line in lines if " refused: " in line]
        self.assertEqual(refusals, ["this host admits only bots that prove an account (--accounts closed)",
                                    "bob is banned (its own ban or its owner's)",
                                    "alice is connected already: one session per bot"])
        self.assertEqual([connection.name for connection in host.factory.lobby], ["alice"])


LADDER = ("--ladder", "--accounts", "roster", "--players", "3-3", "--timeout", "3", "--signup-window", "0.05",
          "--signup-timeout", "5")  # honest bots are never too slow, even on a busy machine


def ladder_accounts(folder: Path, bots: dict[str, str]) -> dict[str, str]:
    """Accounts for ``bots`` (bot: owner) in the store of a host in ``folder``; their keys."""
    folder.mkdir(exist_ok=True)
    accounts = Accounts.open(folder / "results.sqlite")
    try:
        for owner in sorted(set(bots.values())):
            accounts.add_owner(owner)
        return {bot: accounts.add_bot(bot, owner) for bot, owner in bots.items()}
    finally:
        accounts.close()


class LadderTheftTests(unittest.TestCase):
    """Issue 36's rating theft: a stranger signs up as a ranked bot and never answers, to ruin its rating."""

    timeout = 180

    async def ladder(self, bots: dict[str, str], *extra: str):
        folder = Path(self.mktemp())
        keys = ladder_accounts(folder, bots)
        host = new_host(self, *LADDER, *extra, folder=folder)
        await host.ready()
        return host, keys

    def bot(self, host, name: str, key: str):
        return ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, name, SlowPlayer(0.01), retries=0,
                                          key=key))

    async def finish(self, host, clients) -> ResultsStore:
        await host.stop()
        for client in clients:
            await client.addErrback(lambda failure: None)
        return await host.stored()

    async def test_a_stranger_with_the_name_of_a_bot_offline_or_online_is_an_unrated_guest(self):
        host, keys = await self.ladder({"alice": "ann", "bob": "bea", "carol": "cat"})
        offline = ensureDeferred(bad.adversary(host.port, "alice", "choose", bad.silent))  # alice is away
        clients = [self.bot(host, name, keys[name]) for name in ("bob", "carol")]
        await until(lambda: host.ladder.standings.standing("bob").games >= 1)
        await offline.addErrback(lambda failure: None)  # removed: it never answered
        clients.append(self.bot(host, "alice", keys["alice"]))
        await until(lambda: host.ladder.standings.standing("alice").games >= 1)
        online = ensureDeferred(bad.adversary(host.port, "alice", "choose", bad.silent))  # alice is here
        await until(lambda: host.ladder.standings.standing("alice").games >= 4)
        store = await self.finish(host, clients + [online])
        ladder = {standing.name: standing for _, standing in store.ladder()}
        self.assertEqual(sorted(ladder), ["alice", "bob", "carol"])
        self.assertEqual(ladder["alice"].removals, 0)
        guests = {seat.name for game in store.games() for seat in game.players if seat.name.startswith("guest-")}
        self.assertEqual(guests, {"guest-1", "guest-2"})
        removed = {seat.name for game in store.games() for seat in game.players if seat.removed_reason}
        self.assertEqual(removed, guests)
        for game in store.games():
            for seat in game.players:
                self.assertEqual(seat.rating_mu is None, seat.name in guests or not game.finished)

    async def test_two_bots_of_one_owner_never_sit_at_one_table(self):
        # 10 s an answer: bob or carol removed by a busy machine's stall would leave no table without both of ann's
        host, keys = await self.ladder({"alice": "ann", "dan": "ann", "bob": "bea", "carol": "cat"}, "--timeout", "10")
        clients = [self.bot(host, name, key) for name, key in keys.items()]
        # both of ann's play in turn (the first three to wait may hold both: they are not the table formed)
        await until(lambda: min(host.ladder.standings.standing(name).games for name in keys) >= 2)
        store = await self.finish(host, clients)
        tables = [{seat.name for seat in game.players} for game in store.games()]
        self.assertFalse([table for table in tables if {"alice", "dan"} <= table])


class TournamentTablesTests(unittest.TestCase):
    """A tournament in roster mode seats two bots of one owner apart (--owners-may-meet lets them meet)."""

    timeout = 120

    async def tables(self, *options: str) -> list[set[str]]:
        folder = Path(self.mktemp())
        keys = ladder_accounts(folder, {"red1": "reds", "red2": "reds", "b": "bea", "c": "cat", "d": "dan", "e": "eve"})
        host = new_host(self, "--tournament", "knockout", "--accounts", "roster", "--players", "3-5", "--max-signups",
                        "6", "--min-signups", "6", "--timeout", "10", *options, folder=folder)
        await host.ready()
        clients = []
        for name, key in keys.items():  # in this order: the knockout deals its first round by sign-up order
            clients.append(ensureDeferred(play_remote(reactor, "127.0.0.1", host.port, name, HonestSilly(),
                                                      retries=0, key=key)))
            await until(lambda: len(host.factory.lobby) == len(clients) or host.tournaments.current is not None)
        await host.tournaments.when_over(1)
        for client in clients:
            await client.addErrback(lambda failure: None)
        store = await host.stored()
        [tournament] = store.tournaments()
        names = {entrant.entrant: entrant.name for entrant in tournament.entrants}
        return [{names[number] for number in table.seats} for table in store.tables(tournament.id)
                if table.round == 1]

    async def test_two_bots_of_one_owner_are_dealt_apart_unless_they_may_meet(self):
        apart = await self.tables()
        self.assertEqual(len(apart), 2)
        self.assertFalse([table for table in apart if {"red1", "red2"} <= table], apart)
        together = await self.tables("--owners-may-meet")
        self.assertTrue([table for table in together if {"red1", "red2"} <= table], together)


class CourseClientTests(unittest.TestCase):
    """A Fish course client, unchanged (the reference client's stand-in), signs up with the 12 letters issued to it."""

    timeout = 60

    async def test_the_secret_is_the_sign_up_name_and_only_the_public_name_shows(self):
        from tests.support.fish_bots import StandIn, connect

        folder = Path(self.mktemp())
        folder.mkdir()
        accounts = Accounts.open(folder / "results.sqlite")
        accounts.add_owner("ann")
        accounts.add_owner("bea")
        secrets = {name: accounts.add_bot(name, owner, letters=True) for name, owner in (("Red", "ann"),
                                                                                        ("White", "bea"))}
        accounts.close()
        lines = log_lines(self)
        host = new_host(self, "--game", "fish", "--timeout", "2", "--first-move-timeout", "2", "--start-timeout",
                        "2", "--signup-timeout", "2", "--players", "2-2", "--games", "1", "--seed", "1",
                        "--accounts", "closed", folder=folder)
        await host.ready()
        clients = [await connect(host.port, lambda secret=secret: StandIn(secret)) for secret in secrets.values()]
        [record] = await host.runner.when_games_over(1)
        for client in clients:
            await client.done
        self.assertEqual(sorted(seat.name for seat in record.players), ["Red", "White"])
        self.assertTrue(all(client.received[0] == ["start", [True]] for client in clients))
        store = await host.stored()
        self.assertEqual(sorted(seat.name for seat in store.recent_games(1)[0].players), ["Red", "White"])
        log = "\n".join(lines)
        for secret in secrets.values():
            self.assertNotIn(secret, log)
            self.assertFalse(any(secret.encode() in path.read_bytes() for path in folder.rglob("*") if path.is_file()))


class TwoHostsTests(unittest.TestCase):
    """Two hosts on one PostgreSQL store: a bot connected to one is refused by the other, until it leaves."""

    timeout = 60

    async def test_a_second_live_session_of_one_bot_is_refused_on_another_host(self):
        from tests.support import postgres

        url = postgres.database_url("two_hosts_one_session")
        accounts = Accounts.open(url)
        accounts.add_owner("ann")
        key = accounts.add_bot("alice", "ann")
        accounts.close()
        lines = log_lines(self)
        folder = Path(self.mktemp())
        folder.mkdir()
        lab1, lab2 = (new_host(self, "--accounts", "closed", "--players", "3-3", "--host-name", name, db=url, host=name,
                               journal=str(folder / f"{name}.pending"), folder=folder / name)  # it holds its name
                      for name in ("lab1", "lab2"))
        await lab1.ready()
        await lab2.ready()
        first = await bad.raw_connection(lab1.port, json.dumps(["sign-up", "alice", {"key": key}]).encode() + b"\n")
        self.assertEqual(await first.first_line, b'"ok"\n')
        with self.assertRaises(ClientError):
            await ensureDeferred(play_remote(reactor, "127.0.0.1", lab2.port, "alice", HonestSilly(), retries=0,
                                             key=key))
        self.assertIn("alice is connected to the host lab1 already: one session per bot", "\n".join(lines))
        first.transport.loseConnection()
        await until(lambda: not lab1.factory.lobby)

        def released() -> bool:  # lab1 lets the session go in the store (in a thread: on a busy machine, later)
            store = Accounts.open(url)
            try:
                return store.connection.execute("SELECT 1 FROM bot_sessions WHERE name = 'alice'").fetchone() is None
            finally:
                store.close()

        await until(released, interval=0.1)
        again = await bad.raw_connection(lab2.port, json.dumps(["sign-up", "alice", {"key": key}]).encode() + b"\n")
        self.assertEqual(await again.first_line, b'"ok"\n')
        again.transport.loseConnection()


class ResumedSeatTests(unittest.TestCase):
    """Issue 36's seat theft: after a kill, a stranger signs up as an entrant that has not come back yet."""

    timeout = 240

    async def test_a_stranger_cannot_take_an_absent_entrants_seat_in_a_resumed_tournament(self):
        from evolution.testing import HostProcess, free_port
        from tests.host.modes.test_resumption import Hold, Holder

        folder = Path(self.mktemp())
        keys = ladder_accounts(folder, {"bot01": "ann", "bot02": "bea", "bot03": "cat"})
        port = free_port()
        common = ("--signup-window", "20", "--signup-periods", "1")  # the resumed host keeps the rest (stored)

        def host(log: str, *options: str) -> HostProcess:
            started = HostProcess(port, folder / "results.sqlite", folder / log, *common, *options, own_group=True)
            self.addCleanup(started.stop)
            return started

        first = host("first.log", "--tournament", "knockout", "--players", "3-5", "--max-signups", "3", "--accounts",
                     "closed", "--timeout", "10")
        await deferToThread(first.wait_until_listening, 60)
        hold = Hold()
        hold.target = {"bot01"}  # holds its first answer: the game is under way when the host is killed
        clients = [ensureDeferred(play_remote(reactor, "127.0.0.1", port, name, Holder(name, hold), retries=0,
                                              reconnect=300, reconnect_delay=0.2, key=key))
                   for name, key in keys.items()]
        self.addCleanup(lambda: [client.addErrback(lambda _: None).cancel() for client in clients])
        await until(lambda: hold.held, interval=0.05)

        def begun() -> bool:  # the store holds the tournament (its store process writes it a moment later)
            store = ResultsStore.open(folder / "results.sqlite")
            try:
                return bool(store.tournaments())
            finally:
                store.close()

        await until(begun, interval=0.1)
        await deferToThread(first.kill_group)
        second = host("second.log", "--resume")
        await deferToThread(second.wait_until_listening, 60)
        stolen = [await deferToThread(sign_up_raw, port, "bot02") for _ in range(3)]  # before and after it is back
        self.assertEqual(await deferToThread(second.wait, 180), 0)
        self.assertEqual(stolen, [b"", b"", b""])  # hung up on, each time
        log = (folder / "second.log").read_text()
        self.assertEqual(log.count("refused: this host admits only bots that prove an account"), 3)
        store = ResultsStore.open(folder / "results.sqlite")
        try:
            [tournament] = store.tournaments()
        finally:
            store.close()
        self.assertEqual(tournament.status, "finished")
        self.assertEqual(sorted((e.name, e.failure) for e in tournament.entrants),
                         [("bot01", None), ("bot02", None), ("bot03", None)])
