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


def _nullable(node: _Node) -> bool:
    if isinstance(node, _Atom):
        return False
    if isinstance(node, _Empty):
        return True
    if isinstance(node, _Seq):
        return all(_nullable(i) for i in node.items)
    if isinstance(node, _Alt):
        return any(_nullable(b) for b in node.branches)
    return node.low == 0 or _nullable(node.item)


def _chars(node: _Node) -> frozenset[int]:
    """Every character the node can consume."""
    if isinstance(node, _Atom):
        return node.chars
    if isinstance(node, _Empty):
        return frozenset()
    if isinstance(node, _Seq):
        out: frozenset[int] = frozenset()
        for item in node.items:
            out |= _chars(item)
        return out
    if isinstance(node, _Alt):
        out = frozenset()
        for branch in node.branches:
            out |= _chars(branch)
        return out
    return _chars(node.item)


def _first(node: _Node) -> frozenset[int]:
    """The characters the node can start with."""
    if isinstance(node, _Atom):
        return node.chars
    if isinstance(node, _Empty):
        return frozenset()
    if isinstance(node, _Seq):
        out: frozenset[int] = frozenset()
        for item in node.items:
            out |= _first(item)
            if not _nullable(item):
                break
        return out
    if isinstance(node, _Alt):
        out = frozenset()
        for branch in node.branches:
            out |= _first(branch)
        return out
    return _first(node.item)


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


def _find(root: _Node, parser: _Parser) -> str | None:
    """The first ambiguous nested repetition, described; ``None`` when there is none."""
    stack: list[_Node] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, _Quant):
            if _unbounded(node):
                problem = _ambiguous(node)
                if problem is not None:
                    start, end = parser.spans.get(id(node), (0, len(parser.p)))
                    return f"{parser.p[start:end]} ({problem})"
            stack.append(node.item)
        elif isinstance(node, _Seq):
            stack.extend(reversed(node.items))
        elif isinstance(node, _Alt):
            stack.extend(reversed(node.branches))
    return None


def _ambiguous(outer: _Quant) -> str | None:
    body = _flatten(outer.item)
    if isinstance(body, _Alt):
        seen: list[frozenset[int]] = []
        for branch in body.branches:
            first = _first(branch)
            if any(first & other for other in seen):
                return "its alternatives can match the same text"
            seen.append(first)
    # an unbounded repetition inside, whose text the outer repetition could also split
    return _inner(body, [])


def _inner(node: _Node, context: list[tuple[list[_Node], int]]) -> str | None:
    if isinstance(node, _Quant):
        if _unbounded(node) and not isinstance(_flatten(node.item), _Empty):
            chars = _chars(node.item)
            others = [
                item for items, index in context for k, item in enumerate(items) if k != index
            ]
            mandatory = [o for o in others if not _nullable(o)]
            if not mandatory:
                return "a repetition directly inside a repetition"
            if any(_first(o) & chars for o in mandatory):
                return "a repetition inside a repetition with nothing that separates them"
        return _inner(node.item, context)
    if isinstance(node, _Seq):
        for index, item in enumerate(node.items):
            found = _inner(item, [*context, (node.items, index)])
            if found is not None:
                return found
        return None
    if isinstance(node, _Alt):
        for branch in node.branches:
            found = _inner(branch, context)
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
        catastrophic = _find(tree, parser)
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
