"""The gates in order: what stops a call, what carries on, and the business slot."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest

from jsoncontract.model import (
    Anomaly,
    ArgumentsForm,
    Dialect,
    Finding,
    Hop,
    Severity,
    Source,
    Stage,
    ToolCall,
    ToolContract,
)
from jsoncontract.pipeline import BusinessGate, Checker, parse_arguments
from jsoncontract.pipeline.checker import first_failure
from jsoncontract.tools import ToolSet

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "days": {"type": "integer", "maximum": 14}},
    "required": ["city"],
    "additionalProperties": False,
}


def tools(*names: str) -> ToolSet:
    return ToolSet(
        ToolContract(name=n, input_schema=SCHEMA, dialect=Dialect.MCP, source=Source("t.json", 1))
        for n in names or ("get_weather",)
    )


def call(
    arguments: Any,
    form: ArgumentsForm = ArgumentsForm.TEXT,
    tool: str | None = "get_weather",
    hop: Hop = Hop.MODEL,
    **kw: Any,
) -> ToolCall:
    return ToolCall(
        hop, Dialect.OPENAI_CHAT, tool, "call_1", arguments, form, Source("c.json", 3), **kw
    )


class RecordingGate:
    def __init__(self, findings: list[Finding]) -> None:
        self.seen: list[Any] = []
        self.findings = findings

    def check(self, call: ToolCall, arguments: Any, tool: ToolContract) -> Iterable[Finding]:
        self.seen.append((call.call_id, arguments, tool.name))
        return self.findings


def business(code: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code=code, severity=severity, message="m", stage=Stage.BUSINESS, path="/city")


def test_a_clean_call_passes_every_gate() -> None:
    result = Checker(tools()).check(call('{"city": "Oslo"}'))
    assert (result.ok, result.stage, result.findings, result.arguments) == (
        True,
        None,
        [],
        {"city": "Oslo"},
    )


@pytest.mark.parametrize(
    ("arguments", "form", "stage", "code"),
    [
        ('```json\n{"city": "Oslo"}\n```', ArgumentsForm.TEXT, Stage.PARSE, "parse.code_fence"),
        ('"{\\"city\\": \\"Oslo\\"}"', ArgumentsForm.TEXT, Stage.PARSE, "parse.double_encoded"),
        ('"hello"', ArgumentsForm.TEXT, Stage.PARSE, "parse.not_object"),
        ("[1]", ArgumentsForm.TEXT, Stage.PARSE, "parse.not_object"),
        ('{"city": "Oslo"}', ArgumentsForm.VALUE, Stage.PARSE, "parse.string_arguments"),
        ("Oslo", ArgumentsForm.VALUE, Stage.PARSE, "parse.not_object"),
        ([], ArgumentsForm.VALUE, Stage.PARSE, "parse.not_object"),
        (None, ArgumentsForm.VALUE, Stage.PARSE, "parse.not_object"),
        (None, ArgumentsForm.MISSING, Stage.PARSE, "parse.missing"),
        ('{"days": 3}', ArgumentsForm.TEXT, Stage.SCHEMA, "schema.required"),
        ({"city": "Oslo", "days": 30}, ArgumentsForm.VALUE, Stage.SCHEMA, "schema.maximum"),
    ],
)
def test_the_first_failing_gate_names_the_failure(
    arguments: Any, form: ArgumentsForm, stage: Stage, code: str
) -> None:
    gate = RecordingGate([business("business.never")])
    result = Checker(tools(), business=gate).check(call(arguments, form))
    assert result.stage is stage
    assert [f.code for f in result.findings] == [code]
    assert gate.seen == []  # business rules never see a call that failed earlier


def test_string_arguments_hint_shows_the_object() -> None:
    result = Checker(tools()).check(call('{"city": "Oslo"}', ArgumentsForm.VALUE, hop=Hop.MCP))
    finding = result.findings[0]
    assert finding.message.startswith("MCP params.arguments is a JSON string")
    assert finding.hint is not None and '{"city":"Oslo"}' in finding.hint


def test_unknown_tool_suggests_the_closest_name() -> None:
    checker = Checker(tools("searchInvoices", "get_weather"))
    typo = checker.check(call("{}", tool="searchInvoice")).findings[0]
    assert (typo.code, typo.hint) == ("envelope.unknown_tool", "did you mean 'searchInvoices'?")
    styled = checker.check(call("{}", tool="search_invoices")).findings[0]
    assert styled.hint == "did you mean 'searchInvoices'?"
    other = checker.check(call("{}", tool="delete_everything")).findings[0]
    assert other.hint == "known tools: searchInvoices, get_weather"


def test_business_findings_follow_the_schema_gate() -> None:
    gate = RecordingGate([business("business.dates")])
    result = Checker(tools(), business=gate).check(call('{"city": "Oslo"}'))
    assert gate.seen == [("call_1", {"city": "Oslo"}, "get_weather")]
    assert result.stage is Stage.BUSINESS
    assert result.findings[0].code == "business.dates"


def test_warnings_do_not_fail_a_call() -> None:
    gate = RecordingGate([business("business.soft", Severity.WARNING)])
    result = Checker(tools(), business=gate).check(call('{"city": "Oslo"}'))
    assert result.ok and result.findings[0].severity is Severity.WARNING


def test_findings_are_located_at_their_call() -> None:
    result = Checker(tools()).check(call('{"days": 3}'))
    finding = result.findings[0]
    assert (finding.hop, finding.tool, finding.call_id, finding.source) == (
        Hop.MODEL,
        "get_weather",
        "call_1",
        Source("c.json", 3),
    )


def test_load_findings_stop_the_call_only_when_errors() -> None:
    warn = Finding(
        code="envelope.missing_call_id",
        severity=Severity.WARNING,
        message="w",
        stage=Stage.ENVELOPE,
    )
    ok = Checker(tools()).check(call('{"city": "Oslo"}', load_findings=[warn]))
    assert ok.ok and [f.code for f in ok.findings] == ["envelope.missing_call_id"]
    error = Finding(
        code="envelope.malformed", severity=Severity.ERROR, message="e", stage=Stage.ENVELOPE
    )
    bad = Checker(tools()).check(call('{"city": "Oslo"}', load_findings=[error]))
    assert bad.stage is Stage.ENVELOPE


def test_parse_arguments_can_accept_non_objects() -> None:
    outcome = parse_arguments(call("[1, 2]"), require_object=False)
    assert (outcome.ok, outcome.value) == (True, [1, 2])


def test_first_failure_ignores_warnings() -> None:
    assert first_failure([business("b", Severity.WARNING)]) is None
    assert (
        first_failure(
            [
                business("b"),
                Finding(code="x", severity=Severity.ERROR, message="", stage=Stage.PARSE),
            ]
        )
        is Stage.PARSE
    )


def test_the_gate_protocol_is_structural() -> None:
    assert isinstance(RecordingGate([]), BusinessGate)


def test_run_streams() -> None:
    results = Checker(tools()).run(iter([call('{"city": "A"}'), call("{")]))
    assert [r.ok for r in results] == [True, False]


@pytest.mark.parametrize(
    ("arguments", "form", "code"),
    [
        ('```json\n{"city": "Oslo", "password": "hunter2"}\n```', ArgumentsForm.TEXT, "code_fence"),
        ('{"city": "Oslo", "password": "hunter2",}', ArgumentsForm.TEXT, "trailing_comma"),
        ("{'city': 'Oslo', 'password': 'hunter2'}", ArgumentsForm.TEXT, "single_quotes"),
        (
            '"{\\"city\\": \\"Oslo\\", \\"password\\": \\"hunter2\\"}"',
            ArgumentsForm.TEXT,
            "double_encoded",
        ),
        ('{"city": "Oslo", "password": "hunter2"}', ArgumentsForm.VALUE, "string_arguments"),
    ],
)
def test_repaired_previews_hash_sensitive_members_unless_asked(
    arguments: str, form: ArgumentsForm, code: str
) -> None:
    (hidden,) = Checker(tools()).check(call(arguments, form)).findings
    assert hidden.code == "parse." + code
    assert hidden.hint is not None and "Oslo" in hidden.hint
    assert "hunter2" not in hidden.hint and "<redacted sha256:" in hidden.hint
    (shown,) = Checker(tools(), show_values=True).check(call(arguments, form)).findings
    assert shown.hint is not None and "hunter2" in shown.hint


def test_arguments_text_already_broken_in_the_capture() -> None:
    # invalid UTF-8 inside an arguments string: the capture loader found it, parse reports it
    anomaly = Anomaly("invalid_utf8", "", "string contains the byte 0xff, which is not UTF-8")
    result = Checker(tools()).check(call('{"city": "Os\udcfflo"}', anomalies=(anomaly,)))
    assert [(f.code, f.path) for f in result.findings] == [("parse.invalid_utf8", "")]
    assert result.stage is Stage.PARSE


@pytest.mark.parametrize("show_values", [False, True])
def test_a_repaired_preview_deeper_than_orjson_writes(show_values: bool) -> None:
    deep = "[" * 300 + "]" * 300
    checker = Checker(tools(), show_values=show_values)
    (found,) = checker.check(call('```json\n{"city": ' + deep + "}\n```")).findings
    assert found.code == "parse.code_fence"
    assert found.hint is not None and found.hint.startswith("strip the ``` fence")
