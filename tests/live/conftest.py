"""Live MCP servers for the tests: the scripts in ``servers/``, started over stdio by the code
under test, or over Streamable HTTP on 127.0.0.1 (an ephemeral port) by a fixture."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

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
