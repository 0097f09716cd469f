"""The closest known word: found once per slip, however often the slip comes back."""

from __future__ import annotations

import difflib
from typing import Any

import pytest

from jsoncontract._spelling import _closest, closest
from jsoncontract.model import Dialect, Source, ToolContract
from jsoncontract.tools import ToolSet
from jsoncontract.validation import CompiledSchema


@pytest.fixture
def matches(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The words difflib is asked to match."""
    asked: list[str] = []
    real = difflib.get_close_matches

    def counting(word: str, *args: Any, **kwargs: Any) -> list[str]:
        asked.append(word)
        return real(word, *args, **kwargs)

    monkeypatch.setattr(difflib, "get_close_matches", counting)
    _closest.cache_clear()  # what earlier tests left
    return asked


def test_closest() -> None:
    assert closest("priorty", ["priority", "notes"]) == "priority"
    assert closest("zzz", ["priority", "notes"]) is None
    assert closest("x" * 1000, ["x" * 999]) == "x" * 999  # long words: found, not kept


def test_a_renamed_tool_is_matched_once(matches: list[str]) -> None:
    tools = ToolSet(
        ToolContract(f"tool_{i:04d}", {"type": "object"}, Dialect.MCP, Source("t.json"))
        for i in range(120)
    )
    (suggested,) = {tools.suggest("tool_0057_v2") for _ in range(50)}
    assert suggested is not None and suggested.startswith("tool_00")
    assert matches.count("tool_0057_v2") == 1


def test_a_repeated_slip_in_the_arguments_is_matched_once(matches: list[str]) -> None:
    schema = CompiledSchema(
        {
            "properties": {"priority": {"enum": ["standard", "express"]}},
            "additionalProperties": False,
        }
    )
    for _ in range(50):
        found = schema.violations({"priority": "exprss", "priorty_note": 1})
        assert "did you mean 'express'?" in [v.hint for v in found]
    assert (matches.count("exprss"), matches.count("priorty_note")) == (1, 1)
