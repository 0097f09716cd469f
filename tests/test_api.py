"""The library entry points: what they accept, and errors that say what to fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from jsoncontract import check
from jsoncontract.errors import UsageError
from jsoncontract.model import Dialect
from tests.conftest import FIXTURES

TOOLS = [FIXTURES / "tools"]
MCP_CAPTURE = [FIXTURES / "captures" / "mcp" / "tools-call-ok.json"]


@pytest.mark.parametrize("dialect", ["mcp", Dialect.MCP])
def test_a_forced_dialect_by_name_or_member(dialect: str | Dialect) -> None:
    report = check(MCP_CAPTURE, tools=TOOLS, dialect=dialect)
    assert [r.call.dialect for r in report.results] == [Dialect.MCP]


@pytest.mark.parametrize("dialect", ["nope", "json-schema", Dialect.JSON_SCHEMA])
def test_a_dialect_no_capture_is_in_is_a_usage_error(dialect: str | Dialect) -> None:
    with pytest.raises(UsageError, match=r"unknown capture dialect .*; use one of: .*openai-chat"):
        check(MCP_CAPTURE, tools=TOOLS, dialect=dialect)


def test_following_takes_one_capture() -> None:
    from jsoncontract import Follow, iter_check

    with pytest.raises(UsageError, match="following a capture as it grows takes one file"):
        list(iter_check([*MCP_CAPTURE, *MCP_CAPTURE], tools=TOOLS, follow=Follow()))


def test_a_followed_capture_yields_each_call_as_its_line_is_written(tmp_path: Path) -> None:
    """The library's --follow: the run goes on in a thread while the file grows, each call
    comes as its line is written (waited for with a deadline), and stopping ends the run
    with its summary."""
    import queue
    import threading

    from jsoncontract import Follow, iter_check
    from jsoncontract.model import CallResult, Summary

    lines = (FIXTURES / "captures" / "trace.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp_path / "agent.jsonl"
    path.write_bytes(b"")
    follow, summary = Follow(poll=0.01), Summary()
    came: queue.Queue[CallResult | None] = queue.Queue()

    def run() -> None:
        for result in iter_check([path], tools=TOOLS, window=0, follow=follow, summary=summary):
            came.put(result)
        came.put(None)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        for line, tool in ((lines[4], "get_weather"), (lines[12], "update_shipmnt")):
            with path.open("ab") as stream:
                stream.write(line)
            result = came.get(timeout=30)
            assert result is not None and result.call.tool == tool
    finally:
        follow.stop.set()
        thread.join(30)
    assert came.get(timeout=1) is None
    assert (summary.calls, summary.failed, summary.files) == (2, 1, 1)
