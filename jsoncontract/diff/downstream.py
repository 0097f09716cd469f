"""The downstream contract: the schema the body a tool finally sends must satisfy.

It comes from a JSON Schema file, or from inside a larger document addressed by JSON
Pointer: ``api.json#/paths/~1invoices~1search/post`` names an OpenAPI operation, and the
request body schema under it is found (``requestBody`` → ``content`` → the JSON media type
→ ``schema``; a Swagger 2 ``in: body`` parameter). OpenAPI 3.0 and Swagger 2 schema
objects are read as JSON Schema (``nullable``, boolean ``exclusiveMinimum``/``Maximum``);
``$ref`` into ``#/components``, ``#/definitions`` and ``#/$defs`` resolves inside the
document. Nothing is fetched.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any, Final

from jsoncontract._files import load_document
from jsoncontract.errors import SchemaLoadError, UsageError
from jsoncontract.model import Source
from jsoncontract.pointer import ABSENT, escape_pointer_token, get
from jsoncontract.validation import CompiledSchema

#: Members of the whole document carried along with the chosen schema, so $ref resolves.
_CARRIED: Final = ("$schema", "$defs", "definitions", "components")
_METHODS: Final = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
_YAML: Final = (".yaml", ".yml")


class DownstreamSchemas:
    """The downstream schema of each tool (``*`` for every tool), compiled once.

    Arguments:
        refs: ``(tool or None, "FILE[#POINTER]")`` pairs; ``None`` means every tool.
        base: the directory relative paths start from (the config file's).
    """

    def __init__(self, refs: Iterable[tuple[str | None, str]] = (), *, base: Path | None = None):
        self._schemas: dict[str, tuple[dict[str, Any], CompiledSchema]] = {}
        for tool, ref in refs:
            key = tool or "*"
            self._schemas[key] = load_downstream_schema(ref, base=base)

    def __bool__(self) -> bool:
        return bool(self._schemas)

    def get(self, tool: str | None) -> CompiledSchema | None:
        """The compiled schema for a tool's downstream body, or ``None``."""
        found = self._schemas.get(tool or "*") or self._schemas.get("*")
        return found[1] if found else None

    def raw(self, tool: str | None) -> dict[str, Any] | None:
        """The schema document itself (for checking mapping paths)."""
        found = self._schemas.get(tool or "*") or self._schemas.get("*")
        return found[0] if found else None


def parse_ref(text: str) -> tuple[str | None, str]:
    """``"[TOOL=]FILE[#POINTER]"`` → ``(tool, "FILE[#POINTER]")``."""
    tool, sep, ref = text.partition("=")
    if sep and tool and "/" not in tool and "#" not in tool and ref:
        return tool, ref
    return None, text


def load_downstream_schema(
    ref: str, *, base: Path | None = None
) -> tuple[dict[str, Any], CompiledSchema]:
    """Load the schema named by ``FILE[#POINTER]`` and compile it.

    Raises:
        InputError: the file cannot be read or is not JSON.
        SchemaLoadError: the pointer leads nowhere, or what it names is not a schema.
    """
    file, _, fragment = ref.partition("#")
    if not file:
        raise UsageError(f"downstream schema {ref!r}: name a file, e.g. api.json#/paths/...")
    path = Path(file)
    if base is not None and not path.is_absolute():
        path = base / path
    name = str(path)
    if path.suffix.lower() in _YAML:
        raise SchemaLoadError(
            "YAML is not read; convert the document to JSON (for example with "
            "`python -c 'import json,sys,yaml; json.dump(yaml.safe_load(sys.stdin), sys.stdout)'`)",
            file=name,
        )
    document, _ = load_document(path)
    if not isinstance(document, dict):
        raise SchemaLoadError("a schema document must be a JSON object", file=name)
    openapi = _openapi_version(document)
    if openapi is not None and openapi < (3, 1):
        document = _legacy_schema(document)
    pointer = fragment
    if openapi is not None:
        if not pointer:
            raise SchemaLoadError(
                "this is an OpenAPI document: name the operation or request body with a "
                f"JSON Pointer, e.g. {file}#{_operations_hint(document)}",
                file=name,
            )
        pointer = _request_body_schema(document, pointer, name)
    node = get(document, pointer) if pointer else document
    if node is ABSENT:
        raise SchemaLoadError(f"nothing at #{pointer} in the document", file=name)
    if not isinstance(node, dict | bool):
        raise SchemaLoadError(f"#{pointer} is {type(node).__name__}, not a schema", file=name)
    if isinstance(node, bool):
        schema: dict[str, Any] = {} if node else {"not": {}}
    else:
        schema = dict(node)
    if pointer:
        for key in _CARRIED:
            if key in document and key not in schema:
                schema[key] = document[key]
    label = f"downstream schema {file}{'#' + fragment if fragment else ''}"
    compiled = CompiledSchema(schema, label=label, source=Source(name))
    return schema, compiled


def _openapi_version(document: dict[str, Any]) -> tuple[int, int] | None:
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


def _request_body_schema(document: dict[str, Any], pointer: str, name: str) -> str:
    """Follow an operation or request body pointer down to the JSON body schema."""
    node = get(document, pointer)
    if node is ABSENT:
        raise SchemaLoadError(
            f"nothing at #{pointer}; operations with a request body: "
            + (", ".join(_operations(document)[:8]) or "none"),
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
            media = _json_media_type(node["content"])
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


def _json_media_type(content: dict[str, Any]) -> str | None:
    if "application/json" in content:
        return "application/json"
    for media in content:
        if "json" in media:
            return str(media)
    return None


def _operations(document: dict[str, Any]) -> list[str]:
    out: list[str] = []
    paths = document.get("paths")
    if not isinstance(paths, dict):
        return out
    for route, item in paths.items():
        if not isinstance(item, dict):
            continue
        for method in _METHODS:
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


def _operations_hint(document: dict[str, Any]) -> str:
    paths = document.get("paths")
    if isinstance(paths, dict):
        for route, item in paths.items():
            if isinstance(item, dict):
                for method in _METHODS:
                    if isinstance(item.get(method), dict):
                        return f"/paths/{escape_pointer_token(route)}/{method}"
    return "/paths/~1route/post"


def _legacy_schema(node: Any, depth: int = 0) -> Any:
    """OpenAPI 3.0 / Swagger 2 schema objects read as JSON Schema, everywhere in a document."""
    if depth > 200:
        return node
    if isinstance(node, list):
        return [_legacy_schema(item, depth + 1) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _legacy_schema(value, depth + 1) for key, value in node.items()}
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
