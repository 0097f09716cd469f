"""Helpers for the fixture-suite tests: tool sets from inline schemas, suites from cases."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.model import Dialect, Source, ToolContract
from jsoncontract.suites import Case, Suite
from jsoncontract.tools import ToolSet

SHIPMENT: dict[str, Any] = {
    "type": "object",
    "properties": {
        "order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"},
        "priority": {"type": "string", "enum": ["standard", "expedited", "overnight"]},
        "address": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 1},
                "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
            },
            "required": ["city", "country"],
            "additionalProperties": False,
        },
        "count": {"type": "integer", "minimum": 1, "maximum": 10},
    },
    "required": ["order_id", "priority"],
    "additionalProperties": False,
}


def contract(schema: Any, name: str = "ship") -> ToolContract:
    return ToolContract(name, schema, Dialect.JSON_SCHEMA, Source("inline.json", 1))


@pytest.fixture
def toolset() -> Callable[..., ToolSet]:
    """``toolset(schema, name="ship")`` or ``toolset({"a": schema, "b": schema})``."""

    def make(schema: Any = None, name: str = "ship", **more: Any) -> ToolSet:
        tools = [contract(SHIPMENT if schema is None else schema, name)]
        tools += [contract(s, n) for n, s in more.items()]
        return ToolSet(tools)

    return make


@pytest.fixture
def make_suite() -> Callable[..., Suite]:
    """``make_suite(case, ..., tool="ship", path=None)``: a suite from case objects."""

    def make(*cases: dict[str, Any], tool: str = "ship", path: Path | None = None) -> Suite:
        return Suite(tool, [Case.from_json(c, i) for i, c in enumerate(cases)], path=path)

    return make


@pytest.fixture
def shipment() -> dict[str, Any]:
    """The schema most tests use (a copy: tests may change it)."""
    import copy

    return copy.deepcopy(SHIPMENT)
