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
        try:
            self._match = self._or()
        except RecursionError:
            raise UsageError("-k: the expression nests too deeply") from None
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
        either = [self._and()]
        while self._peek() == "or":
            self._take()
            either.append(self._and())
        if len(either) == 1:
            return either[0]
        return lambda words: any(match(words) for match in either)

    def _and(self) -> Matcher:
        both = [self._not()]
        while self._peek() == "and":
            self._take()
            both.append(self._not())
        if len(both) == 1:
            return both[0]
        return lambda words: all(match(words) for match in both)

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
