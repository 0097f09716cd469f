"""The schema-aware checker: what it reports, and that the runtime agrees.

Every expression below is checked against ORDER (a tool schema), and its problem codes
are compared with the ones expected. Then each expression is evaluated by the real CEL
runtime on every payload in PAYLOADS (all valid against ORDER): an expression the checker
calls a type error must fail on every payload that reaches it, a number-mixing error on
some, an optional-field warning must fail on some payload without the field, and an
expression the checker passes must never fail for a reason the checker knows about
(no overload, no such key, selecting from a non-map).
"""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.business._cel import CelEnvironment
from jsoncontract.business.celast import read_checked
from jsoncontract.business.celcheck import Binding, CelChecker
from jsoncontract.business.celtypes import TIMESTAMP, SchemaTyper
from jsoncontract.validation import CompiledSchema

ORDER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^ORD-[0-9]{4}$"},
        "amount": {"type": "number"},
        "count": {"type": "integer", "minimum": 0},
        "priority": {"type": "string", "enum": ["standard", "expedited", "overnight"]},
        "notify": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        "lines": {
            "type": "array",
            "maxItems": 20,
            "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                "required": ["sku"],
                "additionalProperties": False,
            },
        },
        "address": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "zip": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
        "meta": {"type": "object"},
        "labels": {"type": "object", "additionalProperties": {"type": "string"}},
        "start": {"type": "string", "format": "date"},
    },
    "required": ["order_id", "amount", "priority", "start"],
    "additionalProperties": False,
}

PAYLOADS: list[dict[str, Any]] = [
    {"order_id": "ORD-0001", "amount": 5, "priority": "standard", "start": "2025-01-31"},
    {
        "order_id": "ORD-0002",
        "amount": 12.5,
        "count": 3,
        "priority": "expedited",
        "notify": True,
        "note": None,
        "tags": ["a", "b"],
        "lines": [{"sku": "X", "qty": 2}, {"sku": "Y"}],
        "address": {"city": "Lisbon"},
        "meta": {"source": "web"},
        "labels": {"env": "prod"},
        "start": "2025-02-28",
    },
    {
        "order_id": "ORD-0003",
        "amount": 0,
        "count": 0,
        "priority": "overnight",
        "notify": False,
        "note": "leave at the door",
        "tags": [],
        "lines": [],
        "address": {"city": "Porto", "zip": "4000"},
        "meta": {},
        "labels": {},
        "start": "2024-12-01",
    },
]

#: expression -> the problem codes it must give (in any order).
EXPECTED: dict[str, set[str]] = {
    # fields
    "self.order_id == 'ORD-0001'": set(),
    "self.order_idd == 'x'": {"unknown-field"},
    "has(self.adress)": {"unknown-field"},
    "self.address.city == 'Lisbon'": {"optional-field"},
    "has(self.address) && self.address.city == 'Lisbon'": set(),
    "self.address.city == 'Lisbon' && has(self.address)": set(),
    "!has(self.address) || self.address.city != ''": set(),
    "has(self.address) ? self.address.city != '' : true": set(),
    "has(self.address) ? true : self.address.city != ''": {"optional-field"},
    "'address' in self && self.address.city != ''": set(),
    "has(self.address) && self.address.zip != ''": {"optional-field"},
    "has(self.address.zip) && self.address.zip != ''": {"optional-field"},
    "has(self.address) && has(self.address.zip) && self.address.zip.size() > 2": set(),
    "self.?address.zip.orValue('') == ''": set(),
    "self.address.cty == 'x'": {"optional-field", "unknown-field"},
    "has(self.meta) && self.meta.source == 'web'": {"optional-field"},
    "has(self.meta) && has(self.meta.source) && self.meta.source == 'web'": set(),
    "has(self.labels) && self.labels.env == 'prod'": {"optional-field"},
    "self.order_id.x == 1": {"type-mismatch"},
    "self['order_id'] == 'ORD-0001'": set(),
    "self['order_idd'] == 'x'": {"unknown-field"},
    # operators
    "self.order_id + 1 == 2": {"type-mismatch"},
    "self.order_id + 'x' != ''": set(),
    "self.amount > 0": set(),
    "self.amount >= 0.5 || self.amount < 1": set(),
    "self.amount + 1 > 0": {"number-mixing"},
    "self.amount * 2.0 > 0.0": {"number-mixing"},
    "double(self.amount) * 2.0 >= 0.0": set(),
    "-self.amount <= 0": set(),
    "string(self.amount) != ''": set(),
    "math.ceil(self.amount) >= 0.0": {"number-mixing"},
    "math.greatest(self.amount, 1) > 0": set(),
    "math.greatest(self.order_id, 1) > 0": {"type-mismatch"},
    "math.least([self.amount, 0]) <= 0": set(),
    "has(self.count) && self.count + 1 > 0": set(),
    "has(self.count) && self.count % 2 == 0 || true": set(),
    "self.priority > 1": {"type-mismatch"},
    "self.order_id + self.amount != ''": {"type-mismatch"},
    "self.order_id.startsWith('ORD')": set(),
    "self.order_id.contains(self.amount)": {"type-mismatch"},
    "self.order_id.lowerAscii().startsWith('ord')": set(),
    "int(self.order_id.substring(4)) > 0": set(),
    "date(self.start) < timestamp('2030-01-01T00:00:00Z')": set(),
    "timestamp(self.start) < timestamp('2030-01-01T00:00:00Z')": {"type-mismatch"},
    "date(self.start) - date('2024-01-01') > days(1)": set(),
    "date(self.start) + self.amount > date('2024-01-01')": {"type-mismatch"},
    # equality
    "self.priority == 1": {"type-mismatch"},
    "self.priority != 'expeditd'": {"type-mismatch"},
    "self.priority == 'expedited'": set(),
    "self.priority in ['standard', 'overnite']": {"type-mismatch"},
    "self.priority in ['standard', 'overnight']": set(),
    "self.amount == 5": set(),
    "self.amount == '5'": {"type-mismatch"},
    "self.order_id != null": set(),
    # lists and comprehensions
    "!has(self.tags) || self.tags.all(t, t.size() < 10)": set(),
    "!has(self.tags) || self.tags.all(t, t > 1)": {"type-mismatch"},
    "!has(self.tags) || size(self.tags) <= 5": set(),
    "!has(self.lines) || self.lines.all(l, l.sku != '')": set(),
    "!has(self.lines) || self.lines.all(l, l.qty > 0)": {"optional-field"},
    "!has(self.lines) || self.lines.all(l, !has(l.qty) || l.qty > 0)": set(),
    "!has(self.lines) || self.lines.all(l, l.skuu != '')": {"unknown-field"},
    "!has(self.lines) || self.lines.map(l, l.sku).all(s, s.size() > 0)": set(),
    "!has(self.lines) || self.lines.map(l, l.sku).all(s, s > 0)": {"type-mismatch"},
    "!has(self.lines) || self.lines.filter(l, has(l.qty)).all(l, l.sku != '')": set(),
    "!has(self.lines) || self.lines.exists_one(l, l.sku == 'X') || true": set(),
    "self.order_id.all(c, c == 'a')": {"type-mismatch"},
    "!has(self.tags) || 'a' in self.tags": set(),
    "!has(self.tags) || 1 in self.tags": {"type-mismatch"},
    "'ORD' in self.order_id": {"type-mismatch"},
    "!has(self.tags) || self.tags[0] != '' || true": set(),
    "!has(self.tags) || self.tags['a'] != ''": {"type-mismatch"},
    # nullable
    "!has(self.note) || self.note.size() > 0": {"nullable-field"},
    "!has(self.note) || self.note == null || self.note.size() > 0": set(),
    "!has(self.note) || (self.note != null && self.note.size() > 0) || true": set(),
    # bind, optional, results
    "cel.bind(a, self.address, a.city != '')": {"optional-field"},
    "has(self.address) && cel.bind(a, self.address, a.city != '')": set(),
    "has(self.address) && cel.bind(a, self.address, has(a.zip) && a.zip != '')": set(),
    "self.?count.orValue(0) >= 0": set(),
    "self.?notify.orValue(false)": set(),
    "self.order_id.size()": {"result-type"},
    "self.notify": {"optional-field"},
    "has(self.notify) && self.notify": set(),
    # other variables
    "call.tool == 'order'": set(),
    "call.tol == 'order'": {"unknown-field"},
    "call.hop == 'modle'": {"type-mismatch"},
    "context.role == 'ops' || true": set(),
    "now > date(self.start)": set(),
}


def _env() -> CelEnvironment:
    return CelEnvironment({})


_ENV = _env()
_ARGS = SchemaTyper(ORDER).type_of(ORDER)
_VALID = CompiledSchema(ORDER)


def _check(source: str) -> list[Any]:
    from jsoncontract.business.static import RuleTypes, check_expression

    expression = _ENV.compile(source)
    bindings = {"self": Binding(_ARGS, ("args",)), "args": Binding(_ARGS, ("args",))}
    types = RuleTypes(bindings, frozenset())
    return check_expression(expression, types, {}, wanted="bool").problems


def test_payloads_are_valid() -> None:
    for payload in PAYLOADS:
        assert _VALID.is_valid(payload), payload


@pytest.mark.parametrize("source", list(EXPECTED))
def test_problems(source: str) -> None:
    codes = {p.code for p in _check(source)}
    assert codes == EXPECTED[source]


_KNOWN_FAILURES = (
    "No matching overloads",
    "no such key",
    "non-message",
    "Index error",
    "conversion failed",
)


def _evaluate(source: str, payload: dict[str, Any]) -> tuple[Any, str | None]:
    import datetime

    expression = _ENV.compile(source)
    activation = _ENV.activation(
        {
            "self": payload,
            "args": payload,
            "context": {},
            "call": {"tool": "order", "hop": "model", "call_id": None, "dialect": None},
            "now": datetime.datetime(2025, 6, 1, tzinfo=datetime.UTC),
        }
    )
    return _ENV.evaluate(expression, activation)


#: Errors about comparisons that never hold: the runtime answers, always the same way.
NEVER_HOLDS: frozenset[str] = frozenset(
    {
        "self.priority == 1",
        "self.priority != 'expeditd'",
        "self.priority in ['standard', 'overnite']",
        "self.amount == '5'",
        "call.hop == 'modle'",
        "has(self.adress)",
        "!has(self.tags) || 1 in self.tags",
    }
)


@pytest.mark.parametrize("source", list(EXPECTED))
def test_the_runtime_agrees(source: str) -> None:
    codes = {p.code for p in _check(source)}
    outcomes = [_evaluate(source, payload) for payload in PAYLOADS]
    known = [e for _, e in outcomes if e is not None and any(k in e for k in _KNOWN_FAILURES)]
    if source in NEVER_HOLDS:
        assert codes in ({"type-mismatch"}, {"unknown-field"}) and not known
        if " in " not in source:
            assert len({repr(v) for v, _ in outcomes}) == 1
    elif codes & {"type-mismatch", "unknown-field", "number-mixing"}:
        assert known, "the checker calls it an error, but no payload fails"
        if "number-mixing" in codes:
            assert any(e is None for _, e in outcomes), "it should pass for some numbers"
    elif codes & {"optional-field", "nullable-field"}:
        assert known, "the checker warns, but no payload without the field fails"
    else:
        assert not known, f"the checker passed it, but the runtime failed: {known}"


def test_offsets_point_at_the_field() -> None:
    source = "self.address.cty == 'x'"
    [unknown] = [p for p in _check(source) if p.code == "unknown-field"]
    assert source[unknown.offset :].startswith("cty")
    assert unknown.suggestion == "city"
    assert "did you mean 'city'?" in unknown.message
    [optional] = [p for p in _check(source) if p.code == "optional-field"]
    assert source[optional.offset :].startswith("address")


def test_number_mixing_says_what_to_do() -> None:
    [problem] = _check("self.amount + 1 > 0")
    assert "self.amount is a JSON number" in problem.message
    assert problem.hint == "convert it first: double(self.amount) (or int(self.amount))"


def test_enum_typo_suggests_the_value() -> None:
    [problem] = _check("self.priority == 'expeditd'")
    assert problem.suggestion == "expedited"
    assert "always false" in problem.message


def test_result_type_is_named() -> None:
    [problem] = _check("self.order_id.size()")
    assert problem.message == "must give a bool, but it gives an int"


def test_without_a_schema_nothing_is_reported() -> None:
    from jsoncontract.business.celtypes import DYN

    expression = _ENV.compile("self.anything.goes + 1 > 0 && self.x.y.z == 'a'")
    ast = read_checked(expression.checked.serialize(), expression.source)
    checked = CelChecker(ast, {"self": Binding(DYN, ("args",)), "now": Binding(TIMESTAMP)}).check()
    assert checked.problems == []
