"""The settings of a check run: the tools a trace of ``mcp guard`` carries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jsoncontract.errors import UsageError
from jsoncontract.pipeline.settings import trace_tools
from jsoncontract.settings import Config

TOOL = {"name": "quote", "inputSchema": {"type": "object"}}


def _trace(tmp_path: Path) -> str:
    path = tmp_path / "guard.jsonl"
    lines = [
        {"trace": "mcp", "event": "start", "time": "2026-01-01T00:00:00Z"},
        {"trace": "mcp", "event": "tools", "time": "2026-01-01T00:00:00Z", "tools": [TOOL]},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


def test_a_guard_trace_gives_its_tools_when_none_are_named(tmp_path: Path) -> None:
    trace = _trace(tmp_path)
    assert [t.name for t in trace_tools(Config(), captures=[trace])] == ["quote"]
    assert trace_tools(Config(), captures=[trace], tools=[tmp_path / "tools.json"]) == []
    plain = tmp_path / "plain.jsonl"
    plain.write_text('{"trace": "mcp", "event": "start"}\n')
    assert trace_tools(Config(), captures=[str(plain)]) == []


def test_spark_reads_the_tools_from_files(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="name them with --tools"):
        trace_tools(Config(), captures=[_trace(tmp_path)], spark="local[2]")
