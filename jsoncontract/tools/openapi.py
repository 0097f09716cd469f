"""OpenAPI, read as JSON Schema: Gemini's schema subset, and whole OpenAPI documents.

Gemini ``parameters`` use upper-case type names (``"OBJECT"``), ``nullable: true`` instead of
a type union, ``propertyOrdering`` for output order, and (in REST payloads) 64-bit integers
written as strings for the length and count limits. The canonical model keeps JSON Schema
only, so these are translated once, at load time (:func:`openapi_to_json_schema`).

A whole OpenAPI document (3.x, or Swagger 2) describes the systems behind the tools: each
operation with an ``operationId`` is a tool contract of its own (:func:`operation_contracts`),
whose input is the operation's JSON request body (``requestBody`` → ``content`` → the JSON
media type → ``schema``; a Swagger 2 ``in: body`` parameter), or, for an operation without
a body, an object of its parameters; its output is the JSON body of its first 2xx response.
OpenAPI 3.0 and Swagger 2 schema objects are read as JSON Schema (``nullable``, boolean
``exclusiveMinimum``/``Maximum``), and ``$ref`` into ``#/components``, ``#/definitions``
and ``#/$defs`` resolves inside the document, which each contract carries along. Nothing
is fetched.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from jsoncontract.errors import SchemaLoadError
from jsoncontract.model import SchemaLocation, Source, ToolContract
from jsoncontract.pointer import ABSENT, escape_pointer_token, get

#: The dialect name of a tool contract read from an OpenAPI operation.
OPENAPI: Final = "openapi"
#: Members of the whole document carried along with a schema taken from it, so $ref resolves.
CARRIED: Final = ("$schema", "$defs", "definitions", "components")
METHODS: Final = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

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


def openapi_version(document: dict[str, Any]) -> tuple[int, int] | None:
    version = document.get("openapi")
    if isinstance(version, str):
        parts = version.split(".")
        try:
            return int(parts[0]), int(parts[1]) if len(parts) > 1 else 0
        except ValueError:
            return (3, 0)
    if isinstance(document.get("swagger"), str):
        return (2, 0)
    return None


def request_body_schema(document: dict[str, Any], pointer: str, name: str) -> str:
    """Follow an operation or request body pointer down to the JSON body schema."""
    node = get(document, pointer)
    if node is ABSENT:
        raise SchemaLoadError(
            f"nothing at #{pointer}; operations with a request body: "
            + (", ".join(operations_with_body(document)[:8]) or "none"),
            file=name,
        )
    for _ in range(8):  # operation -> requestBody ($ref) -> content -> schema
        if not isinstance(node, dict):
            return pointer
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#") and len(node) == 1:
            pointer = ref[1:]
            node = get(document, pointer)
            continue
        if "requestBody" in node:
            pointer += "/requestBody"
            node = node["requestBody"]
            continue
        if isinstance(node.get("content"), dict) and "schema" not in node:
            media = json_media_type(node["content"])
            if media is None:
                raise SchemaLoadError(
                    f"#{pointer} has no JSON request body (media types: "
                    f"{', '.join(node['content']) or 'none'})",
                    file=name,
                )
            pointer += "/content/" + escape_pointer_token(media) + "/schema"
            node = get(document, pointer)
            continue
        parameters = node.get("parameters")
        if isinstance(parameters, list) and any(
            isinstance(p, dict) and p.get("in") == "body" for p in parameters
        ):
            index = next(
                i for i, p in enumerate(parameters) if isinstance(p, dict) and p.get("in") == "body"
            )
            pointer += f"/parameters/{index}/schema"
            node = get(document, pointer)
            continue
        return pointer
    return pointer


def json_media_type(content: dict[str, Any]) -> str | None:
    if "application/json" in content:
        return "application/json"
    for media in content:
        if "json" in media:
            return str(media)
    return None


def operations_with_body(document: dict[str, Any]) -> list[str]:
    out: list[str] = []
    paths = document.get("paths")
    if not isinstance(paths, dict):
        return out
    for route, item in paths.items():
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            operation = item.get(method)
            if isinstance(operation, dict) and (
                "requestBody" in operation
                or any(
                    isinstance(p, dict) and p.get("in") == "body"
                    for p in operation.get("parameters", ())
                )
            ):
                out.append(f"{method.upper()} {route}")
    return out


def operations_hint(document: dict[str, Any]) -> str:
    paths = document.get("paths")
    if isinstance(paths, dict):
        for route, item in paths.items():
            if isinstance(item, dict):
                for method in METHODS:
                    if isinstance(item.get(method), dict):
                        return f"/paths/{escape_pointer_token(route)}/{method}"
    return "/paths/~1route/post"


def legacy_schema(node: Any, depth: int = 0) -> Any:
    """OpenAPI 3.0 / Swagger 2 schema objects read as JSON Schema, everywhere in a document."""
    if depth > 200:
        return node
    if isinstance(node, list):
        return [legacy_schema(item, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: legacy_schema(value, depth + 1) for key, value in node.items()}
    nullable = False
    for flag in ("nullable", "x-nullable"):
        if isinstance(out.get(flag), bool):  # a property *named* nullable holds a dict
            nullable = out.pop(flag) or nullable
    if nullable:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
        if isinstance(out.get("enum"), list) and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
    for flag, bound in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
        if isinstance(out.get(flag), bool):
            if out[flag] and bound in out:
                out[flag] = out.pop(bound)
            else:
                del out[flag]
    return out


def is_openapi(document: Any) -> bool:
    """Whether a document is an OpenAPI (3.x) or Swagger (2.0) description with paths."""
    return (
        isinstance(document, dict)
        and isinstance(document.get("paths"), dict)
        and (isinstance(document.get("openapi"), str) or isinstance(document.get("swagger"), str))
    )


def operation_contracts(
    document: dict[str, Any], *, file: str, line_of: Callable[[str], int | None]
) -> list[ToolContract]:
    """A tool contract per operation that has an ``operationId`` (see the module).

    Raises:
        ToolLoadError: no operation has an ``operationId``.
    """
    from jsoncontract.errors import ToolLoadError

    version = openapi_version(document)
    readable = legacy_schema(document) if version is not None and version < (3, 1) else document
    carried = {key: readable[key] for key in CARRIED if key in readable}
    out: list[ToolContract] = []
    unnamed = 0
    for route, item in readable["paths"].items():
        if not isinstance(item, dict):
            continue
        shared: list[Any] = item["parameters"] if isinstance(item.get("parameters"), list) else []
        for method in METHODS:
            operation = item.get(method)
            if not isinstance(operation, dict):
                continue
            name = operation.get("operationId")
            if not isinstance(name, str) or not name:
                unnamed += 1
                continue
            pointer = f"/paths/{escape_pointer_token(route)}/{method}"
            out.append(
                _contract(readable, operation, name, pointer, shared, carried, file, line_of)
            )
    if not out:
        raise ToolLoadError(
            "this OpenAPI document has no operation with an operationId"
            + (f" ({unnamed} without one)" if unnamed else "")
            + ": give each operation an operationId (its tool name), or use the document as "
            "a downstream schema (diff --downstream-schema FILE#/paths/...)",
            file=file,
            line=1,
        )
    return out


def _contract(
    document: dict[str, Any],
    operation: dict[str, Any],
    name: str,
    pointer: str,
    shared: list[Any],
    carried: dict[str, Any],
    file: str,
    line_of: Callable[[str], int | None],
) -> ToolContract:
    input_location: SchemaLocation | None = None
    try:
        body = request_body_schema(document, pointer, file)
    except SchemaLoadError:  # a body, but none in JSON: the parameters are what is checked
        body = pointer
    node = get(document, body) if body != pointer else ABSENT
    if isinstance(node, dict | bool):
        schema: dict[str, Any] = (
            dict(node) if isinstance(node, dict) else ({} if node else {"not": {}})
        )
        input_location = SchemaLocation(body)
    else:
        schema = _parameters_object(
            document, [*shared, *(operation.get("parameters") or [])], file, pointer
        )
    for key, value in carried.items():
        schema.setdefault(key, value)
    output, output_location = _response_schema(document, operation, pointer)
    if output is not None:
        for key, value in carried.items():
            output.setdefault(key, value)
    texts = [operation.get(k) for k in ("summary", "description")]
    description = "\n\n".join(t for t in texts if isinstance(t, str) and t) or None
    return ToolContract(
        name=name,
        input_schema=schema,
        dialect=OPENAPI,
        source=Source(file, line_of(pointer), None, pointer),
        description=description,
        output_schema=output,
        definition=operation,
        body_pointer=pointer,
        input_location=input_location,
        output_location=output_location,
    )


def _resolved(document: dict[str, Any], node: Any) -> Any:
    """``node``, or what its local ``$ref`` names (a few levels)."""
    for _ in range(8):
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not (isinstance(ref, str) and ref.startswith("#")):
            return node
        node = get(document, ref[1:])
    return node


def _parameters_object(
    document: dict[str, Any], parameters: list[Any], file: str, pointer: str
) -> dict[str, Any]:
    """The path, query and header parameters of an operation as one object schema.

    Raises:
        SchemaLoadError: a parameter's ``$ref`` is remote (never fetched) or names nothing
            in the document, as a request body's would be: a parameter is never dropped.
    """
    properties: dict[str, Any] = {}
    required: list[str] = []
    for raw in parameters:
        ref = raw.get("$ref") if isinstance(raw, dict) else None
        parameter = _resolved(document, raw)
        if isinstance(ref, str) and (
            parameter is ABSENT or (isinstance(parameter, dict) and "$ref" in parameter)
        ):
            why = (
                "names nothing in the document"
                if ref.startswith("#")
                else "is not local, and jsoncontract never fetches"
            )
            raise SchemaLoadError(
                f"a parameter of #{pointer} refers to {ref!r}, which {why}: the parameter "
                "cannot be checked; define it in the document (#/components/parameters)",
                file=file,
            )
        if not isinstance(parameter, dict) or parameter.get("in") not in (
            "path",
            "query",
            "header",
        ):
            continue
        name = parameter.get("name")
        if not isinstance(name, str):
            continue
        schema = parameter.get("schema")
        if not isinstance(schema, dict):  # Swagger 2: the schema keywords are on the parameter
            keys = ("type", "format", "enum", "items", "minimum", "maximum", "pattern")
            schema = {k: parameter[k] for k in keys if k in parameter}
        if isinstance(parameter.get("description"), str) and "description" not in schema:
            schema = {**schema, "description": parameter["description"]}
        properties[name] = schema
        if parameter.get("required") is True and name not in required:
            required.append(name)
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = required
    return out


def _response_schema(
    document: dict[str, Any], operation: dict[str, Any], pointer: str
) -> tuple[dict[str, Any] | None, SchemaLocation | None]:
    """The JSON body of the operation's first 2xx response, and where it is written."""
    responses = operation.get("responses")
    if not isinstance(responses, dict):
        return None, None
    for status in sorted(str(code) for code in responses):
        if not (status.startswith("2") and len(status) == 3):
            continue
        base = f"{pointer}/responses/{escape_pointer_token(status)}"
        response = responses.get(status, responses.get(int(status) if status.isdigit() else status))
        ref = response.get("$ref") if isinstance(response, dict) else None
        if isinstance(ref, str) and ref.startswith("#"):
            base, response = ref[1:], get(document, ref[1:])
        if not isinstance(response, dict):
            continue
        if isinstance(response.get("content"), dict):
            media = json_media_type(response["content"])
            if media is None:
                continue
            where = f"{base}/content/{escape_pointer_token(media)}/schema"
        elif isinstance(response.get("schema"), dict):  # Swagger 2
            where = f"{base}/schema"
        else:
            continue
        node = _resolved(document, get(document, where))
        if isinstance(node, dict):
            return dict(node), SchemaLocation(where)
    return None, None
