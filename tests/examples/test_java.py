"""The Java example Fish bot (examples/java) against the host's rules and a scripted host.

- its rules agree with the engine: the same legal moves and placements on every state of
  whole games of house players, and the same count as the course's xboard cases; every
  answer of its strategy is legal;
- it frames, checks and answers a scripted host that pads and splits messages, plays two
  games on one connection, ends at ``end``; a message the guide does not describe, or a
  connection closed before ``end``, ends it with its reason and status 1.

Whole games and tournaments on a real host are in ``test_example_java_hosted.py``.
Needs ``javac`` and ``java`` (17+); without them these tests are skipped, except under CI
(``CI`` set), where they fail.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from evolution.games.fish.rules.board import Board, Position, generate_board
from evolution.games.fish.rules.local import play_local_game
from evolution.games.fish.rules.state import GameState, Move
from evolution.games.fish.strategies.greedy import GreedyPlayer
from evolution.games.fish.strategies.maximin import MaximinPlayer
from evolution.games.fish.wire import codec
from tests.support.bot_processes import ScriptedHost
from tests.support.paths import CONFORMANCE, REPO

EXAMPLE = REPO / "examples" / "java"
JAVAC, JAVA = shutil.which("javac"), shutil.which("java")


def _missing() -> str | None:
    if JAVAC is None or JAVA is None:
        return "javac or java is not installed"
    version = subprocess.run([JAVAC, "-version"], capture_output=True, text=True, check=False)
    major = (version.stdout + version.stderr).split()[-1].split(".")[0]
    return None if major.isdigit() and int(major) >= 17 else f"javac is older than 17 ({major})"


MISSING = _missing()
if MISSING and os.environ.get("CI"):
    raise RuntimeError(f"the Java example bot cannot be tested under CI: {MISSING}")
pytestmark = pytest.mark.skipif(MISSING is not None, reason=f"Java example bot not tested: {MISSING}")

CHECK = """
package fish;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

// Test only: reads {"states": [State...], "xboard": [{"position", "board"}...]} and answers what
// the bot's rules and strategy make of each.
public final class Check {
    public static void main(String[] args) throws Exception {
        Map<?, ?> job = (Map<?, ?>) new Json.Reader(System.in).next();
        List<Object> states = new ArrayList<>();
        for (Object json : (List<?>) job.get("states")) {
            State state = State.of(json, "state");
            List<Object> moves = new ArrayList<>();
            for (State.Move move : Rules.moves(state)) moves.add(move.json());
            List<Object> free = new ArrayList<>();
            for (State.Position p : Rules.placements(state)) free.add(p.json());
            State.Move move = Strategy.move(state);
            State.Position place = Strategy.place(state);
            states.add(Map.of("moves", moves, "placements", free,
                    "move", move == null ? false : move.json(), "place", place == null ? false : place.json()));
        }
        List<Object> counts = new ArrayList<>();
        for (Object json : (List<?>) job.get("xboard")) {
            Map<?, ?> input = (Map<?, ?>) json;
            String board = Json.write(input.get("board"));
            Object state = new Json.Reader(new java.io.ByteArrayInputStream(
                    ("{\\"players\\":[{\\"color\\":\\"red\\",\\"score\\":0,\\"places\\":[]}],\\"board\\":" + board + "}")
                    .getBytes(java.nio.charset.StandardCharsets.UTF_8))).next();
            counts.add(Rules.reachable(State.of(state, "xboard"), State.position(input.get("position"), "position")).size());
        }
        System.out.println(Json.write(Map.of("states", states, "xboard", counts)));
    }
}
"""


@pytest.fixture(scope="module")
def classes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bot compiled (with the test's Check class) into a fresh folder."""
    out = tmp_path_factory.mktemp("java-bot")
    check = out / "Check.java"
    check.write_text(CHECK)
    sources = sorted(str(path) for path in (EXAMPLE / "src" / "fish").glob("*.java"))
    compiled = subprocess.run([JAVAC, "-Xlint:all", "-Werror", "-d", str(out / "classes"), *sources, str(check)],
                              capture_output=True, text=True, timeout=180, check=False)
    assert compiled.returncode == 0, compiled.stderr
    return out / "classes"


# -- the rules against the engine ------------------------------------------------------------


class Collecting:
    """A house player that keeps every state it is shown."""

    def __init__(self, inner: Any, states: list[GameState]) -> None:
        self.inner, self.states = inner, states

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def setup(self, state: GameState) -> Position:
        self.states.append(state)
        return self.inner.setup(state)

    def take_turn(self, state: GameState, actions: Any) -> Move:
        self.states.append(state)
        return self.inner.take_turn(state, actions)


def game_states(games: int) -> list[GameState]:
    """Every state shown to a player in ``games`` games of 2-4 house players on random boards, some with holes."""
    rng = random.Random(4500)
    states: list[GameState] = []
    for _ in range(games):
        rows, cols = rng.randint(2, 7), rng.randint(2, 7)
        board = generate_board(rows, cols, rng.randrange(10**6))
        holes = [i for i in range(rows * cols) if rng.random() < 0.15]
        board = Board(rows, cols, tuple(0 if i in holes else fish for i, fish in enumerate(board.tiles)))
        players = rng.randint(2, 4)
        if sum(1 for fish in board.tiles if fish) < players * (6 - players):
            continue
        inners = [rng.choice([GreedyPlayer, lambda: MaximinPlayer(1)])() for _ in range(players)]
        play_local_game([Collecting(inner, states) for inner in inners], board)
    return states


def run_check(classes: Path, job: dict) -> dict:
    result = subprocess.run([JAVA, "-cp", str(classes), "fish.Check"], input=json.dumps(job),
                            capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def as_pairs(moves: list) -> set:
    return {tuple(map(tuple, move)) for move in moves}


def test_the_rules_and_the_strategy_agree_with_the_engine(classes):
    states = game_states(60)
    xboard = sorted((CONFORMANCE / "fish" / "xboard").glob("*-in.json")) if CONFORMANCE.is_dir() else []
    inputs = [json.loads(path.read_text()) for path in xboard]
    got = run_check(classes, {"states": [codec.state_to_json(state) for state in states], "xboard": inputs})
    moves_checked = 0
    for state, java in zip(states, got["states"], strict=True):
        shown = codec.state_to_json(state)
        assert as_pairs(java["moves"]) == {((m.source.row, m.source.col), (m.target.row, m.target.col))
                                           for m in state.legal_moves()}, shown
        free = [list(p) for p, _ in state.board.tiles_in_order() if not state.is_occupied(p)]
        assert java["placements"] == free, shown
        if java["move"] is not False:
            move = codec.move_from_json(java["move"], "move")
            assert state.move_problem(move) is None, (shown, java["move"])
            moves_checked += 1
        else:
            assert state.legal_moves() == []
        assert state.placement_problem(Position(*java["place"])) is None, shown
    assert moves_checked > 200 and len(states) > 400
    for path, count in zip(xboard, got["xboard"], strict=True):
        assert count == json.loads(path.with_name(path.name.replace("-in", "-out")).read_text()), path.name


# -- a scripted host ------------------------------------------------------------------------


class JavaScriptedHost(ScriptedHost):
    """A scripted host of the Java bot, which writes calls as the course's client reads them."""

    def __init__(self, classes: Path, name: str) -> None:
        super().__init__([JAVA, "-cp", str(classes), "fish.Bot"], name, timeout=60)

    def call(self, method: str, *arguments: Any, pieces: int = 1) -> Any:
        """Write a call (padded with spaces and cut into ``pieces`` writes) and read the reply."""
        text = b" " * 100 + json.dumps([method, list(arguments)]).encode() + b"\n"
        size = -(-len(text) // pieces)
        self.send(*(text[i:i + size] for i in range(0, len(text), size)))
        return self.read()


@pytest.fixture
def scripted(classes):
    hosts: list[JavaScriptedHost] = []

    def make(name: str = "scripted") -> JavaScriptedHost:
        hosts.append(JavaScriptedHost(classes, name))
        return hosts[-1]

    yield make
    for host in hosts:
        host.kill()


def state_of(board: list, *players: tuple[str, list]) -> dict:
    return {"board": board, "players": [{"color": color, "places": places, "score": 0} for color, places in players]}


BOARD = [[1, 2, 3, 1], [4, 1, 5, 2], [2, 3, 1, 4], [1, 1, 1, 3], [5, 5, 5, 2]]


def legal(state: dict, kind: str, answer: Any) -> bool:
    game = codec.state_from_json(state, "state")
    if kind == "setup":
        return game.placement_problem(codec.position_from_json(answer, "position")) is None
    return game.move_problem(codec.move_from_json(answer, "action")) is None


def test_it_signs_up_frames_answers_and_plays_two_games_on_one_connection(scripted):
    host = scripted('a "quoted" name')
    assert host.read() == 'a "quoted" name'
    assert host.call("start", True, pieces=40) == "void"
    for game, color in enumerate(("red", "white")):
        other = "white" if color == "red" else "red"
        assert host.call("playing-as", color) == "void"
        assert host.call("playing-with", [other]) == "void"
        first = state_of(BOARD, (color, []), (other, [[4, 2]]))
        placed = host.call("setup", first, pieces=7)
        assert legal(first, "setup", placed) and placed != [4, 2]
        turn = state_of(BOARD, (color, [placed]), (other, [[4, 2]]))
        move = host.call("take-turn", turn, [] if game == 0 else [[[4, 1], [4, 2]], "skip"], pieces=3)
        assert legal(turn, "take-turn", move)
    assert host.call("end", True) == "void"
    status, err = host.finish()
    assert status == 0, err
    assert "2 games, 2 placements, 2 moves; end: won" in err


@pytest.mark.parametrize("messages, said", [
    ([["start", [True]], ["playing-as", ["green"]]], 'playing-as[0]: "green" is not a colour'),
    ([["playing-as", ["red"]], ["setup", [state_of(BOARD, ("white", []), ("red", []))]]],
     "setup: the state's first player is white, not this bot (red)"),
    ([["playing-as", ["red"]], ["setup", [state_of([[1, 2.0]], ("red", []))]]], "setup.board[0][1]: 2.0 is not a natural"),
    ([["start", [True]], ["shutdown", []]], 'an unknown call "shutdown"'),
    ([["start", [True]]], "the host closed the connection without end (0 games, 0 placements, 0 moves)"),
], ids=["colour", "not-first", "not-an-integer", "unknown-call", "no-end"])
def test_a_message_it_does_not_understand_or_a_hang_up_ends_it_with_the_reason_and_status_1(scripted, messages, said):
    host = scripted()
    host.read()
    for message in messages:
        host.send(json.dumps(message).encode() + b"\n")
    status, err = host.finish()
    assert status == 1
    assert said in err


def test_a_port_that_is_not_a_number_is_one_line_and_status_2(classes):
    result = subprocess.run([JAVA, "-cp", str(classes), "fish.Bot", "127.0.0.1", "abc"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        'fish bot: the port is a whole number, not "abc" (java -cp out fish.Bot [host] [port] [name])']
