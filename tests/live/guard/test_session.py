"""One session's traffic through the guard, frame by frame, without processes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsoncontract import Guard
from jsoncontract.live.guard.session import OWN_ID, GuardSession, Out
from jsoncontract.live.guard.settings import GuardSettings
from jsoncontract.live.trace import CLIENT, SERVER, TraceWriter

QUOTE = {
    "name": "quote",
    "inputSchema": {
        "type": "object",
        "properties": {"destination": {"type": "string", "enum": ["AMS", "BER"]}},
        "required": ["destination"],
    },
    "annotations": {"readOnlyHint": True},
}
META = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


def frame(message: Any) -> bytes:
    return json.dumps(message).encode()


def decoded(outs: list[Out]) -> list[tuple[str, Any]]:
    return [(out.to, json.loads(out.data)) for out in outs]


def call(request_id: Any, arguments: Any, meta: bool = True) -> bytes:
    params: dict[str, Any] = {"name": "quote", "arguments": arguments}
    if meta:
        params["_meta"] = META
    return frame({"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params})


def listing(request_id: Any, tools: list[Any], cursor: str | None = None) -> bytes:
    result: dict[str, Any] = {"tools": tools}
    if cursor is not None:
        result["nextCursor"] = cursor
    return frame({"jsonrpc": "2.0", "id": request_id, "result": result})


def test_a_call_before_any_list_waits_while_the_guard_lists_the_tools_itself() -> None:
    session = GuardSession(Guard())
    outs = decoded(session.client(call(1, {"destination": "MARS"})))
    assert len(outs) == 1
    to, request = outs[0]
    assert to == SERVER and request["method"] == "tools/list"
    assert request["id"].startswith(OWN_ID) and request["params"]["_meta"] == META
    page_one = decoded(session.server(listing(request["id"], [], cursor="2")))
    assert page_one[0][1]["params"]["cursor"] == "2"
    answered = decoded(session.server(listing(page_one[0][1]["id"], [QUOTE])))
    assert [(to, message["id"]) for to, message in answered] == [(CLIENT, 1)]
    assert answered[0][1]["result"]["isError"] is True


def test_list_changed_makes_the_guard_list_again_before_the_next_call() -> None:
    session = GuardSession(Guard(tools=[QUOTE]))
    assert decoded(session.client(call(1, {"destination": "AMS"}))) == [
        (SERVER, json.loads(call(1, {"destination": "AMS"})))
    ]
    changed = frame({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
    outs = decoded(session.server(changed))
    assert outs[0] == (CLIENT, json.loads(changed))
    own = outs[1][1]
    assert outs[1][0] == SERVER and own["method"] == "tools/list"
    assert session.client(call(2, {"destination": "BER"})) == []  # waits for the new list
    loosened = {**QUOTE, "inputSchema": {"type": "object"}}
    released = decoded(session.server(listing(own["id"], [loosened])))
    assert released == [(SERVER, json.loads(call(2, {"destination": "BER"})))]


def test_calls_that_wait_too_long_for_the_list_are_answered() -> None:
    session = GuardSession(Guard(settings=GuardSettings(list_timeout=5)))
    session.client(call(1, {"destination": "AMS"}))
    assert session.expire(now=0) == []
    outs = decoded(session.expire(now=10**9))
    error = json.loads(outs[0][1]["result"]["content"][0]["text"])["error"]
    assert outs[0][0] == CLIENT and error["code"] == "guard.no_tool_list"


def test_frames_that_are_no_json_rpc_message() -> None:
    session = GuardSession(Guard(tools=[QUOTE]))
    ((to, answer),) = decoded(session.client(b"{oops"))
    assert to == CLIENT and answer["id"] is None and answer["error"]["code"] == -32700
    assert answer["error"]["message"].startswith("Parse error: ")
    assert session.server(b"Loading index... done") == []
    observing = GuardSession(Guard(tools=[QUOTE], settings=GuardSettings(observe=True)))
    assert observing.server(b"Loading index... done") == [Out(CLIENT, b"Loading index... done")]
    assert observing.client(b"{oops") == [Out(SERVER, b"{oops")]


def test_a_server_that_exits_gets_its_requests_answered_and_its_handshake_replayed() -> None:
    session = GuardSession(Guard(tools=[QUOTE]))
    initialize = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "t"},
        },
    }
    session.client(frame(initialize))
    session.server(frame({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": "2025-06-18"}}))
    session.client(frame({"jsonrpc": "2.0", "method": "notifications/initialized"}))
    session.client(call(5, {"destination": "AMS"}, meta=False))
    answered = decoded(session.server_exited(9))
    error = json.loads(answered[0][1]["result"]["content"][0]["text"])["error"]
    assert answered[0][1]["id"] == 5 and error["code"] == "guard.server_exited"
    replay = decoded(session.restarted())
    assert [m.get("method") for _, m in replay] == ["initialize", "notifications/initialized"]
    assert replay[0][1]["id"].startswith(OWN_ID)
    assert session.server(frame({"jsonrpc": "2.0", "id": replay[0][1]["id"], "result": {}})) == []


def test_the_trace_keeps_the_server_answer_and_marks_the_one_delivered_in_its_place(
    tmp_path: Path,
) -> None:
    from jsoncontract.capture.mcp_trace import embedded_tools

    path = tmp_path / "trace.jsonl"
    writer = TraceWriter(path, server="t", transport="stdio")
    session = GuardSession(Guard(tools=[QUOTE]), writer=writer)
    session.client(frame({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
    session.server(listing(1, [QUOTE]))
    session.client(call(2, {"destination": "AMS"}))
    secret = "sk-proj-" + "Mm1Nn2Bb3Vv4Cc5Xx6Zz7Aa8"
    content = [{"type": "text", "text": secret}]
    answer = {"jsonrpc": "2.0", "id": 2, "result": {"content": content, "resultType": "complete"}}
    delivered = decoded(session.server(frame(answer)))
    writer.close()
    assert secret not in delivered[0][1]["result"]["content"][0]["text"]
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    server_line = next(
        line for line in lines if line.get("from") == "server" and line["frame"]["id"] == 2
    )
    guard_line = next(line for line in lines if "replaces" in line)
    assert guard_line["replaces"] == server_line["seq"] and guard_line["from"] == "guard"
    assert server_line["guard"]["decision"] == "mask"
    kept = server_line["frame"]["result"]["content"][0]["text"]
    assert kept != secret and len(kept) == len(secret) and kept.startswith("sk-proj-")
    assert secret not in path.read_text()
    assert [t["name"] for t in embedded_tools([path])] == ["quote"]


def test_a_tools_call_notification_never_reaches_the_server() -> None:
    session = GuardSession(Guard(tools=[QUOTE]))
    notification = {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "quote"}}
    assert session.client(frame(notification)) == []


def test_only_an_answer_without_any_marker_of_a_leak_skips_the_leak_checks() -> None:
    from jsoncontract.live.guard.results import quiet

    def text(value: str) -> bytes:
        return frame(
            {"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text", "text": value}]}}
        )

    assert quiet(text(json.dumps({"ok": True, "eur": 12.5})))
    assert not quiet(text('Traceback (most recent call last):\n  File "a.py", line 1'))
    assert not quiet(text("<!DOCTYPE html><title>502</title>"))
    assert not quiet(text("key sk-proj-" + "Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8"))
    assert not quiet(
        b'{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"\\u0073k-proj-Aa1Bb2Cc3Dd4Ee5Ff6"}]}}'
    )
    assert not quiet(text("C:\\path"))
    assert not quiet(b"\xff\xfe")


def test_a_secret_spelt_with_escapes_is_still_masked() -> None:
    session = GuardSession(Guard(tools=[QUOTE]))
    session.client(call(1, {"destination": "AMS"}))
    raw = (
        b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":'
        b'[{"type":"text","text":"\\u0073k-proj-Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8"}]}}'
    )
    (delivered,) = decoded(session.server(raw))
    assert delivered[1]["result"]["content"][0]["text"].startswith("<redacted openai-api-key")


def test_a_secret_used_as_a_member_name_is_masked_for_the_client_and_in_the_trace(
    tmp_path: Path,
) -> None:
    path = tmp_path / "trace.jsonl"
    writer = TraceWriter(path, server="t", transport="stdio")
    session = GuardSession(Guard(tools=[QUOTE]), writer=writer)
    session.client(call(1, {"destination": "AMS"}))
    secret = "sk-proj-" + "Qq1Ww2Ee3Rr4Tt5Yy6Uu7Ii8"
    result = {
        "content": [{"type": "text", "text": "keys"}],
        "structuredContent": {"keys": {secret: "active"}},
        "resultType": "complete",
    }
    (delivered,) = decoded(session.server(frame({"jsonrpc": "2.0", "id": 1, "result": result})))
    writer.close()
    (name,) = delivered[1]["result"]["structuredContent"]["keys"]
    assert secret not in json.dumps(delivered) and name.startswith("<redacted openai-api-key")
    assert secret not in path.read_text()
