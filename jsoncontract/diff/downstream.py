"""The downstream contract: the schema the body a tool finally sends must satisfy.

It comes from a JSON Schema file (JSON or YAML), or from inside a larger document addressed by JSON
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
from typing import Any

from jsoncontract._files import load_document
from jsoncontract.errors import SchemaLoadError, UsageError
from jsoncontract.model import Source
from jsoncontract.pointer import ABSENT, get
from jsoncontract.tools.openapi import (
    CARRIED,
    legacy_schema,
    openapi_version,
    operations_hint,
    request_body_schema,
)
from jsoncontract.validation import CompiledSchema


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
    document, _ = load_document(path)
    if not isinstance(document, dict):
        raise SchemaLoadError("a schema document must be a JSON object", file=name)
    openapi = openapi_version(document)
    if openapi is not None and openapi < (3, 1):
        document = legacy_schema(document)
    pointer = fragment
    if openapi is not None:
        if not pointer:
            raise SchemaLoadError(
                "this is an OpenAPI document: name the operation or request body with a "
                f"JSON Pointer, e.g. {file}#{operations_hint(document)}",
                file=name,
            )
        pointer = request_body_schema(document, pointer, name)
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
        for key in CARRIED:
            if key in document and key not in schema:
                schema[key] = document[key]
    label = f"downstream schema {file}{'#' + fragment if fragment else ''}"
    compiled = CompiledSchema(schema, label=label, source=Source(name))
    return schema, compiled
