"""The Fish referee (rules.md 3-9): colours, the penguin quota, placement and turn order, skips, the end, ties,
every kind of failure, expulsions at checkpoints, the observer, and awaitable answers."""

from __future__ import annotations

from typing import Any

import pytest
from twisted.internet import defer

from evolution.games.fish.rules.board import Board, Position, generate_board
from evolution.games.fish.rules.local import play_local_game, run_locally
from evolution.games.fish.rules.referee import FishReferee, actions_since_last_turn
from evolution.games.fish.rules.state import SKIP, Color, GameState, PlayerState
from evolution.games.fish.strategies.faulty import Answering, HolePlacer, IllegalMover, Raiser
from evolution.games.fish.strategies.greedy import GreedyPlayer, greedy_move, greedy_placement
from evolution.games.fish.strategies.maximin import MaximinPlayer
from evolution.games.fish.wire import codec
from evolution.outcomes import PlayerFailure

P = Position
RED, WHITE, BROWN, BLACK = Color


class Logged:
    """Plays like ``inner`` and writes every call into ``log`` as (seat, call, arguments)."""

    def __init__(self, seat: int, log: list, inner: Any = None) -> None:
        self.seat, self.log, self.inner = seat, log, inner or GreedyPlayer()

    def playing_as(self, color):
        self.log.append((self.seat, "playing-as", color))
        return self.inner.playing_as(color)

    def playing_with(self, colors):
        self.log.append((self.seat, "playing-with", tuple(colors)))
        return self.inner.playing_with(colors)

    def setup(self, state):
        self.log.append((self.seat, "setup", state))
        return self.inner.setup(state)

    def take_turn(self, state, actions):
        self.log.append((self.seat, "take-turn", state, tuple(actions)))
        return self.inner.take_turn(state, actions)


def logged(inners: list, log: list) -> list[Logged]:
    return [Logged(seat, log, inner) for seat, inner in enumerate(inners, 1)]


def calls(log: list, name: str) -> list:
    return [entry for entry in log if entry[1] == name]


BIG = generate_board(8, 8, seed=3)


# -- colours, the quota, placement -----------------------------------------------------------


def test_colours_go_by_seat_and_each_player_hears_its_colour_then_the_others_before_the_next_seat():
    log: list = []
    play_local_game(logged([None] * 3, log), BIG)
    assert log[:6] == [
        (1, "playing-as", RED), (1, "playing-with", (WHITE, BROWN)),
        (2, "playing-as", WHITE), (2, "playing-with", (RED, BROWN)),
        (3, "playing-as", BROWN), (3, "playing-with", (RED, WHITE)),
    ]


def test_playing_with_names_every_other_seat_even_one_already_removed():
    log: list = []
    play_local_game(logged([Raiser("playing_as"), None, None], log), BIG)
    assert (2, "playing-with", (RED, BROWN)) in log


@pytest.mark.parametrize("players, penguins", [(2, 4), (3, 3), (4, 2)])
def test_each_player_places_six_minus_n_penguins(players, penguins):
    log: list = []
    play_local_game(logged([None] * players, log), BIG)
    setups = calls(log, "setup")
    assert [seat for seat, *_ in setups] == list(range(1, players + 1)) * penguins


def test_the_quota_counts_the_players_left_after_playing_with():
    log: list = []
    result = play_local_game(logged([None, None, Raiser("playing_with"), None], log), BIG)
    assert [seat for seat, *_ in calls(log, "setup")] == [1, 2, 4] * 3  # three players left: 3 penguins each
    assert [r.step for r in result.removals] == ["playing-with"]


def test_a_failed_placement_moves_the_turn_on_twice_and_the_round_keeps_its_count_as_the_reference_does():
    # rules.md 9.5: white fails, so brown is passed over and red, after black, places twice in round 1; the
    # round still asks four times, the next asks three (the quota is the rounds', not each player's).
    log: list = []
    result = play_local_game(logged([None, HolePlacer(), None, None], log), BIG)
    assert [seat for seat, *_ in calls(log, "setup")] == [1, 2, 4, 1, 3, 4, 1]
    assert result.removals[0][:3] == (2, 0, "setup")
    assert "is not on the board" in result.removals[0].reason


def test_the_placing_player_is_shown_first_and_the_others_follow_in_turn_order():
    log: list = []
    play_local_game(logged([None] * 3, log), BIG)
    for seat, _, state in calls(log, "setup"):
        colors = [player.color for player in state.players]
        assert colors == [Color.RED, Color.WHITE, Color.BROWN][seat - 1 :] + [Color.RED, Color.WHITE][: seat - 1]


def test_placements_are_consed_so_places_are_most_recent_first():
    log: list = []
    referee = FishReferee(logged([None, None], log), BIG)
    run_locally(referee.inform())
    run_locally(referee.place_penguins())
    placed = [greedy_placement(state) for seat, _, state in calls(log, "setup") if seat == 1]
    assert list(referee.state.player(RED).places) == placed[::-1]


# -- movement -----------------------------------------------------------------------------------


def test_movement_begins_with_the_first_seat_still_in_and_goes_round_in_seat_order():
    log: list = []
    play_local_game(logged([None, Raiser("playing_as"), None], log), BIG)
    movers = [seat for seat, *_ in calls(log, "take-turn")]
    assert movers[:4] == [1, 3, 1, 3]


def test_after_a_failed_placement_movement_begins_where_placement_left_the_turn():
    log: list = []
    play_local_game(logged([HolePlacer(), None, None], log), BIG)
    movers = [seat for seat, *_ in calls(log, "take-turn")]
    assert movers[:4] == [3, 2, 3, 2]  # red failed: brown placed first in every round, and moves first


# -- the course's failing-placement scenario, state by state (rules.md 4, 9.5) ----------------------------


def player(color: str, *places: list[int]) -> dict:
    return {"color": color, "score": 0, "places": [list(place) for place in places]}


ONES = [[1, 1, 1, 1], [1, 1, 1, 1], [1, 1, 1, 1]]  # every tile 1 fish: a greedy player takes the first free one


class SetupTimesOut(GreedyPlayer):
    """Its first placement times out (as a remote player's call fails)."""

    def setup(self, state):
        raise PlayerFailure("no reply to setup within 10 s")


# Red, white and brown; red fails its first placement. The reference deletes red (white is then first) and
# moves the turn on once more: brown places first, then white, in every round; brown moves first. Each entry:
# the seat asked, and the state it is sent (the placing player first), as the reference's referee sends it.
RED_FAILS = [
    (1, [player("red"), player("white"), player("brown")]),
    (3, [player("brown"), player("white")]),
    (2, [player("white"), player("brown", [0, 0])]),
    (3, [player("brown", [0, 0]), player("white", [0, 1])]),
    (2, [player("white", [0, 1]), player("brown", [0, 2], [0, 0])]),
    (3, [player("brown", [0, 2], [0, 0]), player("white", [0, 3], [0, 1])]),
    (2, [player("white", [0, 3], [0, 1]), player("brown", [1, 0], [0, 2], [0, 0])]),
]
RED_FAILS_FIRST_MOVE = (3, [player("brown", [1, 0], [0, 2], [0, 0]), player("white", [1, 1], [0, 3], [0, 1])])

# Four players; white fails its first placement, after red's. The round of four goes on with black (brown is
# passed over) and red again; the next round asks three times: brown, black, red.
WHITE_FAILS = [
    (1, [player("red"), player("white"), player("brown"), player("black")]),
    (2, [player("white"), player("brown"), player("black"), player("red", [0, 0])]),
    (4, [player("black"), player("red", [0, 0]), player("brown")]),
    (1, [player("red", [0, 0]), player("brown"), player("black", [0, 1])]),
    (3, [player("brown"), player("black", [0, 1]), player("red", [0, 2], [0, 0])]),
    (4, [player("black", [0, 1]), player("red", [0, 2], [0, 0]), player("brown", [0, 3])]),
    (1, [player("red", [0, 2], [0, 0]), player("brown", [0, 3]), player("black", [1, 0], [0, 1])]),
]
WHITE_FAILS_FIRST_MOVE = (3, [player("brown", [0, 3]), player("black", [1, 0], [0, 1]),
                              player("red", [1, 1], [0, 2], [0, 0])])


@pytest.mark.parametrize("failing", [HolePlacer, lambda: Answering("setup", "abc"), SetupTimesOut],
                         ids=["illegal placement", "not a position", "time-out"])
@pytest.mark.parametrize("seats, failing_seat, expected, first_move", [
    (3, 1, RED_FAILS, RED_FAILS_FIRST_MOVE), (4, 2, WHITE_FAILS, WHITE_FAILS_FIRST_MOVE),
], ids=["red fails of three", "white fails of four"])
def test_every_state_after_a_failed_placement_is_the_reference_s(failing, seats, failing_seat, expected, first_move):
    log: list = []
    inners = [failing() if seat == failing_seat else None for seat in range(1, seats + 1)]
    result = play_local_game(logged(inners, log), Board.from_rows(ONES))
    sent = [(seat, codec.state_to_json(state)) for seat, _, state in calls(log, "setup")]
    assert sent == [(seat, {"board": ONES, "players": players}) for seat, players in expected]
    seat, _, state, actions = calls(log, "take-turn")[0]
    assert (seat, codec.state_to_json(state), actions) == (first_move[0], {"board": ONES, "players": first_move[1]}, ())
    assert [(removal.id, removal.step) for removal in result.removals] == [(failing_seat, "setup")]


def stuck_red_referee(log: list) -> FishReferee:
    """Red on [0, 0] walled in by holes; white free to walk down the column."""
    board = Board.from_rows([[1], [0], [0], [1], [1], [1], [1], [1]])
    referee = FishReferee(logged([None, None], log), board)
    referee.state = GameState(board, (PlayerState(RED, 0, (P(0, 0),)), PlayerState(WHITE, 0, (P(3, 0),))))
    return referee


def test_a_stuck_player_is_skipped_without_a_call_and_the_skip_is_recorded():
    log: list = []
    events: list = []
    referee = stuck_red_referee(log)
    referee.observer = lambda event, _: events.append(event)
    run_locally(referee.move_penguins())
    turns = calls(log, "take-turn")
    assert {seat for seat, *_ in turns} == {2}
    assert events[0] == "skipped" and events.count("moved") == len(turns)
    assert turns[0][3] == () and turns[1][3] == (SKIP,)  # rules.md 9.1 and 9.2
    assert referee.state.is_over()


def test_the_game_ends_when_nobody_can_move_and_turns_count_skips_too():
    log: list = []
    referee = stuck_red_referee(log)
    run_locally(referee.move_penguins())
    assert referee.turn == len(calls(log, "take-turn")) * 2  # red is skipped before each of white's moves
    assert referee.scores() == {1: 0, 2: referee.state.player(WHITE).score} and referee.scores()[2] > 0


def test_the_actions_since_last_turn_rule():
    history = ["a", "b", "c", "d"]
    assert actions_since_last_turn(history[:3], 3) == ()
    assert actions_since_last_turn(history, 3) == ("c", "d")
    assert actions_since_last_turn(history, 4) == ()
    assert actions_since_last_turn(history, 1) == ()
    assert actions_since_last_turn(history[:2], 2) == ()
    assert actions_since_last_turn(history[:3], 2) == ("c",)


def test_every_first_turn_and_seat_ones_second_turn_see_no_actions():
    log: list = []
    play_local_game(logged([None] * 3, log), BIG)
    turns = calls(log, "take-turn")
    assert [len(actions) for *_, actions in turns[:6]] == [0, 0, 0, 0, 2, 2]
    assert turns[4][3] == tuple(greedy_move(state) for _, _, state, _ in turns[2:4])  # seat 3's move, then seat 1's


# -- the end and the ranking ----------------------------------------------------------------------


def test_equal_scores_share_a_rank():
    board = generate_board(4, 5, fish=5)  # conformance xref 005: two of three players tie for first
    result = play_local_game([MaximinPlayer(1), MaximinPlayer(2), MaximinPlayer(1)], board)
    assert [entry.rank for entry in result.ranking] == [1, 1, 3]
    assert [entry.id for entry in result.ranking] == [1, 2, 3]


def test_nobody_moves_on_a_board_without_room_and_all_tie_at_zero():
    result = play_local_game([GreedyPlayer() for _ in range(4)], generate_board(2, 4, fish=3))
    assert result.ranking == tuple((1, seat, 0) for seat in range(1, 5)) and result.turns == 0


def test_a_game_needs_two_to_four_players():
    for count in (1, 5):
        with pytest.raises(ValueError, match="2..4 players"):
            FishReferee([GreedyPlayer()] * count, BIG)


# -- failures -----------------------------------------------------------------------------------------


class FailsOnTurn(GreedyPlayer):
    """Raises ``PlayerFailure`` on its ``turn``-th take-turn."""

    def __init__(self, turn: int) -> None:
        super().__init__()
        self.turn, self.turns = turn, 0

    def take_turn(self, state, actions):
        self.turns += 1
        if self.turns == self.turn:
            raise PlayerFailure("timed out after 10 s")
        return super().take_turn(state, actions)


FAILURES = [
    (Raiser("playing_as"), "playing-as", "playing-as raised RuntimeError: playing_as is broken"),
    (Raiser("playing_with"), "playing-with", "playing-with raised RuntimeError: playing_with is broken"),
    (Raiser("setup"), "setup", "setup raised RuntimeError: setup is broken"),
    (Raiser("take_turn"), "take-turn", "take-turn raised RuntimeError: take_turn is broken"),
    (FailsOnTurn(1), "take-turn", "timed out after 10 s"),
    (HolePlacer(), "setup", "illegal placement [8, 0]: [8, 0] is not on the board"),
    (Answering("setup", "abc"), "setup", "illegal placement 'abc': not a position [row, column]"),
    (Answering("setup", [True, 0]), "setup", "illegal placement [True, 0]: not a position [row, column]"),
    (Answering("setup", [-1, 0]), "setup", "illegal placement [-1, 0]: not a position [row, column]"),
    (Answering("setup", [0, 0]), "setup", "illegal placement [0, 0]: a penguin already stands on [0, 0]"),
    (IllegalMover(), "take-turn", "illegal move [[0, 6], [0, 6]]: a move leaves the tile"),
    (Answering("take_turn", "skip"), "take-turn", "illegal move 'skip': not an action [[row, column], [row, column]]"),
    (Answering("take_turn", [[7, 7], [7, 6]]), "take-turn", "illegal move [[7, 7], [7, 6]]: no penguin of red stands on [7, 7]"),
]


@pytest.mark.parametrize("faulty, step, reason", FAILURES, ids=[f"{step}-{i}" for i, (_, step, _) in enumerate(FAILURES)])
def test_every_failure_removes_the_player_and_the_game_goes_on(faulty, step, reason):
    board = Board.from_rows([[1] * 8] * 8)
    log: list = []
    players = [Logged(1, log, faulty), Logged(2, log), Logged(3, log)]
    referee = FishReferee(players, board)
    before_removal = {}

    def watch(event, ref):
        if not ref.removals:
            before_removal["state"] = ref.state

    referee.observer = watch
    result = run_locally(referee.play())
    (removal,) = result.removals
    assert (removal.id, removal.step) == (1, step)
    assert removal.reason.startswith(reason)
    assert removal.turn == (1 if step == "take-turn" else 0)
    assert sorted(entry.id for entry in result.ranking) == [2, 3]
    assert calls(log, "take-turn") and {seat for seat, *_ in calls(log, "take-turn")[1:]} <= {2, 3}
    assert referee.state.player(RED) is None and referee.state.is_over()
    if step == "take-turn":  # its penguins left the board, its tiles stay
        red_places = before_removal["state"].player(RED).places
        after = [entry[2] for entry in calls(log, "take-turn") if entry[0] == 2][0]
        assert all(after.board.is_tile(place) and not after.is_occupied(place) for place in red_places)


def test_the_history_restarts_after_a_removal():
    log: list = []
    play_local_game(logged([None, None, FailsOnTurn(2)], log), BIG)
    turns = calls(log, "take-turn")
    assert [seat for seat, *_ in turns[:7]] == [1, 2, 3, 1, 2, 3, 1]
    assert len(turns[4][3]) == 2  # seat 2's second turn: the last two actions
    assert turns[6][3] == ()  # after seat 3's removal: nothing, not the last action of a 5-long history


# -- expulsions at checkpoints ------------------------------------------------------------------------


def test_an_expulsion_before_the_game_takes_effect_at_the_first_safe_point():
    log: list = []
    players = logged([None, None, None], log)
    referee = FishReferee(players, BIG)
    assert referee.expel(players[2], "disconnected") == 0
    result = run_locally(referee.play())
    assert result.removals == ((3, 0, "playing-with", "disconnected"),)
    assert not [entry for entry in log if entry[0] == 3]
    assert [seat for seat, *_ in calls(log, "setup")] == [1, 2] * 4  # the quota counts two players


def test_a_player_expelled_during_placement_fails_its_next_placement_unasked_as_the_reference_would():
    # The reference notices a closed connection when it calls it: brown, expelled after red's first placement,
    # fails its turn in round 1 (the turn moves on twice: red places next, after white), and is never asked.
    log: list = []
    players = logged([None, None, None], log)
    referee = FishReferee(players, BIG)

    def watch(event, ref):
        if event == "placed" and ref.checkpoints == 4:  # after red's first placement
            ref.expel(players[2], "disconnected between questions (its last reply was to playing-with)")

    referee.observer = watch
    result = run_locally(referee.play())
    assert [seat for seat, *_ in calls(log, "setup")] == [1, 2, 2, 1, 2, 1]
    assert result.removals == ((3, 0, "setup", "disconnected between questions (its last reply was to playing-with)"),)


def test_a_player_expelled_after_its_last_placement_leaves_when_placement_ends():
    log: list = []
    players = logged([None, None], log)
    referee = FishReferee(players, BIG)

    def watch(event, ref):
        if event == "placed" and ref.checkpoints == 9:  # after red's last placement: white still places its last
            ref.expel(players[1], "gone")

    referee.observer = watch
    result = run_locally(referee.play())
    assert [seat for seat, *_ in calls(log, "setup")] == [1, 2] * 4
    assert result.removals == ((2, 0, "setup", "gone"),)
    assert {seat for seat, *_ in calls(log, "take-turn")} == {1}


def test_an_expulsion_takes_effect_at_the_safe_point_after_the_count_and_a_replay_repeats_it():
    def game(expel_at: int | None, after: int | None) -> tuple:
        log: list = []
        players = logged([None, None, None], log)
        referee = FishReferee(players, BIG)
        counts = []
        if after is not None:
            referee.expel(players[1], "left the game", after)

        def watch(event, ref):
            if ref.checkpoints == expel_at and not counts:
                counts.append(ref.expel(players[1], "left the game"))

        referee.observer = watch
        return run_locally(referee.play()), counts, log

    live, counts, live_log = game(expel_at=20, after=None)
    assert counts == [20]
    (removal,) = live.removals
    assert removal[0] == 2 and removal.step == "take-turn"
    replayed, _, replay_log = game(expel_at=None, after=20)
    assert replayed == live and replay_log == live_log


# -- the observer, awaitables ------------------------------------------------------------------------------


def test_the_observer_sees_every_step_and_can_be_switched_off():
    events: list = []
    referee = FishReferee([GreedyPlayer(), GreedyPlayer()], BIG, observer=lambda event, ref: events.append(event))
    result = run_locally(referee.play())
    assert events[:2] == ["informed", "informed"]
    assert events[2:10] == ["placed"] * 8
    assert set(events[10:-1]) <= {"moved", "skipped"} and len(events[10:-1]) == result.turns
    assert events[-1] == "end" and referee.step == "end"
    referee = FishReferee([GreedyPlayer(), GreedyPlayer()], BIG, observer=lambda event, ref: 1 / 0)
    referee.observer = None
    run_locally(referee.play())


class Ready:
    """An awaitable that has its value already (as a fired Deferred would)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __await__(self):
        if False:
            yield
        return self.value


class AwaitingGreedy(GreedyPlayer):
    def setup(self, state):
        return Ready(super().setup(state))

    def take_turn(self, state, actions):
        return defer.succeed(super().take_turn(state, actions))


def test_awaitable_answers_are_awaited_and_plain_answers_are_not():
    plain = play_local_game([GreedyPlayer(), GreedyPlayer()], BIG)
    awaited = run_locally(FishReferee([AwaitingGreedy(), GreedyPlayer()], BIG).play())
    assert awaited == plain


def test_a_pending_answer_needs_a_reactor_and_a_failed_one_removes_the_player():
    waiting = defer.Deferred()

    class Waits(GreedyPlayer):
        def playing_as(self, color):
            return waiting

    with pytest.raises(RuntimeError, match="under a reactor"):
        run_locally(FishReferee([Waits(), GreedyPlayer()], BIG).play())

    class Fails(GreedyPlayer):
        def setup(self, state):
            return defer.fail(PlayerFailure("sent bytes that are not JSON"))

    outcome = []
    referee = FishReferee([Fails(), GreedyPlayer()], BIG)
    defer.ensureDeferred(referee.play()).addCallback(outcome.append)
    (result,) = outcome
    assert result.removals == ((1, 0, "setup", "sent bytes that are not JSON"),)
