"""The web view in a real browser: headless Chromium driven by Playwright, against a real host.

Each test runs the host on the reactor (this thread) and the browser on a
worker thread (Playwright's sync API); the browser thread starts bots on the
reactor with ``blockingCallFromThread``. Every page is also checked for
script errors and Content-Security-Policy violations: a page that works only
with a weaker policy fails here.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from twisted.internet import reactor
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.internet.threads import blockingCallFromThread, deferToThread
from twisted.trial import unittest

from evolution.store.operations import tournament_resumed
from evolution.text import escape
from tests.support.browser import chromium, missing
from tests.support.hosting import until
from tests.support.webhosting import QUICK, HeldPlayer, SlowPlayer, apply, new_web_host, tournament_operations

NASTY = '<img src=x onerror="document.title=\'owned\'">\x1b[31m\u202eevil'
SKIP = missing()


class Page:
    """A browser page that records script errors and policy violations."""

    def __init__(self, browser: Any, **options: Any) -> None:
        self.page = browser.new_page(**options)
        self.problems: list[str] = []
        self.page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        self.page.on("console", self._console)

    def _console(self, message: Any) -> None:
        if message.type == "error" and "Content Security Policy" in message.text:
            self.problems.append(message.text)

    def open(self, url: str) -> Any:
        self.page.goto(url)
        self.page.evaluate("window.sameDocument = true")  # gone if the page reloads
        return self.page

    def check(self, test: unittest.TestCase) -> None:
        test.assertTrue(self.page.evaluate("window.sameDocument === true"), "the page reloaded")
        test.assertEqual(self.problems, [])


def on_reactor(function: Callable[[], Any]) -> Any:
    """From the browser's thread: run ``function`` on the reactor (it must not wait) and return its value."""
    return blockingCallFromThread(reactor, function)


def text(page: Any, selector: str) -> str:
    return page.locator(selector).first.inner_text()


def names_link_to_their_pages(page: Any) -> list[str]:
    """Every name drawn on the page that is not a link to its player's page (the page's own subject aside)."""
    return page.evaluate("""() => [...document.querySelectorAll('main .name')]
        .filter((node) => !node.closest('h1'))
        .filter((node) => node.tagName !== 'A' || !node.getAttribute('href').startsWith('/players/'))
        .map((node) => node.outerHTML)""")


def shared_places(tournament: Any) -> dict[tuple[int, str], bool]:
    """The Swiss round table (player, points, then each round): (round, player) -> whether the cell shows a shared
    place ("=1st")."""
    cells = tournament.evaluate("""() => [...document.querySelectorAll('table.rounds tbody tr')].flatMap((row) =>
        [...row.querySelectorAll('td')].slice(2).map((cell, k) =>
            [k + 1, row.querySelector('td .name').textContent, cell.textContent]))""")
    return {(round, name): cell.startswith("=") for round, name, cell in cells if cell[:1] not in ("—", "o")}


def headings_over_their_games(tournament: Any) -> list[str]:
    """The bracket's round headings that are not right above their round's first game (all at one height)."""
    boxes = tournament.evaluate("""() => [...document.querySelectorAll('.bracket .round')].map((round) => {
        const heading = round.querySelector('h3').getBoundingClientRect();
        const game = round.querySelector('.bracket-game').getBoundingClientRect();
        return [round.querySelector('h3').textContent, heading.top, heading.bottom, heading.left, heading.right,
                game.top, game.left, game.right];
    })""")
    tops = {round(box[1]) for box in boxes}
    return [title for title, top, bottom, left, right, game_top, game_left, game_right in boxes
            if not (0 <= game_top - bottom <= 16 and left < game_right and game_left < right) or len(tops) > 1]


class BrowserTests(unittest.TestCase):
    timeout = 120
    skip = SKIP

    async def test_the_overview_follows_the_lobby_and_a_live_game_through_to_its_replay(self) -> None:
        host = new_web_host(self, "--players", "3-3", "--signup-window", "30", "--timeout", "2")
        clients: list = []

        def sign_up(*names: str) -> None:
            """From the browser's thread: one after another, so the page lists them in sign-up order."""
            for name in names:
                waiting = on_reactor(lambda: len(host.factory.lobby))
                clients.append(on_reactor(lambda name=name: [host.client(name, SlowPlayer(0.15))])[0])
                on_reactor(lambda: ensureDeferred(
                    until(lambda: len(host.factory.lobby) > waiting or host.runner.games_begun)))

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                overview = page.open(host.url("/"))
                overview.wait_for_selector("text=No game is running.")
                self.assertIn("0 players waiting", text(overview, "main"))
                sign_up("ann", NASTY)
                overview.wait_for_selector("text=2 players waiting")
                chips = overview.locator(".chips .name").all_inner_texts()
                self.assertEqual(chips, ["ann", escape(NASTY)])
                self.assertEqual(overview.locator("img").count(), 1)  # the brand icon: no name became markup
                self.assertEqual(overview.title(), "Evolution host")
                sign_up("cy")
                overview.wait_for_selector(".game-card .card-link")
                self.assertEqual(names_link_to_their_pages(overview), [])
                self.assertTrue(overview.evaluate("""() => {  // a name on a game's card is a link above the card's own
                    const name = document.querySelector('.game-card a.name');
                    const box = name.getBoundingClientRect();
                    return document.elementFromPoint(box.left + 2, box.top + box.height / 2) === name;
                }"""))
                page.check(self)

                overview.click(".game-card .card-link")
                game = overview
                game.wait_for_selector(".player")
                game.evaluate("window.sameDocument = true")
                self.assertEqual(sorted(game.locator(".player-name").all_inner_texts()), sorted(["ann", escape(NASTY), "cy"]))
                self.assertEqual(names_link_to_their_pages(game), [])
                self.assertRegex(game.title(), r"^Game \d+ · Evolution host$")
                first = text(game, ".table-head") + text(game, ".lines")
                game.wait_for_function(
                    "before => document.querySelector('.table-head').innerText"
                    " + document.querySelector('.lines').innerText !== before", arg=first)
                self.assertIn("live", text(game, "#status"))
                game.wait_for_selector("text=Result", timeout=60_000)  # the game ends, the page turns to its result
                game.wait_for_selector(".controls")
                page.check(self)

        await deferToThread(browse)
        await gatherResults(clients)

    async def test_a_finished_game_opens_on_its_result_and_steps_through_its_replay(self) -> None:
        host = new_web_host(self, "--players", "4-4", *QUICK, "--seed", "3")
        await gatherResults([host.client(f"bot {i}") for i in range(4)])
        [record] = await host.runner.when_games_over(1)
        scores = {seat.name: seat.score for seat in record.players}

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                game = page.open(host.url(f"/games/{record.id}"))
                game.wait_for_selector(".controls")
                for row in game.locator(".result li").all():
                    name = row.locator(".name").inner_text()
                    self.assertIn(f"{scores[name]} pts", row.inner_text())
                position = game.locator(".position")
                steps = int(re.search(r"of (\d+)", position.inner_text()).group(1))
                self.assertIn(f"step {steps} of {steps}", position.inner_text())  # opens on the end
                game.click("button[title^='first step']")
                self.assertIn(f"step 1 of {steps} · turn 1", position.inner_text())
                self.assertGreater(game.locator(".hand .trait").count(), 0)  # hands are shown once a game is over
                game.click("button[title^='step forward']")
                self.assertIn(f"step 2 of {steps}", position.inner_text())
                game.keyboard.press("ArrowRight")
                self.assertIn(f"step 3 of {steps}", position.inner_text())
                game.select_option("select[aria-label='jump to turn']", str(record.turns))
                self.assertIn(f"turn {record.turns}", position.inner_text())
                game.click("button[title^='first step']")
                game.click("button[title^='play']")
                game.wait_for_function("() => !/step 1 of/.test(document.querySelector('.position').innerText)")
                game.click("button[title^='pause']")
                self.assertGreater(game.locator(".species").count(), 0)
                links = game.locator(".downloads a")
                self.assertEqual(
                    [links.nth(k).get_attribute("href") for k in range(links.count())],
                    [f"/api/games/{record.id}/transcript"]
                    + [f"/api/games/{record.id}/transcript?seat={seat}" for seat in range(1, 5)]
                    + [f"/api/games/{record.id}/replay"],
                )
                page.check(self)

        await deferToThread(browse)

    async def test_tournament_pages_show_bracket_rounds_standings_and_failures_live(self) -> None:
        host = new_web_host(self, web={"store_refresh": 0.3})
        names = [f"player {i}" for i in range(1, 10)]
        swiss = tournament_operations(1, "swiss", names[:7], 1, cheats=["player 3"])
        knockout = tournament_operations(2, "knockout", names, 100)
        first_round = next(i for i, op in enumerate(knockout) if op["op"] == "round-over")
        apply(host.options["db"], swiss + knockout[: first_round + 1])
        scores_shared = {
            (op["game"]["round"], seat["name"]): sum(other["score"] == seat["score"] for other in op["game"]["players"]) > 1
            for op in swiss if op["op"] == "game" for seat in op["game"]["players"] if seat.get("score") is not None
        }
        self.assertIn(True, scores_shared.values())

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                tournament = page.open(host.url("/tournaments/1"))
                tournament.wait_for_selector("table.rounds")
                self.assertEqual(tournament.locator("table.rounds thead th").count(), 5)  # player, 3 rounds, points
                standings = tournament.locator(".panel").first.inner_text()
                for name in names[:7]:
                    self.assertIn(name, standings)
                self.assertRegex(standings, r"\d+\.\d\d ± \d+\.\d\d")  # ratings
                self.assertIn("Ranked by points, then the rating mu - 3 sigma; equal ranks are ties; failures last, "
                              "unranked.", standings)
                self.assertIn("μ − 3σ", standings)
                self.assertIn("player 3 failed in round 1: chose a card it does not hold", text(tournament, "main"))
                self.assertIn("Evolution · swiss · 3 rounds · 7 players", text(tournament, ".page-head"))
                self.assertEqual(tournament.title(), "Tournament 1 · Evolution host")
                self.assertEqual(shared_places(tournament), scores_shared)  # "=1st" where equal scores share it
                links = tournament.locator(".downloads a")
                self.assertEqual([links.nth(k).get_attribute("href") for k in range(links.count())],
                                 ["/api/tournaments/1/standings.csv", "/api/tournaments/1/standings.json"])
                page.check(self)

                game = page.open(host.url("/games/3"))  # 6, 6 and 5: the first two share the first place
                game.wait_for_selector(".result")
                places = [row.inner_text().split("\n") for row in game.locator(".result li").all()]
                self.assertEqual([row[:2] for row in places],
                                 [["=1st", "player 7"], ["=1st", "player 1"], ["3rd", "player 5"]])
                self.assertIn("ranked 2nd by the reverse of the final turn order (the course's rule: every player its own"
                              " rank)", game.locator(".result li").nth(1).inner_text())
                self.assertNotIn("ranked", game.locator(".result li").nth(0).inner_text())
                self.assertEqual(game.locator(".result .points").all_inner_texts(),
                                 ["10 tournament pts", "10 tournament pts", "0 tournament pts"])
                self.assertIn("= a place shared by equal scores", text(game, "main"))
                page.check(self)

                tournament = page.open(host.url("/tournaments/2"))
                tournament.wait_for_selector(".bracket .round")
                self.assertIn("running", text(tournament, ".page-head"))
                self.assertEqual(tournament.locator(".bracket .round").count(), 1)
                on_reactor(lambda: apply(host.options["db"], knockout[first_round + 1:]))
                tournament.wait_for_selector(".page-head >> text=finished")  # pushed, no reload
                self.assertEqual(tournament.locator(".bracket .round").count(), 2)
                self.assertGreater(tournament.locator(".bracket li.advanced").count(), 0)
                self.assertIn("★", text(tournament, ".winners"))
                standings = tournament.locator(".panel").first.inner_text()
                self.assertIn("Ranked by winners first, then the round reached, then the place in that round's game, "
                              "then the score in it;", standings)
                heads = tournament.locator(".panel").first.locator("thead th").all_inner_texts()
                self.assertEqual(heads[:5], ["#", "Player", "Reached", "Place", "Score"])  # no points in a knockout
                self.assertEqual(headings_over_their_games(tournament), [])
                self.assertEqual(tournament.locator(".bracket .round h3").last.inner_text(), "Final")
                page.check(self)
                tournament.locator(".bracket .round").last.locator(".card-link").click()  # the final
                tournament.wait_for_selector(".result")
                self.assertEqual(tournament.locator(".result .points").count(), 0)  # a knockout gives no points
                tournament.evaluate("window.sameDocument = true")
                page.check(self)

                overview = page.open(host.url("/"))
                overview.wait_for_selector(".tournament-card")
                self.assertEqual(overview.locator(".tournament-card").count(), 2)
                self.assertGreater(overview.locator("text=Rating leaderboard").count(), 0)
                self.assertEqual(overview.locator(".panel table.grid").last.locator("tbody tr").count(), 7)
                page.check(self)

        await deferToThread(browse)

    async def test_a_resumed_tournament_says_where_it_was_interrupted_and_when_it_was_resumed(self) -> None:
        host = new_web_host(self)
        swiss = tournament_operations(1, "swiss", [f"player {i}" for i in range(1, 8)], 1)
        *played, over = swiss
        apply(host.options["db"], played + [tournament_resumed(1, 2, "2026-11-27T10:00:00.000+00:00"), over])

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                tournament = page.open(host.url("/tournaments/1"))
                tournament.wait_for_selector("table.rounds")
                said = tournament.locator("p.resumed").inner_text()
                self.assertRegex(said, r"^Interrupted in round 2; resumed .*\(twistd evolution --resume\)\.$")
                self.assertIn("finished", text(tournament, ".page-head"))
                page.check(self)

        await deferToThread(browse)

    async def test_the_overview_shows_the_ladder_live(self) -> None:
        host = new_web_host(self, "--ladder", "--players", "3-3", "--signup-window", "0.3", "--timeout", "2")
        clients = [host.client(name, SlowPlayer(0.01)) for name in ("ann", "bo", NASTY)]

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                overview = page.open(host.url("/"))
                overview.wait_for_selector("#ladder tbody tr >> nth=2", timeout=60_000)  # pushed once a game is stored
                self.assertEqual(sorted(overview.locator("#ladder tbody .name").all_inner_texts()),
                                 sorted(["ann", "bo", escape(NASTY)]))
                self.assertIn("Ladder: ", text(overview, ".lobby-line"))
                page.check(self)

        await deferToThread(browse)
        host.factory.stop()
        await gatherResults(clients, consumeErrors=True)

    async def test_the_lobby_line_fits_the_moment_before_during_and_after_a_swiss(self) -> None:
        host = new_web_host(self, "--tournament", "swiss", "--rounds", "1", "--players", "3-5", "--max-signups", "3",
                            "--signup-window", "30", *QUICK, web={"store_refresh": 0.3})
        held = HeldPlayer()
        clients: list = []

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                overview = page.open(host.url("/"))
                overview.wait_for_selector("text=Tournament sign-up, period 1 of 2")
                self.assertIn("3 more players needed.", text(overview, ".lobby-line"))
                self.assertEqual(overview.locator("h1").inner_text(), "Evolution host")
                on_reactor(lambda: clients.extend([host.client("ann", held), host.client("bo"), host.client("cy")]))
                on_reactor(lambda: held.asked)  # the tournament runs, its only game held
                overview.wait_for_selector("text=Sign-ups are closed while tournament 1 runs (swiss, round 1).")
                on_reactor(held.release)
                overview.wait_for_selector("text=Tournament 1 is over, won by ", timeout=60_000)
                self.assertRegex(text(overview, ".lobby-line"), r"^Tournament 1 is over, won by [a-z, ]+\. The host takes"
                                 r" no more sign-ups; this page stays up to show the results\.$")
                page.check(self)

        await deferToThread(browse)
        await gatherResults(clients)

    async def test_a_game_of_one_size_says_so(self) -> None:
        host = new_web_host(self, "--players", "4-4", "--signup-window", "30")

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                overview = page.open(host.url("/"))
                overview.wait_for_selector(".lobby-line")
                self.assertEqual(text(overview, ".lobby-line"), "Waiting for 4 more players (a game needs 4 players).")
                self.assertEqual(overview.locator("h2", has_text="Tournaments").count(), 0)  # it plays none
                page.check(self)

        await deferToThread(browse)

    async def test_pages_fit_a_phone(self) -> None:
        host = new_web_host(self, "--players", "5-5", *QUICK)
        await gatherResults([host.client(f"a rather long bot name number {i}") for i in range(5)])
        [record] = await host.runner.when_games_over(1)
        apply(host.options["db"], tournament_operations(1, "swiss", [f"p{i}" for i in range(6)], 10))

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
                for path, ready in ((f"/games/{record.id}", ".controls"), ("/", ".panel"), ("/tournaments/1", ".rounds"),
                                    ("/players", ".players-list"), ("/games", ".games-list"),
                                    ("/tournaments", ".tournaments-list"), ("/players/p1", ".player-tournaments")):
                    phone = page.open(host.url(path))
                    phone.wait_for_selector(ready)
                    width = phone.evaluate("document.documentElement.scrollWidth")
                    self.assertLessEqual(width, 390, f"{path} is wider than the phone")
                page.check(self)

        await deferToThread(browse)
