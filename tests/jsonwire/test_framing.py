"""The JSON stream decoder: any split of a stream gives the same values; limits hold."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evolution.jsonwire.framing import FramingError, JSONStreamDecoder, encode_message

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=12,
)
separators = st.sampled_from(["", " ", "\n", "\r\n", "\t ", "  \n  "])


def decode_in_pieces(data: bytes, cuts: list[int]) -> list:
    decoder = JSONStreamDecoder()
    values, start = [], 0
    for cut in sorted(set(cuts)) + [len(data)]:
        values += decoder.feed(data[start:cut])
        start = cut
    return values + decoder.finish()


def needs_separator(previous: str, following: str) -> bool:
    """Two scalars written back to back would run together (``1`` ``2`` -> ``12``)."""
    return previous[-1] not in '"]}' and following[0] not in '"[{'


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(json_values, separators), min_size=1, max_size=6), st.lists(st.integers(0, 400)))
def test_any_split_of_a_stream_gives_the_values_in_order(items, cuts):
    texts = []
    for value, separator in items:
        text = json.dumps(value, ensure_ascii=False)
        if texts and not separator and needs_separator(texts[-1], text):
            separator = " "
        texts.append(separator + text)
    data = "".join(texts).encode("utf-8")
    assert decode_in_pieces(data, [c for c in cuts if c < len(data)]) == [value for value, _ in items]


def outcome(decoder: JSONStreamDecoder, pieces: list[bytes]) -> tuple:
    """The values ``pieces`` give, or the refusal's words."""
    values = []
    try:
        for piece in pieces:
            values += decoder.feed(piece)
    except FramingError as error:
        return ("refused", str(error))
    return ("values", values)


line_texts = json_values.map(lambda value: json.dumps(value, ensure_ascii=False)) | st.builds(
    str.__add__,
    st.sampled_from('[{"'),  # a line that begins a scalar is read the scanner's way anyway
    st.text(alphabet='[]{}",:0123456789 -eE.tfnulrsa\\\t\x0b\u00a0', max_size=30),
)


@settings(max_examples=400, deadline=None)
@example('[[["x"]]]', (1024, 2))  # deeper than allowed
@example('["xxxxxxxxxx"]', (10, 2))  # longer than allowed
@example("[1] x", (1024, 64))  # garbage after the value
@example("[NaN]", (1024, 64))
@example('""0\xa0', (10, 2))  # a no-break space after a number is not JSON whitespace
@given(line_texts, st.sampled_from([(10, 2), (40, 3), (1024, 64)]))
def test_a_whole_line_reads_as_the_same_line_byte_by_byte(text, limits):
    # A whole line is read the fast way when it can be; the byte-by-byte scanner is the
    # reference: the same values, or a refusal too (whose words may name a different
    # byte: a scalar that never ends is refused at its first impossible byte).
    data = (text + "\n").encode("utf-8")
    whole = outcome(JSONStreamDecoder(*limits), [data])
    one_by_one = outcome(JSONStreamDecoder(*limits), [data[i:i + 1] for i in range(len(data))])
    assert whole[0] == one_by_one[0]
    if whole[0] == "values":
        assert whole == one_by_one


def test_values_back_to_back_and_split_utf8():
    data = '"é"[1]{"a":2}"ok"'.encode()
    assert decode_in_pieces(data, [1, 2, 5]) == ["é", [1], {"a": 2}, "ok"]


def test_a_number_at_the_end_waits_for_a_delimiter():
    decoder = JSONStreamDecoder()
    assert decoder.feed(b"1") == []
    assert decoder.feed(b"2") == []
    assert decoder.feed(b" ") == [12]


def test_a_number_is_complete_at_end_of_stream():
    decoder = JSONStreamDecoder()
    assert decoder.feed(b"[1] 7") == [[1]]
    assert decoder.finish() == [7]


def test_a_value_cut_off_by_end_of_stream_is_an_error():
    decoder = JSONStreamDecoder()
    decoder.feed(b'[1, "a')
    with pytest.raises(FramingError, match="ends in the middle of a value"):
        decoder.finish()


@pytest.mark.parametrize(
    "data, reason",
    [
        (b"[" * 65, "nested deeper than 64 levels"),
        (b'"' + b"x" * (1024 * 1024 + 1), "longer than 1048576 bytes"),
        (b"1" * (1024 * 1024 + 1), "longer than 1048576 bytes"),
        (b"[1, oops] ", "not JSON"),
        (b"NaN ", "NaN is not a JSON number"),
        (b"Infinity ", "not JSON"),
        (b"[1]] ", "not JSON"),
        (b"\xff\xfe ", "not JSON"),
        (b'"\xc3"', "not JSON"),
    ],
)
def test_bytes_that_cannot_be_framed(data, reason):
    decoder = JSONStreamDecoder()
    with pytest.raises(FramingError, match=reason):
        decoder.feed(data)
    with pytest.raises(FramingError):
        decoder.feed(b"[1]")  # no resynchronisation after a failure


def test_limits_are_configurable():
    decoder = JSONStreamDecoder(max_bytes=10, max_depth=2)
    assert decoder.feed(b"[[1]] ") == [[[1]]]
    with pytest.raises(FramingError, match="deeper than 2"):
        JSONStreamDecoder(max_depth=2).feed(b"[[[1]]]")
    with pytest.raises(FramingError, match="longer than 10 bytes"):
        decoder.feed(b'"abcdefghijk"')


def test_depth_counts_brackets_outside_strings_only():
    decoder = JSONStreamDecoder(max_depth=2)
    assert decoder.feed(b'["[[[[", "\\"]]"] ') == [["[[[[", '"]]']]


def test_whitespace_alone_yields_nothing_and_keeps_no_memory():
    decoder = JSONStreamDecoder(max_bytes=16)
    for _ in range(100):
        assert decoder.feed(b" " * 1000 + b"\n") == []
    assert not decoder.pending


def test_encode_message_is_one_compact_line():
    assert encode_message([1, ["a", {"b": None}]]) == b'[1,["a",{"b":null}]]\n'
    assert encode_message("é") == '"é"\n'.encode()


@pytest.mark.parametrize(
    "data, shown",
    [
        (b"aaaa", "'a'"),
        (b"12a", "'12a'"),
        (b"-x", "'-x'"),
        (b"01", "'01'"),
        (b"1.e", "'1.e'"),
        (b"1e+-", "'1e+-'"),
        (b"trux", "'trux'"),
        (b"nulll", "'nulll'"),
        (b"]", "']'"),
        (b"[1] x", "'x'"),
    ],
)
def test_a_scalar_that_can_no_longer_be_json_is_refused_without_waiting_for_a_delimiter(data, shown):
    with pytest.raises(FramingError, match=re.escape(f"not JSON: {shown} does not begin any JSON value")):
        JSONStreamDecoder().feed(data)


@settings(max_examples=200, deadline=None)
@given(st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.booleans() | st.none())
def test_every_beginning_of_a_scalar_is_held_until_it_is_complete(value):
    text = json.dumps(value).encode()
    for cut in range(1, len(text)):
        decoder = JSONStreamDecoder()
        assert decoder.feed(text[:cut]) == []
        assert decoder.feed(text[cut:] + b" ") == [value]


@pytest.mark.parametrize("word, value", [(b"true", True), (b"false", False), (b"null", None)])
def test_a_literal_is_complete_with_its_last_letter(word, value):
    decoder = JSONStreamDecoder()
    assert decoder.feed(word[:-1]) == []
    assert decoder.feed(word[-1:]) == [value]
    assert not decoder.pending


def test_a_complete_number_at_the_end_can_be_taken_as_it_is():
    decoder = JSONStreamDecoder()
    assert decoder.feed(b"[1] 1") == [[1]]
    assert decoder.number_waiting
    assert decoder.feed(b"2") == []
    assert decoder.take_number() == [12]
    assert not decoder.pending and decoder.take_number() == []
    assert decoder.feed(b" 3 ") == [3]


@pytest.mark.parametrize("data", [b"-", b"1.", b"2e", b"2e-", b'"1', b"[1", b"tru"])
def test_only_a_complete_number_is_waiting(data):
    decoder = JSONStreamDecoder()
    assert decoder.feed(data) == []
    assert not decoder.number_waiting and decoder.take_number() == []
