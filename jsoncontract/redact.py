"""Rewriting captured traces so that they can be shared: ``jsoncontract redact``.

Every secret in a capture, by name or by value (what :mod:`jsoncontract.masking` decides), is
replaced by a stand-in of the same length and kind, derived from a hash of the secret:

- a string keeps its length and the class of each character (a digit stays a digit, an
  upper-case letter an upper-case letter, punctuation as it is; a hexadecimal string stays
  hexadecimal), so an email address still looks like one and ``maxLength`` or a ``pattern``
  such as ``^sk-[A-Za-z0-9]{20,}$`` judge it the same;
- a number under a sensitive name keeps its sign, digit count and decimal point;
- only the secret part of a string is replaced (``Bearer <stand-in>``, ``password=<...>``),
  and a key keeps its published prefix (``sk-proj-``, ``AKIA``, ``ghp_``, ``eyJ``), which
  names its kind, not the key;
- ``true``, ``false`` and ``null`` are kept.

The same secret gets the same stand-in everywhere (in every file, every run, unless a
different ``key`` is given), so correlating calls by a shared value still works. Nothing else
changes: the text is rewritten in place, token by token, so members, their order, the
whitespace, the line of every value (and so the place of every finding) stay as they were.
JSON held in a string (OpenAI's ``arguments``) is rewritten the same way, inside the string.

A capture that is not JSON where it should be (a line of a trace, an SSE event) is rewritten
by the value patterns alone, as text.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, Any, Final

from jsoncontract.masking import (
    SecretFound,
    digest,
    is_header_name,
    is_sensitive,
    looks_random,
    masked,
    may_hold_secret,
    secret_spans,
)
from jsoncontract.pointer import escape_pointer_token

#: The published prefixes of key formats, kept in a stand-in: they name the kind of key
#: (which the report says anyway), not the key, and a schema's pattern often checks them.
#: A credential scheme (``Bearer sk-proj-...``) keeps its key's prefix too.
_KEPT_PREFIX: Final = re.compile(
    r"(?:(?i:bearer |basic ))?(?:sk-(?:ant-(?:api|admin)[0-9]{2}-|proj-|svcacct-|admin-)?|"
    r"[sr]k_(?:live|test)_|A(?:KIA|SIA|BIA|CCA)|gh[pousr]_|github_pat_|glpat-|"
    r"xox[abposr]-|AIza|ya29\.|hf_|npm_|pypi-|eyJ)?"
)
#: The key the stand-ins are derived with when none is given.
DEFAULT_KEY: Final = "jsoncontract-redact-v1"
_HEX: Final = re.compile(r"[0-9a-fA-F-]+")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WHITESPACE: Final = frozenset(" \t\r\n")
_HEADER_CONTAINERS: Final = frozenset({"headers", "header", "http_headers", "httpheaders"})
#: JSON held in a string is rewritten inside it down to this many levels of strings.
_NESTED: Final = 4


@dataclass(slots=True)
class Scrubbed:
    """One text rewritten: the new text and what was replaced in it (kind, hash, place)."""

    text: str
    found: list[SecretFound] = field(default_factory=list)


class _NotJSON(ValueError):
    """The text is not one JSON document (it is rewritten by patterns instead)."""


def stand_in(value: str, key: str = DEFAULT_KEY, *, digits_only: bool = False) -> str:
    """A string of the same length and character classes as ``value``, derived from a
    hash of it (the same value always gets the same stand-in for the same ``key``), and
    sealed so that :func:`is_stand_in` recognises it. A stand-in is its own stand-in.
    ``digits_only``: change digits alone (a number keeps its sign, point and exponent).

    >>> stand_in("hunter2") == stand_in("hunter2"), len(stand_in("hunter2"))
    (True, 7)
    >>> is_stand_in(stand_in("hunter2")), is_stand_in("hunter2")
    (True, False)
    """
    if is_stand_in(value, digits_only=digits_only):
        return value
    stream = _stream(value, key)
    hexish = len(value) >= 8 and _HEX.fullmatch(value) is not None
    kept = _KEPT_PREFIX.match(value)
    out = list(kept.group()) if kept is not None and not digits_only else []
    escapes = _escaped_places(value)
    for place in range(len(out), len(value)):
        char = value[place]
        byte = next(stream)
        if "0" <= char <= "9":
            out.append("0123456789"[byte % 10])
        elif digits_only:
            out.append(char)
        elif (hexish or place in escapes) and char.isalpha():  # %2F stays an escape
            letters = "abcdef" if char.islower() else "ABCDEF"
            out.append(letters[byte % 6])
        elif "a" <= char <= "z":
            out.append(chr(ord("a") + byte % 26))
        elif "A" <= char <= "Z":
            out.append(chr(ord("A") + byte % 26))
        elif char.isalnum():  # other scripts: a Latin letter keeps the length
            out.append(chr(ord("a") + byte % 26))
        else:
            out.append(char)
    lead = 1 if value[:1] == "-" else 0
    if value[lead : lead + 1] not in ("", "0") and out[lead] == "0":
        out[lead] = "7"  # a number's shape: no leading zero where there was none
    _seal(out, digits_only)
    return "".join(out)


def _escaped_places(value: str) -> set[int]:
    """The places of the hexadecimal digits of URL escapes (``%2F``) in ``value``: they
    stay hexadecimal, so a URL that was valid stays valid."""
    if "%" not in value:
        return set()
    return {m.start() + i for m in _PERCENT.finditer(value) for i in (1, 2)}


_PERCENT: Final = re.compile(r"%[0-9A-Fa-f]{2}")

#: Alphanumeric characters a value needs for its stand-in to carry a seal.
SEALED_LENGTH: Final = 4
_SEAL_SALT: Final = b"jsoncontract stand-in seal 1\x00"


def _seal_places(chars: list[str] | str, digits_only: bool) -> tuple[list[int], list[int]]:
    """The places of the sealed body and of the seal (the last alphanumerics, or digits)."""
    if digits_only:
        places = [i for i, c in enumerate(chars) if "0" <= c <= "9"]
    else:
        places = [i for i, c in enumerate(chars) if c.isascii() and c.isalnum()]
    size = 0 if len(places) < SEALED_LENGTH else min(4, len(places) // 2)
    return places[: len(places) - size], places[len(places) - size :] if size else []


def _seal_chars(chars: list[str] | str, body: list[int], seal: list[int]) -> list[str]:
    data = _SEAL_SALT + "".join(chars[i] for i in body).encode() + bytes([len(chars) % 256])
    hashed = hashlib.sha256(data).digest()
    out = []
    for n, place in enumerate(seal):
        char, byte = chars[place], hashed[n]
        if char.isdigit():
            out.append("0123456789"[byte % 10])
        elif char.isupper():
            out.append("ABCDEF"[byte % 6])
        else:
            out.append("abcdef"[byte % 6])
    return out


def _seal(chars: list[str], digits_only: bool) -> None:
    body, seal = _seal_places(chars, digits_only)
    for place, char in zip(seal, _seal_chars(chars, body, seal), strict=True):
        chars[place] = char


def is_stand_in(value: str, *, digits_only: bool = False) -> bool:
    """Whether ``value`` is a stand-in :func:`stand_in` wrote (its last alphanumerics are a
    seal over the others; a value with fewer than :data:`SEALED_LENGTH` of them is never
    one). A real secret passes for one by chance once in 10,000 to 1,300,000 (a seal of
    2 to 4 characters)."""
    body, seal = _seal_places(value, digits_only)
    if not seal:
        return False
    return [value[i] for i in seal] == _seal_chars(value, body, seal)


def _stream(value: str, key: str) -> Iterator[int]:
    seed = hashlib.sha256(f"{key}\x00{value}".encode("utf-8", "surrogatepass")).digest()
    counter = 0
    while True:
        yield from hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        counter += 1


def _number_stand_in(text: str, key: str) -> str:
    """A JSON number of the same shape: sign, digit count, point and exponent kept."""
    return stand_in(text, key, digits_only=True)


def scrub_text(
    text: str,
    *,
    key: str = DEFAULT_KEY,
    pointer: str = "",
    check: bool = False,
    overrides: dict[str, str] | None = None,
) -> Scrubbed:
    """``text`` (one JSON document, or any text) with every secret replaced; what was
    replaced is listed with kind, hash and JSON Pointer (relative to ``pointer``).

    ``check``: replace nothing, and list only the secrets that are not stand-ins already
    (what ``redact --check`` reports). ``overrides``: the new value of strings at these
    pointers (a streamed fragment's part of a stand-in, see :class:`_Fragments`)."""
    try:
        walker = _Walker(text, key, pointer, 0, check)
        walker.overrides = overrides
        return walker.run()
    except _NotJSON:
        return _scrub_plain(text, key, pointer, check)


def _unsealed(value: str, digits_only: bool = False) -> bool:
    """Whether ``redact --check`` counts ``value`` as a secret still there: long enough to
    carry a seal, and not a stand-in."""
    return bool(_seal_places(value, digits_only)[1]) and not is_stand_in(
        value, digits_only=digits_only
    )


def _scrub_plain(text: str, key: str, pointer: str, check: bool = False) -> Scrubbed:
    """Text that is not JSON: each value-pattern secret replaced where it stands."""
    found = [
        SecretFound(kind, digest(text[start:end]) or "", pointer, start, end)
        for kind, start, end in secret_spans(text)
        if not check or _unsealed(text[start:end])
    ]
    if not found or check:
        return Scrubbed(text, found)
    parts: list[str] = []
    last = 0
    for item in found:
        start, end = item.start or 0, item.end or 0
        if start < last:  # overlapping matches: the first wins
            continue
        parts.append(text[last:start])
        parts.append(stand_in(text[start:end], key))
        last = end
    parts.append(text[last:])
    return Scrubbed("".join(parts), found)


class _Frame:
    """An open object or array while walking."""

    __slots__ = ("header", "hidden", "hide_value", "index", "is_object", "key", "name_header")

    def __init__(self, is_object: bool, hidden: bool, header: bool) -> None:
        self.is_object = is_object
        self.hidden = hidden  # inside a member whose name is sensitive
        self.header = header  # its members are header values
        self.key: str | None = None
        self.index = 0
        self.hide_value = False  # {"name": "Authorization", "value": ...}
        self.name_header = False  # {"name": "X-Custom", "value": ...}


class _Walker:
    """Rewrites one JSON text token by token, keeping everything but secret values."""

    def __init__(self, text: str, key: str, pointer: str, depth: int, check: bool) -> None:
        self.check = check
        self.text = text
        self.key = key
        self.base = pointer
        self.depth = depth
        self.parts: list[str] = []
        self.found: list[SecretFound] = []
        self.stack: list[_Frame] = []
        self.path: list[str] = []
        self.overrides: dict[str, str] | None = None

    def run(self) -> Scrubbed:
        text = self.text
        size = len(text)
        i = self._skip(0)
        if i >= size or text[i] not in "{[":
            raise _NotJSON
        last = 0
        values = 0
        while True:
            i = self._skip(i)
            if i >= size:
                break
            char = text[i]
            if char in "{[":
                self._open(char == "{")
                i += 1
            elif char in "}]":
                if not self.stack:
                    raise _NotJSON
                self.stack.pop()
                if self.stack:
                    self.path.pop()
                i += 1
                if not self.stack:
                    values += 1
            elif char == ",":
                frame = self._top()
                if not frame.is_object:
                    frame.index += 1
                    self.path[-1] = str(frame.index)
                else:
                    frame.key = None
                i += 1
            elif char == ":":
                i += 1
            elif char == '"':
                end = _string_end(text, i)
                frame = self._top()
                if frame.is_object and frame.key is None:
                    name = frame.key = _decode(text[i:end])
                    self.path[-1] = escape_pointer_token(name)
                    if may_hold_secret(name):  # a member name that is a secret
                        plain = _scrub_plain(name, self.key, self._pointer(), self.check)
                        self.found.extend(plain.found)
                        if plain.text != name:
                            self.parts.append(text[last:i])
                            self.parts.append(_encode(plain.text))
                            last = end
                else:
                    new = self._string(text[i:end])
                    if new is not None:
                        self.parts.append(text[last:i])
                        self.parts.append(new)
                        last = end
                i = end
            else:
                match = _NUMBER.match(text, i)
                if match is not None and match.end() > i:
                    end = match.end()
                    if self._hidden():
                        number = text[i:end]
                        if not self.check:
                            self.parts.append(text[last:i])
                            self.parts.append(_number_stand_in(number, self.key))
                            self._note("sensitive-name", number)
                            last = end
                        elif _unsealed(number, digits_only=True):
                            self._note("sensitive-name", number)
                    i = end
                elif text.startswith(("true", "null"), i):
                    i += 4
                elif text.startswith("false", i):
                    i += 5
                else:
                    raise _NotJSON
            if not self.stack and values:
                i = self._skip(i)
                if i < size:
                    raise _NotJSON  # more than one document: not JSON
                break
        if self.stack:
            raise _NotJSON
        self.parts.append(text[last:])
        return Scrubbed("".join(self.parts), self.found)

    def _skip(self, i: int) -> int:
        text, size = self.text, len(self.text)
        while i < size and text[i] in _WHITESPACE:
            i += 1
        return i

    def _top(self) -> _Frame:
        if not self.stack:
            raise _NotJSON
        return self.stack[-1]

    def _open(self, is_object: bool) -> None:
        parent = self.stack[-1] if self.stack else None
        hidden = False
        header = False
        if parent is not None:
            name = parent.key if parent.is_object else None
            hidden = parent.hidden or (name is not None and is_sensitive(name))
            if parent.is_object and name == "value" and parent.hide_value:
                hidden = True
            header = is_object and name is not None and name.lower() in _HEADER_CONTAINERS
        self.stack.append(_Frame(is_object, hidden, header))
        self.path.append("" if is_object else "0")

    def _hidden(self) -> bool:
        frame = self._top()
        if frame.hidden:
            return True
        if frame.is_object and frame.key is not None:
            return is_sensitive(frame.key) or (frame.key == "value" and frame.hide_value)
        return False

    def _header(self) -> bool:
        frame = self._top()
        if frame.header:
            return True
        if frame.is_object and frame.key is not None:
            return is_header_name(frame.key) or (frame.key == "value" and frame.name_header)
        return False

    def _pointer(self) -> str:
        """Where the walk is (a member name that holds a secret masked: the report names
        places, never secrets)."""
        return self.base + "".join("/" + masked(t) for t in self.path)

    def _note(
        self, kind: str, value: Any, start: int | None = None, end: int | None = None
    ) -> None:
        self.found.append(SecretFound(kind, digest(value) or "", self._pointer(), start, end))

    def _string(self, token: str) -> str | None:
        """The new token for a string value, or ``None`` when it stays."""
        value = _decode(token)
        if self.overrides is not None:
            replacement = self.overrides.get(self._pointer())
            if replacement is not None:  # a fragment, scanned with its stream
                if self.check:
                    return None
                return _encode(replacement)
        frame = self._top()
        if frame.is_object and frame.key in ("name", "key") and not frame.hidden:
            # {"name": "Authorization", "value": ...}: the name comes first in every
            # capture format that writes headers this way (HAR, OpenTelemetry)
            frame.hide_value = is_sensitive(value)
            frame.name_header = is_header_name(value)
        if self._hidden():
            return self._replace("sensitive-name", value) if value else None
        if self._header() and looks_random(value):
            return self._replace("header-value", value)
        stripped = value.lstrip()
        if stripped[:1] in ("{", "[") and self.depth < _NESTED:
            try:
                walker = _Walker(value, self.key, self._pointer(), self.depth + 1, self.check)
                inner = walker.run()
            except _NotJSON:
                inner = _scrub_plain(value, self.key, self._pointer(), self.check)
            self.found.extend(inner.found)
            return _encode(inner.text) if inner.text != value else None
        plain = _scrub_plain(value, self.key, self._pointer(), self.check)
        self.found.extend(plain.found)
        return _encode(plain.text) if plain.text != value else None

    def _replace(self, kind: str, value: str) -> str | None:
        if self.check:
            if _unsealed(value):
                self._note(kind, value)
            return None
        self._note(kind, value)
        return _encode(stand_in(value, self.key))


def _decode(token: str) -> str:
    try:
        value: str = json.loads(token)
    except ValueError:
        raise _NotJSON from None
    return value


def _encode(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)


def _string_end(text: str, start: int) -> int:
    """The index just past the string token starting at ``start``."""
    i = start + 1
    size = len(text)
    while i < size:
        char = text[i]
        if char == "\\":
            i += 2
        elif char == '"':
            return i + 1
        else:
            i += 1
    raise _NotJSON


# -- files ----------------------------------------------------------------------------------

#: Suffixes read line by line (each line one JSON document), and as Server-Sent Events.
_LINES: Final = (".jsonl", ".ndjson", ".jsonlines")
_SSE_DATA: Final = re.compile(r"^(data: ?)(.*?)(\r?\n?)$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class FileSecret:
    """One secret found in a file: the line its document (or its value) starts on."""

    line: int | None
    secret: SecretFound

    def to_dict(self) -> dict[str, Any]:
        """The finding as the JSON report writes it."""
        return {"line": self.line, **self.secret.to_dict()}


@dataclass(slots=True)
class FileResult:
    """One capture redacted (or checked): where it went and what was in it."""

    path: str
    output: str | None
    secrets: list[FileSecret] = field(default_factory=list)


@dataclass(slots=True)
class RedactReport:
    """Every capture of one ``redact`` run."""

    check: bool
    files: list[FileResult] = field(default_factory=list)

    def count(self) -> int:
        """Secrets found, in every file."""
        return sum(len(f.secrets) for f in self.files)

    def summary(self) -> dict[str, Any]:
        """The counts the reports lead with."""
        return {
            "files": len(self.files),
            "files_with_secrets": sum(1 for f in self.files if f.secrets),
            "secrets": self.count(),
            "check": self.check,
        }

    def to_dict(self) -> dict[str, Any]:
        """The JSON report: version and summary first."""
        return {
            "version": 1,
            "summary": self.summary(),
            "files": [
                {
                    "file": f.path,
                    "output": f.output,
                    "secrets": [s.to_dict() for s in f.secrets],
                }
                for f in self.files
            ],
        }


def redact_files(
    paths: list[str],
    output: str | None,
    *,
    key: str = DEFAULT_KEY,
    check: bool = False,
) -> RedactReport:
    """Rewrite the named captures (files, or directories of them) with every secret
    replaced by a stand-in, into ``output``: the file, for one named file; a directory
    (created) holding each capture under its name (a named directory's captures under
    their paths within it), for several. ``check``: write nothing, and list the secrets
    that are not stand-ins yet.

    Raises:
        InputError: a capture is missing or unreadable, is YAML (whose text this rewrite
            cannot keep), or the output cannot be written.
        UsageError: no output is named (and ``check`` is not asked for).
    """
    from pathlib import Path

    from jsoncontract._files import expand, plain_suffix
    from jsoncontract.capture.reader import CAPTURE_SUFFIXES
    from jsoncontract.errors import InputError, UsageError

    report = RedactReport(check)
    plan: list[tuple[Path, Path | None]] = []
    single = len(paths) == 1 and not Path(paths[0]).is_dir()
    if output is None and not check:
        raise UsageError("name where the redacted captures go: -o FILE (or -o DIR for several)")
    for named in paths:
        root = Path(named)
        for path in expand([named], CAPTURE_SUFFIXES, what="capture"):
            if plain_suffix(path) in (".yaml", ".yml"):
                # the rewrite keeps a JSON text's layout token by token; a YAML text would
                # get the value patterns alone, and secrets known by their name would stay
                raise InputError(
                    "redact rewrites JSON captures only; convert this YAML capture to JSON "
                    "(or JSON Lines) first",
                    file=str(path),
                )
            target: Path | None = None
            if output is not None and not check:
                if single and not Path(output).is_dir():
                    target = Path(output)
                elif root.is_dir():
                    target = Path(output) / root.name / path.relative_to(root)
                else:
                    target = Path(output) / path.name
            plan.append((path, target))
    for path, target in plan:
        if target is not None and not single:  # -o DIR: the directory and its folders
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise InputError(
                    f"cannot create the output directory: {exc.strerror or exc}",
                    file=str(target.parent),
                ) from None
        report.files.append(_redact_file(path, target, key, check))
    return report


def _redact_file(path: Any, target: Any, key: str, check: bool) -> FileResult:
    """One capture: a JSON Lines file (or SSE) line by line, with the fragments of each
    stream joined before they are scanned; one JSON document whole. Compressed files and
    standard input are read as the plain file they hold (standard input is told by its
    content); the output is compressed as its name says (``.gz``, ``.zst``)."""
    from jsoncontract._files import STDIN, plain_suffix, read_bytes
    from jsoncontract._json import is_document

    name = str(path)
    result = FileResult(name, None if target is None else str(target))
    suffix = plain_suffix(name)
    if suffix in _LINES or suffix == ".sse" or name == STDIN:
        lines = list(_whole_lines(path)) if name == STDIN else None
        if lines is not None and is_document(b"".join(raw for _, raw in lines)):
            text = b"".join(raw for _, raw in lines).decode("utf-8", "surrogateescape")
            return _redact_document(text, target, key, check, result)

        def source() -> Iterator[tuple[int, bytes]]:  # read twice: fragments, then lines
            return iter(lines) if lines is not None else _whole_lines(path)

        joined = _Fragments.of(source(), key, check)
        if target is None:
            for number, raw in source():
                _redact_line(raw, number, key, True, result, joined)
            return result
        with _written(target) as out:
            for number, raw in source():
                out.write(_redact_line(raw, number, key, check, result, joined))
        return result
    data = read_bytes(path)
    return _redact_document(data.decode("utf-8", "surrogateescape"), target, key, check, result)


def _redact_document(
    text: str, target: Any, key: str, check: bool, result: FileResult
) -> FileResult:
    """One JSON document (or an SSE text) read whole."""
    if text.lstrip().startswith(("data:", "event:")):
        new = _redact_sse(text, key, check, result)
    else:
        scrubbed = scrub_text(text, key=key, check=check)
        index = None
        for item in scrubbed.found:
            if index is None:
                from jsoncontract._locate import PositionIndex

                index = PositionIndex(text)
            where = index.position(item.pointer)
            result.secrets.append(FileSecret(where[0] if where else None, item))
        new = scrubbed.text
    if target is not None:
        with _written(target) as out:
            out.write(new.encode("utf-8", "surrogateescape"))
    return result


@contextmanager
def _written(target: Any) -> Iterator[IO[bytes]]:
    """:func:`~jsoncontract._files.output_file`, compressed as the name says."""
    from jsoncontract._files import compression_of, output_file

    kind = compression_of(target)
    with output_file(target) as out:
        if kind == "gzip":
            import gzip

            with gzip.GzipFile(fileobj=out, mode="wb", mtime=0) as packed:
                yield packed  # type: ignore[misc]
        elif kind == "zstd":
            import zstandard

            with zstandard.ZstdCompressor().stream_writer(out, closefd=False) as packed:
                yield packed
        else:
            yield out


class _Fragments:
    """The streamed fragments of each call's arguments in a file (OpenAI Chat
    ``delta.tool_calls[].function.arguments``, Anthropic ``partial_json``, OpenAI Responses
    ``function_call_arguments.delta``), joined per call and scanned whole: a key split
    across fragments is found, and each fragment gets its part of the stand-in.

    ``replaced``: by line number, the new value of each fragment that changes (by pointer
    in the line's document); ``found``: by line number, the secrets noted there."""

    __slots__ = ("found", "replaced")

    def __init__(self) -> None:
        self.replaced: dict[int, dict[str, str]] = {}
        self.found: dict[int, list[SecretFound]] = {}

    @classmethod
    def of(cls, lines: Iterator[tuple[int, bytes]], key: str, check: bool) -> _Fragments:
        """Read ``lines`` for fragments; join and scan each stream's."""
        streams: dict[Any, list[tuple[int, str, str]]] = {}
        message = None  # the Anthropic message the deltas belong to
        for number, raw in lines:
            value = _document_of(raw)
            if not isinstance(value, dict):
                continue
            if value.get("type") == "message_start" and isinstance(value.get("message"), dict):
                message = value["message"].get("id")
            for stream, pointer, text in _fragments(value, message):
                streams.setdefault(stream, []).append((number, pointer, text))
        joined = cls()
        for parts in streams.values():
            if len(parts) > 1:
                joined._scan(parts, key, check)
        return joined

    def _scan(self, parts: list[tuple[int, str, str]], key: str, check: bool) -> None:
        whole = "".join(text for _, _, text in parts)
        scrubbed = scrub_text(whole, key=key, check=check)
        if not scrubbed.found:
            return
        new = scrubbed.text
        if len(new) != len(whole):  # an escape changed length: the first fragment takes all
            new_parts = [new] + [""] * (len(parts) - 1)
        else:
            new_parts, at = [], 0
            for _, _, text in parts:
                new_parts.append(new[at : at + len(text)])
                at += len(text)
        # every fragment of the stream is taken from here (scanned with it, never alone)
        for (number, pointer, _), replacement in zip(parts, new_parts, strict=True):
            self.replaced.setdefault(number, {})[pointer] = replacement
        self.found.setdefault(parts[0][0], []).extend(
            SecretFound(f.kind, f.digest, parts[0][1], None, None) for f in scrubbed.found
        )


def _document_of(raw: bytes) -> Any:
    """The JSON document of a JSONL line or an SSE ``data:`` line, or ``None``."""
    import orjson

    body = raw.strip()
    if body.startswith(b"data:"):
        body = body[5:].strip()
    if not body.startswith(b"{"):
        return None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        return None


def _fragments(value: dict[str, Any], message: Any) -> Iterator[tuple[Any, str, str]]:
    """``(stream, pointer, text)`` of each argument fragment a streamed event holds."""
    kind = value.get("type")
    if value.get("object") == "chat.completion.chunk" and isinstance(value.get("choices"), list):
        for i, choice in enumerate(value["choices"]):
            delta = choice.get("delta") if isinstance(choice, dict) else None
            calls = delta.get("tool_calls") if isinstance(delta, dict) else None
            if not isinstance(calls, list):
                continue
            for j, call in enumerate(calls):
                function = call.get("function") if isinstance(call, dict) else None
                text = function.get("arguments") if isinstance(function, dict) else None
                if isinstance(text, str) and text:
                    stream = ("chat", value.get("id"), choice.get("index", i), call.get("index", j))
                    yield stream, f"/choices/{i}/delta/tool_calls/{j}/function/arguments", text
    elif kind == "content_block_delta" and isinstance(value.get("delta"), dict):
        text = value["delta"].get("partial_json")
        if isinstance(text, str) and text:
            yield ("anthropic", message, value.get("index")), "/delta/partial_json", text
    elif kind == "response.function_call_arguments.delta":
        text = value.get("delta")
        if isinstance(text, str) and text:
            yield ("responses", value.get("item_id"), value.get("output_index")), "/delta", text


def _whole_lines(path: Any) -> Iterator[tuple[int, bytes]]:
    """The lines of a JSON Lines file, each whole: a line longer than the capture reader
    reads (:data:`~jsoncontract.capture.reader.MAX_LINE_BYTES`) cannot be rewritten or
    checked, so it stops the run rather than pass unseen.

    Raises:
        InputError: a line is over the limit.
    """
    from jsoncontract._files import iter_lines
    from jsoncontract.capture.reader import MAX_LINE_BYTES
    from jsoncontract.errors import InputError

    for number, raw in iter_lines(path, max_line_bytes=MAX_LINE_BYTES):
        if raw is None:
            raise InputError(
                f"line {number} is over the {MAX_LINE_BYTES // 2**20} MiB limit of one line; "
                "it cannot be redacted or checked",
                file=str(path),
            )
        yield number, raw


def _redact_line(
    raw: bytes,
    number: int,
    key: str,
    check: bool,
    result: FileResult,
    joined: _Fragments | None = None,
) -> bytes:
    body = raw.rstrip(b"\r\n")
    ending = raw[len(body) :]
    if not body.strip():
        return raw
    text = body.decode("utf-8", "surrogateescape")
    head = ""
    match = _SSE_DATA.match(text) if text.startswith("data:") else None
    if match is not None:  # an SSE line: its data is the document
        head, text = match.group(1), match.group(2)
    elif text.startswith(("event:", "id:", ":", "retry:")):
        scrubbed = _scrub_plain(text, key, "", check)
        result.secrets.extend(FileSecret(number, item) for item in scrubbed.found)
        return scrubbed.text.encode("utf-8", "surrogateescape") + ending
    overrides = joined.replaced.get(number) if joined is not None else None
    scrubbed = scrub_text(text, key=key, check=check, overrides=overrides)
    result.secrets.extend(FileSecret(number, item) for item in scrubbed.found)
    if joined is not None and number in joined.found:
        result.secrets.extend(FileSecret(number, item) for item in joined.found[number])
    return (head + scrubbed.text).encode("utf-8", "surrogateescape") + ending


def _redact_sse(text: str, key: str, check: bool, result: FileResult) -> str:
    out = []
    for number, line in enumerate(text.splitlines(keepends=True), start=1):
        match = _SSE_DATA.match(line)
        if match is None:
            scrubbed = _scrub_plain(line, key, "", check)
            result.secrets.extend(FileSecret(number, item) for item in scrubbed.found)
            out.append(scrubbed.text)
            continue
        head, payload, ending = match.groups()
        scrubbed = scrub_text(payload, key=key, check=check)
        result.secrets.extend(FileSecret(number, item) for item in scrubbed.found)
        out.append(head + scrubbed.text + ending)
    return "".join(out)


__all__ = [
    "DEFAULT_KEY",
    "SEALED_LENGTH",
    "FileResult",
    "FileSecret",
    "RedactReport",
    "Scrubbed",
    "is_stand_in",
    "redact_files",
    "scrub_text",
    "stand_in",
]
