"""Fish in the web view, in a real browser: a live game, a replay stepped through, a tournament, a phone.

Headless Chromium (Playwright) against a real host run with ``--game fish`` and real Fish
clients on loopback, as ``test_web_browser`` does for Evolution; every page is checked for
script errors and Content-Security-Policy violations. What is asserted is what a person
sees: the board's tiles and holes, the fish on them, the penguins in their players' colours,
the arrows of the last moves, whose turn it is, the scores, the lines, the replay's steps.
"""

from __future__ import annotations

import re
from typing import Any

from twisted.internet.defer import gatherResults
from twisted.internet.threads import deferToThread
from twisted.trial import unittest

from evolution.text import escape
from tests.support.browser import chromium, missing
from tests.support.hosting import until
from tests.support.webhosting import Gate, fish_client, new_web_host
from tests.web.test_browser import NASTY, Page, headings_over_their_games, on_reactor, text

SKIP = missing()
FISH = ("--game", "fish", "--start-timeout", "5", "--first-move-timeout", "5", "--signup-timeout", "5")
QUICK = (*FISH, "--timeout", "2", "--signup-window", "0.2", "--number-grace", "0.01")


def tiles(page: Any) -> dict[str, int]:
    """The board as the page draws it: tiles, holes, fish drawn, penguins, arrows and rings."""
    return page.evaluate("""() => {
        const board = document.querySelector('.fish-board');
        const all = [...board.querySelectorAll('.tile')];
        return {
            tiles: all.length,
            holes: all.filter((t) => t.dataset.fish === '0').length,
            fish: all.reduce((sum, t) => sum + Number(t.dataset.fish), 0),
            glyphs: board.querySelectorAll('.fish-glyph').length,
            penguins: board.querySelectorAll('.penguin').length,
            moves: board.querySelectorAll('.trail.moved').length,
            rings: board.querySelectorAll('.trail.placed').length,
            latest: board.querySelectorAll('.trail.latest').length,
        };
    }""")


MARKS = {  # every mark the board draws -> the legend's entry that explains it
    ".fish-glyph": "fish", ".fish-count": "fish", ".coordinates": "fish", ".tile.hole": "hole",
    ".penguin": "penguin", ".trail.moved": "moved", ".trail.placed": "placed", ".tile.changed": "changed",
}


def unexplained_marks(page: Any) -> list[str]:
    """The board's marks with no legend entry drawing the same mark beside its words."""
    return page.evaluate("""(marks) => Object.entries(marks).filter(([selector, entry]) => {
        const item = document.querySelector(`.fish-legend li[data-mark="${entry}"]`);
        return !item || !item.querySelector(`.legend-icon ${selector}`) || item.innerText.trim().length < 10;
    }).map(([selector]) => selector)""", MARKS)


class FishBrowserTests(unittest.TestCase):
    timeout = 180
    skip = SKIP

    async def test_a_live_game_shows_the_board_whose_turn_it_is_and_the_last_moves_then_its_result(self) -> None:
        host = new_web_host(self, *FISH, "--players", "3-3", "--board", "4x5", "--timeout", "30", "--signup-window", "30")
        clients: list = []
        placing = Gate()  # no penguin is placed before the page follows the game, however slow the browser

        def sign_up(*names: str) -> None:
            clients.extend(fish_client(host, name, delay=0.12, gate=placing) for name in names)

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                overview = page.open(host.url("/"))
                overview.wait_for_selector("text=No game is running.")
                on_reactor(lambda: sign_up("ann", "bea", "cyd"))
                overview.wait_for_selector(".game-card .card-link")
                self.assertRegex(text(overview, ".game-card .muted"), r"^(placement|turn \d+) · ")  # Fish's words
                overview.click(".game-card .card-link")
                live = overview
                live.wait_for_selector(".fish-board .tile")
                on_reactor(placing.open)
                live.wait_for_selector(".fish-board .penguin")
                live.evaluate("window.sameDocument = true")
                self.assertEqual(live.title().split(" · ")[0], live.locator("h1").inner_text())
                drawn = tiles(live)
                self.assertEqual(drawn["tiles"], 20)  # 4 rows of 5
                self.assertEqual(drawn["glyphs"], drawn["fish"])  # a fish drawn for every fish on the board
                self.assertEqual(sorted(live.locator(".fish-player .player-name").all_inner_texts()), ["ann", "bea", "cyd"])
                colours = live.locator(".fish-player").evaluate_all("cards => cards.map((c) => c.className)")
                self.assertEqual([c.split()[1] for c in colours], ["red", "white", "brown"])  # by seat
                self.assertEqual(live.locator(".fish-player .badge.first").count(), 1)  # who acts next
                self.assertIn("fish left on", text(live, ".fish-left"))
                self.assertEqual(unexplained_marks(live), [])
                self.assertIn("3 and 3 fish drawn: the fish on a tile; 0,0: its row and column",
                              text(live, '.fish-legend li[data-mark="fish"]'))
                self.assertEqual((live.title().split(" · ")[-1], text(live, ".brand")), ("Fish host", "Fish host"))
                live.wait_for_selector(".fish-board .trail.moved", timeout=60_000)  # the moves have begun
                drawn = tiles(live)
                self.assertEqual(drawn["penguins"], 9)  # three players, three penguins each
                self.assertGreater(drawn["holes"], 0)  # a tile left is a hole
                self.assertEqual(drawn["latest"], 1)
                self.assertRegex(text(live, ".lines"), r"moved \[\d, \d\] → \[\d, \d\] and took \d fish")
                self.assertIn("live", text(live, "#status"))
                scores = [int(s) for s in live.locator(".fish-player .catch .score").all_inner_texts()]
                self.assertGreater(sum(scores), 0)
                live.wait_for_selector("text=Result", timeout=90_000)
                live.wait_for_selector(".controls")
                self.assertRegex(text(live, ".result"), r"\d+ fish")
                page.check(self)

        await deferToThread(browse)
        await gatherResults(clients)

    async def test_a_finished_game_steps_through_placements_moves_and_a_removal(self) -> None:
        host = new_web_host(self, *QUICK, "--players", "3-3", "--board", "5x5", "--seed", "8")
        clients = []
        for name, strategy in (("cyd", "cheater"), ("bea", "maximin"), ("ann", "greedy")):
            clients.append(fish_client(host, name, strategy))
            await until(lambda: len(host.factory.lobby) >= len(clients) or host.runner.games_begun)
        await gatherResults(clients)
        [record] = await host.runner.when_games_over(1)
        self.assertEqual([seat.name for seat in record.players], ["ann", "bea", "cyd"])  # reverse sign-up order
        scores = {seat.name: seat.score for seat in record.players if seat.removed_reason is None}
        [cheater] = [seat for seat in record.players if seat.removed_reason]

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                replay = page.open(host.url(f"/games/{record.id}"))
                replay.wait_for_selector(".controls .position")
                result = text(replay, ".result")
                for name, score in scores.items():
                    self.assertRegex(result, rf"{name}\s+{score} fish")
                self.assertIn(f"{cheater.name}\nremoved in turn {cheater.removed_turn} (moving): illegal move", result)
                self.assertIn(f"board from seed {record.seed}", text(replay, ".panel .note"))
                position = replay.locator(".position")
                steps = int(re.search(r"of (\d+)", position.inner_text()).group(1))
                self.assertIn(f"step {steps} of {steps} · turn {record.turns} · game over", position.inner_text())
                places = {card.locator(".player-name").inner_text(): card.locator(".place").inner_text()
                          for card in replay.locator(".fish-player").all()}  # the last step shows the places
                self.assertEqual(places, {seat.name: {1: "1st", 2: "2nd"}[seat.rank] for seat in record.players
                                          if seat.rank is not None})
                replay.click("button[title^='first step']")
                self.assertIn(f"step 1 of {steps} · placement · colours told", position.inner_text())
                self.assertEqual(tiles(replay)["penguins"], 0)
                placed = 0
                while placed < 3:  # step forward by key: each placement adds a penguin and a ring
                    replay.keyboard.press("ArrowRight")
                    if "penguin placed" in position.inner_text():
                        placed += 1
                        drawn = tiles(replay)
                        self.assertEqual((drawn["penguins"], drawn["rings"], drawn["holes"]), (placed, placed, 0))
                self.assertEqual(replay.locator(".replay-lines .line").count(), 1)
                self.assertRegex(text(replay, ".replay-lines"), r"placed a penguin on \[\d, \d\] \(\d fish\)")
                replay.select_option("select[aria-label='jump to turn']", "1")
                self.assertIn("turn 1 · penguin moved", position.inner_text())
                drawn = tiles(replay)
                self.assertEqual((drawn["moves"], drawn["holes"], drawn["latest"]), (1, 1, 1))
                self.assertEqual(replay.locator(".fish-board .tile.changed").count(), 2)  # the tile left and the one reached
                self.assertIn("fish left on", text(replay, ".replay-lines").lower() + text(replay, ".side .note"))
                replay.select_option("select[aria-label='jump to turn']", str(cheater.removed_turn))
                while "removed" not in text(replay, ".replay-board"):
                    replay.keyboard.press("ArrowRight")
                self.assertIn(f"{cheater.name} removed in turn {cheater.removed_turn} (moving): illegal move",
                              text(replay, ".removals"))
                self.assertEqual(replay.locator(".fish-player").count(), 2)  # the cheater's penguins left with it
                page.check(self)

        await deferToThread(browse)

    async def test_a_fish_tournament_page_shows_its_bracket_and_leads_to_its_games(self) -> None:
        host = new_web_host(self, *QUICK, "--tournament", "knockout", "--max-signups", "6", "--signup-window", "10",
                            "--seed", "3", web={"store_refresh": 0.3})
        names = ["ann", "bea", "cyd", "dee", "eve", "fay"]
        clients = []
        for name in names:
            clients.append(fish_client(host, name))
            await until(lambda: len(host.factory.lobby) >= len(clients) or host.tournaments.current is not None)
        await host.tournaments.when_over(1)
        await gatherResults(clients)

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                tournament = page.open(host.url("/tournaments/1"))
                tournament.wait_for_selector(".bracket .round")
                self.assertIn("finished", text(tournament, ".page-head"))
                self.assertGreaterEqual(tournament.locator(".bracket .round").count(), 2)
                self.assertEqual(tournament.locator(".bracket .round").first.locator(".bracket-game").count(), 2)  # 4 and 2
                self.assertIn("★", text(tournament, ".winners"))
                standings = tournament.locator(".panel").first.inner_text()
                for name in names:
                    self.assertIn(name, standings)
                self.assertIn("Fish · knockout · ", text(tournament, ".page-head"))
                self.assertEqual(tournament.title(), "Tournament 1 · Fish host")
                self.assertEqual(headings_over_their_games(tournament), [])
                page.check(self)
                tournament.locator(".bracket-game .card-link").first.click()  # a link: a new page
                tournament.wait_for_selector(".controls")
                tournament.evaluate("window.sameDocument = true")
                self.assertEqual(tiles(tournament)["tiles"], 36)  # the default 6 x 6 board
                self.assertIn("Tournament 1, round 1", text(tournament, ".page-head"))
                self.assertNotIn("tournament pt", text(tournament, ".result"))  # a knockout gives no points
                self.assertEqual(unexplained_marks(tournament), [])  # the replay's last step: a legend too
                page.check(self)

        await deferToThread(browse)

    async def test_the_drawing_writes_every_name_as_text(self) -> None:
        host = new_web_host(self, *FISH)
        table = {
            "turn": 3, "step": "take-turn", "rows": 2, "cols": 2, "board": [[1, 0], [3, 5]], "fish_left": 9,
            "tiles_left": 3, "to_act": 1,
            "players": [{"seat": 1, "name": NASTY, "color": "red", "score": 4, "penguins": [[1, 1]], "can_move": True},
                        {"seat": 2, "name": "bea", "color": "white", "score": 2, "penguins": [[0, 0]], "can_move": False}],
            "last": [{"seat": 1, "color": "red", "kind": "moved", "from": [0, 1], "to": [1, 1]}],
            "removed": [{"seat": 3, "name": NASTY, "turn": 2, "step": "take-turn", "reason": "<b>bold</b>\u202e"}],
        }

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 1280, "height": 900})
                shown = page.open(host.url("/"))
                shown.wait_for_selector(".panel")
                shown.evaluate("""async (table) => {
                    const drawing = await import('/static/js/games/fish.js');
                    document.getElementById('main').replaceChildren(drawing.table(table));
                }""", table)
                self.assertEqual(text(shown, ".fish-player .player-name"), escape(NASTY))
                self.assertIn(escape("<b>bold</b>\u202e"), text(shown, ".removals"))
                self.assertEqual(shown.locator("main img, main b").count(), 0)  # no name became markup
                self.assertEqual(shown.title(), "Fish host")
                titles = shown.locator(".fish-board title").all_text_contents()
                self.assertIn(f"{escape(NASTY)}'s penguin (red) on [1, 1]", titles)
                self.assertIn("stuck", shown.locator(".fish-player").nth(1).inner_html())  # bea cannot move
                self.assertEqual(tiles(shown)["moves"], 1)
                page.check(self)

        await deferToThread(browse)

    async def test_a_fish_game_fits_a_phone(self) -> None:
        host = new_web_host(self, *QUICK, "--players", "2-2", "--board", "8x8")
        await gatherResults([fish_client(host, name) for name in ("ann", "bea")])
        [record] = await host.runner.when_games_over(1)

        def browse() -> None:
            with chromium() as browser:
                page = Page(browser, viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
                phone = page.open(host.url(f"/games/{record.id}"))
                phone.wait_for_selector(".fish-board")
                self.assertLessEqual(phone.evaluate("document.documentElement.scrollWidth"), 390)
                width = phone.evaluate("document.querySelector('.fish-board').getBoundingClientRect().width")
                self.assertGreater(width, 300)  # the board takes the phone's width
                page.check(self)

        await deferToThread(browse)
