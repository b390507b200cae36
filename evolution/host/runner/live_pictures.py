# -*- test-case-name: tests.web.test_api, tests.web.test_live, tests.games.fish.web.test_tables -*-
"""Live pictures of the games a game runner plays in this process: what the web view shows of a running game.

Made where the games run, in the host's process (``--workers 0``) or in a
worker process, and sent to the web view as JSON: so they belong to the
host, and the web view reads them. Offers ``running_game(game)`` (a game in
progress: its players with the score they would have now, its turn and
step), ``Coalesced`` (changes handed on together at
most so often) and ``LivePictures(runner)``, which follows ``runner.watch``
(``evolution.host.runner.game_runner.GameRunner``):

- ``summaries()``: each running game as the web view lists it
  (``running_game``);
- ``picture(game_id)``: a running game's whole picture (its summary, its
  table drawn by its game, who is being asked, the last lines said about
  it), or None once it is not running. From the first picture on, the game
  is followed: its narrator reads the log entries each step adds (the lines
  begin there; a replay has them all), and ``changed(game_id)`` hears every
  step;
- ``stepped()`` hears every step of every game (the overview shows scores
  and turns), ``changed`` every step of a followed game: both are cheap
  (a dictionary look-up), and whoever listens coalesces them.

Nothing is drawn unless a picture is asked for: a game nobody watches costs
a look-up per step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from evolution.store.records import tournament_place

if TYPE_CHECKING:
    from evolution.host.runner.game_runner import RunningGame

Json = Any


def running_game(game: RunningGame) -> Json:
    referee = game.referee
    scores = referee.scores()
    removed = {removal.id: removal for removal in referee.removals}
    players = []
    for seat, name in enumerate(game.names, start=1):
        removal = removed.get(seat)
        players.append(
            {
                "seat": seat,
                "name": name,
                "score": scores.get(seat),
                "removed": None
                if removal is None
                else {"turn": removal.turn, "step": removal.step, "reason": removal.reason},
            }
        )
    seating = game.seating
    return {
        "id": game.id,
        "game": game.runner.game.name,
        "status": "running",
        "started_at": game.started_at,
        "turn": referee.turn,
        "step": referee.step,
        "tournament": tournament_place(seating.tournament_id, seating.round) if seating else None,
        "players": players,
    }


class Followed:
    """A game whose picture was asked for: its drawing and the lines said about it since."""

    __slots__ = ("drawing", "narrator")

    def __init__(self, game: Any) -> None:
        self.drawing = game.runner.game.drawing()
        self.narrator = self.drawing.narrator(game.names)


class LivePictures:
    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self.followed: dict[int, Followed] = {}
        self.changed: Callable[[int], None] = lambda game_id: None
        self.stepped: Callable[[], None] = lambda: None
        runner.watch(self._event)

    def _event(self, event: str, game: Any) -> None:
        followed = self.followed.get(game.id)
        if event == "over":
            self.followed.pop(game.id, None)
        elif followed is not None and event != "begin":
            followed.narrator.step(event, game.referee, game.log.entries)
        if followed is not None:
            self.changed(game.id)
        if event not in ("begin", "over"):
            self.stepped()

    def summaries(self) -> list[Json]:
        """The games played in this process (a host with workers also lists games played elsewhere)."""
        return [running_game(game) for game in sorted(self.runner.games_here(), key=lambda g: g.id)]

    def picture(self, game_id: int) -> Json | None:
        game = self.runner.played_here(game_id)
        if game is None:  # over, or played elsewhere
            return None
        followed = self.followed.get(game_id)
        if followed is None:
            followed = self.followed[game_id] = Followed(game)
        table = followed.drawing.table(game.referee, game.names)
        table["asking"] = [seat for seat, proxy in enumerate(game.proxies, start=1) if proxy.asking is not None]
        return running_game(game) | {"table": table, "lines": list(followed.narrator.lines)}


class Coalesced:
    """Changes gathered and handed on together, at most once every ``every`` seconds.

    ``add(key)`` a changed key, ``mark()`` a change with no key;
    ``flush(keys, marked)`` gets them on the next pass after the interval.
    """

    def __init__(self, clock: Any, every: float, flush: Callable[[set[Any], bool], None]) -> None:
        self.clock = clock
        self.every = every
        self.flush = flush
        self.keys: set[Any] = set()
        self.marked = False
        self._due: Any = None
        self._last = float("-inf")

    def add(self, key: Any) -> None:
        self.keys.add(key)
        self._schedule()

    def mark(self) -> None:
        self.marked = True
        self._schedule()

    def _schedule(self) -> None:
        if self._due is None:
            delay = max(0.0, self._last + self.every - self.clock.seconds())
            self._due = self.clock.callLater(delay, self._send)

    def _send(self) -> None:
        self._due = None
        self._last = self.clock.seconds()
        keys, marked, self.keys, self.marked = self.keys, self.marked, set(), False
        self.flush(keys, marked)

    def stop(self) -> None:
        if self._due is not None and self._due.active():
            self._due.cancel()
        self._due = None
