"""Where lint finds each tool's schemas: the places the loader recorded on the contract."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from jsoncontract.lint.engine import Linter
from jsoncontract.lint.settings import build_settings

OBJECT = {"type": "object", "properties": {"q": {"type": "string"}}}
OPENAPI = {"type": "OBJECT", "properties": {"q": {"type": "STRING"}}}

Site = tuple[str, str | None, bool]


def sites(document: Any, **options: Any) -> dict[str, tuple[list[Site], str]]:
    """Tool name -> its sites (kind, file pointer, openapi) and where its name is."""
    linter = Linter(build_settings(None, profiles=["generic"], **options))
    file = linter._load("tools.json", orjson.dumps(document))
    return {
        tool.name: ([(s.kind, s.base, s.openapi) for s in tool.sites], tool.member("name"))
        for tool in file.tools
    }


def test_mcp_openai_and_anthropic() -> None:
    document = [
        {"name": "m", "inputSchema": OBJECT, "outputSchema": OBJECT},
        {"type": "function", "function": {"name": "c", "parameters": OBJECT}},
        {"type": "function", "function": {"name": "c0"}},
        {"type": "function", "name": "r", "parameters": OBJECT, "output_schema": OBJECT},
        {"name": "a", "input_schema": OBJECT},
    ]
    assert sites(document) == {
        "m": (
            [("input", "/0/inputSchema", False), ("output", "/0/outputSchema", False)],
            "/0/name",
        ),
        "c": ([("input", "/1/function/parameters", False)], "/1/function/name"),
        "c0": ([("input", None, False)], "/2/function/name"),
        "r": (
            [("input", "/3/parameters", False), ("output", "/3/output_schema", False)],
            "/3/name",
        ),
        "a": ([("input", "/4/input_schema", False)], "/4/name"),
    }


def test_legacy_functions_and_a_bare_schema() -> None:
    assert sites({"functions": [{"name": "f", "parameters": OBJECT}]}) == {
        "f": ([("input", "/functions/0/parameters", False)], "/functions/0/name")
    }
    assert sites(OBJECT, tool_name="s") == {"s": ([("input", "", False)], "/name")}


def test_gemini_openapi_and_json_schema() -> None:
    declarations = [
        {"name": "o", "parameters": OPENAPI, "response": OPENAPI},
        {"name": "j", "parametersJsonSchema": OBJECT, "responseJsonSchema": OBJECT},
        # both read before lint looked for them: a null spelling next to the real schema,
        # and the Python SDK's snake-case output schema
        {"name": "n", "parametersJsonSchema": None, "parameters": OPENAPI},
        {"name": "s", "parameters_json_schema": OBJECT, "response_json_schema": OBJECT},
    ]
    base = "/functionDeclarations"
    assert sites({"functionDeclarations": declarations}) == {
        "o": (
            [("input", f"{base}/0/parameters", True), ("output", f"{base}/0/response", True)],
            f"{base}/0/name",
        ),
        "j": (
            [
                ("input", f"{base}/1/parametersJsonSchema", False),
                ("output", f"{base}/1/responseJsonSchema", False),
            ],
            f"{base}/1/name",
        ),
        "n": ([("input", f"{base}/2/parameters", True)], f"{base}/2/name"),
        "s": (
            [
                ("input", f"{base}/3/parameters_json_schema", False),
                ("output", f"{base}/3/response_json_schema", False),
            ],
            f"{base}/3/name",
        ),
    }


def test_an_openapi_site_keeps_the_schema_as_written() -> None:
    linter = Linter(build_settings(None, profiles=["generic"]))
    document = {"functionDeclarations": [{"name": "o", "parameters": OPENAPI}]}
    (tool,) = linter._load("tools.json", orjson.dumps(document)).tools
    (site,) = tool.sites
    assert (site.raw, site.schema["properties"]["q"]) == (OPENAPI, {"type": "string"})


@pytest.mark.parametrize("spelling", ["parametersJsonSchema", "parameters_json_schema"])
def test_an_openai_function_may_spell_its_schema_as_gemini_does(spelling: str) -> None:
    document = [{"type": "function", "function": {"name": "c", spelling: OBJECT}}]
    assert sites(document) == {
        "c": ([("input", f"/0/function/{spelling}", False)], "/0/function/name")
    }
