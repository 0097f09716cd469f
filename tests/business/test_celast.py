"""Reading the runtime's checked expression back: every node kind, positions, macros."""

from __future__ import annotations

import pytest

from jsoncontract.business._cel import CelEnvironment
from jsoncontract.business.celast import (
    ACCUMULATOR,
    Ast,
    AstError,
    Call,
    Comprehension,
    Const,
    CreateList,
    CreateStruct,
    Ident,
    Select,
    children,
    line_column,
    read_checked,
)
from jsoncontract.business.data import Dataset

_ENV = CelEnvironment({"orders": Dataset("orders", frozenset({"A"}), None, "x")})


def _ast(source: str) -> Ast:
    expression = _ENV.compile(source)
    return read_checked(expression.checked.serialize(), source)


def test_constants() -> None:
    ast = _ast("[null, true, -7, 3u, 2.5, 'text', b'\\x00\\xff']")
    assert isinstance(ast.root, CreateList)
    values = [(c.kind, c.value) for c in ast.root.elements if isinstance(c, Const)]
    assert values == [
        ("null", None),
        ("bool", True),
        ("int", -7),
        ("uint", 3),
        ("double", 2.5),
        ("string", "text"),
        ("bytes", b"\x00\xff"),
    ]


def test_select_call_and_positions() -> None:
    source = "self.order_id.startsWith('ORD') && has(self.note)"
    ast = _ast(source)
    assert isinstance(ast.root, Call) and ast.root.function == "_&&_"
    left, right = ast.root.args
    assert isinstance(left, Call) and left.function == "startsWith"
    assert isinstance(left.target, Select) and left.target.field == "order_id"
    assert isinstance(left.target.operand, Ident) and left.target.operand.name == "self"
    assert source[ast.field_offset(left.target) :].startswith("order_id")
    assert isinstance(right, Select) and right.test_only and right.field == "note"


def test_index_optional_and_map_literal() -> None:
    ast = _ast("{'a': self['x'], ?'b': self.?y}.size() > 0")
    call = ast.root
    assert isinstance(call, Call)
    size = call.args[0]
    assert isinstance(size, Call) and isinstance(size.target, CreateStruct)
    first, second = size.target.entries
    assert isinstance(first.value, Call) and first.value.function == "_[_]"
    assert second.optional and isinstance(second.value, Call)
    assert second.value.function == "_?._"


def test_comprehensions_and_macro_names() -> None:
    source = "self.items.all(x, x > 0) && cel.bind(v, 1, v == 1)"
    ast = _ast(source)
    assert isinstance(ast.root, Call)
    every, bind = ast.root.args
    assert isinstance(every, Comprehension) and every.iter_var == "x"
    assert every.accu_var == ACCUMULATOR
    assert ast.macro_name(every) == "all"
    assert isinstance(bind, Comprehension) and bind.accu_var == "v"
    assert ast.macro_name(bind) == "bind"
    assert len(list(children(every))) == 5


def test_qualified_dataset_names_are_resolved() -> None:
    ast = _ast("data.orders.has(self.id) && 'A' in data.orders")
    assert isinstance(ast.root, Call)
    lookup, membership = ast.root.args
    assert isinstance(lookup, Call) and lookup.function == "data.orders.has"
    assert isinstance(membership, Call) and isinstance(membership.args[1], Ident)
    assert membership.args[1].name == "data.orders"


def test_line_column() -> None:
    assert line_column("ab\ncd", 0) == (1, 1)
    assert line_column("ab\ncd", 4) == (2, 2)


def test_garbage_is_an_error() -> None:
    with pytest.raises(AstError):
        read_checked(b"\x0a\x05\xff\xff", "x")
    with pytest.raises(AstError):
        read_checked(b"\x12\x00", "x")
