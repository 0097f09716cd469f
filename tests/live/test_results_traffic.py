"""The return leg over real traffic: the official SDK's client calls the workbench server
(the SDK's server) through ``mcp record``, and ``check`` reads the trace: good and bad
structured content, isError results and JSON-RPC -32602 errors, each where the server put
it, and the session's own contracts."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from jsoncontract import check
from jsoncontract.model import Hop, Stage
from tests.conftest import REPO, CliResult
from tests.live.conftest import PYTHON, WORKBENCH

pytestmark = pytest.mark.slow

TOOLS = ("lookup_order", "order_summary", "find_customer")


async def _session(args: list[str]) -> dict[str, Any]:
    """What the SDK's client does and sees: it lists the tools, then calls each one well
    and badly (the client may refuse a result itself: that is noted, the trace holds it)."""
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from mcp.shared.exceptions import MCPError

    params = StdioServerParameters(command=PYTHON, args=args, cwd=str(REPO))
    seen: dict[str, Any] = {}
    calls = [
        ("lookup_order", {"order_id": "ORD-1234"}),
        ("lookup_order", {"order_id": 1234}),
        ("order_summary", {"order_id": "ORD-1234"}),
        ("find_customer", {"email": "ada@example.com"}),
        ("find_customer", {"email": 7}),
    ]
    with anyio.fail_after(60):
        async with Client(stdio_client(params, errlog=sys.__stderr__)) as client:
            seen["version"] = client.protocol_version
            seen["tools"] = sorted(t.name for t in (await client.list_tools()).tools)
            for name, arguments in calls:
                try:
                    answer = await client.call_tool(name, arguments)
                    seen.setdefault("answers", []).append(answer.is_error)
                except MCPError as exc:
                    seen.setdefault("answers", []).append(exc.code)
                except Exception as exc:  # the client's own output validation, say
                    seen.setdefault("answers", []).append(type(exc).__name__)
    return seen


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict[str, Any]]:
    """A session through the recorder; the trace, the server's tools (from ``mcp tools``),
    and what the client saw."""
    from jsoncontract.cli import run

    where = tmp_path_factory.mktemp("results")
    trace, tools = where / "trace.jsonl", where / "tools.json"
    only = [word for tool in TOOLS for word in ("--only", tool)]
    record = ["-m", "jsoncontract", "mcp", "record", "-o", str(trace), "--", PYTHON]
    seen = anyio.run(_session, [*record, str(WORKBENCH), *only])
    code = run(
        ["mcp", "tools", "-f", "json", "-o", str(tools), "--", PYTHON, str(WORKBENCH), *only]
    )
    assert code == 0
    return trace, tools, seen


def test_the_client_saw_every_kind_of_answer(recorded: Any) -> None:
    _, _, seen = recorded
    assert seen["tools"] == sorted(TOOLS)
    answers = seen["answers"]
    assert answers[0] is False and answers[1] is True  # accepted, then isError
    assert answers[3] is False and answers[4] == -32602  # accepted, then a JSON-RPC error


def test_check_reads_the_trace_with_its_results(recorded: Any) -> None:
    trace, tools, seen = recorded
    report = check([trace], tools=[tools])
    results = report.results
    assert [r.call.tool for r in results] == [
        "lookup_order",
        "lookup_order",
        "order_summary",
        "find_customer",
        "find_customer",
    ]
    assert all(r.call.hop is Hop.MCP and r.call.result is not None for r in results)
    good, rejected, summary, found, refused = results
    # a good structured result, its text mirror: nothing to say
    assert good.ok and good.findings == []
    # invalid arguments answered with isError: what the negotiated version asks for
    assert rejected.stage is Stage.SCHEMA
    assert "result.invalid_arguments_answer" not in [f.code for f in rejected.findings]
    assert rejected.call.result is not None and rejected.call.result.is_error is True
    # structured content that breaks the output schema, at its place in the response
    broken = [f for f in summary.findings if f.code == "result.structured_content"]
    assert [f.path for f in broken] == ["/result/structuredContent/total"]
    assert summary.stage is Stage.RESULT
    assert found.ok
    # invalid arguments answered with -32602, which this version no longer asks for
    codes = [f.code for f in refused.findings]
    assert "result.invalid_arguments_answer" in codes, (seen["version"], codes)
    result = refused.call.result
    assert result is not None and result.error is not None and result.error["code"] == -32602
    # every call has its latency, from the frames' times
    latency = report.summary.to_dict()["by_tool"]["lookup_order"]["latency_ms"]
    assert latency["count"] == 2 and latency["max"] > 0
    # the client called only listed tools, and every call was answered
    assert [f.code for f in report.findings] == []


def test_the_cli_report(recorded: Any, run_cli: Callable[..., CliResult]) -> None:
    trace, tools, _ = recorded
    result = run_cli("check", "--tools", str(tools), str(trace), "-f", "json")
    assert result.code == 1
    report = json.loads(result.stdout)
    assert report["summary"]["by_stage"]["result"] == 1
    entry = report["summary"]["by_tool"]["find_customer"]
    assert (entry["results"], entry["errors"]) == (2, 1)
    text = run_cli("check", "--tools", str(tools), str(trace))
    assert "result.structured_content /result/structuredContent/total" in text.stdout
    assert "p50 ms" in text.stdout
