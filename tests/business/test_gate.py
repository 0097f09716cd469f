"""How the gate evaluates rules: scopes, absent fields, run-time errors, context, Python rules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from jsoncontract.business import BusinessRules
from jsoncontract.model import Hop, Severity

Build = Callable[..., BusinessRules]


def test_scoped_rule_is_not_evaluated_when_its_field_is_absent_or_null(
    gate_from: Build, bz: Any
) -> None:
    gate = gate_from(
        """
        [[tools.t]]
        id = "amount-positive"
        scope = "/price"
        rule = "self.amount > 0"
        """
    )
    assert bz.run(gate, "t", {}) == []
    assert bz.run(gate, "t", {"price": None}) == []
    assert bz.run(gate, "t", {"price": {"amount": 3}}) == []
    (finding,) = bz.run(gate, "t", {"price": {"amount": -3}})
    assert (finding.code, finding.path) == ("business.amount-positive", "/price")


def test_unscoped_rule_reading_an_absent_field_is_a_finding_with_a_hint(
    gate_from: Build, bz: Any
) -> None:
    gate = gate_from('[[tools.t]]\nid = "amount-positive"\nrule = "self.price.amount > 0"\n')
    (finding,) = bz.run(gate, "t", {"other": 1})
    assert finding.code == "business.amount-positive"
    assert finding.severity is Severity.ERROR
    assert finding.keyword == "evaluation_error"
    assert finding.message == 'rule could not be evaluated: no such key: "price"'
    assert finding.hint is not None and "has(self.price)" in finding.hint


def test_has_guards_an_optional_field(gate_from: Build, bz: Any) -> None:
    gate = gate_from('[[tools.t]]\nid = "p"\nrule = "!has(self.price) || self.price.amount > 0"\n')
    assert bz.run(gate, "t", {}) == []
    assert bz.codes(bz.run(gate, "t", {"price": {"amount": 0}})) == ["business.p"]


def test_run_time_error_on_one_payload_does_not_stop_the_next(gate_from: Build, bz: Any) -> None:
    gate = gate_from('[[tools.t]]\nid = "n"\nrule = "self.n > 0"\n')
    (error,) = bz.run(gate, "t", {"n": "three"})
    assert error.keyword == "evaluation_error"
    assert "no matching overload" in error.message.lower()
    assert bz.run(gate, "t", {"n": 3}) == []


def test_rule_that_gives_no_bool_at_run_time(gate_from: Build, bz: Any) -> None:
    gate = gate_from('[[tools.t]]\nid = "dyn"\nrule = "self.flag"\n')
    assert bz.run(gate, "t", {"flag": True}) == []
    (finding,) = bz.run(gate, "t", {"flag": "yes"})
    assert (
        finding.message
        == "rule could not be evaluated: the rule gave a string 'yes', not true or false"
    )


def test_wildcard_scope_checks_every_item_and_points_at_it(gate_from: Build, bz: Any) -> None:
    gate = gate_from(
        """
        [[tools.t]]
        id = "qty"
        scope = "/lines/*"
        rule = "self.qty > 0"
        fieldPath = "/qty"
        messageExpression = "'quantity must be positive, got ' + string(self.qty)"
        """
    )
    findings = bz.run(gate, "t", {"lines": [{"qty": 1}, {"qty": 0}, {"qty": 2}, {"qty": -1}]})
    assert [(f.path, f.message) for f in findings] == [
        ("/lines/1/qty", "quantity must be positive, got 0"),
        ("/lines/3/qty", "quantity must be positive, got -1"),
    ]
    assert bz.run(gate, "t", {"lines": []}) == []


def test_args_and_call_and_hops(gate_from: Build, bz: Any) -> None:
    gate = gate_from(
        """
        [[tools.t]]
        id = "sibling"
        scope = "/end"
        rule = "self >= args.start"
        [[tools.t]]
        id = "downstream-only"
        hops = ["downstream"]
        rule = "call.hop == 'downstream' && false"
        """
    )
    assert bz.run(gate, "t", {"start": 2, "end": 3}) == []
    assert bz.codes(bz.run(gate, "t", {"start": 5, "end": 3})) == ["business.sibling"]
    downstream = bz.run(gate, "t", {"start": 1, "end": 3}, hop=Hop.DOWNSTREAM)
    assert bz.codes(downstream) == ["business.downstream-only"]


def test_message_defaults_and_message_expression_failure(gate_from: Build, bz: Any) -> None:
    gate = gate_from(
        """
        [[tools.t]]
        id = "plain"
        rule = "self.n < 10"
        [[tools.t]]
        id = "broken-message"
        rule = "self.n < 5"
        message = "n is too big"
        messageExpression = "'n is ' + self.missing"
        """
    )
    plain, broken = bz.run(gate, "t", {"n": 20})
    assert plain.message == "rule 'plain' does not hold: self.n < 10"
    assert broken.code == "business.broken-message"
    assert broken.message.startswith("n is too big (messageExpression: no such key")


def test_context_layers_and_record_context(gate_from: Build, bz: Any) -> None:
    gate = gate_from(
        "[[tools.t]]\nid = \"ops\"\nrule = \"context.role == 'ops' && context.tenant == 'acme'\"\n",
        context={"role": "support", "tenant": "acme"},
    )
    assert bz.codes(bz.run(gate, "t", {})) == ["business.ops"]
    assert bz.run(gate, "t", {}, context={"role": "ops"}) == []


def test_now_comes_from_the_context(gate_from: Build, bz: Any) -> None:
    gate = gate_from(
        '[[tools.t]]\nid = "future"\nrule = "date(self.day) > now"\n',
        context={"now": "2025-10-31T12:00:00Z"},
    )
    assert bz.run(gate, "t", {"day": "2025-11-01"}) == []
    assert bz.codes(bz.run(gate, "t", {"day": "2025-10-01"})) == ["business.future"]
    assert bz.codes(bz.run(gate, "t", {"day": "2025-11-01"}, context={"now": "2026-01-01"})) == [
        "business.future"
    ]


def test_sensitive_values_are_hashed_in_messages(gate_from: Build, bz: Any) -> None:
    rules = """
        [[tools.t]]
        id = "corporate-email"
        rule = "self.email.endsWith('@acme.com')"
        messageExpression = "self.email + ' is not a company address'"
        fieldPath = "/email"
        """
    hidden = bz.run(gate_from(rules), "t", {"email": "bob@gmail.com"})
    assert "bob@gmail.com" not in hidden[0].message
    assert "<redacted sha256:" in hidden[0].message
    shown = bz.run(gate_from(rules, show_values=True), "t", {"email": "bob@gmail.com"})
    assert shown[0].message == "bob@gmail.com is not a company address"


def test_strings_inside_a_sensitive_object_are_hashed_in_messages(
    gate_from: Build, bz: Any
) -> None:
    # the same members a quoted value would hide: everything inside "credentials"
    rules = """
        [[tools.t]]
        id = "admin-login"
        rule = "self.credentials.user != 'root'"
        messageExpression = "'login as ' + self.credentials.user + ' refused'"
        """
    (finding,) = bz.run(gate_from(rules), "t", {"credentials": {"user": "root"}})
    assert "root" not in finding.message
    assert finding.message.startswith("login as <redacted sha256:")


def test_severity_reason_hint(gate_from: Build, bz: Any) -> None:
    gate = gate_from(
        """
        [[tools.t]]
        id = "w"
        rule = "false"
        severity = "warning"
        reason = "FieldValueForbidden"
        hint = "do something"
        """
    )
    (finding,) = bz.run(gate, "t", {})
    assert (finding.severity, finding.keyword, finding.hint) == (
        Severity.WARNING,
        "FieldValueForbidden",
        "do something",
    )


# -- Python rules ---------------------------------------------------------------------------

PY_RULES = """
[[tools.t]]
id = "py"
python = "hooks:{name}"
message = "default message"
timeout = 0.2
"""

HOOKS = """
import threading
release = threading.Event()

def ok(arguments, context):
    return None

def says_false(arguments, context):
    return arguments.get("good", False)

def many(arguments, context):
    return ["first", {"message": "second", "path": "/x", "severity": "warning", "hint": "h"}]

def raises(arguments, context):
    raise KeyError("customer")

def junk(arguments, context):
    return 42

def bad_path(arguments, context):
    return {"message": "m", "path": "x"}

def hangs(arguments, context):
    release.wait(5)

def mutates(arguments, context):
    arguments.pop("y")
    arguments["nested"]["a"] = 2
    context["role"] = "intern"
    context["tenant"]["id"] = "other"

def sees_context(arguments, context):
    return None if context.get("role") == "ops" else "role " + str(context.get("role"))
"""


@pytest.fixture
def python_gate(gate_from: Build) -> Callable[..., BusinessRules]:
    def build(name: str, **kwargs: Any) -> BusinessRules:
        return gate_from(PY_RULES.format(name=name), files={"hooks.py": HOOKS}, **kwargs)

    return build


def test_python_rule_passes_and_fails(python_gate: Callable[..., BusinessRules], bz: Any) -> None:
    assert bz.run(python_gate("ok"), "t", {}) == []
    gate = python_gate("says_false")
    assert bz.run(gate, "t", {"good": True}) == []
    (finding,) = bz.run(gate, "t", {"good": False})
    assert (finding.code, finding.message) == ("business.py", "default message")


def test_python_rule_returns_several_findings(
    python_gate: Callable[..., BusinessRules], bz: Any
) -> None:
    first, second = bz.run(python_gate("many"), "t", {})
    assert (first.message, first.path, first.severity) == ("first", "", Severity.ERROR)
    assert (second.message, second.path, second.severity, second.hint) == (
        "second",
        "/x",
        Severity.WARNING,
        "h",
    )


def test_python_rule_that_raises_is_a_finding_naming_the_rule(
    python_gate: Callable[..., BusinessRules], bz: Any
) -> None:
    gate = python_gate("raises")
    (finding,) = bz.run(gate, "t", {})
    assert finding.code == "business.py"
    assert finding.keyword == "evaluation_error"
    assert finding.message == "python rule t/py: raised KeyError: 'customer'"
    (again,) = bz.run(gate, "t", {})  # the run goes on
    assert again.code == "business.py"


@pytest.mark.parametrize("name", ["junk", "bad_path"])
def test_python_rule_returning_junk(
    python_gate: Callable[..., BusinessRules], bz: Any, name: str
) -> None:
    (finding,) = bz.run(python_gate(name), "t", {})
    assert finding.code == "business.py"
    assert "returned" in finding.message and "expected None/True" in finding.message


def test_python_rule_that_hangs_hits_its_time_limit_then_is_not_run_again(
    python_gate: Callable[..., BusinessRules], bz: Any
) -> None:
    import sys

    gate = python_gate("hangs")
    try:
        (finding,) = bz.run(gate, "t", {})
        assert finding.message == "python rule t/py: did not return within 0.2 s (time limit)"
        (later,) = bz.run(gate, "t", {})
        assert "not run: it overran its 0.2 s limit on an earlier call" in later.message
    finally:
        sys.modules["hooks"].release.set()
        gate.close()


def test_python_rule_gets_the_context(python_gate: Callable[..., BusinessRules], bz: Any) -> None:
    gate = python_gate("sees_context", context={"role": "ops"})
    assert bz.run(gate, "t", {}) == []
    (finding,) = bz.run(gate, "t", {}, context={"role": "intern"})
    assert finding.message == "role intern"


def test_python_rule_cannot_change_what_later_rules_and_the_report_see(
    gate_from: Build, bz: Any
) -> None:
    gate = gate_from(
        """
        [[tools.t]]
        id = "py"
        python = "hooks:mutates"

        [[tools.t]]
        id = "arguments-after"
        rule = "self.y == 1 && self.nested.a == 1"

        [[tools.t]]
        id = "context-after"
        rule = "context.role == 'ops' && context.tenant.id == 'acme'"
        """,
        files={"hooks.py": HOOKS},
        context={"role": "ops", "tenant": {"id": "acme"}},
    )
    arguments = {"y": 1, "nested": {"a": 1}}
    assert bz.run(gate, "t", arguments) == []
    assert arguments == {"y": 1, "nested": {"a": 1}}
    assert gate.context == {"role": "ops", "tenant": {"id": "acme"}}


def test_findings_on_deeply_nested_arguments(gate_from: Build, bz: Any) -> None:
    gate = gate_from('[[tools.t]]\nid = "owner"\nrule = "self.owner != \'\'"\n')
    deep: Any = "secret-value"
    for _ in range(1000):
        deep = [deep]
    (finding,) = bz.run(gate, "t", {"token": deep})
    assert finding.message == 'rule could not be evaluated: no such key: "owner"'


def test_an_evaluation_over_the_runtime_limit_is_a_finding_not_a_crash(
    gate_from: Build, bz: Any
) -> None:
    from jsoncontract.business.cost import RUNTIME_ITERATIONS

    gate = gate_from(
        '[[tools.t]]\nid = "distinct"\nrule = "self.xs.all(x, self.xs.exists_one(y, y == x))"\n'
    )
    assert bz.run(gate, "t", {"xs": list(range(50))}) == []
    (finding,) = bz.run(gate, "t", {"xs": list(range(200))})  # 200 x 200 steps
    assert finding.code == "business.distinct" and finding.keyword == "evaluation_error"
    assert finding.message == (
        "rule could not be evaluated: stopped at the run-time limit of "
        f"{RUNTIME_ITERATIONS:,} comprehension steps in one evaluation (the lists it "
        "iterates are too long)"
    )
    assert bz.run(gate, "t", {"xs": [1, 2]}) == []  # the next call is checked as usual


def test_the_runtime_limit_is_what_the_estimator_says(gate_from: Build, bz: Any) -> None:
    from jsoncontract.business.cost import RUNTIME_ITERATIONS

    gate = gate_from('[[tools.t]]\nid = "all"\nrule = "self.xs.all(x, x >= 0)"\n')
    assert bz.run(gate, "t", {"xs": [0] * (RUNTIME_ITERATIONS - 1)}) == []
    (finding,) = bz.run(gate, "t", {"xs": [0] * RUNTIME_ITERATIONS})
    assert "run-time limit" in finding.message


def test_a_result_the_runtime_cannot_hand_back_is_a_finding(gate_from: Build, bz: Any) -> None:
    gate = gate_from('[[tools.t]]\nid = "odd"\nrule = "dyn(self.?a)"\n')
    (finding,) = bz.run(gate, "t", {"a": 1})
    assert finding.keyword == "evaluation_error"
    assert finding.message == (
        "rule could not be evaluated: the result cannot be read back (an optional or "
        "another CEL-only value)"
    )
