"""The pure checks of a tools/call answer (reused by the result stage)."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.pipeline.answers import (
    AnswerKind,
    classify,
    error_findings,
    error_object_problems,
    expected_rejection,
    invalid_arguments_findings,
    result_envelope_findings,
    schema_version,
    structured_content_findings,
    unknown_tool_findings,
    version_at_least,
)

OUTPUT = {
    "type": "object",
    "properties": {"total": {"type": "number"}, "currency": {"enum": ["EUR", "USD"]}},
    "required": ["total", "currency"],
    "additionalProperties": False,
}


def _codes(findings: list[Any]) -> list[str]:
    return [f.code for f in findings]


def test_versions_compare_in_release_order() -> None:
    assert version_at_least("2026-07-28", "2025-11-25")
    assert not version_at_least("2025-06-18", "2025-11-25")
    assert version_at_least("2027-01-01", "2026-07-28")  # unknown: compared as dates
    assert schema_version("2025-03-26") == "2025-06-18"
    assert schema_version("2025-11-25") == "2025-11-25"
    assert schema_version("2027-01-01") == "2026-07-28"


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ({"result": {"content": []}}, AnswerKind.ACCEPTED),
        ({"result": {"content": [], "isError": True}}, AnswerKind.TOOL_ERROR),
        ({"error": {"code": -32602, "message": "x"}}, AnswerKind.PROTOCOL_ERROR),
        ({"result": []}, AnswerKind.INVALID),
    ],
)
def test_classify(body: dict[str, Any], kind: AnswerKind) -> None:
    assert classify({"jsonrpc": "2.0", "id": 1, **body}) is kind


def test_error_objects() -> None:
    assert error_object_problems({"code": -32602, "message": "bad"}) == []
    assert error_object_problems({"code": "x", "message": 1}) == [
        "error.code must be an integer, not a JSON string",
        "error.message must be a string, not a JSON integer",
    ]
    assert error_object_problems({"code": True}) == [
        "error.code must be an integer, not a JSON boolean",
        "error has no message",
    ]
    assert error_object_problems("boom") == ["error is not an object"]
    assert _codes(error_findings({"code": -32050, "message": "x"})) == []
    assert _codes(error_findings({"code": -32500, "message": "x"})) == [
        "result.reserved_error_code"
    ]
    assert _codes(error_findings({"message": "x"})) == ["result.malformed_error"]


def test_result_envelope_by_version() -> None:
    good = {"content": [{"type": "text", "text": "ok"}]}
    assert result_envelope_findings(good, "2025-11-25") == []
    (finding,) = result_envelope_findings(good, "2026-07-28")  # resultType is required there
    assert finding.code == "result.envelope" and "resultType" in finding.message
    assert result_envelope_findings({**good, "resultType": "complete"}, "2026-07-28") == []
    bad = result_envelope_findings({"content": "ok", "isError": "no"}, "2025-06-18")
    assert {f.path for f in bad} == {"/content", "/isError"}


def test_structured_content_against_the_output_schema() -> None:
    ok = {"content": [], "structuredContent": {"total": 12.5, "currency": "EUR"}}
    assert structured_content_findings(ok, OUTPUT, "2025-11-25") == []
    wrong = {"content": [], "structuredContent": {"total": "12.50", "currency": "GBP"}}
    findings = structured_content_findings(wrong, OUTPUT, "2025-11-25", tool="order_summary")
    assert {(f.code, f.path, f.keyword) for f in findings} == {
        ("result.structured_content", "/structuredContent/total", "type"),
        ("result.structured_content", "/structuredContent/currency", "enum"),
    }
    assert all(f.tool == "order_summary" for f in findings)
    missing = structured_content_findings({"content": []}, OUTPUT, "2025-11-25")
    assert _codes(missing) == ["result.structured_content_missing"]
    errored = {"content": [], "isError": True}  # a failure is not output
    assert structured_content_findings(errored, OUTPUT, "2025-11-25") == []
    assert structured_content_findings(ok, None, "2025-11-25") == []
    broken = structured_content_findings(ok, {"type": "objekt"}, "2025-11-25")
    assert _codes(broken) == ["result.output_schema_invalid"]


def test_the_right_rejection_depends_on_the_version() -> None:
    assert expected_rejection("2025-06-18") is AnswerKind.PROTOCOL_ERROR
    assert expected_rejection("2025-11-25") is AnswerKind.TOOL_ERROR
    assert invalid_arguments_findings(AnswerKind.TOOL_ERROR, None, "2026-07-28") == []
    assert invalid_arguments_findings(AnswerKind.PROTOCOL_ERROR, -32602, "2025-06-18") == []
    (late,) = invalid_arguments_findings(AnswerKind.PROTOCOL_ERROR, -32602, "2026-07-28")
    assert "isError" in late.message and late.code == "result.invalid_arguments_answer"
    (early,) = invalid_arguments_findings(AnswerKind.TOOL_ERROR, None, "2025-06-18")
    assert "-32602" in early.message
    (internal,) = invalid_arguments_findings(AnswerKind.PROTOCOL_ERROR, -32603, "2025-06-18")
    assert "answers them with -32602" in internal.message
    assert invalid_arguments_findings(AnswerKind.ACCEPTED, None, "2025-06-18") == []


def test_an_unknown_tool_is_a_protocol_error() -> None:
    assert unknown_tool_findings(AnswerKind.PROTOCOL_ERROR, -32602, "2026-07-28") == []
    (soft,) = unknown_tool_findings(AnswerKind.TOOL_ERROR, None, "2026-07-28")
    assert soft.severity.value == "warning"
    (hard,) = unknown_tool_findings(AnswerKind.ACCEPTED, None, "2025-06-18")
    assert hard.severity.value == "error" and "was accepted" in hard.message


def test_an_unknown_tool_that_gets_no_answer_is_said_in_plain_words() -> None:
    said = {
        kind: unknown_tool_findings(kind, None, "2025-11-25")[0]
        for kind in (AnswerKind.TIMEOUT, AnswerKind.CRASHED, AnswerKind.INVALID)
    }
    assert said[AnswerKind.TIMEOUT].message == (
        "a call of a tool that does not exist got no answer in time; every version answers "
        "it with a JSON-RPC error"
    )
    assert said[AnswerKind.CRASHED].message == (
        "a call of a tool that does not exist crashed the server (the connection ended); "
        "every version answers it with a JSON-RPC error"
    )
    assert said[AnswerKind.INVALID].message.startswith(
        "a call of a tool that does not exist was answered with something that is not a "
        "JSON-RPC response"
    )
