"""Fish through the web view's JSON API and static files, over real HTTP, with a real host and real clients.

A running game's table and lines, the same game finished with replay frames that
reproduce it step by step, and Fish's drawing and style sheet served under the page's
policy.
"""

from __future__ import annotations

import re

from twisted.internet.defer import gatherResults
from twisted.trial import unittest

from tests.support.hosting import until
from tests.support.webhosting import Gate, fish_client, get, new_web_host

FISH = ("--game", "fish", "--timeout", "2", "--first-move-timeout", "2", "--start-timeout", "2",
        "--signup-window", "0.2", "--number-grace", "0.01")


class FishApiTests(unittest.TestCase):
    timeout = 90

    async def test_a_running_fish_game_then_the_same_game_finished_with_its_replay(self) -> None:
        # The players place their penguins once the web view follows the game (it tells the moves it saw), and each
        # one's second move waits until the game has been read running (a busy machine's web view may take seconds
        # to answer, so the players have 30 s an answer here).
        host = new_web_host(self, *FISH, "--players", "2-2", "--board", "4x4", "--seed", "4", "--timeout", "30")
        placing, moving = Gate(), Gate()
        clients = [fish_client(host, name, delay=0.05, gate=placing, moving=moving) for name in ("ann", "bea")]
        await until(lambda: host.runner.running)
        [game_id] = host.runner.running
        await host.until_turn(game_id, 0)  # the web view follows it (in a worker process, a moment after it starts)
        placing.open()
        await host.until_turn(game_id, 2)

        running = (await get(host.url(f"/api/games/{game_id}"))).json()
        self.assertEqual((running["game"], running["status"]), ("fish", "running"), running)  # as it was read
        table = running["table"]
        self.assertEqual((table["rows"], table["cols"]), (4, 4))
        self.assertEqual(sorted(len(player["penguins"]) for player in table["players"]), [4, 4])  # two players: four each
        self.assertIsInstance(table["asking"], list)
        self.assertTrue(any(re.fullmatch(r"moved \[\d, \d\] → \[\d, \d\] and took \d fish", line["text"])
                            for line in running["lines"]))
        moving.open()
        await gatherResults(clients)
        [record] = await host.runner.when_games_over(1)

        finished = (await get(host.url(f"/api/games/{game_id}"))).json()
        self.assertEqual(finished["deck"], "random")
        replay = (await get(host.url(finished["replay"]), {"Accept-Encoding": "gzip"})).json()
        self.assertTrue(replay["reproduced"], replay["differences"])
        events = " ".join(frame["event"] for frame in replay["frames"])
        self.assertRegex(events, r"^(informed ){2}(placed ){8}((moved|skipped) )+end$")
        last = replay["frames"][-1]
        self.assertEqual({p["seat"]: p["score"] for p in last["players"]}, {s.seat: s.score for s in record.players})
        self.assertEqual(last["turn"], record.turns)
        told = [line["text"] for frame in replay["frames"] for line in frame["lines"]]
        self.assertEqual(told[0], "Placing penguins: 4 penguins each")
        self.assertEqual(sum(text.startswith("placed a penguin") for text in told), 8)
        caught = sum(int(text.split("took ")[1].split(" ")[0]) for text in told if text.startswith("moved"))
        self.assertEqual(caught, sum(seat.score for seat in record.players))

    async def test_fish_s_drawing_and_style_sheet_are_served_under_the_page_s_policy(self) -> None:
        host = new_web_host(self, *FISH)
        for path, kind in (("/static/js/games/fish.js", "text/javascript"), ("/static/js/games/fish.css", "text/css"),
                           ("/static/js/drawings.js", "text/javascript")):
            answer = await get(host.url(path))
            self.assertEqual(answer.status, 200, path)
            self.assertTrue(answer.headers["content-type"].startswith(kind), path)
            self.assertIn("style-src 'self'", answer.headers["content-security-policy"])
        script = (await get(host.url("/static/js/games/fish.js"))).body.decode()
        self.assertIn('export const style = "fish.css"', script)
        self.assertNotIn("innerHTML", script)
        self.assertEqual((await get(host.url("/static/js/games/nothing.css"))).status, 404)
