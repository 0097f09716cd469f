"""Strict JSON loading with precise diagnostics.

The fast path is orjson. orjson hides three things a contract checker must see: it keeps the
last of two duplicate keys, turns integers beyond 64 bits into floats, and refuses lone
surrogates and invalid UTF-8 outright. :func:`load` therefore checks cheaply whether the
document could hide any of them and, only then, re-parses it with the standard library's
hooks to find each one and its JSON Pointer. Nothing is repaired silently: what was found
comes back as :class:`~jsoncontract.model.Anomaly` values next to the exact value.

:func:`diagnose` explains why a text is not JSON (code fence, prose, truncation, trailing
comma...) and offers a repaired form where one exists.
"""

from __future__ import annotations

import ast
import json
import math
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Final

import orjson

from jsoncontract import codes
from jsoncontract.model import Anomaly
from jsoncontract.pointer import escape_pointer_token

#: orjson refuses documents nested deeper than this.
MAX_DEPTH: Final = 1024
#: Anomalies recorded for one document; past this they are counted, not listed.
MAX_ANOMALIES: Final = 100
#: Characters of a JSON Pointer an anomaly records; a longer one is cut to the ancestor
#: that fits (a pointer holds every key above it, and keys can be long).
MAX_POINTER: Final = 1024
#: Digits of an integer kept exactly. Python converts no more than 4,300 between text and
#: ``int`` (``sys.get_int_max_str_digits``); a longer one keeps its leading digits, which
#: leaves room for arithmetic on it (a bound plus one) to still be written out.
MAX_INT_DIGITS: Final = 4000
_INT64_MIN: Final = -(2**63)
_UINT64_MAX: Final = 2**64 - 1
_CONTAINERS: Final = (dict, list)
#: Maps every digit to ``0``, ``e`` and ``E`` to ``e`` and keeps ``-``; any other byte becomes a
#: space: a run of 19 digits, or a 3-digit negative exponent, is then a substring search.
_DIGIT_MAP: Final = bytes(
    0x30 if 0x30 <= b <= 0x39 else 0x65 if b in b"eE" else b if b == 0x2D else 0x20
    for b in range(256)
)
_NINETEEN_DIGITS: Final = b"0" * 19
#: Fifteen digits in a row: needed for both of the checks below and for nineteen.
_FIFTEEN_DIGITS: Final = b"0" * 15
#: Fifteen zeros or nines in a row: a fraction that close to a whole number (1.0000000000000001,
#: 0.99999999999999999) may be read as one.
_NEAR_WHOLE: Final = (b"0" * 15, b"9" * 15)
#: In the digit map's image: a digit, then an exponent of three digits or more below zero.
_TINY_EXPONENT: Final = b"0e-000"
#: How an escaped colon starts (``\\u003a``), with the other escapes of ``0-9:;<=>?``: rare
#: enough that one search for all of them is cheaper than two exact ones.
ESCAPED_COLON_PREFIX: Final = b"\\u003"


class NotJSON(Exception):
    """Raised by :func:`load` when the text is not JSON; carries the :class:`Diagnosis`."""

    def __init__(self, diagnosis: Diagnosis) -> None:
        super().__init__(diagnosis.message)
        self.diagnosis = diagnosis


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """Why a text is not JSON.

    ``code`` is the parse code that reports it (``parse.code_fence``, ``parse.truncated``...:
    :mod:`jsoncontract.codes`), ``offset`` the 0-based character offset of the fault,
    ``repaired`` the text a repair would produce (shown to the user, never used in place of
    the original).
    """

    code: str
    message: str
    offset: int
    line: int
    column: int
    hint: str
    repaired: str | None = None

    @property
    def fault(self) -> str:
        """The fault in words, for a message: ``code fence``."""
        return self.code.removeprefix(codes.PARSE.prefix).replace("_", " ")


def load(data: bytes | str) -> tuple[Any, tuple[Anomaly, ...]]:
    """Parse a JSON document, returning its exact value and anything a parser would hide.

    Raises:
        NotJSON: the text is not a JSON document; the exception carries the diagnosis.
    """
    if isinstance(data, str):
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: only the exact path can read them
            return _load_exact_text(data, undecodable=False)
    else:
        raw = data
    if raw[:3] == b"\xef\xbb\xbf":  # a UTF-8 byte order mark: allowed to be ignored
        raw = raw[3:]
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if exc.msg == "depth limit exceeded":
            raise NotJSON(_too_deep(exc.pos)) from None
        return _load_exact(raw)
    if may_hide_numbers(raw):
        return _load_exact(raw)
    if type(value) in _CONTAINERS and _may_hide_duplicates(raw, value):
        return _load_exact(raw)
    return value, ()


def may_hide_numbers(raw: bytes) -> bool:
    """Whether a number of the JSON text ``raw`` may be one a fast parser reads as another:
    an integer past 64 bits, a fraction a double rounds to a whole number, or a literal
    that is not 0 read as 0. A cheap bound (a 19-digit integer that fits passes it too):
    when it holds, only the exact parse can tell."""
    shape = raw.translate(_DIGIT_MAP)
    if _FIFTEEN_DIGITS in shape and (  # rare: one search decides for the common case
        _NINETEEN_DIGITS in shape  # may exceed 64 bits
        or _NEAR_WHOLE[0] in raw  # a fraction a double may round away
        or _NEAR_WHOLE[1] in raw
    ):
        return True
    return _TINY_EXPONENT in shape  # an exponent of -100 or less: may read as 0


def _may_hide_duplicates(raw: bytes, value: Any) -> bool:
    """Whether a duplicate key may have been dropped by the fast parser.

    Every key in the text is followed by exactly one colon, and string contents keep their
    colons when re-serialised. So, unless a colon was written as an escape, the text has
    as many colons as the re-serialised value exactly when no key was dropped.
    """
    if ESCAPED_COLON_PREFIX in raw:
        return True
    try:
        return raw.count(b":") != orjson.dumps(value).count(b":")
    except TypeError:  # deeper than orjson serialises: check the slow way
        return True


class _Marked(dict[str, Any]):
    """A decoded object that had duplicate keys (the last value kept, as orjson does)."""

    __slots__ = ("duplicates",)
    duplicates: list[str]


class _BigInt(int):
    """An integer outside the signed/unsigned 64-bit range; ``shown`` is how a message
    quotes it. One of more than :data:`MAX_INT_DIGITS` digits keeps only its leading
    digits (Python refuses to convert more, and a schema's bounds compare the same)."""

    shown: str  # an int subclass cannot have __slots__ with members


class _Inexact(float):
    """A number a double cannot hold that reads as one that changes a verdict: a non-zero
    literal read as 0, or a fraction read as a whole number."""

    __slots__ = ("text",)
    text: str


class _NonFinite(float):
    """NaN, Infinity, or a number that overflows a double."""

    __slots__ = ("text",)
    text: str


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) == len(pairs):
        return obj
    marked = _Marked(obj)
    seen: set[str] = set()
    dups: list[str] = []
    for key, _ in pairs:
        if key in seen and key not in dups:
            dups.append(key)
        seen.add(key)
    marked.duplicates = dups
    return marked


def _parse_int(text: str) -> int:
    digits = len(text) - (text[0] == "-")
    if digits > MAX_INT_DIGITS:
        marked = _BigInt(text[: MAX_INT_DIGITS + (text[0] == "-")])
        marked.shown = f"{text[:12]}...{text[-6:]} ({digits} digits)"
        return marked
    value = int(text)
    if value < _INT64_MIN or value > _UINT64_MAX:
        marked = _BigInt(value)
        marked.shown = _short_int(value)
        return marked
    return value


def _parse_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        marked = _NonFinite(value)
        marked.text = text
        return marked
    if value == 0.0 or value.is_integer():
        # a literal that is not 0 read as 0 (1e-400), or that is not whole read as whole
        # (1.0000000000000001 passes "type": "integer"): the double is not the number
        exact = Decimal(text)
        if exact != 0 if value == 0.0 else exact != exact.to_integral_value():
            inexact = _Inexact(value)
            inexact.text = text
            return inexact
    return value


def _parse_constant(text: str) -> float:
    marked = _NonFinite(float(text))
    marked.text = text
    return marked


_EXACT_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=_pairs_hook,
    parse_int=_parse_int,
    parse_float=_parse_float,
    parse_constant=_parse_constant,
    strict=True,
)


def _load_exact(raw: bytes) -> tuple[Any, tuple[Anomaly, ...]]:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("utf-8", "surrogateescape")
        return _load_exact_text(text, undecodable=True, raw=raw)
    return _load_exact_text(text, undecodable=False)


def _load_exact_text(
    text: str, *, undecodable: bool, raw: bytes | None = None
) -> tuple[Any, tuple[Anomaly, ...]]:
    """Parse with the standard library's hooks. ``raw`` is the original when the text had to
    be decoded leniently: a document that is not JSON is then diagnosed from its bytes."""
    text = text.removeprefix("\ufeff")
    limit = sys.getrecursionlimit()
    # the standard library recurses once per level; allow what orjson allows, no more
    sys.setrecursionlimit(max(limit, 3 * MAX_DEPTH))
    try:
        try:
            value = _EXACT_DECODER.decode(text)
        except json.JSONDecodeError:
            raise NotJSON(diagnose(raw if raw is not None else text)) from None
        found = _Found(undecodable)
        value = _clean(value, found)
    except RecursionError:
        raise NotJSON(_too_deep(0)) from None
    finally:
        sys.setrecursionlimit(limit)
    return value, found.result()


class _Found:
    """The anomalies of one document, as they are found: at most :data:`MAX_ANOMALIES`
    (then a count), each pointer built only when recorded and cut to its ancestor when
    longer than :data:`MAX_POINTER` characters. The walk keeps the path as a list of
    tokens: building a pointer string at every level would hold O(depth x key length)
    characters per level (a 1.8 MB document nested 900 deep with long keys took 1.5 GB)."""

    __slots__ = ("items", "more", "path", "undecodable")

    def __init__(self, undecodable: bool) -> None:
        self.items: list[Anomaly] = []
        self.more = 0
        self.path: list[str] = []
        self.undecodable = undecodable

    def add(self, kind: str, detail: str, last: str | None = None) -> None:
        """Record an anomaly at the current path (plus ``last``, an unescaped key)."""
        if len(self.items) >= MAX_ANOMALIES:
            self.more += 1
            return
        self.items.append(Anomaly(kind, self.pointer(last), detail))

    def pointer(self, last: str | None = None) -> str:
        tokens = self.path if last is None else [*self.path, escape_pointer_token(last)]
        size = 0
        for index, token in enumerate(tokens):
            size += len(token) + 1
            if size > MAX_POINTER:
                return "".join("/" + t for t in tokens[:index])
        return "".join("/" + t for t in tokens)

    def result(self) -> tuple[Anomaly, ...]:
        if self.more:
            last = self.items[-1]
            self.items[-1] = Anomaly(
                last.kind,
                last.pointer,
                f"{last.detail}; {self.more} more anomalies in this document are not listed",
            )
        return tuple(self.items)


def _clean(value: Any, found: _Found) -> Any:
    """Turn marker types back into plain JSON values, recording each anomaly."""
    if isinstance(value, str):
        _check_string(value, found)
        return value
    path = found.path
    if isinstance(value, dict):
        if isinstance(value, _Marked):
            for key in value.duplicates:
                found.add(
                    "duplicate_key",
                    f"key {key[:60]!r}{'...' if len(key) > 60 else ''} appears more than "
                    "once; parsers disagree on which value wins (this one keeps the last)",
                    key,
                )
        clean: dict[str, Any] = {}
        for key, item in value.items():
            _check_string(key, found, is_key=True)
            if type(item) in _PLAIN:
                clean[key] = item
                continue
            path.append(escape_pointer_token(key))
            clean[key] = _clean(item, found)
            path.pop()
        return clean
    if isinstance(value, list):
        items: list[Any] = []
        for index, item in enumerate(value):
            if type(item) in _PLAIN:
                items.append(item)
                continue
            path.append(str(index))
            items.append(_clean(item, found))
            path.pop()
        return items
    if isinstance(value, _BigInt):
        found.add(
            "big_integer",
            f"integer {value.shown} does not fit in 64 bits; most parsers "
            "(orjson, Go, Java, JavaScript) lose its precision",
        )
        return int(value)
    if isinstance(value, _Inexact):
        shown = value.text if len(value.text) <= 40 else value.text[:37] + "..."
        found.add(
            "inexact_number",
            f"{shown} cannot be held by a double: most parsers read it as {float(value)!r}",
        )
        return float(value)
    if isinstance(value, _NonFinite):
        found.add(
            "nan_infinity",
            f"{value.text} is not a JSON number (NaN and Infinity are not allowed)"
            if value.text in ("NaN", "Infinity", "-Infinity")
            else f"{value.text[:40]}{'...' if len(value.text) > 40 else ''} overflows a double "
            "and becomes Infinity",
        )
        return float(value)
    return value


#: Values :func:`_clean` leaves as they are (no marker type, no string to check).
_PLAIN: Final = frozenset({int, float, bool, type(None)})


def _short_int(value: int) -> str:
    digits = str(value)
    return digits if len(digits) <= 30 else f"{digits[:12]}...{digits[-6:]} ({len(digits)} digits)"


def _check_string(text: str, found: _Found, *, is_key: bool = False) -> None:
    if text.isascii():
        return
    where = "key" if is_key else "string"
    for char in text:
        code = ord(char)
        if 0xD800 <= code <= 0xDFFF:
            if found.undecodable and 0xDC80 <= code <= 0xDCFF:
                found.add(
                    "invalid_utf8",
                    f"{where} contains the byte 0x{code - 0xDC00:02x}, which is not valid UTF-8",
                )
            else:
                found.add(
                    "lone_surrogate",
                    f"{where} contains a lone UTF-16 surrogate \\u{code:04x}, which no "
                    "UTF-8 encoder can write",
                )
            return


def _opening(text: str) -> str:
    """The first 40 characters of a text that is not JSON, quoted, with any secret in them
    masked (a line ``OPENAI_API_KEY=sk-...`` or ``password=...`` is a common one). The
    secret patterns are matched on a longer stretch, so that a key cut at 40 characters is
    still recognised."""
    from jsoncontract.masking import masked

    head = text[:200]
    shown = masked(head)
    if shown == head:
        return repr(text[:40])
    return repr(shown.split("<redacted", 1)[0] + "<redacted ...>")


def line_col(text: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a character offset."""
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    start = text.rfind("\n", 0, offset) + 1
    return line, offset - start + 1


def _too_deep(offset: int) -> Diagnosis:
    return Diagnosis(
        codes.PARSE_TOO_DEEP,
        f"nested more than {MAX_DEPTH} levels deep",
        offset,
        1,
        offset + 1,
        "flatten the payload; no tool argument needs this depth, and deep nesting is a "
        "common way to exhaust a parser",
    )


# -- diagnosis -----------------------------------------------------------------------------

#: The language tag and the blanks after it are matched possessively: were they given back
#: one character at a time, a long unclosed tag would cost quadratic time.
_FENCE: Final = re.compile(r"^\s*```[A-Za-z0-9_+-]*+[ \t]*+\r?\n?(.*?)\r?\n?```\s*$", re.DOTALL)
_TRAILING_COMMA: Final = re.compile(r",(\s*[}\]])")
_PY_LITERAL: Final = re.compile(r"True|False|None")
_NON_FINITE: Final = re.compile(r"-?(?:NaN|Infinity|inf|nan)\b")
#: The largest text the Python-literal repair will try (``ast`` is not for megabytes).
_LITERAL_REPAIR_LIMIT: Final = 100_000


def diagnose(data: str | bytes) -> Diagnosis:
    """Explain why ``data`` is not a JSON document (call only after a parse failed).

    The classes are checked from the most to the least specific; the first that matches
    wins. A repaired form is offered where the repair is unambiguous.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            prefix = data[: exc.start].decode("utf-8", "replace")
            line, col = line_col(prefix, len(prefix))
            return Diagnosis(
                codes.PARSE_INVALID_UTF8,
                f"byte 0x{data[exc.start]:02x} at offset {exc.start} is not valid UTF-8",
                len(prefix),
                line,
                col,
                "JSON text must be UTF-8; re-encode the payload at its source "
                "(the bytes were probably Latin-1 or cut inside a multi-byte character)",
            )
    else:
        text = data
    if not text.strip():
        return Diagnosis(
            codes.PARSE_EMPTY,
            "the arguments are empty" if not text else "the arguments are only whitespace",
            0,
            1,
            1,
            'send "{}" for a call without arguments',
        )
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        msg, pos = exc.msg, exc.pos
        if "surrogates not allowed" in msg:
            pos = next(i for i, c in enumerate(text) if 0xD800 <= ord(c) <= 0xDFFF)
            msg = "no low surrogate in string"
    else:  # pragma: no cover - callers only diagnose failures
        return Diagnosis(codes.PARSE_INVALID_JSON, "not a JSON document", 0, 1, 1, "")
    line, col = line_col(text, pos)

    def found(code: str, message: str, hint: str, repaired: str | None = None) -> Diagnosis:
        return Diagnosis(code, message, pos, line, col, hint, repaired)

    fence = _FENCE.match(text)
    if fence is not None:
        inner = fence.group(1)
        return found(
            codes.PARSE_CODE_FENCE,
            "the JSON is wrapped in a markdown code fence",
            "strip the ``` fence before parsing, and tell the model to return bare JSON",
            inner if is_document(inner) else None,
        )
    stripped = text.strip()
    if stripped[0] not in "{[" or msg == "unexpected content after document":
        embedded = _embedded_json(text)
        if embedded is not None and embedded != stripped:
            return found(
                codes.PARSE_PROSE,
                "the JSON is surrounded by prose",
                "the model wrote text around the arguments; extract nothing, reject the call "
                "and ask for bare JSON",
                embedded,
            )
    if msg == "no low surrogate in string" or "surrogate" in msg:
        return found(
            codes.PARSE_LONE_SURROGATE,
            "a string holds a lone UTF-16 surrogate escape (\\ud800-\\udfff without its pair)",
            "lone surrogates cannot be encoded as UTF-8; fix the producer's string handling",
        )
    if msg == "unexpected control character in string":
        return found(
            codes.PARSE_CONTROL_CHARACTER,
            f"a raw control character (U+{ord(text[pos]):04X}) appears inside a string"
            if pos < len(text)
            else "a raw control character appears inside a string",
            "escape newlines and tabs inside strings as \\n and \\t",
            _escape_controls(text),
        )
    if msg in ("unexpected end of data", "input data is empty") or pos >= len(stripped):
        return found(
            codes.PARSE_TRUNCATED,
            f"the JSON ends early, inside an unclosed {_open_container(text)}",
            "the output was cut off (often max_tokens / finish_reason 'length'); raise the "
            "limit or shorten the arguments, and never execute a truncated call",
        )
    if msg == "trailing comma is not allowed":
        repaired = _TRAILING_COMMA.sub(r"\1", text)
        return found(
            codes.PARSE_TRAILING_COMMA,
            "a comma comes right before a closing bracket",
            "remove the trailing comma",
            repaired if is_document(repaired) else None,
        )
    char = text[pos] if pos < len(text) else ""
    if char == "'":
        return found(
            codes.PARSE_SINGLE_QUOTES,
            "strings are in single quotes",
            "JSON strings use double quotes; the model produced a Python/JavaScript literal",
            _python_repair(text),
        )
    if text[pos : pos + 2] in ("//", "/*"):
        return found(
            codes.PARSE_COMMENT,
            "the JSON contains a comment",
            "JSON has no comments; remove them",
            _strip_comments(text),
        )
    rest = text[pos : pos + 12]
    if _NON_FINITE.match(rest) or (char == "-" and _NON_FINITE.match(text[pos - 1 : pos + 12])):
        return found(
            codes.PARSE_NAN_INFINITY,
            "NaN or Infinity is used as a number",
            "JSON has no NaN or Infinity; send null or a string, or leave the field out",
        )
    literal = _PY_LITERAL.match(rest)
    if literal is not None:
        return found(
            codes.PARSE_PYTHON_LITERAL,
            f"{literal.group(0)} is a Python literal, not JSON",
            "use true, false and null",
            _python_repair(text),
        )
    if stripped[0] not in '{["' and _embedded_json(text) is None:
        return found(
            codes.PARSE_INVALID_JSON,
            f"the text is not JSON at all (it starts with {_opening(stripped)})",
            "this is not a payload; check what was captured here",
        )
    if char.isalpha() or char == "_":
        return found(
            codes.PARSE_INVALID_JSON,
            f"{msg} (an unquoted word at line {line}, column {col})",
            "object keys and strings need double quotes",
        )
    return found(codes.PARSE_INVALID_JSON, msg, "send one well-formed JSON document")


def is_document(data: str | bytes) -> bool:
    """Whether ``data`` is one JSON document as orjson reads it (a capture file that is not
    lines, a body that can be spliced into a trace line, a repair that worked)."""
    try:
        orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return True


def _embedded_json(text: str) -> str | None:
    """The longest JSON object or array inside ``text``, if there is one."""
    for opener, closer in (("{", "}"), ("[", "]")):
        start = text.find(opener)
        end = text.rfind(closer)
        if start != -1 and end > start:
            candidate = text[start : end + 1]
            if is_document(candidate):
                return candidate
    return None


def structure(text: str) -> Iterator[tuple[int, str, list[str]]]:
    """The structural characters of a JSON text outside its strings (``{``, ``[``, ``}``,
    ``]``, ``,``), each with the containers open after it (closers, innermost last; the
    list is shared: read it, do not keep it); last, ``(len(text), '"', ...)`` when the text
    ends inside a string, else ``(len(text), "", ...)``. One pass, no recursion."""
    stack: list[str] = []
    in_string = False
    escaped = False
    for index, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "{[":
            stack.append("}" if char == "{" else "]")
            yield index, char, stack
        elif char in "}]" and stack:
            stack.pop()
            yield index, char, stack
        elif char == ",":
            yield index, char, stack
    yield len(text), '"' if in_string else "", stack


def _open_container(text: str) -> str:
    """Which container is still open at the end of a truncated text."""
    for _, char, stack in structure(text):
        last, closers = char, stack
    if last == '"':
        return "string"
    if closers:
        return "object" if closers[-1] == "}" else "array"
    return "value"


def partial_json(text: str) -> Any:
    """What the start of a JSON text cut short holds: the members and items it completes
    (the one it was cut in left out), or :data:`~jsoncontract.pointer.ABSENT` when it is
    no cut JSON object or array."""
    from jsoncontract.pointer import ABSENT

    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return ABSENT
    cuts: list[tuple[int, str]] = []  # (end of a complete part, the closers it needs)
    for index, char, stack in structure(stripped):
        if char in "{[}]":
            cuts.append((index + 1, "".join(reversed(stack))))
        elif char == ",":
            cuts.append((index, "".join(reversed(stack))))
        if len(cuts) > 64:
            del cuts[:32]
    for end, closers in reversed(cuts):
        try:
            return orjson.loads(stripped[:end] + closers)
        except orjson.JSONDecodeError:
            continue
    return ABSENT


def _python_repair(text: str) -> str | None:
    if len(text) > _LITERAL_REPAIR_LIMIT:
        return None
    try:
        value = ast.literal_eval(text)
        return orjson.dumps(value).decode()
    except (
        ValueError,
        SyntaxError,
        TypeError,
        RecursionError,
        MemoryError,
        orjson.JSONEncodeError,
    ):
        return None


def _escape_controls(text: str) -> str | None:
    out: list[str] = []
    in_string = False
    escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
            elif ord(char) < 0x20:
                out.append(json.dumps(char)[1:-1])
                continue
        elif char == '"':
            in_string = True
        out.append(char)
    repaired = "".join(out)
    return repaired if is_document(repaired) else None


def _strip_comments(text: str) -> str | None:
    out: list[str] = []
    i = 0
    in_string = False
    while i < len(text):
        char = text[i]
        if in_string:
            out.append(char)
            if char == "\\" and i + 1 < len(text):
                out.append(text[i + 1])
                i += 2
                continue
            if char == '"':
                in_string = False
        elif char == '"':
            in_string = True
            out.append(char)
        elif text.startswith("//", i):
            end = text.find("\n", i)
            i = len(text) if end == -1 else end
            continue
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = len(text) if end == -1 else end + 2
            continue
        else:
            out.append(char)
        i += 1
    repaired = "".join(out)
    return repaired if is_document(repaired) else None


def json_type(value: Any) -> str:
    """The JSON type name of a parsed value (``integer`` for whole numbers)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def dumps(value: Any) -> bytes:
    """Compact JSON with non-string keys allowed (for reports and hashes)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


def printable(text: str) -> str:
    """``text`` with each lone surrogate spelt out as ``\\udXXX``.

    A capture's invalid UTF-8 bytes and lone ``\\ud800`` escapes are read into such
    surrogates (and reported as findings); a tool name, key or file name holding one
    cannot be written as UTF-8, so reports show it this way.
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def dumps_report(value: Any, option: int = 0) -> bytes:
    """``orjson.dumps`` for a report, which must be UTF-8 whatever text it quotes: strings
    holding lone surrogates are written through :func:`printable`."""
    try:
        return orjson.dumps(value, option=option)
    except orjson.JSONEncodeError:
        return orjson.dumps(_printable_tree(value), option=option)


def _printable_tree(value: Any) -> Any:
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {_printable_tree(k): _printable_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_printable_tree(v) for v in value]
    return value


def short_repr(value: Any, limit: int = 60) -> str:
    """A JSON rendering of ``value`` cut to ``limit`` characters, for messages."""
    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError: lone surrogates, or deeper than orjson writes
        try:
            text = repr(value)
        except RecursionError:
            text = f"(a JSON {json_type(value)} nested too deeply to show)"
    if len(text) > limit:
        return text[: limit - 3] + "..."
    return text
