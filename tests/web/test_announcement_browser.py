"""The organiser's announcement in a real browser (headless Chromium, Playwright), against a real host: a calm banner
at the top of every page, shown live on a page that follows a stream of its own (the overview) and on one that
does not (the players list), replaced, drawn as text (never as markup), and gone when taken down."""

from __future__ import annotations

from twisted.internet import reactor
from twisted.internet.threads import deferToThread
from twisted.trial import unittest

from evolution.host.console.announcements import NoticeBoard
from tests.support.browser import chromium, missing
from tests.support.webhosting import new_web_host
from tests.web.test_browser import NASTY, Page, on_reactor, text

SKIP = missing()


class AnnouncementTests(unittest.TestCase):
    timeout = 120
    skip = SKIP

    async def test_every_page_shows_the_announcement_live_until_it_is_taken_down(self) -> None:
        notices = NoticeBoard(reactor)
        host = new_web_host(self, "--ladder", web={"notices": notices})

        def browse() -> None:
            with chromium() as browser:
                pages = [Page(browser, viewport={"width": 1024, "height": 800}) for _ in range(2)]
                overview, players = pages[0].open(host.url("/")), pages[1].open(host.url("/players"))
                overview.wait_for_selector("#ladder, .lobby-line", timeout=30_000)
                self.assertEqual(overview.locator("#announcement").count(), 0)
                on_reactor(lambda: notices.announce("Round 2 begins at 14:00", "the test"))
                for page in (overview, players):
                    page.wait_for_selector("#announcement", timeout=30_000)
                    self.assertEqual(text(page, "#announcement"), "Round 2 begins at 14:00")
                    banner = page.locator("#announcement").bounding_box()
                    header = page.locator("header.top").bounding_box()
                    self.assertAlmostEqual(banner["y"], header["y"] + header["height"], delta=1)  # right under it
                on_reactor(lambda: notices.announce(NASTY, "the test"))
                for page in (overview, players):
                    page.wait_for_function("(text) => document.getElementById('announcement')?.textContent === text",
                                           arg=" ".join(NASTY.split()), timeout=30_000)
                    self.assertNotEqual(page.title(), "owned")
                later = Page(browser, viewport={"width": 1400, "height": 800})  # a page opened now shows it at once
                self.assertEqual(later.open(host.url("/ladder")).wait_for_selector("#announcement").text_content(),
                                 " ".join(NASTY.split()))
                on_reactor(lambda: notices.clear("the test"))
                for page in (overview, players, later.page):
                    page.wait_for_selector("#announcement", state="detached", timeout=30_000)
                for page in (*pages, later):
                    page.check(self)

        await deferToThread(browse)
