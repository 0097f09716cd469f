"""Where a call's contract comes from (:mod:`jsoncontract.pipeline.offered`): the tools offered
with it, or ``--tools``, which wins; each offered list read once, and forgotten past a bound."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.model import Hop, offered_tools
from jsoncontract.pipeline import offered as module
from jsoncontract.pipeline.offered import Contracts
from jsoncontract.tools.toolset import ToolSet

SCHEMA = {"type": "object", "properties": {"city": {"type": "string"}}}


def _function(name: str, schema: Any = SCHEMA) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "parameters": schema}}


def _code(found: tuple[Any, Any]) -> str | None:
    return found[1].code if found[1] is not None else None


def test_a_tool_the_list_offers_is_the_contract_and_one_it_does_not_is_not_offered() -> None:
    contracts = Contracts(ToolSet([]))
    offered = offered_tools([_function("get_weather"), {"type": "web_search"}])
    tool, said = contracts.contract("get_weather", Hop.MODEL, offered)
    assert tool is not None and tool.input_schema == SCHEMA and said is None
    missing = contracts.contract("get_wether", Hop.MODEL, offered)
    assert missing[0] is None and _code(missing) == "envelope.tool_not_offered"
    assert missing[1] is not None and missing[1].hint == "did you mean 'get_weather'?"
    assert _code(contracts.contract("x", Hop.MODEL, None)) == "envelope.no_contract"


def test_a_broken_offered_definition_is_no_contract() -> None:
    contracts = Contracts(ToolSet([]))
    offered = offered_tools([
        _function("bad_schema", {"type": "object", "properties": {"a": {"type": 5}}}),
        _function("twice"), _function("twice", {"type": "object"}),
        {"type": "function", "function": {"name": "no_params", "parameters": "x"}},
    ])  # fmt: skip
    for name in ("bad_schema", "twice", "no_params"):
        found = contracts.contract(name, Hop.MODEL, offered)
        assert found[0] is None and _code(found) == "envelope.offered_tool_invalid", name


def test_gemini_declarations_and_bedrock_specs_are_read_as_written() -> None:
    contracts = Contracts(ToolSet([]))
    gemini = offered_tools([{"functionDeclarations": [{"name": "a", "parameters": {
        "type": "OBJECT", "properties": {"n": {"type": "INTEGER"}}}}]}])  # fmt: skip
    tool, said = contracts.contract("a", Hop.MODEL, gemini)
    assert said is None and tool is not None
    assert tool.input_schema["properties"]["n"]["type"] == "integer"
    bedrock = offered_tools([{"toolSpec": {"name": "b", "inputSchema": {"json": SCHEMA}}}])
    assert contracts.contract("b", Hop.MODEL, bedrock)[0] is not None


def test_with_tools_the_tools_win() -> None:
    tools = ToolSet.from_paths(["fixtures/tools/openai-chat.json"])
    contracts = Contracts(tools)
    name = tools.names()[0]
    mine = tools.get(name)
    assert mine is not None
    same = offered_tools([_function(name, mine.input_schema)])
    other = offered_tools([_function(name, {"type": "object"}), _function("other")])
    assert contracts.contract(name, Hop.MODEL, same) == (mine, None)
    tool, said = contracts.contract(name, Hop.MODEL, other)
    assert tool is mine and _code((tool, said)) == "envelope.offered_schema_differs"
    assert said is not None and said.severity == "warning"
    unoffered = offered_tools([_function("other")])
    assert _code(contracts.contract(name, Hop.MODEL, unoffered)) == "envelope.tool_not_offered"
    # an MCP session's listing says it (session.unlisted_tool); a body is the operation's
    assert contracts.contract(name, Hop.MCP, unoffered) == (mine, None)
    assert contracts.contract(name, Hop.DOWNSTREAM, unoffered) == (mine, None)
    assert _code(contracts.contract("nope", Hop.MODEL, same)) == "envelope.unknown_tool"


def test_lists_past_the_bound_are_forgotten_least_used_first(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(module, "LISTS", 2)
    contracts = Contracts(ToolSet([]))
    lists = [offered_tools([_function(f"t{i}")]) for i in range(3)]
    for i, offered in enumerate(lists):
        assert contracts.contract(f"t{i}", Hop.MODEL, offered)[0] is not None
    assert list(contracts._offers) == [lists[1].key, lists[2].key]
    assert all(key[2] != lists[0].key for key in contracts._decided)
    assert contracts.contract("t0", Hop.MODEL, lists[0])[0] is not None  # read again
