"""What an ECMA-262 ``pattern`` uses, and whether it can backtrack catastrophically.

A small parser (groups, alternation, classes, escapes, quantifiers) builds just enough of a
syntax tree to answer the lint rules' questions: does the pattern use backreferences,
lookaround or word boundaries (which some providers reject), how large is its biggest
``{n,m}``, and does it nest unbounded repetitions ambiguously (``(a+)+``, ``(\\w+\\s?)*``,
``(\\d|\\w)+``), the shape behind regular-expression denial of service.

Character sets are approximated over ASCII (plus one marker for "any other character"),
which is enough to tell ``(\\d+,)*`` (safe: the comma separates repetitions) from
``(.*,)*`` (ambiguous). Whether a pattern *compiles* is decided by the validator itself
(jsonschema-rs); :func:`analyse` returns ``None`` for what it cannot read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Final

_OTHER: Final = 128  # marker: some character outside ASCII
_ALL: Final = frozenset(range(129))
_DIGITS: Final = frozenset(range(48, 58))
_WORD: Final = frozenset(list(range(48, 58)) + list(range(65, 91)) + list(range(97, 123)) + [95])
_SPACE: Final = frozenset({9, 10, 11, 12, 13, 32, _OTHER})
_DOT: Final = _ALL - {10, 13}
_MAX_LENGTH: Final = 5000
_MAX_NESTING: Final = 100
#: A bounded repetition above this many counts as unbounded for backtracking purposes.
_LARGE: Final = 32


@dataclass(slots=True)
class _Atom:
    chars: frozenset[int]


@dataclass(slots=True)
class _Empty:
    """An anchor, boundary or lookaround: matches no characters."""


@dataclass(slots=True)
class _Seq:
    items: list[_Node]


@dataclass(slots=True)
class _Alt:
    branches: list[_Seq]


@dataclass(slots=True)
class _Quant:
    item: _Node
    low: int
    high: int | None


_Node = _Atom | _Empty | _Seq | _Alt | _Quant


@dataclass(frozen=True, slots=True)
class RegexFacts:
    """What :func:`analyse` found in a pattern."""

    backreference: bool = False
    lookaround: bool = False
    lookbehind: bool = False
    word_boundary: bool = False
    max_repeat: int = 0
    #: The fragment that can backtrack catastrophically, and why; ``None`` when none.
    catastrophic: str | None = None


class _Unreadable(Exception):
    pass


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.p = pattern
        self.i = 0
        self.depth = 0
        self.backreference = False
        self.lookaround = False
        self.lookbehind = False
        self.word_boundary = False
        self.max_repeat = 0
        self.spans: dict[int, tuple[int, int]] = {}

    def parse(self) -> _Alt:
        node = self.alternation()
        if self.i != len(self.p):
            raise _Unreadable
        return node

    def alternation(self) -> _Alt:
        branches = [self.sequence()]
        while self.i < len(self.p) and self.p[self.i] == "|":
            self.i += 1
            branches.append(self.sequence())
        return _Alt(branches)

    def sequence(self) -> _Seq:
        items: list[_Node] = []
        p = self.p
        while self.i < len(p) and p[self.i] not in "|)":
            start = self.i
            atom = self.atom()
            atom = self.quantified(atom, start)
            items.append(atom)
        return _Seq(items)

    def quantified(self, atom: _Node, start: int) -> _Node:
        p = self.p
        if self.i >= len(p):
            return atom
        char = p[self.i]
        low: int
        high: int | None
        if char == "*":
            low, high = 0, None
            self.i += 1
        elif char == "+":
            low, high = 1, None
            self.i += 1
        elif char == "?":
            low, high = 0, 1
            self.i += 1
        elif char == "{":
            end = p.find("}", self.i)
            body = p[self.i + 1 : end] if end != -1 else ""
            lo, comma, hi = body.partition(",")
            if end == -1 or not lo.isdigit() or (hi and not hi.isdigit()):
                return atom  # a literal brace
            low = int(lo)
            high = None if comma and not hi else int(hi) if hi else low
            self.max_repeat = max(self.max_repeat, low, high or 0)
            self.i = end + 1
        else:
            return atom
        if self.i < len(p) and p[self.i] == "?":
            self.i += 1  # lazy: same backtracking
        node = _Quant(atom, low, high)
        self.spans[id(node)] = (start, self.i)
        return node

    def atom(self) -> _Node:
        p = self.p
        char = p[self.i]
        if char == "(":
            return self.group()
        if char == "[":
            return _Atom(self.klass())
        if char == "\\":
            return self.escape(in_class=False)
        self.i += 1
        if char == ".":
            return _Atom(_DOT)
        if char in "^$":
            return _Empty()
        if char in "*+?":
            raise _Unreadable  # nothing to repeat
        return _Atom(_char(char))

    def group(self) -> _Node:
        p = self.p
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise _Unreadable
        self.i += 1
        look = False
        if p.startswith("?:", self.i):
            self.i += 2
        elif p.startswith("?=", self.i) or p.startswith("?!", self.i):
            self.i += 2
            look = True
        elif p.startswith("?<=", self.i) or p.startswith("?<!", self.i):
            self.i += 3
            look = True
            self.lookbehind = True
        elif p.startswith("?<", self.i):
            end = p.find(">", self.i)
            if end == -1:
                raise _Unreadable
            self.i = end + 1
        elif p.startswith("?P<", self.i) or p.startswith("?P=", self.i):
            raise _Unreadable  # Python syntax, not ECMA-262
        body = self.alternation()
        if self.i >= len(p) or p[self.i] != ")":
            raise _Unreadable
        self.i += 1
        self.depth -= 1
        if look:
            self.lookaround = True
            return _Empty()
        return body

    def klass(self) -> frozenset[int]:
        p = self.p
        self.i += 1
        negate = self.i < len(p) and p[self.i] == "^"
        if negate:
            self.i += 1
        chars: set[int] = set()
        while self.i < len(p) and (p[self.i] != "]" or False):
            if p[self.i] == "\\":
                member = self.escape(in_class=True)
                assert isinstance(member, _Atom)
                low_set = member.chars
            else:
                low_set = _char(p[self.i])
                self.i += 1
            if (
                self.i + 1 < len(p)
                and p[self.i] == "-"
                and p[self.i + 1] != "]"
                and len(low_set) == 1
            ):
                self.i += 1
                if p[self.i] == "\\":
                    member = self.escape(in_class=True)
                    assert isinstance(member, _Atom)
                    high_set = member.chars
                else:
                    high_set = _char(p[self.i])
                    self.i += 1
                low_code = next(iter(low_set))
                high_code = next(iter(high_set)) if len(high_set) == 1 else low_code
                if low_code == _OTHER or high_code == _OTHER:
                    chars.add(_OTHER)
                    chars.update(range(min(low_code, 127), 128))
                else:
                    chars.update(range(low_code, high_code + 1))
                continue
            chars.update(low_set)
        if self.i >= len(p):
            raise _Unreadable
        self.i += 1
        result = frozenset(chars)
        return (_ALL - result) | {_OTHER} if negate else result

    def escape(self, *, in_class: bool) -> _Node:
        p = self.p
        self.i += 1
        if self.i >= len(p):
            raise _Unreadable
        char = p[self.i]
        self.i += 1
        if char == "d":
            return _Atom(_DIGITS)
        if char == "D":
            return _Atom((_ALL - _DIGITS) | {_OTHER})
        if char == "w":
            return _Atom(_WORD)
        if char == "W":
            return _Atom((_ALL - _WORD) | {_OTHER})
        if char == "s":
            return _Atom(_SPACE)
        if char == "S":
            return _Atom((_ALL - _SPACE) | {_OTHER})
        if char in "bB":
            if in_class:
                return _Atom(frozenset({8}))
            self.word_boundary = True
            return _Empty()
        if char in "123456789" and not in_class:
            while self.i < len(p) and p[self.i].isdigit():
                self.i += 1
            self.backreference = True
            return _Atom(_ALL)
        if char == "k" and not in_class and self.i < len(p) and p[self.i] == "<":
            end = p.find(">", self.i)
            if end == -1:
                raise _Unreadable
            self.i = end + 1
            self.backreference = True
            return _Atom(_ALL)
        if char in "pP" and self.i < len(p) and p[self.i] == "{":
            end = p.find("}", self.i)
            if end == -1:
                raise _Unreadable
            self.i = end + 1
            return _Atom(_ALL)
        if char == "u":
            if self.i < len(p) and p[self.i] == "{":
                end = p.find("}", self.i)
                if end == -1:
                    raise _Unreadable
                code = p[self.i + 1 : end]
                self.i = end + 1
            else:
                code = p[self.i : self.i + 4]
                self.i += 4
            return _Atom(_code(code))
        if char == "x":
            code = p[self.i : self.i + 2]
            self.i += 2
            return _Atom(_code(code))
        if char == "c":
            self.i += 1
            return _Atom(frozenset(range(32)))
        table = {"n": 10, "r": 13, "t": 9, "f": 12, "v": 11, "0": 0}
        if char in table:
            return _Atom(frozenset({table[char]}))
        return _Atom(_char(char))


def _char(char: str) -> frozenset[int]:
    code = ord(char)
    return frozenset({code if code < 128 else _OTHER})


def _code(digits: str) -> frozenset[int]:
    try:
        code = int(digits, 16)
    except ValueError:
        raise _Unreadable from None
    return frozenset({code if code < 128 else _OTHER})


# -- properties of nodes ---------------------------------------------------------------


def _unbounded(node: _Quant) -> bool:
    return node.high is None or node.high > _LARGE


def _flatten(node: _Node) -> _Node:
    """A one-branch alternation or one-item sequence is its content."""
    while True:
        if isinstance(node, _Alt) and len(node.branches) == 1:
            node = node.branches[0]
        elif isinstance(node, _Seq) and len(node.items) == 1:
            node = node.items[0]
        else:
            return node


#: Per position of a sequence: how many *other* items must consume a character, and the
#: characters those items can start with.
_Others = tuple[int, frozenset[int]]


class _Tree:
    """The properties of a parsed pattern's nodes, each computed once (a 5,000-character
    pattern is analysed in linear time, not quadratic)."""

    __slots__ = ("_chars", "_first", "_nullable", "_others", "parser")

    def __init__(self, parser: _Parser) -> None:
        self.parser = parser
        self._nullable: dict[int, bool] = {}
        self._chars: dict[int, frozenset[int]] = {}
        self._first: dict[int, frozenset[int]] = {}
        self._others: dict[int, list[_Others]] = {}

    def nullable(self, node: _Node) -> bool:
        """Whether the node can match the empty string."""
        found = self._nullable.get(id(node))
        if found is None:
            if isinstance(node, _Atom):
                found = False
            elif isinstance(node, _Empty):
                found = True
            elif isinstance(node, _Seq):
                found = all(self.nullable(i) for i in node.items)
            elif isinstance(node, _Alt):
                found = any(self.nullable(b) for b in node.branches)
            else:
                found = node.low == 0 or self.nullable(node.item)
            self._nullable[id(node)] = found
        return found

    def chars(self, node: _Node) -> frozenset[int]:
        """Every character the node can consume."""
        return self._consumed(node, first=False)

    def first(self, node: _Node) -> frozenset[int]:
        """The characters the node can start with."""
        return self._consumed(node, first=True)

    def _consumed(self, node: _Node, *, first: bool) -> frozenset[int]:
        cache = self._first if first else self._chars
        found = cache.get(id(node))
        if found is None:
            if isinstance(node, _Atom):
                found = node.chars
            elif isinstance(node, _Empty):
                found = frozenset()
            elif isinstance(node, _Seq):
                found = frozenset()
                for item in node.items:
                    found |= self._consumed(item, first=first)
                    if first and not self.nullable(item):
                        break
            elif isinstance(node, _Alt):
                found = frozenset().union(*(self._consumed(b, first=first) for b in node.branches))
            else:
                found = self._consumed(node.item, first=first)
            cache[id(node)] = found
        return found

    def others(self, seq: _Seq) -> list[_Others]:
        """For each item of a sequence: the mandatory items around it, summarised."""
        found = self._others.get(id(seq))
        if found is None:
            items = seq.items
            mandatory = [not self.nullable(i) for i in items]
            firsts = [
                self.first(i) if m else frozenset() for i, m in zip(items, mandatory, strict=True)
            ]
            after: list[frozenset[int]] = [frozenset()] * (len(items) + 1)
            for k in range(len(items) - 1, -1, -1):
                after[k] = after[k + 1] | firsts[k]
            total = sum(mandatory)
            found = []
            before: frozenset[int] = frozenset()
            for k in range(len(items)):
                found.append((total - mandatory[k], before | after[k + 1]))
                before |= firsts[k]
            self._others[id(seq)] = found
        return found

    def find(self, root: _Node) -> str | None:
        """The first ambiguous nested repetition, described; ``None`` when there is none."""
        parser = self.parser
        stack: list[_Node] = [root]
        while stack:
            node = stack.pop()
            if isinstance(node, _Quant):
                if _unbounded(node):
                    problem = self.ambiguous(node)
                    if problem is not None:
                        start, end = parser.spans.get(id(node), (0, len(parser.p)))
                        return f"{parser.p[start:end]} ({problem})"
                stack.append(node.item)
            elif isinstance(node, _Seq):
                stack.extend(reversed(node.items))
            elif isinstance(node, _Alt):
                stack.extend(reversed(node.branches))
        return None

    def ambiguous(self, outer: _Quant) -> str | None:
        body = _flatten(outer.item)
        if isinstance(body, _Alt):
            seen: list[frozenset[int]] = []
            for branch in body.branches:
                first = self.first(branch)
                if any(first & other for other in seen):
                    return "its alternatives can match the same text"
                seen.append(first)
        # an unbounded repetition inside, whose text the outer repetition could also split
        return self.inner(body, [])

    def inner(self, node: _Node, context: list[_Others]) -> str | None:
        """``context`` summarises, per enclosing sequence inside the outer repetition, the
        items that must consume characters around the path to ``node``."""
        if isinstance(node, _Quant):
            if _unbounded(node) and not isinstance(_flatten(node.item), _Empty):
                if not any(count for count, _ in context):
                    return "a repetition directly inside a repetition"
                chars = self.chars(node.item)
                if any(count and first & chars for count, first in context):
                    return "a repetition inside a repetition with nothing that separates them"
            return self.inner(node.item, context)
        if isinstance(node, _Seq):
            for item, around in zip(node.items, self.others(node), strict=True):
                context.append(around)
                found = self.inner(item, context)
                context.pop()
                if found is not None:
                    return found
            return None
        if isinstance(node, _Alt):
            for branch in node.branches:
                found = self.inner(branch, context)
                if found is not None:
                    return found
        return None


@lru_cache(maxsize=8192)
def analyse(pattern: str) -> RegexFacts | None:
    """The facts of ``pattern``; ``None`` when it is too long or not readable as ECMA-262."""
    if len(pattern) > _MAX_LENGTH:
        return None
    parser = _Parser(pattern)
    try:
        tree = parser.parse()
        catastrophic = _Tree(parser).find(tree)
    except (_Unreadable, RecursionError, IndexError, StopIteration):
        return None
    return RegexFacts(
        backreference=parser.backreference,
        lookaround=parser.lookaround,
        lookbehind=parser.lookbehind,
        word_boundary=parser.word_boundary,
        max_repeat=parser.max_repeat,
        catastrophic=catastrophic,
    )


_NON_ECMA: Final = (
    ("(?P<", "a Python named group; ECMA-262 writes (?<name>...)"),
    ("(?P=", "a Python named backreference; ECMA-262 writes \\k<name>"),
    ("(?#", "a Python comment group"),
    ("(?>", "an atomic group"),
    ("(?i)", "an inline flag group"),
    ("(?s)", "an inline flag group"),
    ("(?m)", "an inline flag group"),
    ("(?x)", "an inline flag group"),
    ("\\A", "\\A (start of input in Python; use ^)"),
    ("\\Z", "\\Z (end of input in Python; use $)"),
    ("\\z", "\\z (end of input; use $)"),
)


def non_ecma(pattern: str) -> str | None:
    """Syntax that some engines accept but ECMA-262 does not (Python, PCRE), or ``None``."""
    i = 0
    size = len(pattern)
    while i < size:
        char = pattern[i]
        if char == "\\":
            pair = pattern[i : i + 2]
            for token, why in _NON_ECMA:
                if token == pair:
                    return why
            i += 2
            continue
        if char == "(":
            for token, why in _NON_ECMA:
                if token.startswith("(") and pattern.startswith(token, i):
                    return why
        if char in "*+?}" and i + 1 < size and pattern[i + 1] == "+":
            return "a possessive quantifier (" + pattern[i : i + 2] + ")"
        i += 1
    return None


@lru_cache(maxsize=8192)
def compile_error(pattern: str) -> str | None:
    """Why the validator cannot compile ``pattern`` as a regular expression, or ``None``."""
    import jsonschema_rs

    try:
        jsonschema_rs.validator_for({"pattern": pattern})
    except jsonschema_rs.ValidationError as exc:
        text = str(exc).strip().splitlines()
        return text[0] if text else "not a valid regular expression"
    except (ValueError, TypeError) as exc:  # pragma: no cover - defensive
        return str(exc)
    return None
