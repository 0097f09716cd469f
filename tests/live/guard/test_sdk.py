"""The guard inside a server built with the official Python SDK (its middleware), with the
SDK's client connected in-process."""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from pydantic import Field

from jsoncontract import Guard
from jsoncontract.live.guard.sdk import guard_middleware
from tests.live.guard.test_stdio import error_of, text

pytestmark = pytest.mark.slow


def _server(guard: Guard) -> tuple[Any, list[dict[str, Any]]]:
    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    app = MCPServer("shop")
    seen: list[dict[str, Any]] = []

    @app.tool(annotations=ToolAnnotations(readOnlyHint=False))
    def create_shipment(
        order_id: str = Field(pattern="^ORD-[0-9]{4}$"),
        quantity: int = Field(ge=1),
        idempotency_key: str | None = None,
    ) -> str:
        """Create a shipment."""
        seen.append({"order_id": order_id, "quantity": quantity})
        return f"SHP-{len(seen):04d} key sk-proj-Pp1Oo2Ii3Uu4Yy5Tt6Rr7Ee8"

    app.middleware.append(guard_middleware(guard, app))
    return app, seen


def test_the_middleware_judges_raw_arguments_before_the_sdk_coerces_them() -> None:
    from mcp import Client

    app, seen = _server(Guard())

    async def main() -> dict[str, Any]:
        async with Client(app) as client:
            good = {"order_id": "ORD-1234", "quantity": 2, "idempotency_key": "ship-0001"}
            return {
                "coerced": await client.call_tool(
                    "create_shipment", {**good, "quantity": "2", "idempotency_key": "ship-0002"}
                ),
                "first": await client.call_tool("create_shipment", good),
                "again": await client.call_tool("create_shipment", good),
                "no key": await client.call_tool(
                    "create_shipment", {"order_id": "ORD-1234", "quantity": 1}
                ),
            }

    result = anyio.run(main)
    coerced = error_of(result["coerced"])
    assert (coerced["code"], coerced["findings"][0]["path"]) == ("schema.type", "/quantity")
    assert error_of(result["no key"])["code"] == "business.idempotency.missing_key"
    first = text(result["first"])
    assert first.startswith("SHP-0001 key <redacted openai-api-key")
    assert text(result["again"]) == first
    assert seen == [{"order_id": "ORD-1234", "quantity": 2}]
