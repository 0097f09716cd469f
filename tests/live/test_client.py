"""Connecting to real servers (the SDK's client and servers): negotiation, and every way a
server can fail to be reached, each a clear error with no process left behind."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio
import pytest

from jsoncontract.errors import ServerError
from jsoncontract.live.client import connect
from jsoncontract.live.server import ServerSpec
from jsoncontract.live.tools import list_tools
from jsoncontract.live.wire import ConnectOptions, ReplyKind
from tests.live.conftest import WAREHOUSE, WORKBENCH, wait_for, wait_gone, workbench

pytestmark = pytest.mark.slow


def _listing(spec: ServerSpec, **options: Any) -> Any:
    async def main() -> Any:
        async with connect(spec, ConnectOptions(**options)) as conn:
            return await list_tools(conn)

    return anyio.run(main)


def _stdio(*args: str) -> ServerSpec:
    return ServerSpec(command=tuple(workbench(*args)), name="workbench")


def test_a_2026_server_is_negotiated_with_discover() -> None:
    listing = _listing(_stdio("--only", "lookup_order"))
    negotiated = listing.negotiated
    assert (negotiated.version, negotiated.method) == ("2026-07-28", "server/discover")
    assert negotiated.server_info == {"name": "workbench", "version": "0.9.0"}
    assert [t["name"] for t in listing.tools] == ["lookup_order"]
    assert listing.result()["_meta"]["jsoncontract/listing"]["protocolVersion"] == "2026-07-28"


def test_an_older_server_falls_back_to_initialize() -> None:
    listing = _listing(_stdio("--legacy", "--only", "lookup_order"))
    negotiated = listing.negotiated
    assert (negotiated.version, negotiated.method) == ("2025-11-25", "initialize")
    assert negotiated.fallback is not None and "-32601" in negotiated.fallback
    assert negotiated.describe() == "MCP 2025-11-25 (initialize)"


def test_a_version_can_be_asked_for() -> None:
    listing = _listing(_stdio("--only", "lookup_order"), protocol="2025-06-18")
    assert (listing.negotiated.version, listing.negotiated.offered) == ("2025-06-18", "2025-06-18")


def test_pages_are_followed_to_the_end() -> None:
    listing = _listing(_stdio("--page-size", "3"))
    assert listing.pages == 3 and len(listing.tools) == 8 and listing.problems == []


def test_broken_tools_are_reported_and_left_out() -> None:
    listing = _listing(_stdio("--invalid-tool", "--only", "lookup_order"))
    assert len(listing.tools) == 5
    messages = [f.message for f in listing.problems]
    assert messages == [
        "tool 'no_schema' has no inputSchema object (found none); it is left out",
        "tool #5 has no name; it is left out",
    ]
    assert [t["name"] for t in listing.usable()] == ["lookup_order", "string_root", "bad_keyword"]
    assert [c.source.pointer for c in listing.contracts()] == ["/tools/0", "/tools/1", "/tools/2"]


def test_stdout_noise_is_a_finding_not_a_failure() -> None:
    listing = _listing(_stdio("--junk-stdout", "--only", "lookup_order"))
    (noise,) = listing.problems
    assert noise.code == "mcp.stdout_noise"
    assert "'Loading order index... done (3 orders)'" in noise.message


def test_a_command_that_does_not_exist() -> None:
    spec = ServerSpec(command=("jsoncontract-no-such-server",), name="ghost")
    with pytest.raises(ServerError, match=r"ghost: cannot start the server: .*command not found"):
        _listing(spec)


def test_a_server_that_exits_during_initialize(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    spec = _stdio("--exit-on-initialize", "--pid-file", str(pid_file))
    with pytest.raises(ServerError) as caught:
        _listing(spec)
    message = str(caught.value)
    assert "workbench: the server closed the connection during server/discover" in message
    assert "cannot read config.yaml: no such file" in message  # its stderr, quoted
    assert wait_gone(int(pid_file.read_text()))


def test_a_server_that_never_answers(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    spec = _stdio("--silent", "--pid-file", str(pid_file))
    with pytest.raises(
        ServerError, match=r"did not answer server/discover or initialize within 3 s"
    ):
        _listing(spec, connect_timeout=3)
    assert wait_gone(int(pid_file.read_text()))


def test_a_server_that_only_writes_junk(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    spec = _stdio("--junk-stdout", "--silent", "--pid-file", str(pid_file))
    with pytest.raises(ServerError) as caught:
        _listing(spec, connect_timeout=3)
    assert "it wrote to stdout: 'Loading order index... done (3 orders)'" in str(caught.value)
    assert wait_gone(int(pid_file.read_text()))


def test_the_server_process_is_gone_after_a_run(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    _listing(_stdio("--only", "lookup_order", "--pid-file", str(pid_file)))
    assert wait_gone(int(pid_file.read_text()))


def test_every_request_has_a_timeout_and_a_reply() -> None:
    async def main() -> list[Any]:
        async with connect(_stdio("--only", "slow_report", "--only", "crash_report")) as conn:
            slow = await conn.call_tool("slow_report", {"period": "2024"}, timeout=0.5)
            unknown = await conn.request("no/such/method")
            crash = await conn.call_tool("crash_report", {"year": 2024})
            after = await conn.request("tools/list")
            return [slow, unknown, crash, after]

    slow, unknown, crash, after = anyio.run(main)
    assert (slow.kind, slow.detail) == (ReplyKind.TIMEOUT, "no answer within 0.5 s")
    assert (unknown.kind, unknown.code) == (ReplyKind.ERROR, -32601)
    assert crash.kind is ReplyKind.CLOSED and "segmentation fault" in crash.detail
    assert after.kind is ReplyKind.CLOSED


def test_streamable_http(http_server: Callable[..., str]) -> None:
    url = http_server(WAREHOUSE)
    listing = _listing(ServerSpec(url=url))
    assert listing.negotiated.version == "2026-07-28"
    assert [t["name"] for t in listing.tools] == [
        "get_order",
        "list_orders",
        "stock_level",
        "cancel_order",
    ]


def test_http_credentials(http_server: Callable[..., str]) -> None:
    url = http_server(WORKBENCH, "--only", "lookup_order", "--token", "s3cret")
    listing = _listing(ServerSpec(url=url, headers={"Authorization": "Bearer s3cret"}))
    assert [t["name"] for t in listing.tools] == ["lookup_order"]
    with pytest.raises(ServerError) as caught:
        _listing(ServerSpec(url=url, headers={"Authorization": "Bearer wrong"}), connect_timeout=5)
    assert "s3cret" not in str(caught.value) and "wrong" not in str(caught.value)


def test_an_http_server_that_is_not_there(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ServerError, match=r"127\.0\.0\.1"):
        _listing(ServerSpec(url=f"http://127.0.0.1:{port}/mcp"), connect_timeout=5)


def test_wait_for_reads_a_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    assert wait_for(tmp_path / "f") == "x"


def test_the_server_process_group_is_gone_after_a_run(tmp_path: Path) -> None:
    """A server that exits when its stdin closes leaves no helper of its group behind."""
    helper = tmp_path / "helper"
    _listing(_stdio("--only", "lookup_order", "--helper", str(helper)))
    assert wait_gone(int(wait_for(helper)))


def test_a_server_writing_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    """A line on stdout that is not UTF-8 is stdout noise, named as such; the run goes on."""
    listing = _listing(_stdio("--non-utf8-stdout", "--only", "lookup_order"), connect_timeout=5)
    assert [t["name"] for t in listing.tools] == ["lookup_order"]
    (noise,) = listing.problems
    assert noise.code == "mcp.stdout_noise"
    assert "'Loading \\\\xe9t\\\\xe9 index \\\\xff'" in noise.message
    assert "not UTF-8" in noise.message


RAW_SERVER = """\
import json, sys, time
for line in sys.stdin.buffer:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "raw", "version": "1"}}
    elif message["method"] == "tools/list" and sys.argv[1] == "latin-1":
        sys.stdout.buffer.write(b'{"jsonrpc": "2.0", "id": %d, "result": {"tools": [{"name": '
                                b'"caf\\xe9", "inputSchema": {"type": "object"}}]}}\\n'
                                % message["id"])
        sys.stdout.flush()
        continue
    elif message["method"] == "tools/list":
        time.sleep(60)
        continue
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                          "error": {"code": -32601, "message": "Method not found"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("latin-1", "tools/list was answered with bytes that are not UTF-8"),
        ("hang", "tools/list got no answer within 2 s"),
    ],
)
def test_a_tool_list_that_cannot_be_read(tmp_path: Path, mode: str, said: str) -> None:
    script = tmp_path / "raw.py"
    script.write_text(RAW_SERVER)
    spec = ServerSpec(command=(sys.executable, str(script), mode), name="raw")
    with pytest.raises(ServerError) as caught:
        _listing(spec, timeout=2)
    assert str(caught.value).startswith(f"raw: {said}")


DEEP_SERVER = """\
import json, sys
for line in sys.stdin:
    message = json.loads(line)
    if "id" not in message:
        continue
    if message["method"] == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "deep", "version": "1"}}
    elif message["method"] == "tools/list":
        result = {"tools": [{"name": "nest", "inputSchema": {"type": "object"}}]}
    elif message["method"] == "tools/call":
        depth = 400  # valid JSON, deeper than the SDK reads
        sys.stdout.write('{"jsonrpc": "2.0", "id": %d, "result": {"content": [], '
                         '"structuredContent": {"d": %s}}}\\n'
                         % (message["id"], "[" * depth + "]" * depth))
        sys.stdout.flush()
        continue
    else:
        print(json.dumps({"jsonrpc": "2.0", "id": message["id"],
                          "error": {"code": -32601, "message": "Method not found"}}), flush=True)
        continue
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


def test_an_answer_nested_too_deeply_is_an_invalid_answer_at_once(tmp_path: Path) -> None:
    script = tmp_path / "deep.py"
    script.write_text(DEEP_SERVER)
    spec = ServerSpec(command=(sys.executable, str(script)), name="deep")

    async def main() -> Any:
        async with connect(spec, ConnectOptions(timeout=10)) as conn:
            return await conn.call_tool("nest", {}), conn.noise

    reply, noise = anyio.run(main)
    assert reply.kind is ReplyKind.INVALID and reply.seconds < 5
    assert "nested" in reply.detail and "not JSON" not in reply.detail
    assert noise == []
