"""Small MCP and model-hop exchanges written as captures and checked, for the tests of the
result gate and the session contracts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsoncontract import check
from jsoncontract.model import CheckReport, Finding
from jsoncontract.tools import ToolSet

OBJECT = "object"


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": OBJECT, "properties": properties, "required": required}


TOOLS: list[dict[str, Any]] = [
    {
        "name": "get_weather",
        "description": "The weather in a city now.",
        "inputSchema": _object({"city": {"type": "string"}}, ["city"]),
        "outputSchema": _object({"temp_c": {"type": "number"}}, ["temp_c"]),
        "annotations": {"readOnlyHint": True},
    },
    {
        "name": "refund_payment",
        "description": "Refund a payment.",
        "inputSchema": _object(
            {
                "payment_id": {"type": "string"},
                "amount": {"type": "number"},
                "reason": {"type": "string"},
                "idempotency_key": {"type": "string"},
            },
            ["payment_id", "amount", "idempotency_key"],
        ),
        "outputSchema": _object(
            {"refund_id": {"type": "string"}, "amount": {"type": "number"}},
            ["refund_id", "amount"],
        ),
    },
    {
        "name": "send_email",
        "description": "Send an e-mail.",
        "inputSchema": _object(
            {"to": {"type": "string"}, "body": {"type": "string"}}, ["to", "body"]
        ),
    },
    {
        "name": "close_ticket",
        "description": "Close a support ticket for good.",
        "inputSchema": _object({"ticket": {"type": "string"}}, ["ticket"]),
        "annotations": {"readOnlyHint": False, "destructiveHint": True},
    },
    {
        "name": "lookup_order",
        "description": "Look up an order.",
        "inputSchema": _object({"order_id": {"type": "string"}}, ["order_id"]),
        "annotations": {"readOnlyHint": True},
    },
]


def tools_file(where: Path) -> Path:
    path = where / "tools.json"
    path.write_text(json.dumps({"tools": TOOLS}))
    return path


def initialize(version: str = "2025-11-25", list_changed: bool | None = None) -> list[Any]:
    """The initialize exchange (request id 0)."""
    capabilities: dict[str, Any] = {"tools": {}}
    if list_changed is not None:
        capabilities["tools"]["listChanged"] = list_changed
    return [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": version}},
        {
            "jsonrpc": "2.0",
            "id": 0,
            "result": {
                "protocolVersion": version,
                "capabilities": capabilities,
                "serverInfo": {"name": "shop", "version": "1"},
            },
        },
    ]


def listing(request_id: int, tools: list[dict[str, Any]] | None = None) -> list[Any]:
    """A tools/list exchange."""
    return [
        {"jsonrpc": "2.0", "id": request_id, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": request_id, "result": {"tools": tools or TOOLS}},
    ]


def request(request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }


def answer(request_id: int, **result: Any) -> dict[str, Any]:
    """A tools/call result; ``text`` becomes one text block, ``structured`` the
    structuredContent (mirrored in the text unless ``text`` is given)."""
    body: dict[str, Any] = {}
    if "structured" in result:
        body["structuredContent"] = result.pop("structured")
        text = result.pop("text", json.dumps(body["structuredContent"]))
    else:
        text = result.pop("text", "done")
    body["content"] = [] if text is None else [{"type": "text", "text": text}]
    if result.pop("error", False):
        body["isError"] = True
    body.update(result)
    return {"jsonrpc": "2.0", "id": request_id, "result": body}


def failure(request_id: int, code: int, message: str = "Invalid params") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def exchange(
    request_id: int, tool: str, arguments: dict[str, Any], **result: Any
) -> list[dict[str, Any]]:
    return [request(request_id, tool, arguments), answer(request_id, **result)]


def run(where: Path, lines: list[Any], name: str = "trace.jsonl", **options: Any) -> CheckReport:
    """Check ``lines`` written as one JSONL capture against :data:`TOOLS`."""
    path = where / name
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return check([path], tools=ToolSet.from_paths([tools_file(where)]), **options)


def codes(report: CheckReport, prefix: str = "") -> list[str]:
    """Every code of the report (calls' findings, then the run's), in order."""
    found = [f.code for r in report.results for f in r.findings]
    found += [f.code for f in report.findings]
    return [c for c in found if c.startswith(prefix)]


def findings(report: CheckReport, code: str) -> list[Finding]:
    every = [f for r in report.results for f in r.findings] + list(report.findings)
    return [f for f in every if f.code == code]
