"""``mcp lint`` and ``mcp pin``: the file commands' engines, run on what a server lists.

A server has no file and no lines, so findings are located by server, tool and JSON
Pointer inside the tool (``/inputSchema/properties/status``); the lock keys the server's
tools by the server's name instead of a path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from jsoncontract.pipeline.answers import version_at_least

if TYPE_CHECKING:
    from jsoncontract.lint.engine import Linter
    from jsoncontract.lint.report import LintReport
    from jsoncontract.live.tools import ToolListing
    from jsoncontract.pin import Lock

#: Prefix of a server's entry in a lock file.
LOCK_PREFIX: Final = "mcp:"


def lint_version(negotiated: str, explicit: str | None) -> tuple[str, str | None]:
    """The MCP version the ``mcp`` profile checks: ``--mcp-version``, else the negotiated
    one, else the nearest one the rules know (with a note saying so)."""
    from jsoncontract.lint.profiles import MCP_VERSIONS

    if explicit:
        return explicit, None
    if negotiated in MCP_VERSIONS:
        return negotiated, None
    nearest = MCP_VERSIONS[0]
    for known in MCP_VERSIONS:
        if version_at_least(negotiated, known):
            nearest = known
    return nearest, (
        f"the server negotiated MCP {negotiated}; the mcp profile checks {nearest}, the "
        "nearest version its rules know (--mcp-version chooses another)"
    )


def lint_listing(linter: Linter, listing: ToolListing) -> LintReport:
    """Lint the usable tools of a listing; add the listing's own problems (a tool that
    cannot be loaded, stray stdout) as findings of their own codes."""
    import orjson

    from jsoncontract.lint.report import LintFinding
    from jsoncontract.live.codes import CODES

    label = listing.label
    usable = listing.usable()
    document = orjson.dumps({"tools": usable}, option=orjson.OPT_INDENT_2)
    report = linter.lint_sources([(label, document)])
    report.unit = "server"
    for item in report.findings:
        item.path = _within_tool(item.path)
        item.line = None
        item.column = None
        item.fix = None  # a server's tools are not files --fix can edit
        item.refused = None
    for problem in listing.problems:
        name, _, severity = CODES[problem.code]
        report.findings.append(
            LintFinding(
                problem.code,
                severity,
                problem.message,
                "",
                rule=name,
                profiles=(),
                file=label,
                tool=problem.tool,
                hint=problem.hint,
            )
        )
    offered = offered_tools(listing)
    if offered:
        from jsoncontract.lint.codes import all_rules

        describing = {code for code, rule in all_rules().items() if rule.family == "descriptions"}
        document = orjson.dumps({"tools": offered}, option=orjson.OPT_INDENT_2)
        extra = linter.lint_sources([(label, document)])
        for item in extra.findings:
            if item.code in describing:
                item.path = _within_tool(item.path)
                item.line = item.column = None
                item.fix = item.refused = None
                report.findings.append(item)
    report.findings.sort(key=lambda f: (f.tool or "", f.path, f.code))
    return report


def offered_tools(listing: ToolListing) -> list[dict[str, Any]]:
    """The server's prompts and resources as tool objects, for the description rules and the
    lock: ``prompt:NAME`` (its arguments as a schema of strings) and ``resource:URI`` (its
    MIME type among the annotations)."""
    out: list[dict[str, Any]] = []
    for catalog in listing.offered:
        for item in catalog.named():
            if catalog.kind == "prompts":
                listed = item.get("arguments")
                arguments = [a for a in listed or () if isinstance(a, dict) and "name" in a]
                properties = {
                    str(a["name"]): {"type": "string", "description": a.get("description", "")}
                    for a in arguments
                }
                required = [str(a["name"]) for a in arguments if a.get("required") is True]
                schema = {"type": "object", "properties": properties, "required": required}
                out.append(
                    {
                        "name": f"prompt:{item['name']}",
                        "description": item.get("description"),
                        "inputSchema": schema,
                    }
                )
            else:
                annotations = {k: item[k] for k in ("mimeType", "name") if k in item}
                out.append(
                    {
                        "name": f"resource:{item['uri']}",
                        "description": item.get("description"),
                        "inputSchema": {"type": "object"},
                        "annotations": annotations,
                    }
                )
    return out


def _within_tool(pointer: str) -> str:
    """``/tools/3/inputSchema/x`` -> ``/inputSchema/x`` (the tool is named separately)."""
    parts = pointer.split("/", 3)
    if len(parts) >= 3 and parts[1] == "tools" and parts[2].isdigit():
        return "/" + parts[3] if len(parts) == 4 else ""
    return pointer


def server_key(listing: ToolListing) -> str:
    """The server's entry in a lock: ``mcp:`` and its name (given, configured, or its own),
    else its command or URL."""
    spec = listing.server
    info = listing.negotiated.server_info or {}
    own = info.get("name") if isinstance(info.get("name"), str) else None
    return LOCK_PREFIX + (spec.name or own or spec.endpoint)


def pin_listing(listing: ToolListing, key: str) -> Lock:
    """A lock holding the listing's usable tools under ``key``."""
    from jsoncontract.model import Source
    from jsoncontract.pin import Lock, PinnedTool, digest, parts_of

    lock = Lock()
    tools = lock.files.setdefault(key, {})
    lock.shown[key] = key
    for contract in listing.contracts():
        parts = parts_of(contract)
        pointer = contract.source.pointer
        tools[contract.name] = PinnedTool(parts, digest(parts), Source(key, pointer=pointer))
    for item in offered_tools(listing):
        parts = {
            "name": item["name"],
            "description": item.get("description"),
            "input_schema": item["inputSchema"],
            "output_schema": None,
            "annotations": item.get("annotations"),
        }
        tools[item["name"]] = PinnedTool(parts, digest(parts), Source(key))
    return lock
