"""The dealer: runs a whole game of Evolution through the player interface.

Offers ``Dealer``. ``Dealer.play()`` is a coroutine: it awaits a player's answer
only when the player returned an awaitable (a remote proxy's ``Deferred``), so
``run_locally`` (``evolution.games.evolution.rules.local``) plays a game of local players with
no event loop, and Twisted's ``ensureDeferred`` plays the same coroutine with
remote players, many games on one reactor, without threads.

The dealer enforces the rules; players only choose. A player whose call fails
or whose answer breaks the rules is removed (rules.md 11) and the game goes on;
``expel`` removes a player that failed between calls (a remote disconnect).
An optional observer sees the table after every step (tests check invariants
there).

Turn structure (rules.md 4-10): end check; step 1 (free boards, cards,
``start``); steps 2-3 (``choose`` asked of one player at a time in turn order,
each answer awaited before the next player is asked, as the course's server
does; or, with ``parallel_choose``, of all players at once; the answers are
checked, then applied in turn order); step 4 (start-of-feeding effects, the
feeding cycle); end of turn; rotation.

Checkpoints. Expulsions take effect only at the dealer's safe points, never
while an answer is being checked against the table: the end of step 1, the
end of steps 2-3, before every feeding step, the end of a turn and the end of
the game. ``checkpoints`` counts the safe points passed; ``expel`` answers the
count at which it was asked, and an expulsion asked at count ``c`` takes
effect at safe point ``c + 1``. A replay hands the same counts back to
``expel`` (its ``after`` argument) and so removes a player at exactly the
point where the recorded game removed it.
"""

from __future__ import annotations

from collections import deque
from itertools import islice
from typing import Any, Callable, Sequence

from evolution.games.evolution.rules.actions import Action4, apply_action, check_action
from evolution.games.evolution.rules.cards import Deck
from evolution.games.evolution.rules.errors import RulesViolation
from evolution.games.evolution.rules.feeding import FeedingChoice, feeding_options
from evolution.games.evolution.rules.player import FeedingState, Player
from evolution.games.evolution.rules.player_state import PlayerState
from evolution.games.evolution.rules.results import GameResult, Removal, rank
from evolution.games.evolution.rules.species import MAX_POPULATION, NEW_SPECIES
from evolution.games.evolution.rules.table import EXTINCTION_CARDS, Table
from evolution.games.evolution.rules.traits import Trait
from evolution.coroutines import Failed, call, settle
from evolution.safe_points import SafePoints

MIN_PLAYERS = 3
MAX_PLAYERS = 8
CARDS_PER_PLAYER = 3
CARDS_PER_BOARD = 1

SKIPPED, FED, REMOVED = "skipped", "fed", "removed"

Observer = Callable[[str, "Dealer"], None]
"""Called after each step: start, choose, start-of-feeding, feed, end-of-turn."""


def _call(player: PlayerState, method: str, *args: Any) -> Any:
    return call(player.player, method, *args)


class Dealer(SafePoints):
    """Runs one game: the table, the turn, and the record of removals (``expel``: ``SafePoints``)."""

    def __init__(self, table: Table, observer: Observer | None = None, parallel_choose: bool = False) -> None:
        super().__init__()
        self.table = table
        self.removals: list[Removal] = []
        self.turn = 0
        self.step = "start"
        self.observer = observer
        self.parallel_choose = parallel_choose

    @classmethod
    def new_game(
        cls,
        players: Sequence[Player],
        deck: Deck | None = None,
        observer: Observer | None = None,
        parallel_choose: bool = False,
    ) -> Dealer:
        """A dealer for a new game; player ids are 1, 2, ... in the order given."""
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise ValueError(f"a game needs {MIN_PLAYERS}..{MAX_PLAYERS} players, not {len(players)}")
        states = [PlayerState(i + 1, player=player) for i, player in enumerate(players)]
        return cls(Table(states, 0, deck if deck is not None else Deck.sorted()), observer, parallel_choose)

    def _observe(self, event: str) -> None:
        if self.observer is not None:
            self.observer(event, self)

    # -- the game ---------------------------------------------------------

    async def play(self) -> GameResult:
        """Play turns until the end condition holds; return the result."""
        while self.table.players and not self.game_over():
            self.turn += 1
            await self.play_turn()
        self.step = "end"
        self._checkpoint()
        return GameResult(rank(self.table.players), tuple(self.removals), self.turn)

    def scores(self) -> dict[int, int]:
        """Each player still in the game: its score so far (rules.md 10.3), by id."""
        return {player.id: player.score() for player in self.table.players}

    def game_over(self) -> bool:
        """Fewer cards in the deck than the players need (rules.md 10.2, quirk D10)."""
        players = self.table.players
        needed = sum(len(p.boards) + CARDS_PER_PLAYER for p in players)
        return not players or len(self.table.deck) < needed

    async def play_turn(self) -> None:
        await self.step1()
        actions = await self.choose_all()
        self.apply_actions(actions)
        await self.feeding()
        self.end_turn()

    # -- step 1 -------------------------------------------------------------

    async def step1(self) -> None:
        self.step = "start"
        table = self.table
        for player in table.players:
            if not player.boards:
                player.boards.append(NEW_SPECIES)
        for player in table.players:
            player.receive(table.deck.take(len(player.boards) * CARDS_PER_BOARD + CARDS_PER_PLAYER))
        players = list(table.players)
        pending = [_call(p, "start", table.watering_hole, p.view()) for p in players]
        for player, asked in zip(players, pending):
            outcome = await settle(asked)
            if isinstance(outcome, Failed):
                self.remove(player, outcome.reason)
        self._checkpoint()
        self._observe("start")

    # -- steps 2 and 3 ------------------------------------------------------

    async def choose_all(self) -> list[tuple[PlayerState, Action4]]:
        """Ask every player for its card actions; keep the legal answers.

        One player at a time in turn order, each answer awaited before the next
        question; with ``parallel_choose``, every player at once (seed 001 note
        C). Either way each player sees the boards as they were before anyone's
        actions are applied.
        """
        self.step = "choose"
        players = list(self.table.players)
        boards = [tuple(p.boards) for p in players]
        questions = [(p, tuple(boards[:i]), tuple(boards[i:])) for i, p in enumerate(players)]
        if self.parallel_choose:
            pending = [_call(p, "choose", before, after) for p, before, after in questions]
            answers = [await settle(asked) for asked in pending]
        else:
            answers = [await settle(_call(p, "choose", before, after)) for p, before, after in questions]
        legal = []
        for player, answer in zip(players, answers):
            if isinstance(answer, Failed):
                self.remove(player, answer.reason)
                continue
            try:
                legal.append((player, check_action(answer, player.boards, player.hand)))
            except RulesViolation as violation:
                self.remove(player, f"illegal Action4: {violation}")
        self._checkpoint()
        return [(player, action) for player, action in legal if player in self.table.players]

    def apply_actions(self, actions: list[tuple[PlayerState, Action4]]) -> None:
        """Apply the checked actions in turn order, clamping the watering hole (rules.md 6.2)."""
        table = self.table
        for player, action in actions:
            table.watering_hole = max(0, table.watering_hole + apply_action(player, action))
        self._observe("choose")

    # -- step 4 -------------------------------------------------------------

    async def feeding(self) -> None:
        """Start-of-feeding effects, then the feeding cycle (rules.md 7.1-7.2)."""
        self.step = "feed"
        self.start_of_feeding()
        self._observe("start-of-feeding")
        table = self.table
        queue = deque(table.players)
        idle = 0
        while queue and table.watering_hole > 0 and idle < len(queue):
            self._checkpoint()
            if queue[0] not in table.players:
                queue.popleft()
                idle = 0
                continue
            outcome = await self.feeding_step(queue[0])
            self._observe("feed")
            if outcome is REMOVED:
                queue.popleft()
                idle = 0
            else:
                queue.rotate(-1)
                idle = idle + 1 if outcome is SKIPPED else 0

    def start_of_feeding(self) -> None:
        """Fertile, then long-neck, then fat-tissue, each pass in turn order (rules.md 7.1)."""
        table = self.table
        for player in table.players:
            boards = player.boards
            for i, species in enumerate(boards):
                if Trait.FERTILE in species.traits and species.population < MAX_POPULATION:
                    boards[i] = species._replace(population=species.population + 1)
        for player in table.players:
            for i, species in enumerate(player.boards):
                if Trait.LONG_NECK in species.traits:
                    table.feed_once(player, i)
        for player in table.players:
            boards = player.boards
            for i, species in enumerate(boards):
                if species.fat_food and Trait.FAT_TISSUE in species.traits:
                    moved = min(species.population - species.food, species.fat_food)
                    if moved > 0:
                        boards[i] = species._replace(food=species.food + moved, fat_food=species.fat_food - moved)

    async def feeding_step(self, player: PlayerState) -> str:
        """One turn of ``player`` in the feeding cycle: skip, feed automatically, or ask."""
        table = self.table
        if table.watering_hole == 0:
            return SKIPPED
        options = list(islice(feeding_options(table, player), 2))
        if not options:
            return SKIPPED
        if len(options) == 1:
            options[0].execute(table, player)
            return FED
        others = tuple(tuple(other.boards) for other in table.others(player))
        boards = tuple(player.boards)
        state = FeedingState(player.bag, boards, tuple(player.hand), table.watering_hole, others)
        answer = await settle(_call(player, "feed_next", state))
        if isinstance(answer, Failed):
            self.remove(player, answer.reason)
            return REMOVED
        try:
            if not isinstance(answer, FeedingChoice):
                raise RulesViolation(f"expected a feeding choice, got {type(answer).__name__}")
            answer.check(boards, others)
        except RulesViolation as violation:
            self.remove(player, f"illegal feeding choice: {violation}")
            return REMOVED
        answer.execute(table, player)
        return FED

    # -- end of turn --------------------------------------------------------

    def end_turn(self) -> None:
        """Populations shrink to food, starving species die, food goes to bags; rotate."""
        table = self.table
        for player in table.players:
            survivors = []
            for species in player.boards:
                if species.food == 0:
                    player.receive(table.deck.take(EXTINCTION_CARDS))
                else:
                    survivors.append(species._replace(population=species.food, food=0))
                    player.bag += species.food
            player.boards = survivors
        players = table.players
        if players:
            players.append(players.pop(0))
        self._checkpoint()
        self._observe("end-of-turn")

    # -- removal ------------------------------------------------------------

    def _remove_expelled(self, player: Player, reason: str) -> None:
        for state in self.table.players:
            if state.player is player:
                self.remove(state, reason)
                break

    def remove(self, player: PlayerState, reason: str) -> None:
        """Remove a failing or cheating player; the game goes on without it."""
        if player in self.table.players:
            self.table.remove(player)
            self.removals.append(Removal(player.id, self.turn, self.step, reason))
