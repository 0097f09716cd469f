"""Tool files written to hurt the linter: network references, huge and tangled schemas,
values no JSON writer can write back. Each must give findings or a clear error, fast."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from jsoncontract._gc import collector_paused
from jsoncontract.lint.engine import Linter
from jsoncontract.lint.regex import analyse
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


def _timed_lint(document: Any, tmp_path: Path, **options: Any) -> tuple[LintReport, float]:
    started = time.process_time()
    report = lint_document(document, tmp_path, **options)
    return report, time.process_time() - started


def test_a_long_chain_of_references_is_linear(tmp_path: Path) -> None:
    # 2,000 definitions each referring to the next: the recursion search used to try every
    # reference as a start and rescan every reference at each step (hours at this size)
    count = 2000
    defs: dict[str, Any] = {
        f"d{i}": {"type": "object", "properties": {"next": {"$ref": f"#/$defs/d{i + 1}"}}}
        for i in range(count)
    }
    defs[f"d{count}"] = {"type": "string"}
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}
    report, seconds = _timed_lint(
        mcp_tool(schema), tmp_path, profiles=("anthropic-strict", "gemini"), select=["JC033"]
    )
    assert report.findings == []
    assert seconds < 10


def test_a_reference_loop_at_the_end_of_a_long_chain_is_found(tmp_path: Path) -> None:
    count = 500
    defs: dict[str, Any] = {
        f"d{i}": {"type": "object", "properties": {"next": {"$ref": f"#/$defs/d{i + 1}"}}}
        for i in range(count)
    }
    defs[f"d{count}"] = {"type": "array", "items": {"$ref": f"#/$defs/d{count - 1}"}}
    schema = {"type": "object", "properties": {"x": {"$ref": "#/$defs/d0"}}, "$defs": defs}
    report = lint_document(mcp_tool(schema), tmp_path, profiles=("anthropic-strict",))
    found = [item for item in report.findings if item.code == "JC033"]
    assert [item.path for item in found] == [
        f"/inputSchema/$defs/d{count - 1}/properties/next/$ref"
    ]


def test_unused_definitions_of_a_wide_schema_are_found_in_linear_time(tmp_path: Path) -> None:
    # 20,000 definitions, every one but the last referenced: the check compared every
    # definition with every reference (40 s at this size)
    count = 20_000
    defs = {f"d{i}": {"type": "string", "description": "A definition."} for i in range(count)}
    props = {f"p{i}": {"$ref": f"#/$defs/d{i}"} for i in range(count - 1)}
    schema = {"type": "object", "properties": props, "$defs": defs}
    report, seconds = _timed_lint(mcp_tool(schema), tmp_path, select=["JC154"])
    assert [item.path for item in report.findings] == [f"/inputSchema/$defs/d{count - 1}"]
    assert seconds < 10


def test_long_patterns_are_analysed_in_linear_time() -> None:
    # a repetition holding 1,600 quantified items: every inner repetition looked at every
    # other item around it (a second per pattern; a file can hold thousands of them)
    patterns = [f"^({'a*b' * 1600}{suffix})*$" for suffix in "cdefghijklmnopqrstuv"]
    started = time.process_time()  # CPU time: other processes on the machine do not count
    with collector_paused():  # as the linter runs it: the test process's heap is no factor
        for pattern in patterns:
            facts = analyse(pattern)
            assert facts is not None and facts.catastrophic is None
    assert time.process_time() - started < 3
    facts = analyse("^(" + "a*b" * 1600 + "b*)*$")
    assert facts is not None and facts.catastrophic is not None


def test_an_object_with_tens_of_thousands_of_properties_is_linear(tmp_path: Path) -> None:
    # every property asked whether its object requires it by scanning the whole required
    # list, and so did the anthropic-strict count of optional parameters
    count = 40_000
    props = {f"p{i}": {"type": "string", "description": "A value."} for i in range(count)}
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": props,
        "required": list(props)[:-1],
    }
    report, seconds = _timed_lint(
        mcp_tool(schema),
        tmp_path,
        profiles=("openai-strict", "anthropic-strict"),
        select=["JC021", "JC031"],
    )
    assert [item.path for item in report.findings if item.code == "JC021"] == [
        f"/inputSchema/properties/p{count - 1}"
    ]
    assert seconds < 10
