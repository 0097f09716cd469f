"""The syntax tree of a compiled CEL expression, read from the runtime's own parser.

``cel-expr-python`` parses and type-checks an expression and can serialise the result: a
``cel.expr.CheckedExpr`` protocol buffer (inside a ``google.protobuf.Any``). This module
reads that message with a small wire-format decoder, so the schema-aware checks
(:mod:`jsoncontract.business.celcheck`, :mod:`jsoncontract.business.cost`) walk exactly the
tree the runtime evaluates: macros already expanded into comprehensions (``all``,
``exists``, ``map``, ``cel.bind``...), ``has()`` as a presence test, qualified names
(``data.orders.has``) resolved, and every node's offset in the source text.

Only the parts the checks need are decoded (expressions and source positions); the
runtime's own type map is not, because its types know nothing of the JSON Schema.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

#: The accumulator variable the macros introduce (never written by people: ``@`` cannot
#: start an identifier).
ACCUMULATOR: Final = "@result"


@dataclass(frozen=True, slots=True)
class Const:
    """A literal: ``kind`` is ``null``, ``bool``, ``int``, ``uint``, ``double``, ``string``
    or ``bytes``."""

    id: int
    kind: str
    value: Any


@dataclass(frozen=True, slots=True)
class Ident:
    """A variable (``self``, ``x``) or a qualified name the checker resolved
    (``data.orders``)."""

    id: int
    name: str


@dataclass(frozen=True, slots=True)
class Select:
    """``operand.field``; ``test_only`` is the presence test of ``has(operand.field)``."""

    id: int
    operand: Expr
    field: str
    test_only: bool = False


@dataclass(frozen=True, slots=True)
class Call:
    """A function or operator call: ``_+_``, ``_[_]``, ``size``, ``x.startsWith(y)``
    (``target`` is ``x``)."""

    id: int
    function: str
    args: tuple[Expr, ...]
    target: Expr | None = None


@dataclass(frozen=True, slots=True)
class CreateList:
    """``[a, b, ?c]``: ``optional`` holds the indices of ``?`` elements."""

    id: int
    elements: tuple[Expr, ...]
    optional: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Entry:
    """One ``key: value`` of a map literal (or ``field: value`` of a message literal)."""

    id: int
    key: Expr | str
    value: Expr
    optional: bool = False


@dataclass(frozen=True, slots=True)
class CreateStruct:
    """A map literal (``message`` empty) or a message literal."""

    id: int
    entries: tuple[Entry, ...]
    message: str = ""


@dataclass(frozen=True, slots=True)
class Comprehension:
    """An expanded macro: ``accu = init; for var(, var2) in range: if !cond break; accu =
    step; return result``."""

    id: int
    iter_var: str
    iter_range: Expr
    accu_var: str
    accu_init: Expr
    loop_condition: Expr
    loop_step: Expr
    result: Expr
    iter_var2: str = ""


Expr = Const | Ident | Select | Call | CreateList | CreateStruct | Comprehension


@dataclass(slots=True)
class Ast:
    """A checked expression: its root, its source text and each node's code-point offset
    (read from the serialised source information when first asked for: most expressions
    have nothing to report)."""

    root: Expr
    source: str
    source_info: bytes = b""
    _positions: dict[int, int] | None = field(default=None, repr=False)

    @property
    def positions(self) -> dict[int, int]:
        """Node id -> code-point offset."""
        if self._positions is None:
            self._positions = _positions(self.source_info) if self.source_info else {}
        return self._positions

    def offset(self, node: Expr | Entry) -> int:
        """The offset of ``node`` in the source (0 when the parser recorded none)."""
        return self.positions.get(node.id, 0)

    def field_offset(self, node: Select | Call) -> int:
        """Where the field name of a selection starts: after the ``.`` (or ``.?``), or at
        the key of ``x['key']``."""
        at = self.offset(node)
        text = self.source
        if isinstance(node, Call) and node.function == "_[_]" and len(node.args) == 2:
            return self.offset(node.args[1])
        if at < len(text) and text[at] == ".":
            at += 1
            if at < len(text) and text[at] == "?":
                at += 1
            while at < len(text) and text[at] in " \t\r\n":
                at += 1
        return at

    def macro_name(self, node: Comprehension) -> str:
        """The name of the macro a comprehension was expanded from (``all``, ``map``,
        ``bind``...), read from the source before its ``(``."""
        end = self.offset(node)
        text = self.source
        start = end
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
            start -= 1
        return text[start:end] or "comprehension"

    def line_column(self, offset: int) -> tuple[int, int]:
        """1-based line and column of a code-point offset."""
        return line_column(self.source, offset)


def line_column(source: str, offset: int) -> tuple[int, int]:
    """1-based line and column of a code-point offset in ``source``."""
    before = source[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    return line, column


class AstError(Exception):
    """The serialised expression could not be read (an unexpected runtime version)."""


# -- wire format --------------------------------------------------------------------------


def _varint(data: bytes, at: int) -> tuple[int, int]:
    if at < len(data) and data[at] < 0x80:  # most varints are one byte
        return data[at], at + 1
    result = 0
    shift = 0
    while True:
        if at >= len(data):
            raise AstError("truncated varint")
        byte = data[at]
        at += 1
        result |= (byte & 0x7F) << shift
        if byte < 0x80:
            return result, at
        shift += 7
        if shift > 70:
            raise AstError("varint too long")


def _fields(data: bytes) -> Iterator[tuple[int, int, Any]]:
    """``(field number, wire type, value)`` of each field of one message."""
    at = 0
    end = len(data)
    while at < end:
        key, at = _varint(data, at)
        number, wire = key >> 3, key & 7
        value: Any
        if wire == 0:
            value, at = _varint(data, at)
        elif wire == 1:
            value, at = data[at : at + 8], at + 8
        elif wire == 2:
            size, at = _varint(data, at)
            value, at = data[at : at + size], at + size
        elif wire == 5:
            value, at = data[at : at + 4], at + 4
        else:
            raise AstError(f"unsupported wire type {wire}")
        if at > end:
            raise AstError("truncated field")
        yield number, wire, value


def _group(data: bytes) -> dict[int, list[Any]]:
    out: dict[int, list[Any]] = {}
    for number, _, value in _fields(data):
        out.setdefault(number, []).append(value)
    return out


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= 1 << 63 else value


def _text(data: bytes) -> str:
    return bytes(data).decode("utf-8")


def _const(node_id: int, data: bytes) -> Const:
    for number, wire, value in _fields(data):
        if number == 1:
            return Const(node_id, "null", None)
        if number == 2:
            return Const(node_id, "bool", bool(value))
        if number == 3:
            return Const(node_id, "int", _signed(value))
        if number == 4:
            return Const(node_id, "uint", value)
        if number == 5 and wire == 1:
            return Const(node_id, "double", struct.unpack("<d", value)[0])
        if number == 6:
            return Const(node_id, "string", _text(value))
        if number == 7:
            return Const(node_id, "bytes", bytes(value))
    return Const(node_id, "null", None)  # an empty constant is the null value's default


def _expr(data: bytes) -> Expr:
    node_id = 0
    body: tuple[int, bytes] | None = None
    for number, _, value in _fields(data):
        if number == 2:
            node_id = _signed(value)
        elif 3 <= number <= 9:
            body = (number, value)
    if body is None:
        raise AstError(f"expression {node_id} has no kind")
    kind, raw = body
    if kind == 3:
        return _const(node_id, raw)
    parts = _group(raw)
    if kind == 4:
        return Ident(node_id, _text(parts.get(1, [b""])[0]))
    if kind == 5:
        return Select(
            node_id,
            _expr(parts[1][0]),
            _text(parts.get(2, [b""])[0]),
            bool(parts.get(3, [0])[0]),
        )
    if kind == 6:
        target = _expr(parts[1][0]) if 1 in parts else None
        args = tuple(_expr(a) for a in parts.get(3, []))
        return Call(node_id, _text(parts.get(2, [b""])[0]), args, target)
    if kind == 7:
        optional: list[int] = []
        for raw_index in parts.get(2, []):
            if isinstance(raw_index, int):
                optional.append(raw_index)
            else:  # packed
                at = 0
                while at < len(raw_index):
                    index, at = _varint(raw_index, at)
                    optional.append(index)
        return CreateList(node_id, tuple(_expr(e) for e in parts.get(1, [])), frozenset(optional))
    if kind == 8:
        entries = []
        for raw_entry in parts.get(2, []):
            entry = _group(raw_entry)
            key: Expr | str = _expr(entry[3][0]) if 3 in entry else _text(entry.get(2, [b""])[0])
            entries.append(
                Entry(
                    _signed(entry.get(1, [0])[0]),
                    key,
                    _expr(entry[4][0]),
                    bool(entry.get(5, [0])[0]),
                )
            )
        return CreateStruct(node_id, tuple(entries), _text(parts.get(1, [b""])[0]))
    return Comprehension(
        node_id,
        iter_var=_text(parts.get(1, [b""])[0]),
        iter_range=_expr(parts[2][0]),
        accu_var=_text(parts.get(3, [b""])[0]),
        accu_init=_expr(parts[4][0]),
        loop_condition=_expr(parts[5][0]),
        loop_step=_expr(parts[6][0]),
        result=_expr(parts[7][0]),
        iter_var2=_text(parts.get(8, [b""])[0]),
    )


def _positions(source_info: bytes) -> dict[int, int]:
    positions: dict[int, int] = {}
    try:
        for number, _, value in _fields(source_info):
            if number == 4:
                entry = {n: v for n, _, v in _fields(value)}
                positions[_signed(entry.get(1, 0))] = entry.get(2, 0)
    except AstError:  # pragma: no cover - positions only place messages
        return positions
    return positions


def read_checked(serialized: bytes, source: str) -> Ast:
    """The tree of a serialised checked expression (``Expression.serialize()``).

    Raises:
        AstError: the bytes are not a ``CheckedExpr`` this decoder can read.
    """
    try:
        message = bytes(serialized)
        wrapped = _group(message)
        payload = wrapped.get(2, [message])[0]  # inside google.protobuf.Any
        checked = _group(payload)
        if 4 not in checked:
            raise AstError("no expression in the checked message")
        root = _expr(checked[4][0])
    except (IndexError, KeyError, UnicodeDecodeError, struct.error, RecursionError) as exc:
        raise AstError(f"unreadable checked expression: {type(exc).__name__}") from None
    return Ast(root, source, bytes(checked[5][0]) if 5 in checked else b"")


def children(node: Expr) -> Iterator[Expr]:
    """The direct sub-expressions of ``node``, in source order."""
    if isinstance(node, Select):
        yield node.operand
    elif isinstance(node, Call):
        if node.target is not None:
            yield node.target
        yield from node.args
    elif isinstance(node, CreateList):
        yield from node.elements
    elif isinstance(node, CreateStruct):
        for entry in node.entries:
            if not isinstance(entry.key, str):
                yield entry.key
            yield entry.value
    elif isinstance(node, Comprehension):
        yield node.iter_range
        yield node.accu_init
        yield node.loop_condition
        yield node.loop_step
        yield node.result
