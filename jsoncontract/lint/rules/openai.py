"""OpenAI function calling in strict mode (Structured Outputs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.lint.profiles import ANTHROPIC_STRICT, OPENAI_STRICT, STRICT_PROFILES
from jsoncontract.lint.rule import (
    Edit,
    Family,
    FileRule,
    Fix,
    Issue,
    NodeRule,
    ToolRule,
    by_profile,
)
from jsoncontract.lint.rules.support import OPENAI_FORMATS, all_of_fix, drop_fix, one_of_fix
from jsoncontract.lint.walk import LISTS, MAPS, SINGLE
from jsoncontract.model import Severity
from jsoncontract.pointer import escape_pointer_token

if TYPE_CHECKING:
    from jsoncontract.lint.context import FileCtx, Node, ToolCtx

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
#: Keywords strict mode rejects, and the ones it is ambiguous about (warnings).
OPENAI_UNSUPPORTED: Final = frozenset(
    {
        "allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
        "dependencies", "oneOf", "patternProperties", "unevaluatedProperties",
        "unevaluatedItems", "propertyNames", "minProperties", "maxProperties", "contains",
        "minContains", "maxContains", "uniqueItems",
    }
)  # fmt: skip
OPENAI_AMBIGUOUS: Final = frozenset({"minLength", "maxLength"})


class InputSchemaRootUnion(ToolRule):
    """## What it does
    Under `openai-strict`, checks that the input schema's root does not use `anyOf` or
    `oneOf`.

    ## Why is this bad?
    OpenAI requires the root to be an object "and not use `anyOf`"; a discriminated union at
    the root (the usual output of zod or Pydantic unions) is rejected, and the OpenAI Agents
    SDK raises before sending it.

    ## Example
    ```json
    {"anyOf": [{"type": "object", "properties": {"id": {"type": "string"}}},
               {"type": "object", "properties": {"email": {"type": "string"}}}]}
    ```

    ## Use instead
    ```json
    {"type": "object", "additionalProperties": false, "required": ["lookup"],
     "properties": {"lookup": {"anyOf": [
       {"type": "object", "properties": {"id": {"type": "string"}},
        "required": ["id"], "additionalProperties": false},
       {"type": "object", "properties": {"email": {"type": "string"}},
        "required": ["email"], "additionalProperties": false}]}}}
    ```
    or split the tool in two.

    ## References
    - OpenAI Structured Outputs, "Supported schemas" (root must not be `anyOf`)
    - OpenAI Agents SDK, `strict_schema.py`
    """

    code = "JC022"
    name = "input-schema-root-union"
    family = Family.OPENAI
    summary = "openai-strict: the input schema's root is an anyOf/oneOf union"
    profiles = by_profile({OPENAI_STRICT: E})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        site = tool.site("input")
        if site is None or site.base is None or not isinstance(site.schema, dict):
            return
        for keyword in ("anyOf", "oneOf"):
            if keyword in site.schema:
                yield Issue(
                    f"the input schema's root is a {keyword} union; OpenAI strict mode needs "
                    "one object at the root",
                    site.pointer("/" + keyword),
                    keyword=keyword,
                    hint="move the union into a property, or split the tool in two",
                    schema_path="#/" + keyword,
                )


class KeywordUnsupportedByOpenAI(NodeRule):
    """## What it does
    Under `openai-strict`, flags keywords outside the Structured Outputs subset: `allOf`,
    `not`, `if`/`then`/`else`, `dependentRequired`, `dependentSchemas`, `oneOf`,
    `patternProperties`, `unevaluated*`, `propertyNames`, `min/maxProperties`, `contains`,
    `uniqueItems`. `minLength`/`maxLength` get a warning: the documentation is ambiguous
    about them.

    ## Why is this bad?
    With `strict: true` the request is rejected, naming the unsupported constraint. Without
    it, the constraint is silently not enforced on what the model generates.

    ## Example
    ```json
    {"type": "array", "items": {"type": "string"}, "uniqueItems": true}
    ```

    ## Use instead
    ```json
    {"type": "array", "items": {"type": "string"},
     "description": "Tags, each listed once."}
    ```
    and deduplicate in the tool.

    ## Fix
    Merges a one-branch `allOf` into its schema when no keyword clashes, and turns `oneOf`
    into `anyOf` when no value can match two branches (distinct `type`s or `const`s). Other
    keywords are constraints: dropping them would accept values the schema now rejects, so
    no fix is offered.

    ## References
    - OpenAI Structured Outputs, "Supported schemas" and "not yet supported"
    - Pydantic AI, `OpenAIJsonSchemaTransformer` (incompatible keywords)
    - OpenAI Agents SDK, `strict_schema.py` (single `allOf` merged, `oneOf` -> `anyOf`)
    """

    code = "JC023"
    name = "keyword-unsupported-by-openai"
    family = Family.OPENAI
    summary = "openai-strict: a keyword outside the Structured Outputs subset"
    profiles = by_profile({OPENAI_STRICT: E})
    fixable = True
    triggers = OPENAI_UNSUPPORTED | OPENAI_AMBIGUOUS
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        for keyword in node.value:
            if keyword not in self.triggers:
                continue
            fix: Fix | None = None
            refused: str | None = None
            if keyword == "oneOf":
                fix, refused = one_of_fix(node)
            elif keyword == "allOf":
                fix, refused = all_of_fix(node)
            else:
                refused = (
                    f"{keyword} is a constraint; dropping it accepts values the schema now rejects"
                )
            ambiguous = keyword in OPENAI_AMBIGUOUS
            yield Issue(
                f"{keyword} is not supported by OpenAI strict mode"
                + (" (documented ambiguously; fine-tuned models lack it)" if ambiguous else ""),
                node.pointer(keyword),
                keyword=keyword,
                hint="enforce it in the tool and say it in the description",
                fix=fix,
                refused=refused,
                severity=W if ambiguous else None,
                schema_path=node.schema_path(keyword),
            )


class FormatUnsupportedByOpenAI(NodeRule):
    """## What it does
    Under `openai-strict`, checks string `format` values against the supported list:
    `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`, `ipv6`, `uuid`.

    ## Why is this bad?
    Other formats (`uri`, `uri-reference`, `regex`, `idn-email`...) are rejected in strict
    mode or ignored, so the model is not held to them.

    ## Example
    ```json
    {"type": "string", "format": "uri"}
    ```

    ## Use instead
    ```json
    {"type": "string", "pattern": "^https://", "description": "An https URL."}
    ```

    ## References
    - OpenAI Structured Outputs, "Supported schemas" (supported string formats)
    - Pydantic AI, `OpenAIJsonSchemaTransformer` (format allowlist)
    """

    code = "JC024"
    name = "format-unsupported-by-openai"
    family = Family.OPENAI
    summary = "openai-strict: a string format strict mode does not support"
    profiles = by_profile({OPENAI_STRICT: E})
    triggers = frozenset({"format"})
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        fmt = node.value.get("format")
        types = node.types
        if not isinstance(fmt, str) or fmt in OPENAI_FORMATS:
            return
        if types and "string" not in types:
            return
        yield Issue(
            f"format {fmt!r} is not supported by OpenAI strict mode (supported: "
            f"{', '.join(sorted(OPENAI_FORMATS))})",
            node.pointer("format"),
            keyword="format",
            hint="use a pattern instead, and check the value in the tool",
            schema_path=node.schema_path("format"),
        )


class DefaultNotPermitted(NodeRule):
    """## What it does
    Under `openai-strict`, flags `default` values.

    ## Why is this bad?
    Strict mode has answered `'default' is not permitted` for defaults inside properties,
    and the OpenAI Agents SDK and Pydantic AI strip `default` before sending a strict
    schema. A default also never reaches the tool: the model must send every field in
    strict mode, so the tool has to apply its own default for `null`.

    ## Example
    ```json
    {"type": ["integer", "null"], "default": 20}
    ```

    ## Use instead
    ```json
    {"type": ["integer", "null"], "description": "Page size; null means 20."}
    ```

    ## Fix
    Removes `default`. It is an annotation, so validation is unchanged.

    ## References
    - OpenAI API error `In context=('properties', ...), 'default' is not permitted`
      (observed)
    - OpenAI Agents SDK, `strict_schema.py`; Pydantic AI `OpenAIJsonSchemaTransformer`
    """

    code = "JC025"
    name = "default-not-permitted"
    family = Family.OPENAI
    summary = "openai-strict: a default value in a strict schema"
    profiles = by_profile({OPENAI_STRICT: W})
    fixable = True
    triggers = frozenset({"default"})
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        yield Issue(
            f"{node.label()} has a default; OpenAI strict mode does not accept defaults",
            node.pointer("default"),
            keyword="default",
            hint="say the default in the description and apply it in the tool",
            fix=drop_fix(node, "default"),
            schema_path=node.schema_path("default"),
        )


class ObjectWithoutProperties(NodeRule):
    """## What it does
    Under `openai-strict`, flags object schemas without a `properties` member.

    ## Why is this bad?
    OpenAI drops objects that have no `properties`; the MCP integration of the OpenAI
    Agents SDK adds `"properties": {}` for that reason, and Pydantic AI does the same for
    every object.

    ## Example
    ```json
    {"type": "object", "additionalProperties": false}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {}, "additionalProperties": false}
    ```

    ## Fix
    Adds `"properties": {}`, which changes nothing about what validates.

    ## References
    - OpenAI Agents SDK, `mcp/util.py` ("MCP spec doesn't require ... OpenAI spec does")
    - Pydantic AI, `OpenAIJsonSchemaTransformer` ("OpenAI drops objects without it")
    """

    code = "JC029"
    name = "object-without-properties"
    family = Family.OPENAI
    summary = "openai-strict: an object schema without properties"
    profiles = by_profile({OPENAI_STRICT: W})
    fixable = True
    triggers = frozenset({"@object"})
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        if "properties" in value or "type" not in value:
            return
        yield Issue(
            f"{node.label()} is an object without properties; OpenAI drops such objects",
            node.pointer(),
            keyword="properties",
            hint='add "properties": {}',
            fix=Fix('add "properties": {}', (Edit("set", node.pointer("properties"), {}),)),
            schema_path=node.schema_path(),
        )


class OpenAILimitsExceeded(ToolRule):
    """## What it does
    Under `openai-strict`, checks an input schema against the Structured Outputs size
    limits (configurable under `[lint.limits.openai]`): at most `max_properties` object
    properties in total (5,000), `max_depth` levels of object nesting (10),
    `max_string_chars` characters of property names, definition names, enum and const
    values together (120,000), `max_enum_values` enum values in total (1,000), and for a
    string enum with more than `large_enum_values` values (250), `large_enum_chars`
    characters (15,000).

    ## Why is this bad?
    The request is rejected (`N levels of nesting exceeds limit of 5` with the older limits).
    The limits have been raised over time (older pages: 100 properties, 5 levels, 15,000
    characters, 500 enum values, 7,500 characters), which is why they are configurable.

    ## Example
    An order schema nesting `customer.address.geo.region.country.subdivision...` twelve
    objects deep.

    ## Use instead
    Flatten the structure, or split the tool.

    ## References
    - OpenAI Structured Outputs, "Supported schemas" (objects have limitations on nesting
      depth and size)
    """

    code = "JC026"
    name = "openai-limits-exceeded"
    family = Family.OPENAI
    summary = "openai-strict: a schema exceeds the Structured Outputs size limits"
    profiles = by_profile({OPENAI_STRICT: E})

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        site = tool.site("input")
        if site is None or site.base is None:
            return
        limits = tool.settings.limits.openai
        stats = _openai_stats(site.schema, limits.large_enum_values)
        checks = [
            (stats.properties, limits.max_properties, "object properties", ""),
            (stats.depth, limits.max_depth, "levels of object nesting", stats.deepest),
            (stats.chars, limits.max_string_chars,
             "characters of property names, definition names, enum and const values", ""),
            (stats.enum_values, limits.max_enum_values, "enum values", ""),
        ]  # fmt: skip
        for count, limit, what, where in checks:
            if count > limit:
                yield Issue(
                    f"the schema has {count} {what}; OpenAI strict mode allows {limit}",
                    site.pointer(where),
                    hint="flatten or split the schema (limits: [lint.limits.openai])",
                    schema_path="#" + where,
                )
        for path, count, chars in stats.large_enums:
            if chars > limits.large_enum_chars:
                yield Issue(
                    f"this enum has {count} string values totalling {chars} characters; "
                    f"above {limits.large_enum_values} values OpenAI allows "
                    f"{limits.large_enum_chars}",
                    site.pointer(path + "/enum"),
                    keyword="enum",
                    hint="shorten the values, or accept a free string checked by the tool",
                    schema_path="#" + path + "/enum",
                )


class _Stats:
    __slots__ = ("chars", "deepest", "depth", "enum_values", "large_enums", "properties")

    def __init__(self) -> None:
        self.properties = 0
        self.depth = 0
        self.deepest = ""
        self.chars = 0
        self.enum_values = 0
        self.large_enums: list[tuple[str, int, int]] = []


def _openai_stats(schema: Any, large: int) -> _Stats:
    stats = _Stats()
    stack: list[tuple[Any, str, int]] = [(schema, "", 0)]
    while stack:
        node, path, depth = stack.pop()
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        is_object = (
            kind == "object"
            or (isinstance(kind, list) and "object" in kind)
            or (kind is None and "properties" in node)
        )
        if is_object:
            depth += 1
            if depth > stats.depth:
                stats.depth, stats.deepest = depth, path
        props = node.get("properties")
        if isinstance(props, dict):
            stats.properties += len(props)
            stats.chars += sum(len(k) for k in props)
        for key in ("$defs", "definitions"):
            defs = node.get(key)
            if isinstance(defs, dict):
                stats.chars += sum(len(k) for k in defs)
        enum = node.get("enum")
        if isinstance(enum, list):
            stats.enum_values += len(enum)
            strings = [v for v in enum if isinstance(v, str)]
            chars = sum(len(v) for v in strings)
            stats.chars += chars
            if len(strings) > large:
                stats.large_enums.append((path, len(strings), chars))
        const = node.get("const")
        if isinstance(const, str):
            stats.chars += len(const)
        for key, sub in node.items():
            if key in SINGLE and isinstance(sub, dict):
                stack.append((sub, f"{path}/{key}", depth))
            elif key in MAPS and isinstance(sub, dict):
                stack.extend(
                    (item, f"{path}/{key}/{escape_pointer_token(name)}", depth)
                    for name, item in sub.items()
                )
            elif key in LISTS and isinstance(sub, list):
                stack.extend((item, f"{path}/{key}/{i}", depth) for i, item in enumerate(sub))
    return stats


class StrictModeNotEnabled(FileRule):
    """## What it does
    Under `openai-strict` or `anthropic-strict`, reports OpenAI and Anthropic tool
    definitions that do not say `"strict": true`. Tools that say `"strict": false` are
    linted without that profile's strict rules.

    ## Why is this bad?
    Without `strict`, the provider does not constrain generation to the schema: the
    arguments may not validate. On the OpenAI Responses API an omitted `strict` makes the
    server try to normalise the schema into strict mode (optional parameters become
    required) and fall back to non-strict when it cannot; Chat Completions stays
    non-strict by default.

    ## Example
    ```json
    {"type": "function", "function": {"name": "get_weather",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"], "additionalProperties": false}}}
    ```

    ## Use instead
    ```json
    {"type": "function", "function": {"name": "get_weather", "strict": true,
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                    "required": ["city"], "additionalProperties": false}}}
    ```

    ## References
    - OpenAI function calling guide ("Strict mode"; Responses normalisation and fallback)
    - Anthropic structured outputs ("strict tool use", `tools[].strict`)
    """

    code = "JC027"
    name = "strict-mode-not-enabled"
    family = Family.OPENAI
    summary = "A strict profile is selected but the tool does not set strict: true"
    profiles = by_profile({OPENAI_STRICT: INFO, ANTHROPIC_STRICT: INFO})

    def check(self, file: FileCtx, active: frozenset[str]) -> Iterator[Issue]:
        for tool in file.tools:
            dialect = tool.contract.dialect
            for profile, dialects in STRICT_PROFILES.items():
                if profile not in active or dialect not in dialects:
                    continue
                strict = tool.contract.strict
                if strict is True:
                    continue
                if strict is False:
                    message = (
                        f"tool {tool.name!r} says strict: false; {profile} rules were skipped "
                        "for it"
                    )
                    at = tool.member("strict")
                else:
                    message = f"tool {tool.name!r} does not set strict: true"
                    at = tool.member("name")
                yield Issue(
                    message,
                    at,
                    keyword="strict",
                    hint='set "strict": true so the provider holds the model to the schema',
                    profiles=(profile,),
                    tool=tool,
                )
