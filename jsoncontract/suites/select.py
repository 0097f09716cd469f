"""``-k EXPRESSION``: choosing cases by name, tool and tag, as pytest's ``-k`` does.

A word matches a case when it is a substring (case-insensitive) of the case name, the tool
name, or one of the tags; words combine with ``and``, ``or``, ``not`` and parentheses::

    -k missing-field
    -k "update_shipment and not malformed"
    -k "(wrong-enum or wrong-type) and /address"
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Final

from jsoncontract.errors import UsageError

_TOKEN: Final = re.compile(r"\s*(\(|\)|[^\s()]+)")
_KEYWORDS: Final = frozenset({"and", "or", "not"})

Matcher = Callable[[list[str]], bool]


class Selector:
    """A compiled ``-k`` expression.

    Raises:
        UsageError: the expression does not parse.
    """

    def __init__(self, expression: str) -> None:
        self.expression = expression
        self._tokens = [m.group(1) for m in _TOKEN.finditer(expression)]
        self._pos = 0
        if not self._tokens:
            raise UsageError("-k: the expression is empty")
        self._match = self._or()
        if self._pos != len(self._tokens):
            raise UsageError(
                f"-k: unexpected {self._tokens[self._pos]!r} in {expression!r}; combine words "
                "with and, or, not and parentheses"
            )

    def matches(self, words: Iterable[str]) -> bool:
        """Whether a case described by ``words`` (name, tool, tags) is selected."""
        return self._match([w.lower() for w in words])

    def _peek(self) -> str | None:
        return self._tokens[self._pos] if self._pos < len(self._tokens) else None

    def _take(self) -> str:
        token = self._peek()
        if token is None:
            raise UsageError(f"-k: {self.expression!r} ends too early")
        self._pos += 1
        return token

    def _or(self) -> Matcher:
        left = self._and()
        while self._peek() == "or":
            self._take()
            right = self._and()
            left = _either(left, right)
        return left

    def _and(self) -> Matcher:
        left = self._not()
        while self._peek() == "and":
            self._take()
            right = self._not()
            left = _both(left, right)
        return left

    def _not(self) -> Matcher:
        token = self._take()
        if token == "not":
            inner = self._not()
            return lambda words: not inner(words)
        if token == "(":
            inner = self._or()
            if self._take() != ")":
                raise UsageError(f"-k: missing ')' in {self.expression!r}")
            return inner
        if token == ")" or token in _KEYWORDS:
            raise UsageError(f"-k: unexpected {token!r} in {self.expression!r}")
        needle = token.lower()
        return lambda words: any(needle in w for w in words)


def _either(a: Matcher, b: Matcher) -> Matcher:
    return lambda words: a(words) or b(words)


def _both(a: Matcher, b: Matcher) -> Matcher:
    return lambda words: a(words) and b(words)
