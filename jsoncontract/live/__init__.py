"""Live MCP servers: list, lint, pin, probe and test them; record, replay and break traffic.

The client side is the official MCP SDK (``pip install 'jsoncontract[mcp]'``), imported
only when a server is actually contacted. Nothing here prints or exits: functions return
reports, and raise :class:`~jsoncontract.errors.ServerError` when a server cannot be
started, reached or spoken to.
"""

from __future__ import annotations
