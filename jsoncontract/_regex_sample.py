"""Strings that match a ``pattern``: how the fixture generator satisfies regular expressions
(and how long a match can be, which the business rules' type checker asks).

The pattern is parsed with the standard library's regular-expression parser and walked to
build one matching string: literals as written, the first (or, with a seed, a chosen)
alternative, the fewest repetitions that reach ``minLength``, one character from each
class. Constructs that cannot be satisfied by construction (lookaround, and syntax the
parser does not read, such as ``\\p{L}``) raise :class:`PatternUnsupported`, so the caller
can skip the case with a reason instead of guessing. The result is checked against the
pattern again, and the schema validator has the last word on the whole instance.

JSON Schema patterns are ECMA-262 and unanchored (``abc`` matches ``"xabcx"``); the subset
read here means the same in both dialects once ``(?<name>`` groups are rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from importlib import import_module
from random import Random
from typing import Any, Final

#: Characters tried, in order, for negated classes and ``.``.
_POOL: Final = "aAbBxyz0129-_. @:/"
_NAMED_GROUP: Final = re.compile(r"\(\?<(?![=!])")
#: Repetitions added at most to reach a ``minLength``.
_MAX_STRETCH: Final = 10_000


class PatternUnsupported(Exception):
    """The generator cannot build a string for this pattern; the message says why."""


@lru_cache(maxsize=4096)
def _parse(pattern: str) -> tuple[Any, re.Pattern[str]]:
    try:
        parser = import_module("re._parser")
    except ImportError:  # pragma: no cover - every supported Python has it
        raise PatternUnsupported("this Python has no regular-expression parser") from None
    source = _NAMED_GROUP.sub("(?P<", pattern)
    try:
        return parser.parse(source), re.compile(source)
    except (re.error, OverflowError, RecursionError) as exc:
        raise PatternUnsupported(
            f"pattern {pattern!r} uses syntax the generator cannot read ({exc})"
        ) from None


def _matches(pattern: str, text: str) -> bool:
    """The check of a built string, by the bounded ECMA-262 engine schemas are validated
    with (Python's engine can take exponential time on a hostile pattern)."""
    from jsoncontract._regex import InvalidPattern, search

    try:
        return search(pattern, text)
    except InvalidPattern:
        return False


def longest_match(pattern: str) -> int | None:
    """The most characters a string matching ``pattern`` can hold: bounded only when the
    pattern is anchored at both ends (``^...$``) and repeats nothing without limit;
    ``None`` otherwise, or when the pattern cannot be read."""
    try:
        tree, _ = _parse(pattern)
    except PatternUnsupported:
        return None
    constants = import_module("re._constants")
    items = list(tree)
    if (
        len(items) < 2
        or items[0] != (constants.AT, constants.AT_BEGINNING)
        or items[-1] != (constants.AT, constants.AT_END)
    ):
        return None
    longest = int(tree.getwidth()[1])
    return longest if longest < int(constants.MAXREPEAT) else None


def sample(
    pattern: str,
    *,
    min_length: int = 0,
    max_length: int | None = None,
    rng: Random | None = None,
    variant: int = 0,
) -> str:
    """One string matching ``pattern`` with a length in ``[min_length, max_length]``.

    Arguments:
        rng: choose alternatives and characters at random (deterministically for its
            seed); ``None`` takes the first alternative and characters in order.
        variant: shifts the characters chosen, so that several samples differ.

    Raises:
        PatternUnsupported: the pattern uses lookaround or unreadable syntax, or no string
            the generator can build matches it within the length bounds.
    """
    tree, _ = _parse(pattern)
    text = _Builder(rng, variant, 0).run(tree)
    if len(text) < min_length:
        text = _Builder(rng, variant, min_length - len(text)).run(tree)
    if len(text) < min_length or (max_length is not None and len(text) > max_length):
        bounds = f"{min_length}..{max_length if max_length is not None else ''}"
        raise PatternUnsupported(
            f"could not build a string matching the pattern {pattern!r} with a length in {bounds}"
        )
    if not _matches(pattern, text):  # after the length check: compiling costs more
        raise PatternUnsupported(f"could not build a string matching the pattern {pattern!r}")
    return text


class _Builder:
    """Walks a parsed pattern, writing the string it describes."""

    __slots__ = ("counter", "groups", "rng", "stretch")

    def __init__(self, rng: Random | None, variant: int, stretch: int) -> None:
        self.rng = rng
        self.counter = variant
        self.stretch = min(stretch, _MAX_STRETCH)
        self.groups: dict[int, str] = {}

    def run(self, tree: Any) -> str:
        out: list[str] = []
        self._sequence(tree, out)
        return "".join(out)

    def _sequence(self, items: Any, out: list[str]) -> None:
        for op, arg in items:
            self._one(op.name, arg, out)

    def _one(self, name: str, arg: Any, out: list[str]) -> None:
        if name == "LITERAL":
            out.append(chr(arg))
        elif name == "NOT_LITERAL":
            out.append(next(c for c in _POOL if ord(c) != arg))
        elif name == "ANY":
            out.append(self._pick_pool(lambda c: True))
        elif name == "IN":
            out.append(self._from_set(arg))
        elif name in ("MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"):
            low, high, sub = arg
            count = low
            if self.stretch and (str(high) == "MAXREPEAT" or high > low):
                room = self.stretch if str(high) == "MAXREPEAT" else min(self.stretch, high - low)
                count += room
                self.stretch -= room
            for _ in range(count):
                self._sequence(sub, out)
        elif name == "SUBPATTERN":
            group, _add, _del, sub = arg
            start = len(out)
            self._sequence(sub, out)
            if group is not None:
                self.groups[group] = "".join(out[start:])
        elif name == "ATOMIC_GROUP":
            self._sequence(arg, out)
        elif name == "BRANCH":
            _, alternatives = arg
            index = self.rng.randrange(len(alternatives)) if self.rng is not None else 0
            self._sequence(alternatives[index], out)
        elif name == "GROUPREF":
            out.append(self.groups.get(arg, ""))
        elif name == "AT":
            return  # anchors and word boundaries take no characters
        elif name == "CATEGORY":
            out.append(self._from_set([(_Op("CATEGORY"), arg)]))
        elif name in ("ASSERT", "ASSERT_NOT"):
            raise PatternUnsupported(
                "the pattern uses lookaround, which the generator cannot satisfy"
            )
        else:
            raise PatternUnsupported(
                f"the pattern uses a construct the generator cannot build ({name})"
            )

    def _next(self, size: int) -> int:
        if self.rng is not None:
            return self.rng.randrange(size)
        self.counter += 1
        return self.counter % size

    def _pick_pool(self, accept: Any) -> str:
        choices = [c for c in _POOL if accept(c)]
        if not choices:
            raise PatternUnsupported("a character class in the pattern matches nothing printable")
        return choices[self._next(len(choices))] if self.rng is not None else choices[0]

    def _from_set(self, items: Any) -> str:
        negate = any(op.name == "NEGATE" for op, _ in items)
        if negate:
            return self._pick_pool(lambda c: not _in_set(c, items))
        for op, arg in items:
            kind = op.name
            if kind == "LITERAL":
                return chr(arg) if self.rng is None else self._literal_choice(items)
            if kind == "RANGE":
                low, high = arg
                return chr(low + self._next(high - low + 1))
            if kind == "CATEGORY":
                found = _CATEGORY_SAMPLES.get(str(arg))
                if found is None:
                    continue
                return found[self._next(len(found))]
        raise PatternUnsupported(
            "a character class in the pattern matches nothing the generator knows"
        )

    def _literal_choice(self, items: Any) -> str:
        literals = [chr(a) for op, a in items if op.name == "LITERAL"]
        assert self.rng is not None
        return literals[self.rng.randrange(len(literals))]


class _Op:
    """A stand-in opcode for a bare category outside a class."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


_CATEGORY_SAMPLES: Final = {
    "CATEGORY_DIGIT": "0123456789",
    "CATEGORY_NOT_DIGIT": "abcxyz",
    "CATEGORY_WORD": "abcxyz",
    "CATEGORY_NOT_WORD": "-.@ ",
    "CATEGORY_SPACE": " ",
    "CATEGORY_NOT_SPACE": "abcxyz",
    "CATEGORY_LINEBREAK": "\n",
    "CATEGORY_NOT_LINEBREAK": "abcxyz",
}
_CATEGORY_TESTS: Final[dict[str, Callable[[str], bool]]] = {
    "CATEGORY_DIGIT": str.isdigit,
    "CATEGORY_NOT_DIGIT": lambda c: not c.isdigit(),
    "CATEGORY_WORD": lambda c: c.isalnum() or c == "_",
    "CATEGORY_NOT_WORD": lambda c: not (c.isalnum() or c == "_"),
    "CATEGORY_SPACE": str.isspace,
    "CATEGORY_NOT_SPACE": lambda c: not c.isspace(),
}


def _in_set(char: str, items: Any) -> bool:
    """Whether ``char`` is one of the (non-negated) members of a parsed class."""
    code = ord(char)
    for op, arg in items:
        kind = op.name
        if (kind == "LITERAL" and arg == code) or (kind == "RANGE" and arg[0] <= code <= arg[1]):
            return True
        if kind == "CATEGORY":
            test = _CATEGORY_TESTS.get(str(arg))
            if test is not None and test(char):
                return True
    return False
