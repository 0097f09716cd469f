"""Helpers for business-rule tests: rules written inline, calls made by hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.business import BusinessRules, load_rules
from jsoncontract.business.idempotency import IdempotencySettings
from jsoncontract.model import ArgumentsForm, Dialect, Finding, Hop, Source, ToolCall, ToolContract
from jsoncontract.tools import ToolSet

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def tools() -> ToolSet:
    return ToolSet.from_paths([REPO / "fixtures" / "tools"])


def make_call(
    tool: str,
    arguments: Any,
    *,
    hop: Hop = Hop.MODEL,
    call_id: str | None = "call_1",
    context: dict[str, Any] | None = None,
    file: str = "capture.json",
    line: int | None = 1,
) -> ToolCall:
    return ToolCall(
        hop=hop,
        dialect=Dialect.MCP if hop is Hop.MCP else Dialect.OPENAI_CHAT,
        tool=tool,
        call_id=call_id,
        arguments=arguments,
        form=ArgumentsForm.VALUE,
        source=Source(file, line),
        context=context,
    )


def contract(name: str, properties: dict[str, Any] | None = None, **extra: Any) -> ToolContract:
    schema = {"type": "object", "properties": properties or {}}
    return ToolContract(
        name=name, input_schema=schema, dialect=Dialect.MCP, source=Source("t.json"), **extra
    )


Runner = Callable[..., list[Finding]]


@pytest.fixture
def gate_from(tmp_path: Path) -> Callable[..., BusinessRules]:
    """Build a gate from rules TOML text (and extra files next to it)."""

    def build(
        text: str,
        *,
        files: dict[str, str | bytes] | None = None,
        context: dict[str, Any] | None = None,
        idempotency: IdempotencySettings | None = None,
        show_values: bool = False,
    ) -> BusinessRules:
        for name, content in (files or {}).items():
            path = tmp_path / name
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_text(content, encoding="utf-8")
        rules_file = tmp_path / "rules.toml"
        rules_file.write_text(text, encoding="utf-8")
        return BusinessRules(
            load_rules([rules_file]),
            context=context,
            idempotency=idempotency,
            show_values=show_values,
        )

    return build


def run(
    gate: BusinessRules, tool: str | ToolContract, arguments: Any, **call: Any
) -> list[Finding]:
    """The findings of one call through the gate."""
    target = tool if isinstance(tool, ToolContract) else contract(tool)
    return list(gate.check(make_call(target.name, arguments, **call), arguments, target))


def codes(findings: list[Finding]) -> list[str]:
    return [f.code for f in findings]


class Helpers:
    """The helpers above, as one fixture (test modules cannot import this file)."""

    make_call = staticmethod(make_call)
    contract = staticmethod(contract)
    run = staticmethod(run)
    codes = staticmethod(codes)


@pytest.fixture
def bz() -> type[Helpers]:
    return Helpers
