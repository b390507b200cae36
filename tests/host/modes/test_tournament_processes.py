"""Tournaments of processes: a host killed mid-tournament loses no game; client processes sign up, however slowly.

A tournament host killed with SIGKILL mid-tournament loses no finished game.

``twistd evolution --tournament swiss`` runs as its own process; the bots
are in-process clients on real sockets, answering a little slowly so that
games overlap. Once the store holds finished games and others are still
being played, the host and its store process are killed with SIGKILL. Every
stored game must then be whole (seats, scores, its message log) and replay
to its stored result, the stored standings must count every stored game
(the round is not over), and a host restarted on the same database marks the
tournament "interrupted".
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

from twisted.internet import reactor, threads
from twisted.internet.defer import ensureDeferred, gatherResults
from twisted.internet.task import deferLater
from twisted.trial import unittest

from evolution.cli.demo import demo_bots
from evolution.cli.evolution_replay import check
from evolution.games.evolution.rules.silly import SillyPlayer
from evolution.net.client import play_remote
from evolution.store.results_store import ResultsStore
from evolution.store.writer import KILLED
from evolution.testing import HostProcess, free_port, start_clients, wait_for_clients
from evolution.text import plural
from tests.support.hosting import until


class Unhurried(SillyPlayer):
    """The reference strategy, taking 30 ms over each answer."""

    def choose(self, before: Any, after: Any) -> Any:
        return deferLater(reactor, 0.03, SillyPlayer.choose, self, before, after)

    def feed_next(self, state: Any) -> Any:
        return deferLater(reactor, 0.03, SillyPlayer.feed_next, self, state)


def finished_games(db: Path) -> int:
    store = ResultsStore.open(db)
    try:
        return len(store.games())
    finally:
        store.close()


class KillTests(unittest.TestCase):
    timeout = 120

    async def test_a_host_killed_mid_tournament_keeps_every_finished_game(self) -> None:
        folder = Path(self.mktemp())
        folder.mkdir()
        db, port = folder / "results.sqlite", free_port()
        host = HostProcess(
            port, db, folder / "host.log", "--tournament", "swiss", "--rounds", "3", "--max-signups", "11",
            "--signup-window", "600", "--timeout", "2", "--seed", "4", own_group=True,
        )
        self.addCleanup(host.stop)
        await threads.deferToThread(host.wait_until_listening)
        clients = [
            play_remote(reactor, "127.0.0.1", port, f"bot {k}", Unhurried(), retries=0) for k in range(1, 12)
        ]
        ended = gatherResults([ensureDeferred(_quietly(client)) for client in clients])
        # Round 1 is an 8- and a 3-player game: kill once the short one is stored.
        await until(lambda: db.is_file() and finished_games(db) >= 1, interval=0.05)
        host.kill_group()
        await ended

        store = ResultsStore.open(db)
        self.addCleanup(store.close)
        [tournament] = store.tournaments()
        self.assertEqual(tournament.status, "running")  # nobody could say otherwise: the host was killed
        games = store.games()
        self.assertTrue(games)
        self.assertLess(len(games), 2 + 2 + 2)  # the tournament was not over
        for game in games:
            self.assertEqual(game.outcome, "finished")
            self.assertEqual((game.tournament_id, len(game.players)), (tournament.id, len(game.players)))
            self.assertTrue(all(seat.score is not None or seat.removed_reason for seat in game.players))
            self.assertIsNotNone(store.game_log(game.id))
            status, lines = check(store, game.id)
            self.assertEqual(status, 0, lines)
        points = {entrant.entrant: 0 for entrant in tournament.entrants}
        for game in games:
            for seat in game.players:
                points[seat.entrant] += seat.points or 0
        self.assertTrue(any(points.values()))
        self.assertEqual({entrant.entrant: entrant.points for entrant in tournament.entrants}, points)

        again = subprocess.run(
            [*_twistd(), "--nodaemon", "--pidfile=", f"--logfile={folder / 'again.log'}", "evolution",
             "--port", f"tcp:{free_port()}:interface=127.0.0.1", "--db", str(db), "--tournament", "knockout",
             "--signup-window", "0.2", "--signup-periods", "1"],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60,
        )
        self.assertEqual(again.returncode, 0, again.stderr)
        store.close()
        store = ResultsStore.open(db)
        self.addCleanup(store.close)
        first, empty = store.tournaments()
        self.assertEqual((first.id, first.status), (tournament.id, "interrupted"))
        self.assertEqual(empty.status, "empty")
        kept = {game.id: game for game in store.games()}
        self.assertEqual({id: kept[id].outcome for id in (game.id for game in games)}, {game.id: "finished" for game in games})
        lost = [game for id, game in kept.items() if id not in {game.id for game in games}]  # under way at the kill
        self.assertTrue(lost)
        self.assertEqual({game.outcome for game in lost}, {f"aborted: {KILLED}"})
        self.assertEqual({seat.removed_reason for game in lost for seat in game.players}, {None})  # no one's fault
        log = (folder / "again.log").read_text()
        self.assertIn(f"{plural(len(lost), 'game')} this host was playing when it stopped (killed?) stored as aborted",
                      log)
        self.assertIn(f"tournament {tournament.id} was left running by a host that stopped; marked interrupted", log)


def test_a_knockout_of_client_processes_begins_once_all_seventeen_have_signed_up(tmp_path: Path) -> None:
    # 15 honest bots, a cheater and a sleeper, each a process of its own. On a busy machine their
    # sign-ups took longer than short sign-up periods, and the tournament ended "empty": it waits
    # for --max-signups instead (the window only bounds the wait).
    bots = demo_bots(17)
    db, port = tmp_path / "results.sqlite", free_port()
    host = HostProcess(port, db, tmp_path / "host.log", "--tournament", "knockout", "--max-signups", "17",
                       "--signup-window", "600", "--timeout", "3", "--seed", "17")
    try:
        host.wait_until_listening()
        clients = wait_for_clients(start_clients(port, list(bots), bots), 600)
        assert host.wait(120) == 0
    finally:
        host.stop()
    store = ResultsStore.open(db)
    [tournament] = store.tournaments()
    store.close()
    assert (tournament.status, len(tournament.entrants)) == ("finished", 17)
    # The cheater cheats in its second turn; the sleeper fails only if it is ever asked feed-next,
    # which depends on its seat (sign-up order, which processes do not keep): honest bots never fail.
    failures = {entrant.name: entrant.failure for entrant in tournament.failures}
    assert "Cheater" in failures and set(failures) <= {"Cheater", "Sleeper"}, failures
    assert failures.get("Sleeper") in (None, "no reply to feed-next within 3 s"), failures
    assert tournament.winners and not {w.name for w in tournament.winners} & {"Cheater", "Sleeper"}
    honest = [client for client, name in zip(clients, bots) if name not in ("Cheater", "Sleeper")]
    assert [client.returncode for client in honest] == [0] * 15, [client.stderr for client in honest]


async def _quietly(client: Any) -> Any:
    try:
        return await client
    except Exception as error:  # the host was killed under it: its end does not matter here
        return error


def _twistd() -> list[str]:
    script = Path(sys.executable).with_name("twistd")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "twisted", "twistd"]
