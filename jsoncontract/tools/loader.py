"""Reading tool definitions in every dialect into :class:`~jsoncontract.model.ToolContract`.

Accepted shapes, detected from the document (or forced with ``dialect``):

- a definition in any registered dialect (:class:`~jsoncontract.capture.interface.ToolLayout`
  says how each is recognised and where it keeps its parts): OpenAI Chat
  ``{"type":"function","function":{..}}``, OpenAI Responses ``{"type":"function","name",..}``,
  Anthropic ``{"name",..,"input_schema"}``, Gemini ``{"functionDeclarations":[..]}``, MCP
  ``Tool`` objects;
- an MCP ``tools/list`` result, or the whole JSON-RPC response;
- an OpenAPI (3.x) or Swagger (2.0) document: each operation with an ``operationId`` is a
  tool (:func:`~jsoncontract.tools.openapi.operation_contracts`);
- any of these as a list, or under a ``tools`` member (a request body), and OpenAI's legacy
  ``functions`` member;
- a bare JSON Schema, named with ``tool_name``.

Provider built-in tools (web search, code execution...) and OpenAI custom tools (free text
in, no JSON) have no schema and are skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._files import find, load_document, positions_of, read_bytes, refuse_anomalies
from jsoncontract._json import json_type
from jsoncontract.capture.registry import DIALECTS, Registry
from jsoncontract.errors import NoToolDefinitions, NotThisKind, ToolLoadError, UsageError
from jsoncontract.model import (
    Anomaly,
    Dialect,
    SchemaLocation,
    Source,
    ToolContract,
)
from jsoncontract.pointer import ABSENT, get_in, join_pointer, pointer_tokens
from jsoncontract.tools.openapi import is_openapi, openapi_to_json_schema, operation_contracts

if TYPE_CHECKING:
    from jsoncontract._files import Positions
    from jsoncontract.capture.interface import CaptureDialect, ToolLayout

TOOL_SUFFIXES: Final = (".json", ".yaml", ".yml")
_SCHEMA_HINTS: Final = frozenset(
    {"$schema", "properties", "$defs", "definitions", "allOf", "anyOf", "oneOf", "$ref"}
)
_JSON_TYPES: Final = frozenset(
    {"object", "array", "string", "number", "integer", "boolean", "null"}
)
#: ``type`` values of tools that are functions (or may be); any other names a hosted tool.
_FUNCTION_TYPES: Final = ("function", "custom", "object")


def load_tool_file(
    path: Path | str,
    *,
    tool_name: str | None = None,
    dialect: str | None = None,
    data: bytes | None = None,
    positions: Positions | None = None,
    dialects: Registry = DIALECTS,
    duplicates: bool = False,
) -> list[ToolContract]:
    """Every tool defined in one file (JSON, or YAML for a ``.yaml``/``.yml`` name).

    A file with a key given twice in one object is refused: parsers disagree on which
    value wins (``additionalProperties`` false, then true), so no reading of it is the
    contract. ``duplicates=True`` reads it anyway, keeping the last (``lint``, which
    reports each duplicate as a finding).

    ``positions`` may pass in the :class:`PositionIndex` of ``data``'s text, so a caller that
    needs positions too (``lint``) scans the file once. ``dialect`` reads every definition
    as the dialect of that name (``json-schema``: the file is one bare JSON Schema);
    ``dialects`` are the dialects to recognise.

    Raises:
        InputError: the file cannot be read or is not JSON.
        ToolLoadError: the JSON is in no known dialect, or a definition is broken.
        UsageError: ``dialect`` names no dialect that defines tools.
    """
    name = str(path)
    if data is None:
        data = read_bytes(path)
    forced = _forced(dialect, dialects)
    document, anomalies = load_document(path, data)
    reader = _Reader(name, _LazyIndex(name, data, positions), dialects, forced)
    if not duplicates:
        _refuse_duplicates(name, anomalies, data, positions)
    tools = list(
        reader.document(document, tool_name=tool_name, bare=dialect == Dialect.JSON_SCHEMA)
    )
    if not tools:
        raise NoToolDefinitions("no tool definitions found (an empty tool list)", file=name, line=1)
    return tools


def _refuse_duplicates(
    name: str, anomalies: tuple[Anomaly, ...], data: bytes, positions: Positions | None
) -> None:
    """Raise for the first duplicate key of a tool file, located."""
    if not any(a.kind == "duplicate_key" for a in anomalies):
        return
    if positions is None:
        positions = positions_of(name, data)
    refuse_anomalies(
        name,
        anomalies,
        ("duplicate_key",),
        positions,
        "parsers disagree on which value wins, so the tool's contract is ambiguous: keep one",
        error=ToolLoadError,
    )


def load_tool_files(
    paths: Iterable[str | Path],
    *,
    tool_name: str | None = None,
    dialect: str | None = None,
    dialects: Registry = DIALECTS,
    exclude: Sequence[str] = (),
    skipped: list[tuple[str, str]] | None = None,
) -> list[ToolContract]:
    """Every tool in the named files and directories (``*.json``, ``*.yaml``, ``*.yml``,
    recursively), in order, less what ``exclude`` matches.

    A file found in a directory that holds no tool definition (a ``package.json``) is
    left out, and recorded in ``skipped`` as ``(file, why)``; named, it is an error.
    """
    out: list[ToolContract] = []
    for found in find(paths, TOOL_SUFFIXES, what="tool definition", exclude=exclude):
        try:
            out.extend(
                load_tool_file(found.path, tool_name=tool_name, dialect=dialect, dialects=dialects)
            )
        except NotThisKind as exc:
            if found.named:
                raise
            if skipped is not None:
                skipped.append((str(found.path), exc.message))
    return out


def _forced(dialect: str | None, dialects: Registry) -> CaptureDialect | None:
    """The dialect every definition is read as, checked."""
    if not dialect or dialect == Dialect.JSON_SCHEMA:
        return None
    forced = dialects.get(dialect)
    if forced is None or forced.tools is None:
        known = [n for n in dialects.names() if dialects.find(n).tools is not None]
        raise UsageError(
            f"no tool definitions are written in dialect {str(dialect)!r}; use one of: "
            + ", ".join([*known, Dialect.JSON_SCHEMA])
        )
    return forced


class _LazyIndex:
    """Finds where nodes are (a JSON file's index is built the first time a line is asked
    for; a YAML file's positions come with its parse)."""

    __slots__ = ("_data", "_index", "_name")

    def __init__(self, name: str, data: bytes, index: Positions | None = None) -> None:
        self._name = name
        self._data = data
        self._index = index

    def line(self, pointer: str) -> int | None:
        if self._index is None:
            self._index = positions_of(self._name, self._data)
        pos = self._index.position(pointer)
        return pos[0] if pos else None

    def source(self, file: str, pointer: str) -> Source:
        return Source(file, self.line(pointer), None, pointer)


class _Reader:
    """Reads the tool definitions of one file, asking the registry which dialect each is."""

    __slots__ = ("_places", "dialects", "file", "forced", "hosted", "index", "layouts", "lists")

    def __init__(
        self, file: str, index: _LazyIndex, dialects: Registry, forced: CaptureDialect | None
    ) -> None:
        self.file = file
        self.index = index
        self.dialects = dialects
        self.forced = forced
        self.layouts = [(d, d.tools) for d in dialects if d.tools is not None]
        #: members that list definitions, with their dialect; members of hosted tools
        self.lists = [(m, d) for d, layout in self.layouts for m in layout.lists]
        self.hosted = frozenset(m for _, layout in self.layouts for m in layout.hosted)
        self._places: dict[tuple[int, bool], _Places] = {}

    def looks_like_tool(self, node: dict[str, Any]) -> bool:
        """A name, or a member only tool definitions have (a body, a list of definitions)."""
        if isinstance(node.get("name"), str):
            return True
        for _, layout in self.layouts:
            body = pointer_tokens(layout.body)
            if (body and body[0] in node) or any(member in node for member in layout.lists):
                return True
        return False

    def fail(self, message: str, pointer: str) -> ToolLoadError:
        return ToolLoadError(
            f"{message} (at {pointer or '/'})", file=self.file, line=self.index.line(pointer)
        )

    def not_tools(self, message: str, pointer: str) -> ToolLoadError:
        """The error of a document that is no tool definition: of a kind found in a
        directory of tools is skipped (a ``package.json``) when it is the whole file."""
        if pointer:
            return self.fail(message, pointer)
        return NoToolDefinitions(f"{message} (at /)", file=self.file, line=self.index.line(""))

    def document(
        self, document: Any, *, tool_name: str | None, bare: bool
    ) -> Iterator[ToolContract]:
        """Every definition in a whole file."""
        if isinstance(document, list):
            for i, entry in enumerate(document):
                yield from self.entry(entry, f"/{i}")
            return
        if not isinstance(document, dict):
            raise self.not_tools(
                f"expected a tool list or object, found a JSON {json_type(document)}", ""
            )
        if not bare and self.forced is None and is_openapi(document):
            yield from operation_contracts(document, file=self.file, line_of=self.index.line)
            return
        if bare or (
            self.forced is None
            and _looks_like_schema(document)
            and not self.looks_like_tool(document)
        ):
            if not tool_name:
                raise NoToolDefinitions(
                    "this looks like a bare JSON Schema; name its tool with --tool NAME",
                    file=self.file,
                    line=1,
                )
            yield ToolContract(
                name=tool_name,
                input_schema=document,
                dialect=Dialect.JSON_SCHEMA,
                source=Source(self.file, 1, None, ""),
                description=document.get("description")
                if isinstance(document.get("description"), str)
                else None,
                definition=document,
                input_location=SchemaLocation(""),
            )
            return
        if "jsonrpc" in document:
            if "error" in document:
                raise self.fail(
                    "this JSON-RPC response is an error, not a tools/list result", "/error"
                )
            result = document.get("result")
            if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
                raise self.fail(
                    "JSON-RPC message without result.tools (is it a tools/list response?)", ""
                )
            mcp = self.forced or self.dialects.find(Dialect.MCP)
            for i, entry in enumerate(result["tools"]):
                yield from self.entry(entry, f"/result/tools/{i}", mcp)
            return
        tools = document.get("tools")
        if isinstance(tools, list):
            for i, entry in enumerate(tools):
                yield from self.entry(entry, f"/tools/{i}")
            return
        functions = document.get("functions")
        if isinstance(functions, list):  # legacy OpenAI ``functions`` request member
            chat = self.dialects.find(Dialect.OPENAI_CHAT)
            for i, entry in enumerate(functions):
                yield self.definition(entry, f"/functions/{i}", chat)
            return
        yield from self.entry(document, "")

    def entry(
        self, entry: Any, pointer: str, dialect: CaptureDialect | None = None
    ) -> Iterator[ToolContract]:
        """One entry of a tool list: a definition, a list of them, or a hosted tool."""
        if not isinstance(entry, dict):
            raise self.fail(
                f"a tool definition must be an object, found a JSON {json_type(entry)}", pointer
            )
        for member, owner in self.lists:
            if entry.get(member) is not None:
                declarations = entry[member]
                if not isinstance(declarations, list):
                    raise self.fail(f"{member} must be a list", pointer)
                for i, declaration in enumerate(declarations):
                    yield self.definition(declaration, f"{pointer}/{member}/{i}", owner)
                return
        if not self.hosted.isdisjoint(entry):
            return
        dialect = dialect or self.forced
        if dialect is None:
            for candidate, layout in self.layouts:
                if layout.recognises(entry):
                    dialect = candidate
                    break
        if dialect is not None:
            yield self.definition(entry, pointer, dialect)
            return
        kind = entry.get("type")
        if isinstance(kind, str) and kind not in _FUNCTION_TYPES:
            return  # a provider-hosted tool (web_search, code_interpreter, mcp, computer use...)
        if kind == "custom":
            return  # an OpenAI custom tool: free text (or a grammar) in, no JSON contract
        if isinstance(entry.get("name"), str):
            raise self.not_tools(
                f"tool {entry['name']!r} has no schema (expected parameters, input_schema or "
                "inputSchema)",
                pointer,
            )
        raise self.not_tools(
            "not a tool definition in any known dialect (OpenAI, Anthropic, Gemini, MCP, "
            "OpenAPI); for a bare JSON Schema pass --tool NAME",
            pointer,
        )

    def definition(self, entry: Any, pointer: str, dialect: CaptureDialect) -> ToolContract:
        """One definition, read where its dialect's layout says its parts are (an entry
        without the layout's body member is its own body: a legacy OpenAI ``functions``
        entry, a bare function read as OpenAI Chat)."""
        layout = dialect.tools
        assert layout is not None
        places = self.places(layout, wrapped=True)
        if places.body and isinstance(entry, dict) and _at(entry, places.body) is None:
            places = self.places(layout, wrapped=False)
        body_at = places.body_pointer
        body = _at(entry, places.body) if isinstance(entry, dict) else None
        if not isinstance(body, dict):
            raise self.fail("a function declaration must be an object", pointer + body_at)
        name = body.get("name")
        if not isinstance(name, str) or not name:
            raise self.fail("tool definition without a name", pointer + body_at)
        present = [place for place in places.input if _at(entry, place) is not None]
        if len(present) > 1:
            raise self.fail(
                f"tool {name!r}: {present[-1][-1]} and {present[0][-1]} are mutually exclusive",
                pointer + body_at,
            )
        if present:
            input_schema, input_location = self.schema(entry, present[0], name, pointer, places)
        elif layout.input_required:
            raise self.schema_error(name, places.input[0], None, pointer)
        else:  # no parameters: the tool takes no arguments
            input_schema = {"type": "object", "properties": {}, "additionalProperties": False}
            input_location = None
        output_schema: dict[str, Any] | None = None
        output_location: SchemaLocation | None = None
        for place in places.output:
            if _at(entry, place) is not None:
                output_schema, output_location = self.schema(entry, place, name, pointer, places)
                break
        parts = layout.parts
        strict = body.get("strict") if "strict" in parts else None
        annotations = body.get("annotations") if "annotations" in parts else None
        if not isinstance(annotations, dict):
            annotations = None
        title = _text(body, "title") if "title" in parts else None
        if title is None and annotations is not None:
            title = _text(annotations, "title")
        return ToolContract(
            name=name,
            input_schema=input_schema,
            dialect=dialect.name,
            source=self.index.source(self.file, pointer),
            description=_text(body, "description"),
            title=title,
            output_schema=output_schema,
            annotations=annotations,
            strict=strict if isinstance(strict, bool) else None,
            definition=entry,
            body_pointer=pointer + body_at,
            input_location=input_location,
            output_location=output_location,
        )

    def places(self, layout: ToolLayout, *, wrapped: bool) -> _Places:
        """The places of ``layout`` as tokens, for a definition with its body member or
        without it (worked out once per file)."""
        key = (id(layout), wrapped)
        places = self._places.get(key)
        if places is None:
            places = self._places[key] = _Places(layout, wrapped=wrapped)
        return places

    def schema(
        self, entry: dict[str, Any], place: _Place, name: str, pointer: str, places: _Places
    ) -> tuple[dict[str, Any], SchemaLocation]:
        """The schema written at ``place`` in ``entry`` (as JSON Schema) and its location."""
        value = _at(entry, place)
        if not isinstance(value, dict):
            raise self.schema_error(name, place, value, pointer)
        at = pointer + places.pointers[place]
        if place in places.openapi:
            return openapi_to_json_schema(value), SchemaLocation(at, openapi=True)
        return value, SchemaLocation(at)

    def schema_error(self, name: str, place: _Place, value: Any, pointer: str) -> ToolLoadError:
        found = "null" if value is None else type(value).__name__
        return self.fail(
            f"tool {name!r}: {place[-1]} must be a JSON Schema object, found {found}",
            join_pointer(pointer, *place),
        )


_Place = tuple[str, ...]
"""A place in a definition, as the reference tokens of its JSON Pointer."""


class _Places:
    """The places of a :class:`ToolLayout` as tokens, for a definition with its body member
    (``wrapped``) or without it (the places below the body are then in the definition)."""

    __slots__ = ("body", "body_pointer", "input", "openapi", "output", "pointers")

    def __init__(self, layout: ToolLayout, *, wrapped: bool) -> None:
        body = tuple(pointer_tokens(layout.body))

        def place(pointer: str) -> _Place:
            tokens = tuple(pointer_tokens(pointer))
            if not wrapped and body and tokens[: len(body)] == body:
                return tokens[len(body) :]
            return tokens

        self.body: _Place = body if wrapped else ()
        self.body_pointer = layout.body if wrapped else ""
        self.input = tuple(place(p) for p in layout.input)
        self.output = tuple(place(p) for p in layout.output)
        self.openapi = frozenset(place(p) for p in layout.openapi)
        self.pointers = {p: join_pointer("", *p) for p in (*self.input, *self.output)}


def _at(node: dict[str, Any], place: _Place) -> Any:
    """The value at a place, or ``None`` when it is absent or ``null`` (SDKs dump every
    field, unset ones as ``null``)."""
    value = get_in(node, place)
    return None if value is ABSENT else value


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


def _text(node: dict[str, Any], key: str) -> str | None:
    value = node.get(key)
    return value if isinstance(value, str) else None
