"""Helpers for the capture tests: read files into calls, build JSONL and SSE text, fake stdin."""

from __future__ import annotations

import io
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import pytest

from jsoncontract.capture import CaptureReader

if TYPE_CHECKING:
    from jsoncontract.model import Severity, ToolCall


@pytest.fixture
def read() -> Callable[..., list[ToolCall]]:
    """``read(path, ..., dialect=, tool=, max_line_bytes=)``: every call, in order."""

    def _read(*paths: str | Path, **options: Any) -> list[ToolCall]:
        return list(CaptureReader(**options).read(paths))

    return _read


@pytest.fixture
def jsonl() -> Callable[..., str]:
    """One line per argument: strings as they are, anything else as compact JSON."""

    def _jsonl(*items: object) -> str:
        lines = [i if isinstance(i, str) else orjson.dumps(i).decode() for i in items]
        return "\n".join(lines) + "\n"

    return _jsonl


@pytest.fixture
def sse_text() -> Callable[..., str]:
    """Server-Sent Events text, one ``data:`` event per value (``named=True`` adds ``event:``)."""

    def _sse(*events: dict[str, Any], named: bool = False) -> str:
        out = []
        for event in events:
            if named:
                out.append(f"event: {event['type']}\n")
            out.append(f"data: {orjson.dumps(event).decode()}\n\n")
        return "".join(out)

    return _sse


@pytest.fixture
def stdin(monkeypatch: pytest.MonkeyPatch) -> Callable[[bytes], None]:
    """Replace standard input with these bytes."""

    def _stdin(data: bytes) -> None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))

    return _stdin


@pytest.fixture
def findings() -> Callable[[ToolCall], list[tuple[str, Severity]]]:
    """``findings(call)``: the (code, severity) of what extraction found wrong."""

    def _findings(call: ToolCall) -> list[tuple[str, Severity]]:
        return [(f.code, f.severity) for f in call.load_findings]

    return _findings
