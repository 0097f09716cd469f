"""What a capture names (a tool, a message) can neither ping people, link issues or URLs in
a Markdown report, nor reach a terminal as control characters through ``-f github``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import CliResult

Run = Callable[..., CliResult]
NAME = "evil\x00\x1b[31mred\x1b[0m"


def _capture(where: Path, tool: str, arguments: str) -> tuple[Path, Path]:
    tools = where / "tools.json"
    tools.write_text(json.dumps({"tools": [{"name": "pay", "inputSchema": {"type": "object"}}]}))
    call = {"id": "c1", "type": "function", "function": {"name": tool, "arguments": arguments}}
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "tool_calls": [call]},
                "finish_reason": "x",
            }
        ],
    }
    capture = where / "call.json"
    capture.write_text(json.dumps(body))
    return tools, capture


def test_markdown_links_nothing(run_cli: Run, tmp_path: Path) -> None:
    """Defect 18: Markdown left @mentions, bare URLs and #1 live."""
    tools, capture = _capture(tmp_path, "@octocat see #1 https://evil.example/x", "{}")
    out = run_cli("check", "--no-config", "-t", str(tools), str(capture), "-f", "markdown").stdout
    assert "unknown\\_tool" in out
    assert "@octocat" not in out and "#1 " not in out and "https://evil" not in out


def test_github_annotations_write_no_control_character(run_cli: Run, tmp_path: Path) -> None:
    """Defect 18: ``-f github`` printed NUL and terminal escape sequences from tool names."""
    tools, capture = _capture(tmp_path, NAME, "{}")
    out = run_cli("check", "--no-config", "-t", str(tools), str(capture), "-f", "github").stdout
    assert "::error" in out
    assert "\x00" not in out and "\x1b" not in out and "\\x1b" in out
