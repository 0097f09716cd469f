"""``mcp guard --listen --upstream`` in front of a Streamable HTTP server, the SDK's client on
the other side, in both protocol generations (2026-07-28 stateless, and a 2025-11-25
session with its Mcp-Session-Id)."""

from __future__ import annotations

import contextlib
import json
import re
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from tests.conftest import REPO
from tests.live.conftest import PYTHON, SERVERS, bulky_answer
from tests.live.guard.test_stdio import error_of, text

if TYPE_CHECKING:
    import httpx2

pytestmark = pytest.mark.slow

KEY = "sk-proj-" + "Hh1Jj2Kk3Ll4Zz5Xx6Cc7Vv8"


@pytest.fixture
def guard_url(
    http_server: Callable[..., str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> Iterator[tuple[str, Path, Path]]:
    """The guard's URL in front of the shipping server over HTTP (with the options a test
    gives as the fixture's parameter); its trace, the server's call log."""
    monkeypatch.setenv("SHIPPING_API_KEY", KEY)
    calls, trace = tmp_path / "calls.jsonl", tmp_path / "trace.jsonl"
    upstream = http_server(SERVERS / "shipping.py", "--call-log", str(calls))
    options: list[str] = list(getattr(request, "param", ()))
    with _guarding(upstream, "-o", str(trace), *options) as (url, _):
        yield url, trace, calls


@contextlib.contextmanager
def _guarding(upstream: str, *options: str) -> Iterator[tuple[str, int]]:
    """``mcp guard --closed --listen`` in front of ``upstream``: its URL and process id."""
    process = subprocess.Popen(
        [PYTHON, "-m", "jsoncontract", "mcp", "guard", "--closed", *options,
         "--listen", "127.0.0.1:0", "--upstream", upstream],
        stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, cwd=REPO,
    )  # fmt: skip
    assert process.stderr is not None
    line = process.stderr.readline().decode()
    found = re.search(r" at (http://\S+)", line)
    assert found, line
    try:
        yield found.group(1), process.pid
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stderr.close()


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_guard_in_front_of_an_http_server(guard_url: tuple[str, Path, Path], mode: str) -> None:
    from mcp import Client

    url, trace, calls = guard_url

    async def main() -> dict[str, Any]:
        with anyio.fail_after(60):
            async with Client(url, mode=mode) as session:
                return {
                    "version": session.protocol_version,
                    "invalid": await session.call_tool(
                        "quote", {"destination": "MARS", "weight_kg": 1}
                    ),
                    "extra": await session.call_tool(
                        "quote", {"destination": "AMS", "weight_kg": 1, "insurance": True}
                    ),
                    "valid": await session.call_tool(
                        "quote", {"destination": "AMS", "weight_kg": 1}
                    ),
                    "secret": await session.call_tool("diagnostics", {}),
                }

    seen = anyio.run(main)
    assert seen["version"] == ("2026-07-28" if mode == "auto" else "2025-11-25")
    invalid = error_of(seen["invalid"])
    assert (invalid["code"], invalid["findings"][0]["path"]) == ("schema.enum", "/destination")
    assert invalid["findings"][0]["allowed"] == ["AMS", "BER", "LIS"]
    assert error_of(seen["extra"])["code"] == "schema.additionalProperties"
    assert json.loads(text(seen["valid"])) == {"ok": True, "eur": 12.5}
    assert KEY not in text(seen["secret"]) and "<redacted openai-api-key" in text(seen["secret"])
    received = [json.loads(line) for line in calls.read_text().splitlines()]
    assert [c["tool"] for c in received] == ["quote", "diagnostics"]
    assert KEY not in trace.read_text()
    assert any(
        line.get("event") == "tools" for line in map(json.loads, trace.read_text().splitlines())
    )


def test_a_compressed_request_is_judged_unpacked(guard_url: tuple[str, Path, Path]) -> None:
    """A body sent with Content-Encoding: gzip is judged as the message it carries, and
    reaches the server unpacked when it passes."""
    import gzip

    import httpx2 as httpx

    url, _trace, calls = guard_url
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "content-encoding": "gzip",
        "mcp-protocol-version": "2025-06-18",
    }

    def post(request_id: int, arguments: dict[str, Any]) -> dict[str, Any]:
        params = {"name": "quote", "arguments": arguments}
        body = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
        response = httpx.post(url, content=gzip.compress(json.dumps(body).encode()),
                              headers=headers, timeout=30)  # fmt: skip
        answer = response.text
        if "text/event-stream" in response.headers.get("content-type", ""):
            answer = next(line[5:] for line in answer.splitlines() if line.startswith("data:"))
        parsed: dict[str, Any] = json.loads(answer)
        return parsed

    init = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}},
    }  # fmt: skip
    response = httpx.post(url, content=gzip.compress(json.dumps(init).encode()), headers=headers)
    session = response.headers.get("mcp-session-id")
    if session:
        headers["mcp-session-id"] = session
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    httpx.post(url, content=gzip.compress(json.dumps(initialized).encode()), headers=headers)
    refused = post(2, {"destination": "MARS", "weight_kg": 1})
    assert refused["error"]["code"] == -32602  # 2025-06-18: Invalid params
    assert refused["error"]["data"]["findings"][0]["path"] == "/destination"
    passed = post(3, {"destination": "AMS", "weight_kg": 1})
    assert passed["result"]["isError"] is False
    received = [json.loads(line) for line in calls.read_text().splitlines()]
    assert [c["arguments"]["destination"] for c in received] == ["AMS"]


@pytest.mark.parametrize("guard_url", [("--max-frame", "1")], indirect=True)
def test_a_body_over_the_limit_is_refused_and_never_reaches_the_server(
    guard_url: tuple[str, Path, Path],
) -> None:
    import httpx2 as httpx

    url, trace, calls = guard_url
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    params = {"name": "quote", "arguments": {"destination": "AMS", "pad": "y" * (2 << 20)}}
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}
    response = httpx.post(url, content=json.dumps(body).encode(), headers=headers, timeout=30)
    assert response.status_code == 413
    answer = response.json()
    assert (answer["id"], answer["error"]["code"]) == (9, -32600)
    assert not calls.exists() or not calls.read_text()
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    (large,) = [r for r in records if r.get("event") == "too_large"]
    assert (large["from"], large["guard"]["decision"]) == ("client", "drop")
    assert large["bytes"] == len(json.dumps(body))


@pytest.mark.parametrize("guard_url", [("--max-frame", "1", "--observe")], indirect=True)
def test_under_observe_a_body_over_the_limit_is_streamed_on(
    guard_url: tuple[str, Path, Path],
) -> None:
    import httpx2 as httpx

    url, trace, calls = guard_url
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
    }
    init = {
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "raw", "version": "1"}},
    }  # fmt: skip
    started = httpx.post(url, content=json.dumps(init).encode(), headers=headers, timeout=30)
    headers["mcp-session-id"] = started.headers["mcp-session-id"]
    initialized = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    httpx.post(url, content=json.dumps(initialized).encode(), headers=headers, timeout=30)
    params = {"name": "quote", "arguments": {"destination": "AMS", "pad": "y" * (2 << 20)}}
    body = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}
    response = httpx.post(url, content=json.dumps(body).encode(), headers=headers, timeout=30)
    assert response.status_code == 200, response.text[:500]
    assert '\\"eur\\": 12.5' in response.text  # the server's answer
    assert [c["tool"] for c in map(json.loads, calls.read_text().splitlines())] == ["quote"]
    # the guard writes the body's record once it has streamed it on, which may end after the
    # host has its answer: wait for the record, with a deadline
    deadline = time.monotonic() + 30
    while True:
        records = [json.loads(line) for line in trace.read_text().splitlines()]
        found = [r for r in records if r.get("event") == "too_large"]
        if found or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    (large,) = found
    assert (large["bytes"], large["guard"]["decision"]) == (len(json.dumps(body)), "pass")


@pytest.fixture
def bulky_guard(
    bulky_upstream: tuple[str, list[bytes]], tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Callable[..., httpx2.Response], Path, list[bytes], int]]:
    """The guard (``--max-frame 1``, and the options a test gives as the fixture's parameter)
    in front of the bulky upstream, its session started: a function that POSTs a message to
    it; the trace; the bodies the upstream was sent; the guard's process id."""
    import httpx2 as httpx

    upstream, received = bulky_upstream
    trace = tmp_path / "trace.jsonl"
    options: list[str] = list(getattr(request, "param", ()))
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
    }

    with _guarding(upstream, "-o", str(trace), "--max-frame", "1", *options) as (url, pid):

        def post(message: Any, **extra: str) -> httpx.Response:
            body = message if isinstance(message, bytes) else json.dumps(message).encode()
            return httpx.post(url, content=body, headers=headers | extra, timeout=30)

        post({"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "raw", "version": "1"}}})  # fmt: skip
        post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        yield post, trace, received, pid


def _export(request_id: int, size: int, how: str) -> dict[str, Any]:
    params = {"name": "export", "arguments": {"bytes": size, "how": how}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _answer(response: httpx2.Response) -> dict[str, Any]:
    """The one message of a response (a JSON body, or the data of an event)."""
    text = response.text
    if "text/event-stream" in response.headers.get("content-type", ""):
        text = next(line[5:] for line in text.splitlines() if line.startswith("data:"))
    parsed: dict[str, Any] = json.loads(text)
    return parsed


def _too_large(trace: Path) -> list[dict[str, Any]]:
    """The ``too_large`` records of the trace, once written (with a deadline: a record is
    written once the body has been passed on, which may end after the host has it)."""
    deadline = time.monotonic() + 30
    while True:
        records = [json.loads(line) for line in trace.read_text().splitlines()]
        found = [r for r in records if r.get("event") == "too_large"]
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.02)


@pytest.mark.parametrize("how", ["json", "gzip", "sse"])
def test_an_answer_over_the_limit_is_kept_from_the_host(
    bulky_guard: tuple[Callable[..., httpx2.Response], Path, list[bytes], int], how: str
) -> None:
    """An answer past ``--max-frame`` (a body, a body once unpacked: 2 MiB from 2 KB of
    gzip, or an event) cannot be judged: as over stdio, the host gets a
    ``guard.frame_too_large`` error in its place, and the guard never holds it whole."""
    post, trace, _, _ = bulky_guard
    small = _answer(post(_export(8, 100, how)))
    assert small == json.loads(bulky_answer(8, 100))
    answer = _answer(post(_export(9, 2 << 20, how)))
    assert answer["id"] == 9
    assert answer["result"]["isError"] is True
    error = json.loads(answer["result"]["content"][0]["text"])["error"]
    assert error["code"] == "guard.frame_too_large"
    (large,) = _too_large(trace)
    assert (large["from"], large["guard"]["decision"]) == ("server", "drop")
    assert large["bytes"] >= 2 << 20


@pytest.mark.parametrize("bulky_guard", [("--observe",)], indirect=True)
@pytest.mark.parametrize("how", ["json", "gzip", "sse"])
def test_under_observe_an_answer_over_the_limit_is_passed_on(
    bulky_guard: tuple[Callable[..., httpx2.Response], Path, list[bytes], int], how: str
) -> None:
    post, trace, _, _ = bulky_guard
    answer = _answer(post(_export(9, 2 << 20, how)))
    assert answer["result"]["content"][0]["text"].startswith("xxx")
    assert len(json.dumps(answer, separators=(",", ":"))) == 2 << 20
    (large,) = _too_large(trace)
    assert (large["from"], large["guard"]["decision"]) == ("server", "pass")


def test_a_request_that_unpacks_past_the_limit_is_refused(
    bulky_guard: tuple[Callable[..., httpx2.Response], Path, list[bytes], int],
) -> None:
    """A 2 KB gzip body that unpacks to 2 MiB (a decompression bomb) is refused as one
    past the limit, unpacked no further than the limit, and never reaches the server."""
    import gzip

    post, trace, received, _ = bulky_guard
    body = _export(9, 10, "json") | {"pad": "z" * (2 << 20)}
    response = post(gzip.compress(json.dumps(body).encode()), **{"content-encoding": "gzip"})
    assert response.status_code == 413
    answer = response.json()
    assert (answer["id"], answer["error"]["code"]) == (9, -32600)
    assert not [r for r in received if b"tools/call" in r]
    (large,) = _too_large(trace)
    assert (large["from"], large["guard"]["decision"]) == ("client", "drop")


def test_a_gzip_bomb_costs_the_guard_no_more_than_the_limit(
    bulky_guard: tuple[Callable[..., httpx2.Response], Path, list[bytes], int],
) -> None:
    """An answer of 64 KB of gzip that unpacks to 64 MiB: unpacked a piece at a time and
    held no further than the limit (it was read whole: 64 MiB more and then some)."""
    from tests.live.test_record_framing import peak_memory

    post, _, _, pid = bulky_guard
    post(_export(8, 100, "gzip"))
    before = peak_memory(pid)
    answer = _answer(post(_export(9, 64 << 20, "gzip")))
    grown = peak_memory(pid) - before
    assert json.loads(answer["result"]["content"][0]["text"])["error"]["code"] == (
        "guard.frame_too_large"
    )
    assert grown < 16 << 20, f"{grown:,} bytes"


@pytest.mark.parametrize("bulky_upstream", [2 << 20], indirect=True)
def test_a_tool_list_over_the_limit_is_a_failed_listing(
    bulky_guard: tuple[Callable[..., httpx2.Response], Path, list[bytes], int],
) -> None:
    """The answer to the guard's own ``tools/list`` is bounded too: past the limit, the
    guard has no tool list, and a call is answered so, never passed on."""
    post, trace, received, _ = bulky_guard
    answer = _answer(post(_export(9, 10, "json")))
    assert answer["id"] == 9 and answer["result"]["isError"] is True
    error = json.loads(answer["result"]["content"][0]["text"])["error"]
    assert error["code"] == "guard.no_tool_list"
    assert not [r for r in received if b"tools/call" in r]
    records = [json.loads(line) for line in trace.read_text().splitlines()]
    (own,) = [r for r in records if r.get("guard", {}).get("decision") == "own"]
    why = own["frame"]["error"]["message"]
    assert why.startswith("the server's answer of ")
    assert why.endswith(" bytes is over the limit of 1,048,576 (--max-frame)")
