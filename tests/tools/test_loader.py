"""Loading tool definitions: every dialect, the line of every tool, and every way a file fails."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.errors import InputError, ToolLoadError, UsageError
from jsoncontract.model import Dialect, ToolContract
from jsoncontract.tools import load_tool_file, load_tool_files

Write = Callable[[str, object], Path]

WEATHER: dict[str, Any] = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "minLength": 1},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
    },
    "required": ["city"],
    "additionalProperties": False,
}
EMPTY_CLOSED = {"type": "object", "properties": {}, "additionalProperties": False}


def only(tools: list[ToolContract]) -> ToolContract:
    assert len(tools) == 1, [t.name for t in tools]
    return tools[0]


def summary(tools: list[ToolContract]) -> list[tuple[str, Dialect, int | None]]:
    return [(t.name, t.dialect, t.source.line) for t in tools]


# -- OpenAI Chat --------------------------------------------------------------------------

CHAT_REQUEST = """\
{
  "model": "gpt-4.1-2025-04-14",
  "messages": [{"role": "user", "content": "Weather in Porto?"}],
  "tools": [
    {
      "type": "function",
      "function": {
        "name": "get_weather",
        "description": "Current conditions for a city.",
        "parameters": %s,
        "strict": true
      }
    },
    {"type": "function", "function": {"name": "list_cities"}}
  ],
  "tool_choice": "auto"
}
"""


def test_openai_chat_request_body(write: Write) -> None:
    import orjson

    path = write("chat.json", CHAT_REQUEST % orjson.dumps(WEATHER).decode())
    weather, cities = load_tool_file(path)
    assert summary([weather, cities]) == [
        ("get_weather", Dialect.OPENAI_CHAT, 5),
        ("list_cities", Dialect.OPENAI_CHAT, 14),
    ]
    assert weather.input_schema == WEATHER
    assert weather.description == "Current conditions for a city."
    assert weather.strict is True
    assert weather.source.file == str(path)
    assert weather.source.pointer == "/tools/0"
    # the untouched definition is the whole tool object, not only its function member
    assert weather.definition["type"] == "function"
    assert weather.definition["function"]["name"] == "get_weather"
    # "Omitting parameters defines a function with an empty parameter list"
    assert cities.input_schema == EMPTY_CLOSED
    assert cities.strict is None
    assert cities.description is None


def test_openai_chat_bare_list_and_single_tool(write: Write) -> None:
    tool = {"type": "function", "function": {"name": "get_weather", "parameters": WEATHER}}
    assert summary(load_tool_file(write("list.json", [tool, tool]))) == [
        ("get_weather", Dialect.OPENAI_CHAT, 2),
        ("get_weather", Dialect.OPENAI_CHAT, 28),
    ]
    single = only(load_tool_file(write("one.json", tool)))
    assert (single.name, single.dialect, single.source.line) == (
        "get_weather",
        Dialect.OPENAI_CHAT,
        1,
    )
    assert single.input_schema == WEATHER


def test_openai_legacy_functions_member(write: Write) -> None:
    text = """\
{
  "model": "gpt-3.5-turbo-0613",
  "functions": [
    {"name": "get_weather", "parameters": {"type": "object", "properties": {}}},
    {
      "name": "ping",
      "description": "Health check."
    }
  ]
}
"""
    weather, ping = load_tool_file(write("legacy.json", text))
    assert summary([weather, ping]) == [
        ("get_weather", Dialect.OPENAI_CHAT, 4),
        ("ping", Dialect.OPENAI_CHAT, 5),
    ]
    assert weather.input_schema == {"type": "object", "properties": {}}
    assert ping.input_schema == EMPTY_CLOSED
    assert ping.description == "Health check."


def test_null_parameters_is_an_empty_parameter_list(write: Write) -> None:
    tool = {"type": "function", "name": "now", "parameters": None, "strict": None}
    assert only(load_tool_file(write("t.json", [tool]))).input_schema == EMPTY_CLOSED


def test_the_empty_schema_is_a_fresh_copy_per_tool(write: Write) -> None:
    first, second = load_tool_file(
        write("t.json", [{"type": "function", "name": "a"}, {"type": "function", "name": "b"}])
    )
    first.input_schema["properties"]["x"] = {}
    assert second.input_schema == EMPTY_CLOSED


# -- OpenAI Responses ---------------------------------------------------------------------


def test_openai_responses_flat_tools(write: Write) -> None:
    text = """\
{
  "model": "gpt-5-mini",
  "input": "Weather in Porto?",
  "tools": [
    {"type": "web_search_preview"},
    {"type": "file_search", "vector_store_ids": ["vs_1"]},
    {
      "type": "function",
      "name": "get_weather",
      "description": "Current conditions for a city.",
      "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
      "strict": false
    },
    {"type": "mcp", "server_label": "deepwiki", "server_url": "https://mcp.deepwiki.com/mcp"},
    {"type": "code_interpreter", "container": {"type": "auto"}}
  ]
}
"""
    tool = only(load_tool_file(write("responses.json", text)))
    assert summary([tool]) == [("get_weather", Dialect.OPENAI_RESPONSES, 7)]
    assert tool.strict is False
    assert tool.input_schema == {"type": "object", "properties": {"city": {"type": "string"}}}
    assert tool.definition["type"] == "function"


def test_openai_responses_output_schema_is_kept(write: Write) -> None:
    out = {"type": "object", "properties": {"temp": {"type": "number"}}}
    tool = {"type": "function", "name": "t", "parameters": WEATHER, "output_schema": out}
    assert only(load_tool_file(write("r.json", [tool]))).output_schema == out


def test_openai_custom_tools_have_no_json_contract_and_are_skipped(write: Write) -> None:
    tools = [
        {
            "type": "custom",
            "name": "run_sql",
            "description": "Runs one SQL statement.",
            "format": {"type": "grammar", "syntax": "lark", "definition": "start: /.+/"},
        },
        {"type": "function", "name": "get_weather", "parameters": WEATHER},
    ]
    assert [t.name for t in load_tool_file(write("r.json", tools))] == ["get_weather"]


# -- Anthropic ----------------------------------------------------------------------------


def test_anthropic_tools_and_server_tools_skipped(write: Write) -> None:
    text = """\
{
  "model": "claude-sonnet-4-5",
  "max_tokens": 1024,
  "tools": [
    {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
    {
      "name": "get_weather",
      "description": "Current conditions for a city.",
      "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
      "strict": true
    },
    {"type": "bash_20250124", "name": "bash"},
    {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
    {"type": "code_execution_20250825", "name": "code_execution"},
    {"type": "custom", "name": "lookup", "input_schema": {"type": "object"}}
  ],
  "messages": [{"role": "user", "content": "Weather in Porto?"}]
}
"""
    weather, lookup = load_tool_file(write("anthropic.json", text))
    assert summary([weather, lookup]) == [
        ("get_weather", Dialect.ANTHROPIC, 6),
        ("lookup", Dialect.ANTHROPIC, 15),
    ]
    assert weather.strict is True
    assert weather.description == "Current conditions for a city."
    assert lookup.input_schema == {"type": "object"}
    assert lookup.strict is None


def test_anthropic_input_schema_null_is_an_error(write: Write) -> None:
    path = write("a.json", [{"name": "get_weather", "input_schema": None}])
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path)
    err = info.value
    assert err.message == (
        "tool 'get_weather': input_schema must be a JSON Schema object, found null "
        "(at /0/input_schema)"
    )
    assert (err.file, err.line) == (str(path), 4)  # the line of the input_schema member


def test_a_schema_that_is_a_list_is_an_error(write: Write) -> None:
    path = write("a.json", [{"name": "get_weather", "input_schema": ["city"]}])
    with pytest.raises(
        ToolLoadError, match=r"input_schema must be a JSON Schema object, found list"
    ):
        load_tool_file(path)


# -- Gemini -------------------------------------------------------------------------------

GEMINI_REQUEST = """\
{
  "contents": [{"role": "user", "parts": [{"text": "Weather in Porto?"}]}],
  "tools": [
    {"googleSearch": {}},
    {
      "functionDeclarations": [
        {
          "name": "get_weather",
          "description": "Current conditions for a city.",
          "parameters": {
            "type": "OBJECT",
            "properties": {
              "city": {"type": "STRING", "minLength": "1", "example": "Porto"},
              "unit": {"type": "STRING", "enum": ["celsius", "fahrenheit"], "nullable": true},
              "days": {"type": "INTEGER", "format": "int32", "minimum": 1, "maximum": 14},
              "tags": {"type": "ARRAY", "items": {"type": "STRING"}, "maxItems": "5"}
            },
            "required": ["city"],
            "propertyOrdering": ["city", "unit", "days", "tags"]
          },
          "response": {"type": "OBJECT", "properties": {"temp": {"type": "NUMBER"}}}
        },
        {
          "name": "search_invoices",
          "parametersJsonSchema": {"type": "object", "properties": {"q": {"type": "string"}}},
          "responseJsonSchema": {"type": "array"}
        },
        {"name": "now"}
      ]
    },
    {"codeExecution": {}},
    {"urlContext": {}}
  ]
}
"""


def test_gemini_request_body(write: Write) -> None:
    weather, invoices, now = load_tool_file(write("gemini.json", GEMINI_REQUEST))
    assert summary([weather, invoices, now]) == [
        ("get_weather", Dialect.GEMINI, 7),
        ("search_invoices", Dialect.GEMINI, 23),
        ("now", Dialect.GEMINI, 28),
    ]
    # the OpenAPI subset read as JSON Schema
    assert weather.input_schema == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1, "examples": ["Porto"]},
            "unit": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", None]},
            "days": {"type": "integer", "format": "int32", "minimum": 1, "maximum": 14},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        },
        "required": ["city"],
    }
    assert weather.output_schema == {"type": "object", "properties": {"temp": {"type": "number"}}}
    # parametersJsonSchema is JSON Schema already: taken as is
    assert invoices.input_schema == {"type": "object", "properties": {"q": {"type": "string"}}}
    assert invoices.output_schema == {"type": "array"}
    assert now.input_schema == EMPTY_CLOSED
    # the definition is the declaration itself, untranslated
    assert weather.definition["parameters"]["type"] == "OBJECT"


def test_gemini_declarations_as_the_whole_document(write: Write) -> None:
    doc = {"functionDeclarations": [{"name": "a", "parametersJsonSchema": {"type": "object"}}]}
    assert summary(load_tool_file(write("g.json", doc))) == [("a", Dialect.GEMINI, 3)]


def test_gemini_python_sdk_snake_case_keys(write: Write) -> None:
    text = """\
{
  "tools": [
    {"google_search": {}},
    {"google_search_retrieval": {"dynamic_retrieval_config": {"mode": "MODE_DYNAMIC"}}},
    {"code_execution": {}},
    {
      "function_declarations": [
        {"name": "a", "parameters_json_schema": {"type": "object", "required": ["x"]}},
        {"name": "b", "parameters": {"type": "OBJECT", "properties": {"x": {"type": "NUMBER"}}}}
      ]
    }
  ]
}
"""
    a, b = load_tool_file(write("sdk.json", text))
    assert summary([a, b]) == [("a", Dialect.GEMINI, 8), ("b", Dialect.GEMINI, 9)]
    assert a.input_schema == {"type": "object", "required": ["x"]}
    assert b.input_schema == {"type": "object", "properties": {"x": {"type": "number"}}}


def test_gemini_python_sdk_model_dump_with_null_fields(write: Write) -> None:
    # FunctionDeclaration.model_dump() writes every field, unset ones as null
    decl = {
        "behavior": None,
        "description": "Search invoices.",
        "name": "search_invoices",
        "parameters": None,
        "parameters_json_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
        "response": None,
        "response_json_schema": {"type": "array"},
    }
    other = dict(decl, name="ping", parameters_json_schema=None, response_json_schema=None)
    tool = {
        "function_declarations": [decl, other],
        "google_search": None,
        "code_execution": None,
        "retrieval": None,
    }
    invoices, ping = load_tool_file(write("dump.json", {"tools": [tool]}))
    assert invoices.input_schema == decl["parameters_json_schema"]
    assert invoices.output_schema == {"type": "array"}
    assert ping.input_schema == EMPTY_CLOSED
    assert ping.output_schema is None


def test_gemini_defs_and_ref_resolve_after_translation(write: Write) -> None:
    from jsoncontract.tools import ToolSet

    decl = {
        "name": "adopt",
        "parameters": {
            "type": "OBJECT",
            "properties": {"pet": {"ref": "#/defs/Pet"}},
            "required": ["pet"],
            "defs": {
                "Pet": {
                    "type": "OBJECT",
                    "properties": {"name": {"type": "STRING"}},
                    "required": ["name"],
                }
            },
        },
    }
    tool = only(load_tool_file(write("g.json", {"functionDeclarations": [decl]})))
    assert tool.input_schema["properties"]["pet"] == {"$ref": "#/$defs/Pet"}
    assert tool.input_schema["$defs"]["Pet"]["properties"] == {"name": {"type": "string"}}
    schema = ToolSet([tool]).schema("adopt")
    assert schema.is_valid({"pet": {"name": "Rex"}})
    assert not schema.is_valid({"pet": {}})
    assert not schema.is_valid({"pet": {"name": 3}})


def test_gemini_parameters_and_parameters_json_schema_are_exclusive(write: Write) -> None:
    decl = {
        "name": "get_weather",
        "parameters": {"type": "OBJECT"},
        "parametersJsonSchema": {"type": "object"},
    }
    path = write("g.json", {"functionDeclarations": [decl]})
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path)
    assert info.value.message == (
        "tool 'get_weather': parameters and parametersJsonSchema are mutually exclusive "
        "(at /functionDeclarations/0)"
    )
    assert info.value.line == 3


def test_gemini_snake_case_exclusive_too(write: Write) -> None:
    decl = {"name": "a", "parameters": {}, "parameters_json_schema": {}}
    with pytest.raises(ToolLoadError, match="parameters and parameters_json_schema are mutually"):
        load_tool_file(write("g.json", {"function_declarations": [decl]}))


def test_gemini_declarations_must_be_a_list(write: Write) -> None:
    with pytest.raises(ToolLoadError, match=r"functionDeclarations must be a list \(at /tools/0\)"):
        load_tool_file(write("g.json", {"tools": [{"functionDeclarations": {"name": "a"}}]}))


def test_gemini_declaration_must_be_an_object(write: Write) -> None:
    with pytest.raises(
        ToolLoadError,
        match=r"a function declaration must be an object \(at /functionDeclarations/0\)",
    ):
        load_tool_file(write("g.json", {"functionDeclarations": ["get_weather"]}))


# -- MCP ----------------------------------------------------------------------------------

MCP_TOOL: dict[str, Any] = {
    "name": "read_file",
    "title": "Read file",
    "description": "Read a file from the workspace.",
    "inputSchema": {
        "type": "object",
        "properties": {"path": {"type": "string"}},
        "required": ["path"],
    },
    "outputSchema": {"type": "object", "properties": {"content": {"type": "string"}}},
    "annotations": {"readOnlyHint": True, "openWorldHint": False},
}


def test_mcp_tools_list_response(write: Write) -> None:
    response = {
        "jsonrpc": "2.0",
        "id": 2,
        "result": {
            "tools": [MCP_TOOL, {"name": "ping", "inputSchema": {"type": "object"}}],
            "nextCursor": "abc",
        },
    }
    read, ping = load_tool_file(write("mcp.json", response))
    assert summary([read, ping]) == [("read_file", Dialect.MCP, 6), ("ping", Dialect.MCP, 34)]
    assert read.input_schema == MCP_TOOL["inputSchema"]
    assert read.output_schema == MCP_TOOL["outputSchema"]
    assert read.annotations == {"readOnlyHint": True, "openWorldHint": False}
    assert read.title == "Read file"
    assert read.description == "Read a file from the workspace."
    assert read.definition is not None and read.definition["name"] == "read_file"
    assert ping.title is None and ping.annotations is None and ping.output_schema is None


def test_mcp_result_object_list_and_single_tool(write: Write) -> None:
    assert summary(load_tool_file(write("result.json", {"tools": [MCP_TOOL]}))) == [
        ("read_file", Dialect.MCP, 3)
    ]
    assert summary(load_tool_file(write("list.json", [MCP_TOOL]))) == [
        ("read_file", Dialect.MCP, 2)
    ]
    assert summary(load_tool_file(write("one.json", MCP_TOOL))) == [("read_file", Dialect.MCP, 1)]


def test_mcp_title_falls_back_to_annotations(write: Write) -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}, "annotations": {"title": "Nice"}}
    assert only(load_tool_file(write("m.json", [tool]))).title == "Nice"


def test_mcp_json_rpc_error_response_is_refused(write: Write) -> None:
    path = write(
        "err.json",
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32601, "message": "Method not found"}},
    )
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path)
    assert info.value.message == (
        "this JSON-RPC response is an error, not a tools/list result (at /error)"
    )
    assert (info.value.file, info.value.line) == (str(path), 4)


def test_json_rpc_message_without_tools(write: Write) -> None:
    path = write("req.json", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    with pytest.raises(ToolLoadError, match=r"JSON-RPC message without result\.tools"):
        load_tool_file(path)


def test_mcp_input_schema_must_be_an_object(write: Write) -> None:
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(write("m.json", {"tools": [{"name": "t", "inputSchema": None}]}))
    assert info.value.message == (
        "tool 't': inputSchema must be a JSON Schema object, found null (at /tools/0/inputSchema)"
    )


def test_mcp_output_schema_must_be_an_object(write: Write) -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}, "outputSchema": "object"}
    with pytest.raises(
        ToolLoadError, match=r"outputSchema must be a JSON Schema object, found str"
    ):
        load_tool_file(write("m.json", [tool]))


def test_forcing_mcp_reads_a_tool_without_input_schema_as_an_error(write: Write) -> None:
    with pytest.raises(ToolLoadError, match=r"tool 't': inputSchema must be a JSON Schema object"):
        load_tool_file(write("m.json", [{"name": "t"}]), dialect=Dialect.MCP)


# -- bare JSON Schema ---------------------------------------------------------------------


def test_bare_json_schema_with_tool_name(write: Write) -> None:
    schema = dict(WEATHER, description="Weather request body.")
    tool = only(load_tool_file(write("schema.json", schema), tool_name="get_weather"))
    assert (tool.name, tool.dialect, tool.source.line) == ("get_weather", Dialect.JSON_SCHEMA, 1)
    assert tool.input_schema == schema
    assert tool.description == "Weather request body."


def test_bare_json_schema_without_tool_name(write: Write) -> None:
    path = write("schema.json", WEATHER)
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path)
    assert (
        info.value.message == "this looks like a bare JSON Schema; name its tool with --tool NAME"
    )
    assert (info.value.file, info.value.line) == (str(path), 1)


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": "https://json-schema.org/draft/2020-12/schema"},
        {"properties": {"a": {}}},
        {"$ref": "#/$defs/body", "$defs": {"body": {"type": "object"}}},
        {"anyOf": [{"type": "object"}, {"type": "null"}]},
        {"type": "array", "items": {"type": "integer"}},
        {"type": "string", "format": "email"},
        {"type": ["object", "null"]},
    ],
)
def test_shapes_read_as_a_bare_schema(write: Write, schema: dict[str, Any]) -> None:
    tool = only(load_tool_file(write("schema.json", schema), tool_name="body"))
    assert (tool.name, tool.dialect, tool.input_schema) == ("body", Dialect.JSON_SCHEMA, schema)


def test_forcing_json_schema_reads_even_a_tool_like_document(write: Write) -> None:
    doc = {"name": "not-a-tool", "type": "object"}
    tool = only(load_tool_file(write("s.json", doc), tool_name="t", dialect=Dialect.JSON_SCHEMA))
    assert (tool.name, tool.input_schema) == ("t", doc)


def test_tool_name_does_not_rename_tools_of_a_known_dialect(write: Write) -> None:
    tool = only(load_tool_file(write("m.json", [MCP_TOOL]), tool_name="other"))
    assert tool.name == "read_file"


# -- broken definitions -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "message", "line"),
    [
        (
            {"tools": [{"type": "function", "function": {"parameters": {}}}]},
            "tool definition without a name (at /tools/0/function)",
            5,
        ),
        (
            [{"type": "function", "function": {"name": "", "parameters": {}}}],
            "tool definition without a name (at /0/function)",
            4,
        ),
        (
            [{"input_schema": {"type": "object"}}],
            "tool definition without a name (at /0)",
            2,
        ),
        (
            [{"name": 7, "inputSchema": {"type": "object"}}],
            "tool definition without a name (at /0)",
            2,
        ),
        (
            [{"name": "get_weather", "description": "Current conditions."}],
            "tool 'get_weather' has no schema (expected parameters, input_schema or inputSchema) "
            "(at /0)",
            2,
        ),
        (
            {"tools": [{"description": "what is this?"}]},
            "not a tool definition in any known dialect (OpenAI, Anthropic, Gemini, MCP, "
            "OpenAPI); for a bare JSON Schema pass --tool NAME (at /tools/0)",
            3,
        ),
        (
            {"tools": [{"type": "function", "function": {"name": "a", "parameters": "{}"}}]},
            "tool 'a': parameters must be a JSON Schema object, found str "
            "(at /tools/0/function/parameters)",
            7,
        ),
    ],
)
def test_broken_definitions(write: Write, doc: object, message: str, line: int) -> None:
    path = write("tools.json", doc)
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path)
    assert (info.value.message, info.value.file, info.value.line) == (message, str(path), line)
    assert str(info.value) == f"{path}:{line}: {message}"


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("[1, 2]", "a tool definition must be an object, found a JSON integer (at /0)"),
        ('["get_weather"]', "a tool definition must be an object, found a JSON string (at /0)"),
        ("[null]", "a tool definition must be an object, found a JSON null (at /0)"),
        ("[[]]", "a tool definition must be an object, found a JSON array (at /0)"),
        ("null", "expected a tool list or object, found a JSON null (at /)"),
        ("true", "expected a tool list or object, found a JSON boolean (at /)"),
        ('"tools"', "expected a tool list or object, found a JSON string (at /)"),
        ("42", "expected a tool list or object, found a JSON integer (at /)"),
    ],
)
def test_json_of_the_wrong_kind(write: Write, doc: str, message: str) -> None:
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(write("tools.json", doc))
    assert info.value.message == message


def test_json_in_no_known_dialect(write: Write) -> None:
    path = write("package.json", {"name": 3, "version": "1.0.0"})
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path)
    assert info.value.message.startswith("not a tool definition in any known dialect")
    assert (info.value.file, info.value.line) == (str(path), 1)


@pytest.mark.parametrize("doc", ["[]", '{"tools": []}', '[{"type": "web_search_preview"}]'])
def test_no_tool_at_all_is_an_error(write: Write, doc: str) -> None:
    path = write("tools.json", doc)
    with pytest.raises(ToolLoadError) as info:
        load_tool_file(path)
    assert info.value.message.startswith("no tool definitions found")
    assert (info.value.file, info.value.line) == (str(path), 1)


# -- files --------------------------------------------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(InputError) as info:
        load_tool_files([tmp_path / "nope.json"])
    assert str(info.value) == f"{tmp_path / 'nope.json'}: no such file or directory"


def test_missing_file_read_directly(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read"):
        load_tool_file(tmp_path / "nope.json")


@pytest.mark.parametrize("content", [b"", b"   \n\t\n"])
def test_empty_file(write: Write, content: bytes) -> None:
    path = write("tools.json", content)
    with pytest.raises(InputError) as info:
        load_tool_file(path)
    assert str(info.value) == f"{path}: file is empty"


def test_binary_data_is_not_json(write: Write) -> None:
    path = write("tools.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10")
    with pytest.raises(InputError) as info:
        load_tool_file(path)
    assert info.value.file == str(path)
    assert info.value.message.startswith("not JSON")
    assert info.value.line == 1
    str(info.value).encode("utf-8")  # printable: no lone surrogates from the raw bytes


def test_binary_data_is_diagnosed_as_invalid_utf8(write: Write) -> None:
    path = write("tools.json", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    with pytest.raises(InputError, match=r"not JSON \(invalid utf8\)"):
        load_tool_file(path)


def test_not_json_has_line_and_column(write: Write) -> None:
    text = '[\n  {"name": "a", "inputSchema": {"type": "object"},}\n]\n'
    path = write("tools.json", text)
    with pytest.raises(InputError) as info:
        load_tool_file(path)
    err = info.value
    assert err.message.startswith("not JSON (trailing comma):")
    assert (err.file, err.line, err.column) == (str(path), 2, 50)  # the comma itself
    assert str(err).startswith(f"{path}:2:50: not JSON (trailing comma)")


def test_truncated_tools_file(write: Write) -> None:
    with pytest.raises(InputError) as info:
        load_tool_file(write("tools.json", '{"tools": [{"name": "a",'))
    assert info.value.message.startswith("not JSON (truncated)")
    assert info.value.line == 1


def test_nesting_100000_levels_deep(write: Write) -> None:
    path = write("tools.json", "[" * 100_000 + "]" * 100_000)
    with pytest.raises(InputError) as info:
        load_tool_file(path)
    assert info.value.message == "not JSON (too deep): nested more than 1024 levels deep"
    assert (info.value.file, info.value.line) == (str(path), 1)


def test_a_schema_nested_300_levels_loads(write: Write) -> None:
    schema = '{"type": "object", "properties": {"a": ' * 150 + "{}" + "}}" * 150
    tool = only(
        load_tool_file(write("deep.json", '[{"name": "t", "input_schema": ' + schema + "}]"))
    )
    assert tool.name == "t"


def test_byte_order_mark_is_accepted(write: Write) -> None:
    import orjson

    data = b"\xef\xbb\xbf" + orjson.dumps([MCP_TOOL], option=orjson.OPT_INDENT_2)
    tool = only(load_tool_file(write("bom.json", data)))
    assert (tool.name, tool.source.line) == ("read_file", 2)


def test_data_argument_skips_reading(tmp_path: Path) -> None:
    import orjson

    tool = only(load_tool_file(tmp_path / "virtual.json", data=orjson.dumps([MCP_TOOL])))
    assert (tool.name, tool.source.file) == ("read_file", str(tmp_path / "virtual.json"))


def test_duplicate_key_in_a_tools_file_is_refused_with_its_place(write: Write) -> None:
    text = '[{"name": "a", "inputSchema": {"type": "object"}, "name": "b"}]'
    with pytest.raises(ToolLoadError) as caught:
        load_tool_file(write("t.json", text))
    assert caught.value.line == 1
    assert "key 'name' appears more than once (at /0/name)" in str(caught.value)
    # lint reads it anyway (keeping the last) and reports the duplicate as a finding
    assert only(load_tool_file(write("t.json", text), duplicates=True)).name == "b"


def test_additional_properties_given_twice_is_refused(write: Write) -> None:
    text = (
        '[{"name": "a", "inputSchema": {"type": "object", "additionalProperties": false, '
        '"additionalProperties": true}}]'
    )
    with pytest.raises(ToolLoadError, match="additionalProperties"):
        load_tool_file(write("t.json", text))


# -- directories and several files --------------------------------------------------------


def test_directories_are_read_recursively_in_order(write: Write, tmp_path: Path) -> None:
    write("tools/b.json", [{"name": "b", "inputSchema": {"type": "object"}}])
    write("tools/a.json", [{"name": "a", "inputSchema": {"type": "object"}}])
    write("tools/nested/deeper/c.json", [{"name": "c", "inputSchema": {"type": "object"}}])
    write("tools/.git/config.json", "not even JSON")
    write("tools/.hidden.json", "not even JSON")
    write("tools/notes.txt", "not a tool file")
    write("tools/README.md", "# tools")
    write("extra.json", [{"name": "z", "input_schema": {"type": "object"}}])
    tools = load_tool_files([tmp_path / "extra.json", tmp_path / "tools"])
    assert [t.name for t in tools] == ["z", "a", "b", "c"]
    assert tools[3].source.file == str(tmp_path / "tools" / "nested" / "deeper" / "c.json")


def test_upper_case_suffix_is_a_tool_file(write: Write, tmp_path: Path) -> None:
    write("tools/A.JSON", [{"name": "a", "inputSchema": {"type": "object"}}])
    assert [t.name for t in load_tool_files([tmp_path / "tools"])] == ["a"]


def test_directory_without_tool_files(write: Write, tmp_path: Path) -> None:
    write("tools/notes.txt", "nothing here")
    write("tools/.hidden/t.json", [{"name": "a", "inputSchema": {"type": "object"}}])
    with pytest.raises(InputError) as info:
        load_tool_files([tmp_path / "tools"])
    assert (
        str(info.value)
        == f"{tmp_path / 'tools'}: directory has no tool definition files (*.json, *.yaml, *.yml)"
    )


def test_empty_directory(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="directory has no tool definition files"):
        load_tool_files([tmp_path / "empty"])


def test_a_broken_file_among_good_ones_names_itself(write: Write, tmp_path: Path) -> None:
    write("tools/a.json", [{"name": "a", "inputSchema": {"type": "object"}}])
    bad = write("tools/b.json", "{")
    with pytest.raises(InputError) as info:
        load_tool_files([tmp_path / "tools"])
    assert info.value.file == str(bad)


def test_bundled_example_tools(repo: Path) -> None:
    tools = load_tool_files([repo / "fixtures" / "tools"])
    assert [(t.name, t.dialect.value, Path(t.source.file).name, t.source.line) for t in tools] == [
        ("get_weather", "anthropic", "anthropic.json", 2),
        ("update_shipment", "anthropic", "anthropic.json", 34),
        ("searchInvoices", "gemini", "gemini.json", 5),
        ("get_weather", "gemini", "gemini.json", 51),
        ("read_file", "mcp", "mcp-tools-list.json", 6),
        ("update_shipment", "mcp", "mcp-tools-list.json", 59),
        ("update_shipment", "openai-chat", "openai-chat.json", 4),
        ("searchInvoices", "openai-chat", "openai-chat.json", 100),
        ("get_weather", "openai-responses", "openai-responses.json", 2),
    ]


# -- where the parts of a definition sit ---------------------------------------------------

Located = tuple[str | None, str | None, bool, str | None, bool]


def located(tool: ToolContract) -> Located:
    """(body pointer, input pointer, input openapi, output pointer, output openapi)."""
    inp, out = tool.input_location, tool.output_location
    return (
        tool.body_pointer,
        inp.pointer if inp else None,
        inp.openapi if inp else False,
        out.pointer if out else None,
        out.openapi if out else False,
    )


def test_every_dialect_records_where_its_schemas_are(write: Write) -> None:
    chat, bare = load_tool_file(write("chat.json", CHAT_REQUEST % json.dumps(WEATHER)))
    assert located(chat) == (
        "/tools/0/function",
        "/tools/0/function/parameters",
        False,
        None,
        False,
    )
    # no parameters: the schema is made up, and written nowhere
    assert located(bare) == ("/tools/1/function", None, False, None, False)
    weather, invoices, now = load_tool_file(write("gemini.json", GEMINI_REQUEST))
    decls = "/tools/1/functionDeclarations"
    assert located(weather) == (
        f"{decls}/0",
        f"{decls}/0/parameters",
        True,
        f"{decls}/0/response",
        True,
    )
    assert located(invoices) == (
        f"{decls}/1",
        f"{decls}/1/parametersJsonSchema",
        False,
        f"{decls}/1/responseJsonSchema",
        False,
    )
    assert located(now) == (f"{decls}/2", None, False, None, False)
    read, _ = load_tool_file(
        write("mcp.json", {"tools": [MCP_TOOL, {"name": "p", "inputSchema": {}}]})
    )
    assert located(read) == (
        "/tools/0",
        "/tools/0/inputSchema",
        False,
        "/tools/0/outputSchema",
        False,
    )
    anthropic = only(load_tool_file(write("a.json", [{"name": "t", "input_schema": WEATHER}])))
    assert located(anthropic) == ("/0", "/0/input_schema", False, None, False)
    responses = {"type": "function", "name": "t", "parameters": WEATHER, "output_schema": {}}
    assert located(only(load_tool_file(write("r.json", [responses])))) == (
        "/0",
        "/0/parameters",
        False,
        "/0/output_schema",
        False,
    )
    legacy = {"functions": [{"name": "f", "parameters": WEATHER}]}
    assert located(only(load_tool_file(write("f.json", legacy)))) == (
        "/functions/0",
        "/functions/0/parameters",
        False,
        None,
        False,
    )
    schema = only(load_tool_file(write("s.json", WEATHER), tool_name="s"))
    assert located(schema) == (None, "", False, None, False)


def test_a_null_spelling_does_not_hide_the_schema_that_is_there(write: Write) -> None:
    # the SDK's model_dump() writes parametersJsonSchema: null next to real parameters
    decl = {"name": "t", "parametersJsonSchema": None, "parameters": {"type": "OBJECT"}}
    tool = only(load_tool_file(write("g.json", {"functionDeclarations": [decl]})))
    assert tool.input_schema == {"type": "object"}
    assert tool.input_location is not None and tool.input_location.pointer.endswith("/parameters")
    assert tool.input_location.openapi


def test_two_spellings_of_the_input_schema_are_mutually_exclusive(write: Write) -> None:
    decl = {"name": "t", "parametersJsonSchema": {}, "parameters_json_schema": {}}
    with pytest.raises(
        ToolLoadError,
        match=r"tool 't': parameters_json_schema and parametersJsonSchema are mutually exclusive",
    ):
        load_tool_file(write("g.json", {"functionDeclarations": [decl]}))


@pytest.mark.parametrize(
    ("definition", "member"),
    [
        (
            {"type": "function", "name": "t", "parameters": {}, "output_schema": "x"},
            "output_schema",
        ),
        ({"name": "t", "parameters": {}, "responseJsonSchema": ["x"]}, "responseJsonSchema"),
        ({"name": "t", "parameters": {}, "response": 1}, "response"),
    ],
)
def test_an_output_schema_that_is_no_object_is_an_error_in_every_dialect(
    write: Write, definition: dict[str, Any], member: str
) -> None:
    with pytest.raises(ToolLoadError, match=rf"tool 't': {member} must be a JSON Schema object"):
        load_tool_file(write("t.json", [definition]))


def test_forcing_a_dialect_reads_every_definition_as_it(write: Write) -> None:
    tools = [{"name": "a", "parameters": WEATHER}, {"name": "b", "input_schema": WEATHER}]
    path = write("t.json", tools)
    assert [(t.name, t.dialect) for t in load_tool_file(path)] == [
        ("a", Dialect.GEMINI),
        ("b", Dialect.ANTHROPIC),
    ]
    forced = load_tool_file(write("a.json", tools[:1]), dialect=Dialect.OPENAI_CHAT)
    assert [(t.name, t.dialect, t.input_schema) for t in forced] == [
        ("a", Dialect.OPENAI_CHAT, WEATHER)
    ]
    with pytest.raises(
        ToolLoadError, match=r"tool 'a': input_schema must be a JSON Schema object, found null"
    ):
        load_tool_file(write("b.json", tools[:1]), dialect=Dialect.ANTHROPIC)


def test_forcing_a_dialect_that_defines_no_tools_is_a_usage_error(write: Write) -> None:
    with pytest.raises(
        UsageError, match=r"no tool definitions are written in dialect 'downstream'"
    ):
        load_tool_file(write("t.json", [MCP_TOOL]), dialect=Dialect.DOWNSTREAM)
