package fish;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * JSON in and out, with the JDK alone (it has no JSON library).
 *
 * <p>Offers {@code Json.Reader}, which reads one JSON value after another from a byte stream.
 * Values are delimited by JSON itself, not by newlines: whitespace before a value is skipped,
 * and a value may arrive in any number of pieces (the host writes one value per line, but the
 * guide promises only JSON). And {@code Json.write(value)}, compact JSON text.
 *
 * <p>Values are Java objects: an object is a {@code Map<String, Object>} (keys in the order
 * written), an array a {@code List<Object>}, a string a {@code String}, {@code true}/{@code
 * false} a {@code Boolean}, {@code null} the constant {@link #NULL}. A number written as an
 * integer ({@code 3}, {@code -12}) is a {@code Long}; any other number ({@code 3.0}, {@code 3e0})
 * a {@code Double}, so that code which wants a natural can refuse it, as the host does.
 */
public final class Json {
    /** JSON's {@code null}. */
    public static final Object NULL = new Object() {
        @Override
        public String toString() {
            return "null";
        }
    };

    private static final int MAX_DEPTH = 64;

    private Json() {}

    /** A message that is not JSON. */
    public static final class Malformed extends IOException {
        private static final long serialVersionUID = 1L;

        public Malformed(String reason) {
            super(reason);
        }
    }

    /** Reads JSON values one after another from a stream of bytes (UTF-8). */
    public static final class Reader {
        private final java.io.Reader in;
        private int peeked = -2; // -2: nothing peeked yet

        public Reader(InputStream in) {
            this.in = new java.io.BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        }

        /** The next value, or {@code null} (Java's) at the end of the stream before a value began. */
        public Object next() throws IOException {
            skipWhitespace();
            if (peek() == -1) {
                return null;
            }
            return value(0);
        }

        private int peek() throws IOException {
            if (peeked == -2) {
                peeked = in.read();
            }
            return peeked;
        }

        private int take() throws IOException {
            int c = peek();
            peeked = -2;
            return c;
        }

        private int takeSome() throws IOException {
            int c = take();
            if (c == -1) {
                throw new Malformed("the connection ended inside a JSON value");
            }
            return c;
        }

        private void skipWhitespace() throws IOException {
            while (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r') {
                take();
            }
        }

        private void expect(String word) throws IOException {
            for (char c : word.toCharArray()) {
                if (takeSome() != c) {
                    throw new Malformed("expected " + word);
                }
            }
        }

        private Object value(int depth) throws IOException {
            if (depth > MAX_DEPTH) {
                throw new Malformed("nested deeper than " + MAX_DEPTH);
            }
            skipWhitespace();
            int c = peek();
            switch (c) {
                case '{': return object(depth);
                case '[': return array(depth);
                case '"': return string();
                case 't': expect("true"); return Boolean.TRUE;
                case 'f': expect("false"); return Boolean.FALSE;
                case 'n': expect("null"); return NULL;
                default:
                    if (c == '-' || (c >= '0' && c <= '9')) {
                        return number();
                    }
                    throw new Malformed(c == -1 ? "the connection ended before a value" : "unexpected " + describe(c));
            }
        }

        private Map<String, Object> object(int depth) throws IOException {
            take();
            Map<String, Object> members = new LinkedHashMap<>();
            skipWhitespace();
            if (peek() == '}') {
                take();
                return members;
            }
            while (true) {
                skipWhitespace();
                if (peek() != '"') {
                    throw new Malformed("an object's key must be a string");
                }
                String key = string();
                skipWhitespace();
                if (takeSome() != ':') {
                    throw new Malformed("expected : after a key");
                }
                members.put(key, value(depth + 1));
                skipWhitespace();
                int c = takeSome();
                if (c == '}') {
                    return members;
                }
                if (c != ',') {
                    throw new Malformed("expected , or } in an object");
                }
            }
        }

        private List<Object> array(int depth) throws IOException {
            take();
            List<Object> items = new ArrayList<>();
            skipWhitespace();
            if (peek() == ']') {
                take();
                return items;
            }
            while (true) {
                items.add(value(depth + 1));
                skipWhitespace();
                int c = takeSome();
                if (c == ']') {
                    return items;
                }
                if (c != ',') {
                    throw new Malformed("expected , or ] in an array");
                }
            }
        }

        private String string() throws IOException {
            take();
            StringBuilder text = new StringBuilder();
            while (true) {
                int c = takeSome();
                if (c == '"') {
                    return text.toString();
                }
                if (c < 0x20) {
                    throw new Malformed("a control character inside a string");
                }
                if (c != '\\') {
                    text.append((char) c);
                    continue;
                }
                int e = takeSome();
                switch (e) {
                    case '"': case '\\': case '/': text.append((char) e); break;
                    case 'b': text.append('\b'); break;
                    case 'f': text.append('\f'); break;
                    case 'n': text.append('\n'); break;
                    case 'r': text.append('\r'); break;
                    case 't': text.append('\t'); break;
                    case 'u': text.append((char) hex4()); break;
                    default: throw new Malformed("a bad escape \\" + describe(e));
                }
            }
        }

        private int hex4() throws IOException {
            int code = 0;
            for (int i = 0; i < 4; i++) {
                int digit = Character.digit(takeSome(), 16);
                if (digit < 0) {
                    throw new Malformed("a bad \\u escape");
                }
                code = code * 16 + digit;
            }
            return code;
        }

        // A number: the characters JSON allows in one, checked by the JDK's own parsers.
        private Object number() throws IOException {
            StringBuilder text = new StringBuilder();
            boolean integer = true;
            while (peek() == '-' || peek() == '+' || peek() == '.' || peek() == 'e' || peek() == 'E'
                    || (peek() >= '0' && peek() <= '9')) {
                int c = take();
                integer &= c != '.' && c != 'e' && c != 'E';
                text.append((char) c);
            }
            String number = text.toString();
            if (!number.matches("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?")) {
                throw new Malformed("a bad number " + number);
            }
            try {
                return integer ? (Object) Long.parseLong(number) : (Object) Double.parseDouble(number);
            } catch (NumberFormatException tooLong) {
                return Double.parseDouble(number);
            }
        }

        private static String describe(int c) {
            return c == -1 ? "end of input" : "'" + (char) c + "'";
        }
    }

    /** Compact JSON text of a value made of the types above (and ints). */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out) {
        if (value instanceof String text) {
            writeString(text, out);
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(list.get(i), out);
            }
            out.append(']');
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> member : map.entrySet()) {
                if (!first) {
                    out.append(',');
                }
                first = false;
                writeString(String.valueOf(member.getKey()), out);
                out.append(':');
                write(member.getValue(), out);
            }
            out.append('}');
        } else if (value == null || value == NULL) {
            out.append("null");
        } else {
            out.append(value); // Boolean, Integer, Long, Double
        }
    }

    private static void writeString(String text, StringBuilder out) {
        out.append('"');
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"': out.append("\\\""); break;
                case '\\': out.append("\\\\"); break;
                case '\n': out.append("\\n"); break;
                case '\r': out.append("\\r"); break;
                case '\t': out.append("\\t"); break;
                default:
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
            }
        }
        out.append('"');
    }
}
