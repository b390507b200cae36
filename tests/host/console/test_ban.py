"""evolution-admin ban on a real host with accounts: the bot (or its whole owner) banned in the store, hung up on at
once, refused when it comes back, logged with who asked from where; unban lets it in again."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evolution.store.accounts import Accounts
from evolution.testing import wait_for_clients
from tests.host.console.support import ConsoleHost
from tests.host.console.test_operator_port import scrape, until

pytestmark = pytest.mark.slow
LADDER = ("evolution_games_finished_total", (("game", "evolution"), ("kind", "ladder")))


def accounts(db: Path) -> dict[str, str]:
    """Owners ann (bots a1, a2), bo (b1), cy (c1), dee (d1); each bot's secret."""
    store = Accounts.open(db)
    try:
        secrets = {}
        for owner, bots in (("ann", ["a1", "a2"]), ("bo", ["b1"]), ("cy", ["c1"]), ("dee", ["d1"])):
            store.add_owner(owner)
            secrets |= {bot: store.add_bot(bot, owner) for bot in bots}
        return secrets
    finally:
        store.close()


def bot(port: int, name: str, secret: str, think: float = 0.01) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "evolution.cli.evolution_client", "--port", str(port), "--name",
                             name, "--key", secret, "--quiet", "--strategy", "silly", "--think", str(think)],
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def connected(host: ConsoleHost) -> set[str]:
    """The bots ``evolution-admin bots`` lists, waiting or playing."""
    lines = host.admin("bots").stdout.splitlines()[1:]
    words = " ".join(line.partition(": ")[2] for line in lines).replace(",", " ").split()
    return {word for word in words if not word.startswith("(")}  # not the addresses


def test_a_banned_bot_and_a_banned_owners_bots_are_hung_up_on_at_once_and_refused_after(tmp_path):
    secrets = accounts(tmp_path / "r.sqlite")
    host = ConsoleHost(tmp_path, "--ladder", "--players", "3-3", "--accounts", "roster", "--timeout", "10")
    clients = {name: bot(host.host.port, name, secrets[name]) for name in ("a1", "a2", "b1", "c1", "d1")}
    try:
        for name in clients:  # each bot in the ladder (a bot process still starting on a busy machine is not)
            host.wait_for_log(f"signed up {name!r}")
        until(lambda: scrape(host)[LADDER] >= 2)
        banned = host.admin("ban", "c1", "--reason", "it reads the others' memory")
        assert banned.returncode == 0, banned.stderr
        assert banned.stdout == ("bot 'c1' is banned by the test from 127.0.0.1: it reads the others' memory; "
                                 "'c1' withdrawn from the ladder\n")
        until(lambda: clients["c1"].poll() is not None, 30)  # at once, waiting or playing
        host.wait_for_log("bot 'c1' is banned by the test from 127.0.0.1: it reads the others' memory")
        again = bot(host.host.port, "c1", secrets["c1"])
        wait_for_clients([again], 60)
        host.wait_for_log("refused: c1 is banned")

        owner = host.admin("ban", "ann", "--owner")  # the owner, and so a1 and a2
        assert owner.returncode == 0, owner.stderr
        assert owner.stdout.startswith("owner 'ann' is banned by the test from 127.0.0.1: no reason given; ")
        assert "'a1' withdrawn from the ladder" in owner.stdout and "'a2' withdrawn from the ladder" in owner.stdout
        until(lambda: clients["a1"].poll() is not None and clients["a2"].poll() is not None, 30)
        # Hung up on at once (the clients ended); a bot removed from a game in a worker leaves the host's list of
        # connected bots when the worker reports that game's end.
        until(lambda: not {"a1", "a2", "c1"} & connected(host), 30)

        unbanned = host.admin("unban", "c1")
        assert unbanned.stdout == "bot 'c1' is unbanned by the test from 127.0.0.1: it may sign up again\n"
        back = bot(host.host.port, "c1", secrets["c1"])
        clients["c1 again"] = back
        until(lambda: "c1" in connected(host), 30)
        missing = host.admin("ban", "nobody")
        assert missing.returncode == 1 and missing.stderr == "evolution-admin: ban: there is no bot 'nobody'\n"
    finally:
        host.stop()
        wait_for_clients(list(clients.values()), 60)
    store = Accounts.open(tmp_path / "r.sqlite")
    try:
        assert {bot.name: bot.banned for bot in store.bots()} == {
            "a1": True, "a2": True, "b1": False, "c1": False, "d1": False}
    finally:
        store.close()


def banned(db: Path) -> dict[str, bool]:
    """Each bot, and whether it is banned (its own ban or its owner's)."""
    store = Accounts.open(db)
    try:
        return {bot.name: bot.banned for bot in store.bots()}
    finally:
        store.close()


def test_ban_owner_bans_the_owner_of_that_name_never_the_owner_of_a_bot_of_that_name(tmp_path):
    store = Accounts.open(tmp_path / "r.sqlite")
    try:
        for owner, bot_name in (("ann", "bob"), ("bob", "b2")):  # an owner bob, and a bot bob of ann
            store.add_owner(owner)
            store.add_bot(bot_name, owner)
    finally:
        store.close()
    host = ConsoleHost(tmp_path, "--accounts", "roster", "--workers", "0")
    try:
        done = host.admin("ban", "bob", "--owner", "--reason", "copied")
        assert (done.returncode, done.stdout) == (0, "owner 'bob' is banned by the test from 127.0.0.1: copied; no bot "
                                                     "of it is connected here\n"), done.stderr
        assert banned(tmp_path / "r.sqlite") == {"b2": True, "bob": False}  # ann's bot bob, and ann, untouched
        done = host.admin("ban", "b2", "--owner")
        assert (done.returncode, done.stderr) == (1, "evolution-admin: ban: there is no owner 'b2' ('b2' is a bot, "
                                                     "of the owner 'bob')\n")
        done = host.admin("ban", "ann")
        assert (done.returncode, done.stderr) == (1, "evolution-admin: ban: there is no bot 'ann' ('ann' is an owner: "
                                                     "give --owner)\n")
        done = host.admin("unban", "bob", "--owner")
        assert done.stdout == "owner 'bob' is unbanned by the test from 127.0.0.1: it may sign up again\n"
        assert banned(tmp_path / "r.sqlite") == {"b2": False, "bob": False}
    finally:
        host.stop()


def test_a_banned_entrant_is_withdrawn_from_the_running_tournament_with_the_reason(tmp_path):
    secrets = accounts(tmp_path / "r.sqlite")
    host = ConsoleHost(tmp_path, "--tournament", "swiss", "--rounds", "3", "--players", "3-5", "--max-signups", "4",
                       "--timeout", "10", "--accounts", "closed")
    clients = [bot(host.host.port, name, secrets[name]) for name in ("a1", "b1", "c1", "d1")]
    try:
        until(lambda: scrape(host)[("evolution_games_running", ())] == 1)
        banned = host.admin("ban", "d1", "--reason", "cheating")
        assert banned.returncode == 0, banned.stderr
        assert banned.stdout.endswith("cheating; 'd1' withdrawn from tournament 1\n")
        assert host.host.wait(180) == 0  # the tournament goes on to its end without d1
    finally:
        host.stop()
        wait_for_clients(clients, 60)
    listed = subprocess.run([sys.executable, "-m", "evolution.cli.evolution_results", "--db",
                             str(tmp_path / "r.sqlite"), "--tournaments", "--json"],
                            capture_output=True, text=True, check=True)
    [tournament] = json.loads(listed.stdout)
    assert tournament["status"] == "finished"
    assert {failure["name"]: failure["reason"] for failure in tournament["failures"]} == {
        "d1": "withdrawn by the organiser: banned: cheating"}


def test_a_banned_bot_playing_in_a_worker_is_removed_from_its_game_at_once_with_the_reason(tmp_path):
    secrets = accounts(tmp_path / "r.sqlite")
    host = ConsoleHost(tmp_path, "--ladder", "--players", "3-3", "--accounts", "roster", "--timeout", "30",
                       "--workers", "1")
    clients = [bot(host.host.port, name, secrets[name]) for name in ("a1", "b1")]
    clients.append(bot(host.host.port, "c1", secrets["c1"], think=2.0))  # its game lasts a minute or more
    try:
        until(lambda: any("c1" in line for line in host.admin("bots").stdout.splitlines() if line.startswith("game")))
        banned = host.admin("ban", "c1", "--reason", "cheating")
        assert banned.returncode == 0 and banned.stdout.endswith("'c1' withdrawn from the ladder\n"), banned.stdout
        host.wait_for_log("banned by the organiser: cheating", 20)  # the worker removed it, long before its game's end
        until(lambda: clients[2].poll() is not None, 20)
    finally:
        host.stop()
        wait_for_clients(clients, 60)
