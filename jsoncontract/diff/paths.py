"""JSON Pointer patterns with wildcards.

A pattern is a JSON Pointer in which a token may be ``*`` (any one member name or array
index) or ``**`` (any number of tokens, none included). A pattern that does not start with
``/`` names a member at any depth: ``requestId`` is ``/**/requestId``. Patterns are
compiled once into one regular expression; matching a path is one ``fullmatch``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

from jsoncontract.pointer import ABSENT, escape_pointer_token, get, pointer_tokens

T = TypeVar("T")


def _token_regex(token: str) -> str:
    if token == "*":
        return "/[^/]*"
    if token == "**":
        return "(?:/[^/]*)*"
    return "/" + re.escape(escape_pointer_token(token))


def pattern_regex(pattern: str) -> str:
    """The regular expression (no anchors) a pattern stands for."""
    if not pattern.startswith("/"):
        pattern = "/**/" + pattern if pattern else ""
    if pattern == "":
        return ""
    return "".join(_token_regex(t) for t in pointer_tokens(pattern))


class PathSet:
    """A set of pointer patterns: does a path match any of them?

    >>> ignored = PathSet(["/meta/*", "/lines/**/note", "requestId"])
    >>> "/meta/trace" in ignored, "/meta/trace/id" in ignored, "/meta" in ignored
    (True, False, False)
    >>> "/lines/note" in ignored, "/lines/0/extra/note" in ignored
    (True, True)
    >>> "/requestId" in ignored, "/a/b/requestId" in ignored
    (True, True)
    """

    __slots__ = ("_match", "patterns")

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(dict.fromkeys(patterns))
        if self.patterns:
            joined = "|".join(f"(?:{pattern_regex(p)})" for p in self.patterns)
            self._match: Any = re.compile(joined).fullmatch
        else:
            self._match = None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def __contains__(self, path: object) -> bool:
        return self._match is not None and self._match(path) is not None

    def merged(self, other: PathSet) -> PathSet:
        """A set with both sets' patterns."""
        if not other.patterns:
            return self
        if not self.patterns:
            return other
        return PathSet((*self.patterns, *other.patterns))


class PathRules(Generic[T]):
    """Patterns mapped to values; the first pattern that matches a path wins."""

    __slots__ = ("_rules", "rules")

    def __init__(self, rules: Iterable[tuple[str, T]] = ()) -> None:
        self.rules = tuple(rules)
        self._rules = tuple((re.compile(pattern_regex(p)).fullmatch, v) for p, v in self.rules)

    def __bool__(self) -> bool:
        return bool(self.rules)

    def lookup(self, path: str) -> T | None:
        """The value of the first pattern matching ``path``."""
        for match, value in self._rules:
            if match(path) is not None:
                return value
        return None

    def merged(self, other: PathRules[T]) -> PathRules[T]:
        """These rules first, then the other's."""
        if not other.rules:
            return self
        if not self.rules:
            return other
        return PathRules((*self.rules, *other.rules))


def expand(document: Any, pattern: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Concrete pointers in ``document`` matching a pattern whose tokens may be ``*``.

    Yields ``(pointer, bindings)``, ``bindings`` being the tokens each ``*`` stood for.
    Only the *parent* of the last token must exist: a last token without ``*`` is
    yielded even when absent, so callers can ask whether the member is there.
    """
    tokens = pointer_tokens(pattern)
    yield from _expand(document, tokens, "", ())


def _expand(
    node: Any, tokens: list[str], prefix: str, bound: tuple[str, ...]
) -> Iterator[tuple[str, tuple[str, ...]]]:
    if not tokens:
        yield prefix, bound
        return
    token, rest = tokens[0], tokens[1:]
    if token == "*":
        if isinstance(node, dict):
            keys: Iterable[str] = list(node)
        elif isinstance(node, list):
            keys = [str(i) for i in range(len(node))]
        else:
            return
        for key in keys:
            child = node[key] if isinstance(node, dict) else node[int(key)]
            yield from _expand(child, rest, prefix + "/" + escape_pointer_token(key), (*bound, key))
        return
    path = prefix + "/" + escape_pointer_token(token)
    if not rest:
        yield path, bound
        return
    child = get(node, "/" + escape_pointer_token(token))
    if child is not ABSENT:
        yield from _expand(child, rest, path, bound)


def substitute(pattern: str, bindings: tuple[str, ...]) -> str:
    """A pattern with its ``*`` tokens replaced, in order, by ``bindings``."""
    values = iter(bindings)
    return "".join(
        "/" + escape_pointer_token(next(values) if t == "*" else t) for t in pointer_tokens(pattern)
    )


def wildcards(pattern: str) -> int:
    """How many ``*`` tokens a pattern has."""
    return sum(1 for t in pointer_tokens(pattern) if t == "*")


__all__ = [
    "PathRules",
    "PathSet",
    "expand",
    "pattern_regex",
    "substitute",
    "wildcards",
]
