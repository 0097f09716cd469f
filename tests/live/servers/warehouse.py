"""A warehouse MCP server written the way most are: the official SDK's ``MCPServer``, typed
Python functions, pydantic models for structured output.

It behaves like the servers measured in the wild: it validates input and answers invalid
arguments with an ``isError`` result, accepts properties its schema does not declare
(pydantic ignores extra members), and coerces ``"2"`` to ``2`` (pydantic's lax mode).

    python warehouse.py [--http URL_FILE] [--token TOKEN]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Literal

from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel, Field

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serve import serve, transport_options

app = MCPServer("warehouse", version="1.4.0")

ORDERS = {
    "ORD-1001": ("open", 3),
    "ORD-1002": ("shipped", 1),
    "ORD-1003": ("cancelled", 12),
}
READ_ONLY = ToolAnnotations(readOnlyHint=True, openWorldHint=False)


class Order(BaseModel):
    order_id: str
    status: Literal["open", "shipped", "cancelled"]
    quantity: int


class OrderList(BaseModel):
    orders: list[Order]


class Stock(BaseModel):
    sku: str
    warehouse: str
    on_hand: int


@app.tool(annotations=READ_ONLY)
def get_order(order_id: str = Field(description="The order id, e.g. ORD-1001.")) -> Order:
    """Look up one order by its id."""
    status, quantity = ORDERS.get(order_id, ("open", 1))
    return Order(order_id=order_id, status=status, quantity=quantity)  # type: ignore[arg-type]


@app.tool(annotations=READ_ONLY)
def list_orders(
    status: Literal["open", "shipped", "cancelled"] = Field(description="Orders in this state."),
    limit: int = Field(10, ge=1, le=100, description="At most this many orders."),
) -> OrderList:
    """List orders in one state, newest first."""
    found = [
        Order(order_id=key, status=state, quantity=count)  # type: ignore[arg-type]
        for key, (state, count) in ORDERS.items()
        if state == status
    ]
    return OrderList(orders=found[:limit])


@app.tool(annotations=READ_ONLY)
def stock_level(
    sku: str = Field(description="The stock-keeping unit."),
    warehouse: Literal["AMS", "BER", "LIS"] = Field(description="The warehouse code."),
) -> Stock:
    """How many units of a SKU one warehouse holds."""
    return Stock(sku=sku, warehouse=warehouse, on_hand=42)


@app.tool(annotations=ToolAnnotations(readOnlyHint=False, destructiveHint=True))
def cancel_order(
    order_id: str = Field(description="The order to cancel."),
    reason: str = Field(description="Why, for the audit log."),
) -> str:
    """Cancel an open order. It cannot be undone."""
    return f"cancelled {order_id}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    transport_options(parser)
    serve(app, parser.parse_args())
