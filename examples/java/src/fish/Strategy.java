package fish;

import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The bot's choices, one step ahead: every answer is one of {@link Rules}' legal ones.
 *
 * <p>{@code place(state)}: the free tile with the most fish, counting its free neighbours' fish
 * too (a penguin collects a tile's fish when it leaves it, and the neighbours are where it can go
 * next); ties go to the first in reading order. {@code move(state)}: the legal move that scores
 * best by the fish collected now (the tile left), the fish of the tile landed on (collected when
 * it leaves) and the room it has there afterwards (a penguin that cannot move collects nothing
 * more); ties go to the smallest move by from-row, from-column, to-row, to-column, the course's
 * tie-breaker.
 */
public final class Strategy {
    private static final Comparator<State.Position> READING =
            Comparator.comparingInt(State.Position::row).thenComparingInt(State.Position::col);
    private static final Comparator<State.Move> SMALLEST =
            Comparator.comparing(State.Move::from, READING).thenComparing(State.Move::to, READING);

    private Strategy() {}

    public static State.Position place(State state) {
        Set<State.Position> taken = Rules.penguins(state);
        State.Position best = null;
        int bestValue = -1;
        for (State.Position tile : Rules.placements(state)) { // in reading order: the first best stays
            int value = 3 * state.fish(tile) + neighbourFish(state, tile, taken);
            if (value > bestValue) {
                best = tile;
                bestValue = value;
            }
        }
        return best;
    }

    public static State.Move move(State state) {
        List<State.Move> moves = Rules.moves(state);
        moves.sort(SMALLEST);
        State.Move best = null;
        int bestValue = Integer.MIN_VALUE;
        for (State.Move move : moves) {
            int value = value(state, move);
            if (value > bestValue) {
                best = move;
                bestValue = value;
            }
        }
        return best;
    }

    private static int value(State state, State.Move move) {
        Set<State.Position> taken = new HashSet<>(Rules.penguins(state));
        taken.remove(move.from());
        taken.add(move.to());
        int room = Math.min(Rules.reachable(state, move.to(), withHole(taken, move.from())).size(), 6);
        return 4 * state.fish(move.from()) + 2 * state.fish(move.to()) + room;
    }

    // The tile left is a hole after the move: blocking it as if a penguin stood there is the same.
    private static Set<State.Position> withHole(Set<State.Position> taken, State.Position hole) {
        taken.add(hole);
        return taken;
    }

    private static int neighbourFish(State state, State.Position tile, Set<State.Position> taken) {
        int fish = 0;
        for (int direction = 0; direction < Rules.DIRECTIONS; direction++) {
            State.Position next = Rules.step(tile, direction);
            if (!taken.contains(next)) {
                fish += state.fish(next);
            }
        }
        return fish;
    }
}
