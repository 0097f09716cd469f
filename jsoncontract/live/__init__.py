"""Live MCP servers: list, lint, pin, probe and test them; record, replay and break traffic.

The client side is the official MCP SDK (the ``mcp`` extra), imported
only when a server is contacted. Nothing here prints or exits: functions return reports,
and raise :class:`~jsoncontract.errors.ServerError` when a server cannot be started,
reached or spoken to. The public API is imported lazily:

- naming a server: :class:`ServerSpec`, :func:`resolve_server`;
- talking to one: :func:`connect` (async; a :class:`Connection` whose requests answer
  with a :class:`Reply`), :class:`ConnectOptions`, :func:`fetch_tools` /
  :func:`list_tools`;
- checking one: :func:`probe` with :class:`ProbeSettings` (a :class:`ProbeReport`), and
  the pure answer checks of :mod:`jsoncontract.pipeline.answers`;
- traffic: :class:`StdioProxy`, :class:`HttpProxy`, :func:`load_recording`,
  :class:`Replayer`, :class:`Injector` with :func:`parse_rule`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsoncontract.live.client import Connection, connect
    from jsoncontract.live.inject import Injector, parse_rule
    from jsoncontract.live.probe import ProbeReport, ProbeSettings, probe
    from jsoncontract.live.record import HttpProxy, StdioProxy
    from jsoncontract.live.replay import Replayer, load_recording
    from jsoncontract.live.server import ServerSpec, resolve_server
    from jsoncontract.live.tools import ToolListing, fetch_tools, list_tools
    from jsoncontract.live.wire import ConnectOptions, Reply

_LAZY = {
    "ConnectOptions": "wire",
    "Connection": "client",
    "Reply": "wire",
    "connect": "client",
    "Injector": "inject",
    "parse_rule": "inject",
    "ProbeReport": "probe",
    "ProbeSettings": "probe",
    "probe": "probe",
    "HttpProxy": "record",
    "StdioProxy": "record",
    "Replayer": "replay",
    "load_recording": "replay",
    "ServerSpec": "server",
    "resolve_server": "server",
    "ToolListing": "tools",
    "fetch_tools": "tools",
    "list_tools": "tools",
}

__all__ = [
    "ConnectOptions",
    "Connection",
    "HttpProxy",
    "Injector",
    "ProbeReport",
    "ProbeSettings",
    "Replayer",
    "Reply",
    "ServerSpec",
    "StdioProxy",
    "ToolListing",
    "connect",
    "fetch_tools",
    "list_tools",
    "load_recording",
    "parse_rule",
    "probe",
    "resolve_server",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jsoncontract.live' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"jsoncontract.live.{module}"), name)
