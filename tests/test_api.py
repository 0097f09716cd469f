"""The library entry points: what they accept, and errors that say what to fix."""

from __future__ import annotations

import pytest

from jsoncontract import check
from jsoncontract.errors import UsageError
from jsoncontract.model import Dialect
from tests.conftest import FIXTURES

TOOLS = [FIXTURES / "tools"]
MCP_CAPTURE = [FIXTURES / "captures" / "mcp" / "tools-call-ok.json"]


@pytest.mark.parametrize("dialect", ["mcp", Dialect.MCP])
def test_a_forced_dialect_by_name_or_member(dialect: str | Dialect) -> None:
    report = check(MCP_CAPTURE, tools=TOOLS, dialect=dialect)
    assert [r.call.dialect for r in report.results] == [Dialect.MCP]


@pytest.mark.parametrize("dialect", ["nope", "json-schema", Dialect.JSON_SCHEMA])
def test_a_dialect_no_capture_is_in_is_a_usage_error(dialect: str | Dialect) -> None:
    with pytest.raises(UsageError, match=r"unknown capture dialect .*; use one of: .*openai-chat"):
        check(MCP_CAPTURE, tools=TOOLS, dialect=dialect)
