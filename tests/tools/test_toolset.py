"""The tool set: lookup, duplicate definitions, schemas compiled once, and name suggestions."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.errors import SchemaLoadError, ToolLoadError
from jsoncontract.model import Dialect, Source, ToolContract
from jsoncontract.tools import ToolSet, load_tool_file

Write = Callable[[str, object], Path]

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}


def contract(
    name: str,
    schema: dict[str, Any] | None = None,
    *,
    file: str = "tools.json",
    line: int = 1,
    dialect: Dialect = Dialect.ANTHROPIC,
) -> ToolContract:
    return ToolContract(
        name=name,
        input_schema=SCHEMA if schema is None else schema,
        dialect=dialect,
        source=Source(file, line),
    )


# -- lookup -------------------------------------------------------------------------------


def test_lookup_and_iteration_keep_load_order() -> None:
    tools = ToolSet([contract("b"), contract("a"), contract("c")])
    assert len(tools) == 3
    assert tools.names() == ["b", "a", "c"]
    assert [t.name for t in tools] == ["b", "a", "c"]
    assert "a" in tools
    assert "z" not in tools
    assert 3 not in tools
    a = tools.get("a")
    assert a is not None and a.name == "a"
    assert tools.get("z") is None


def test_schemas_are_compiled_when_the_set_is_built() -> None:
    tools = ToolSet([contract("a")])
    compiled = tools.schema("a")
    assert compiled is tools.schema("a")  # compiled once, reused
    assert compiled.label == "tool 'a' input schema"
    assert compiled.is_valid({"city": "Porto"})
    assert not compiled.is_valid({"city": 3})
    assert not compiled.is_valid({})


def test_schema_of_an_unknown_tool_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        ToolSet([contract("a")]).schema("b")


def test_lazy_compilation() -> None:
    broken = contract("broken", {"type": "object", "required": "city"})
    tools = ToolSet([broken, contract("ok")], compile_schemas=False)
    assert tools.names() == ["broken", "ok"]
    assert tools.schema("ok").is_valid({"city": "x"})
    assert tools.schema("ok") is tools.schema("ok")
    with pytest.raises(SchemaLoadError, match="tool 'broken' input schema"):
        tools.schema("broken")


def test_from_paths(write: Write, tmp_path: Path) -> None:
    write("tools/a.json", [{"name": "a", "input_schema": SCHEMA}])
    write("body.json", SCHEMA)
    tools = ToolSet.from_paths([tmp_path / "tools"])
    assert tools.names() == ["a"]
    bare = ToolSet.from_paths([tmp_path / "body.json"], tool_name="search")
    assert bare.names() == ["search"]
    tool = bare.get("search")
    assert tool is not None and tool.dialect is Dialect.JSON_SCHEMA
    forced = ToolSet.from_paths(
        [tmp_path / "body.json"], tool_name="s", dialect=Dialect.JSON_SCHEMA
    )
    assert forced.names() == ["s"]


# -- duplicates ---------------------------------------------------------------------------


def test_identical_duplicates_are_merged_keeping_the_first() -> None:
    reordered = {
        "additionalProperties": False,
        "required": ["city"],
        "properties": {"city": {"type": "string"}},
        "type": "object",
    }
    tools = ToolSet(
        [
            contract("get_weather", file="anthropic.json", line=2),
            contract("get_weather", reordered, file="openai.json", line=9, dialect=Dialect.MCP),
        ]
    )
    assert len(tools) == 1
    kept = tools.get("get_weather")
    assert kept is not None
    assert (kept.source.file, kept.source.line, kept.dialect) == (
        "anthropic.json",
        2,
        Dialect.ANTHROPIC,
    )


def test_same_tool_in_every_dialect_merges(write: Write, tmp_path: Path) -> None:
    write("t/anthropic.json", [{"name": "get_weather", "input_schema": SCHEMA}])
    write(
        "t/openai.json",
        [{"type": "function", "function": {"name": "get_weather", "parameters": SCHEMA}}],
    )
    write("t/responses.json", [{"type": "function", "name": "get_weather", "parameters": SCHEMA}])
    write("t/mcp.json", {"tools": [{"name": "get_weather", "inputSchema": SCHEMA}]})
    gemini = {
        "type": "OBJECT",
        "properties": {"city": {"type": "STRING"}},
        "required": ["city"],
        "propertyOrdering": ["city"],
        "additionalProperties": False,
    }
    write(
        "t/gemini.json", {"functionDeclarations": [{"name": "get_weather", "parameters": gemini}]}
    )
    tools = ToolSet.from_paths([tmp_path / "t"])
    assert tools.names() == ["get_weather"]
    kept = tools.get("get_weather")
    assert kept is not None and kept.dialect is Dialect.ANTHROPIC


def test_different_duplicates_name_both_places(write: Write, tmp_path: Path) -> None:
    first = write("a.json", [{"name": "get_weather", "input_schema": SCHEMA}])
    looser = dict(SCHEMA, additionalProperties=True)
    second = write(
        "b.json",
        {
            "tools": [
                {"name": "x", "inputSchema": {}},
                {"name": "get_weather", "inputSchema": looser},
            ]
        },
    )
    with pytest.raises(ToolLoadError) as info:
        ToolSet.from_paths([first, second])
    err = info.value
    assert not isinstance(err, SchemaLoadError)
    assert err.message == (
        f"tool 'get_weather' is defined again with a different input schema (first at "
        f"{first}:2); load one definition per tool"
    )
    assert (err.file, err.line) == (str(second), 7)


def test_duplicates_are_refused_before_compiling() -> None:
    with pytest.raises(ToolLoadError, match="defined again"):
        ToolSet([contract("a"), contract("a", {"type": "object", "required": "bad"})])


# -- invalid schemas ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("schema", "where", "keyword"),
    [
        (
            {"type": "object", "properties": {"city": {"type": "strin"}}},
            "/properties/city/type",
            "type",
        ),
        ({"type": "object", "required": "city"}, "/required", "required"),
        (
            {"type": "object", "properties": {"city": {"minLength": -1}}},
            "/properties/city/minLength",
            "minLength",
        ),
        (
            {"type": "object", "properties": {"n": {"multipleOf": 0}}},
            "/properties/n/multipleOf",
            "multipleOf",
        ),
        (
            {"type": "object", "additionalProperties": "no"},
            "/additionalProperties",
            "additionalProperties",
        ),
    ],
)
def test_invalid_schema_names_the_tool_and_keyword(
    write: Write, schema: dict[str, Any], where: str, keyword: str
) -> None:
    path = write("tools.json", {"tools": [{"name": "get_weather", "input_schema": schema}]})
    with pytest.raises(SchemaLoadError) as info:
        ToolSet(load_tool_file(path))
    err = info.value
    assert err.message.startswith(
        f"tool 'get_weather' input schema: not a valid JSON Schema at {where} "
        f"(keyword {keyword!r}): "
    )
    assert (err.file, err.line) == (str(path), 3)


def test_invalid_pattern_is_refused() -> None:
    with pytest.raises(SchemaLoadError, match="tool 'a' input schema"):
        ToolSet([contract("a", {"type": "string", "pattern": "(unclosed"})])


def test_unknown_meta_schema() -> None:
    schema = {"$schema": "https://example.com/my-dialect", "type": "object"}
    with pytest.raises(SchemaLoadError) as info:
        ToolSet([contract("a", schema, file="t.json", line=4)])
    assert str(info.value) == (
        "t.json:4: tool 'a' input schema: unknown $schema 'https://example.com/my-dialect'; "
        "use draft 2020-12, 2019-09, 7, 6, 4 or 3"
    )


@pytest.mark.parametrize(
    "declared",
    [
        "https://json-schema.org/draft/2020-12/schema",
        "https://json-schema.org/draft/2019-09/schema",
        "http://json-schema.org/draft-07/schema#",
        "http://json-schema.org/draft-06/schema#",
        "http://json-schema.org/draft-04/schema#",
        "http://json-schema.org/draft-03/schema#",
    ],
)
def test_known_meta_schemas(declared: str) -> None:
    schema = {"$schema": declared, "type": "object", "properties": {"city": {"type": "string"}}}
    tools = ToolSet([contract("a", schema)])
    assert tools.schema("a").is_valid({"city": "Porto"})
    assert not tools.schema("a").is_valid({"city": 1})


# -- references never touch the network ---------------------------------------------------


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A local HTTP port that records every connection made to it."""
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    server.settimeout(0.05)
    seen: list[bytes] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(0.5)
                try:
                    seen.append(conn.recv(4096))
                except OSError:
                    seen.append(b"")
                body = b'{"type": "string"}'
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + str(len(body)).encode()
                    + b"\r\n\r\n"
                    + body
                )

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], seen
    finally:
        stop.set()
        thread.join(2)
        server.close()


def test_remote_ref_is_refused_without_any_network_access(
    listener: tuple[int, list[bytes]], monkeypatch: pytest.MonkeyPatch
) -> None:
    port, seen = listener
    url = f"http://127.0.0.1:{port}/city.json"

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"network access attempted: {args!r}")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket, "getaddrinfo", no_network)
    schema = {"type": "object", "properties": {"city": {"$ref": url}}}
    with pytest.raises(SchemaLoadError) as info:
        ToolSet([contract("get_weather", schema, file="t.json", line=7)])
    assert str(info.value) == (
        f"t.json:7: tool 'get_weather' input schema: $ref {url!r} does not resolve inside the "
        "schema; jsoncontract never fetches remote or file references, so inline the target "
        "under $defs"
    )
    assert seen == []  # not even the Rust engine's own HTTP client connected


@pytest.mark.parametrize("ref", ["city.json", "file:///etc/passwd", "https://example.com/s#/x"])
def test_non_local_refs_are_refused(ref: str) -> None:
    schema = {"type": "object", "properties": {"city": {"$ref": ref}}}
    with pytest.raises(SchemaLoadError, match=r"does not resolve inside the schema"):
        ToolSet([contract("a", schema)])


def test_local_ref_resolves_and_a_missing_one_is_refused() -> None:
    ok = {
        "type": "object",
        "properties": {"home": {"$ref": "#/$defs/address"}},
        "$defs": {"address": {"type": "object", "required": ["city"]}},
    }
    tools = ToolSet([contract("a", ok)])
    assert tools.schema("a").is_valid({"home": {"city": "Porto"}})
    assert not tools.schema("a").is_valid({"home": {}})
    missing = {"type": "object", "properties": {"home": {"$ref": "#/$defs/nowhere"}}}
    with pytest.raises(SchemaLoadError, match=r"unresolvable \$ref: .*/\$defs/nowhere"):
        ToolSet([contract("a", missing)])


# -- suggestions --------------------------------------------------------------------------


@pytest.fixture
def catalog() -> ToolSet:
    return ToolSet(
        [
            contract("searchInvoices"),
            contract("get_weather"),
            contract("update_shipment"),
            contract("read_file"),
        ]
    )


@pytest.mark.parametrize(
    ("asked", "suggested"),
    [
        ("searchInvoices", "searchInvoices"),
        ("SearchInvoices", "searchInvoices"),
        ("search_invoices", "searchInvoices"),
        ("search-invoices", "searchInvoices"),
        ("SEARCH INVOICES", "searchInvoices"),
        ("getWeather", "get_weather"),
        ("get.weather", "get_weather"),
        ("searchInvoice", "searchInvoices"),
        ("get_wether", "get_weather"),
        ("update_shipments", "update_shipment"),
        ("readfile", "read_file"),
    ],
)
def test_suggest(catalog: ToolSet, asked: str, suggested: str) -> None:
    assert catalog.suggest(asked) == suggested


@pytest.mark.parametrize("asked", ["delete_everything", "x", "", "transfer_funds"])
def test_suggest_nothing_close(catalog: ToolSet, asked: str) -> None:
    assert catalog.suggest(asked) is None


def test_suggest_prefers_the_first_of_two_folded_twins() -> None:
    tools = ToolSet([contract("get_weather"), contract("getWeather", {"type": "object"})])
    assert tools.suggest("GET-WEATHER") == "get_weather"


def test_suggest_on_an_empty_set() -> None:
    assert ToolSet([]).suggest("anything") is None


def test_copies_in_other_dialects_complete_the_first() -> None:
    from jsoncontract.model import Dialect, Source, ToolContract
    from jsoncontract.tools import ToolSet

    schema = {"type": "object"}
    openai = ToolContract(
        name="t",
        input_schema=schema,
        dialect=Dialect.OPENAI_CHAT,
        source=Source("a.json", 1),
        description="first",
    )
    mcp = ToolContract(
        name="t",
        input_schema=dict(schema),
        dialect=Dialect.MCP,
        source=Source("b.json", 9),
        description="second",
        annotations={"readOnlyHint": True},
        output_schema={"type": "object"},
    )
    merged = ToolSet([openai, mcp]).get("t")
    assert merged is not None
    assert (merged.description, merged.source.file, merged.dialect) == (
        "first",
        "a.json",
        Dialect.OPENAI_CHAT,
    )
    assert merged.annotations == {"readOnlyHint": True}
    assert merged.output_schema == {"type": "object"}
