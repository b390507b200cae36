package fish;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What docs/fish-rules.md says a bot must know to answer legally.
 *
 * <p>Offers {@code step(p, direction)} (the neighbour of a tile: the step depends on whether
 * its row is even or odd), {@code reachable(state, from)} (every tile a penguin on {@code from}
 * can slide to: N, NE, SE, S, SW, NW, each nearest first, stopping at the edge, a hole or a
 * penguin), {@code moves(state)} (the legal moves of the player asked, the first of the state)
 * and {@code placements(state)} (every free tile with fish, in reading order).
 */
public final class Rules {
    // [drow, dcol] for N, NE, SE, S, SW, NW: from an even row, then from an odd row.
    private static final int[][] EVEN = {{-2, 0}, {-1, 0}, {1, 0}, {2, 0}, {1, -1}, {-1, -1}};
    private static final int[][] ODD = {{-2, 0}, {-1, 1}, {1, 1}, {2, 0}, {1, 0}, {-1, 0}};
    public static final int DIRECTIONS = 6;

    private Rules() {}

    public static State.Position step(State.Position p, int direction) {
        int[] delta = (p.row() % 2 == 0 ? EVEN : ODD)[direction];
        return new State.Position(p.row() + delta[0], p.col() + delta[1]);
    }

    /** Where every penguin of every player stands. */
    public static Set<State.Position> penguins(State state) {
        Set<State.Position> taken = new HashSet<>();
        for (State.Player player : state.players) {
            taken.addAll(player.places());
        }
        return taken;
    }

    public static List<State.Position> reachable(State state, State.Position from) {
        return reachable(state, from, penguins(state));
    }

    static List<State.Position> reachable(State state, State.Position from, Set<State.Position> taken) {
        List<State.Position> tiles = new ArrayList<>();
        for (int direction = 0; direction < DIRECTIONS; direction++) {
            State.Position here = step(from, direction);
            while (state.fish(here) > 0 && !taken.contains(here)) {
                tiles.add(here);
                here = step(here, direction);
            }
        }
        return tiles;
    }

    /** The legal moves of the first player of the state (the one asked). */
    public static List<State.Move> moves(State state) {
        Set<State.Position> taken = penguins(state);
        List<State.Move> moves = new ArrayList<>();
        for (State.Position from : state.players.get(0).places()) {
            for (State.Position to : reachable(state, from, taken)) {
                moves.add(new State.Move(from, to));
            }
        }
        return moves;
    }

    /** Every tile a penguin may be placed on: fish on it, no penguin; row by row, left to right. */
    public static List<State.Position> placements(State state) {
        Set<State.Position> taken = penguins(state);
        List<State.Position> free = new ArrayList<>();
        for (int row = 0; row < state.rows(); row++) {
            for (int col = 0; col < state.cols(); col++) {
                State.Position p = new State.Position(row, col);
                if (state.fish(p) > 0 && !taken.contains(p)) {
                    free.add(p);
                }
            }
        }
        return free;
    }
}
