"""``mcp guard``: the contract ``check`` judges after the fact, enforced at the moment of the
call, between an agent and its MCP servers.

- :mod:`~jsoncontract.live.guard.gate`: :class:`Guard`, the decisions (a :class:`Verdict`
  per call, the result stage per answer, drift per listing), usable in-process;
- :mod:`~jsoncontract.live.guard.session`: one session's JSON-RPC traffic through it,
  without I/O (:class:`GuardSession`);
- :mod:`~jsoncontract.live.guard.stdio` and :mod:`~jsoncontract.live.guard.http`: the
  proxies, on the recorder's framing;
- :mod:`~jsoncontract.live.guard.sdk`: the same gate inside a server built with the
  official Python SDK;
- :mod:`~jsoncontract.live.guard.settings`, :mod:`~jsoncontract.live.guard.tools`,
  :mod:`~jsoncontract.live.guard.answers`, :mod:`~jsoncontract.live.guard.results`: the
  policy, the enforced tools, the answers it sends, and what it does to results.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsoncontract.live.guard.gate import Action, Guard, GuardState, Verdict
    from jsoncontract.live.guard.sdk import guard_middleware
    from jsoncontract.live.guard.session import GuardSession
    from jsoncontract.live.guard.settings import GuardSettings, OnBadResult, OnDrift

_LAZY = {
    "Action": "gate",
    "Guard": "gate",
    "GuardState": "gate",
    "Verdict": "gate",
    "GuardSession": "session",
    "GuardSettings": "settings",
    "OnBadResult": "settings",
    "OnDrift": "settings",
    "guard_middleware": "sdk",
}

__all__ = [
    "Action",
    "Guard",
    "GuardSession",
    "GuardSettings",
    "GuardState",
    "OnBadResult",
    "OnDrift",
    "Verdict",
    "guard_middleware",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'jsoncontract.live.guard' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"jsoncontract.live.guard.{module}"), name)
