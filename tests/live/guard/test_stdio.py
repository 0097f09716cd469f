"""``mcp guard`` over stdio between the official SDK's client and SDK servers.

What the server's stdin received is recorded by an ``mcp record`` placed between the guard
and the server (it forwards every byte unchanged): a call the guard refused is not in it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.conftest import REPO
from tests.live.conftest import PYTHON, SERVERS, alive, wait_for, wait_gone
from tests.live.guard.conftest import INIT, RULES

pytestmark = pytest.mark.slow

SHIPPING = SERVERS / "shipping.py"
JSONCONTRACT = [PYTHON, "-m", "jsoncontract"]
KEY = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"


def guarded(*options: str, server: list[str], stdin_copy: Path | None = None) -> list[str]:
    """The arguments of ``python -m jsoncontract mcp guard OPTIONS -- SERVER`` (with an
    ``mcp record`` that copies what the server's stdin receives)."""
    inner = list(server)
    if stdin_copy is not None:
        inner = [*JSONCONTRACT, "mcp", "record", "-o", str(stdin_copy), "--", *server]
    return ["-m", "jsoncontract", "mcp", "guard", *options, "--", *inner]


def client(args: list[str], **options: Any) -> Any:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=PYTHON, args=args, cwd=str(REPO), env=dict(os.environ))
    return Client(stdio_client(params, errlog=sys.__stderr__), **options)


def run(
    args: list[str], body: Callable[[Any], Awaitable[dict[str, Any]]], **options: Any
) -> dict[str, Any]:
    async def main() -> dict[str, Any]:
        with anyio.fail_after(120):
            async with client(args, **options) as session:
                return await body(session)

    return anyio.run(main)


def text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "text", None))


def error_of(result: Any) -> dict[str, Any]:
    """The guard's JSON error an ``isError`` result carries."""
    assert result.is_error is True
    parsed = json.loads(result.content[0].text)
    assert parsed["ok"] is False
    error: dict[str, Any] = parsed["error"]
    return error


def received(stdin_copy: Path) -> list[dict[str, Any]]:
    """The tools/call requests the server's stdin received."""
    lines = [json.loads(line) for line in stdin_copy.read_text().splitlines()]
    return [
        line["frame"]
        for line in lines
        if line.get("from") == "client" and line.get("frame", {}).get("method") == "tools/call"
    ]


def trace_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


GOOD_SHIPMENT = {"order_id": "ORD-1234", "quantity": 2, "idempotency_key": "ship-0001-a"}


async def _the_session(session: Any) -> dict[str, Any]:
    seen: dict[str, Any] = {"version": session.protocol_version}
    calls = [
        ("invalid", "create_shipment", {**GOOD_SHIPMENT, "order_id": "ORD-12"}),
        ("valid", "quote", {"destination": "AMS", "weight_kg": 2.5}),
        (
            "rule",
            "create_shipment",
            {**GOOD_SHIPMENT, "quantity": 500, "idempotency_key": "k-500-aaaa"},
        ),
        ("keyed", "create_shipment", GOOD_SHIPMENT),
        ("keyed again", "create_shipment", GOOD_SHIPMENT),
        ("conflict", "create_shipment", {**GOOD_SHIPMENT, "quantity": 3}),
        ("no key", "create_shipment", {"order_id": "ORD-1234", "quantity": 2}),
        ("secret", "diagnostics", {}),
        ("stack trace", "track", {"order_id": "ORD-1234"}),
        ("page", "carrier_status", {}),
        ("bad output", "summary", {"order_id": "ORD-1234"}),
    ]
    for label, tool, arguments in calls:
        seen[label] = await session.call_tool(tool, arguments)
    for n in range(1, 5):
        seen[f"retry {n}"] = await session.call_tool(
            "quote", {"destination": "MARS", "weight_kg": 1}
        )
    return seen


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One session of the SDK's client through the guard to the shipping server."""
    where = tmp_path_factory.mktemp("guard")
    rules = where / "rules.toml"
    rules.write_text(RULES)
    trace, stdin_copy, pid = where / "guard.jsonl", where / "stdin.jsonl", where / "pid"
    server = [PYTHON, str(SHIPPING), "--pid-file", str(pid)]
    args = guarded(
        "--rules", str(rules), "-o", str(trace), "-e", f"SHIPPING_API_KEY={KEY}",
        server=server, stdin_copy=stdin_copy,
    )  # fmt: skip
    seen = run(args, _the_session)
    seen.update(trace=trace, stdin=stdin_copy, pid=int(wait_for(pid)), rules=rules)
    return seen


def test_an_invalid_call_is_answered_by_the_guard_naming_the_pointer_and_never_reaches_the_server(
    session: dict[str, Any],
) -> None:
    assert session["version"] == "2026-07-28"
    error = error_of(session["invalid"])
    assert error["code"] == "schema.pattern"
    assert error["findings"][0]["path"] == "/order_id"
    assert all(
        c["params"]["arguments"].get("order_id") != "ORD-12" for c in received(session["stdin"])
    )


def test_a_valid_call_passes(session: dict[str, Any]) -> None:
    assert session["valid"].is_error is False
    assert json.loads(text(session["valid"])) == {"ok": True, "eur": 12.5}


def test_a_cel_rule_refuses_with_its_id(session: dict[str, Any]) -> None:
    error = error_of(session["rule"])
    assert error["code"] == "business.max-quantity"
    assert error["findings"][0]["hint"] == "split the order into shipments of 100 units or fewer"
    assert all(c["params"]["arguments"].get("quantity") != 500 for c in received(session["stdin"]))


def test_a_repeated_keyed_write_reaches_the_server_once(session: dict[str, Any]) -> None:
    first, again = text(session["keyed"]), text(session["keyed again"])
    assert json.loads(first)["shipment"] == "SHP-0001"
    assert again == first
    keyed = [
        c for c in received(session["stdin"])
        if c["params"]["arguments"].get("idempotency_key") == "ship-0001-a"
    ]  # fmt: skip
    assert len(keyed) == 1
    assert error_of(session["conflict"])["code"] == "business.idempotency.conflict"
    assert error_of(session["no key"])["code"] == "business.idempotency.missing_key"


def test_a_secret_in_a_result_is_masked_for_the_client_and_absent_from_the_trace(
    session: dict[str, Any],
) -> None:
    shown = text(session["secret"])
    assert KEY not in shown and "<redacted openai-api-key sha256:" in shown
    assert KEY not in session["trace"].read_text()


def test_stack_traces_and_html_pages_become_a_json_error_with_a_stable_code(
    session: dict[str, Any],
) -> None:
    assert error_of(session["stack trace"])["code"] == "result.stack_trace"
    assert error_of(session["page"])["code"] == "result.html_error_page"
    assert "Traceback" not in text(session["stack trace"]) and "nginx" not in text(session["page"])
    assert error_of(session["bad output"])["code"] == "result.structured_content"


def test_the_third_identical_failing_call_is_told_to_stop(session: dict[str, Any]) -> None:
    nexts = [error_of(session[f"retry {n}"])["next"] for n in range(1, 5)]
    assert nexts[0] == nexts[1] == "fix the arguments named above and call quote again"
    assert nexts[2].startswith("stop retrying this call: it failed 3 times")
    assert error_of(session["retry 4"])["code"] == "session.identical_retry"
    assert all(
        c["params"]["arguments"].get("destination") != "MARS" for c in received(session["stdin"])
    )


def test_the_trace_marks_every_decision_and_carries_the_enforced_tools(
    session: dict[str, Any],
) -> None:
    lines = trace_lines(session["trace"])
    assert lines[0]["event"] == "start" and lines[1]["event"] == "guard"
    tools = [line for line in lines if line.get("event") == "tools"]
    assert tools and {t["name"] for t in tools[-1]["tools"]} >= {"create_shipment", "quote"}
    calls = [
        line for line in lines
        if line.get("from") == "client" and line.get("frame", {}).get("method") == "tools/call"
    ]  # fmt: skip
    decided = [line for line in lines if line.get("event") == "decision"]
    assert all("guard" in line for line in calls)
    marks = [line["guard"]["decision"] for line in calls if line["guard"]["decision"] != "hold"]
    marks += [line["guard"]["decision"] for line in decided]
    assert {"refuse", "forward", "replay", "stop"} <= set(marks)
    replaced = [line for line in lines if "replaces" in line]
    assert {line["from"] for line in replaced} == {"guard"}
    assert len(replaced) >= 4  # the secret, the stack trace, the page, the bad output


def test_check_reads_the_trace_without_tools_and_reports_the_same_findings(
    session: dict[str, Any], run_cli: Callable[..., Any]
) -> None:
    result = run_cli(
        "check",
        "--no-config",
        "--rules",
        str(session["rules"]),
        "-f",
        "json",
        str(session["trace"]),
    )
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    found = {(f["code"], f["path"]) for r in report["results"] for f in r["findings"]}
    found |= {(f["code"], f["path"]) for f in report["findings"]}
    lines = trace_lines(session["trace"])
    marked = set()
    for line in lines:
        for f in line.get("guard", {}).get("findings", []):
            marked.add((f["code"], f["path"]))
    expected = {
        ("schema.pattern", "/order_id"),
        ("business.max-quantity", "/quantity"),
        ("business.idempotency.conflict", "/idempotency_key"),
        ("result.stack_trace", "/result/content/0/text"),
        ("result.html_error_page", "/result/content/0/text"),
        ("result.secret", "/result/content/0/text"),
    }
    assert expected <= marked
    assert expected <= found
    retry = [f for f in report["findings"] if f["code"] == "session.identical_retry"]
    assert retry, report["findings"]


def test_the_server_is_gone_after_the_session(session: dict[str, Any]) -> None:
    assert wait_gone(session["pid"])


def test_closed_refuses_an_undeclared_property_the_server_would_accept(tmp_path: Path) -> None:
    stdin_copy = tmp_path / "stdin.jsonl"
    extra = {"destination": "AMS", "weight_kg": 1, "insurance": True}

    async def body(session: Any) -> dict[str, Any]:
        return {"extra": await session.call_tool("quote", extra)}

    direct = run(guarded("--observe", server=[PYTHON, str(SHIPPING)]), body)
    assert direct["extra"].is_error is False  # the server takes it
    seen = run(guarded("--closed", server=[PYTHON, str(SHIPPING)], stdin_copy=stdin_copy), body)
    error = error_of(seen["extra"])
    assert (error["code"], error["findings"][0]["path"]) == (
        "schema.additionalProperties",
        "/insurance",
    )
    assert received(stdin_copy) == []


def test_observe_forwards_and_check_on_its_trace_reports_the_finding(
    tmp_path: Path, run_cli: Callable[..., Any]
) -> None:
    trace, stdin_copy = tmp_path / "observe.jsonl", tmp_path / "stdin.jsonl"

    async def body(session: Any) -> dict[str, Any]:
        return {"bad": await session.call_tool("quote", {"destination": "MARS", "weight_kg": 1})}

    seen = run(
        guarded(
            "--observe", "-o", str(trace), server=[PYTHON, str(SHIPPING)], stdin_copy=stdin_copy
        ),
        body,
    )
    assert seen["bad"].is_error is False  # the server answered: nothing was enforced
    assert [c["params"]["arguments"]["destination"] for c in received(stdin_copy)] == ["MARS"]
    marks = [line["guard"] for line in trace_lines(trace) if line.get("guard", {}).get("would")]
    assert marks and marks[0]["would"] == "refuse" and marks[0]["decision"] == "forward"
    result = run_cli("check", "--no-config", str(trace))
    assert result.code == 1
    assert "schema.enum /destination" in result.stdout


def test_a_server_that_crashes_mid_call_is_answered_and_started_again(tmp_path: Path) -> None:
    pids = tmp_path / "pid"

    async def body(session: Any) -> dict[str, Any]:
        crashed = await session.call_tool("crash", {})
        first = int(pids.read_text())
        after = await session.call_tool("quote", {"destination": "LIS", "weight_kg": 3})
        return {"crashed": crashed, "after": after, "first": first, "second": int(pids.read_text())}

    seen = run(guarded(server=[PYTHON, str(SHIPPING), "--pid-file", str(pids)]), body)
    assert error_of(seen["crashed"])["code"] == "guard.server_exited"
    assert seen["after"].is_error is False
    assert seen["first"] != seen["second"]
    assert wait_gone(seen["first"]) and wait_gone(seen["second"])


# -- raw frames -------------------------------------------------------------------------------


def _raw(tmp_path: Path, *extra: str) -> tuple[subprocess.Popen[bytes], Path]:
    pid = tmp_path / "pid"
    process = subprocess.Popen(
        [PYTHON, *guarded(*extra, server=[PYTHON, str(SHIPPING), "--pid-file", str(pid)])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
    )
    return process, pid


def _send(process: subprocess.Popen[bytes], frame: Any) -> None:
    assert process.stdin is not None
    data = frame if isinstance(frame, bytes) else json.dumps(frame).encode()
    process.stdin.write(data + b"\n")
    process.stdin.flush()


def _call(request_id: int, arguments: dict[str, Any]) -> dict[str, Any]:
    params = {"name": "quote", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _read(process: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert process.stdout is not None
    line = process.stdout.readline()
    assert line, "the guard closed its stdout"
    answer: dict[str, Any] = json.loads(line)
    return answer


def test_malformed_frames_get_a_clear_answer_and_the_guard_keeps_serving(tmp_path: Path) -> None:
    process, _pid = _raw(tmp_path)
    try:
        _send(process, b"this is not json")
        assert _read(process)["error"]["code"] == -32700
        _send(process, {"hello": "world", "id": 5})
        answer = _read(process)
        assert (answer["id"], answer["error"]["code"]) == (5, -32600)
        _send(
            process,
            [{"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "quote"}}],
        )
        batch = _read(process)
        assert isinstance(batch, list) and batch[0]["error"]["code"] == -32600
        _send(process, INIT)
        assert _read(process)["result"]["protocolVersion"] == "2025-06-18"
        _send(process, {"jsonrpc": "2.0", "method": "notifications/initialized"})
        _send(process, _call(2, {"destination": 1, "weight_kg": 1}))
        answer = _read(process)
        assert (answer["id"], answer["error"]["code"]) == (2, -32602)  # 2025-06-18: Invalid params
        assert answer["error"]["data"]["findings"][0]["path"] == "/destination"
        _send(process, _call(3, {"destination": "AMS", "weight_kg": 1}))
        assert _read(process)["result"]["isError"] is False
    finally:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.close()
        assert process.wait(timeout=30) == 0
        process.stdout.close()


def test_a_client_that_disconnects_leaves_no_child_behind(tmp_path: Path) -> None:
    process, pid = _raw(tmp_path)
    _send(process, INIT)
    assert "result" in _read(process)
    server = int(wait_for(pid))
    assert alive(server)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.close()
    process.stdout.close()
    process.wait(timeout=30)
    assert wait_gone(server)


def test_replay_reads_the_server_s_answers_from_a_guard_trace(session: dict[str, Any]) -> None:
    from jsoncontract.live.replay import canonical, load_recording

    recording = load_recording(session["trace"])
    answers = recording.calls[("diagnostics", canonical({}))]
    assert len(answers) == 1
    shown = answers[0]["result"]["content"][0]["text"]
    assert "<redacted" not in shown and KEY not in shown  # the server's, its key a stand-in
    assert json.loads(shown)["SHIPPING_API_KEY"].startswith("sk-proj-")
