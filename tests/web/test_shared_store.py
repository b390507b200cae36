"""The web view of a host whose PostgreSQL store another host shares: the whole, by time, each game's host.

A real host, "alpha", with its web view (in the test's process) plays a game that is held running; another
host, "beta", is its records written into the same database, as beta's store writer would write them: games
numbered from a block of beta's own, a tournament, and a game beta is playing now. Asserted, over HTTP and in
a real browser: both hosts' games, in the order they ended (not by id), each with its host; the hosts panel,
saying which one this web view is; beta's running game, with no live picture here (it is on beta's own web
view), on the overview, on its page and in its tournament's bracket.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from twisted.internet.defer import gatherResults
from twisted.internet.threads import deferToThread
from twisted.trial import unittest

from evolution.store import postgres as store_postgres
from evolution.store.operations import game_begun, tournament_begun
from evolution.store.records import EntrantRecord, GameRecord, SeatRecord, TournamentRecord
from evolution.store.results_store import ResultsStore
from tests.support import postgres
from tests.support.browser import chromium, missing
from tests.support import hosting
from tests.support.webhosting import QUICK, HeldPlayer, WebHost, get
from tests.web.test_browser import Page, text


def finished(game_id: int, host: str, ended: str, names: tuple[str, ...] = ("ann", "bo", "cy")) -> GameRecord:
    """A finished game of ``host`` that ended at 10:00:``ended`` (each seat's score: its seat number)."""
    seats = tuple(SeatRecord(seat, name, seat, len(names) + 1 - seat) for seat, name in enumerate(names, start=1))
    return GameRecord(f"2025-06-01T10:00:{int(ended) - 1:02d}.000+00:00", f"2025-06-01T10:00:{ended}.000+00:00",
                      "shuffled", 7, 3, "finished", seats, game_id, host=host)


@dataclass
class Shared:
    """Alpha (a host with its web view) and beta's records in one store; the ids of what the test wrote."""

    host: WebHost
    held: HeldPlayer
    clients: list
    alpha: list[int]  # alpha's stored games: ended at :10 and :30
    beta: list[int]  # beta's: ended at :05 and :20, and the one beta is playing (its tournament's id: beta[0])

    async def release(self) -> None:
        self.held.release()
        await gatherResults(self.clients)


async def shared_store(test: unittest.TestCase) -> Shared:
    url = postgres.database_url(test.id().rsplit(".", 1)[-1])
    directory = Path(test.mktemp())
    directory.mkdir(parents=True)
    # The held player has 120 s an answer (not QUICK's 3): its game stays running while a busy machine's browser reads.
    host = WebHost(directory, "--db", url, "--host-name", "alpha", "--players", "3-3", *QUICK, "--timeout", "120",
                   "--workers", "0", *hosting.test_options(test), db=url, host="alpha",
                   journal=str(directory / "alpha.pending"))
    test.addCleanup(host.stop)
    held = HeldPlayer()
    clients = [host.client("ann", held), host.client("bo"), host.client("cy")]
    await held.asked  # alpha's game runs, and stays running until the test releases it
    store = ResultsStore.open(url)
    try:
        alpha = [host.writer.new_game_id(), host.writer.new_game_id()]
        first = store_postgres.reserve_block(store.connection)  # beta's block, as its writer reserves one
        beta = [first, first + 1, first + 2]
        for game_id, who, ended in [(alpha[0], "alpha", "10"), (beta[0], "beta", "05"), (beta[1], "beta", "20"),
                                    (alpha[1], "alpha", "30")]:
            store.record(finished(game_id, who, ended))
        entrants = tuple(EntrantRecord(k, name) for k, name in enumerate(["dee", "eve", "fay"], start=1))
        store.apply(tournament_begun(TournamentRecord(first, "knockout", "running", "2025-06-01T10:01:00.000+00:00",
                                                      None, {}, entrants, host="beta")))
        store.apply(game_begun(beta[2], "beta", "2025-06-01T10:02:00.000+00:00", "evolution", ["dee", "eve", "fay"],
                               "shuffled", 9, {}, (first, 1), False))
    finally:
        store.close()
    await host.writer.idle()  # alpha's own game is noted as running in the store too
    return Shared(host, held, clients, alpha, beta)


class SharedStoreTests(unittest.TestCase):
    timeout = 120

    async def test_the_api_shows_every_hosts_games_by_time_and_the_other_hosts_running_game_without_a_picture(
        self,
    ) -> None:
        shared = await shared_store(self)
        host, alpha, beta = shared.host, shared.alpha, shared.beta
        [playing] = host.runner.running
        overview = (await get(host.url("/api/overview"))).json()
        self.assertEqual(overview["view"], {"host": "alpha", "plays_games": True})
        self.assertEqual([(row["host"], row["games"], row["running"]) for row in overview["hosts"]],
                         [("alpha", 2, 1), ("beta", 2, 1)])
        self.assertEqual([(game["id"], game["host"], game["live"]) for game in overview["running"]],
                         [(playing, "alpha", True)])
        [elsewhere] = overview["running_elsewhere"]
        self.assertEqual(elsewhere, {
            "id": beta[2], "game": "evolution", "host": "beta", "status": "running", "live": False,
            "started_at": "2025-06-01T10:02:00.000+00:00", "tournament": {"id": beta[0], "round": 1},
            "ladder": False, "players": [{"seat": seat, "name": name, "score": None, "removed": None}
                                         for seat, name in enumerate(["dee", "eve", "fay"], start=1)],
        })
        by_time = [(alpha[1], "alpha"), (beta[1], "beta"), (alpha[0], "alpha"), (beta[0], "beta")]
        self.assertEqual([(game["id"], game["host"]) for game in overview["recent_games"]], by_time)

        games = (await get(host.url("/api/games"))).json()
        self.assertEqual([(game["id"], game["host"]) for game in games], [(playing, "alpha")] + by_time)
        older = (await get(host.url(f"/api/games?before={beta[1]}&limit=1"))).json()
        self.assertEqual([game["id"] for game in older], [alpha[0]])
        page = (await get(host.url(f"/api/games/{beta[2]}"))).json()
        self.assertEqual((page["status"], page["live"], page["host"]), ("running", False, "beta"))
        self.assertNotIn("table", page)  # no live picture: that is on beta's own web view
        self.assertEqual((await get(host.url(f"/api/games/{beta[0]}"))).json()["host"], "beta")
        tournament = (await get(host.url(f"/api/tournaments/{beta[0]}"))).json()
        self.assertEqual(tournament["host"], "beta")
        self.assertEqual([(game["id"], game["live"]) for game in tournament["game_summaries"]], [(beta[2], False)])
        await shared.release()

    async def test_a_browser_sees_the_hosts_each_games_host_and_where_the_other_hosts_game_is_live(self) -> None:
        if missing():
            raise unittest.SkipTest(missing())
        shared = await shared_store(self)
        host, alpha, beta = shared.host, shared.alpha, shared.beta

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                overview = page.open(host.url("/"))
                overview.wait_for_selector("text=Hosts · 2")
                hosts = overview.locator("table.hosts tbody tr").all_inner_texts()
                self.assertEqual([row.split("\t")[:3] for row in hosts],
                                 [["alpha · this web view", "2", "1"], ["beta", "2", "1"]])
                self.assertIn("This web view belongs to host alpha", text(overview, "main"))
                recent = overview.locator("section:has(h2:text-is('Recent games')) tbody tr").all_inner_texts()
                self.assertEqual([row.split("\t")[0] + " " + row.split("\t")[2] for row in recent], [
                    f"Game {alpha[1]} alpha", f"Game {beta[1]} beta", f"Game {alpha[0]} alpha", f"Game {beta[0]} beta"])
                live = overview.locator(".game-card:not(.elsewhere)")
                self.assertIn("live", live.locator(".pill").inner_text())
                self.assertIn("on this host", live.inner_text())
                other = overview.locator(".game-card.elsewhere")
                self.assertEqual(other.locator(".pill").inner_text(), "running elsewhere")
                self.assertIn("on beta since", other.inner_text())
                page.check(self)

                other.locator(".card-link").click()
                overview.wait_for_selector(".elsewhere-note")
                overview.evaluate("window.sameDocument = true")
                self.assertIn("Its live picture is on that host's own web view", text(overview, ".elsewhere-note"))
                self.assertEqual(text(overview, ".played-on"), "on host beta")
                self.assertEqual(overview.locator(".player, .controls").count(), 0)  # no table, no replay
                page.check(self)

                tournament = page.open(host.url(f"/tournaments/{beta[0]}"))
                tournament.wait_for_selector(".bracket-game")
                self.assertEqual(text(tournament, ".played-on"), "on host beta")
                self.assertEqual(text(tournament, ".bracket-game .pill"), "running elsewhere")
                game = page.open(host.url(f"/games/{beta[0]}"))
                game.wait_for_selector("text=Result")
                self.assertEqual(text(game, ".played-on"), "on host beta")
                page.check(self)

        await deferToThread(browse)
        await shared.release()
