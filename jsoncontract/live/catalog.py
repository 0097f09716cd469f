"""What a live server offers besides tools: every page of ``resources/list``,
``resources/templates/list`` and ``prompts/list``.

A :class:`Catalog` keeps the items exactly as the server sent them (``mcp resources -f
json`` writes a ``resources/list`` result holding every page). A server that does not
declare the capability, or declares it and answers the list request with ``-32601`` (Method
not found), offers none: it is listed so, with a note, never an error. One that declares
the capability and fails to list (another error, no answer, no list) is a server error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.errors import ServerError
from jsoncontract.model import Finding, Severity, Source

if TYPE_CHECKING:
    from jsoncontract.live.client import Connection, Negotiated
    from jsoncontract.live.server import ServerSpec

#: JSON-RPC's "Method not found".
METHOD_NOT_FOUND: Final = -32601
#: Pages followed before a listing is called endless.
MAX_PAGES: Final = 200
#: kind -> the member that names an item
_NAME_KEY: Final = {"resources": "uri", "templates": "uriTemplate", "prompts": "name"}
#: kind -> (list method, result member, capability)
KINDS: Final = {
    "resources": ("resources/list", "resources", "resources"),
    "templates": ("resources/templates/list", "resourceTemplates", "resources"),
    "prompts": ("prompts/list", "prompts", "prompts"),
}


@dataclass(slots=True)
class Catalog:
    """Every item of one kind a server listed (``resources``, ``templates`` or
    ``prompts``), with the connection facts reports show."""

    kind: str
    server: ServerSpec
    negotiated: Negotiated
    items: list[Any] = field(default_factory=list)
    pages: int = 0
    seconds: float = 0.0
    #: the server does not declare the capability (nothing was asked)
    undeclared: bool = False
    #: the server declares it, but answered the list request "Method not found"
    unsupported: bool = False
    problems: list[Finding] = field(default_factory=list)

    @property
    def label(self) -> str:
        """What reports call the server."""
        from jsoncontract.live.wire import display_name

        return display_name(self.server, self.negotiated)

    @property
    def member(self) -> str:
        """The result member that holds the items (``resources``, ``prompts``...)."""
        return KINDS[self.kind][1]

    def result(self) -> dict[str, Any]:
        """A list result holding every item (all pages), and where it came from."""
        from jsoncontract.live.tools import META_KEY

        source: dict[str, Any] = {
            "server": self.label,
            "transport": self.server.transport,
            "protocolVersion": self.negotiated.version,
            "negotiatedWith": self.negotiated.method,
        }
        return {self.member: self.items, "_meta": {META_KEY: source}}

    def named(self) -> list[dict[str, Any]]:
        """The items that are objects with a name (a URI for resources)."""
        key = (
            "uri"
            if self.kind == "resources"
            else "uriTemplate"
            if self.kind == "templates"
            else "name"
        )
        return [i for i in self.items if isinstance(i, dict) and isinstance(i.get(key), str)]


async def list_catalog(conn: Connection, kind: str) -> Catalog:
    """List every item of ``kind``, following ``nextCursor``.

    Raises:
        ServerError: the list request is answered with an error, late, or not at all, or a
            page holds no list.
    """
    from time import perf_counter

    from jsoncontract.live.wire import ReplyKind

    assert conn.negotiated is not None
    method, member, capability = KINDS[kind]
    catalog = Catalog(kind, conn.spec, conn.negotiated)
    if capability not in conn.negotiated.capabilities:
        catalog.undeclared = True
        return catalog
    label = conn.label
    cursor: Any = None
    seen: set[str] = set()
    start = perf_counter()
    while True:
        reply = await conn.request(method, {} if cursor is None else {"cursor": cursor})
        catalog.pages += 1
        where = method if catalog.pages == 1 else f"{method} (page {catalog.pages})"
        if reply.kind is ReplyKind.ERROR and reply.code == METHOD_NOT_FOUND and catalog.pages == 1:
            catalog.unsupported = True  # the method is not there: none to list
            return catalog
        if reply.kind is not ReplyKind.RESULT:
            raise ServerError(
                f"{label}: {where} {reply.answered()}: the server declares the {capability} "
                f"capability but cannot list them; fix its {method} (or, when it has no "
                f"{capability}, have it declare no {capability} capability) and run again"
            )
        listed = (reply.result or {}).get(member)
        if not isinstance(listed, list):
            raise ServerError(f"{label}: the {where} result has no {member} list")
        catalog.items.extend(listed)
        cursor = (reply.result or {}).get("nextCursor")
        if cursor is None:
            break
        if not isinstance(cursor, str) or cursor in seen or catalog.pages >= MAX_PAGES:
            code = (
                codes.MCP_CURSOR_INVALID if not isinstance(cursor, str) else codes.MCP_CURSOR_LOOP
            )
            catalog.problems.append(
                Finding(
                    code,
                    Severity.ERROR,
                    f"{method} paging stops at page {catalog.pages}: the cursor is not a "
                    "string, or came back",
                    source=Source(label),
                    hint="cursors are opaque strings; the last page has no nextCursor",
                )
            )
            break
        seen.add(cursor)
    catalog.seconds = perf_counter() - start
    return catalog


def fetch_catalog(spec: ServerSpec, kinds: tuple[str, ...], options: Any = None) -> list[Catalog]:
    """Connect, negotiate and list every item of each kind (the synchronous entry point).

    Raises:
        ServerError: the server cannot be started, reached, negotiated with, or listed.
    """
    import anyio

    from jsoncontract.live.client import connect

    async def main() -> list[Catalog]:
        async with connect(spec, options) as conn:
            return [await list_catalog(conn, kind) for kind in kinds]

    return anyio.run(main)
