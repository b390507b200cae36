"""The web view's pages at a glance, in headless Chromium at 1024, 1400 and 1920 px against a real host.

One store (a finished Swiss, a knockout still running, ladder games) and,
at each width, every kind of page: its header's navigation, nothing wider
than its card (a table that scrolls inside its card by design aside: the
Swiss round table does not, and its totals stay in view), the cards of a
row with their tops aligned, a bot's colour the same wherever its name is,
names that look like links. At 1400 px also what each page holds: the
tournament's podium, statistics, pairings and progress; a player's
opponents, tournaments and one-tournament chart; the players list's
search; the ladder's rank arrows and "last seen"; the "live" mark's colour.
"""

from __future__ import annotations

import json
import re
import urllib.request
from typing import Any

from twisted.internet.threads import deferToThread
from twisted.trial import unittest

from evolution.store.operations import game_operation
from tests.store.test_player_history import game
from tests.support.browser import chromium, missing
from tests.support.webhosting import apply, new_web_host, tournament_operations
from tests.web.test_browser import Page

WIDTHS = (1024, 1400, 1920)
SWISS = ["Darwin's finch", "wallace", "a rather long bot name that goes on", "mendel-bot 2", "Tiktaalik", "haeckel", "lamarck"]
KNOCKOUT = [f"player {i}" for i in range(1, 10)]
LADDER = ["wallace", "Tiktaalik", "haeckel", "lamarck"]

# Every card whose content is wider than the card itself (unless the card scrolls by design), and the page
# wider than the window.
OVERFLOWS = """() => {
  const cards = [...document.querySelectorAll('.panel, .card, .bracket-game, .player, .side, .stat, .podium .step')];
  const wide = cards.filter((card) => !['auto', 'scroll'].includes(getComputedStyle(card).overflowX)
    && card.scrollWidth > card.clientWidth + 1);
  const page = document.documentElement.scrollWidth > window.innerWidth ? ['the page itself'] : [];
  return page.concat(wide.map((card) => `${card.className} (${card.querySelector('h2, h3')?.textContent ?? ''}):`
    + ` ${card.scrollWidth} > ${card.clientWidth}`));
}"""

# name -> the colours its names are drawn in on this page (one each, if a bot keeps its colour).
COLOURS = """() => {
  const seen = {};
  for (const node of document.querySelectorAll('main .name')) {
    (seen[node.textContent] ??= new Set()).add(getComputedStyle(node).getPropertyValue('--seat').trim());
  }
  return Object.fromEntries(Object.entries(seen).map(([name, colours]) => [name, [...colours]]));
}"""

# The links among names that do not look like links (no underline).
PLAIN_LINKS = """() => [...document.querySelectorAll('main a.name')]
  .filter((link) => !getComputedStyle(link).textDecorationLine.includes('underline')).map((link) => link.textContent)"""

# The tops of the tournament page's cards in its first row (one top when they are level).
FIRST_ROW_TOPS = """() => {
  const boxes = [...document.querySelectorAll('.tournament-layout > .panel')].map((card) => card.getBoundingClientRect());
  const first = boxes.filter((box) => box.top < boxes[0].bottom && box.bottom > boxes[0].top);
  return [...new Set(first.map((box) => Math.round(box.top)))];
}"""

READY = {
    "/": ".panel",
    "/ladder": ".ladder-table",
    "/tournaments": ".tournaments-list",
    "/tournaments/1": "table.rounds",
    "/tournaments/2": ".bracket .round",
    "/players": ".players-list",
    "/players/wallace": ".player-tournaments",
    "/games": ".games-list",
    "/games/1": ".result",
}


class PagesAtAGlanceTests(unittest.TestCase):
    timeout = 240
    skip = missing()

    def setUp(self) -> None:
        self.host = new_web_host(self)
        swiss = tournament_operations(1, "swiss", SWISS, 1, cheats=["mendel-bot 2"])
        knockout = tournament_operations(2, "knockout", KNOCKOUT, 100)
        first_round = next(i for i, op in enumerate(knockout) if op["op"] == "round-over")
        ladder = [game_operation(game(300 + k, [(LADDER[(k + s) % 4], (k * s) % 5) for s in range(3)], ladder=True))
                  for k in range(8)]
        apply(self.host.options["db"], swiss + knockout[: first_round + 1] + ladder)

    def look(self, page: Page, path: str, width: int, colours: dict[str, set[str]]) -> Any:
        """Open ``path``; check its header, its cards' widths, its names' colours and links; the page."""
        tab = page.open(self.host.url(path))
        tab.wait_for_selector(READY[path])
        where = f"{path} at {width} px"
        self.assertEqual(tab.locator("nav.site a").all_inner_texts(),
                         ["Overview", "Ladder", "Tournaments", "Players", "Games"], where)
        current = tab.locator("nav.site a[aria-current='page']").all_inner_texts()
        self.assertEqual(current, [{"": "Overview", "ladder": "Ladder", "tournaments": "Tournaments", "players": "Players",
                                    "games": "Games"}[path.split("/")[1]]], where)  # the section it is in
        self.assertEqual(tab.evaluate(OVERFLOWS), [], where)
        self.assertEqual(tab.evaluate(PLAIN_LINKS), [], where)
        for name, drawn in tab.evaluate(COLOURS).items():
            colours.setdefault(name, set()).update(drawn)
        return tab

    def test_every_page_fits_its_cards_at_three_widths_and_says_what_an_organiser_looks_for(self) -> None:
        def browse() -> None:
            colours: dict[str, set[str]] = {}
            with chromium() as browser:
                for width in WIDTHS:
                    page = Page(browser, viewport={"width": width, "height": 900})
                    for path in READY:
                        tab = self.look(page, path, width, colours)
                        if path.startswith("/tournaments/"):  # the standings' and the bracket's or round table's
                            self.assertEqual(len(tab.evaluate(FIRST_ROW_TOPS)), 1, f"{path}'s cards' tops differ at {width} px")
                        if path == "/tournaments/1":
                            self.swiss(tab, width)
                        if width == 1400:
                            getattr(self, f"at_1400_{path.split('/')[1] or 'overview'}", lambda tab, path: None)(tab, path)
                    page.check(self)
                    page.page.close()
            self.assertEqual({name: drawn for name, drawn in colours.items() if len(drawn) != 1}, {})

        return deferToThread(browse)

    def swiss(self, tab: Any, width: int) -> None:
        """The Swiss round table: its totals beside the names, the whole table in its card."""
        heads = tab.locator("table.rounds thead th").all_inner_texts()
        self.assertEqual(heads, ["Player", "Points", "Round 1", "Round 2", "Round 3"])
        scrolls = tab.evaluate("() => { const box = document.querySelector('table.rounds').parentElement;"
                               " return box.scrollWidth > box.clientWidth; }")
        self.assertFalse(scrolls, f"the round table scrolls at {width} px")

    def at_1400_tournaments(self, tab: Any, path: str) -> None:
        if path == "/tournaments":
            self.assertEqual(tab.locator(".tournaments-list tbody tr").count(), 2)
            return
        if path == "/tournaments/2":  # running: where it stands, in a calm green
            self.assertRegex(tab.locator(".progress").inner_text(),
                             r"^live Round 1 is over \(2 games\)\. Round 2 begins as soon as the host has seated its tables")
            red, green, _ = map(int, re.findall(r"\d+", tab.locator(".progress .pill.running").evaluate(
                "(pill) => getComputedStyle(pill).color"))[:3])
            self.assertGreater(green, red)
            self.assertEqual(tab.locator(".podium").count(), 0)
            return
        standings = {row["name"]: row for row in self.tournament(1)["standings"]}
        podium = tab.locator(".podium .step")
        self.assertEqual(podium.count(), 3)
        first = tab.locator(".podium .step-1 .name").all_inner_texts()
        self.assertEqual(first, [name for name, row in standings.items() if row["rank"] == 1])
        stats = tab.locator(".stats").inner_text()
        games = self.tournament(1)["game_summaries"]
        removed = sum(player["removed"] is not None for game in games for player in game["players"])
        self.assertIn(f"games played\n{len(games)}\n", stats)
        self.assertIn(f"removals\n{removed}\n", stats)
        self.assertIn("failures\n1", stats)
        self.assertRegex(stats, r"turns a game \(mean\)\n\d+\.\d\n")
        columns = tab.locator("section:has(h2:text('Pairings and results')) .round")
        self.assertEqual(columns.count(), 3)
        self.assertEqual(columns.nth(0).locator(".bracket-game").count(), len([g for g in games if g["tournament"]["round"] == 1]))
        self.assertRegex(columns.nth(0).locator(".bracket-game li").first.inner_text(), r"^=?1st")

    def at_1400_players(self, tab: Any, path: str) -> None:
        if path == "/players":
            self.assertEqual(tab.locator(".players-list tbody tr").count(), len(set(SWISS + KNOCKOUT)))
            tab.fill("#player-search", "PLAYER")
            tab.press("#player-search", "Enter")
            tab.wait_for_url(re.compile(r"/players\?q=PLAYER$"))
            tab.wait_for_selector(".players-list")
            self.assertEqual(sorted(tab.locator(".players-list .name").all_inner_texts()), sorted(KNOCKOUT))
            self.assertRegex(tab.locator(".players-list tbody tr").first.inner_text(), r"\d+ games?\t(.+ ago|just now)$")
            return
        heads = tab.locator(".player-games thead th").all_inner_texts()
        self.assertEqual(heads, ["Game", "Ended", "Where", "Place", "Score", "Opponents (their place)",
                                 "Tournament points", "Removed"])
        self.assertEqual(sum("pts" in head for head in heads), 0)
        first = tab.locator(".player-games tbody tr").first
        self.assertGreaterEqual(first.locator(".opponents .name").count(), 2)
        rows = tab.locator(".player-tournaments tbody tr").all_inner_texts()
        self.assertEqual(len(rows), 1)
        [entrant] = [row for row in self.tournament(1)["standings"] if row["name"] == "wallace"]
        self.assertRegex(rows[0], rf"^Tournament 1\t.*\tswiss\t\S+ of 7\t{entrant['points']}\t")
        swiss_chart = tab.locator("figure.chart").last
        self.assertIn("its one tournament so far (tournament 1", swiss_chart.inner_text())
        self.assertEqual(swiss_chart.locator("circle.dot").count(), 2)  # where it started, where it ended
        self.assertEqual([t.text_content() for t in swiss_chart.locator("text.end").all()], ["start", "tournament 1"])

    def at_1400_ladder(self, tab: Any, path: str) -> None:
        ranks = {row.locator(".name").inner_text(): row.locator("td").first.inner_text()
                 for row in tab.locator(".ladder-table tbody tr").all()}
        self.assertEqual(sorted(ranks), sorted(LADDER))
        self.assertEqual(tab.locator(".ladder-table .move").count(), 0)  # nothing to compare with yet
        self.assertTrue(all(re.search(r"ago$|^just now$", cell) for cell in
                            tab.locator(".ladder-table tbody tr td:last-child").all_inner_texts()))
        # this browser saw another order before: each rank's change since
        last = max(int(re.match(r"\d+", rank).group()) for rank in ranks.values())
        before = {name: last + 1 - int(re.match(r"\d+", rank).group()) for name, rank in ranks.items()}
        tab.evaluate("(before) => { const key = Object.keys(localStorage).find((k) => k.startsWith('ladder-ranks'));"
                     " localStorage.setItem(key, JSON.stringify({at: '2026-01-01T00:00:00Z', ranks: before}));}", before)
        tab.reload()
        tab.wait_for_selector(".ladder-table")
        tab.evaluate("window.sameDocument = true")
        for row in tab.locator(".ladder-table tbody tr").all():
            name = row.locator(".name").inner_text()
            rank = int(re.match(r"\d+", row.locator("td").first.inner_text()).group())
            change = before[name] - rank
            marks = row.locator(".move").all_inner_texts()
            self.assertEqual(marks, [] if change == 0 else [f"{'▲' if change > 0 else '▼'}{abs(change)}"], name)

    def tournament(self, number: int) -> Any:
        """From the browser's thread: the tournament as the API answers."""
        with urllib.request.urlopen(self.host.url(f"/api/tournaments/{number}"), timeout=60) as answer:
            return json.load(answer)
