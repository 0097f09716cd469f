"""The CEL environment: extra functions, dataset lookups, and the membership rewrite."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.business._cel import CelCompileError, CelEnvironment, rewrite_membership
from jsoncontract.business.data import Dataset

ORDERS = Dataset(
    "orders", frozenset({"A", "B"}), {"A": {"status": "open"}, "B": {"status": "shipped"}}, "x"
)


@pytest.fixture(scope="module")
def env() -> CelEnvironment:
    return CelEnvironment({"orders": ORDERS, "cur": Dataset("cur", frozenset({"EUR"}), None, "y")})


def evaluate(env: CelEnvironment, source: str, **variables: Any) -> Any:
    import datetime

    variables.setdefault("now", datetime.datetime(2025, 10, 31, tzinfo=datetime.UTC))
    expression = env.compile(source)
    bindings = {**env.dataset_values(), **variables}
    return env.evaluate(expression, env.activation(bindings))


@pytest.mark.parametrize(
    ("source", "variables", "expected"),
    [
        ("self.id in data.orders", {"self": {"id": "A"}}, True),
        ("self.id in data.orders", {"self": {"id": "Z"}}, False),
        ("data.orders.has(self.id)", {"self": {"id": "B"}}, True),
        ("data.orders.get(self.id).status == 'shipped'", {"self": {"id": "B"}}, True),
        ("data.orders.get('Z') == null", {}, True),
        ("'EUR' in data.cur", {}, True),
        ("size(data.orders) == 2", {}, True),
        ("date('2025-10-31') - date('2025-10-01') == days(30)", {}, True),
        ("date('2025-10-30T10:00:00+02:00') < now", {}, True),
        ("self.?missing.orValue(7) == 7", {"self": {}}, True),
        ("self.name.lowerAscii() == 'zürich'", {"self": {"name": "ZüRICH"}}, True),
        ("self.i == 1.0 && self.i < 1.5", {"self": {"i": 1}}, True),
    ],
)
def test_expressions(
    env: CelEnvironment, source: str, variables: dict[str, Any], expected: Any
) -> None:
    assert evaluate(env, source, **variables) == (expected, None)


def test_runtime_errors_read_well(env: CelEnvironment) -> None:
    assert evaluate(env, "self.x > 1", self={}) == (None, 'no such key: "x"')
    value, error = evaluate(env, "date(self.d) < now", self={"d": "31/10/2025"})
    assert value is None and error is not None and "Invalid isoformat" in error


def test_compile_errors(env: CelEnvironment) -> None:
    with pytest.raises(CelCompileError) as caught:
        env.compile("self.a &&& true")
    assert (caught.value.line, caught.value.column) == (1, 10)
    with pytest.raises(CelCompileError, match=r"undeclared reference to 'data\.nope'"):
        env.compile("self.a in data.nope")


@pytest.mark.parametrize(
    ("source", "rewritten"),
    [
        ("self.id in data.orders", "data.orders.has(self.id)"),
        ("x || self.a.b in data.orders && y", "x || data.orders.has(self.a.b) && y"),
        ("(args.id in data.orders)", "(data.orders.has(args.id))"),
        ("self.id in data.orders == true", "data.orders.has(self.id) == true"),
        ("!(self.id in data.orders)", "!(data.orders.has(self.id))"),
        ("context.t in data.cur ? 1 : 2", "data.cur.has(context.t) ? 1 : 2"),
        # left as written: the left side is not a plain field path, or the neighbours bind tighter
        ("!self.id in data.orders", "!self.id in data.orders"),
        ("self.a + self.b in data.orders", "self.a + self.b in data.orders"),
        ("self.id in data.orders.x", "self.id in data.orders.x"),
        ("self.id in data.orders + ['x']", "self.id in data.orders + ['x']"),
        ("'self.id in data.orders' == s", "'self.id in data.orders' == s"),
        ("self.id in data.ordersX", "self.id in data.ordersX"),
        ("a == self.id in data.orders", "a == self.id in data.orders"),
        ("self.id in data.unknown", "self.id in data.unknown"),
    ],
)
def test_membership_rewrite(source: str, rewritten: str) -> None:
    assert rewrite_membership(source, ["orders", "cur"]) == rewritten
