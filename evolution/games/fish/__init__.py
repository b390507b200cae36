"""Fish ("Hey, That's My Fish!"), the course's later game: 2-4 players, penguins on a hexagonal board of fish tiles.

Offers ``GAME``, the game as the host sees it (``evolution.games.Game``),
and ``FishSetup``, how its boards are made and the course's time limits
beyond ``--timeout`` (``--start-timeout``, ``--first-move-timeout``). A
referee it makes introduces itself to each player that asks
(``refereed_by``: a remote player's proxy, to know a first-round move). Its
layers, each depending only on those before it:

- ``rules``: the board, states, moves, the referee and the player interface
  (pure: no I/O, no Twisted, no JSON); ``strategies``: the house players
  (the reference's greedy player, the course's maximin strategy);
- ``wire``: JSON <-> rules values, every message of both dialects checked
  against ``schemas/fish/``; the course's five harnesses;
- ``net``: the proxy player and the dialects (the course's protocol, seed
  004's) as the host and a client speak them;
- ``web``: the table and the lines the web view draws.

This module imports none of them: each loads when the host first asks for it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from evolution.games import GameOption, PackagedParts

MAX_SIDE = 100  # rows and columns of a board, as the schemas bound them
MAX_FISH = 5
MIN_SECONDS, MAX_SECONDS = 0.01, 3600.0
START_TIMEOUT = 3.0  # the reference manager's limit for start (Fish:Admin/manager.rkt)
FIRST_MOVE_TIMEOUT = 30.0  # the reference referee's READY-TIME, for every move of a game's first round
_BOARD = re.compile(r"(\d+)x(\d+)\Z")
_NUMBERS = ("One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Eleven", "Twelve",
            "Thirteen", "Fourteen", "Fifteen", "Sixteen")


def _board(text: str) -> tuple[int, int]:
    found = _BOARD.match(text)
    if not found:
        raise ValueError(f"--board takes ROWSxCOLS, such as 6x6, not {text!r}")
    rows, cols = int(found[1]), int(found[2])
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE):
        raise ValueError(f"--board {text}: rows and columns are 1..{MAX_SIDE}")
    if rows * cols < 8:
        raise ValueError(f"--board {text}: a board needs room for every penguin (at least 8 tiles)")
    return rows, cols


def _seconds(option: str) -> Callable[[str], float]:
    """The parser of a time limit option: seconds, 0.01 to 3600, as the host's own limits."""

    def parse(text: str) -> float:
        try:
            seconds = float(text)
        except ValueError:
            seconds = -1.0
        if not MIN_SECONDS <= seconds <= MAX_SECONDS:  # also NaN and infinity
            raise ValueError(f"--{option} takes {MIN_SECONDS:g} to {MAX_SECONDS:g} seconds, not {text!r}")
        return seconds

    return parse


def _fish(text: str) -> int:
    try:
        fish = int(text)
    except ValueError:
        fish = 0
    if not 1 <= fish <= MAX_FISH:
        raise ValueError(f"--fish takes a number of fish from 1 to {MAX_FISH}, not {text!r}")
    return fish


@dataclass(frozen=True)
class FishSetup:
    """How a game's board is made: ``rows x cols`` tiles, each of ``fish`` fish, or of 1..5 drawn with the seed.

    And the reference's limits besides ``--timeout`` (each call, 10 s): ``start_timeout`` for the
    course protocol's ``start``, ``first_move_timeout`` for a move in a game's first round.
    """

    rows: int = 6
    cols: int = 6
    fish: int | None = None
    start_timeout: float = START_TIMEOUT
    first_move_timeout: float = FIRST_MOVE_TIMEOUT

    @property
    def seeded(self) -> bool:
        return self.fish is None

    def deal(self, seed: int | None) -> str:
        return "random" if seed is not None else "fixed"

    def recorded(self) -> dict[str, Any]:
        return {
            "board": f"{self.rows}x{self.cols}", "fish": self.fish,
            "start_timeout": self.start_timeout, "first_move_timeout": self.first_move_timeout,
        }

    def limits(self) -> Mapping[str, float]:
        return {"start": self.start_timeout, "first-move": self.first_move_timeout}


class FishGame(PackagedParts):
    """Fish behind the host's game interface."""

    name = "fish"
    title = "Fish"
    tie_break = None  # the course's referee: equal scores share a rank
    min_players = 2  # the referee's MIN_PLAYERS and MAX_PLAYERS (a test holds them equal)
    max_players = 4
    default_players = (2, 4)
    default_timeout = 10.0  # the reference's time-per-turn
    dialects = ("course", "seed004")
    strategies = ("greedy", "maximin", "cheater", "hole-placer")
    house = ("greedy", "maximin")
    player_methods = ("playing_as", "playing_with", "setup", "take_turn")
    knockout_runners_up = False  # the reference manager: those left win as they are
    options = (
        GameOption("board", "6x6", "ROWSxCOLS tiles of every game's board (the course server's 6x6)", _board),
        GameOption("fish", None, "fish on every tile, 1..5 (default: each tile 1..5 at random, from the game's seed)",
                   _fish),
        GameOption("start-timeout", f"{START_TIMEOUT:g}", "seconds for the reply to the course protocol's start "
                   f"({MIN_SECONDS:g} to {MAX_SECONDS:g})", _seconds("start-timeout")),
        GameOption("first-move-timeout", f"{FIRST_MOVE_TIMEOUT:g}", "seconds for a move in a game's first round, "
                   f"course protocol ({MIN_SECONDS:g} to {MAX_SECONDS:g}; later moves: --timeout)",
                   _seconds("first-move-timeout")),
    )

    def bot_name(self, strategy: str) -> str:
        """The letters of the strategy's name (of a class's, for ``module:Class``), as many as the course takes."""
        from evolution.games.fish.wire.messages import NAME_LENGTH

        letters = "".join(char for char in strategy.rpartition(":")[2] if char.isascii() and char.isalpha())
        return letters[:NAME_LENGTH] or "bot"

    def house_name(self, number: int, strategy: str) -> str:
        """Letters only, as the course's protocol takes them: the strategy's, then the number's (``GreedyOne``,
        ``MaximinTwo``), the strategy's cut to leave room for the number's."""
        from evolution.games.fish.wire.messages import NAME_LENGTH

        count = _NUMBERS[number - 1]  # a tryout has at most 12: 3 opponents a game, of each of 4 strategies
        letters = "".join(char for char in strategy.title() if char.isascii() and char.isalpha())
        return letters[: NAME_LENGTH - len(count)] + count

    def setup(self, options: Mapping[str, Any]) -> FishSetup:
        rows, cols = options.get("board") or (6, 6)
        fish = options.get("fish")
        if fish is not None and options.get("seed") is not None:
            raise ValueError("--seed draws each tile's fish; it cannot go with --fish")
        start = options.get("start-timeout", START_TIMEOUT)
        return FishSetup(rows, cols, fish, start, options.get("first-move-timeout", FIRST_MOVE_TIMEOUT))

    def setup_of(self, recorded: Mapping[str, Any]) -> FishSetup:
        rows, cols = _board(recorded.get("board", "6x6"))
        return FishSetup(
            rows, cols, recorded.get("fish"), recorded.get("start_timeout", START_TIMEOUT),
            recorded.get("first_move_timeout", FIRST_MOVE_TIMEOUT),
        )

    def deal_text(self, deck: str, seed: int | None) -> str:
        return f"board from seed {seed}" if seed is not None else "fixed board"

    def new_referee(
        self, players: Sequence[Any], setup: FishSetup, seed: int | None,
        observer: Callable[[str, Any], None] | None = None,
    ) -> Any:
        from evolution.games.fish.rules.board import generate_board
        from evolution.games.fish.rules.referee import FishReferee

        referee = FishReferee(players, generate_board(setup.rows, setup.cols, seed, setup.fish), observer)
        for player in players:  # a remote player's proxy gives a first-round move its longer limit
            refereed_by = getattr(player, "refereed_by", None)
            if refereed_by is not None:
                refereed_by(referee)
        return referee


GAME = FishGame()
