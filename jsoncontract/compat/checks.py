"""Every check of ``compat``, with an example of the change it classes and why.

The table :data:`CHECKS` holds one example per finding code of the ``compat`` family: an
old and a new version (of one property's schema, of an input schema, or of a tool set),
and a sentence saying why the change is or is not breaking. The page
``docs/compat.md`` is generated from it, with the class the check gives the example in
an input schema and in an output schema worked out by running :func:`~.compare` on it (so
the page cannot say what the checks do not do; a test keeps it current)::

    python -m jsoncontract.compat.checks docs/compat.md
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from jsoncontract import codes

#: How an example is written: the schema of one property ``x``, a whole input schema, or
#: the tool list itself.
PROPERTY: Final = "property"
SCHEMA: Final = "schema"
TOOLS: Final = "tools"


@dataclass(frozen=True, slots=True)
class Check:
    """One check: its code, an example (``old`` -> ``new``, written as ``kind`` says) and
    why the change is, or is not, breaking."""

    code: str
    old: Any
    new: Any
    why: str
    kind: str = PROPERTY


def _tool(**members: Any) -> dict[str, Any]:
    return {"name": "search", "inputSchema": {"type": "object"}, **members}


def _deep(levels: int, leaf: dict[str, Any]) -> dict[str, Any]:
    node = leaf
    for _ in range(levels):
        node = {"type": "object", "properties": {"a": node}}
    return node


_OBJECT: Final[dict[str, Any]] = {"type": "object", "properties": {"q": {"type": "string"}}}
_CLOSED: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"q": {"type": "string"}, "page": {"type": "integer"}},
    "additionalProperties": False,
}
_DEFS: Final[dict[str, Any]] = {"$defs": {"Id": {"type": "string"}}}
_BY_ID: Final[dict[str, Any]] = {
    "$defs": {
        "Id": {"$id": "urn:id", "type": "string"},
        "Id2": {"$id": "urn:id-v2", "type": "string", "format": "uuid"},
    }
}

CHECKS: Final = (
    Check(codes.COMPAT_TOOL_REMOVED, [_tool()], [],
          "every call to it fails", TOOLS),
    Check(codes.COMPAT_TOOL_RENAMED, [_tool()], [_tool(name="find")],
          "callers of the old name fail", TOOLS),
    Check(codes.COMPAT_TOOL_ADDED, [], [_tool()], "no existing call changes", TOOLS),
    Check(codes.COMPAT_DESCRIPTION_CHANGED, [_tool(description="Search orders.")],
          [_tool(description="Search orders. Always pass a date.")],
          "the model reads the description to choose and fill in calls", TOOLS),
    Check(codes.COMPAT_TITLE_CHANGED, {"type": "string", "title": "Query"},
          {"type": "string", "title": "Search query"}, "titles are only displayed"),
    Check(codes.COMPAT_HINT_RISKIER, [_tool(annotations={"readOnlyHint": True})],
          [_tool(annotations={})],
          "hosts that ran it without asking should now ask (absent reads as false)", TOOLS),
    Check(codes.COMPAT_HINT_SAFER, [_tool()], [_tool(annotations={"destructiveHint": False})],
          "no call breaks; hosts may ask less", TOOLS),
    Check(codes.COMPAT_HINT_RESTATED, [_tool()], [_tool(annotations={"openWorldHint": True})],
          "absent, the hint already meant this", TOOLS),
    Check(codes.COMPAT_OUTPUT_SCHEMA_ADDED, [_tool()],
          [_tool(outputSchema={"type": "object"})], "results are now promised a shape", TOOLS),
    Check(codes.COMPAT_OUTPUT_SCHEMA_REMOVED, [_tool(outputSchema={"type": "object"})],
          [_tool()], "consumers of the structured result lose their promise", TOOLS),
    Check(codes.COMPAT_UNKNOWN_FIELD, [_tool()],
          [_tool(execution={"taskSupport": "required"})],
          "hosts act on it; its effect is not classified", TOOLS),
    Check(codes.COMPAT_TYPE_NARROWED, {"type": ["string", "null"]}, {"type": "string"},
          "null is refused"),
    Check(codes.COMPAT_TYPE_WIDENED, {"type": "integer"}, {"type": "number"},
          "1.5 is accepted (and may be returned)"),
    Check(codes.COMPAT_ENUM_VALUE_REMOVED, {"enum": ["asc", "desc"]}, {"enum": ["asc"]},
          "\"desc\" is refused"),
    Check(codes.COMPAT_ENUM_VALUE_ADDED, {"enum": ["asc"]}, {"enum": ["asc", "desc"]},
          "a consumer switching over the values meets \"desc\""),
    Check(codes.COMPAT_VALUE_RESTRICTED, {"type": "string"},
          {"type": "string", "enum": ["asc", "desc"]}, "any other string is refused"),
    Check(codes.COMPAT_VALUE_UNRESTRICTED, {"type": "string", "const": "v1"},
          {"type": "string"}, "any string is accepted"),
    Check(codes.COMPAT_BOUND_TIGHTENED, {"type": "integer", "maximum": 100},
          {"type": "integer", "maximum": 10}, "11 to 100 are refused"),
    Check(codes.COMPAT_BOUND_LOOSENED, {"type": "string", "maxLength": 10},
          {"type": "string"}, "longer strings are accepted"),
    Check(codes.COMPAT_PATTERN_ADDED, {"type": "string"},
          {"type": "string", "pattern": "^[a-z]+$"}, "\"A1\" is refused"),
    Check(codes.COMPAT_PATTERN_REMOVED, {"type": "string", "pattern": "^[a-z]+$"},
          {"type": "string"}, "any string is accepted"),
    Check(codes.COMPAT_PATTERN_CHANGED, {"type": "string", "pattern": "^[a-z]+$"},
          {"type": "string", "pattern": "^[a-z0-9]+$"},
          "a string the new pattern accepts and the old refused is found; none the other "
          "way, which is not proof there is none"),
    Check(codes.COMPAT_FORMAT_ADDED, {"type": "string"},
          {"type": "string", "format": "date"}, "\"tomorrow\" is refused"),
    Check(codes.COMPAT_FORMAT_REMOVED, {"type": "string", "format": "uuid"},
          {"type": "string"}, "any string is accepted"),
    Check(codes.COMPAT_FORMAT_CHANGED, {"type": "string", "format": "date"},
          {"type": "string", "format": "date-time"}, "\"2026-01-31\" is refused"),
    Check(codes.COMPAT_UNIQUE_ITEMS_ADDED, {"type": "array"},
          {"type": "array", "uniqueItems": True}, "[1, 1] is refused"),
    Check(codes.COMPAT_UNIQUE_ITEMS_REMOVED, {"type": "array", "uniqueItems": True},
          {"type": "array"}, "[1, 1] is accepted"),
    Check(codes.COMPAT_REQUIRED_ADDED, _OBJECT, {**_OBJECT, "required": ["q"]},
          "a call without q fails", SCHEMA),
    Check(codes.COMPAT_REQUIRED_REMOVED, {**_OBJECT, "required": ["q"]}, _OBJECT,
          "a result may come without q", SCHEMA),
    Check(codes.COMPAT_PROPERTY_REMOVED, _CLOSED,
          {**_CLOSED, "properties": {"q": {"type": "string"}}},
          "the object is closed: a call that sends page fails", SCHEMA),
    Check(codes.COMPAT_PROPERTY_ADDED, _OBJECT,
          {**_OBJECT, "properties": {**_OBJECT["properties"], "page": {"type": "integer"}}},
          "only a call that sent an undeclared page of another type fails", SCHEMA),
    Check(codes.COMPAT_ADDITIONAL_PROPERTIES_CLOSED, _OBJECT,
          {**_OBJECT, "additionalProperties": False}, "a call with another member fails",
          SCHEMA),
    Check(codes.COMPAT_ADDITIONAL_PROPERTIES_OPENED, {**_OBJECT, "additionalProperties": False},
          _OBJECT, "results may hold members consumers were told would not come", SCHEMA),
    Check(codes.COMPAT_DEPENDENCY_ADDED, _OBJECT,
          {**_OBJECT, "dependentRequired": {"q": ["lang"]}}, "a call with q and no lang fails",
          SCHEMA),
    Check(codes.COMPAT_DEPENDENCY_REMOVED, {**_OBJECT, "dependentRequired": {"q": ["lang"]}},
          _OBJECT, "a result may have q without lang", SCHEMA),
    Check(codes.COMPAT_CONDITION_ADDED, _OBJECT,
          {**_OBJECT, "if": {"required": ["q"]}, "then": {"required": ["lang"]}},
          "a call with q must now have lang", SCHEMA),
    Check(codes.COMPAT_CONDITION_REMOVED,
          {**_OBJECT, "if": {"required": ["q"]}, "then": {"required": ["lang"]}}, _OBJECT,
          "a result with q may come without lang", SCHEMA),
    Check(codes.COMPAT_CONDITION_CHANGED,
          {**_OBJECT, "if": {"required": ["q"]}, "then": {"required": ["lang"]}},
          {**_OBJECT, "if": {"required": ["page"]}, "then": {"required": ["lang"]}},
          "other values must now have lang, and the first ones need not", SCHEMA),
    Check(codes.COMPAT_SUBSCHEMA_ADDED, {"type": "string"},
          {"type": "string", "allOf": [{"minLength": 2}]}, "\"a\" is refused"),
    Check(codes.COMPAT_SUBSCHEMA_REMOVED, {"type": "string", "not": {"const": ""}},
          {"type": "string"}, "\"\" is accepted"),
    Check(codes.COMPAT_BRANCH_ADDED, {"anyOf": [{"type": "string"}]},
          {"anyOf": [{"type": "string"}, {"type": "integer"}]}, "7 is accepted"),
    Check(codes.COMPAT_BRANCH_REMOVED, {"anyOf": [{"type": "string"}, {"type": "integer"}]},
          {"anyOf": [{"type": "string"}]}, "7 is refused"),
    Check(codes.COMPAT_BRANCHES_OVERLAP,
          {"oneOf": [{"type": "string", "maxLength": 3}, {"type": "string", "pattern": "^a"}]},
          {"oneOf": [{"type": "string", "maxLength": 5}, {"type": "string", "pattern": "^a"}]},
          "\"abcd\" now matches both branches and is refused; \"bcde\" is accepted"),
    Check(codes.COMPAT_SCHEMA_CLOSED, {"type": "array", "items": {"type": "string"}},
          {"type": "array", "items": False}, "any non-empty array is refused"),
    Check(codes.COMPAT_SCHEMA_OPENED, {"type": "array", "items": False},
          {"type": "array", "items": {"type": "string"}}, "[\"a\"] is accepted"),
    Check(codes.COMPAT_REF_EQUIVALENT,
          {**_DEFS, **_OBJECT, "properties": {"id": {"type": "string"}}},
          {**_DEFS, **_OBJECT, "properties": {"id": {"$ref": "#/$defs/Id"}}},
          "the definition says what was written in place", SCHEMA),
    Check(codes.COMPAT_REF_CHANGED, {**_BY_ID, "properties": {"id": {"$ref": "urn:id"}}},
          {**_BY_ID, "properties": {"id": {"$ref": "urn:id-v2"}}},
          "a reference by $id is not followed here, only # pointers and anchors", SCHEMA),
    Check(codes.COMPAT_EQUIVALENT_REWRITE, {"enum": ["v1"]}, {"const": "v1"},
          "the same values are accepted"),
    Check(codes.COMPAT_EXAMPLE_CHANGED, {"type": "string", "examples": ["shoes"]},
          {"type": "string", "examples": ["red shoes"]}, "examples are not validated"),
    Check(codes.COMPAT_DEFAULT_CHANGED, {"type": "integer", "default": 10},
          {"type": "integer", "default": 50}, "calls that omit it now get 50 results"),
    Check(codes.COMPAT_DEPRECATED_CHANGED, {"type": "string"},
          {"type": "string", "deprecated": True}, "a warning; every call still passes"),
    Check(codes.COMPAT_DIALECT_RESTATED, _OBJECT,
          {"$schema": "https://json-schema.org/draft/2020-12/schema", **_OBJECT},
          "the schema was already read as Draft 2020-12", SCHEMA),
    Check(codes.COMPAT_DIALECT_CHANGED, _OBJECT,
          {"$schema": "http://json-schema.org/draft-07/schema#", **_OBJECT},
          "some keywords mean something else in Draft 7", SCHEMA),
    Check(codes.COMPAT_UNKNOWN_KEYWORD, {"type": "string", "x-order": 1},
          {"type": "string", "x-order": 2}, "a host may act on it; its effect is not known"),
    Check(codes.COMPAT_DEFINITIONS_CHANGED, _OBJECT, {**_OBJECT, **_DEFS},
          "no schema in use refers to it", SCHEMA),
    Check(codes.COMPAT_UNCLASSIFIED,
          {**_DEFS, "$ref": "#/$defs/Id", "type": "integer"},
          {**_DEFS, "$ref": "#/$defs/Id", "type": "number"},
          "the definition and the keyword beside its $ref disagree; the change is not "
          "classified", SCHEMA),
    Check(codes.COMPAT_TOO_DEEP, _deep(70, {"type": "string"}), _deep(70, {"type": "integer"}),
          "a change 70 objects down is not followed", SCHEMA),
)  # fmt: skip


def wrapped(check: Check, *, output: bool) -> list[list[dict[str, Any]]]:
    """The two tool lists of a check's example: its tools, or one tool whose input (or
    output) schema is the example's."""
    if check.kind == TOOLS:
        return [check.old, check.new]
    out: list[list[dict[str, Any]]] = []
    for schema in (check.old, check.new):
        if check.kind == PROPERTY:
            schema = {"type": "object", "properties": {"x": schema}}
        tool: dict[str, Any] = {"name": "t", "inputSchema": {"type": "object"}}
        tool["outputSchema" if output else "inputSchema"] = schema
        out.append([tool])
    return out


def example_changes(check: Check, *, output: bool = False) -> list[Any]:
    """The changes ``compat`` finds in a check's example (as an input schema, or with
    ``output`` as an output schema)."""
    from jsoncontract.compat import compare
    from jsoncontract.compat.tools import Side
    from jsoncontract.pin import Lock, PinnedTool, digest

    sides = []
    for tools in wrapped(check, output=output):
        lock = Lock()
        entry = lock.files.setdefault("tools.json", {})
        for tool in tools:
            parts: dict[str, Any] = {
                "name": tool["name"],
                "description": tool.get("description"),
                "input_schema": tool["inputSchema"],
                "output_schema": tool.get("outputSchema"),
                "annotations": tool.get("annotations"),
            }
            extra = {k: v for k, v in tool.items() if k == "execution"}
            if extra:
                parts["extra"] = extra
            entry[tool["name"]] = PinnedTool(parts, digest(parts))
        sides.append(Side("tools.json", lock))
    return compare(sides[0], sides[1]).changes


def classes(check: Check) -> tuple[str, str]:
    """The class the check gives its example in an input schema and in an output schema
    (the same, ``tool``-wide, for an example of tools)."""
    out: list[str] = []
    for output in (False, True):
        if check.kind == TOOLS and output:
            out.append(out[0])
            continue
        found = [c.cls for c in example_changes(check, output=output) if c.code == check.code]
        out.append(max(found, key=lambda c: c.rank).value if found else "-")
    return out[0], out[1]


def _shown(value: Any) -> str:
    if isinstance(value, dict) and value.get("type") == "object" and "properties" in value:
        text = json.dumps(value, separators=(", ", ": "))
        if len(text) > 140:  # the deep example
            return '70 nested objects, the innermost `{"type": "string"}`'
    text = json.dumps(value, separators=(", ", ": "))
    return "`" + text.replace("|", "\\|") + "`"


def page() -> str:
    """``docs/compat.md``: every check, its classes, an example and why."""
    from jsoncontract.codes import CATALOG

    lines = [
        "# Compatibility checks",
        "",
        "Generated from `jsoncontract/compat/checks.py` by "
        "`python -m jsoncontract.compat.checks docs/compat.md`; do not edit.",
        "",
        "Every check `jsoncontract compat` runs (see [compat](commands/compat.md)), the class "
        "it gives its example in an input schema (arguments: caller to tool) and in an "
        "output schema (results: tool to caller), worked out by running the check on the "
        "example. A property example is the schema of a property `x`; a schema example is "
        "a whole input (or output) schema; a tool example is the tool list. "
        "[Finding codes](codes.md#compatibility-of-two-tool-sets) explains each code; "
        "`[compat.severity]` in the config gives a check another class.",
        "",
        "| code | input | output | old | new | why |",
        "|---|---|---|---|---|---|",
    ]
    for check in CHECKS:
        entry = CATALOG.get(check.code)
        assert entry is not None
        given_input, given_output = classes(check)
        lines.append(
            f"| `{check.code}` | {given_input} | {given_output} | {_shown(check.old)} | "
            f"{_shown(check.new)} | {check.why} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """``python -m jsoncontract.compat.checks [FILE] [--check]``."""
    args = sys.argv[1:] if argv is None else argv
    rest = [a for a in args if a != "--check"]
    path = Path(rest[0] if rest else "docs/compat.md")
    text = page()
    current = path.read_text(encoding="utf-8") if path.is_file() else None
    if "--check" in args:
        if current != text:
            sys.stdout.write(f"stale: {path}\n")
            return 1
        return 0
    if current != text:
        path.write_text(text, encoding="utf-8")
        sys.stdout.write(f"wrote {path}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
