"""``mcp probe`` against real servers that keep, and break, their contracts."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from jsoncontract.live.probe import (
    ProbeReport,
    ProbeSettings,
    ToolProbe,
    parse_kinds,
    probe,
)
from jsoncontract.live.probe.protocol import UNKNOWN_TOOL
from jsoncontract.live.server import ServerSpec
from jsoncontract.live.wire import ConnectOptions
from jsoncontract.reporters import ReportOptions, render
from tests.conftest import REPO, CliResult
from tests.live.conftest import PYTHON, WAREHOUSE, WORKBENCH, untimed

pytestmark = pytest.mark.slow

Run = Callable[..., CliResult]
#: Started as ``python ...`` with this interpreter first on PATH, as a user would write it:
#: the report holds no path of the checkout (one it cut to a width could not be put back).
BENCH = ServerSpec(
    command=("python", "tests/live/servers/workbench.py"),
    name="workbench",
    cwd=str(REPO),
    env={"PATH": str(Path(PYTHON).parent) + os.pathsep + os.environ["PATH"]},
)


@pytest.fixture(scope="module")
def report() -> ProbeReport:
    """The whole workbench, probed once (every tool breaks its contract in its own way)."""
    return probe(BENCH, ProbeSettings(), ConnectOptions(timeout=1.0))


def _tool(report: ProbeReport, name: str) -> ToolProbe:
    return next(t for t in report.servers[0].tools if t.name == name)


def _cases(tool: ToolProbe) -> dict[str, tuple[str | None, list[str]]]:
    return {
        r.case.name: (r.answer.value if r.answer else None, [f.code for f in r.findings])
        for r in tool.results
    }


def test_a_tool_that_keeps_its_contract(report: ProbeReport) -> None:
    assert _cases(_tool(report, "lookup_order")) == {
        "valid": ("accepted", []),
        "valid-required": ("accepted", []),
        "missing-field:/order_id": ("tool-error", []),
        "wrong-type:/order_id": ("tool-error", []),
        "wrong-type:/include_lines": ("tool-error", []),
        "extra-field": ("tool-error", []),
    }


def test_accepting_unknown_properties(report: ProbeReport) -> None:
    cases = _cases(_tool(report, "list_orders"))
    assert cases["extra-field"] == ("accepted", ["probe.accepted_invalid"])
    assert cases["wrong-enum:/status"] == ("tool-error", [])


def test_coercing_a_string_to_a_number(report: ProbeReport) -> None:
    cases = _cases(_tool(report, "get_stock"))
    assert cases["string-for-number:/quantity"] == ("accepted", ["probe.coerced"])
    assert cases["wrong-type:/sku"] == ("tool-error", [])


def test_structured_content_that_breaks_the_output_schema(report: ProbeReport) -> None:
    (finding,) = [f for r in _tool(report, "order_summary").results for f in r.findings]
    assert (finding.code, finding.path, finding.keyword) == (
        "result.structured_content",
        "/structuredContent/total",
        "type",
    )


def test_the_wrong_kind_of_rejection_for_the_version(report: ProbeReport) -> None:
    cases = _cases(_tool(report, "find_customer"))
    assert cases["missing-field:/email"] == (
        "protocol-error",
        ["result.invalid_arguments_answer"],
    )
    assert report.servers[0].negotiated is not None
    assert report.servers[0].negotiated.version == "2026-07-28"


def test_a_tool_that_hangs(report: ProbeReport) -> None:
    cases = _cases(_tool(report, "slow_report"))
    assert all(value == ("timeout", ["probe.timeout"]) for value in cases.values())
    assert len(cases) == 4


def test_a_tool_that_crashes_the_server(report: ProbeReport) -> None:
    tool = _tool(report, "crash_report")
    cases = _cases(tool)
    assert cases["valid"] == ("crashed", ["probe.crashed"])
    sent = [r for r in tool.results if r.not_sent is None]
    unsent = [r for r in tool.results if r.not_sent is not None]
    assert len(sent) == 1 and all(r.answer and r.answer.value == "crashed" for r in sent)
    # the negative cases would crash it again and prove nothing: not sent, and said so
    assert unsent and all("crashed on every valid call" in (r.not_sent or "") for r in unsent)
    assert report.servers[0].restarts >= 1
    assert [r.case.name for r in sent] == ["valid"]
    # the other tools' calls, in flight when it crashed, got their real answers
    assert not any(
        r.answer and r.answer.value == "crashed" for r in _tool(report, "get_stock").results
    )


def test_only_read_only_tools_are_called(report: ProbeReport) -> None:
    tool = _tool(report, "delete_order")
    assert tool.skipped is not None and "--allow delete_order" in tool.skipped
    assert tool.results == []


def test_the_protocol_checks(report: ProbeReport) -> None:
    checks = {c.name: (c.ok, [f.code for f in c.findings]) for c in report.servers[0].protocol}
    assert checks == {
        "server/discover": (True, []),
        "tools/list": (True, []),
        "unknown method": (True, []),
        "malformed request": (False, ["probe.malformed_request"]),
        "unknown tool": (True, []),
        "stdout": (True, []),
    }


def test_the_scorecard(report: ProbeReport) -> None:
    summary = report.servers[0].summary()
    assert summary["tools"] == 8 and summary["tools_called"] == 7
    assert (summary["accepted_invalid"], summary["coerced"]) == (1, 1)
    assert summary["answers"]["timeout"] == 4 and summary["answers"]["crashed"] == 1
    assert report.worst() is not None and report.worst().value == "error"


def _render(report: ProbeReport, fmt: str) -> str:
    stream = io.BytesIO()
    render("mcp probe", fmt, stream, ReportOptions(color=False), report)
    return stream.getvalue().decode()


def test_text_report(report: ProbeReport, golden: Callable[[str, str], None]) -> None:
    golden("live/probe-workbench.txt", untimed(_render(report, "text")))


def test_json_report(report: ProbeReport) -> None:
    data = json.loads(_render(report, "json"))
    assert data["version"] == 1 and data["summary"]["servers"] == 1
    server = data["servers"][0]
    assert (server["server"], server["protocol_version"], server["negotiated_with"]) == (
        "workbench",
        "2026-07-28",
        "server/discover",
    )
    get_stock = next(t for t in server["tools"] if t["tool"] == "get_stock")
    coerced = next(c for c in get_stock["cases"] if c["kind"] == "string-for-number")
    assert coerced["arguments"] == {"sku": "", "quantity": "0"} or coerced["schema"] == "rejects"
    assert coerced["answer"] == "accepted" and coerced["findings"][0]["code"] == "probe.coerced"


def test_sarif_report_is_valid(report: ProbeReport) -> None:
    import jsonschema

    schema = json.loads((REPO / "tests" / "reporters" / "sarif-schema-2.1.0.json").read_text())
    log = json.loads(_render(report, "sarif"))
    jsonschema.validate(log, schema)
    results = log["runs"][0]["results"]
    assert {r["ruleId"] for r in results} >= {"probe.coerced", "probe.accepted_invalid"}
    coerced = next(r for r in results if r["ruleId"] == "probe.coerced")
    assert coerced["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == (
        "get_stock/quantity"
    )


def test_junit_and_github_reports(report: ProbeReport) -> None:
    from xml.etree import ElementTree

    root = ElementTree.fromstring(_render(report, "junit"))
    suites = {s.get("name"): s for s in root.iter("testsuite")}
    assert "workbench: protocol" in suites and "workbench: get_stock" in suites
    skipped = suites["workbench: delete_order"].find("testcase/skipped")
    assert skipped is not None
    failed = [
        c.get("name")
        for c in suites["workbench: get_stock"].iter("testcase")
        if c.find("failure") is not None
    ]
    assert failed == ["string-for-number:/quantity"]
    github = _render(report, "github")
    assert "::error title=probe.coerced coerced-string-to-number::workbench: [get_stock]" in github
    assert github.endswith("jsoncontract mcp probe: 1 server, 8 errors, 3 warnings\n")


def test_cli_exit_codes_and_dry_run(run_cli: Run, repo_cwd: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    command = ["python", "tests/live/servers/workbench.py", "--call-log", str(log)]
    dry = run_cli("mcp", "probe", "--dry-run", "--name", "wb", "--", *command)
    assert dry.code == 0, dry.stderr
    assert "would call (dry run; nothing was sent)" in dry.stdout and "tools/call" in dry.stdout
    assert "delete_order" not in dry.stdout.split("would call (dry run")[1]
    assert not log.exists()  # nothing was called
    clean = run_cli("mcp", "probe", "--tool", "lookup_order", "--timeout", "0.5", "--", *command)
    assert clean.code == 0, clean.stdout  # the unanswered malformed request is a note
    assert "0 errors, 0 warnings\n" in clean.stdout
    assert "info    probe.malformed_request" in clean.stdout
    strict = run_cli(
        "mcp",
        "probe",
        "--tool",
        "lookup_order",
        "--fail-on",
        "warning",
        "--timeout",
        "0.5",
        "--malformed-wait",
        "0.1",
        "--",
        *command,
    )
    assert strict.code == 0, strict.stdout  # no warning either: the note is info
    called = {json.loads(line)["tool"] for line in log.read_text().splitlines()}
    assert called == {"lookup_order", UNKNOWN_TOOL}


def test_writes_are_called_only_when_allowed(run_cli: Run, repo_cwd: Path, tmp_path: Path) -> None:
    log = tmp_path / "calls.log"
    command = [
        "python",
        "tests/live/servers/workbench.py",
        "--only",
        "delete_order",
        "--only",
        "lookup_order",
        "--call-log",
        str(log),
    ]
    refused = run_cli("mcp", "probe", "--tool", "delete_order", "--", *command)
    assert "not called: not annotated readOnlyHint: true" in refused.stdout
    assert {json.loads(line)["tool"] for line in log.read_text().splitlines()} == {UNKNOWN_TOOL}
    allowed = run_cli("mcp", "probe", "--allow", "delete_order", "-f", "json", "--", *command)
    tools = {json.loads(line)["tool"] for line in log.read_text().splitlines()}
    assert tools == {"delete_order", "lookup_order", UNKNOWN_TOOL}
    assert allowed.code in (0, 1)


def test_bad_probe_options(run_cli: Run, repo_cwd: Path) -> None:
    command = ["python", "tests/live/servers/workbench.py", "--only", "lookup_order"]
    unknown = run_cli("mcp", "probe", "--tool", "lookup_ordr", "--", *command)
    assert unknown.code == 2 and "did you mean 'lookup_order'" in unknown.stderr
    kinds = run_cli("mcp", "probe", "--cases", "valid,nonsense", "--", *command)
    assert kinds.code == 2 and "unknown case kind 'nonsense'" in kinds.stderr
    assert parse_kinds("extra-field,valid") == parse_kinds("valid,extra-field")


def test_a_server_that_cannot_be_probed(run_cli: Run, repo_cwd: Path) -> None:
    result = run_cli(
        "mcp",
        "probe",
        "--connect-timeout",
        "20",  # the server exits at once; a loaded machine may take seconds to start it
        "--",
        "python",
        "tests/live/servers/workbench.py",
        "--exit-on-initialize",
    )
    assert result.code == 2
    assert "could not probe" in result.stdout
    assert "cannot read config.yaml" in result.stderr and "Traceback" not in result.stderr


def test_http_authentication(http_server: Callable[..., str]) -> None:
    guarded = http_server(WORKBENCH, "--only", "lookup_order", "--token", "s3cret")
    open_url = http_server(WAREHOUSE)
    settings = ProbeSettings(tools=("lookup_order",), protocol_checks=False)
    card = probe(
        ServerSpec(url=guarded, headers={"Authorization": "Bearer s3cret"}, requires_auth=True),
        settings,
    ).servers[0]
    (auth,) = [c for c in card.protocol if c.name == "authentication"]
    assert auth.ok and auth.detail == "a request without credentials: 401"
    card = probe(
        ServerSpec(url=open_url, requires_auth=True),
        ProbeSettings(tools=("get_order",), protocol_checks=False),
    ).servers[0]
    (auth,) = [c for c in card.protocol if c.name == "authentication"]
    assert not auth.ok and [f.code for f in auth.findings] == ["probe.auth_not_enforced"]
    text = orjson.dumps(card.to_dict()).decode()
    assert "s3cret" not in text


def test_a_realistic_sdk_server(http_server: Callable[..., str]) -> None:
    """The warehouse (MCPServer, pydantic): validates, answers isError, but coerces and
    accepts unknown properties, like the servers measured in the wild."""
    url = http_server(WAREHOUSE)
    card = probe(
        ServerSpec(url=url, name="warehouse"), ProbeSettings(protocol_checks=False)
    ).servers[0]
    codes = {f.code for f in card.all_findings()}
    assert "probe.coerced" in codes
    assert {t.name for t in card.tools if t.skipped} == {"cancel_order"}
    answers: dict[str, Any] = {}
    for tool in card.tools:
        answers.update(
            {f"{tool.name} {r.case.name}": r.answer.value for r in tool.sent if r.answer}
        )
    assert answers["stock_level wrong-enum:/warehouse"] == "tool-error"
    assert answers["get_order extra-field"] == "accepted"


LATE_NOTICE = """\
import json, sys, time
tool = {"name": "get_order", "inputSchema": {"type": "object", "properties": {}},
        "annotations": {"readOnlyHint": True, "openWorldHint": False}}
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    method, result = message["method"], {}
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "late", "version": "1"}}
    elif method == "tools/list":
        result = {"tools": [tool]}
    elif method == "tools/call":
        result = {"content": [{"type": "text", "text": "ok"}]}
    elif method != "ping":
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                          "error": {"code": -32601, "message": "Method not found"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
    if method == "tools/call":  # the tool list changed while the call ran: said afterwards
        time.sleep(0.3)
        print(json.dumps({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
              flush=True)
"""


def test_a_notification_after_the_last_answer_is_heard(tmp_path: Path) -> None:
    script = tmp_path / "late.py"
    script.write_text(LATE_NOTICE)
    spec = ServerSpec(command=(PYTHON, str(script)), name="late")
    settings = ProbeSettings(kinds=parse_kinds("valid"), protocol_checks=False)
    card = probe(spec, settings, ConnectOptions(timeout=5)).servers[0]
    assert [r.answer and r.answer.value for r in card.tools[0].results] == ["accepted"]
    # the server did not declare tools.listChanged, and said the list changed after the call
    assert "probe.list_changed_undeclared" in [f.code for f in card.all_findings()]


def test_a_configured_server_allow_list_is_honoured() -> None:
    """``[mcp.servers.X] allow`` lets the probe call those tools, as ``--allow`` does."""
    from jsoncontract.live.probe import ProbeSettings
    from jsoncontract.live.probe.planning import may_call
    from jsoncontract.live.server import ServerSpec

    spec = ServerSpec(command=("server",), allow=("delete_order",))
    assert may_call("delete_order", False, ProbeSettings(), spec) is None
    assert may_call("drop_table", False, ProbeSettings(), spec) is not None
    assert may_call("drop_table", True, ProbeSettings(), spec) is None


def test_the_string_arguments_case_is_judged_on_its_own() -> None:
    """Arguments sent as a JSON string (not an object) are judged by what the server did
    with them: an error answer is right, with no finding about how invalid arguments are
    answered (they are not the schema's invalid arguments)."""
    from jsoncontract.live.probe import CaseKind, ProbeCase
    from jsoncontract.live.probe.judging import judge
    from jsoncontract.live.wire import Reply, ReplyKind

    case = ProbeCase(
        "lookup_order", "string arguments", CaseKind.STRING_ARGUMENTS, '{"a": 1}', False
    )
    error = {"code": -32602, "message": "Invalid params: arguments must be an object"}
    for reply in (
        Reply(ReplyKind.ERROR, 0.01, error=error),
        Reply(ReplyKind.RESULT, 0.01, result={"content": [], "isError": True}),
    ):
        judged = judge(case, reply, version="2025-06-18", output_schema=None, label="s")
        assert "result.invalid_arguments_answer" not in [f.code for f in judged.findings]
