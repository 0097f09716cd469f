"""Closure: objects that accept properties nobody declared."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from jsoncontract.lint.profiles import ANTHROPIC_STRICT, OPENAI_STRICT
from jsoncontract.lint.rule import ALL, Edit, Family, Fix, Issue, NodeRule, by_profile
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import Node

E, W = Severity.ERROR, Severity.WARNING
STRICT: Final = (OPENAI_STRICT, ANTHROPIC_STRICT)
#: Keywords through which other subschemas may add properties to an object.
_COMPOSING: Final = ("allOf", "anyOf", "oneOf", "$ref", "if", "then", "else", "dependentSchemas")


class AdditionalPropertiesAllowed(NodeRule):
    """## What it does
    Checks that every object schema, at every depth (properties, array items, `$defs`,
    `anyOf` branches), says `"additionalProperties": false` (or `"unevaluatedProperties":
    false`).

    ## Why is this bad?
    An open object accepts any member the model invents: a misspelt `priorty` passes
    validation and is silently dropped, or reaches the business system. Models do invent
    parameters ("may hallucinate parameters not defined by your function schema", OpenAI
    SDK). OpenAI strict mode and Anthropic strict tool use reject a schema in which any
    object is open, so there it is an error. An explicit `additionalProperties` schema (a
    map of free keys) is only an error for the strict profiles.

    ## Example
    ```json
    {"type": "object",
     "properties": {"address": {"type": "object",
                                "properties": {"city": {"type": "string"}}}},
     "additionalProperties": false}
    ```

    ## Use instead
    ```json
    {"type": "object",
     "properties": {"address": {"type": "object",
                                "properties": {"city": {"type": "string"}},
                                "additionalProperties": false}},
     "additionalProperties": false}
    ```

    ## Fix
    Adds `"additionalProperties": false`. Refused, with the reason, where closing would
    change what the schema accepts beyond undeclared members: an object that declares no
    properties (it would only accept `{}`), an object explicitly opened with `true`, an
    `allOf` branch or an object whose properties come from `allOf`/`$ref` (use
    `unevaluatedProperties` there).

    ## References
    - OpenAI Structured Outputs, "Supported schemas" (`additionalProperties: false` must
      always be set in objects)
    - Anthropic structured outputs (`additionalProperties` must be `false`)
    - MCP specification, "Tools" (recommended form for tools without parameters)
    - sourcemeta/jsonschema#222 and blazickjp/arxiv-mcp-server#103 (users asking for it)
    """

    code = "JC020"
    name = "additional-properties-allowed"
    family = Family.CLOSURE
    summary = "An object accepts properties it does not declare"
    profiles = by_profile({ALL: W, OPENAI_STRICT: E, ANTHROPIC_STRICT: E})
    fixable = True
    triggers = frozenset({"@object"})
    sites = frozenset({"input"})
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        extra = value.get("additionalProperties")
        if extra is False or value.get("unevaluatedProperties") is False:
            return
        strict = tuple(p for p in STRICT if p in active)
        at = node.pointer("additionalProperties")
        where = node.label()
        if extra is True or extra == {}:
            yield Issue(
                f"{where} sets additionalProperties to {'true' if extra is True else '{}'}: it "
                "accepts any extra member",
                at,
                keyword="additionalProperties",
                hint="set it to false and declare every member under properties",
                refused="the object was opened on purpose; closing it rejects members it "
                "now accepts",
                schema_path=node.schema_path("additionalProperties"),
            )
            return
        if isinstance(extra, dict):
            if strict:
                yield Issue(
                    f"{where} is a map (additionalProperties is a schema); strict mode "
                    "requires additionalProperties: false",
                    at,
                    keyword="additionalProperties",
                    hint="model the map as an array of {key, value} objects",
                    refused="closing a map removes every key it accepts",
                    profiles=strict,
                    schema_path=node.schema_path("additionalProperties"),
                )
            return
        if node.key == "allOf":
            if strict:
                yield Issue(
                    f"{where} (an allOf branch) is open; strict mode requires every object "
                    "to be closed",
                    node.pointer(),
                    keyword="additionalProperties",
                    hint="merge the branches into one object with additionalProperties: false",
                    refused="closing one allOf branch rejects the members of the others",
                    profiles=strict,
                    schema_path=node.schema_path(),
                )
            return
        fix: Fix | None = None
        refused: str | None = None
        composing = [k for k in _COMPOSING if k in value]
        if composing:
            refused = (
                f"its members may come from {', '.join(composing)}; additionalProperties: "
                "false would reject them (use unevaluatedProperties: false)"
            )
        elif "properties" not in value and "patternProperties" not in value and node.path:
            refused = "it declares no properties, so closing it would only accept {}"
        else:
            fix = Fix('add "additionalProperties": false', (Edit("set", at, False),))
        if node.path or value.get("properties"):
            message = (
                f"{where} accepts properties it does not declare (additionalProperties "
                "is not false)"
            )
        else:
            message = "the tool takes no parameters but accepts any object"
        yield Issue(
            message,
            node.pointer(),
            keyword="additionalProperties",
            hint='add "additionalProperties": false',
            fix=fix,
            refused=refused,
            schema_path=node.schema_path(),
        )
