"""MCP sessions: whether the host calls what the server listed, and the server lists steadily.

Over each MCP session of the run (``ToolCall.session``, and the ``initialize``,
``tools/list`` and ``list_changed`` trace events) this check reports:

- ``session.unlisted_tool`` (error): a ``tools/call`` of a tool the session's latest
  complete ``tools/list`` does not hold (sessions whose capture holds no list are not
  judged);
- ``session.stale_tool_list`` (warning): a call made after the server announced
  ``notifications/tools/list_changed`` and before the host listed the tools again;
- ``session.input_schema_changed`` (warning): a tool whose ``inputSchema`` differs between
  two lists of one session (the model may still be calling it the old way);
- ``session.list_changed_undeclared`` (warning): ``list_changed`` from a server whose
  ``initialize`` answer did not declare ``capabilities.tools.listChanged``.

**State** (for a run checked in parts): per session id, a 64-bit hash of each listed tool's
input schema, and whether ``list_changed`` was already reported; at most
:data:`SESSIONS` sessions (the oldest forgotten). Sessions never span capture files, so
a part read on its own saw what the run would have when it held no ``tools/list`` or
``list_changed`` (:meth:`ListingCheck.follows`); one that does is read in the run.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract.model import EventKind, Finding, Hop, Severity

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, McpSession, PassedCall, TraceEvent

#: How many sessions' listings are remembered at once.
SESSIONS: Final = 4096


def schema_hash(schema: Any) -> int:
    """A 64-bit hash of a JSON value, independent of member order."""
    try:
        data = orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # deeper than orjson writes: compared as its repr
        data = repr(schema).encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest())


class ListingCheck:
    """The MCP session contracts (see the module)."""

    #: nothing to say of a lone model call (see :mod:`jsoncontract.pipeline.contracts`)
    lone_calls = False

    def __init__(self) -> None:
        self._lists: OrderedDict[str, dict[str, int]] = OrderedDict()
        self._announced: set[str] = set()

    def call(self, checked: CallResult) -> list[Finding]:
        """A call of a tool its session did not list, or made on a stale list."""
        call = checked.call
        session = call.session
        if session is None or call.hop is not Hop.MCP or call.tool is None:
            return []
        if session.list_changed:
            return [
                Finding(
                    codes.SESSION_STALE_TOOL_LIST,
                    Severity.WARNING,
                    f"{call.tool} was called after the server announced that its tools "
                    "changed (notifications/tools/list_changed) and before the host listed "
                    "them again",
                    hint="call tools/list again on list_changed before the next tools/call, "
                    "and hand the model the new list",
                )
            ]
        listed = session.tools
        if listed is not None and call.tool not in listed:
            return [
                Finding(
                    codes.SESSION_UNLISTED_TOOL,
                    Severity.ERROR,
                    f"{call.tool} is not in the latest tools/list of session {session.id} "
                    f"({_count(len(listed))}): the server will refuse the call",
                    hint="call only tools of the latest list; after a change, list again and "
                    "hand the model the new tools",
                )
            ]
        return []

    def event(self, event: TraceEvent) -> list[Finding]:
        """A changed input schema on a new list; an undeclared ``list_changed``."""
        session = event.session
        if session is None:
            return []
        if event.kind is EventKind.TOOLS_LIST:
            return self._listed(session, event)
        if event.kind is EventKind.LIST_CHANGED:
            return self._announced_change(session, event)
        return []

    def _listed(self, session: McpSession, event: TraceEvent) -> list[Finding]:
        tools = session.tools or {}
        hashes = {
            name: schema_hash(tool.get("inputSchema"))
            for name, tool in tools.items()
            if isinstance(tool, dict)
        }
        before = self._lists.pop(session.id, None)
        self._lists[session.id] = hashes
        if len(self._lists) > SESSIONS:
            self._lists.popitem(last=False)
        if before is None:
            return []
        changed = [n for n, h in hashes.items() if n in before and before[n] != h]
        return [
            Finding(
                codes.SESSION_INPUT_SCHEMA_CHANGED,
                Severity.WARNING,
                f"the inputSchema of {name} changed between two tools/list answers of "
                f"session {session.id}: a model that kept the old definition calls it the "
                "old way",
                tool=name,
                hop=Hop.MCP,
                source=event.source,
                hint="hand the model the new definition; version a tool (a new name) "
                "rather than change its schema in the middle of a session",
            )
            for name in changed
        ]

    def _announced_change(self, session: McpSession, event: TraceEvent) -> list[Finding]:
        capabilities = session.capabilities
        if capabilities is None or session.id in self._announced:
            return []
        tools = capabilities.get("tools")
        if isinstance(tools, dict) and tools.get("listChanged") is True:
            return []
        self._announced.add(session.id)
        return [
            Finding(
                codes.SESSION_LIST_CHANGED_UNDECLARED,
                Severity.WARNING,
                f"the server sent notifications/tools/list_changed in session {session.id} "
                "but its initialize answer did not declare capabilities.tools.listChanged: "
                "hosts may ignore the notification",
                hop=Hop.MCP,
                source=event.source,
                hint='declare "capabilities": {"tools": {"listChanged": true}} in the '
                "initialize answer",
            )
        ]

    def passed(self, passed: PassedCall) -> list[Finding]:
        """Nothing: a lone model call has no MCP session."""
        return []

    def close(self) -> list[Finding]:
        """Nothing more."""
        return []

    # -- a run checked in parts (see :mod:`jsoncontract.pipeline.contracts`) -------------

    def state(self) -> tuple[OrderedDict[str, dict[str, int]], set[str]]:
        """Each session's listed schemas, and the sessions whose undeclared ``list_changed``
        was reported."""
        return self._lists, self._announced

    def adopt(self, state: tuple[OrderedDict[str, dict[str, int]], set[str]]) -> None:
        """Continue from ``state``."""
        self._lists, self._announced = OrderedDict(state[0]), set(state[1])

    def follows(self, state: tuple[OrderedDict[str, dict[str, int]], set[str]], files: Any) -> bool:
        """Whether a part that started with no listing saw what this check would have: it
        saw no listing (calls read their session as the capture gave it)."""
        return not state[0] and not state[1]

    def absorb(self, state: tuple[OrderedDict[str, dict[str, int]], set[str]]) -> None:
        """Continue after a part that :meth:`follows` this check (it saw no listing)."""


def _count(size: int) -> str:
    return f"{size} tool" if size == 1 else f"{size} tools"
