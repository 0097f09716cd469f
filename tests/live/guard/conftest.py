"""What the guard's tests share: a business rule of the shipping server, and the
``initialize`` request of a raw session."""

from __future__ import annotations

#: A CEL rule on the shipping server's create_shipment.
RULES = """version = 1

[[tools.create_shipment]]
id = "max-quantity"
rule = "self.quantity <= 100"
fieldPath = "/quantity"
message = "at most 100 units per shipment"
hint = "split the order into shipments of 100 units or fewer"
"""

#: The first request of a raw 2025-06-18 session.
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
