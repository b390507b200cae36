"""The two recorded reference tournaments (spec/fish/transcript-*.jsonl), replayed through our referee and codec.

- every game, replayed through ``FishReferee`` with scripted players that
  answer what the recorded clients answered: every call the referee makes
  (``playing-as``, ``playing-with``, ``setup``, ``take-turn``, encoded with
  our codec) equals the recorded server message, in the same order, per
  connection and across connections, and the game's winners are the
  players the recorded tournament sent on (round 1) or told they won (the
  final);
- the games are the tournament's rounds (tournament.md 2): games of 4 in
  sign-up order, backing off to 3 and 2; the winners, in sign-up order,
  play the final;
- our greedy player answers every recorded placement and move exactly as
  the recorded (greedy) reference clients did.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from evolution.games.fish.rules.local import play_local_game
from evolution.games.fish.strategies.greedy import greedy_move, greedy_placement
from evolution.games.fish.wire import codec
from tests.support.paths import SPEC

TRANSCRIPTS = ["transcript-5-players.jsonl", "transcript-10-players.jsonl"]
GAME_CALLS = ("playing-as", "playing-with", "setup", "take-turn")


@dataclass
class RecordedGame:
    """One game of a recorded tournament: its seats (connections), the calls sent, the replies received."""

    seats: list[int] = field(default_factory=list)
    calls: list[tuple[int, Any]] = field(default_factory=list)
    replies: dict[int, list[Any]] = field(default_factory=dict)

    @property
    def board(self) -> Any:
        return next(message[1][0]["board"] for _, message in self.calls if message[0] == "setup")


@dataclass
class RecordedTournament:
    signups: list[int]
    games: list[RecordedGame]
    told_they_won: list[int]
    calls_and_replies: list[tuple[Any, Any]]


def read_tournament(name: str) -> RecordedTournament:
    if not SPEC.is_dir():
        pytest.skip(f"no recorded tournaments: {SPEC} is absent (set EVOLUTION_SHARED to the shared folder)")
    path = SPEC / "fish" / name  # where the shared folder is, its recorded tournaments must be too
    signups: list[int] = []
    games: list[RecordedGame] = []
    told_they_won: list[int] = []
    pending: dict[int, tuple[Any, RecordedGame | None]] = {}
    pairs = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        if "msg" not in record:
            continue
        conn, message = record["conn"], record["msg"]
        if record["dir"] == "s2c":
            if message == ["playing-as", ["red"]]:
                games.append(RecordedGame())
            game = games[-1] if message[0] in GAME_CALLS else None
            if game is not None:
                game.calls.append((conn, message))
                if message[0] == "playing-as":
                    game.seats.append(conn)
            if message == ["end", [True]]:
                told_they_won.append(conn)
            pending[conn] = (message, game)
        elif conn not in pending:
            signups.append(conn)  # a client's first message is its name
        else:
            call, game = pending.pop(conn)
            pairs.append((call, message))
            if game is not None:
                game.replies.setdefault(conn, []).append(message)
    return RecordedTournament(signups, games, told_they_won, pairs)


class ScriptedPlayer:
    """Answers what one recorded client answered, and writes down each call as the wire would carry it."""

    def __init__(self, conn: int, replies: list[Any], log: list[tuple[int, Any]]) -> None:
        self.conn = conn
        self.replies = list(replies)
        self.log = log

    def _answer(self, call: Any) -> Any:
        self.log.append((self.conn, call))
        return self.replies.pop(0)

    def playing_as(self, color):
        assert self._answer(codec.playing_as_call(color)) == "void"

    def playing_with(self, colors):
        assert self._answer(codec.playing_with_call(colors)) == "void"

    def setup(self, state):
        return codec.position_from_json(self._answer(codec.setup_call(state)), "setup")

    def take_turn(self, state, actions):
        return codec.move_from_json(self._answer(codec.take_turn_call(state, actions)), "take-turn")


def allocate(players: list[int], size: int = 4) -> list[list[int]]:
    """The reference's prepare-games (tournament.md 2): games of ``size`` from the front, backing off to keep 2+."""
    if len(players) <= size:
        return [players]
    if len(players) - size >= 2:
        return [players[:size]] + allocate(players[size:], size)
    return allocate(players, size - 1)


def replay(game: RecordedGame) -> tuple[list[tuple[int, Any]], list[int]]:
    """Our referee's calls in this game, and its winners (as connections)."""
    log: list[tuple[int, Any]] = []
    players = [ScriptedPlayer(conn, game.replies[conn], log) for conn in game.seats]
    result = play_local_game(players, codec.board_from_json(game.board, "board"))
    assert result.removals == ()
    return log, [game.seats[entry.id - 1] for entry in result.ranking if entry.rank == 1]


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_every_recorded_game_replays_call_for_call(name):
    tournament = read_tournament(name)
    assert tournament.games, "no game recorded"
    for number, game in enumerate(tournament.games, 1):
        log, _ = replay(game)
        for index, (expected, actual) in enumerate(zip(game.calls, log)):
            assert actual == expected, f"game {number}, call {index}: we sent {actual}, the reference {expected}"
        assert len(log) == len(game.calls), f"game {number}: {len(log)} calls, the reference {len(game.calls)}"


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_the_games_are_the_tournaments_rounds_and_the_winners_match(name):
    tournament = read_tournament(name)
    *first_round, final = tournament.games
    assert [game.seats for game in first_round] == allocate(tournament.signups)
    winners = [conn for game in first_round for conn in replay(game)[1]]
    assert final.seats == sorted(winners, key=tournament.signups.index)
    assert replay(final)[1] == tournament.told_they_won


@pytest.mark.parametrize("name", TRANSCRIPTS)
def test_our_greedy_player_answers_what_the_recorded_clients_answered(name):
    tournament = read_tournament(name)
    checked = 0
    for call, reply in tournament.calls_and_replies:
        if call[0] == "setup":
            ours = codec.position_to_json(greedy_placement(codec.state_from_json(call[1][0], "setup")))
        elif call[0] == "take-turn":
            ours = codec.action_to_json(greedy_move(codec.state_from_json(call[1][0], "take-turn")))
        else:
            continue
        assert ours == reply, f"{call[0]} of {json.dumps(call)[:200]}: greedy {ours}, recorded {reply}"
        checked += 1
    assert checked >= 100


def test_the_transcripts_saw_skips_and_lists_of_every_length():
    """The replay covers rules.md 9: "skip" entries and action lists of 0..3 entries were sent."""
    lengths, skips = set(), 0
    for name in TRANSCRIPTS:
        for game in read_tournament(name).games:
            for _, call in game.calls:
                if call[0] == "take-turn":
                    lengths.add(len(call[1][1]))
                    skips += call[1][1].count("skip")
    assert lengths == {0, 1, 2, 3}
    assert skips > 0

