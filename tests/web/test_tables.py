"""The web view's pure parts: tables and lines, the lobby, the leaderboard, the files it ships."""

from __future__ import annotations

import configparser
import fnmatch
import json
from pathlib import Path

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport

from evolution.games.evolution.rules.cards import Card
from evolution.games.evolution.rules.dealer import Dealer
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.games.evolution.rules.species import Species
from evolution.games.evolution.rules.traits import Trait
from evolution.games.evolution.web.tables import Narrator, describe_reply, table_json
from evolution.net.lobbies import GameLobby, SignupPeriods
from evolution.net.signup import SignupConfig, SignupFactory
from evolution.store.queries import leaderboard
from evolution.store.records import EntrantRecord, TournamentRecord
from evolution.web.lobby_picture import lobby_json
from tests.support.paths import REPO

NAMES = ["ann", "bo\u202e", "cy"]


def dealer() -> Dealer:
    game = Dealer.new_game([SillyPlayer() for _ in NAMES])
    ann, bo, cy = game.table.players
    ann.boards[:] = [Species(1, 2, 3, (Trait.CARNIVORE,))]
    cy.boards[:] = [Species(0, 1, 1), Species(0, 5, 2, (Trait.FAT_TISSUE,), 3)]
    cy.hand[:] = [Card(2, Trait.HORNS), Card(-1, Trait.CARNIVORE)]
    return game


@pytest.mark.parametrize(
    "reply, text",
    [
        (False, "declined to feed"),
        (0, "fed species #1"),
        ([1, 2], "stored 2 fat food on species #2"),
        ([0, 1, 1], "species #1 attacked cy's species #2"),  # others of ann: bo, then cy
        ([0, 0, 0], "species #1 attacked bo\\u202e's species #1"),  # names in a line are escaped
        ([0, 7, 0], "species #1 attacked another player's species #1"),
        ([0, [[0, 1]], [[0, 2]], [[3, 4, 5]], [[0, 0, 6]]],
         "played a food card, population +1 on #1, body +1 on #1, a new species with 2 traits, a new trait on #1"),
        ([0, [], [], [], []], "played a food card"),
        ([0, "x", [["y"]], [[1]], []], "played a food card, body +1 on #?, a new species with 0 traits"),
        (True, "sent a reply that is no move"),
        ("feed me", "sent a reply that is no move"),
        ([1, 2, 3, 4], "sent a reply that is no move"),
        (-1, "fed species #?"),
    ],
)
def test_a_reply_in_words(reply, text):
    game = dealer()
    assert describe_reply(reply, game.table.players[0], game, NAMES) == text


def test_a_live_table_counts_hands_and_a_replay_shows_them():
    game = dealer()
    live = table_json(game, NAMES)
    cy = live["players"][2]
    assert (cy["name"], cy["hand"], cy["bag"], cy["score"]) == ("cy", 2, 0, 3)
    assert "cards" not in cy
    assert cy["species"][1] == {"population": 2, "body": 5, "food": 0, "fat_food": 3, "traits": ["fat-tissue"]}
    assert table_json(game, NAMES, cards=True)["players"][2]["cards"] == [[2, "horns"], [-1, "carnivore"]]


def test_the_narrator_tells_each_step_once_with_markers_and_removals():
    game = dealer()
    narrator = Narrator(NAMES, keep=3)
    entries = [[0, 1, "out", ["start"]], [5, 1, "in", 0]]
    game.turn = 2
    said = narrator.step("start", game, entries)
    assert [(line["seat"], line["text"]) for line in said] == [(None, "Turn 2: cards dealt"), (1, "fed species #1")]
    game.remove(game.table.players[1], "no reply to choose within 1 s")
    entries.append([9, 3, "in", False])
    said = narrator.step("end-of-turn", game, entries)
    assert [(line["seat"], line["text"]) for line in said] == [
        (3, "declined to feed"), (2, "removed: no reply to choose within 1 s"), (None, "End of turn 2")]
    assert narrator.step("feed", game, entries) == []
    assert len(narrator.lines) == 3  # the last three kept


def sign_up(factory: SignupFactory, name: str) -> None:
    """A real host connection, on an in-memory transport, that signs up as ``name``."""
    connection = factory.buildProtocol(IPv4Address("TCP", "127.0.0.1", 1))
    connection.makeConnection(StringTransport())
    connection.dataReceived(json.dumps(name).encode() + b"\n")


def test_the_lobby_with_its_countdown():
    clock = Clock()
    lobby = SignupFactory(SignupConfig(3, 5, window=10.0, max_games=1), GameLobby(lambda players: None), clock)
    for name in ("ann", "bo"):
        sign_up(lobby, name)
    assert lobby_json(lobby, clock) == {
        "mode": "games", "waiting": ["ann", "bo"], "min_players": 3, "max_players": 5, "window": 10.0,
        "starts_in": None, "open": True,
    }
    sign_up(lobby, "cy")
    clock.advance(4)
    assert lobby_json(lobby, clock)["starts_in"] == 6.0
    clock.advance(6)
    assert lobby_json(lobby, clock) | {"window": None} == {
        "mode": "games", "waiting": [], "min_players": 3, "max_players": 5, "window": None, "starts_in": None,
        "open": False,
    }
    assert lobby_json(None, clock)["waiting"] == []


def test_a_tournament_lobby_says_which_sign_up_period_runs_and_how_long_it_has():
    clock = Clock()
    periods = SignupPeriods(30.0, 2, 4, 10, lambda players: None, lambda players: None)
    lobby = SignupFactory(SignupConfig(3, 8), periods, clock)
    periods.open()
    sign_up(lobby, "ann")
    clock.advance(31)
    assert lobby_json(lobby, clock) == {
        "mode": "tournament", "waiting": ["ann"], "min_signups": 4, "max_signups": 10, "window": 30.0, "period": 2,
        "periods": 2, "period_ends_in": 30.0, "open": True,
    }


def test_the_leaderboard_keeps_each_players_latest_swiss_rating():
    def swiss(tid: int, *entrants: tuple[str, float, float]) -> TournamentRecord:
        return TournamentRecord(tid, "swiss", "finished", "", None, {},
                                tuple(EntrantRecord(i, name, None, 0, mu, sigma) for i, (name, mu, sigma) in enumerate(entrants)))

    knockout = TournamentRecord(3, "knockout", "finished", "", None, {}, (EntrantRecord(1, "ko only"),))
    rows = leaderboard([
        swiss(2, ("ann", 30.0, 2.0), ("bo", 20.0, 1.0)),
        swiss(1, ("ann", 10.0, 1.0), ("cy", 27.0, 1.0)),
        knockout,
        swiss(4, ("dee", None, None)),
    ])
    assert [(r["rank"], r["name"], r["ordinal"], r["tournament"], r["tournaments"]) for r in rows] == [
        (1, "ann", 24.0, 2, 2), (1, "cy", 24.0, 1, 1), (3, "bo", 17.0, 2, 1)]


def test_every_file_of_the_pages_ships_in_the_package():
    config = configparser.ConfigParser()
    config.read(REPO / "setup.cfg")
    patterns = [p.strip() for p in config["options.package_data"]["evolution"].split(",")]
    static = REPO / "evolution" / "web" / "static"
    files = [path.relative_to(REPO / "evolution").as_posix() for path in static.rglob("*") if path.is_file()]
    assert files
    unshipped = [name for name in files if not any(fnmatch.fnmatch(name, pattern) for pattern in patterns)]
    assert unshipped == []
    assert "evolution.web" in config["options"]["packages"].split()
    assert Path(static / "page.html").read_text().count("<script") == 1  # one module, no inline script
