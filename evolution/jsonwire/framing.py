"""A stream of JSON values, parsed incrementally and within limits.

Offers ``JSONStreamDecoder(max_bytes, max_depth)``: ``feed(data)`` returns the
complete values so far; ``finish()`` at end of stream returns a trailing
scalar; ``number_waiting`` and ``take_number()``: a complete number at the
end of the input, taken as it is (for a sender that writes no delimiter).
``decode_one(data)`` reads a whole input that must hold exactly one value (a
file, standard input). ``FramingError``: bytes that are not JSON, a value
larger than ``max_bytes`` or deeper than ``max_depth`` (the stream cannot be
resynchronised after one). ``encode_text`` writes a value as compact JSON
text, ``encode_message`` as one compact line of UTF-8.

What counts as a value, and why its work is bounded: docs/architecture.md,
"Checking a message".
"""

from __future__ import annotations

import json
import re
from typing import Any

DEFAULT_MAX_BYTES = 1024 * 1024
DEFAULT_MAX_DEPTH = 64

_NOT_WHITESPACE = re.compile(rb"[^ \t\r\n]")
_IN_STRING = re.compile(rb'["\\]')
_STRUCTURE = re.compile(rb'[\[\]{}"]')
_SCALAR_END = re.compile(rb'[ \t\r\n\[\]{}",:]')
_OPENERS = b"[{"
_WHOLE_LINE_STARTS = b'[{"'
_JSON_WHITESPACE = " \t\r\n"
_DIGITS = re.compile(rb"[0-9]*")
_LITERALS = (b"true", b"false", b"null")
_LITERAL_STARTS = b"tfn"

# How a JSON number (RFC 8259, section 6) goes on, by the class of its next byte; a byte
# without an entry means the bytes so far can no longer become a number.
_BYTE_CLASS = {ord("0"): "0", ord("."): ".", ord("e"): "e", ord("E"): "e", ord("+"): "+", ord("-"): "-"}
_BYTE_CLASS.update((ord(digit), "1-9") for digit in "123456789")
_NUMBER_STEPS = {
    "start": {"-": "minus", "0": "zero", "1-9": "integer"},
    "minus": {"0": "zero", "1-9": "integer"},
    "zero": {".": "point", "e": "exponent"},
    "integer": {".": "point", "e": "exponent"},
    "point": {"0": "fraction", "1-9": "fraction"},
    "fraction": {"e": "exponent"},
    "exponent": {"+": "exponent-sign", "-": "exponent-sign", "0": "exponent-digits", "1-9": "exponent-digits"},
    "exponent-sign": {"0": "exponent-digits", "1-9": "exponent-digits"},
    "exponent-digits": {},
}
_DIGIT_RUNS = frozenset({"integer", "fraction", "exponent-digits"})  # states that take any number of digits
_WHOLE_NUMBER = frozenset({"zero", "integer", "fraction", "exponent-digits"})


class FramingError(ValueError):
    """The byte stream is not a sequence of acceptable JSON values."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


_decoder = json.JSONDecoder(parse_constant=_reject_constant)


def decode_value(data: bytes) -> Any:
    """Parse one complete JSON value (already size- and depth-checked)."""
    try:
        text = data.decode("utf-8")
        value, end = _decoder.raw_decode(text)
    except json.JSONDecodeError as error:
        raise FramingError(f"not JSON: {error.msg} at line {error.lineno} column {error.colno}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise FramingError(f"not JSON: {error}") from None
    if text[end:].strip(_JSON_WHITESPACE):  # JSON's whitespace only: str.strip() would take \x0b and Unicode spaces too
        raise FramingError(f"not JSON: unexpected {text[end:end + 10]!r} after a value")
    return value


_encoder = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False)


def encode_text(value: Any) -> str:
    """One JSON value as compact text (non-ASCII characters as themselves)."""
    return _encoder.encode(value)


def encode_message(value: Any) -> bytes:
    """One compact JSON value and a newline, UTF-8."""
    return _encoder.encode(value).encode("utf-8") + b"\n"


def decode_one(data: bytes, max_bytes: int = DEFAULT_MAX_BYTES, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """The one JSON value in ``data``, read within the same limits as a message on the wire."""
    decoder = JSONStreamDecoder(max_bytes, max_depth)
    values = decoder.feed(data + b"\n") + decoder.finish()  # the input is whole: nothing follows its last scalar
    if not values:
        raise FramingError("empty: no JSON value")
    if len(values) > 1:
        raise FramingError("holds more than one JSON value")
    return values[0]


class JSONStreamDecoder:
    """Splits a byte stream into JSON values without trusting it."""

    def __init__(self, max_bytes: int = DEFAULT_MAX_BYTES, max_depth: int = DEFAULT_MAX_DEPTH) -> None:
        self.max_bytes = max_bytes
        self.max_depth = max_depth
        self._buffer = bytearray()
        self._start = -1  # where the current value starts in the buffer (-1: none yet)
        self._scan = 0  # how far the current value has been scanned
        self._depth = 0
        self._in_string = False
        self._number = "start"  # how far a scalar at the front has come as a number
        self._failed: FramingError | None = None

    @property
    def pending(self) -> bool:
        """True while a value has begun but is not complete."""
        return self._start >= 0

    @property
    def number_waiting(self) -> bool:
        """True when the buffer ends in a complete number that more digits could still extend."""
        return self.pending and self._number in _WHOLE_NUMBER

    def unframed(self) -> bytes:
        """The bytes fed and not yet returned as a value (a value still incomplete): a new decoder fed
        them is where this one is."""
        return bytes(self._buffer)

    def take_number(self) -> list[Any]:
        """The number waiting at the end of the buffer, taken as complete (``[]`` if none)."""
        return [self._next_value(at_eof=True)] if self.number_waiting else []

    def feed(self, data: bytes) -> list[Any]:
        """Add bytes; return every value completed by them."""
        if self._failed is not None:
            raise self._failed
        if not self._buffer:
            line = self._whole_line(data)
            if line is not _INCOMPLETE:
                return [line]
        self._buffer += data
        values = []
        try:
            while True:
                value = self._next_value(at_eof=False)
                if value is _INCOMPLETE:
                    break
                values.append(value)
        except FramingError as error:
            self._failed = error
            raise
        return values

    def _whole_line(self, data: bytes) -> Any:
        """The fast way for the common case: ``data`` is one whole array, object or string and a newline.

        Taken only when the scanner could not object: nothing is buffered, the
        line is within ``max_bytes``, it holds no more brackets than ``max_depth``
        (so it cannot nest deeper), and it parses as one value followed by JSON
        whitespace only. Anything else (``_INCOMPLETE``) goes the scanner's way,
        which gives the same values and words every refusal.
        """
        if (
            data[-1:] != b"\n"
            or data[0] not in _WHOLE_LINE_STARTS
            or len(data) > self.max_bytes
            or data.count(b"[") + data.count(b"{") > self.max_depth
        ):
            return _INCOMPLETE
        try:
            text = data.decode("utf-8")
            value, end = _decoder.raw_decode(text)
        except (ValueError, RecursionError):
            return _INCOMPLETE
        if text[end:].strip(_JSON_WHITESPACE):
            return _INCOMPLETE
        return value

    def finish(self) -> list[Any]:
        """End of stream: return a trailing scalar, or raise if a value was cut off."""
        value = self._next_value(at_eof=True)
        if value is not _INCOMPLETE:
            return [value]
        if self.pending:
            raise FramingError("not JSON: the input ends in the middle of a value")
        return []

    def _next_value(self, at_eof: bool) -> Any:
        buffer = self._buffer
        if self._start < 0:
            match = _NOT_WHITESPACE.search(buffer)
            if match is None:
                buffer.clear()
                return _INCOMPLETE
            del buffer[:match.start()]
            self._start, self._scan, self._depth, self._in_string, self._number = 0, 0, 0, False, "start"
        end = self._scan_value(at_eof)
        if end < 0:
            if len(buffer) - self._start > self.max_bytes:
                raise FramingError(f"a message is longer than {self.max_bytes} bytes")
            return _INCOMPLETE
        if end > self.max_bytes:
            raise FramingError(f"a message is longer than {self.max_bytes} bytes")
        data = bytes(buffer[:end])
        del buffer[:end]
        self._start = -1
        return decode_value(data)

    def _scan_value(self, at_eof: bool) -> int:
        """The end offset of the value at the buffer's front, or -1 if incomplete."""
        buffer = self._buffer
        first = buffer[0]
        if first not in _OPENERS and first != 0x22:  # a scalar: number, literal or garbage
            return self._scan_scalar(at_eof)
        position = max(self._scan, 0)
        limit = min(len(buffer), self.max_bytes + 1)
        while position < limit:
            if self._in_string:
                match = _IN_STRING.search(buffer, position, limit)
                if match is None:
                    position = limit
                    break
                position = match.end()
                if buffer[match.start()] == 0x5C:  # backslash: skip the escaped byte
                    if position >= limit:
                        position -= 1
                        break
                    position += 1
                    continue
                self._in_string = False
                if self._depth == 0:
                    return position
                continue
            match = _STRUCTURE.search(buffer, position, limit)
            if match is None:
                position = limit
                break
            byte = buffer[match.start()]
            position = match.end()
            if byte == 0x22:
                self._in_string = True
            elif byte in _OPENERS:
                self._depth += 1
                if self._depth > self.max_depth:
                    raise FramingError(f"a message is nested deeper than {self.max_depth} levels")
            else:
                self._depth -= 1
                if self._depth <= 0:
                    return position
        self._scan = position
        return -1

    def _scan_scalar(self, at_eof: bool) -> int:
        """The end of the scalar at the buffer's front; -1 while it may still grow.

        A scalar ends at a delimiter (then ``decode_value`` judges it) or at the
        end of the stream. Before that, its bytes must still be able to become a
        number or a literal: garbage is refused at once rather than held.
        """
        buffer = self._buffer
        match = _SCALAR_END.search(buffer, max(self._scan, 1))
        if match is not None:
            return match.start()
        if at_eof:
            return len(buffer)
        if buffer[0] in _LITERAL_STARTS:
            token = bytes(buffer[:6])
            if token in _LITERALS:
                return len(buffer)
            if not any(literal.startswith(token) for literal in _LITERALS):
                raise self._not_a_start(len(token) - 1)
        else:
            self._number = self._advance_number(self._number, self._scan)
        self._scan = len(buffer)
        return -1

    def _advance_number(self, state: str, position: int) -> str:
        """Run the number's states over the bytes from ``position`` to the end of the buffer."""
        buffer = self._buffer
        end = len(buffer)
        while position < end:
            if state in _DIGIT_RUNS:
                position = _DIGITS.match(buffer, position).end()
                if position == end:
                    break
            following = _NUMBER_STEPS[state].get(_BYTE_CLASS.get(buffer[position], ""))
            if following is None:
                raise self._not_a_start(position)
            state = following
            position += 1
        return state

    def _not_a_start(self, position: int) -> FramingError:
        shown = bytes(self._buffer[max(0, position - 11):position + 1]).decode("utf-8", "replace")
        return FramingError(f"not JSON: {shown!r} does not begin any JSON value")


_INCOMPLETE = object()
