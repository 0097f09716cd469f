"""Gemini's OpenAPI 3.0 ``Schema`` subset, read as JSON Schema.

Gemini ``parameters`` use upper-case type names (``"OBJECT"``), ``nullable: true`` instead of
a type union, ``propertyOrdering`` for output order, and (in REST payloads) 64-bit integers
written as strings for the length and count limits. The canonical model keeps JSON Schema
only, so these are translated once, at load time.
"""

from __future__ import annotations

from typing import Any, Final

_COUNT_KEYWORDS: Final = frozenset(
    {"minItems", "maxItems", "minLength", "maxLength", "minProperties", "maxProperties"}
)
_DROPPED: Final = frozenset({"propertyOrdering", "nullable"})
_MAX_DEPTH: Final = 200


def openapi_to_json_schema(node: Any, _depth: int = 0) -> Any:
    """Translate one OpenAPI-subset schema node (and everything under it) to JSON Schema."""
    if _depth > _MAX_DEPTH or not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key == "type" and isinstance(value, str):
            lowered = value.lower()
            if lowered != "type_unspecified":
                out["type"] = lowered
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {k: openapi_to_json_schema(v, _depth + 1) for k, v in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, dict):
            out[key] = openapi_to_json_schema(value, _depth + 1)
        elif key == "anyOf" and isinstance(value, list):
            out["anyOf"] = [openapi_to_json_schema(v, _depth + 1) for v in value]
        elif key == "defs" and isinstance(value, dict):
            out["$defs"] = {k: openapi_to_json_schema(v, _depth + 1) for k, v in value.items()}
        elif key == "ref" and isinstance(value, str):  # "#/defs/Pet" follows defs to $defs
            out["$ref"] = "#/$defs/" + value[7:] if value.startswith("#/defs/") else value
        elif key == "example":
            out["examples"] = [value]
        elif key in _COUNT_KEYWORDS and isinstance(value, str) and value.isdigit():
            out[key] = int(value)
        else:
            out[key] = value
    if node.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        elif kind is None and isinstance(out.get("anyOf"), list):
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    return out
