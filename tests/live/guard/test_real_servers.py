"""``mcp guard`` in front of real servers from the registries: ``mcp-server-time`` (PyPI, the
``servers`` extra) and ``@modelcontextprotocol/server-everything`` (npm, installed from
``tests/live/real/package-lock.json``), driven by the official SDK's client."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.live.conftest import everything, time_server
from tests.live.guard.test_stdio import error_of, guarded, received, run, text

pytestmark = pytest.mark.slow

KEY = "sk-proj-" + "Qq1Ww2Ee3Rr4Tt5Yy6Uu7Ii8"


def test_mcp_server_time(tmp_path: Path) -> None:
    stdin_copy = tmp_path / "stdin.jsonl"

    async def body(session: Any) -> dict[str, Any]:
        return {
            "version": session.protocol_version,
            "invalid": await session.call_tool("get_current_time", {"timezone": 5}),
            "valid": await session.call_tool("get_current_time", {"timezone": "Europe/Paris"}),
            "extra": await session.call_tool(
                "get_current_time", {"timezone": "UTC", "format": "iso"}
            ),
        }

    seen = run(guarded("--closed", server=time_server(), stdin_copy=stdin_copy), body)
    assert seen["version"] == "2026-07-28"
    invalid = error_of(seen["invalid"])
    assert (invalid["code"], invalid["findings"][0]["path"]) == ("schema.type", "/timezone")
    assert json.loads(text(seen["valid"]))["timezone"] == "Europe/Paris"
    extra = error_of(seen["extra"])
    assert (extra["code"], extra["findings"][0]["path"]) == (
        "schema.additionalProperties",
        "/format",
    )
    assert [c["params"]["arguments"] for c in received(stdin_copy)] == [
        {"timezone": "Europe/Paris"}
    ]


def test_server_everything(tmp_path: Path, npm_servers: Path) -> None:
    stdin_copy, trace = tmp_path / "stdin.jsonl", tmp_path / "trace.jsonl"

    async def body(session: Any) -> dict[str, Any]:
        return {
            "version": session.protocol_version,
            "invalid": await session.call_tool("get-sum", {"a": "1", "b": 2}),
            "valid": await session.call_tool("get-sum", {"a": 1, "b": 2}),
            "extra": await session.call_tool("echo", {"message": "hi", "loud": True}),
            "env": await session.call_tool("get-env", {}),
        }

    args = guarded(
        "--closed", "-o", str(trace), "-e", f"OPENAI_API_KEY={KEY}",
        server=everything(npm_servers), stdin_copy=stdin_copy,
    )  # fmt: skip
    seen = run(args, body)
    assert seen["version"] == "2025-11-25"  # the TypeScript SDK negotiates by initialize
    invalid = error_of(seen["invalid"])
    assert (invalid["code"], invalid["findings"][0]["path"]) == ("schema.type", "/a")
    assert text(seen["valid"]) == "The sum of 1 and 2 is 3."
    extra = error_of(seen["extra"])
    assert (extra["code"], extra["findings"][0]["path"]) == ("schema.additionalProperties", "/loud")
    shown = text(seen["env"])
    assert KEY not in shown and "<redacted openai-api-key sha256:" in shown
    assert KEY not in trace.read_text()
    assert [c["params"]["name"] for c in received(stdin_copy)] == ["get-sum", "get-env"]
