"""What a live server advertises: every page of ``tools/list``, and which tools are usable.

The listing keeps each tool object exactly as the server sent it (the ``tools/list``
result that ``mcp tools -f json`` writes is read unchanged by ``check --tools``, ``lint``,
``pin`` and ``fixtures``). A tool too broken to load (no name, an input schema that is not
an object, a duplicate name) is kept in the listing, reported once, and left out of what
is linted, pinned or called, so one broken tool does not stop the rest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.errors import ServerError
from jsoncontract.model import Dialect, Finding, Severity, Source, ToolContract

if TYPE_CHECKING:
    from jsoncontract.live.catalog import Catalog
    from jsoncontract.live.client import Connection
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.wire import Negotiated

#: Pages of ``tools/list`` followed before the listing is called endless.
MAX_PAGES: Final = 200
#: Key of the ``_meta`` member ``mcp tools -f json`` adds (where the listing came from).
META_KEY: Final = "jsoncontract/listing"


@dataclass(slots=True)
class ToolListing:
    """Every tool a server listed, with the connection facts reports show.

    ``tools`` are the raw tool objects, in the order of the pages; ``problems`` are
    findings about the listing (a broken tool, a cursor that loops, stray output);
    ``seconds`` is the time all pages took.
    """

    server: ServerSpec
    negotiated: Negotiated
    tools: list[Any]
    pages: int = 1
    seconds: float = 0.0
    problems: list[Finding] = field(default_factory=list)
    #: index in ``tools`` -> why the tool cannot be used
    unusable: dict[int, str] = field(default_factory=dict)
    #: the resources and prompts the server lists, when asked for (lint and pin take them)
    offered: list[Catalog] = field(default_factory=list)

    @property
    def label(self) -> str:
        """What reports call the server (see :func:`~jsoncontract.live.wire.display_name`)."""
        from jsoncontract.live.wire import display_name

        return display_name(self.server, self.negotiated)

    def usable(self) -> list[dict[str, Any]]:
        """The tool objects that can be linted, pinned and called."""
        return [t for i, t in enumerate(self.tools) if i not in self.unusable]

    def result(self, *, with_meta: bool = True) -> dict[str, Any]:
        """A ``tools/list`` result holding every tool (all pages), and, in ``_meta``, the
        server and protocol version it came from."""
        out: dict[str, Any] = {"tools": self.tools}
        if with_meta:
            out["_meta"] = {META_KEY: self.source()}
        return out

    def source(self) -> dict[str, Any]:
        """Where the listing came from: server, transport, protocol version."""
        negotiated = self.negotiated
        out: dict[str, Any] = {"server": self.label, "transport": self.server.transport}
        if negotiated.server_info:
            info = negotiated.server_info
            out["serverInfo"] = {
                k: info[k] for k in ("name", "title", "version") if isinstance(info.get(k), str)
            }
        out["protocolVersion"] = negotiated.version
        out["negotiatedWith"] = negotiated.method
        return out

    def contracts(self) -> list[ToolContract]:
        """The usable tools as contracts (their source: the server, and the tool's pointer
        in the listing)."""
        from dataclasses import replace

        import orjson

        from jsoncontract.tools.loader import load_tool_file

        kept = [i for i in range(len(self.tools)) if i not in self.unusable]
        if not kept:
            return []
        document = orjson.dumps({"tools": [self.tools[i] for i in kept]})
        loaded = load_tool_file(self.label, data=document, dialect=Dialect.MCP)
        return [
            replace(tool, source=Source(self.label, pointer=f"/tools/{index}"))
            for tool, index in zip(loaded, kept, strict=True)
        ]

    def tool(self, name: str) -> dict[str, Any] | None:
        """The usable tool called ``name``."""
        for tool in self.usable():
            if tool.get("name") == name:
                return tool
        return None


async def list_tools(conn: Connection) -> ToolListing:
    """List every tool, following ``nextCursor`` until the last page.

    Raises:
        ServerError: ``tools/list`` is answered with an error, late, or not at all, or a
            page is not a ``tools/list`` result.
    """
    from time import perf_counter

    from jsoncontract.live.wire import ReplyKind

    assert conn.negotiated is not None
    tools: list[Any] = []
    problems: list[Finding] = []
    cursor: Any = None
    seen: set[str] = set()
    pages = 0
    start = perf_counter()
    label = conn.label
    while True:
        params = {} if cursor is None else {"cursor": cursor}
        reply = await conn.request("tools/list", params)
        pages += 1
        where = "tools/list" if pages == 1 else f"tools/list (page {pages})"
        if reply.kind is not ReplyKind.RESULT:
            raise ServerError(f"{label}: {where} {reply.answered()}")
        result = reply.result or {}
        listed = result.get("tools")
        if not isinstance(listed, list):
            raise ServerError(f"{label}: the {where} result has no tools list")
        tools.extend(listed)
        cursor = result.get("nextCursor")
        if cursor is None:
            break
        if not isinstance(cursor, str):
            problems.append(
                _listing_problem(
                    codes.MCP_CURSOR_INVALID,
                    f"nextCursor on page {pages} is not a string; the listing stops there",
                    "cursors are opaque strings",
                    label,
                )
            )
            break
        if cursor in seen or pages >= MAX_PAGES:
            problems.append(
                _listing_problem(
                    codes.MCP_CURSOR_LOOP,
                    f"tools/list keeps paging ({pages} pages; cursor {cursor[:40]!r} came "
                    "back): the listing stops here",
                    "the last page must have no nextCursor",
                    label,
                )
            )
            break
        seen.add(cursor)
    listing = ToolListing(
        conn.spec, conn.negotiated, tools, pages=pages, seconds=perf_counter() - start
    )
    listing.unusable = screen(tools, label, problems)
    listing.problems = problems + noise_findings(conn)
    conn.learn_tools(listing.usable())
    return listing


def _listing_problem(code: str, message: str, hint: str, label: str) -> Finding:
    return Finding(code, Severity.ERROR, message, source=Source(label), hint=hint)


def screen(tools: list[Any], label: str, problems: list[Finding]) -> dict[int, str]:
    """The tools that cannot be loaded at all, by index, each reported in ``problems``:
    not an object, no name, a name used twice, an input or output schema that is not a
    JSON object."""
    unusable: dict[int, str] = {}
    names: dict[str, int] = {}
    for index, tool in enumerate(tools):
        pointer = f"/tools/{index}"
        reason: str | None = None
        name: str | None = None
        if not isinstance(tool, dict):
            reason = "is not a JSON object"
        else:
            raw = tool.get("name")
            name = raw if isinstance(raw, str) and raw else None
            schema = tool.get("inputSchema")
            output = tool.get("outputSchema")
            if name is None:
                reason = "has no name"
            elif name in names:
                reason = f"repeats the name of tool #{names[name] + 1}"
            elif not isinstance(schema, dict):
                found = "none" if schema is None else f"a JSON {_json_type(schema)}"
                reason = f"has no inputSchema object (found {found})"
            elif output is not None and not isinstance(output, dict):
                reason = f"has an outputSchema that is not an object (a JSON {_json_type(output)})"
            if name is not None:
                names.setdefault(name, index)
        if reason is None:
            continue
        unusable[index] = reason
        shown = repr(name) if name else f"#{index + 1}"
        problems.append(
            Finding(
                codes.MCP_TOOL_UNUSABLE,
                Severity.ERROR,
                f"tool {shown} {reason}; it is left out",
                path=pointer,
                tool=name,
                source=Source(label, pointer=pointer),
                hint="each tool needs a unique name and an inputSchema object (MCP schema: Tool)",
            )
        )
    return unusable


def noise_findings(conn: Connection) -> list[Finding]:
    """One finding for what the server wrote besides JSON-RPC (stdout noise)."""
    if not conn.noise:
        return []
    first = conn.noise[0]
    more = conn.noise_count - 1
    extra = f" (and {more} more)" if more > 0 else ""
    return [
        Finding(
            codes.MCP_STDOUT_NOISE,
            Severity.ERROR,
            f"the server wrote something that is not a JSON-RPC message: {first.text!r}{extra}: "
            f"{first.reason}",
            source=Source(conn.label),
            hint="a stdio server's stdout carries JSON-RPC messages only; hosts may drop the "
            "connection on anything else: write logs to stderr",
        )
    ]


def _json_type(value: Any) -> str:
    from jsoncontract._json import json_type

    return json_type(value)


def fetch_tools(spec: ServerSpec, options: Any = None, *, offered: bool = False) -> ToolListing:
    """Connect to ``spec``, negotiate, and list every tool (the synchronous entry point;
    inside an event loop, use :func:`~jsoncontract.live.client.connect` and
    :func:`list_tools`); ``offered``: its resources and prompts too.

    Raises:
        ServerError: the server cannot be started, reached, negotiated with, or listed.
    """
    import anyio

    from jsoncontract.live.client import connect

    async def main() -> ToolListing:
        from jsoncontract.live.catalog import list_catalog

        async with connect(spec, options) as conn:
            listing = await list_tools(conn)
            if offered:
                listing.offered = [await list_catalog(conn, k) for k in ("resources", "prompts")]
            return listing

    return anyio.run(main)
