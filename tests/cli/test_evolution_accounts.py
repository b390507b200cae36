"""``evolution-accounts``: an organiser adds owners and bots, hands out secrets once, bans, lists, imports a class."""

from __future__ import annotations

import json
import os
import stat

from evolution.bot_secrets import secret_matches
from evolution.cli.evolution_accounts import main
from evolution.store.accounts import Accounts


def accounts_of(db):
    opened = Accounts.open(db)
    try:
        return {bot.name: bot for bot in opened.bots()}
    finally:
        opened.close()


def test_add_an_owner_and_a_bot_and_rotate_its_secret(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    assert main(["--db", db, "add-owner", "ann", "--display-name", "Ann Smith", "--contact", "ann@example.org"]) == 0
    assert main(["--db", db, "add-bot", "alice", "--owner", "ann", "--letters"]) == 0
    out = capsys.readouterr().out
    secret = out.split()[-1]
    assert len(secret) == 12 and secret.isalpha() and secret_matches(secret, accounts_of(db)["alice"].secret_hash)
    assert main(["--db", db, "rotate", "alice"]) == 0
    new = capsys.readouterr().out.split()[-1]
    assert len(new) == 22 and not secret_matches(secret, accounts_of(db)["alice"].secret_hash)
    assert main(["--db", db, "list"]) == 0
    listing = capsys.readouterr().out
    assert "ann (Ann Smith, ann@example.org)" in listing and "  alice" in listing and new not in listing


def test_ban_and_unban_a_bot_and_an_owner(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    main(["--db", db, "add-owner", "ann"])
    main(["--db", db, "add-bot", "alice", "--owner", "ann", "--pin", "10.1.0.0/16,127.0.0.1"])
    assert main(["--db", db, "ban", "alice"]) == 0 and accounts_of(db)["alice"].banned
    assert main(["--db", db, "unban", "alice"]) == 0 and not accounts_of(db)["alice"].banned
    assert main(["--db", db, "ban", "ann"]) == 0 and accounts_of(db)["alice"].banned
    capsys.readouterr()
    assert main(["--db", db, "list", "--json"]) == 0
    [owner] = json.loads(capsys.readouterr().out)
    assert owner["banned"] and owner["bots"] == [
        {"name": "alice", "banned": True, "prefixes": ["10.1.0.0/16", "127.0.0.1/32"]}]


def test_mistakes_are_one_line(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    assert main(["--db", db, "add-owner", "ann"]) == 0
    assert main(["--db", db, "add-bot", "alice", "--owner", "nobody"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("evolution-accounts: there is no owner 'nobody'") and err.count("\n") == 1
    assert main(["--db", str(tmp_path / "missing" / "r.sqlite"), "list"]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_a_store_that_is_not_there_is_refused_but_by_the_commands_that_begin_one(tmp_path, capsys):
    db = tmp_path / "mistyped.sqlite"
    for command in (["list"], ["ban", "alice"], ["add-bot", "alice", "--owner", "ann"], ["rotate", "alice"]):
        assert main(["--db", str(db), *command]) == 1
        assert capsys.readouterr().err == (f"evolution-accounts: the store {db} does not exist: give --db the host's "
                                           "store (or begin one with add-owner or import)\n")
    assert not db.exists()  # no empty store begun where the organiser mistyped the path
    assert main(["--db", "postgresql://127.0.0.1:1/evolution", "list"]) == 1  # a URL: its server answers for it
    assert "does not exist" not in capsys.readouterr().err
    assert main(["--db", str(db), "add-owner", "ann"]) == 0 and db.exists()
    roster = tmp_path / "class.csv"
    roster.write_text("team1,ant\n")
    assert main(["--db", str(tmp_path / "new.sqlite"), "import", str(roster)]) == 0
    assert set(accounts_of(tmp_path / "new.sqlite")) == {"ant"}


def test_ban_says_whether_a_name_is_a_bot_or_an_owner_when_it_is_both(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    main(["--db", db, "add-owner", "ann"])
    main(["--db", db, "add-bot", "bob", "--owner", "ann"])  # a bot bob of ann, and an owner bob
    main(["--db", db, "add-owner", "bob"])
    main(["--db", db, "add-bot", "cat", "--owner", "bob"])
    capsys.readouterr()
    assert main(["--db", db, "ban", "bob"]) == 1
    assert capsys.readouterr().err == ("evolution-accounts: 'bob' is both a bot (of 'ann') and an owner: say which, "
                                       "with --bot or --owner\n")
    assert not any(bot.banned for bot in accounts_of(db).values())
    assert main(["--db", db, "ban", "bob", "--owner"]) == 0
    assert capsys.readouterr().out == "owner bob banned\n"
    assert {name: bot.banned for name, bot in accounts_of(db).items()} == {"bob": False, "cat": True}
    assert main(["--db", db, "unban", "bob", "--owner"]) == 0 and main(["--db", db, "ban", "bob", "--bot"]) == 0
    assert capsys.readouterr().out == "owner bob unbanned\nbot bob banned\n"
    assert {name: bot.banned for name, bot in accounts_of(db).items()} == {"bob": True, "cat": False}
    assert main(["--db", db, "ban", "cat", "--owner"]) == 1
    assert capsys.readouterr().err == "evolution-accounts: there is no owner 'cat'\n"


def test_import_a_class_with_its_secrets_in_a_file(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    roster = tmp_path / "class.csv"
    roster.write_text("owner,bot\nteam1,ant,bee\nteam2,cat\n\n")
    secrets_file = tmp_path / "secrets.csv"
    assert main(["--db", db, "import", str(roster), "--letters", "--secrets", str(secrets_file)]) == 0
    assert "3 bots added" in capsys.readouterr().out
    assert stat.S_IMODE(os.stat(secrets_file).st_mode) == 0o600
    rows = [line.split(",") for line in secrets_file.read_text().split()]
    assert rows[0] == ["owner", "bot", "secret"] and [row[:2] for row in rows[1:]] == [
        ["team1", "ant"], ["team1", "bee"], ["team2", "cat"]]
    bots = accounts_of(db)
    assert all(secret_matches(secret, bots[bot].secret_hash) for _, bot, secret in rows[1:])
    roster.write_text("team2,cat,dog\n")
    assert main(["--db", db, "import", str(roster)]) == 0
    captured = capsys.readouterr()
    [(owner, bot, secret)] = [line.split(",") for line in captured.out.split()]
    assert (owner, bot, len(secret)) == ("team2", "dog", 22)
    assert "cat is there already" in captured.err
    assert main(["--db", db, "import", str(roster), "--secrets", str(secrets_file)]) == 1
    assert "exists already" in capsys.readouterr().err


def test_an_import_with_a_row_that_cannot_be_imported_writes_nothing_and_names_the_line(tmp_path, capsys):
    db = str(tmp_path / "r.sqlite")
    main(["--db", db, "add-owner", "team9"])
    main(["--db", db, "add-bot", "eel", "--owner", "team9"])
    roster = tmp_path / "class.csv"
    secrets_file = tmp_path / "secrets.csv"
    for rows, why in (
        ("team2,guest-7", "line 3 of the roster {roster}: 'guest-7' cannot be a bot's name"),
        ("team2,cat#2", "line 3 of the roster {roster}: 'cat#2' cannot be a bot's name"),
        ("team2,cat,bee", "line 3 of the roster {roster}: the bot 'bee' is on line 2 already"),
        ("team2,eel", "line 3 of the roster {roster}: the bot 'eel' is 'team9''s in the store, not 'team2''s"),
        (",cat", "line 3 of the roster {roster} names no owner or no bot"),
    ):
        roster.write_text(f"owner,bots\nteam1,ant,bee\n{rows}\n")
        assert main(["--db", db, "import", str(roster), "--secrets", str(secrets_file)]) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"evolution-accounts: {why.format(roster=roster)}") and err.count("\n") == 1, err
        assert err.endswith("; nothing is imported\n")
        assert set(accounts_of(db)) == {"eel"} and not secrets_file.exists()  # not team1's ant and bee either
    roster.write_text("owner,bots\nteam1,ant,guest-1\n\nteam2,guest-2\n")
    assert main(["--db", db, "import", str(roster)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"evolution-accounts: line 2 of the roster {roster}: 'guest-1'") and "(1 more after it)" in err
    roster.write_text("owner,bots\nteam1,ant,bee\nteam2,cat\n")  # mended: the same --secrets file serves
    assert main(["--db", db, "import", str(roster), "--secrets", str(secrets_file)]) == 0
    assert set(accounts_of(db)) == {"ant", "bee", "cat", "eel"}
