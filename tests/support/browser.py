"""Headless Chromium driven by Playwright (Python), for the web view's browser tests.

Offers ``missing()`` (why browser tests cannot run here, or None) and
``chromium()``, a context manager giving a Playwright ``Browser``: Debian's
Chromium at ``/usr/bin/chromium`` in a fresh temporary profile, never a
browser Playwright would download, with everything that talks to the
network on its own turned off. Playwright's sync API runs in the thread that
calls it: the tests call it from a worker thread while the reactor serves
the host on the main thread.
"""

from __future__ import annotations

import importlib.util
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "the playwright package is not installed (pip install -e '.[test]')"
    if not CHROMIUM.is_file():
        return f"no Chromium at {CHROMIUM} (apt-get install chromium)"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()
