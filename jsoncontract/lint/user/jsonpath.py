"""JSONPath for user rules: the ``given`` of a ``[[lint.rules]]`` rule and of a Spectral rule.

The syntax is the one Spectral's rulesets are written in (nimma, with jsonpath-plus behind
it): ``$`` the root; ``.name``, ``['name']`` and ``[0]`` a member or an element; ``.*`` and
``[*]`` every member of an object or element of an array; ``..`` every descendant, the node
itself included (``$..properties``, ``$..*``, ``$..[*]``); unions ``['a','b']``, ``[0,1]``
and bare names ``[get,put]``; slices ``[1:3]``; filters ``[?(...)]`` over each member or
element, in the JavaScript subset rulesets use: ``@``, ``@.a.b``, ``@['a']``,
``@property``, ``@parentProperty``, literals, ``== === != !== < <= > >=``, ``&& || !``,
``typeof``, ``.length``, ``.match(/re/flags)``, ``.startsWith(...)``, ``.endsWith(...)``,
``.includes(...)``. Anything else is refused when the rule loads, with where it stops.

A match is ``(tokens, value)``: the member names and indices from the root.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Final

Tokens = tuple[str | int, ...]

#: Nodes visited by one query before it stops (a hostile file cannot make a rule run long).
MAX_VISITS: Final = 1_000_000


class JsonPathError(ValueError):
    """A path that does not parse: the message says where and what was expected."""


# -- the path's parts ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Names:
    names: tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class _Wild:
    pass


@dataclass(frozen=True, slots=True)
class _Slice:
    start: int | None
    stop: int | None
    step: int | None


@dataclass(frozen=True, slots=True)
class _Filter:
    expr: Expr


Selector = _Names | _Wild | _Slice | _Filter


@dataclass(frozen=True, slots=True)
class _Step:
    descendant: bool
    selectors: tuple[Selector, ...]


@dataclass(frozen=True, slots=True)
class JsonPath:
    """A parsed path; :meth:`find` runs it."""

    text: str
    steps: tuple[_Step, ...]

    def find(self, document: Any) -> Iterator[tuple[Tokens, Any]]:
        """Every ``(tokens, value)`` the path selects in ``document``, in document order
        (a node selected twice is yielded once)."""
        current: list[tuple[Tokens, Any, Tokens]] = [((), document, ())]
        budget = [MAX_VISITS]
        for step in self.steps:
            found: list[tuple[Tokens, Any, Tokens]] = []
            seen: set[Tokens] = set()
            for tokens, value, _ in current:
                bases = (
                    _descendants(tokens, value, budget) if step.descendant else [(tokens, value)]
                )
                for base_tokens, base in bases:
                    for item in _select(step.selectors, base_tokens, base, budget):
                        if item[0] not in seen:
                            seen.add(item[0])
                            found.append(item)
            current = found
        for tokens, value, _ in current:
            yield tokens, value


def _descendants(tokens: Tokens, value: Any, budget: list[int]) -> list[tuple[Tokens, Any]]:
    out: list[tuple[Tokens, Any]] = []
    stack = [(tokens, value)]
    while stack:
        here, node = stack.pop()
        budget[0] -= 1
        if budget[0] < 0:
            break
        out.append((here, node))
        children = list(_children(node))
        stack.extend(((*here, key), child) for key, child in reversed(children))
    return out


def _children(node: Any) -> Iterator[tuple[str | int, Any]]:
    if isinstance(node, dict):
        yield from node.items()
    elif isinstance(node, list):
        yield from enumerate(node)


def _select(
    selectors: tuple[Selector, ...], tokens: Tokens, node: Any, budget: list[int]
) -> Iterator[tuple[Tokens, Any, Tokens]]:
    for selector in selectors:
        if isinstance(selector, _Wild):
            for key, child in _children(node):
                yield (*tokens, key), child, tokens
        elif isinstance(selector, _Names):
            for name in selector.names:
                found = _member(node, name)
                if found is not None:
                    yield (*tokens, found[0]), found[1], tokens
        elif isinstance(selector, _Slice):
            if isinstance(node, list):
                for index in range(len(node))[slice(selector.start, selector.stop, selector.step)]:
                    yield (*tokens, index), node[index], tokens
        else:
            for key, child in _children(node):
                budget[0] -= 1
                if budget[0] < 0:
                    return
                scope = _Scope(child, key, tokens[-1] if tokens else None)
                if truthy(selector.expr.evaluate(scope)):
                    yield (*tokens, key), child, tokens


def _member(node: Any, name: str | int) -> tuple[str | int, Any] | None:
    if isinstance(node, dict):
        key = str(name)
        if key in node:
            return key, node[key]
        return None
    if isinstance(node, list):
        index = name if isinstance(name, int) else _index(name)
        if index is None:
            return None
        if index < 0:
            index += len(node)
        if 0 <= index < len(node):
            return index, node[index]
    return None


def _index(text: str) -> int | None:
    return int(text) if text.isdigit() and (text == "0" or not text.startswith("0")) else None


# -- filter expressions -------------------------------------------------------------------


class _Undefined:
    """JavaScript's ``undefined``: a member the value does not have."""

    def __repr__(self) -> str:
        return "undefined"


#: JavaScript's ``undefined``.
UNDEFINED: Final = _Undefined()


@dataclass(frozen=True, slots=True)
class _Scope:
    value: Any
    key: str | int
    parent_key: str | int | None


class Expr:
    """A node of a filter expression."""

    def evaluate(self, scope: _Scope) -> Any:
        """The JavaScript value of the node (``UNDEFINED`` for ``undefined``)."""
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class _Literal(Expr):
    value: Any

    def evaluate(self, scope: _Scope) -> Any:
        return self.value


@dataclass(frozen=True, slots=True)
class _Ref(Expr):
    """``@``, ``@property``, ``@parentProperty``, then members."""

    base: str
    members: tuple[str | int, ...]

    def evaluate(self, scope: _Scope) -> Any:
        if self.base == "@property":
            value: Any = scope.key
        elif self.base == "@parentProperty":
            value = UNDEFINED if scope.parent_key is None else scope.parent_key
        else:
            value = scope.value
        for name in self.members:
            value = _get(value, name)
        return value


@dataclass(frozen=True, slots=True)
class _Unary(Expr):
    op: str
    operand: Expr

    def evaluate(self, scope: _Scope) -> Any:
        value = self.operand.evaluate(scope)
        if self.op == "!":
            return not truthy(value)
        return _typeof(value)


@dataclass(frozen=True, slots=True)
class _Binary(Expr):
    op: str
    left: Expr
    right: Expr

    def evaluate(self, scope: _Scope) -> Any:
        if self.op == "&&":
            left = self.left.evaluate(scope)
            return self.right.evaluate(scope) if truthy(left) else left
        if self.op == "||":
            left = self.left.evaluate(scope)
            return left if truthy(left) else self.right.evaluate(scope)
        return _compare(self.op, self.left.evaluate(scope), self.right.evaluate(scope))


@dataclass(frozen=True, slots=True)
class _Method(Expr):
    target: Expr
    name: str
    argument: Any

    def evaluate(self, scope: _Scope) -> Any:
        value = self.target.evaluate(scope)
        if self.name == "length":
            return _get(value, "length")
        if not isinstance(value, str):
            if self.name == "includes" and isinstance(value, list):
                return any(_strict_equal(v, self.argument) for v in value)
            return False
        if self.name == "match":
            regex: JsRegex = self.argument
            return regex.search(value)
        if self.name == "startsWith":
            return value.startswith(self.argument)
        if self.name == "endsWith":
            return value.endswith(self.argument)
        return self.argument in value


def _get(value: Any, name: str | int) -> Any:
    if value is UNDEFINED or value is None:
        return UNDEFINED
    if isinstance(value, dict):
        return value.get(str(name), UNDEFINED)
    if isinstance(value, list):
        if name == "length":
            return len(value)
        index = name if isinstance(name, int) else _index(name)
        return value[index] if index is not None and index < len(value) else UNDEFINED
    if isinstance(value, str) and name == "length":
        return len(value)
    return UNDEFINED


def truthy(value: Any) -> bool:
    """JavaScript's truthiness of a JSON value."""
    if value is UNDEFINED or value is None or value is False:
        return False
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value == value and value != 0  # NaN is falsy
    if isinstance(value, str):
        return value != ""
    return True


def _typeof(value: Any) -> str:
    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "object"  # null, arrays and objects


def _strict_equal(a: Any, b: Any) -> bool:
    if a is UNDEFINED or b is UNDEFINED:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return bool(a == b)
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return a is b
    return type(a) is type(b) and bool(a == b)


def _loose_equal(a: Any, b: Any) -> bool:
    nullish = (None, UNDEFINED)
    if a in nullish or b in nullish:
        return a in nullish and b in nullish
    if type(a) is type(b) or isinstance(a, dict | list) or isinstance(b, dict | list):
        return _strict_equal(a, b)
    return js_number(a) == js_number(b)


def js_number(value: Any) -> float:
    """JavaScript's ``Number(value)`` of a JSON scalar (``nan`` for what it cannot read)."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    if value is None:
        return 0.0
    if not isinstance(value, str):
        return float("nan")
    text = value.strip(" \t\n\v\f\r\u00a0\u2028\u2029\ufeff")
    if not text:
        return 0.0
    lowered = text.lower()
    for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
        if lowered.startswith(prefix):
            try:
                return float(int(text[2:], base))
            except ValueError:
                return float("nan")
    if text in ("Infinity", "+Infinity", "-Infinity"):
        return float(text.replace("Infinity", "inf"))
    if not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", text):
        return float("nan")
    return float(text)


def _compare(op: str, a: Any, b: Any) -> bool:
    if op in ("===", "!=="):
        return _strict_equal(a, b) == (op == "===")
    if op in ("==", "!="):
        return _loose_equal(a, b) == (op == "==")
    if isinstance(a, str) and isinstance(b, str):
        left: Any
        right: Any
        left, right = a, b
    else:
        if (
            a is UNDEFINED
            or b is UNDEFINED
            or isinstance(a, dict | list)
            or isinstance(b, dict | list)
        ):
            return False
        left, right = js_number(a), js_number(b)
    if op == "<":
        return bool(left < right)
    if op == "<=":
        return bool(left <= right)
    if op == ">":
        return bool(left > right)
    return bool(left >= right)


class JsRegex:
    """A JavaScript regular expression literal (``/re/flags``) or pattern string, matched
    with the ECMA-262 engine of :mod:`jsoncontract._regex`.

    Flags: ``i``, ``m`` and ``s`` change the match; ``g``, ``y``, ``u``, ``d`` and ``v``
    do not change whether ``test`` finds one from the start.

    Raises:
        JsonPathError: an unknown flag, or a pattern the engine cannot compile.
    """

    __slots__ = ("pattern", "source")

    def __init__(self, source: str, flags: str = "") -> None:
        from jsoncontract._regex import InvalidPattern, search

        self.source = source
        unknown = set(flags) - set("gimsuyvd")
        if unknown:
            raise JsonPathError(f"unknown regular expression flag {sorted(unknown)[0]!r}")
        pattern = _dot_all(source) if "s" in flags else source
        inline = "".join(f for f in "im" if f in flags)
        self.pattern = f"(?{inline}){pattern}" if inline else pattern
        try:
            search(self.pattern, "")
        except InvalidPattern:
            raise JsonPathError(f"invalid regular expression /{source}/{flags}") from None

    @classmethod
    def parse(cls, text: str) -> JsRegex:
        """``/re/flags`` as a pattern with flags, else the whole text as a pattern (as
        Spectral's ``pattern`` function reads its options)."""
        found = re.fullmatch(r"/(.+)/([a-z]*)", text, re.DOTALL)
        if found is not None:
            return cls(found.group(1), found.group(2))
        return cls(text)

    def search(self, text: str) -> bool:
        """Whether the expression matches somewhere in ``text``."""
        from jsoncontract._regex import search

        return search(self.pattern, text)


def _dot_all(pattern: str) -> str:
    """``.`` outside character classes written as ``[\\s\\S]`` (the ``s`` flag)."""
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        out.append("[\\s\\S]" if char == "." and not in_class else char)
        i += 1
    return "".join(out)


# -- the parser -----------------------------------------------------------------------------

_NAME: Final = re.compile(r"[A-Za-z0-9_$\-]+|[^\x00-\x7f]+")
_BARE: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$\-]*")
_INT: Final = re.compile(r"-?\d+")
_OPERATORS: Final = ("===", "!==", "==", "!=", "<=", ">=", "<", ">")
_METHODS: Final = ("match", "startsWith", "endsWith", "includes")


def parse(text: str) -> JsonPath:
    """Parse a path.

    Raises:
        JsonPathError: the path, where it stops, and what was expected.
    """
    if not isinstance(text, str) or not text.startswith("$"):
        raise JsonPathError("a JSONPath starts with $")
    return JsonPath(text, tuple(_Parser(text).steps()))


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 1

    def fail(self, what: str) -> JsonPathError:
        return JsonPathError(f"{what} at character {self.at + 1} of {self.text!r}")

    def peek(self, token: str) -> bool:
        return self.text.startswith(token, self.at)

    def skip_spaces(self) -> None:
        while self.at < len(self.text) and self.text[self.at] in " \t":
            self.at += 1

    def steps(self) -> Iterator[_Step]:
        text = self.text
        while self.at < len(text):
            if self.peek(".."):
                self.at += 2
                if self.peek("["):
                    yield _Step(True, self.bracket())
                else:
                    yield _Step(True, (self.dotted(),))
            elif self.peek("."):
                self.at += 1
                yield _Step(False, (self.dotted(),))
            elif self.peek("["):
                yield _Step(False, self.bracket())
            elif self.peek("~") or self.peek("^"):
                raise self.fail(
                    f"{text[self.at]!r} (jsonpath-plus' property names and parents) is not "
                    "supported; use field: '@key' for the names"
                )
            else:
                raise self.fail("expected . or [")

    def dotted(self) -> Selector:
        if self.peek("*"):
            self.at += 1
            return _Wild()
        found = _NAME.match(self.text, self.at)
        if found is None:
            raise self.fail("expected a member name or *")
        self.at = found.end()
        return _Names((found.group(),))

    def bracket(self) -> tuple[Selector, ...]:
        self.at += 1
        selectors: list[Selector] = []
        while True:
            self.skip_spaces()
            selectors.append(self.selector())
            self.skip_spaces()
            if self.peek(","):
                self.at += 1
                continue
            if self.peek("]"):
                self.at += 1
                return tuple(selectors)
            raise self.fail("expected , or ]")

    def selector(self) -> Selector:
        text = self.text
        if self.peek("*"):
            self.at += 1
            return _Wild()
        if self.peek("?"):
            self.at += 1
            self.skip_spaces()
            if not self.peek("("):
                raise self.fail("a filter is written ?(...)")
            self.at += 1
            expr = self.or_expr()
            self.skip_spaces()
            if not self.peek(")"):
                raise self.fail("expected ) to close the filter")
            self.at += 1
            return _Filter(expr)
        if self.peek("("):
            raise self.fail("script expressions (...) are not supported; use a filter ?(...)")
        if self.peek("'") or self.peek('"'):
            return _Names((self.string(),))
        found = re.compile(r"(-?\d*):(-?\d*)(?::(-?\d*))?").match(text, self.at)
        if found is not None:
            self.at = found.end()
            start, stop, step = (int(g) if g else None for g in found.groups())
            if step == 0:
                raise self.fail("a slice's step cannot be 0")
            return _Slice(start, stop, step)
        number = _INT.match(text, self.at)
        if number is not None:
            self.at = number.end()
            return _Names((int(number.group()),))
        bare = _BARE.match(text, self.at)
        if bare is not None:
            self.at = bare.end()
            return _Names((bare.group(),))
        raise self.fail("expected *, a name, an index, a slice or a filter")

    def string(self) -> str:
        quote = self.text[self.at]
        self.at += 1
        out: list[str] = []
        while self.at < len(self.text):
            char = self.text[self.at]
            if char == "\\" and self.at + 1 < len(self.text):
                escaped = self.text[self.at + 1]
                out.append({"n": "\n", "t": "\t", "r": "\r"}.get(escaped, escaped))
                self.at += 2
                continue
            if char == quote:
                self.at += 1
                return "".join(out)
            out.append(char)
            self.at += 1
        raise self.fail("unterminated string")

    # filter expressions, loosest first

    def or_expr(self) -> Expr:
        return self.chain("||", self.and_expr)

    def and_expr(self) -> Expr:
        return self.chain("&&", self.comparison)

    def chain(self, op: str, operand: Callable[[], Expr]) -> Expr:
        left = operand()
        while True:
            self.skip_spaces()
            if not self.peek(op):
                return left
            self.at += len(op)
            left = _Binary(op, left, operand())

    def comparison(self) -> Expr:
        left = self.unary()
        self.skip_spaces()
        for op in _OPERATORS:
            if self.peek(op):
                self.at += len(op)
                return _Binary(op, left, self.unary())
        return left

    def unary(self) -> Expr:
        self.skip_spaces()
        if self.peek("!") and not self.peek("!="):
            self.at += 1
            return _Unary("!", self.unary())
        if self.peek("typeof") and not _BARE.match(self.text, self.at + 6):
            self.at += 6
            return _Unary("typeof", self.unary())
        return self.postfix(self.primary())

    def primary(self) -> Expr:
        self.skip_spaces()
        text = self.text
        if self.peek("("):
            self.at += 1
            inner = self.or_expr()
            self.skip_spaces()
            if not self.peek(")"):
                raise self.fail("expected )")
            self.at += 1
            return inner
        if self.peek("'") or self.peek('"'):
            return _Literal(self.string())
        number = re.compile(r"-?\d+(\.\d+)?([eE][+-]?\d+)?").match(text, self.at)
        if number is not None:
            self.at = number.end()
            written = float(number.group())
            return _Literal(
                int(written) if written.is_integer() and "." not in number.group() else written
            )
        for word, constant in (("true", True), ("false", False), ("null", None)):
            if self.peek(word) and not _BARE.match(text, self.at + len(word)):
                self.at += len(word)
                return _Literal(constant)
        if self.peek("undefined") and not _BARE.match(text, self.at + 9):
            self.at += 9
            return _Literal(UNDEFINED)
        for base in ("@parentProperty", "@property", "@"):
            if self.peek(base):
                after = self.at + len(base)
                if base == "@" and _BARE.match(text, after):
                    name = _BARE.match(text, after)
                    assert name is not None
                    raise self.fail(
                        f"@{name.group()} is not supported (@, @property, @parentProperty are)"
                    )
                self.at = after
                return _Ref(base, ())
        raise self.fail("expected a value, @, @property or a literal")

    def postfix(self, expr: Expr) -> Expr:
        while True:
            if self.peek("."):
                self.at += 1
                found = _BARE.match(self.text, self.at)
                if found is None:
                    raise self.fail("expected a member name after .")
                name = found.group()
                self.at = found.end()
                if name == "length" and not self.peek("("):
                    expr = _Method(expr, "length", None)
                    continue
                if self.peek("("):
                    expr = self.call(expr, name)
                    continue
                if not isinstance(expr, _Ref):
                    raise self.fail(f"member .{name} of a computed value is not supported")
                expr = _Ref(expr.base, (*expr.members, name))
            elif self.peek("["):
                self.at += 1
                self.skip_spaces()
                if self.peek("'") or self.peek('"'):
                    key: str | int = self.string()
                else:
                    number = _INT.match(self.text, self.at)
                    if number is None:
                        raise self.fail("expected a quoted name or an index")
                    self.at = number.end()
                    key = int(number.group())
                self.skip_spaces()
                if not self.peek("]"):
                    raise self.fail("expected ]")
                self.at += 1
                if not isinstance(expr, _Ref):
                    raise self.fail("an index of a computed value is not supported")
                expr = _Ref(expr.base, (*expr.members, key))
            else:
                return expr

    def call(self, target: Expr, name: str) -> Expr:
        if name not in _METHODS:
            raise self.fail(
                f".{name}() is not supported (.match, .startsWith, .endsWith, .includes are)"
            )
        self.at += 1
        self.skip_spaces()
        argument: Any
        if name == "match":
            argument = (
                JsRegex.parse(self.regex())
                if not self.peek("'") and not self.peek('"')
                else JsRegex(self.string())
            )
        elif self.peek("'") or self.peek('"'):
            argument = self.string()
        else:
            raise self.fail(f".{name}() takes a quoted string")
        self.skip_spaces()
        if not self.peek(")"):
            raise self.fail("expected )")
        self.at += 1
        return _Method(target, name, argument)

    def regex(self) -> str:
        text = self.text
        if not self.peek("/"):
            raise self.fail(".match() takes a /regular expression/")
        start = self.at + 1
        i = start
        in_class = False
        while i < len(text):
            char = text[i]
            if char == "\\":
                i += 2
                continue
            if char == "[":
                in_class = True
            elif char == "]":
                in_class = False
            elif char == "/" and not in_class:
                break
            i += 1
        else:
            raise self.fail("unterminated regular expression")
        flags = re.compile(r"[a-z]*").match(text, i + 1)
        assert flags is not None
        self.at = flags.end()
        return f"/{text[start:i]}/{flags.group()}"


__all__ = [
    "UNDEFINED",
    "JsRegex",
    "JsonPath",
    "JsonPathError",
    "Tokens",
    "js_number",
    "parse",
    "truthy",
]
