"""The Model Context Protocol: tool objects, annotations and schema rules per version."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.lint.heuristics import DESTRUCTIVE_VERBS, write_verb
from jsoncontract.lint.profiles import MCP
from jsoncontract.lint.rule import Edit, Family, Fix, Issue, NodeRule, ToolRule, by_profile
from jsoncontract.model import Dialect, Severity
from jsoncontract.pointer import escape_pointer_token

if TYPE_CHECKING:
    from jsoncontract.lint.context import Node, ToolCtx

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
UP_TO_2025_11_25: Final = frozenset({"2025-06-18", "2025-11-25"})
#: RFC 9110 ``token`` (the header name syntax).
TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


class PropertySchemaBoolean(NodeRule):
    """## What it does
    For MCP up to 2025-11-25, flags boolean subschemas used as property schemas
    (`"data": true`).

    ## Why is this bad?
    JSON Schema allows `true` and `false` as schemas, but the MCP schema of 2025-06-18 and
    2025-11-25 types each value of `inputSchema.properties` as an object, so such a tool
    list is not valid MCP. The MCP Inspector accepts it while Claude Code rejects the
    server (inspector#1005). MCP 2026-07-28 allows any 2020-12 schema.

    ## Example
    ```json
    {"type": "object", "properties": {"payload": true}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"payload": {}}}
    ```

    ## Fix
    Writes `true` as `{}` and `false` as `{"not": {}}`, which mean exactly the same.

    ## References
    - MCP schema 2025-06-18 and 2025-11-25, `Tool.inputSchema.properties`
    - modelcontextprotocol/inspector#1005
    """

    code = "JC050"
    name = "property-schema-boolean"
    family = Family.MCP
    summary = "mcp <= 2025-11-25: a property schema is a boolean"
    profiles = by_profile({MCP: E})
    mcp_versions = UP_TO_2025_11_25
    fixable = True
    triggers = frozenset({"@bool"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        if node.key != "properties":
            return
        replacement: dict[str, Any] = {} if node.value else {"not": {}}
        yield Issue(
            f"{node.label()} is the boolean schema {str(node.value).lower()}; the MCP schema "
            "requires an object here (Claude Code rejects the tool list)",
            node.pointer(),
            hint=f"write {replacement} instead",
            fix=Fix(
                f"write {str(node.value).lower()} as {replacement}",
                (Edit("set", node.pointer(), replacement),),
            ),
            schema_path=node.schema_path(),
        )


class OutputSchemaRootNotObject(ToolRule):
    """## What it does
    For MCP up to 2025-11-25, checks that an `outputSchema` has `"type": "object"` at its
    root.

    ## Why is this bad?
    Those versions restrict `outputSchema` to an object root ("Currently restricted to
    type: object at the root"), and `structuredContent` must be an object; clients
    validating against the MCP schema reject other roots. MCP 2026-07-28 lifts the
    restriction.

    ## Example
    ```json
    {"name": "list_ids", "inputSchema": {"type": "object"},
     "outputSchema": {"type": "array", "items": {"type": "string"}}}
    ```

    ## Use instead
    ```json
    {"name": "list_ids", "inputSchema": {"type": "object"},
     "outputSchema": {"type": "object", "properties": {"ids": {"type": "array",
                      "items": {"type": "string"}}}, "required": ["ids"]}}
    ```

    ## References
    - MCP schema 2025-06-18 and 2025-11-25, `Tool.outputSchema`
    - MCP specification 2026-07-28, "Structured content" (any JSON value)
    """

    code = "JC051"
    name = "output-schema-root-not-object"
    family = Family.MCP
    summary = "mcp <= 2025-11-25: the output schema's root is not type object"
    profiles = by_profile({MCP: E})
    mcp_versions = UP_TO_2025_11_25

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        site = tool.site("output")
        if site is None or not isinstance(site.schema, dict):
            return
        if site.schema.get("type") == "object":
            return
        yield Issue(
            f"the output schema's root is {site.schema.get('type', 'untyped')!r}; MCP "
            f"{tool.settings.mcp_version} requires type object (structuredContent is an object)",
            site.pointer("/type" if "type" in site.schema else ""),
            keyword="type",
            hint="wrap the result in an object property, or target MCP 2026-07-28",
            schema_path="#/type",
        )


class AnnotationHintIgnored(ToolRule):
    """## What it does
    Flags `destructiveHint` or `idempotentHint` on a tool whose `readOnlyHint` is `true`.

    ## Why is this bad?
    The specification says both are "meaningful only when `readOnlyHint == false`": clients
    ignore them. When they disagree with `readOnlyHint` (`destructiveHint: true` on a
    read-only tool) one of the hints is wrong, and a host deciding whether to ask for
    confirmation may pick the wrong one.

    ## Example
    ```json
    {"annotations": {"readOnlyHint": true, "destructiveHint": true}}
    ```

    ## Use instead
    ```json
    {"annotations": {"readOnlyHint": true}}
    ```

    ## References
    - MCP schema, `ToolAnnotations` (2025-03-26 to 2026-07-28)
    """

    code = "JC053"
    name = "annotation-hint-ignored"
    family = Family.MCP
    summary = "mcp: destructive/idempotent hints on a read-only tool"
    profiles = by_profile({MCP: W})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        annotations = tool.contract.annotations
        if not annotations or annotations.get("readOnlyHint") is not True:
            return
        for hint in ("destructiveHint", "idempotentHint"):
            if hint in annotations:
                contradicts = hint == "destructiveHint" and annotations[hint] is True
                yield Issue(
                    f"{hint} is set on a tool with readOnlyHint: true"
                    + (
                        "; the two hints contradict each other"
                        if contradicts
                        else "; clients ignore it"
                    ),
                    tool.member("annotations", hint),
                    keyword=hint,
                    hint="remove it, or set readOnlyHint to false if the tool writes",
                )


class ReadOnlyHintOnWriteTool(ToolRule):
    """## What it does
    Flags `readOnlyHint: true` on a tool whose name says it deletes, sends, pays, publishes
    or otherwise changes the world (`delete_user`, `send_email`, `refund_payment`).

    ## Why is this bad?
    Hosts use `readOnlyHint` to run tools without asking the user. A destructive tool marked
    read-only gets run unprompted. The name heuristic can be wrong; suppress the finding
    for that tool with a reason if so.

    ## Example
    ```json
    {"name": "delete_file", "annotations": {"readOnlyHint": true}}
    ```

    ## Use instead
    ```json
    {"name": "delete_file", "annotations": {"readOnlyHint": false,
                                            "destructiveHint": true}}
    ```

    ## References
    - MCP schema, `ToolAnnotations.readOnlyHint`
    - MCP specification, "Tools": annotations are hints, clients decide on them
    """

    code = "JC055"
    name = "read-only-hint-on-write-tool"
    family = Family.MCP
    summary = "mcp: a tool named like a write is marked read-only"
    profiles = by_profile({MCP: W})
    security_severity = 6.5

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        annotations = tool.contract.annotations
        if not annotations or annotations.get("readOnlyHint") is not True:
            return
        verb = write_verb(tool.name, DESTRUCTIVE_VERBS)
        if verb is None:
            return
        yield Issue(
            f"tool {tool.name!r} is named like a write ({verb!r}) but says readOnlyHint: true",
            tool.member("annotations", "readOnlyHint"),
            keyword="readOnlyHint",
            hint="set readOnlyHint to false (and destructiveHint as appropriate)",
        )


class ToolAnnotationsMissing(ToolRule):
    """## What it does
    Reports MCP tools without `annotations`.

    ## Why is this bad?
    Without annotations a client must assume the defaults: not read-only, destructive, not
    idempotent, open world. Hosts then ask for confirmation on every call (or, worse, users
    learn to click through), and nothing tells a retry policy the tool is safe to repeat.

    ## Example
    ```json
    {"name": "get_invoice", "inputSchema": {"type": "object"}}
    ```

    ## Use instead
    ```json
    {"name": "get_invoice", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": true, "openWorldHint": false}}
    ```

    ## References
    - MCP schema, `ToolAnnotations` (defaults: readOnlyHint false, destructiveHint true,
      idempotentHint false, openWorldHint true)
    """

    code = "JC058"
    name = "tool-annotations-missing"
    family = Family.MCP
    summary = "mcp: an MCP tool declares no annotations"
    profiles = by_profile({MCP: INFO})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        if tool.contract.dialect is not Dialect.MCP or tool.contract.annotations is not None:
            return
        yield Issue(
            f"tool {tool.name!r} has no annotations; clients assume it is destructive and not "
            "idempotent",
            tool.member("name"),
            keyword="annotations",
            hint="add annotations: readOnlyHint, destructiveHint, idempotentHint, openWorldHint",
        )


@cache
def _tool_validator(version: str) -> Any:
    import jsonschema_rs
    import orjson

    folder = resources.files("jsoncontract") / "schemas" / "mcp"
    schema = orjson.loads((folder / f"tool-{version}.json").read_bytes())
    return jsonschema_rs.validator_for(schema)


class MCPToolDefinitionInvalid(ToolRule):
    """## What it does
    Validates each MCP tool object against the `Tool` definition of the MCP schema for the
    selected `--mcp-version`: `annotations` hints must be booleans, `title` a string,
    `icons` (2025-11-25 and later) well formed, and so on. Input and output schemas
    themselves are checked by the schema rules.

    ## Why is this bad?
    Clients validate `tools/list` results against the specification's schema (the
    conformance suite checks every message with `wire-schema-valid`); a malformed tool
    object can make a client drop the tool, or the whole list.

    ## Example
    ```json
    {"name": "search", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": "yes"}}
    ```

    ## Use instead
    ```json
    {"name": "search", "inputSchema": {"type": "object"},
     "annotations": {"readOnlyHint": true}}
    ```

    ## References
    - MCP schema (`schema/<version>/schema.json`), `Tool` and `ToolAnnotations`
    - @modelcontextprotocol/conformance, `wire-schema-valid`
    """

    code = "JC056"
    name = "mcp-tool-definition-invalid"
    family = Family.MCP
    summary = "mcp: a tool object does not match the MCP schema's Tool"
    profiles = by_profile({MCP: E})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        if tool.contract.dialect is not Dialect.MCP:
            return
        validator = _tool_validator(tool.settings.mcp_version)
        definition = tool.contract.definition
        if validator.is_valid(definition):
            return
        for error in validator.iter_errors(definition):
            tokens = [str(t) for t in error.instance_path]
            if tokens and tokens[0] in ("inputSchema", "outputSchema"):
                continue
            pointer = tool.pointer + "".join("/" + escape_pointer_token(t) for t in tokens)
            message = str(error.message).strip().splitlines()[0]
            where = "/".join(tokens) or "the tool object"
            yield Issue(
                f"{where}: {message} (MCP {tool.settings.mcp_version} Tool schema)",
                pointer,
                keyword=tokens[-1] if tokens else None,
                hint="fix the member to match the MCP schema",
            )


class MCPHeaderInvalid(NodeRule):
    """## What it does
    For MCP 2026-07-28, checks `x-mcp-header` annotations on input properties: the header
    name must be an RFC 9110 token, unique without regard to case within the tool, on a
    property of type `string`, `integer` or `boolean`, reachable from the root through
    `properties` only (not inside `anyOf`, array items or `additionalProperties`).

    ## Why is this bad?
    The Streamable HTTP transport mirrors the argument into an HTTP header; a name that is
    not a token is not a header, two properties mapping to one header collide, and a value
    that is an object, array or number, or that may or may not exist depending on a
    branch, cannot be extracted the same way by every client.

    ## Example
    ```json
    {"type": "object", "properties": {
      "tenant": {"type": "object", "x-mcp-header": "X Tenant"}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {
      "tenant": {"type": "string", "x-mcp-header": "X-Tenant"}}}
    ```

    ## References
    - MCP specification 2026-07-28, Streamable HTTP transport (`x-mcp-header`)
    - RFC 9110, section 5.6.2 (`token`)
    """

    code = "JC066"
    name = "mcp-header-invalid"
    family = Family.MCP
    summary = "mcp 2026-07-28: an x-mcp-header annotation breaks the header rules"
    profiles = by_profile({MCP: E})
    mcp_versions = frozenset({"2026-07-28"})
    triggers = frozenset({"x-mcp-header"})
    sites = frozenset({"input"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        header = node.value.get("x-mcp-header")
        at = node.pointer("x-mcp-header")
        path = node.schema_path("x-mcp-header")
        if not isinstance(header, str) or not TOKEN.fullmatch(header):
            yield Issue(
                f"x-mcp-header {header!r} is not an HTTP header name (an RFC 9110 token)",
                at,
                keyword="x-mcp-header",
                hint="use letters, digits and -, e.g. X-Tenant-Id",
                schema_path=path,
            )
            return
        types = node.types
        if len(types) != 1 or not types <= {"string", "integer", "boolean"}:
            yield Issue(
                f"x-mcp-header is on a property of type {sorted(types) or 'any'}; only string, "
                "integer and boolean values can be mirrored into a header",
                at,
                keyword="x-mcp-header",
                hint="put the header on a single-typed string, integer or boolean property",
                schema_path=path,
            )
        if not _static(node):
            yield Issue(
                "x-mcp-header sits below anyOf, items or another dynamic keyword; clients "
                "cannot tell statically whether the header exists",
                at,
                keyword="x-mcp-header",
                hint="move it to a property reached through properties only",
                schema_path=path,
            )
        seen: dict[str, str] = node.site.cache.setdefault("mcp-headers", {})
        folded = header.lower()
        if folded in seen and seen[folded] != node.path:
            yield Issue(
                f"x-mcp-header {header!r} is already used at #{seen[folded]} (header names are "
                "case-insensitive)",
                at,
                keyword="x-mcp-header",
                hint="give each property its own header",
                schema_path=path,
            )
        else:
            seen[folded] = node.path


def _static(node: Node) -> bool:
    current: Node | None = node
    while current is not None and current.parent is not None:
        if current.key != "properties":
            return False
        current = current.parent
    return True
