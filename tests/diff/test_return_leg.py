"""The return leg of ``diff``: each way a result changes on its way back to the model, on the
bundled refund (the payment API's answer, the MCP result, the tool message)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.diff import diff
from jsoncontract.tools import ToolSet
from tests.conftest import FIXTURES

BUNDLE = FIXTURES / "results" / "diff"
#: What the payment API answered, and the MCP server handed on (without the receipt URL).
RESULT: dict[str, Any] = json.loads(
    json.loads((BUNDLE / "mcp.jsonl").read_text().splitlines()[1])["result"]["content"][0]["text"]
)


def _leg(tmp_path: Path, content: Any) -> list[tuple[str, str, str, str]]:
    """The return leg's differences when the host hands the model ``content``."""
    model = json.loads((BUNDLE / "model.json").read_text())
    model["messages"][2]["content"] = content
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model, indent=2))
    hops = [str(path), str(BUNDLE / "mcp.jsonl"), str(BUNDLE / "downstream.har")]
    found = diff(hops, tools=ToolSet.from_paths([FIXTURES / "results" / "tools.json"]))
    (call,) = found.results
    return [
        (d.code.value, d.from_hop.value, d.to_hop.value, d.path)
        for d in call.differences
        if d.to_dict().get("leg") == "result" and d.to_hop.value == "model"
    ]


def test_a_result_serialised_twice_is_re_encoded(tmp_path: Path) -> None:
    """The host put the MCP text (the result's JSON) into a JSON string once more."""
    assert _leg(tmp_path, json.dumps(json.dumps(RESULT))) == [("re-encoded", "mcp", "model", "")]


@pytest.mark.parametrize(
    "content",
    [json.dumps(RESULT), [{"type": "text", "text": json.dumps(RESULT)}]],
    ids=["text", "parts"],
)
def test_a_result_handed_on_whole_is_the_same(tmp_path: Path, content: Any) -> None:
    assert _leg(tmp_path, content) == []
