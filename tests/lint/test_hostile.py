"""Tool files written to hurt the linter: network references, huge and tangled schemas,
values no JSON writer can write back. Each must give findings or a clear error, fast."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from jsoncontract.lint.engine import Linter
from jsoncontract.lint.report import LintReport
from jsoncontract.lint.settings import build_settings


def lint_document(
    document: Any, tmp_path: Path, *, profiles: tuple[str, ...] = ("generic",), **options: Any
) -> LintReport:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    settings = build_settings(None, profiles=list(profiles), **options)
    return Linter(settings).lint_paths([path])


def mcp_tool(schema: dict[str, Any], name: str = "probe") -> dict[str, Any]:
    return {"name": name, "description": "A tool that tests the linter.", "inputSchema": schema}


class _Recorder(BaseHTTPRequestHandler):
    requests: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).requests.append(self.path)
        self.send_response(404)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def http_server() -> Iterator[tuple[str, list[str]]]:
    """A local server recording every request made to it."""
    _Recorder.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", _Recorder.requests
    finally:
        server.shutdown()
        server.server_close()


def test_no_rule_fetches_a_network_ref(tmp_path: Path, http_server: tuple[str, list[str]]) -> None:
    url, requests = http_server
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "o": {
                "type": "object",
                "default": {"a": 1},
                "properties": {"a": {"$ref": f"{url}/schema.json"}},
            }
        },
    }
    report = lint_document(mcp_tool(schema), tmp_path, profiles=("all",))
    assert requests == []
    assert "JC003" in {item.code for item in report.findings}
