"""Draw the README's screenshots of the web view: a live game between bots that think, a ladder, a player.

    .venv/bin/python tests/support/web_screenshot.py docs/web-view.png [--game fish] [--width 1440] [--height 720] [--dark] [--seed S]
    .venv/bin/python tests/support/web_screenshot.py docs/web-view-ladder.png --page ladder
    .venv/bin/python tests/support/web_screenshot.py docs/web-view-player.png --page player
    .venv/bin/python tests/support/web_screenshot.py docs/web-view-tournament.png --page tournament [--width 1400]
    .venv/bin/python tests/support/web_screenshot.py docs/web-view-players.png --page players

Runs a host with its web view on loopback in this process, signs up slow
bots (Evolution: six silly ones; Fish: four, greedy and maximin), and once
the game is well under way (Evolution: its second turn's feeding; Fish: its
ninth move), has headless Chromium (``browser.chromium``) open the game's
page and take a picture of it. ``--page ladder`` and ``--page player`` run
a ladder of seven bots instead (a cheater removed in its first game, a bot
that joins late: both provisional) until it has played ``LADDER_GAMES``
games, and picture the ladder's page (its provisional marks and removals) or
the page of one bot (its rating over time and its games). ``--page
tournament`` and ``--page players`` store a Swiss tournament of seven bots
played in this process (``webhosting.tournament_operations``) and picture its
page (podium, statistics, standings, round table, pairings) or the players
list.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout, for tests.support

from twisted.internet import reactor  # noqa: E402
from twisted.internet.defer import ensureDeferred  # noqa: E402
from twisted.internet.task import deferLater  # noqa: E402
from twisted.internet.threads import blockingCallFromThread, deferToThread  # noqa: E402

from evolution.games import game  # noqa: E402
from tests.support.browser import chromium, missing  # noqa: E402
from tests.support.hosting import until  # noqa: E402
from tests.support.webhosting import SlowPlayer, WebHost, apply, fish_client, get, tournament_operations  # noqa: E402


class Scene(NamedTuple):
    """What to picture of one game: the host's options, its bots, when to shoot, what the page must show."""

    options: tuple[str, ...]
    sign_up: Callable[[WebHost], None]
    ready: Callable[[Any], bool]  # of the running game, as /api/games/ID shows it
    drawn: str  # a selector of the drawn table


def evolution_bots(host: WebHost) -> None:
    for name in ["Darwin's finch", "wallace", "<b>Lamarck</b>", "mendel-bot 2", "Tiktaalik", "haeckel"]:
        host.client(name, SlowPlayer(0.5))


def fish_bots(host: WebHost) -> None:
    for name, strategy in (("Adelie", "greedy"), ("Gentoo", "maximin"), ("Emperor", "greedy"), ("Chinstrap", "maximin")):
        fish_client(host, name, strategy, 0.6)


SCENES = {
    "evolution": Scene(("--players", "6-6", "--timeout", "2"), evolution_bots,
                       lambda game: game["turn"] >= 2 and game["step"] == "feed", ".species"),
    "fish": Scene(("--game", "fish", "--players", "4-4", "--timeout", "3", "--first-move-timeout", "3"), fish_bots,
                  lambda game: game["turn"] >= 9, ".fish-board"),
}


async def started(host: WebHost, scene: Scene) -> str:
    """Sign the bots up; once their game is where the scene wants it, the URL of its page."""
    scene.sign_up(host)
    await until(lambda: host.runner.running)
    [game_id] = host.runner.running
    while True:  # the game may be played in a worker process: where it stands as the API says
        answer = (await get(host.url(f"/api/games/{game_id}"))).json()
        if answer.get("status") != "running" or scene.ready(answer):
            return host.url(f"/games/{game_id}")
        await deferLater(reactor, 0.05, lambda: None)


def shoot(host: WebHost, arguments: Any) -> None:
    """On a worker thread: a browser ready first, then the game, then the picture."""
    with chromium() as browser:
        page = browser.new_page(
            viewport={"width": arguments.width, "height": arguments.height},
            color_scheme="dark" if arguments.dark else "light",
        )
        page.goto(host.url("/"))
        scene = SCENES[arguments.game]
        url = blockingCallFromThread(reactor, lambda: ensureDeferred(started(host, scene)))
        page.goto(url)
        page.wait_for_selector(scene.drawn)
        page.wait_for_selector(".status.live, .controls")
        page.wait_for_timeout(400)
        page.screenshot(path=str(arguments.path))


LADDER_GAMES = 24
LADDER = ("--ladder", "--players", "3-4", "--signup-window", "0.3", "--timeout", "2")
PAGES = {"ladder": "/ladder", "player": "/players/Lamarck"}
STORED = {"tournament": ("/tournaments/1", ".podium"), "players": ("/players", ".players-list")}
SWISS = ("Darwin's finch", "wallace", "Lamarck", "mendel-bot 2", "Tiktaalik", "haeckel", "a rather long bot name, Cuvier")


async def ladder_played(host: WebHost) -> None:
    """Seven bots on the ladder: a cheater removed from its first game, a late one; until LADDER_GAMES are stored."""
    for name in ("Darwin's finch", "wallace", "Lamarck", "mendel-bot 2", "haeckel"):
        host.client(name, SlowPlayer(0.01))
    host.client("cheater", game("evolution").strategy("cheater"))
    await until(lambda: host.runner.games_over >= LADDER_GAMES, interval=0.2)
    host.client("Tiktaalik", SlowPlayer(0.01))  # joins late: a provisional rating
    await until(lambda: sum("Tiktaalik" in [seat.name for seat in game.players] for game in host.runner.records) >= 2,
                interval=0.2)
    await host.writer.idle()


def shoot_page(host: WebHost, arguments: Any) -> None:
    """On a worker thread: the ladder plays, then the picture of its page or of a player's."""
    blockingCallFromThread(reactor, lambda: ensureDeferred(ladder_played(host)))
    with chromium() as browser:
        page = browser.new_page(viewport={"width": arguments.width, "height": arguments.height},
                                color_scheme="dark" if arguments.dark else "light")
        page.goto(host.url(PAGES[arguments.page]))
        page.wait_for_selector(".ladder-table, .rating-chart")
        page.wait_for_timeout(400)
        page.screenshot(path=str(arguments.path))


def shoot_stored(host: WebHost, arguments: Any) -> None:
    """On a worker thread: a Swiss stored (a cheater fails in round 1), then the picture of its page or the players'."""
    blockingCallFromThread(reactor, lambda: apply(host.options["db"], tournament_operations(
        1, "swiss", SWISS, 1, seed=arguments.seed, cheats=["mendel-bot 2"])))
    path, ready = STORED[arguments.page]
    with chromium() as browser:
        page = browser.new_page(viewport={"width": arguments.width, "height": arguments.height},
                                color_scheme="dark" if arguments.dark else "light")
        page.goto(host.url(path))
        page.wait_for_selector(ready)
        page.wait_for_timeout(400)
        page.screenshot(path=str(arguments.path), full_page=arguments.page == "tournament")


async def draw(arguments: Any, folder: Path) -> None:
    if arguments.page in STORED:
        host = WebHost(folder, "--seed", str(arguments.seed))
        try:
            await deferToThread(shoot_stored, host, arguments)
        finally:
            await host.stop()
        return
    if arguments.page is not None:
        host = WebHost(folder, *LADDER, "--seed", str(arguments.seed))
    else:
        host = WebHost(folder, *SCENES[arguments.game].options, "--seed", str(arguments.seed))
    try:
        await deferToThread(shoot_page if arguments.page is not None else shoot, host, arguments)
    finally:
        await host.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--game", choices=sorted(SCENES), default="evolution")
    parser.add_argument("--page", choices=sorted([*PAGES, *STORED]),
                        help="a ladder's page, a player's, a tournament's or the players list, instead of a game")
    parser.add_argument("--width", type=int, default=1440)
    parser.add_argument("--height", type=int, default=720)
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--dark", action="store_true")
    arguments = parser.parse_args()
    reason = missing()
    if reason:
        print(f"web_screenshot: {reason}", file=sys.stderr)
        return 1
    outcome: list[Any] = []

    def run(folder: str) -> None:
        done = ensureDeferred(draw(arguments, Path(folder)))
        done.addBoth(lambda result: (outcome.append(result), reactor.stop()))

    with tempfile.TemporaryDirectory() as folder:
        reactor.callWhenRunning(run, folder)
        reactor.run()
    if outcome and hasattr(outcome[0], "printTraceback"):
        outcome[0].printTraceback()
        return 1
    print(f"wrote {arguments.path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
