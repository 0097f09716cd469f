"""Anthropic strict tool use (structured outputs)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.lint.profiles import ANTHROPIC_STRICT, GEMINI
from jsoncontract.lint.rule import Family, FileRule, Issue, NodeRule, by_profile
from jsoncontract.lint.rules.support import OPENAI_FORMATS, one_of_fix
from jsoncontract.lint.walk import LISTS, MAPS, SINGLE
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import FileCtx, Node

E, W = Severity.ERROR, Severity.WARNING
ANTHROPIC_FORMATS: Final = OPENAI_FORMATS | {"uri"}
#: Keywords strict tool use documents as unsupported, or leaves out of its supported list.
ANTHROPIC_UNSUPPORTED: Final = {
    "minimum": "numeric constraints are not supported",
    "maximum": "numeric constraints are not supported",
    "exclusiveMinimum": "numeric constraints are not supported",
    "exclusiveMaximum": "numeric constraints are not supported",
    "multipleOf": "numeric constraints are not supported",
    "minLength": "string length constraints are not supported",
    "maxLength": "string length constraints are not supported",
    "maxItems": "array constraints beyond minItems 0 or 1 are not supported",
    "uniqueItems": "array constraints beyond minItems 0 or 1 are not supported",
    "contains": "array constraints beyond minItems 0 or 1 are not supported",
    "minContains": "array constraints beyond minItems 0 or 1 are not supported",
    "maxContains": "array constraints beyond minItems 0 or 1 are not supported",
    "prefixItems": "array constraints beyond minItems 0 or 1 are not supported",
    "minProperties": "it is not in the supported subset",
    "maxProperties": "it is not in the supported subset",
    "patternProperties": "it is not in the supported subset",
    "propertyNames": "it is not in the supported subset",
    "not": "it is not in the supported subset",
    "if": "it is not in the supported subset",
    "then": "it is not in the supported subset",
    "else": "it is not in the supported subset",
    "dependentRequired": "it is not in the supported subset",
    "dependentSchemas": "it is not in the supported subset",
    "dependencies": "it is not in the supported subset",
    "unevaluatedProperties": "it is not in the supported subset",
    "unevaluatedItems": "it is not in the supported subset",
    "oneOf": "it is not in the supported subset (the SDK rewrites it to anyOf)",
}


class KeywordUnsupportedByAnthropicStrict(NodeRule):
    """## What it does
    Under `anthropic-strict`, flags keywords outside Anthropic's strict subset: numeric
    constraints (`minimum`, `maximum`, `exclusive*`, `multipleOf`), `minLength`/`maxLength`,
    array constraints other than `minItems` 0 or 1, and keywords the supported list leaves
    out (`not`, `if`/`then`/`else`, `patternProperties`, `oneOf`...).

    ## Why is this bad?
    The request fails with a 400. The Anthropic SDK's `transform_schema()` instead removes
    them and appends them to the description, so the model sees a hint, not a rule, and
    only your own validation enforces them.

    ## Example
    ```json
    {"type": "integer", "minimum": 1, "maximum": 100}
    ```

    ## Use instead
    ```json
    {"type": "integer", "description": "Between 1 and 100."}
    ```
    and check the range in the tool (jsoncontract `check` still validates against your
    original schema).

    ## Fix
    Turns `oneOf` into `anyOf` when no value can match two branches. The other keywords are
    constraints, so dropping them is refused.

    ## References
    - Anthropic structured outputs, "JSON Schema limitations" (shared by strict tool use)
    - Anthropic Python SDK, `lib/_parse/_transform.py` (`transform_schema`)
    """

    code = "JC030"
    name = "keyword-unsupported-by-anthropic-strict"
    family = Family.ANTHROPIC
    summary = "anthropic-strict: a keyword outside the strict subset"
    profiles = by_profile({ANTHROPIC_STRICT: E})
    fixable = True
    triggers = frozenset({*ANTHROPIC_UNSUPPORTED, "minItems"})
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        for keyword in value:
            if keyword == "minItems":
                if value[keyword] in (0, 1):
                    continue
                why = "minItems is supported only as 0 or 1"
            else:
                reason = ANTHROPIC_UNSUPPORTED.get(keyword)
                if reason is None:
                    continue
                why = reason
            fix, refused = (None, None)
            if keyword == "oneOf":
                fix, refused = one_of_fix(node)
            else:
                refused = f"{keyword} is a constraint; dropping it accepts more values"
            yield Issue(
                f"{keyword} is not supported by Anthropic strict tool use: {why}",
                node.pointer(keyword),
                keyword=keyword,
                hint="enforce it in the tool and say it in the description",
                fix=fix,
                refused=refused,
                schema_path=node.schema_path(keyword),
            )


class FormatUnsupportedByAnthropicStrict(NodeRule):
    """## What it does
    Under `anthropic-strict`, checks string `format` values against the supported list:
    `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `uri`, `ipv4`, `ipv6`,
    `uuid`.

    ## Why is this bad?
    The SDK's `transform_schema()` drops other formats, so the model is not held to them.

    ## Example
    ```json
    {"type": "string", "format": "uri-reference"}
    ```

    ## Use instead
    ```json
    {"type": "string", "format": "uri"}
    ```

    ## References
    - Anthropic structured outputs, supported string formats
    - Anthropic Python SDK, `transform_schema` (format allowlist)
    """

    code = "JC032"
    name = "format-unsupported-by-anthropic-strict"
    family = Family.ANTHROPIC
    summary = "anthropic-strict: a string format strict tool use does not support"
    profiles = by_profile({ANTHROPIC_STRICT: W})
    triggers = frozenset({"format"})
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        fmt = node.value.get("format")
        if not isinstance(fmt, str) or fmt in ANTHROPIC_FORMATS:
            return
        if node.types and "string" not in node.types:
            return
        yield Issue(
            f"format {fmt!r} is not supported by Anthropic strict tool use (supported: "
            f"{', '.join(sorted(ANTHROPIC_FORMATS))})",
            node.pointer("format"),
            keyword="format",
            hint="use a supported format or a pattern",
            schema_path=node.schema_path("format"),
        )


class EnumValueTypeUnsupported(NodeRule):
    """## What it does
    Checks the types of `enum` values against the target: Anthropic strict tool use allows
    only strings, numbers, booleans and `null`; Gemini `parameters` (OpenAPI subset) only
    strings; Gemini JSON Schema strings and numbers.

    ## Why is this bad?
    Anthropic rejects complex types in enums with a 400. Gemini's `Schema.enum` is a list
    of strings; Pydantic AI moves non-string enums into the description for Gemini, so the
    model is no longer constrained.

    ## Example
    ```json
    {"type": "integer", "enum": [1, 2, 3]}
    ```
    (under `gemini` with `parameters`)

    ## Use instead
    ```json
    {"type": "string", "enum": ["1", "2", "3"]}
    ```

    ## References
    - Anthropic structured outputs ("complex types in enums" not supported)
    - python-genai, `Schema.enum: list[str]`; `responseJsonSchema` docs (strings and
      numbers)
    - Pydantic AI, `GoogleOpenAPISchemaTransformer` (non-string enums)
    """

    code = "JC034"
    name = "enum-value-type-unsupported"
    family = Family.ANTHROPIC
    summary = "An enum holds values the target's enum does not accept"
    profiles = by_profile({ANTHROPIC_STRICT: E, GEMINI: E})
    triggers = frozenset({"enum"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        values = node.value.get("enum")
        if not isinstance(values, list):
            return
        if ANTHROPIC_STRICT in active and not node.site.openapi:
            complex_values = [v for v in values if isinstance(v, dict | list)]
            if complex_values:
                yield Issue(
                    f"enum holds {len(complex_values)} object or array value(s); Anthropic "
                    "strict tool use accepts only scalars",
                    node.pointer("enum"),
                    keyword="enum",
                    hint="use scalar values, or anyOf with const objects",
                    profiles=(ANTHROPIC_STRICT,),
                    schema_path=node.schema_path("enum"),
                )
        if GEMINI in active:
            if node.site.openapi:
                bad = [v for v in values if not isinstance(v, str) and v is not None]
                allowed, severity = "strings", None
            else:
                bad = [
                    v for v in values
                    if not isinstance(v, str | int | float) or isinstance(v, bool)
                ]  # fmt: skip
                allowed, severity = "strings and numbers", W
            if bad:
                yield Issue(
                    f"enum holds {_kinds(bad)}; Gemini enums take {allowed}",
                    node.pointer("enum"),
                    keyword="enum",
                    hint="write the values as strings",
                    severity=severity,
                    profiles=(GEMINI,),
                    schema_path=node.schema_path("enum"),
                )


def _kinds(values: list[Any]) -> str:
    from jsoncontract.lint.heuristics import json_type

    kinds = sorted({json_type(v) for v in values})
    return f"{', '.join(kinds)} value(s)"


class AllOfWithRef(NodeRule):
    """## What it does
    Under `anthropic-strict`, flags `allOf` combined with `$ref` (a branch that is a
    reference, or `allOf` next to `$ref`).

    ## Why is this bad?
    Anthropic strict tool use supports `allOf`, but not together with `$ref`; the request
    fails.

    ## Example
    ```json
    {"allOf": [{"$ref": "#/$defs/address"}, {"required": ["city"]}]}
    ```

    ## Use instead
    Inline the referenced schema, or move the extra constraint into the definition.

    ## References
    - Anthropic structured outputs ("`allOf` (not with `$ref`)")
    """

    code = "JC036"
    name = "all-of-with-ref"
    family = Family.ANTHROPIC
    summary = "anthropic-strict: allOf combined with $ref"
    profiles = by_profile({ANTHROPIC_STRICT: E})
    triggers = frozenset({"allOf"})
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        branches = value.get("allOf")
        if not isinstance(branches, list):
            return
        if "$ref" in value or any(isinstance(b, dict) and "$ref" in b for b in branches):
            yield Issue(
                "allOf is combined with $ref; Anthropic strict tool use does not support that",
                node.pointer("allOf"),
                keyword="allOf",
                hint="inline the referenced schema into the allOf branch",
                schema_path=node.schema_path("allOf"),
            )


class AnthropicStrictLimitsExceeded(FileRule):
    """## What it does
    Under `anthropic-strict`, counts what one request (one tool list) holds: strict tools
    (at most `anthropic.max_strict_tools`, 20), optional parameters across them
    (`max_optional_parameters`, 24) and parameters with union types, i.e. type arrays or
    `anyOf` (`max_union_parameters`, 16).

    ## Why is this bad?
    The request fails: `Schemas contains too many parameters with union types (N ...)
    which exceeds the limit: 16`, or `Schema is too complex for compilation`.

    ## Example
    A tool list of 30 strict tools, each with three optional `["string", "null"]` fields.

    ## Use instead
    Send only the tools a step needs, mark the rest `"strict": false`, or make parameters
    required.

    ## References
    - Anthropic structured outputs, documented limits (20 strict tools, 24 optional
      parameters, 16 union-typed parameters)
    """

    code = "JC031"
    name = "anthropic-strict-limits-exceeded"
    family = Family.ANTHROPIC
    summary = "anthropic-strict: a tool list exceeds the strict tool use limits"
    profiles = by_profile({ANTHROPIC_STRICT: E})

    def check(self, file: FileCtx, active: frozenset[str]) -> Iterator[Issue]:
        limits = file.tools[0].settings.limits.anthropic if file.tools else None
        if limits is None:
            return
        strict_tools = optional = unions = 0
        reported: set[str] = set()
        for tool in file.tools:
            if ANTHROPIC_STRICT not in tool.profiles:
                continue
            strict_tools += 1
            site = tool.site("input")
            if site is not None:
                more_optional, more_unions = _count(site.schema)
                optional += more_optional
                unions += more_unions
            for kind, count, limit, what in (
                ("tools", strict_tools, limits.max_strict_tools, "strict tools"),
                ("optional", optional, limits.max_optional_parameters, "optional parameters"),
                ("unions", unions, limits.max_union_parameters, "parameters with union types"),
            ):
                if count > limit and kind not in reported:
                    reported.add(kind)
                    yield Issue(
                        f"with tool {tool.name!r} the list holds {count} {what}; Anthropic "
                        f"strict tool use allows {limit} per request",
                        tool.member("name"),
                        hint="send fewer strict tools per request, or mark some strict: false",
                        tool=tool,
                    )


def _count(schema: Any) -> tuple[int, int]:
    optional = unions = 0
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        props = node.get("properties")
        if isinstance(props, dict):
            required = node.get("required")
            names = (
                {n for n in required if isinstance(n, str)} if isinstance(required, list) else set()
            )
            optional += sum(1 for k in props if k not in names)
            for sub in props.values():
                if isinstance(sub, dict) and (isinstance(sub.get("type"), list) or "anyOf" in sub):
                    unions += 1
        for key, sub in node.items():
            if key in SINGLE and isinstance(sub, dict):
                stack.append(sub)
            elif key in MAPS and isinstance(sub, dict) and key != "properties":
                stack.extend(sub.values())
            elif key in LISTS and isinstance(sub, list):
                stack.extend(sub)
        if isinstance(props, dict):
            stack.extend(props.values())
    return optional, unions
