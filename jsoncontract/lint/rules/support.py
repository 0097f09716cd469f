"""Shared machinery of the "keyword a provider does not support" rules."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract.lint.heuristics import json_type
from jsoncontract.lint.rule import Edit, Fix

if TYPE_CHECKING:
    from jsoncontract.lint.context import Node

#: Every keyword of JSON Schema drafts 3 to 2020-12.
KEYWORDS: Final = frozenset(
    {
        "$schema", "$id", "id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor",
        "$recursiveRef", "$recursiveAnchor", "$vocabulary", "$comment", "$defs", "definitions",
        "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum",
        "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
        "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties",
        "required", "dependentRequired", "dependencies", "allOf", "anyOf", "oneOf", "not",
        "if", "then", "else", "dependentSchemas", "prefixItems", "items", "additionalItems",
        "contains", "properties", "patternProperties", "additionalProperties",
        "propertyNames", "unevaluatedItems", "unevaluatedProperties", "format",
        "contentEncoding", "contentMediaType", "contentSchema", "title", "description",
        "default", "deprecated", "readOnly", "writeOnly", "examples", "extends", "disallow",
        "divisibleBy",
    }
)  # fmt: skip
#: Keywords that only annotate: dropping them never changes which values validate.
ANNOTATIONS: Final = frozenset(
    {"title", "description", "default", "examples", "$comment", "deprecated", "readOnly",
     "writeOnly", "contentEncoding", "contentMediaType", "contentSchema"}
)  # fmt: skip


def json_text(value: Any, *, sort_keys: bool = False) -> str:
    """Compact JSON text of a value from a tool file, whatever it holds: integers beyond 64
    bits (which orjson refuses) and nesting too deep to write become a readable stand-in."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0).decode()
    except (orjson.JSONEncodeError, TypeError):
        pass
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=sort_keys)
    except (RecursionError, ValueError):
        return f"<a {type(value).__name__} nested too deep to show #{id(value)}>"


def value_key(value: Any) -> str:
    """A key equal for values an ``enum`` or ``const`` cannot tell apart (``1`` and ``1.0``)
    and different for the others (``1`` and ``true``)."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return json_text(value, sort_keys=True) + json_type(value)


def article(word: str) -> str:
    """``a`` or ``an``, for the word that follows (``an integer``, ``a string``)."""
    return "an" if word[:1] in "aeiou" else "a"


def drop_fix(node: Node, keyword: str) -> Fix:
    """Remove an annotation keyword (safe: validation is unchanged)."""
    return Fix(f"remove {keyword!r}", (Edit("remove", node.pointer(keyword)),))


def const_to_enum_fix(node: Node) -> Fix | None:
    """``const: x`` -> ``enum: [x]`` (the same values), when the node has no enum yet."""
    value = node.value
    if "const" not in value or "enum" in value:
        return None
    edits = (
        Edit("remove", node.pointer("const")),
        Edit("set", node.pointer("enum"), [value["const"]]),
    )
    return Fix("write const as a one-value enum", edits)


def one_of_fix(node: Node) -> tuple[Fix | None, str | None]:
    """``oneOf`` -> ``anyOf`` when no value can match two branches, else why not."""
    value = node.value
    branches = value.get("oneOf")
    if "anyOf" in value:
        return None, "the schema already has anyOf; merge the two by hand"
    if not isinstance(branches, list) or not branches:
        return None, "oneOf is not a list of schemas"
    if _disjoint(branches):
        edits = (
            Edit("remove", node.pointer("oneOf")),
            Edit("set", node.pointer("anyOf"), branches),
        )
        return Fix("replace oneOf by anyOf (its branches never overlap)", edits), None
    return None, (
        "its branches may overlap, and anyOf accepts a value that matches two of them, which "
        "oneOf rejects; make the branches exclusive (distinct type or const) first"
    )


def _disjoint(branches: list[Any]) -> bool:
    kinds: list[str] = []
    consts: list[str] = []
    for branch in branches:
        if not isinstance(branch, dict):
            return False
        kind = branch.get("type")
        if "const" in branch:
            consts.append(value_key(branch["const"]))
        elif isinstance(kind, str):
            kinds.append(kind)
        else:
            return False
    if len(set(consts)) != len(consts) or len(set(kinds)) != len(kinds):
        return False
    if consts and kinds:
        return False
    return not ("integer" in kinds and "number" in kinds)


def all_of_fix(node: Node) -> tuple[Fix | None, str | None]:
    """Merge a one-branch ``allOf`` into its parent when nothing conflicts, else why not."""
    value = node.value
    branches = value.get("allOf")
    if not isinstance(branches, list) or len(branches) != 1 or not isinstance(branches[0], dict):
        return None, "allOf has several branches; merge them into one schema by hand"
    branch = branches[0]
    if "$ref" in branch:
        return None, "the branch is a $ref; inline the referenced schema by hand"
    clashes = [k for k in branch if k in value and value[k] != branch[k]]
    if clashes:
        return None, f"the branch and the schema both set {', '.join(clashes)}"
    edits = [Edit("remove", node.pointer("allOf"))]
    edits.extend(Edit("set", node.pointer(k), v) for k, v in branch.items() if k not in value)
    return Fix("merge the single allOf branch into the schema", tuple(edits)), None


#: String formats OpenAI strict mode supports.
OPENAI_FORMATS: Final = frozenset(
    {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
)
