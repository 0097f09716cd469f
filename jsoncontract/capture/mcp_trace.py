"""MCP traces written by ``jsoncontract mcp record``: one frame per line, with its direction.

A frame line is ``{"trace": "mcp", "seq": .., "time": .., "from": "client" | "server",
"frame": <the JSON-RPC message>}`` (see :mod:`jsoncontract.live.trace`). Its frame is read
as an MCP message would be read on its own, so a ``tools/call`` request is a call and the
server's answer is attached to it; the call's source is the frame, at its line. What is no
frame is skipped: the ``start`` and ``exit`` events, output that was not JSON (``text``), and
an answer an injected fault withheld from the host (``"delivered": false`` on a server's
frame): the host never saw it. The recorder writes that mark on server answers only; a
client's frame is read whatever it says, so no call the host made can vanish. In a trace
``mcp guard`` wrote, a call's result is the server's answer, also where the guard delivered
another in its place (``"replaces"``: that one is not read), and the guard's own answer where
the call never reached the server; the tool list the guard enforced is a ``tools`` event
(:func:`embedded_tools`), so the trace is checked without ``--tools``. Each frame's ``time``
is when it passed, so a call's result says how long it took.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.capture.containers import epoch
from jsoncontract.capture.mcp import McpState
from jsoncontract.model import Dialect, Hop

if TYPE_CHECKING:
    from jsoncontract.capture.interface import DocContext, Handler
    from jsoncontract.model import Captured

#: The member and value every line of such a trace has.
MARK: Final = "trace"
TRACE: Final = "mcp"


class TraceState:
    """The MCP requests of the trace waiting for their answers."""

    __slots__ = ("mcp",)

    def __init__(self) -> None:
        self.mcp = McpState()

    def read(self, node: dict[str, Any], ctx: DocContext, out: list[Captured]) -> None:
        """One line: its frame, when it has one the host saw (an answer ``mcp guard``
        delivered in place of the server's is not read: the server's is the call's)."""
        frame = node.get("frame")
        if not isinstance(frame, dict) or "replaces" in node:
            return
        if node.get("delivered") is False and node.get("from") != "client":
            return  # an answer withheld from the host; a request is read whatever it says
        self.mcp.read(frame, ctx.child("/frame", time=epoch(node.get("time"))), out)

    def flush(self, out: list[Captured]) -> None:
        """Requests never answered are the ledger's to hand on."""
        self.mcp.flush(out)


class McpTrace:
    """The lines of an ``mcp record`` trace."""

    name: Final = Dialect.MCP_TRACE
    hop: Final = Hop.MCP
    mark: Final = MARK
    #: members without one of which :meth:`part` takes no object
    claims: Final[frozenset[str]] = frozenset()
    tools: Final = None

    def new_state(self) -> TraceState:
        """The trace's requests waiting for their answers."""
        return TraceState()

    def whole(self, value: dict[str, Any], state: TraceState) -> Handler | None:
        """A line of an ``mcp record`` trace."""
        return state.read if value.get(MARK) == TRACE else None

    def part(self, value: dict[str, Any], state: TraceState) -> Handler | None:
        """Nothing else: a trace line always says what it is."""
        return None


DIALECT: Final = McpTrace()


#: The event of a trace that carries the tool list a guard enforced.
TOOLS_EVENT: Final = "tools"


def embedded_tools(paths: Iterable[str | Path], *, exclude: Sequence[str] = ()) -> list[Any]:
    """The tool list the traces among ``paths`` carry (``mcp guard`` writes the list it
    enforces as a ``tools`` event each time it changes): every tool by name, a later
    definition replacing an earlier one; empty when no trace carries one. Standard input is
    not read (it can be read once, by the check).

    Raises:
        InputError: a path does not exist, or a named file cannot be read.
    """
    import orjson

    from jsoncontract._files import STDIN, expand, iter_lines

    names = [p for p in paths if str(p) != STDIN]
    if not names:
        return []
    from jsoncontract.capture.reader import CAPTURE_SUFFIXES

    tools: dict[str, Any] = {}
    for path in expand(names, CAPTURE_SUFFIXES, what="capture", exclude=exclude):
        for _number, raw in iter_lines(path, max_line_bytes=64 * 1024 * 1024):
            if raw is None or b'"event"' not in raw or b'"tools"' not in raw:
                continue
            try:
                record = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if (
                isinstance(record, dict)
                and record.get(MARK) == TRACE
                and record.get("event") == TOOLS_EVENT
                and isinstance(record.get("tools"), list)
            ):
                for tool in record["tools"]:
                    if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                        tools[tool["name"]] = tool
    return list(tools.values())
