"""Behaviours a sampled mutation run found no test pinned: each test here fails when its
behaviour is changed the way that run changed it (the lane, the ledger, the result stage
and redaction; the others sit beside their modules' tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsoncontract.api import iter_results
from jsoncontract.business import load_business
from jsoncontract.capture.ledger import Ledger, Released
from jsoncontract.masking import HEADER_SECRET_LENGTH, find_secrets, redacted
from jsoncontract.model import (
    ArgumentsForm,
    Captured,
    EventKind,
    Hop,
    McpSession,
    Source,
    Summary,
    ToolCall,
    ToolResult,
    TraceEvent,
)
from jsoncontract.pipeline.result import ResultChecks, failed
from jsoncontract.reporters import ReportOptions, render
from jsoncontract.tools import ToolSet

TOOLS = {
    "tools": [
        {
            "name": "lookup",
            "inputSchema": {
                "type": "object",
                "properties": {"id": {"type": "integer", "minimum": 1}},
                "required": ["id"],
            },
        },
        {
            "name": "quote",
            "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}},
        },
    ]
}
RULES = 'version = 1\n[[tools.quote]]\nid = "small"\nrule = "self.n < 10"\nmessage = "too big"\n'


def _completion(n: int, *calls: tuple[str, str, dict[str, Any]]) -> str:
    """One completion, one choice per call."""
    choices = [
        {
            "index": i,
            "finish_reason": "tool_calls",
            "message": {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": call_id,
                        "type": "function",
                        "function": {"name": name, "arguments": json.dumps(arguments)},
                    }
                ],
            },
        }
        for i, (call_id, name, arguments) in enumerate(calls)
    ]
    return json.dumps({"id": f"chatcmpl-{n}", "object": "chat.completion", "choices": choices})


class _Sink:
    data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)


def _report(tmp_path: Path, lines: list[str], *, fast: bool) -> dict[str, Any]:
    tools, rules = tmp_path / "tools.json", tmp_path / "rules.toml"
    tools.write_text(json.dumps(TOOLS))
    rules.write_text(RULES)
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(lines) + "\n")
    toolset = ToolSet.from_paths([tools])
    summary = Summary()
    results = iter_results(
        [trace],
        tools=toolset,
        business=load_business([rules], tools=toolset),
        summary=summary,
        fast=fast,
        window=0,  # the lane is open from the second line on
    )
    out = _Sink()
    render("check", "json", out, ReportOptions(), summary, results)
    found: dict[str, Any] = json.loads(out.data)
    return found


def _warm(n: int) -> list[str]:
    return [_completion(i, (f"call_w{i}", "lookup", {"id": 1})) for i in range(n)]


def test_the_lane_reads_every_choice(tmp_path: Path) -> None:
    """With the lane open, a completion with several choices has a call in each."""
    lines = [*_warm(2), _completion(9, ("call_a", "lookup", {"id": 1}), ("call_b", "lookup", {}))]
    for fast in (True, False):
        report = _report(tmp_path, lines, fast=fast)
        assert (report["summary"]["calls"], report["summary"]["failed"]) == (4, 1), fast
        assert report["results"][-1]["call_id"] == "call_b"


def test_the_lane_runs_the_business_rules_of_a_valid_call(tmp_path: Path) -> None:
    """A schema-valid call of a tool with rules goes through the rules with the lane on."""
    lines = [*_warm(2), _completion(9, ("call_q", "quote", {"n": 50}))]
    for fast in (True, False):
        report = _report(tmp_path, lines, fast=fast)
        (last,) = [r for r in report["results"] if r["call_id"] == "call_q"]
        assert [f["code"] for f in last["findings"]] == ["business.small"], fast


def _call(call_id: str | None, hop: Hop = Hop.MODEL, **kw: Any) -> ToolCall:
    form = kw.pop("form", ArgumentsForm.VALUE)
    source = kw.pop("source", Source("f"))
    return ToolCall(hop, "d", "t", call_id, kw.pop("arguments", {}), form, source, **kw)


def _result(call_id: str, hop: Hop = Hop.MODEL, **kw: Any) -> ToolResult:
    return ToolResult(hop, "d", call_id, kw.pop("source", Source("r")), **kw)


def _run(ledger: Ledger, *documents: list[Captured]) -> list[list[Released]]:
    steps: list[list[Released]] = []
    for items in documents:
        out: list[Released] = []
        ledger.add(items, out)
        steps.append(out)
    end: list[Released] = []
    ledger.flush(end)
    steps.append(end)
    return steps


def test_a_result_waits_exactly_the_window() -> None:
    """A result ``window`` documents after its call is attached; one more, and it is late."""
    seeded = _result("z", content="x")  # results are seen: calls wait for theirs
    on_time, answer = _call("a"), _result("a", content="ok")
    steps = _run(Ledger(window=2), [seeded], [on_time], [], [answer])
    assert on_time.result is answer
    late, answer = _call("b"), _result("b", content="ok")
    steps = _run(Ledger(window=2), [seeded], [late], [], [], [answer])
    assert late.result is None
    kinds = [e.kind for s in steps for e in s if isinstance(e, TraceEvent)]
    assert EventKind.LATE_RESULT in kinds


def test_a_second_late_mcp_answer_is_an_orphan() -> None:
    """JSON-RPC answers a request once: past its first (late) answer, another is an
    orphan, not late again."""
    session = McpSession("s")
    call = _call("1", Hop.MCP, session=session)
    first = _result("1", Hop.MCP, session=session, content=[])
    second = _result("1", Hop.MCP, session=session, content=[{"type": "text", "text": "x"}])
    steps = _run(
        Ledger(window=0), [_result("0", Hop.MCP, session=session)], [call], [first], [second]
    )
    kinds = [e.kind for s in steps[2:4] for e in s if isinstance(e, TraceEvent)]
    assert kinds == [EventKind.LATE_RESULT, EventKind.ORPHAN_RESULT]


def test_a_sighting_that_records_the_arguments_gives_the_place() -> None:
    """An execute-tool span without its arguments, then the same call with them: the call
    is read where its arguments are."""
    bare = _call("a", form=ArgumentsForm.UNRECORDED, arguments=None, source=Source("f", 1))
    full = _call("a", arguments={"id": 1}, source=Source("f", 7))
    steps = _run(Ledger(), [bare], [full])
    calls = [c for s in steps for c in s if isinstance(c, ToolCall)]
    assert calls == [bare] and bare.source.line == 7 and bare.arguments == {"id": 1}


def test_http_400_is_a_failure() -> None:
    assert failed(_result("a", Hop.DOWNSTREAM, status=400, content={"ok": True}))
    assert not failed(_result("a", Hop.DOWNSTREAM, status=399, content={"ok": True}))


def test_an_error_result_with_structured_content_has_no_mirror_finding() -> None:
    """An isError result is not held to mirror its structuredContent in its text."""
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "result": {
            "isError": True,
            "content": [{"type": "text", "text": "the order service is down"}],
            "structuredContent": {"error": "down"},
        },
    }
    result = _result(
        "1",
        Hop.MCP,
        message=message,
        content=message["result"]["content"],
        structured_content={"error": "down"},
        present_structured=True,
        is_error=True,
    )
    call = _call("1", Hop.MCP, result=result)
    from jsoncontract.model import CallResult

    found = ResultChecks().check(call, None, CallResult(call, [], None))
    assert not [f for f in found if "mirror" in f.code or "text" in f.code], found


def test_a_header_secret_at_the_threshold_is_hidden() -> None:
    """A header value exactly :data:`HEADER_SECRET_LENGTH` long, random, is a secret."""
    value = "q8Zr2LxV9nWb4TfK7mPcA1"[:HEADER_SECRET_LENGTH]
    assert len(value) == HEADER_SECRET_LENGTH
    assert redacted({"headers": {"X-Custom": value}}) != {"headers": {"X-Custom": value}}
    assert redacted({"headers": {"X-Custom": value[:-1]}}) == {"headers": {"X-Custom": value[:-1]}}


def test_a_value_under_headers_is_a_header_value() -> None:
    """A value whose pointer ends ``/headers/<Name>`` is read as a header's."""
    value = "q8Zr2LxV9nWb4TfK7mPcA1"
    assert redacted(value, "/request/headers/Trace") != value
    assert redacted(value, "/request/body/Trace") == value
    assert [f.kind for f in find_secrets({"headers": {"X-Custom": value}})] == ["header-value"]
