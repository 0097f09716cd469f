"""Violations in bounded time and size: undeclared members, long values and patterns, and
"did you mean" over long lists."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsoncontract._spelling import did_you_mean, reset_budget
from jsoncontract.validation import MAX_MESSAGE, MAX_VIOLATIONS, CompiledSchema

ALLOWED = {f"field_{i:04d}": {"type": "string"} for i in range(1000)}
SCHEMA = {"type": "object", "properties": ALLOWED, "additionalProperties": False}


def test_many_undeclared_members_take_little_time_and_text() -> None:
    payload = {f"extra_{i:05d}": 1 for i in range(5000)}
    start = time.perf_counter()
    found = CompiledSchema(SCHEMA).violations(payload)
    assert time.perf_counter() - start < 2.0
    assert len(found) == MAX_VIOLATIONS
    assert found[-1].message.endswith("(4900 more undeclared members are not listed)")
    assert all(v.hint is not None and len(v.hint) <= MAX_MESSAGE for v in found)
    assert "(and 988 more)" in (found[0].hint or "")


def test_long_values_and_patterns_are_quoted_short() -> None:
    schema = {
        "type": "object",
        "properties": {"x": {"type": "string", "pattern": "^" + "a" * 5000 + "$"}},
    }
    found = CompiledSchema(schema).violations({"x": "b" * 700_000})
    assert found and all(len(v.message) <= MAX_MESSAGE for v in found)
    long_name = {"n" * 100_000: 1}
    closed = CompiledSchema({"type": "object", "additionalProperties": False})
    assert all(len(v.message) <= MAX_MESSAGE for v in closed.violations(long_name))


def test_did_you_mean_over_two_thousand_names_is_bounded() -> None:
    names = [f"tool_{i:04d}_{'abcdefgh'[i % 8]}" for i in range(2000)]
    words = [f"unknown_{i:05d}" for i in range(2000)]
    reset_budget()
    assert did_you_mean("tool_0042_x", names) == "tool_0042_c"
    try:
        start = time.perf_counter()
        for word in words:
            did_you_mean(word, names)
        # ~9.6 ms a word before (19 s here); now a fixed number of comparisons (~2 s), with
        # slack for a loaded machine
        assert time.perf_counter() - start < 20.0
        assert did_you_mean("tool_0043_x", names) is None  # the budget is spent
        assert did_you_mean("TOOL_0043_D", names) == "tool_0043_d"  # case still answers
    finally:
        reset_budget()


def test_check_with_many_undeclared_members_prints_a_bounded_report(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps([{"type": "function", "function": {"name": "f", "parameters": SCHEMA}}])
    )
    arguments = json.dumps({f"extra_{i:05d}": 1 for i in range(5000)})
    call = {"id": "c", "type": "function", "function": {"name": "f", "arguments": arguments}}
    capture = tmp_path / "call.json"
    capture.write_text(json.dumps({"role": "assistant", "tool_calls": [call]}))
    start = time.perf_counter()
    result = run_cli("check", "--no-config", "--tools", str(tools), str(capture))
    assert time.perf_counter() - start < 10.0
    assert result.code == 1
    assert len(result.stdout) < 200_000
