"""A real headless Chromium (Debian's ``chromium`` package), driven over the DevTools
protocol on a pipe: HTML reports are opened as a person would open them, and whatever the
page logs, throws or tries to fetch is recorded."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import pytest

CHROMIUM = "/usr/bin/chromium"
#: Where tests leave what a person may want to look at (screenshots).
ARTIFACTS = Path(
    os.environ.get("JSONCONTRACT_TEST_ARTIFACTS")
    or Path(__file__).resolve().parents[2] / "test-artifacts"
)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--hide-scrollbars",
    "--remote-debugging-pipe",
)


@dataclass
class Visit:
    """What happened while a page was open."""

    console: list[dict[str, Any]] = field(default_factory=list)
    exceptions: list[dict[str, Any]] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    @property
    def errors(self) -> list[str]:
        """Console errors, uncaught exceptions and error log entries (CSP violations
        included), as text."""
        out = [
            " ".join(str(a.get("value", a.get("description", ""))) for a in c.get("args", []))
            for c in self.console
            if c.get("type") in ("error", "assert", "warning")
        ]
        out.extend(e.get("exceptionDetails", {}).get("text", "exception") for e in self.exceptions)
        out.extend(e["entry"]["text"] for e in self.log if e["entry"].get("level") == "error")
        return out


class Chromium:
    """One browser process; :meth:`open` a page, then evaluate and take screenshots."""

    def __init__(self) -> None:
        self.profile = tempfile.mkdtemp(prefix="jsoncontract-chromium-")
        commands_read, self._commands = os.pipe()
        self._events, events_write = os.pipe()

        def wire() -> None:  # the protocol's pipe is fds 3 (commands) and 4 (replies)
            a, b = os.dup(commands_read), os.dup(events_write)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={self.profile}", "about:blank"],
            preexec_fn=wire,
            close_fds=False,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(commands_read)
        os.close(events_write)
        self._out: IO[bytes] = os.fdopen(self._commands, "wb", buffering=0)
        self._in: IO[bytes] = os.fdopen(self._events, "rb", buffering=0)
        self._buffer = b""
        self._next = 0
        self.session: str | None = None
        self.visit = Visit()

    def send(self, method: str, params: dict[str, Any] | None = None, *, page: bool = True) -> Any:
        """Call a protocol method and wait for its answer (recording events meanwhile)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params or {}}
        if page and self.session is not None:
            message["sessionId"] = self.session
        self._out.write(json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._event(reply)

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = self._in.read(1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)  # type: ignore[no-any-return]

    def _event(self, event: dict[str, Any]) -> None:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled":
            self.visit.console.append(params)
        elif method == "Runtime.exceptionThrown":
            self.visit.exceptions.append(params)
        elif method == "Log.entryAdded":
            self.visit.log.append(params)
        elif method == "Network.requestWillBeSent":
            self.visit.requests.append(params["request"]["url"])
        elif method == "Page.loadEventFired":
            self._loaded = True

    def open(self, path: Path, width: int = 1280, height: int = 900) -> Visit:
        """Open a file in a fresh tab and wait until it has loaded."""
        target = self.send("Target.createTarget", {"url": "about:blank"}, page=False)
        attached = self.send(
            "Target.attachToTarget", {"targetId": target["targetId"], "flatten": True}, page=False
        )
        self.session = attached["sessionId"]
        self.visit = Visit()
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )
        self._loaded = False
        self.send("Page.navigate", {"url": path.resolve().as_uri()})
        while not self._loaded:
            self._event(self._read())
        self.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
        return self.visit

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
        if "exceptionDetails" in result:
            raise RuntimeError(result["exceptionDetails"].get("text"))
        return result["result"].get("value")

    def screenshot(self, path: Path, selector: str | None = None) -> Path:
        """A PNG of the page (the whole of it), or of the element ``selector`` matches."""
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": True}
        if selector is not None:
            box = self.evaluate(
                f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                ".getBoundingClientRect(); return [r.x + scrollX, r.y + scrollY, r.width, "
                "r.height]; })()"
            )
        else:
            box = self.evaluate(
                "[0, 0, document.documentElement.scrollWidth, "
                "document.documentElement.scrollHeight]"
            )
        x, y, width, height = box
        params["clip"] = {"x": x, "y": y, "width": width, "height": height, "scale": 1}
        data = base64.b64decode(self.send("Page.captureScreenshot", params)["data"])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, OSError):
            self.send("Browser.close", page=False)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self._out.close()
        self._in.close()
        shutil.rmtree(self.profile, ignore_errors=True)


@pytest.fixture(scope="session")
def chromium() -> Iterator[Chromium]:
    """A headless Chromium for the session (Debian's package; .ci/run installs it)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (as .ci/run does)")
    browser = Chromium()
    try:
        yield browser
    finally:
        browser.close()


@pytest.fixture
def artifacts() -> Path:
    """The directory test artifacts are written to."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS
