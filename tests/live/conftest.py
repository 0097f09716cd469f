"""Live MCP servers for the tests: the scripts in ``servers/``, started over stdio by the code
under test, or over Streamable HTTP on 127.0.0.1 (an ephemeral port) by a fixture."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

SERVERS = Path(__file__).resolve().parent / "servers"
PYTHON = sys.executable
WORKBENCH = SERVERS / "workbench.py"
WAREHOUSE = SERVERS / "warehouse.py"


def workbench(*args: str) -> list[str]:
    """The command line of the workbench server."""
    return [PYTHON, str(WORKBENCH), *args]


def warehouse(*args: str) -> list[str]:
    """The command line of the warehouse server."""
    return [PYTHON, str(WAREHOUSE), *args]


def alive(pid: int) -> bool:
    """Whether a process runs (a zombie waiting to be reaped does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - another user's process reused the id
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def wait_gone(pid: int, seconds: float = 10.0) -> bool:
    """Wait until the process is gone; whether it went."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.05)
    return not alive(pid)


def wait_for(path: Path, seconds: float = 30.0) -> str:
    """The content of a file another process writes, once it exists."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if path.exists():
            text = path.read_text()
            if text:
                return text
        time.sleep(0.02)
    raise AssertionError(f"{path} did not appear within {seconds} s")


_TIMES = re.compile(r"\s*\b\d+(?:\.\d+)? (?:ms|s)\b")
#: A row of check's tool table with latencies: four counts, then p50, p95 and max.
_LATENCIES = re.compile(r"(?m)^(  \S+(?: +\d+){4})(?: +\d+(?:\.\d+)?){3}$")


def untimed(text: str) -> str:
    """Output with durations replaced by `` N ms`` (they vary from run to run), and the
    latencies of check's tool table by ``N``."""
    text = _LATENCIES.sub(r"\1  N  N  N", text)
    return _TIMES.sub(" N ms", text)


def verify_differences(run_cli: Callable[..., Any], trace: Path, edited: Path) -> set[str]:
    """``mcp verify TRACE`` against a replay of ``edited``: it must exit 1; the kinds of the
    differences it found."""
    import json

    differs = run_cli(
        "mcp",
        "verify",
        "-f",
        "json",
        str(trace),
        "--",
        "jsoncontract",
        "mcp",
        "replay",
        str(edited),
    )
    assert differs.code == 1, differs.stderr
    report = json.loads(differs.stdout)
    return {f["code"] for e in report["exchanges"] for f in e["findings"]}


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[Callable[..., str]]:
    """Start a test server over Streamable HTTP; returns its URL. Stopped (and checked
    gone) after the test."""
    started: list[subprocess.Popen[bytes]] = []

    def start(script: Path, *args: str) -> str:
        url_file = tmp_path / f"url-{len(started)}"
        process = subprocess.Popen(
            [PYTHON, str(script), "--http", str(url_file), *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        started.append(process)
        return wait_for(url_file)

    yield start
    for process in started:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:  # pragma: no cover - a stuck test server
            process.kill()
            process.wait()
        assert process.returncode is not None


@pytest.fixture
def repo_cwd(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Run from the repository root, with this interpreter first on PATH (so ``python``
    in a command line is the one with the SDK installed)."""
    root = SERVERS.parent.parent.parent
    monkeypatch.chdir(root)
    monkeypatch.setenv("PATH", str(Path(PYTHON).parent) + os.pathsep + os.environ["PATH"])
    return root


REAL = Path(__file__).resolve().parent / "real"


@pytest.fixture(scope="session")
def npm_servers() -> Path:
    """The reference servers from npm (tests/live/real/package.json, pinned by its lock),
    installed once with ``npm ci`` (under a lock: parallel workers share the install).
    Returns the directory of their executables."""
    import fcntl
    import shutil

    bin_dir = REAL / "node_modules" / ".bin"
    npm = shutil.which("npm")
    assert npm is not None, "the real-server tests need Node.js and npm (node 20 or later)"
    with (REAL / ".install.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        stamp = REAL / "node_modules" / ".package-lock.json"
        if (
            not stamp.exists()
            or stamp.stat().st_mtime < (REAL / "package-lock.json").stat().st_mtime
        ):
            subprocess.run(
                [npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
                cwd=REAL,
                check=True,
                capture_output=True,
                timeout=600,
            )
    return bin_dir


def everything(bin_dir: Path, *args: str) -> list[str]:
    """The command line of @modelcontextprotocol/server-everything over stdio."""
    return [str(bin_dir / "mcp-server-everything"), "stdio", *args]


def time_server(*args: str) -> list[str]:
    """The command line of mcp-server-time (PyPI)."""
    return [PYTHON, "-m", "mcp_server_time", *args]


#: The tool the bulky upstream serves: its answer is ``bytes`` long, sent as ``how`` says
#: (``json``, ``gzip``: a JSON body packed, ``sse``: one server-sent event).
BULKY_TOOL = {
    "name": "export",
    "description": "An export of the size asked for.",
    "inputSchema": {
        "type": "object",
        "properties": {"bytes": {"type": "integer"}, "how": {"type": "string"}},
    },
}


def bulky_answer(request_id: Any, size: int) -> bytes:
    """A ``tools/call`` answer of ``size`` bytes (at least its frame's)."""
    head = b'{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"' % (
        json.dumps(request_id).encode()
    )
    tail = b'"}]}}'
    return head + b"x" * max(size - len(head) - len(tail), 0) + tail


@pytest.fixture
def bulky_upstream(request: pytest.FixtureRequest) -> Iterator[tuple[str, list[bytes]]]:
    """A Streamable HTTP MCP server (the standard library's HTTP server, stateless) whose
    ``export`` tool answers as large as asked, as a JSON body, a gzip one or an event (and
    whose tool list is padded to the bytes a test gives as the fixture's parameter); its
    URL, and the bodies it was sent."""
    import gzip
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    received: list[bytes] = []

    class Upstream(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            raw = self._body()
            if self.headers.get("Content-Encoding") == "gzip":
                raw = gzip.decompress(raw)
            received.append(raw)
            message = json.loads(raw)
            method, request_id = message.get("method"), message.get("id")
            if request_id is None:
                self._send(202, b"", "application/json")
                return
            how = "json"
            if method == "initialize":
                result = {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "bulky", "version": "1"},
                }
                body = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()
            elif method == "tools/list":
                padded = {**BULKY_TOOL, "description": "x" * getattr(request, "param", 0)}
                result = {"tools": [padded if padded["description"] else BULKY_TOOL]}
                body = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": result}).encode()
            else:
                arguments = message["params"].get("arguments", {})
                how = arguments.get("how", "json")
                body = bulky_answer(request_id, int(arguments.get("bytes", 0)))
            if how == "sse":
                self._send(200, b"event: message\ndata: " + body + b"\n\n", "text/event-stream")
            elif how == "gzip":
                self._send(200, gzip.compress(body), "application/json", gzip=True)
            else:
                self._send(200, body, "application/json")

        def _body(self) -> bytes:
            if self.headers["Content-Length"] is not None:
                return self.rfile.read(int(self.headers["Content-Length"]))
            chunks = []  # a body streamed on: chunked
            while size := int(self.rfile.readline().split(b";")[0], 16):
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
            self.rfile.readline()
            return b"".join(chunks)

        def _send(self, status: int, body: bytes, kind: str, gzip: bool = False) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            if gzip:
                self.send_header("Content-Encoding", "gzip")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp", received
    finally:
        server.shutdown()
        server.server_close()
