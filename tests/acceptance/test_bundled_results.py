"""The bundled example of the return leg (``fixtures/results``): a conversation per
provider, an MCP session, the HTTP exchanges behind the tools and an OpenTelemetry export
of the same agent run, whose results pass and break in every way the result stage and the
run's contracts check."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract import check
from jsoncontract.business import load_business
from jsoncontract.diff import diff
from jsoncontract.model import CheckReport
from jsoncontract.pipeline import codes
from jsoncontract.reporters import ReportOptions, reporter_class
from jsoncontract.tools import ToolSet
from tests.acceptance import agent_run
from tests.conftest import REPO

BUNDLE = REPO / "fixtures" / "results"
CONVERSATIONS = sorted((BUNDLE / "conversations").iterdir())
#: Codes the bundle does not show, and where they are shown instead.
ELSEWHERE = {
    "result.output_schema_invalid": "tests/pipeline/test_answers.py (a broken outputSchema)",
    "session.late_result": "tests/capture/test_ledger.py (a result past the window)",
    "session.conflicting_result": "tests/capture/test_call_identity.py (two tool messages)",
    "session.reused_call_id": "tests/capture/test_call_identity.py (one id, four calls)",
}
#: Calls whose results keep every contract: the result stage says nothing of them.
CLEAN = {
    "openai-chat.jsonl": ["call_Lk3v8QwZ1"],
    "openai-responses.json": ["call_Hs2"],
    "anthropic.json": ["toolu_02Lq"],
    "gemini.json": ["g-1"],
    "mcp.jsonl": ["2", "12"],
}


def _check(paths: list[Path], base: Path = BUNDLE) -> CheckReport:
    tools = ToolSet.from_paths([base / "tools.json"])
    business = load_business([base / "rules.toml"], tools=tools)
    try:
        return check(paths, tools=tools, tool="refund_payment", business=business)
    finally:
        business.close()


@pytest.fixture(scope="module")
def report() -> CheckReport:
    return _check([*CONVERSATIONS, BUNDLE / "otel.jsonl"])


def _every(report: CheckReport) -> list[Any]:
    return [f for r in report.results for f in r.findings] + list(report.findings)


def test_every_result_and_session_code_fires(report: CheckReport) -> None:
    seen = {f.code for f in _every(report)}
    wanted = set(codes.RESULT_CODES) | set(codes.SESSION_CODES)
    assert wanted - seen == set(ELSEWHERE)
    assert not seen & set(ELSEWHERE)


def test_good_results_stay_silent(report: CheckReport) -> None:
    named = Counter(
        (Path(f.source.file).name if f.source else None, f.call_id)
        for f in _every(report)
        if f.code.startswith("result.")
    )
    calls = {(Path(r.call.source.file).name, r.call.call_id): r for r in report.results}
    for file, ids in CLEAN.items():
        for call_id in ids:
            result = calls[(file, call_id)]
            assert result.call.result is not None, (file, call_id)
            assert result.findings == [], (file, call_id)
            assert named[(file, call_id)] == 0, (file, call_id)


def test_every_provider_holds_results_that_pass_and_break(report: CheckReport) -> None:
    by_file: dict[str, list[Any]] = {}
    for result in report.results:
        by_file.setdefault(Path(result.call.source.file).name, []).append(result)
    for path in CONVERSATIONS:
        results = by_file[path.name]
        assert any(r.call.result is not None and not r.findings for r in results) or (
            path.suffix == ".har"
        ), path.name
        assert any(
            f.code.startswith(("result.", "session."))
            for f in _every(report)
            if f.source is not None and Path(f.source.file).name == path.name
        ), path.name


def _render(report: CheckReport, fmt: str) -> str:
    import io

    stream = io.BytesIO()
    options = ReportOptions(color=False, width=100, max_shown=0)
    reporter_class("check", fmt)(stream, options).write(report.summary, report.results)
    return stream.getvalue().decode()


def test_text_and_json_reports(
    report: CheckReport, golden: Callable[[str, str], None], in_repo: Path
) -> None:
    relative = _check(
        [p.relative_to(REPO) for p in [*CONVERSATIONS, BUNDLE / "otel.jsonl"]],
        BUNDLE.relative_to(REPO),
    )
    golden("results/check.txt", _render(relative, "text"))
    text = _render(relative, "json")
    assert json.loads(text) == relative.to_dict()
    golden("results/check.json", json.dumps(json.loads(text), indent=2) + "\n")
    secrets = ("sk-", "AKIAZ3MXQ7PLE4R2TQWN", "Zq8-smtp-pass-7731")
    for output in (text, _render(relative, "text"), _render(relative, "sarif")):
        assert not any(s in output for s in secrets)


def test_the_otel_export_is_the_same_run(tmp_path: Path, report: CheckReport) -> None:
    """A fresh recording by the SDK gives the committed export's calls, results, findings
    and latencies, and the chat conversation's findings about its results."""
    fresh = tmp_path / "otel.jsonl"
    agent_run.write(fresh)

    def facts(path: Path) -> list[Any]:
        checked = _check([path])
        calls = sorted(checked.results, key=lambda r: r.call.call_id or "")
        return [
            [(r.call.tool, r.call.call_id, [f.code for f in r.findings]) for r in calls],
            [f.code for f in checked.findings],
            checked.summary.to_dict()["by_tool"],
        ]

    committed = facts(BUNDLE / "otel.jsonl")
    assert facts(fresh) == committed
    chat = facts(BUNDLE / "conversations" / "openai-chat.jsonl")
    assert [c[2] for c in committed[0]] == [
        [c for c in codes_ if not c.startswith("business.refund")] for _, _, codes_ in chat[0]
    ]
    assert committed[1] == chat[1] == ["session.parallel_side_effects"]
    assert committed[2]["send_email"]["latency_ms"]["max"] == agent_run.TAKES["send_email"]


def test_the_result_leg_diff(golden: Callable[[str, str], None], in_repo: Path) -> None:
    import io

    hops = [
        f"fixtures/results/diff/{name}" for name in ("model.json", "mcp.jsonl", "downstream.har")
    ]
    tools = ToolSet.from_paths(["fixtures/results/tools.json"])
    found = diff(hops, tools=tools)
    (call,) = found.results
    leg = [(d.code.value, d.from_hop.value, d.to_hop.value, d.path) for d in call.differences]
    assert leg == [
        ("dropped", "downstream", "mcp", "/receipt_url"),
        ("truncated", "mcp", "model", ""),
    ]
    assert [d.to_dict()["leg"] for d in call.differences] == ["result", "result"]
    stream = io.BytesIO()
    reporter_class("diff", "text")(stream, ReportOptions(color=False, width=100)).write(
        found.summary, found.results
    )
    golden("results/diff.txt", stream.getvalue().decode())
    golden("results/diff.json", json.dumps(found.to_dict(), indent=2) + "\n")
