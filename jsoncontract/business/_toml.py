"""Where things are in a TOML file: the line of every table and key.

``tomllib`` returns values without positions. To say *where* a rules file is wrong, this
scanner walks the text once and records the line (and the column of the value) of each
table header, array-of-tables entry and ``key = value`` line, by the same path the parsed
document uses: ``("tools", "searchInvoices", 0, "rule")``. Keys inside inline tables are
not recorded; :meth:`TomlIndex.position` falls back to the nearest recorded ancestor.
"""

from __future__ import annotations

import re
from typing import Final

Path = tuple[str | int, ...]

_BARE: Final = re.compile(r"[A-Za-z0-9_-]+")
_SPACE: Final = " \t"


class TomlIndex:
    """Positions of the tables and keys of one TOML text."""

    def __init__(self, text: str) -> None:
        self._at: dict[Path, tuple[int, int]] = {}
        self._scan(text)

    def position(self, path: Path) -> tuple[int, int] | None:
        """``(line, column)`` of ``path`` (1-based; the column of its value for keys), or of
        its nearest recorded ancestor; ``None`` when nothing on the path is recorded."""
        for end in range(len(path), 0, -1):
            found = self._at.get(path[:end])
            if found is not None:
                return found
        return None

    def line(self, path: Path) -> int | None:
        """The line of ``path`` (or of its nearest recorded ancestor)."""
        found = self.position(path)
        return found[0] if found is not None else None

    # -- scanning ------------------------------------------------------------------------

    def _scan(self, text: str) -> None:
        table: Path = ()
        counts: dict[Path, int] = {}
        lines = text.splitlines()
        number = 0
        while number < len(lines):
            raw = lines[number]
            number += 1
            stripped = raw.strip()
            if not stripped or stripped.startswith("#"):
                continue
            if stripped.startswith("[["):
                keys = _split_keys(stripped[2 : _close(stripped, "]]")])
                if keys is None:
                    continue
                base = tuple(keys)
                self._prefixes(base, number)
                index = counts.get(base, 0)
                counts[base] = index + 1
                table = (*base, index)
                self._at.setdefault(base, (number, 1))
                self._at[table] = (number, 1)
                continue
            if stripped.startswith("["):
                keys = _split_keys(stripped[1 : _close(stripped, "]")])
                if keys is None:
                    continue
                table = tuple(keys)
                self._prefixes(table, number)
                self._at.setdefault(table, (number, 1))
                continue
            found = _key_value(raw)
            if found is None:
                continue
            keys, value_col = found
            self._at.setdefault((*table, *keys), (number, value_col))
            number = _skip_value(lines, number - 1, value_col - 1)

    def _prefixes(self, path: Path, number: int) -> None:
        for end in range(1, len(path)):
            self._at.setdefault(path[:end], (number, 1))


def _close(text: str, closer: str) -> int:
    at = text.rfind(closer)
    return at if at > 0 else len(text)


def _split_keys(text: str) -> list[str] | None:
    """``a."b.c".d`` -> ``["a", "b.c", "d"]``; ``None`` when it is not a key."""
    keys: list[str] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in _SPACE:
            i += 1
        if i >= n:
            return None
        if text[i] in "\"'":
            quote = text[i]
            end = i + 1
            while end < n and text[end] != quote:
                end += 2 if quote == '"' and text[end] == "\\" else 1
            if end >= n:
                return None
            keys.append(text[i + 1 : end])
            i = end + 1
        else:
            match = _BARE.match(text, i)
            if match is None:
                return None
            keys.append(match.group())
            i = match.end()
        while i < n and text[i] in _SPACE:
            i += 1
        if i >= n:
            return keys
        if text[i] != ".":
            return None
        i += 1


def _key_value(line: str) -> tuple[list[str], int] | None:
    """The keys and the 1-based column of the value of a ``key = value`` line."""
    depth_quote: str | None = None
    for i, char in enumerate(line):
        if depth_quote is not None:
            if char == depth_quote:
                depth_quote = None
            continue
        if char in "\"'":
            depth_quote = char
        elif char == "=":
            keys = _split_keys(line[:i])
            if keys is None:
                return None
            col = i + 1
            while col < len(line) and line[col] in _SPACE:
                col += 1
            return keys, col + 1
        elif char == "#":
            return None
    return None


def _skip_value(lines: list[str], index: int, start: int) -> int:
    """The index of the line after the value starting at ``lines[index][start:]``
    (multi-line strings and arrays span lines)."""
    line = lines[index]
    rest = line[start:]
    for triple in ('"""', "'''"):
        if rest.startswith(triple):
            if rest.find(triple, 3) >= 0:
                return index + 1
            for later in range(index + 1, len(lines)):
                if triple in lines[later]:
                    return later + 1
            return len(lines)
    if rest.startswith(("[", "{")):
        depth = 0
        quote: str | None = None
        for at in range(index, len(lines)):
            text = lines[at][start:] if at == index else lines[at]
            for char in text:
                if quote is not None:
                    if char == quote:
                        quote = None
                elif char in "\"'":
                    quote = char
                elif char in "[{":
                    depth += 1
                elif char in "]}":
                    depth -= 1
                elif char == "#":
                    break
            if depth <= 0:
                return at + 1
        return len(lines)
    return index + 1
