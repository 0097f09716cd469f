"""Reading tool definitions in every dialect into :class:`~jsoncontract.model.ToolContract`.

Accepted shapes, detected from the document (or forced with ``dialect``):

- OpenAI Chat ``{"type":"function","function":{name, description, parameters, strict}}``;
- OpenAI Responses ``{"type":"function","name",..,"parameters","strict"}``;
- Anthropic ``{"name","description","input_schema"}``;
- Gemini ``{"functionDeclarations":[{name, parameters | parametersJsonSchema}]}``;
- MCP ``Tool`` objects, a ``tools/list`` result, or the whole JSON-RPC response;
- any of these as a list, or under a ``tools`` member (a request body);
- a bare JSON Schema, named with ``tool_name``.

Provider built-in tools (web search, code execution...) and OpenAI custom tools (free text
in, no JSON) have no schema and are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Final

from jsoncontract._files import expand, load_document, read_bytes
from jsoncontract._json import json_type
from jsoncontract._locate import PositionIndex
from jsoncontract.errors import ToolLoadError
from jsoncontract.model import Dialect, Source, ToolContract
from jsoncontract.tools.openapi import openapi_to_json_schema

TOOL_SUFFIXES: Final = (".json",)
_SCHEMA_HINTS: Final = frozenset(
    {"$schema", "properties", "$defs", "definitions", "allOf", "anyOf", "oneOf", "$ref"}
)
_JSON_TYPES: Final = frozenset(
    {"object", "array", "string", "number", "integer", "boolean", "null"}
)
#: ``type`` values of provider-hosted tools that take no client-side schema.
_BUILTIN_TOOL_KEYS: Final = frozenset(
    {
        "googleSearch",
        "google_search",
        "googleSearchRetrieval",
        "google_search_retrieval",
        "enterpriseWebSearch",
        "enterprise_web_search",
        "codeExecution",
        "code_execution",
        "urlContext",
        "url_context",
        "retrieval",
        "fileSearch",
        "file_search",
        "googleMaps",
        "google_maps",
        "computerUse",
        "computer_use",
    }
)


def load_tool_file(
    path: Path | str,
    *,
    tool_name: str | None = None,
    dialect: Dialect | None = None,
    data: bytes | None = None,
    positions: PositionIndex | None = None,
) -> list[ToolContract]:
    """Every tool defined in one file.

    ``positions`` may pass in the :class:`PositionIndex` of ``data``'s text, so a caller that
    needs positions too (``lint``) scans the file once.

    Raises:
        InputError: the file cannot be read or is not JSON.
        ToolLoadError: the JSON is in no known dialect, or a definition is broken.
    """
    name = str(path)
    if data is None:
        data = read_bytes(path)
    document, _ = load_document(path, data)
    index = _LazyIndex(data, positions)
    tools = list(_read(document, name, index, tool_name=tool_name, forced=dialect))
    if not tools:
        raise ToolLoadError("no tool definitions found (an empty tool list)", file=name, line=1)
    return tools


def load_tool_files(
    paths: Iterable[str | Path], *, tool_name: str | None = None, dialect: Dialect | None = None
) -> list[ToolContract]:
    """Every tool in the named files and directories (``*.json``, recursively), in order."""
    out: list[ToolContract] = []
    for path in expand(paths, TOOL_SUFFIXES, what="tool definition"):
        out.extend(load_tool_file(path, tool_name=tool_name, dialect=dialect))
    return out


class _LazyIndex:
    """Builds a :class:`PositionIndex` the first time a line is asked for."""

    __slots__ = ("_data", "_index")

    def __init__(self, data: bytes, index: PositionIndex | None = None) -> None:
        self._data = data
        self._index = index

    def line(self, pointer: str) -> int | None:
        if self._index is None:
            text = self._data.decode("utf-8", "replace")
            self._index = PositionIndex(text.removeprefix("\ufeff"))
        pos = self._index.position(pointer)
        return pos[0] if pos else None

    def source(self, file: str, pointer: str) -> Source:
        return Source(file, self.line(pointer), None, pointer)


def _fail(message: str, file: str, index: _LazyIndex, pointer: str) -> ToolLoadError:
    return ToolLoadError(f"{message} (at {pointer or '/'})", file=file, line=index.line(pointer))


def _read(
    document: Any,
    file: str,
    index: _LazyIndex,
    *,
    tool_name: str | None,
    forced: Dialect | None,
) -> Iterator[ToolContract]:
    if isinstance(document, list):
        for i, entry in enumerate(document):
            yield from _entry(entry, file, index, f"/{i}", forced)
        return
    if not isinstance(document, dict):
        raise _fail(
            f"expected a tool list or object, found a JSON {json_type(document)}",
            file,
            index,
            "",
        )
    if forced is Dialect.JSON_SCHEMA or (
        forced is None and _looks_like_schema(document) and not _looks_like_tool(document)
    ):
        if not tool_name:
            raise ToolLoadError(
                "this looks like a bare JSON Schema; name its tool with --tool NAME",
                file=file,
                line=1,
            )
        yield ToolContract(
            name=tool_name,
            input_schema=document,
            dialect=Dialect.JSON_SCHEMA,
            source=Source(file, 1, None, ""),
            description=document.get("description")
            if isinstance(document.get("description"), str)
            else None,
            definition=document,
        )
        return
    if "jsonrpc" in document:
        if "error" in document:
            raise _fail(
                "this JSON-RPC response is an error, not a tools/list result", file, index, "/error"
            )
        result = document.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            raise _fail(
                "JSON-RPC message without result.tools (is it a tools/list response?)",
                file,
                index,
                "",
            )
        for i, entry in enumerate(result["tools"]):
            yield from _entry(entry, file, index, f"/result/tools/{i}", forced or Dialect.MCP)
        return
    tools = document.get("tools")
    if isinstance(tools, list):
        for i, entry in enumerate(tools):
            yield from _entry(entry, file, index, f"/tools/{i}", forced)
        return
    functions = document.get("functions")
    if isinstance(functions, list):  # legacy OpenAI ``functions`` request member
        for i, entry in enumerate(functions):
            yield _function(entry, file, index, f"/functions/{i}", Dialect.OPENAI_CHAT)
        return
    yield from _entry(document, file, index, "", forced)


def _looks_like_tool(node: dict[str, Any]) -> bool:
    return isinstance(node.get("name"), str) or "function" in node or "functionDeclarations" in node


def _looks_like_schema(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    return (
        bool(_SCHEMA_HINTS & node.keys())
        or (isinstance(kind, str) and kind in _JSON_TYPES)
        or (
            isinstance(kind, list)
            and bool(kind)
            and all(isinstance(k, str) and k in _JSON_TYPES for k in kind)
        )
    )


def _entry(
    entry: Any, file: str, index: _LazyIndex, pointer: str, forced: Dialect | None
) -> Iterator[ToolContract]:
    if not isinstance(entry, dict):
        raise _fail(
            f"a tool definition must be an object, found a JSON {json_type(entry)}",
            file,
            index,
            pointer,
        )
    declarations = entry.get("functionDeclarations", entry.get("function_declarations"))
    if declarations is not None:
        if not isinstance(declarations, list):
            raise _fail("functionDeclarations must be a list", file, index, pointer)
        key = "functionDeclarations" if "functionDeclarations" in entry else "function_declarations"
        for i, decl in enumerate(declarations):
            yield _function(decl, file, index, f"{pointer}/{key}/{i}", Dialect.GEMINI)
        return
    if _BUILTIN_TOOL_KEYS & entry.keys():
        return
    kind = entry.get("type")
    if forced is Dialect.MCP or "inputSchema" in entry:
        yield _mcp(entry, file, index, pointer)
    elif kind == "function" and isinstance(entry.get("function"), dict):
        yield _function(
            entry["function"],
            file,
            index,
            f"{pointer}/function",
            Dialect.OPENAI_CHAT,
            whole=entry,
        )
    elif kind == "function" and "name" in entry:
        yield _function(entry, file, index, pointer, Dialect.OPENAI_RESPONSES)
    elif "input_schema" in entry:
        yield _anthropic(entry, file, index, pointer)
    elif (
        "parameters" in entry
        or "parametersJsonSchema" in entry
        or ("parameters_json_schema" in entry)
    ):
        yield _function(entry, file, index, pointer, forced or Dialect.GEMINI)
    elif isinstance(kind, str) and kind not in ("function", "custom", "object"):
        return  # a provider-hosted tool (web_search, code_interpreter, mcp, computer use...)
    elif kind == "custom":
        return  # an OpenAI custom tool: free text (or a grammar) in, no JSON contract
    elif isinstance(entry.get("name"), str):
        raise _fail(
            f"tool {entry['name']!r} has no schema (expected parameters, input_schema or "
            "inputSchema)",
            file,
            index,
            pointer,
        )
    else:
        raise _fail(
            "not a tool definition in any known dialect (OpenAI, Anthropic, Gemini, MCP); "
            "for a bare JSON Schema pass --tool NAME",
            file,
            index,
            pointer,
        )


def _name(node: dict[str, Any], file: str, index: _LazyIndex, pointer: str) -> str:
    name = node.get("name")
    if not isinstance(name, str) or not name:
        raise _fail("tool definition without a name", file, index, pointer)
    return name


def _schema(
    value: Any, what: str, name: str, file: str, index: _LazyIndex, pointer: str
) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    raise _fail(
        f"tool {name!r}: {what} must be a JSON Schema object, found "
        f"{'null' if value is None else type(value).__name__}",
        file,
        index,
        pointer,
    )


def _text(node: dict[str, Any], key: str) -> str | None:
    value = node.get(key)
    return value if isinstance(value, str) else None


def _function(
    node: Any,
    file: str,
    index: _LazyIndex,
    pointer: str,
    dialect: Dialect,
    *,
    whole: dict[str, Any] | None = None,
) -> ToolContract:
    if not isinstance(node, dict):
        raise _fail("a function declaration must be an object", file, index, pointer)
    name = _name(node, file, index, pointer)
    output: dict[str, Any] | None = None
    # null members count as absent: the Python SDK's model_dump() writes every field
    key = "parametersJsonSchema" if "parametersJsonSchema" in node else "parameters_json_schema"
    if node.get(key) is not None:
        if node.get("parameters") is not None:
            raise _fail(
                f"tool {name!r}: parameters and {key} are mutually exclusive",
                file,
                index,
                pointer,
            )
        schema = _schema(node[key], key, name, file, index, f"{pointer}/{key}")
    elif node.get("parameters") is None:
        schema = {"type": "object", "properties": {}, "additionalProperties": False}
    elif dialect is Dialect.GEMINI:
        raw = _schema(node["parameters"], "parameters", name, file, index, f"{pointer}/parameters")
        schema = openapi_to_json_schema(raw)
    else:
        schema = _schema(
            node["parameters"], "parameters", name, file, index, f"{pointer}/parameters"
        )
    if dialect is Dialect.GEMINI:
        response_json = node.get("responseJsonSchema", node.get("response_json_schema"))
        if isinstance(response_json, dict):
            output = response_json
        elif isinstance(node.get("response"), dict):
            output = openapi_to_json_schema(node["response"])
    strict = node.get("strict")
    definition = whole if whole is not None else node
    tool_pointer = pointer.removesuffix("/function") if whole is not None else pointer
    if isinstance(definition.get("output_schema"), dict):
        output = definition["output_schema"]
    return ToolContract(
        name=name,
        input_schema=schema,
        dialect=dialect,
        source=index.source(file, tool_pointer),
        description=_text(node, "description"),
        output_schema=output,
        strict=strict if isinstance(strict, bool) else None,
        definition=definition,
    )


def _anthropic(node: dict[str, Any], file: str, index: _LazyIndex, pointer: str) -> ToolContract:
    name = _name(node, file, index, pointer)
    schema = _schema(
        node.get("input_schema"), "input_schema", name, file, index, f"{pointer}/input_schema"
    )
    strict = node.get("strict")
    return ToolContract(
        name=name,
        input_schema=schema,
        dialect=Dialect.ANTHROPIC,
        source=index.source(file, pointer),
        description=_text(node, "description"),
        strict=strict if isinstance(strict, bool) else None,
        definition=node,
    )


def _mcp(node: dict[str, Any], file: str, index: _LazyIndex, pointer: str) -> ToolContract:
    name = _name(node, file, index, pointer)
    schema = _schema(
        node.get("inputSchema"), "inputSchema", name, file, index, f"{pointer}/inputSchema"
    )
    output = node.get("outputSchema")
    if output is not None:
        output = _schema(output, "outputSchema", name, file, index, f"{pointer}/outputSchema")
    annotations = node.get("annotations")
    title = _text(node, "title")
    if title is None and isinstance(annotations, dict):
        title = _text(annotations, "title")
    return ToolContract(
        name=name,
        input_schema=schema,
        dialect=Dialect.MCP,
        source=index.source(file, pointer),
        description=_text(node, "description"),
        title=title,
        output_schema=output,
        annotations=annotations if isinstance(annotations, dict) else None,
        definition=node,
    )
