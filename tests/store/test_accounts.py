"""Bot accounts in the store (SQLite and PostgreSQL): owners, bots, secrets kept only hashed, bans, prefixes."""

from __future__ import annotations

import time

import pytest

from evolution.bot_secrets import secret_matches, secret_tag
from evolution.store.accounts import AccountError, Accounts


@pytest.fixture
def accounts(db):
    opened = Accounts.open(db)
    yield opened
    opened.close()


def test_owners_and_their_bots(accounts):
    accounts.add_owner("ann", "Ann Smith", "ann@example.org")
    secret = accounts.add_bot("alice", "ann")
    accounts.add_bot("alfred", "ann", letters=True, prefixes=["10.1.0.0/16"])
    [owner] = accounts.owners()
    assert (owner.name, owner.display_name, owner.contact, owner.bots) == (
        "ann", "Ann Smith", "ann@example.org", ("alfred", "alice"))
    alfred, alice = accounts.bots()
    assert alice.name == "alice" and alice.owner == "ann" and alice.owner_display == "Ann Smith"
    assert secret_matches(secret, alice.secret_hash) and alice.secret_tag == secret_tag(secret)
    assert alfred.prefixes == ("10.1.0.0/16",) and not alfred.banned


def test_the_secret_is_never_stored_in_clear(db, accounts):
    accounts.add_owner("ann")
    secret = accounts.add_bot("alice", "ann")
    rows = accounts.connection.execute("SELECT * FROM bots").fetchall() + accounts.connection.execute(
        "SELECT * FROM owners").fetchall()
    assert secret not in repr(rows)


def test_rotating_a_secret_retires_the_old_one(accounts):
    accounts.add_owner("ann")
    old = accounts.add_bot("alice", "ann")
    new = accounts.rotate("alice")
    [alice] = accounts.bots()
    assert secret_matches(new, alice.secret_hash) and not secret_matches(old, alice.secret_hash)


def test_bans_of_a_bot_and_of_an_owner(accounts):
    accounts.add_owner("ann")
    accounts.add_owner("bea")
    accounts.add_bot("alice", "ann")
    accounts.add_bot("bob", "bea")
    assert accounts.ban("alice") == "bot" and accounts.ban("bea") == "owner"
    assert [bot.banned for bot in accounts.bots()] == [True, True]
    accounts.ban("alice", banned=False)
    accounts.ban("bea", banned=False)
    assert [bot.banned for bot in accounts.bots()] == [False, False]


def test_a_ban_of_one_kind_is_of_that_kind_when_an_owner_and_a_bot_share_a_name(accounts):
    accounts.add_owner("sam")
    accounts.add_bot("sam", "sam")
    accounts.add_bot("sam2", "sam")
    assert accounts.ban("sam", kind="owner") == "owner"  # the console's ban --owner
    assert [owner.banned for owner in accounts.owners()] == [True]
    accounts.ban("sam", banned=False, kind="owner")
    assert accounts.ban("sam", kind="bot") == "bot"
    assert [(bot.name, bot.banned) for bot in accounts.bots()] == [("sam", True), ("sam2", False)]
    with pytest.raises(AccountError, match="there is no bot 'nobody'"):
        accounts.ban("nobody", kind="bot")

def test_mistakes_are_one_sentence(accounts):
    accounts.add_owner("ann")
    accounts.add_bot("alice", "ann")
    with pytest.raises(AccountError, match="no owner 'zed'"):
        accounts.add_bot("zoe", "zed")
    with pytest.raises(AccountError, match="a bot 'alice' already"):
        accounts.add_bot("alice", "ann")
    with pytest.raises(AccountError, match="an owner 'ann' already"):
        accounts.add_owner("ann")
    with pytest.raises(AccountError, match="no bot or owner"):
        accounts.ban("nobody")
    with pytest.raises(AccountError, match="not an address or a prefix"):
        accounts.pin("alice", ["10.1.0.0/99"])
    accounts.pin("alice", ["192.0.2.7"])
    assert accounts.bots()[0].prefixes == ("192.0.2.7/32",)


def test_a_ladder_games_guests_keep_no_standing(db):
    from evolution.store.records import GameRecord, SeatRecord
    from evolution.store.results_store import ResultsStore

    store = ResultsStore.open(db)
    try:
        seats = (SeatRecord(1, "alice", 9, 1), SeatRecord(2, "guest-1", 12, 1), SeatRecord(3, "bob", 3, 3))
        game_id = store.record(GameRecord("2026-01-01T00:00:00.000+00:00", "2026-01-01T00:00:01.000+00:00", "sorted",
                                          None, 2, "finished", seats, settings={"unrated": ["guest-1"]}, ladder=True))
        ladder = {standing.name: standing for _, standing in store.ladder()}
        assert sorted(ladder) == ["alice", "bob"] and ladder["alice"].wins == 1
        stored = {seat.name: seat for seat in store.games_by_id([game_id])[0].players}
        assert stored["guest-1"].rating_mu is None and stored["alice"].rating_mu > stored["bob"].rating_mu
        from evolution.store.queries import player

        Accounts(store.connection).add_owner("ann", "Ann Smith")
        Accounts(store.connection).add_bot("alice", "ann")
        assert player(store, "alice", "evolution", 10)["account"] == {"owner": "Ann Smith", "banned": False}
        assert player(store, "guest-1", "evolution", 10)["account"] == {"guest": True}
        assert player(store, "bob", "evolution", 10)["account"] is None
    finally:
        store.close()


def test_what_the_pages_and_results_show_of_a_name(accounts):
    assert accounts.mark("guest-1") is None  # no accounts: an open host's name, whatever it is
    accounts.add_owner("ann", "Ann Smith")
    accounts.add_bot("alice", "ann")
    assert accounts.mark("alice") == {"owner": "Ann Smith", "banned": False}
    accounts.ban("ann")
    assert accounts.marks() == {"alice": {"owner": "Ann Smith", "banned": True}}
    assert accounts.mark("guest-1") == {"guest": True}
    assert accounts.mark("\ud800") is None
    for name in ("guest-2", "alice#2", " "):
        with pytest.raises(AccountError, match="the host's own forms"):
            accounts.add_bot(name, "ann")


def test_one_live_session_per_bot_across_hosts(db, accounts):
    accounts.add_owner("ann")
    accounts.add_bot("alice", "ann")
    held = None
    if db.startswith("postgresql"):
        from evolution.store.postgres import hold_name

        held = hold_name(db, "lab1")  # lab1 runs
    try:
        assert accounts.claim_session("alice", "lab1") is None
        assert accounts.claim_session("alice", "lab1") is None  # its own again (a return)
        assert accounts.claim_session("alice", "lab2") == ("lab1" if held is not None else None)
        if held is not None:
            held.close()  # lab1 stops (or dies): its sessions are taken over once PostgreSQL has ended its session
            deadline = time.monotonic() + 30
            while accounts.claim_session("alice", "lab2") is not None and time.monotonic() < deadline:
                time.sleep(0.05)
            assert accounts.claim_session("alice", "lab2") is None
        accounts.release_session("alice", "lab2")
        assert accounts.claim_session("alice", "lab3") is None
        accounts.release_host("lab3")
        assert accounts.connection.execute("SELECT count(*) FROM bot_sessions").fetchone()[0] == 0
    finally:
        if held is not None:
            held.close()


def test_a_release_ends_only_the_claim_it_names(accounts):
    """A bot back at once: its old connection's release, run after its new claim, leaves the new session held."""
    accounts.add_owner("ann")
    accounts.add_bot("alice", "ann")
    assert accounts.claim_session("alice", "lab1", "2030-01-01T00:00:00.000001+00:00") is None
    assert accounts.claim_session("alice", "lab1", "2030-01-01T00:00:00.000002+00:00") is None  # the new one
    accounts.release_session("alice", "lab1", "2030-01-01T00:00:00.000001+00:00")  # the old one's, late
    held = "SELECT host, since FROM bot_sessions WHERE name = 'alice'"
    assert accounts.connection.execute(held).fetchall() == [("lab1", "2030-01-01T00:00:00.000002+00:00")]
    accounts.release_session("alice", "lab1", "2030-01-01T00:00:00.000002+00:00")
    assert accounts.connection.execute(held).fetchall() == []
