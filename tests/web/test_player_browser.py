"""A player's page and the ladder's page in a real browser (headless Chromium, Playwright), against a real host.

Every name on every page leads to its player's page; a player's page lists its games newest first, a
page at a time, its removals with their reasons and its rating over time as a chart; the ladder's page
marks provisional ratings, lists removals with their reasons and offers its standings to download; a
ladder host shows no empty tournament panels, and its lobby line reads as a sentence.
"""

from __future__ import annotations

from typing import Any

from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.internet.threads import deferToThread
from twisted.trial import unittest

from evolution.games import game as game_named
from evolution.store.accounts import Accounts
from evolution.store.operations import game_operation
from evolution.store.results_store import ResultsStore
from evolution.text import escape
from tests.store.test_player_history import game
from tests.support.browser import chromium, missing
from tests.support.webhosting import SlowPlayer, apply, get, new_web_host
from tests.web.test_browser import Page, names_link_to_their_pages, on_reactor, text

SKIP = missing()
ODD = "\ud800 odd/bot %41"


def arrived(page: Any, selector: str) -> None:
    """After following a link: once the new page shows ``selector``, it is the document ``Page.check`` checks."""
    page.wait_for_selector(selector)
    page.evaluate("window.sameDocument = true")


def downloaded(page: Any, href: str) -> list:
    """What the browser gets from a download link: [status, content type, first line]."""
    return page.evaluate("""async (href) => {
        const answer = await fetch(href);
        return [answer.status, answer.headers.get('content-type'), (await answer.text()).split('\\n')[0]];
    }""", href)


class PlayerPageTests(unittest.TestCase):
    timeout = 150
    skip = SKIP

    async def test_the_ladder_marks_provisional_ratings_lists_removals_and_leads_to_each_bots_page(self) -> None:
        host = new_web_host(self, "--ladder", "--players", "3-4", "--signup-window", "0.3", "--timeout", "2")
        clients: list = []

        def join() -> None:
            clients.extend(host.client(name, SlowPlayer(0.01)) for name in ("ann", "bo", "cy", "dee"))
            clients.append(host.client("cheater", game_named("evolution").strategy("cheater")))

        def check_ladder(ladder: Any, rows: list) -> None:
            drawn = ladder.locator(".ladder-table tbody tr")
            for k, row in enumerate(rows):
                cells = drawn.nth(k).locator("td").all_inner_texts()
                self.assertEqual(cells[1], row["name"])
                self.assertEqual(cells[2].endswith("?"), row["provisional"], cells)
            self.assertEqual(rows[-1]["name"], "cheater")  # removed from its only game: after every honest bot
            mark = ladder.locator(".ladder-table tbody tr").last.locator("abbr.provisional")
            self.assertEqual(mark.get_attribute("title"), "provisional: removed from every game it played")
            self.assertIn("cheater removed in turn ", text(ladder, ".removals"))
            self.assertIn("invalid reply to choose", text(ladder, ".removals"))
            links = ladder.locator(".downloads a")
            self.assertEqual([links.nth(k).get_attribute("href") for k in range(links.count())],
                             ["/api/ladder/standings.csv", "/api/ladder/standings.json"])
            self.assertEqual(downloaded(ladder, "/api/ladder/standings.csv"),
                             [200, "text/csv; charset=utf-8",
                              "rank,name,provisional,rating,rating_sigma,ordinal,games,wins,removals\r"])
            self.assertEqual(ladder.title(), "Ladder · Evolution host")
            self.assertEqual(names_link_to_their_pages(ladder), [])

        def check_players(ladder: Any, page: Page, rows: list) -> None:
            ladder.locator(".removals a.name").first.click()
            cheater = ladder
            arrived(cheater, "h1 .name")
            self.assertEqual(text(cheater, "h1"), "cheater")
            self.assertEqual(cheater.title(), "cheater · Evolution host")
            self.assertIn("1 game stored · 1 removal", text(cheater, ".page-head"))
            self.assertIn("invalid reply to choose", text(cheater, "table.player-games"))
            self.assertIn("Ladder: 5th · rating", text(cheater, ".standing"))
            self.assertEqual(cheater.locator(".standing abbr.provisional").count(), 1)
            best = rows[0]
            bot = page.open(host.url("/ladder"))
            bot.wait_for_selector(".ladder-table")
            bot.locator(".ladder-table a.name").first.click()
            arrived(bot, ".rating-chart")
            self.assertEqual(text(bot, "h1"), best["name"])
            self.assertEqual(bot.locator(".rating-chart .dot").count(), best["games"])  # a point after each game
            self.assertEqual(bot.locator("table.player-games tbody tr").count(), best["games"])
            self.assertRegex(text(bot, "table.player-games tbody tr"),
                             r"Game \d+\s.*\sLadder\s+=?\d+(st|nd|rd|th) of [34]")
            game_link = bot.locator("table.player-games tbody tr a[href^='/games/']").first
            game_link.click()
            arrived(bot, ".result")
            self.assertEqual(names_link_to_their_pages(bot), [])
            page.check(self)

        def run() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                overview = page.open(host.url("/"))
                overview.wait_for_selector(".lobby-line")
                self.assertEqual(text(overview, ".lobby-line"), "Ladder: 0 bots playing; bots join at any time. A game"
                                                                " takes 3 to 4 bots waiting: 3 more to come.")
                headings = overview.locator("h2").all_inner_texts()
                self.assertFalse([heading for heading in headings if heading.startswith(("Tournaments", "Rating"))])
                on_reactor(join)
                overview.wait_for_selector("#ladder tbody tr >> nth=4", timeout=60_000)
                self.assertEqual(names_link_to_their_pages(overview), [])
                overview.click("#ladder a[href='/ladder']")
                ladder = overview
                arrived(ladder, "text=Removals")
                ladder.wait_for_selector(".removals.across li", timeout=60_000)  # pushed as the games are stored
                on_reactor(lambda: ensureDeferred(settled()))  # the ladder stops: what follows stays as it is
                ladder = page.open(host.url("/ladder"))
                ladder.wait_for_selector(".removals.across li")
                rows = ladder.evaluate("() => fetch('/api/ladder').then((answer) => answer.json())")
                check_ladder(ladder, rows)
                check_players(ladder, page, rows)

        async def settled() -> None:
            host.factory.stop()
            await gatherResults([client.addErrback(lambda failure: None) for client in clients])
            await host.stored()

        await deferToThread(run)

    async def test_a_player_page_of_any_name_pages_through_its_games(self) -> None:
        host = new_web_host(self)
        operations = [game_operation(game(number, [(ODD, number % 4), ("bo", 2), ("cy", None if number == 7 else 1)]))
                      for number in range(1, 61)]
        apply(host.options["db"], operations)
        store = ResultsStore.open(host.options["db"])
        try:  # bo is a bot with an account, banned since; a guest of a host with accounts played once
            accounts = Accounts(store.connection)
            accounts.add_owner("team-bo", "Team Bo")
            accounts.add_bot("bo", "team-bo")
            accounts.ban("bo")
        finally:
            store.close()

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                owned = page.open(host.url("/players/bo"))
                arrived(owned, "table.player-games")
                self.assertEqual(text(owned, ".page-head .account"), "owned by Team Bo · banned (its games stay, marked)")
                overview = page.open(host.url("/"))
                overview.wait_for_selector("text=Recent games")
                self.assertEqual(names_link_to_their_pages(overview), [])
                overview.locator(".mini-players a.name", has_text=escape(ODD)).first.click()
                player = overview
                arrived(player, "table.player-games")
                self.assertEqual(text(player, "h1"), escape(ODD))
                self.assertEqual(player.title(), f"{escape(ODD)} · Evolution host")
                self.assertIn("60 games stored · 0 removals", text(player, ".page-head"))
                self.assertEqual(player.locator(".page-head .account").count(), 0)  # no account: an open host's name
                self.assertEqual(player.locator("table.player-games tbody tr").count(), 50)
                newest = player.locator("table.player-games tbody tr")
                self.assertRegex(newest.nth(0).inner_text(), r"^Game 60\s.*\s3rd of 3\s")  # it scored 0, bo 2, cy 1
                self.assertRegex(newest.nth(2).inner_text(), r"^Game 58\s.*\s=1st of 3\s")  # 2, as bo: a shared place
                player.click("text=older games →")
                arrived(player, "text=← newest games")
                rows = player.locator("table.player-games tbody tr")
                self.assertEqual(rows.count(), 10)
                self.assertRegex(rows.first.inner_text(), r"^Game 10\s")
                self.assertRegex(rows.last.inner_text(), r"^Game 1\s")
                self.assertEqual(names_link_to_their_pages(player), [])
                page.check(self)

        await deferToThread(browse)
