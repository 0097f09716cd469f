"""The exact parse path in bounded memory: pointers built only when an anomaly is recorded,
at most MAX_ANOMALIES anomalies per document, and integers of any length."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jsoncontract._json import MAX_ANOMALIES, MAX_INT_DIGITS, MAX_POINTER, load

LONG_KEY = "k" * 2000


def _peak_mb(action: Callable[[], Any]) -> float:
    tracemalloc.start()
    try:
        action()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def test_deep_nesting_with_long_keys_takes_memory_in_proportion() -> None:
    # 900 levels of 2,000-character keys, with a duplicate at each level: the exact path
    # once held every level's pointer (O(depth x key length) each), 1.5 GB for 1.8 MB
    level = '{"a": 1, "a": 2, "' + LONG_KEY + '": '
    doc = (level * 900 + "1" + "}" * 900).encode()
    peak = _peak_mb(lambda: load(doc))
    assert peak < 40 * len(doc) / 1e6, peak
    _, anomalies = load(doc)
    assert len(anomalies) == MAX_ANOMALIES
    assert anomalies[-1].detail.endswith("800 more anomalies in this document are not listed")
    assert all(len(a.pointer) <= MAX_POINTER for a in anomalies)


def test_a_pointer_too_long_is_cut_to_an_ancestor() -> None:
    doc = json.dumps({"a": {LONG_KEY: {"b": [1, 2**70]}}}).encode()
    (anomaly,) = load(doc)[1]
    assert anomaly.kind == "big_integer"
    assert anomaly.pointer == "/a"


def test_an_integer_beyond_python_conversion_is_a_big_integer_anomaly() -> None:
    digits = "9" * 5000
    value, anomalies = load(f'{{"n": -{digits}, "m": {digits}}}'.encode())
    assert [a.kind for a in anomalies] == ["big_integer", "big_integer"]
    assert "(5000 digits)" in anomalies[0].detail and len(anomalies[0].detail) < 200
    assert value["n"] < -(10 ** (MAX_INT_DIGITS - 1)) and value["m"] > 10 ** (MAX_INT_DIGITS - 1)
    str(value["m"] + 1)  # still written out after arithmetic


def test_duplicate_key_messages_quote_a_short_key() -> None:
    doc = ('{"' + LONG_KEY + '": 1, "' + LONG_KEY + '": 2}').encode()
    (anomaly,) = load(doc)[1]
    assert len(anomaly.detail) < 200


def _chat_line(arguments: str, call_id: str = "c1") -> str:
    call = {
        "id": call_id,
        "type": "function",
        "function": {"name": "searchInvoices", "arguments": arguments},
    }
    return json.dumps({"role": "assistant", "tool_calls": [call]})


def test_a_huge_integer_in_a_trace_is_a_finding_and_the_run_goes_on(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    ok = '{"customerId":"C00417","startDate":"2025-10-01","endDate":"2025-10-31","status":"open"}'
    trace = tmp_path / "trace.jsonl"
    trace.write_text(
        _chat_line('{"customerId":"C00417","limit":' + "9" * 5000 + "}")
        + "\n"
        + _chat_line(ok, "c2")
        + "\n"
    )
    result = run_cli("check", "--no-config", "--tools", "fixtures/tools", "-f", "json", str(trace))
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["summary"]["calls"] == 2
    codes = [f["code"] for r in report["results"] for f in r["findings"]]
    assert codes == ["parse.big_integer"]


def test_fixtures_for_a_schema_with_a_huge_bound(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 7}}}
    tool = [{"type": "function", "function": {"name": "f", "parameters": schema}}]
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps(tool).replace('"maximum": 7', '"maximum": ' + "9" * 5000))
    result = run_cli("fixtures", "--no-config", "--tools", str(tools), str(tmp_path / "suites"))
    assert result.code == 0, result.stderr
    assert (tmp_path / "suites" / "f.suite.json").exists()


def test_numbers_a_double_reads_as_another_are_anomalies() -> None:
    value, anomalies = load(b'{"a": 1e-400, "b": 1.0000000000000001, "c": 1e308, "d": 0.1}')
    assert value == {"a": 0.0, "b": 1.0, "c": 1e308, "d": 0.1}
    assert [(a.kind, a.pointer) for a in anomalies] == [
        ("inexact_number", "/a"),
        ("inexact_number", "/b"),
    ]


def test_a_fraction_read_as_whole_does_not_pass_type_integer_silently(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text(
        _chat_line('{"customerId":"C00417","limit":1.0000000000000001}')
        + "\n"
        + _chat_line('{"customerId":"C00417","limit":1e-400}', "c2")
        + "\n"
    )
    result = run_cli("check", "--no-config", "--tools", "fixtures/tools", "-f", "json", str(trace))
    report = json.loads(result.stdout)
    codes = [[f["code"] for f in r["findings"]] for r in report["results"]]
    assert codes == [["parse.inexact_number"], ["parse.inexact_number"]]
