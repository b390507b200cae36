"""Text from bots, made safe to show: ``evolution.text.escape`` and ``short``.

- nothing a terminal would interpret survives escaping (controls, bidi
  overrides, line separators, lone surrogates);
- escaping is one-to-one: the escapes read back to the original text, so two
  different names never look the same;
- ``short`` cuts to its limit with an ellipsis, and leaves shorter text whole.
"""

from __future__ import annotations

import re
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from evolution.text import escape, quoted, short

_ESCAPE = re.compile(r"\\(x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|[nrt\\'])")
_NAMED = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", "'": "'"}
_UNSAFE = {"Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"}


def unescape(shown: str) -> str:
    return _ESCAPE.sub(lambda match: _NAMED.get(match[1]) or chr(int(match[1][1:], 16)), shown)


@given(st.text(st.characters(codec=None)) | st.text(alphabet="\\abnx01\n\x1b\u202e\u2028\ud800"))
def test_escaping_hides_what_a_terminal_interprets_and_reads_back_to_the_original(text):
    shown = escape(text)
    assert not any(unicodedata.category(char) in _UNSAFE for char in shown), shown
    assert unescape(shown) == text


def test_two_different_names_never_look_the_same():
    assert escape("\\x1b") != escape("\x1b")
    assert escape("\\x1b") == "\\\\x1b"
    assert escape("a\u202eb\n") == "a\\u202eb\\n"
    assert escape("plain name") == "plain name"


def test_short_cuts_to_its_limit_with_an_ellipsis():
    assert short("abcdef", 6) == "abcdef"
    assert short("abcdefg", 6) == "abcde\u2026"
    assert short("\x1b\x1b", 6) == "\\x1b\\\u2026"


@given(st.text(alphabet="'\\ab\x1b\u202e"))
def test_a_quoted_name_reads_back_to_the_name_and_holds_no_bare_quote(text):
    shown = quoted(text, 10**6)
    assert shown[0] == shown[-1] == "'"
    assert unescape(shown[1:-1]) == text
    assert re.fullmatch(r"(?:[^'\\]|\\.)*", shown[1:-1])  # every quote inside comes escaped


def test_a_quoted_name_is_cut_like_a_short_one():
    assert quoted("it's") == "'it\\'s'"
    assert quoted("a" * 70) == "'" + "a" * 63 + "\u2026'"
