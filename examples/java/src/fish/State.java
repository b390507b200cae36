package fish;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The game as the host shows it (docs/fish-rules.md section 8), read from its JSON with every
 * check the schemas make, so that a message the bot does not understand is noticed at once.
 *
 * <pre>
 *   State    = {"players": [Player, ...], "board": Board}     the player asked first
 *   Player   = {"color": Color, "score": Natural, "places": [Position, ...]}   newest first
 *   Board    = [[Fish, ...], ...]     rows; 0 a hole, 1..5 fish; short rows padded with holes
 *   Position = [row, column]
 *   Action   = [Position, Position] | "skip"
 * </pre>
 *
 * <p>Offers the records {@code Position}, {@code Move}, {@code Player} and {@code State}, their
 * readers ({@code State.of(json)} and the like, which throw {@link Invalid} with the path of
 * what is wrong), and {@code Position.json()} / {@code Move.json()} for replies.
 */
public final class State {
    public static final List<String> COLORS = List.of("red", "white", "brown", "black");
    private static final int MAX_SIDE = 100;

    /** A message that is JSON but not what the guide says it is: where and why. */
    public static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;

        public Invalid(String path, String reason) {
            super(path + ": " + reason);
        }
    }

    public record Position(int row, int col) {
        public List<Object> json() {
            return List.of(row, col);
        }

        @Override
        public String toString() {
            return "[" + row + "," + col + "]";
        }
    }

    public record Move(Position from, Position to) {
        public List<Object> json() {
            return List.of(from.json(), to.json());
        }
    }

    public record Player(String color, int score, List<Position> places) {}

    public final int[][] board; // board[row][col]: the fish on the tile, 0 for a hole
    public final List<Player> players;

    private State(int[][] board, List<Player> players) {
        this.board = board;
        this.players = players;
    }

    public int rows() {
        return board.length;
    }

    public int cols() {
        return board.length == 0 ? 0 : board[0].length;
    }

    /** The fish on the tile at {@code p}: 0 for a hole and for a position off the board. */
    public int fish(Position p) {
        return p.row() >= 0 && p.row() < rows() && p.col() >= 0 && p.col() < cols() ? board[p.row()][p.col()] : 0;
    }

    // -- reading JSON ---------------------------------------------------------------------

    public static State of(Object json, String path) throws Invalid {
        Map<?, ?> object = object(json, path);
        if (object.size() != 2 || !object.containsKey("board") || !object.containsKey("players")) {
            throw new Invalid(path, "a state has exactly the keys board and players");
        }
        int[][] board = board(object.get("board"), path + ".board");
        List<?> list = list(object.get("players"), path + ".players", 1, COLORS.size());
        List<Player> players = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            players.add(player(list.get(i), path + ".players[" + i + "]"));
        }
        State state = new State(board, List.copyOf(players));
        state.checkPenguins(path);
        return state;
    }

    // Every penguin stands on a tile with fish, one penguin per tile, one colour per player.
    private void checkPenguins(String path) throws Invalid {
        java.util.Set<Position> seen = new java.util.HashSet<>();
        java.util.Set<String> colors = new java.util.HashSet<>();
        for (Player player : players) {
            if (!colors.add(player.color())) {
                throw new Invalid(path + ".players", "two players play " + player.color());
            }
            for (Position place : player.places()) {
                if (fish(place) == 0) {
                    throw new Invalid(path, player.color() + "'s penguin on " + place + " stands on no tile");
                }
                if (!seen.add(place)) {
                    throw new Invalid(path, "two penguins on " + place);
                }
            }
        }
    }

    static int[][] board(Object json, String path) throws Invalid {
        List<?> rows = list(json, path, 0, MAX_SIDE);
        int width = 0;
        for (int r = 0; r < rows.size(); r++) {
            width = Math.max(width, list(rows.get(r), path + "[" + r + "]", 0, MAX_SIDE).size());
        }
        int[][] board = new int[rows.size()][width]; // shorter rows: the rest stay 0, holes
        for (int r = 0; r < rows.size(); r++) {
            List<?> row = (List<?>) rows.get(r);
            for (int c = 0; c < row.size(); c++) {
                board[r][c] = natural(row.get(c), path + "[" + r + "][" + c + "]", 5);
            }
        }
        return board;
    }

    static Player player(Object json, String path) throws Invalid {
        Map<?, ?> object = object(json, path);
        if (object.size() != 3 || !object.containsKey("color") || !object.containsKey("score")
                || !object.containsKey("places")) {
            throw new Invalid(path, "a player has exactly the keys color, score and places");
        }
        String color = color(object.get("color"), path + ".color");
        int score = natural(object.get("score"), path + ".score", Integer.MAX_VALUE);
        List<?> list = list(object.get("places"), path + ".places", 0, 6);
        List<Position> places = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            places.add(position(list.get(i), path + ".places[" + i + "]"));
        }
        return new Player(color, score, List.copyOf(places));
    }

    public static Position position(Object json, String path) throws Invalid {
        List<?> pair = list(json, path, 2, 2);
        return new Position(natural(pair.get(0), path + "[0]", Integer.MAX_VALUE),
                natural(pair.get(1), path + "[1]", Integer.MAX_VALUE));
    }

    /** An action of the list a take-turn carries: a move, or null for "skip". */
    public static Move action(Object json, String path) throws Invalid {
        if ("skip".equals(json)) {
            return null;
        }
        List<?> pair = list(json, path, 2, 2);
        return new Move(position(pair.get(0), path + "[0]"), position(pair.get(1), path + "[1]"));
    }

    public static String color(Object json, String path) throws Invalid {
        if (!(json instanceof String text) || !COLORS.contains(text)) {
            throw new Invalid(path, Json.write(json) + " is not a colour (red, white, brown, black)");
        }
        return text;
    }

    static Map<?, ?> object(Object json, String path) throws Invalid {
        if (!(json instanceof Map<?, ?> map)) {
            throw new Invalid(path, "not an object");
        }
        return map;
    }

    static List<?> list(Object json, String path, int min, int max) throws Invalid {
        if (!(json instanceof List<?> items)) {
            throw new Invalid(path, "not an array");
        }
        if (items.size() < min || items.size() > max) {
            throw new Invalid(path, "an array of " + min + ".." + max + " items, not " + items.size());
        }
        return items;
    }

    /** A natural up to {@code max}: an integer written without fraction or exponent (3, never 3.0). */
    static int natural(Object json, String path, int max) throws Invalid {
        if (!(json instanceof Long number) || number < 0 || number > max) {
            throw new Invalid(path, Json.write(json) + " is not a natural" + (max < 100 ? " up to " + max : ""));
        }
        return (int) (long) number;
    }
}
