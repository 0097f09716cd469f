"""Hygiene of the schema as a whole: its root, its dialect, its validity, its size."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Final

from jsoncontract.lint.context import DRAFTS, ToolCtx
from jsoncontract.lint.meta import meta_errors
from jsoncontract.lint.profiles import MCP
from jsoncontract.lint.rule import ALL, Edit, Family, Fix, Issue, ToolRule, by_profile
from jsoncontract.model import Severity

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
#: Meta-schema errors reported per schema before the rest is summarised.
MAX_META_ERRORS: Final = 50


class InputSchemaRootNotObject(ToolRule):
    """## What it does
    Checks that a tool's input schema says `"type": "object"` at its root, and nothing else:
    not a type list such as `["object", "null"]`, not another type, not missing.

    ## Why is this bad?
    Tool arguments are always a JSON object of named arguments. OpenAI requires the
    `parameters` root to be an object; Anthropic's `input_schema.type` must be `"object"`;
    MCP's `inputSchema` requires `type: "object"` (a `const` in the specification's own
    schema), and the OpenAI Agents SDK refuses a nullable root. A schema without a root type
    accepts strings and numbers, and providers reject the tool list.

    ## Example
    ```json
    {"name": "get_weather", "input_schema": {"properties": {"city": {"type": "string"}}}}
    ```

    ## Use instead
    ```json
    {"name": "get_weather",
     "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}}}
    ```

    ## Fix
    Adds `"type": "object"` when the root has no type, and narrows `["object", "null"]` to
    `"object"` (no dialect ever sends `null` arguments). A root of another type is not
    fixed: wrap the value in a named property instead.

    ## References
    - OpenAI function calling guide and Structured Outputs, "Supported schemas" (root must
      be an object): https://platform.openai.com/docs/guides/structured-outputs
    - Anthropic Python SDK, `ToolParam.input_schema` (type `"object"`)
    - MCP specification, `Tool.inputSchema` (schema.ts, 2025-06-18 to 2026-07-28)
    - OpenAI Agents SDK, `strict_schema.py` (root type list must be exactly `["object"]`)
    """

    code = "JC001"
    name = "input-schema-root-not-object"
    family = Family.HYGIENE
    summary = "The input schema's root is not exactly type object"
    profiles = by_profile({ALL: E})
    fixable = True

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        site = tool.site("input")
        if site is None or site.base is None or not isinstance(site.schema, dict):
            return
        schema = site.schema
        kind = schema.get("type")
        if kind == "object":
            return
        at = site.pointer("/type")
        if kind is None:
            fix = None
            refused = None
            if "enum" in schema or "const" in schema:
                refused = "the root has enum/const: say what the arguments are by hand"
            else:
                fix = Fix('add "type": "object" to the root', (Edit("set", at, "object"),))
            yield Issue(
                "the input schema has no type; tool arguments are an object, so the root "
                'must say "type": "object"',
                site.pointer(""),
                keyword="type",
                hint='add "type": "object" at the root',
                fix=fix,
                refused=refused,
                schema_path="#/type",
            )
            return
        if isinstance(kind, list) and "object" in kind:
            yield Issue(
                f'the root type is {kind!r}; providers require exactly "object" (arguments '
                "are never null or another type)",
                at,
                keyword="type",
                hint='write "type": "object"',
                fix=Fix('narrow the root type to "object"', (Edit("set", at, "object"),)),
                schema_path="#/type",
            )
            return
        yield Issue(
            f"the root type is {kind!r}; tool arguments are an object of named arguments",
            at,
            keyword="type",
            hint="wrap the value in a named property of an object schema",
            refused="the root accepts a different kind of value; renaming it into a property "
            "changes every caller",
            schema_path="#/type",
        )


class SchemaInvalid(ToolRule):
    """## What it does
    Validates every input and output schema against the meta-schema of its dialect (the
    `$schema` it declares, or JSON Schema 2020-12), and reports each error at the offending
    node: a misspelt type (`"strin"`), a negative `minLength`, `required: true` on a
    property, `properties` that is not an object.

    ## Why is this bad?
    A validator either refuses an invalid schema outright (the tool list fails to load) or,
    worse, silently ignores the broken keyword, so the contract you wrote is not the one
    enforced. MCP requires `inputSchema` to be a valid JSON Schema; providers reject invalid
    ones with a 400.

    ## Example
    ```json
    {"type": "object", "properties": {"limit": {"type": "int", "minimum": 1}},
     "required": "limit"}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"limit": {"type": "integer", "minimum": 1}},
     "required": ["limit"]}
    ```

    ## References
    - JSON Schema 2020-12 meta-schemas: https://json-schema.org/draft/2020-12/schema
    - MCP specification 2025-11-25, "Tools" (inputSchema MUST be a valid JSON Schema;
      2020-12 is the default dialect, SEP-1613)
    """

    code = "JC002"
    name = "schema-invalid"
    family = Family.HYGIENE
    summary = "A schema is not valid against its dialect's meta-schema"
    profiles = by_profile({ALL: E})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        for site in tool.sites:
            if site.base is None or site.draft == "unknown":
                continue
            errors = meta_errors(site.schema, site.effective_draft)
            shown = 0
            for error in errors:
                if 'is not a "regex"' in error.message:
                    continue  # pattern-invalid (JC008) says it better
                if shown == MAX_META_ERRORS:
                    yield Issue(
                        f"{len(errors) - shown} more meta-schema errors in this schema",
                        site.pointer(""),
                    )
                    break
                shown += 1
                yield Issue(
                    f"not a valid {site.effective_draft} schema: {error.message}",
                    site.pointer(error.pointer),
                    keyword=error.keyword,
                    schema_path="#" + error.pointer,
                )


class SchemaDialectUnknown(ToolRule):
    """## What it does
    Checks that `$schema`, when present, names a JSON Schema dialect jsoncontract and the
    common validators know: 2020-12, 2019-09, draft-07, draft-06, draft-04 or draft-03.

    ## Why is this bad?
    A validator that does not know the dialect cannot tell which keywords mean what. MCP
    (2025-11-25 and later) says unsupported dialects MUST be handled with an error; some
    clients instead fall back silently to another dialect, and the schema then means
    something else. A typo (`draft-2020-12`, `draft/2021`) is the usual cause; `http` and
    `https` spellings of the known URIs are both accepted.

    ## Example
    ```json
    {"$schema": "https://json-schema.org/draft/2021/schema", "type": "object"}
    ```

    ## Use instead
    ```json
    {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object"}
    ```

    ## References
    - MCP specification 2025-11-25, "JSON Schema usage" (SEP-1613)
    - JSON Schema specification links: https://json-schema.org/specification-links
    """

    code = "JC006"
    name = "schema-dialect-unknown"
    family = Family.HYGIENE
    summary = "$schema names an unknown JSON Schema dialect"
    profiles = by_profile({ALL: E})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        for site in tool.sites:
            if site.draft != "unknown" or site.base is None:
                continue
            declared = site.schema.get("$schema")
            yield Issue(
                f"$schema {declared!r} is not a JSON Schema dialect validators know; the "
                "schema cannot be checked",
                site.pointer("/$schema"),
                keyword="$schema",
                hint=f"use one of: {', '.join(sorted(DRAFTS))}",
                schema_path="#/$schema",
            )


class SchemaTooDeep(ToolRule):
    """## What it does
    Checks that no schema nests deeper than `schema.max_depth` subschema levels (default
    100) or holds more than `schema.max_nodes` subschemas (default 100,000). jsoncontract
    stops walking at those bounds.

    ## Why is this bad?
    No tool argument needs a hundred levels. Deep or huge schemas are how composition
    keywords are turned into a denial of service against whoever validates them: MCP
    2026-07-28 asks implementations to bound schema depth, subschema count and time, and
    the OpenAI Agents SDK refuses schemas past 100 levels or 100,000 nodes.

    ## Example
    A schema whose `properties` nest 150 objects deep.

    ## Use instead
    Flatten the structure, or describe the recursive part once under `$defs` and `$ref` it.

    ## References
    - MCP specification 2026-07-28, "JSON Schema usage" (SHOULD bound depth and size)
    - OpenAI Agents SDK, `strict_schema.py` (depth 100, 100,000 nodes)
    """

    code = "JC007"
    name = "schema-too-deep"
    family = Family.HYGIENE
    summary = "A schema nests deeper or is larger than the configured bounds"
    profiles = by_profile({ALL: W})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        limits = tool.settings.limits.schema
        for site in tool.sites:
            if site.too_deep is not None:
                yield Issue(
                    f"the schema nests more than {limits.max_depth} levels deep; nothing below "
                    "this node was linted",
                    site.pointer(site.too_deep),
                    hint="flatten it, or describe the repeated part once under $defs",
                    schema_path="#" + site.too_deep,
                )
            if site.truncated is not None:
                yield Issue(
                    f"the schema has more than {limits.max_nodes} subschemas; linting stopped here",
                    site.pointer(site.truncated),
                    hint="split the tool, or raise [lint.limits.schema] max_nodes",
                    schema_path="#" + site.truncated,
                )


class SchemaDialectUndeclared(ToolRule):
    """## What it does
    For MCP 2025-06-18, checks that input and output schemas declare `$schema`.

    ## Why is this bad?
    Before 2025-11-25 the MCP specification does not say which JSON Schema dialect an
    `inputSchema` uses (its own schema file is draft-07). Clients guess, and keywords such as
    `items` (an array in draft-07, `prefixItems` in 2020-12) or `$defs` versus `definitions`
    then mean different things on each side. From 2025-11-25 the default is 2020-12.

    ## Example
    ```json
    {"name": "search", "inputSchema": {"type": "object", "properties": {}}}
    ```

    ## Use instead
    ```json
    {"name": "search", "inputSchema": {
      "$schema": "https://json-schema.org/draft/2020-12/schema",
      "type": "object", "properties": {}}}
    ```

    ## References
    - MCP specification 2025-11-25, SEP-1613 (2020-12 becomes the default dialect)
    - MCP schema 2025-06-18 (`schema.json` is draft-07)
    """

    code = "JC057"
    name = "schema-dialect-undeclared"
    family = Family.MCP
    summary = "MCP 2025-06-18: a schema does not declare its dialect"
    profiles = by_profile({MCP: INFO})
    mcp_versions = frozenset({"2025-06-18"})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        for site in tool.sites:
            if site.base is None or site.draft is not None:
                continue
            yield Issue(
                f"the {site.kind} schema declares no $schema; MCP 2025-06-18 does not say which "
                "dialect applies",
                site.pointer(""),
                keyword="$schema",
                hint='add "$schema": "https://json-schema.org/draft/2020-12/schema" (or draft-07)',
                schema_path="#",
            )
