package fish;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A Fish bot for the course's protocol (schemas/fish/README.md), in Java with the JDK alone.
 *
 * <pre>
 *   java -cp out fish.Bot [host] [port] [name]      defaults: 127.0.0.1 45678 javabot
 * </pre>
 *
 * <p>It connects, sends its name, and answers every call until the host's {@code end}: {@code
 * "void"} to {@code start}, {@code playing-as}, {@code playing-with} and {@code end}, a position
 * to {@code setup}, a move to {@code take-turn} ({@link Strategy}). Every message is read as JSON
 * ({@link Json}) and checked against what the guide says ({@link State}); anything else ends the
 * bot with the reason. It plays as many games as the host starts on its connection (a
 * tournament), and exits with status 0 after {@code end}, 1 when the host closes the connection
 * without one (the bot was removed, or the host stopped), sends something the guide does not
 * describe, or cannot be reached; 2 when its port is not a number. {@code BOT_VERBOSE=1} logs every message and answer on
 * standard error.
 */
public final class Bot {
    private final String name;
    private final boolean verbose = System.getenv("BOT_VERBOSE") != null;
    private String color; // this game's, from playing-as
    private int games;
    private int placements;
    private int moves;
    private Boolean won; // null until end

    private Bot(String name) {
        this.name = name;
    }

    /** A message from the host that the guide does not describe. */
    static final class Unexpected extends Exception {
        private static final long serialVersionUID = 1L;

        Unexpected(String reason) {
            super(reason);
        }
    }

    public static void main(String[] args) {
        String host = args.length > 0 ? args[0] : "127.0.0.1";
        int port = 45678;
        if (args.length > 1) {
            try {
                port = Integer.parseInt(args[1]);
            } catch (NumberFormatException error) {
                System.err.println("fish bot: the port is a whole number, not " + Json.write(args[1])
                        + " (java -cp out fish.Bot [host] [port] [name])");
                System.exit(2);
            }
        }
        Bot bot = new Bot(args.length > 2 ? args[2] : "javabot");
        int status;
        try (Socket socket = new Socket(host, port)) {
            socket.setTcpNoDelay(true);
            status = bot.play(new Json.Reader(socket.getInputStream()), socket.getOutputStream());
        } catch (IOException | Unexpected | State.Invalid error) {
            System.err.println("fish bot " + Json.write(bot.name) + ": " + error.getMessage());
            status = 1;
        }
        System.exit(status);
    }

    private int play(Json.Reader in, OutputStream out) throws IOException, Unexpected, State.Invalid {
        send(out, name);
        Object message;
        while ((message = in.next()) != null) {
            log("host -> bot", message);
            Object reply = answer(message);
            log("bot -> host", reply);
            send(out, reply);
        }
        String summary = games + " games, " + placements + " placements, " + moves + " moves";
        if (won == null) {
            System.err.println("fish bot " + Json.write(name) + ": the host closed the connection without end ("
                    + summary + "): removed, or the host stopped");
            return 1;
        }
        System.err.println("fish bot " + Json.write(name) + ": " + summary + "; end: " + (won ? "won" : "lost"));
        return 0;
    }

    // One call [name, [argument, ...]] -> the reply.
    private Object answer(Object message) throws Unexpected, State.Invalid {
        if (won != null) {
            throw new Unexpected("a message after end: " + Json.write(message));
        }
        List<?> call = State.list(message, "call", 2, 2);
        if (!(call.get(0) instanceof String method)) {
            throw new Unexpected("a call's name must be a string: " + Json.write(message));
        }
        List<?> arguments = State.list(call.get(1), method, 0, 2);
        switch (method) {
            case "start" -> flag(arguments, method);
            case "playing-as" -> {
                color = State.color(only(arguments, method), method + "[0]");
                games++;
            }
            case "playing-with" -> {
                List<?> others = State.list(only(arguments, method), method + "[0]", 1, 3);
                for (int i = 0; i < others.size(); i++) {
                    State.color(others.get(i), method + "[0][" + i + "]");
                }
            }
            case "setup" -> {
                placements++;
                return Strategy.place(myState(only(arguments, method), method)).json();
            }
            case "take-turn" -> {
                return move(arguments);
            }
            case "end" -> won = flag(arguments, method);
            default -> throw new Unexpected("an unknown call " + Json.write(method));
        }
        return "void";
    }

    private Object move(List<?> arguments) throws Unexpected, State.Invalid {
        if (arguments.size() != 2) {
            throw new State.Invalid("take-turn", "takes a state and the actions since the last turn");
        }
        State state = myState(arguments.get(0), "take-turn[0]");
        List<?> actions = State.list(arguments.get(1), "take-turn[1]", 0, 3);
        for (int i = 0; i < actions.size(); i++) {
            State.action(actions.get(i), "take-turn[1][" + i + "]");
        }
        State.Move move = Strategy.move(state);
        if (move == null) {
            throw new Unexpected("take-turn asked for a move where no penguin of " + color + " can move");
        }
        moves++;
        return move.json();
    }

    // The state of a setup or take-turn: this bot's colour must come first.
    private State myState(Object json, String path) throws Unexpected, State.Invalid {
        State state = State.of(json, path);
        String first = state.players.get(0).color();
        if (!first.equals(color)) {
            throw new Unexpected(path + ": the state's first player is " + first + ", not this bot (" + color + ")");
        }
        return state;
    }

    private static Object only(List<?> arguments, String method) throws State.Invalid {
        if (arguments.size() != 1) {
            throw new State.Invalid(method, "takes one argument, not " + arguments.size());
        }
        return arguments.get(0);
    }

    private static boolean flag(List<?> arguments, String method) throws State.Invalid {
        if (!(only(arguments, method) instanceof Boolean value)) {
            throw new State.Invalid(method + "[0]", "not true or false");
        }
        return value;
    }

    private static void send(OutputStream out, Object value) throws IOException {
        out.write((Json.write(value) + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private void log(String direction, Object value) {
        if (verbose) {
            System.err.println(direction + " " + Json.write(value));
        }
    }
}
