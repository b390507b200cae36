"""The web view's player pages, ladder page and downloads, over real HTTP on 127.0.0.1 against a real host.

``/api/players/NAME`` (the name percent-encoded, as the pages write it), ``/api/ladder/removals``, the
standings to download, and the page shell that names the host's game.
"""

from __future__ import annotations

import csv
import io
from urllib.parse import quote

from twisted.internet.defer import gatherResults
from twisted.trial import unittest

from evolution.games import game as game_named
from evolution.store.operations import game_operation
from tests.store.test_player_history import game
from tests.support.webhosting import QUICK, apply, get, new_web_host, tournament_operations

ODD = "\ud800 odd/bot %41 é"  # a lone surrogate, a slash, a percent sign, a space, an accent


def player_path(name: str, query: str = "") -> str:
    """The path a page links a player's page by: the name's UTF-8 bytes percent-encoded (a lone surrogate too)."""
    return f"/api/players/{quote(name.encode('utf-8', 'surrogatepass'), safe='')}{query}"


class PlayerTests(unittest.TestCase):
    timeout = 60

    async def test_a_players_page_lists_its_games_newest_first_a_page_at_a_time(self) -> None:
        host = new_web_host(self)
        operations = []
        for number in range(1, 8):
            seats = [(ODD, 5 if number != 3 else None), ("bo", 5 if number % 2 else 2), ("cy", 1)]
            operations.append(game_operation(game(number, seats)))
        apply(host.options["db"], operations)

        first = await get(host.url(player_path(ODD, "?limit=3")))
        self.assertEqual(first.status, 200, first.body)
        page = first.json()
        self.assertEqual((page["name"], page["game"]), (ODD, "evolution"))
        self.assertEqual(page["counts"], {"games": 7, "removals": 1})
        self.assertEqual([row["id"] for row in page["games"]], [7, 6, 5])
        self.assertEqual(page["next"], 5)
        by_id = {row["id"]: row for row in page["games"]}
        self.assertEqual((by_id[7]["place"], by_id[7]["tied"], by_id[7]["score"], by_id[7]["players"]), (1, True, 5, 3))
        self.assertEqual((by_id[6]["place"], by_id[6]["tied"]), (1, False))
        self.assertIsNone(page["ladder"])
        self.assertEqual(page["ratings"], {"ladder": [], "swiss": []})

        older = (await get(host.url(player_path(ODD, f"?limit=3&before={page['next']}")))).json()
        self.assertEqual([row["id"] for row in older["games"]], [4, 3, 2])
        self.assertEqual(older["games"][1]["removed"], {"turn": 2, "step": "choose", "reason": "bad reply in game 3"})
        self.assertEqual([(r["id"], r["name"], r["reason"]) for r in older["removals"]],
                         [(3, ODD, "bad reply in game 3")])
        last = (await get(host.url(player_path(ODD, "?limit=3&before=2")))).json()
        self.assertEqual(([row["id"] for row in last["games"]], last["next"]), ([1], None))

        shell = await get(host.url(player_path(ODD).replace("/api", "")))
        self.assertEqual(shell.status, 200)
        self.assertIn(b"<title>Evolution host</title>", shell.body)

    async def test_an_unknown_or_unreadable_name_is_one_sentence(self) -> None:
        host = new_web_host(self)
        for path, status, sentence in (
            (player_path("nobody \x1b[2J"), 404, "no player named 'nobody \\x1b[2J'"),
            ("/api/players/%FF%FE", 400, "a player's name in the address is its UTF-8 bytes, percent-encoded"),
            (player_path("x", "?limit=0"), 400, "limit takes a whole number from 1 to 500"),
        ):
            answer = await get(host.url(path))
            self.assertEqual((answer.status, answer.json()), (status, {"error": sentence}), path)


    async def test_the_players_list_searches_names_a_page_at_a_time_and_every_list_has_its_page(self) -> None:
        host = new_web_host(self)
        apply(host.options["db"], [game_operation(game(number, [(name, 3), ("zed", 1)]))
                                   for number, name in enumerate(["Ann", ODD, "anna", "bo"], start=1)])
        first = (await get(host.url("/api/players?limit=2&q=" + quote("AN")))).json()
        self.assertEqual(len(first["players"]), 2)
        rest = (await get(host.url("/api/players?limit=2&q=AN&after=" + quote(first["next"])))).json()
        self.assertEqual(sorted(row["name"] for row in first["players"] + rest["players"]), ["Ann", "anna"])
        self.assertEqual({row["games"] for row in first["players"]}, {1})
        odd = (await get(host.url("/api/players?q=" + quote(ODD.encode("utf-8", "surrogatepass"), safe="")))).json()
        self.assertEqual([row["name"] for row in odd["players"]], [ODD])
        too_long = await get(host.url("/api/players?q=" + "x" * 201))
        self.assertEqual((too_long.status, too_long.json()), (400, {"error": "q takes at most 200 characters"}))
        for path in ("/players", "/tournaments", "/games"):
            shell = await get(host.url(path))
            self.assertEqual(shell.status, 200, path)
            self.assertIn(b'<nav class="site"', shell.body)


class LadderPageTests(unittest.TestCase):
    timeout = 90

    async def test_the_ladder_lists_removals_with_reasons_and_downloads_its_standings(self) -> None:
        host = new_web_host(self, "--ladder", "--players", "4-4", *QUICK)
        cheater = game_named("evolution").strategy("cheater")  # breaks the rules on the wire
        clients = [host.client(name) for name in ("ann", "bo", "cy")] + [host.client("=cheat", cheater)]
        [played] = await host.runner.when_games_over(1)  # the cheater is removed from it, and does not come back
        host.factory.stop()
        await gatherResults([client.addErrback(lambda failure: None) for client in clients])
        await host.stored()
        [removed] = [seat for seat in played.players if seat.removed_reason]

        removals = (await get(host.url("/api/ladder/removals"))).json()
        self.assertEqual(removals, [{
            "id": played.id, "game": "evolution", "ended_at": played.ended_at, "seat": removed.seat, "name": "=cheat",
            "turn": removed.removed_turn, "step": removed.removed_step, "reason": removed.removed_reason,
        }])
        ladder = (await get(host.url("/api/ladder"))).json()
        self.assertEqual(ladder[-1]["name"], "=cheat")  # removed from its only game: after every honest bot
        self.assertTrue(ladder[-1]["provisional"])

        download = await get(host.url("/api/ladder/standings.csv"))
        self.assertEqual(download.headers["content-type"], "text/csv; charset=utf-8")
        self.assertEqual(download.headers["content-disposition"],
                         'attachment; filename="evolution-ladder-standings.csv"')
        rows = list(csv.DictReader(io.StringIO(download.body.decode("utf-8"))))
        self.assertEqual([r["name"] for r in rows], [r["name"] if r["name"] != "=cheat" else "'=cheat" for r in ladder])
        as_json = await get(host.url("/api/ladder/standings.json"))
        self.assertEqual(as_json.json()["standings"][-1]["name"], "=cheat")

    async def test_a_tournaments_standings_download_as_csv_and_json_and_the_shell_names_the_game(self) -> None:
        host = new_web_host(self, "--game", "fish")
        apply(host.options["db"], tournament_operations(1, "swiss", [f"p{k}" for k in range(1, 7)], 1))
        csv_answer = await get(host.url("/api/tournaments/1/standings.csv"))
        self.assertEqual(csv_answer.status, 200)
        self.assertEqual(csv_answer.headers["content-disposition"], 'attachment; filename="tournament-1-standings.csv"')
        self.assertEqual(csv_answer.body.decode().splitlines()[0],
                         "rank,name,points,rating,rating_sigma,ordinal,winner,failed_round,failure")
        json_answer = (await get(host.url("/api/tournaments/1/standings.json"))).json()
        self.assertEqual(len(json_answer["standings"]), 6)
        missing = await get(host.url("/api/tournaments/9/standings.csv"))
        self.assertEqual((missing.status, missing.json()), (404, {"error": "there is no tournament 9"}))
        self.assertEqual((await get(host.url("/api/tournaments/1/standings.xml"))).status, 404)
        for path in ("/", "/ladder", "/tournaments/1"):
            shell = (await get(host.url(path))).body
            self.assertIn(b"<title>Fish host</title>", shell)
            self.assertIn(b'<meta name="established-games" content="5">', shell)
            self.assertNotIn(b"Evolution", shell)


class LeaderboardTests(unittest.TestCase):
    timeout = 60

    async def test_a_swiss_entrant_that_failed_in_round_1_is_never_above_an_honest_one(self) -> None:
        host = new_web_host(self)
        names = [f"p{k}" for k in range(1, 9)]
        apply(host.options["db"], tournament_operations(1, "swiss", names, 1, seed=4, cheats=["p7"])
              + tournament_operations(2, "swiss", names[:6], 100, seed=5))
        rows = (await get(host.url("/api/overview"))).json()["leaderboard"]
        self.assertEqual(len(rows), 8)
        by_name = {row["name"]: row for row in rows}
        self.assertEqual((by_name["p7"]["games"], by_name["p7"]["removals"], by_name["p7"]["tournament"]), (1, 1, 1))
        self.assertEqual(rows[-1]["name"], "p7")  # removed from the only game it played: last, whatever its rating
        self.assertEqual({row["games"] for row in rows if row["name"] != "p7"}, {3})  # a Swiss of 3 rounds
        self.assertTrue(all(row["provisional"] for row in rows))  # 3 games are fewer than 5
        self.assertEqual([row["tournament"] for row in rows if row["name"] in names[:6]], [2] * 6)  # the latest
        ranks = [row["rank"] for row in rows]
        self.assertEqual(ranks, sorted(ranks))
        honest = [row["ordinal"] for row in rows[:-1]]
        self.assertEqual(honest, sorted(honest, reverse=True))
        await host.stop()
        fish = new_web_host(self, "--game", "fish", "--db", str(host.options["db"]))
        self.assertEqual((await get(fish.url("/api/overview"))).json()["leaderboard"], [])  # Evolution's, not Fish's
