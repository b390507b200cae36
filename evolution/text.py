"""Text from bots, made safe to show: on a terminal, in a log, in a table.

Offers ``escape(text)``, which rewrites every character a terminal or a
text viewer would interpret rather than show (C0 and C1 control codes and
DEL, line and paragraph separators, bidirectional overrides and isolates,
other invisible format characters, lone surrogates, a backslash) as a
visible escape such as ``\\x1b`` or ``\\u202e``; ``short(text, limit)``,
which escapes and then cuts to ``limit`` characters with an ellipsis;
``quoted(name, limit)``, the one form a name takes in every log line and
message: escaped once, a quote inside written ``\\'``, cut to ``limit``
(``NAME_SHOWN``) characters, between single quotes (``'bot \\x1b[2J'``);
and ``plural(count, word)``, a count with its noun ("1 game", "3 games"),
for every count a log line or an output shows.

Any JSON string is a valid name: names are stored as sent, losslessly, and
pass through ``escape`` only on their way to a reader. Escaping is one-to-one
(a backslash is doubled), so two different names never look the same.
"""

from __future__ import annotations

import re
import unicodedata

_NAMED = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}

# Control, format (bidi overrides, zero-width), separators (U+2028/9), surrogates, private use.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"})
_ASCII_SAFE = re.compile(r"[\x20-\x5b\x5d-\x7e]*\Z")


def _escape_char(char: str) -> str:
    if char in _NAMED:
        return _NAMED[char]
    if unicodedata.category(char) not in _UNSAFE_CATEGORIES:
        return char
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def escape(text: str) -> str:
    """``text`` with every character a terminal would interpret written as a visible escape."""
    if _ASCII_SAFE.match(text):
        return text
    return "".join(_escape_char(char) for char in text)


NAME_SHOWN = 64  # characters of a name in a log line or a message


def _cut(shown: str, limit: int) -> str:
    return shown if len(shown) <= limit else shown[: limit - 1] + "\u2026"


def quoted(text: str, limit: int = NAME_SHOWN) -> str:
    """``text`` escaped once, its quotes as ``\\'``, cut to ``limit`` characters, in single quotes."""
    return "'" + _cut(escape(text).replace("'", "\\'"), limit) + "'"


def short(text: str, limit: int) -> str:
    """``escape(text)``, cut to at most ``limit`` characters with a trailing ellipsis."""
    return _cut(escape(text), limit)


def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` and ``word``, in the plural (``many``, by default ``word + "s"``) unless ``count`` is 1."""
    return f"{count} {word if count == 1 else (many or word + 's')}"
