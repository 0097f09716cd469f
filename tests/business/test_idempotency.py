"""Trace-level idempotency: conflicts, missing keys, double writes, which tools write."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from jsoncontract.api import check
from jsoncontract.business import BusinessRules, load_business
from jsoncontract.business.idempotency import IdempotencySettings, IdempotencyTracker, name_writes
from jsoncontract.config import load_config
from jsoncontract.errors import ConfigError
from jsoncontract.model import Hop, Severity

KEYED = {"order_id": {"type": "string"}, "idempotency_key": {"type": "string"}}


def gate(**settings: Any) -> BusinessRules:
    return BusinessRules(None, idempotency=IdempotencySettings(**settings))


@pytest.mark.parametrize(
    ("name", "writes"),
    [
        ("update_shipment", True),
        ("createInvoice", True),
        ("send_email", True),
        ("payInvoice", True),
        ("transfer-funds", True),
        ("searchInvoices", False),
        ("get_weather", False),
        ("read_file", False),
        ("list_orders_to_update", False),  # a read verb first wins
        ("weather", None),
    ],
)
def test_name_heuristic(name: str, writes: bool | None) -> None:
    assert name_writes(name) is writes


def test_annotations_then_config_then_name(bz: Any) -> None:
    tracker = IdempotencyTracker(IdempotencySettings(write_tools=frozenset({"sync", "get_x"})))
    read_only = bz.contract("delete_all", annotations={"readOnlyHint": True})
    assert not tracker.classify(read_only).writes
    annotated = bz.contract("get_x", annotations={"destructiveHint": True})
    assert tracker.classify(annotated).because == "MCP write annotations"
    assert tracker.classify(bz.contract("sync")).because == "listed in write_tools"
    assert tracker.classify(bz.contract("create_order")).because == "its name reads as a write"
    reads = IdempotencyTracker(IdempotencySettings(read_tools=frozenset({"create_preview"})))
    assert not reads.classify(bz.contract("create_preview")).writes


def test_same_key_with_different_arguments_is_a_conflict(bz: Any) -> None:
    g = gate()
    tool = bz.contract("update_shipment", KEYED)
    first = {"order_id": "A", "idempotency_key": "k1"}
    assert bz.run(g, tool, first, file="trace.jsonl", line=3) == []
    assert bz.run(g, tool, dict(reversed(first.items())), call_id="c2") == []  # a retry
    (conflict,) = bz.run(g, tool, {"order_id": "B", "idempotency_key": "k1"}, call_id="c3")
    assert conflict.code == "business.idempotency.conflict"
    assert conflict.severity is Severity.ERROR
    assert conflict.path == "/idempotency_key"
    assert 'key "k1" was first used at trace.jsonl:3 with different arguments' in conflict.message


def test_hops_are_compared_separately(bz: Any) -> None:
    g = gate()
    tool = bz.contract("update_shipment", KEYED)
    assert bz.run(g, tool, {"order_id": "A", "idempotency_key": "k1"}, hop=Hop.MODEL) == []
    # the downstream body of the same call may legitimately differ (renamed, coerced)
    downstream = {"order_id": "A", "idempotency_key": "k1", "source": "agent"}
    assert bz.run(g, tool, downstream, hop=Hop.DOWNSTREAM) == []


def test_missing_key_when_the_schema_has_one(bz: Any) -> None:
    g = gate()
    tool = bz.contract("update_shipment", KEYED)
    (finding,) = bz.run(g, tool, {"order_id": "A"})
    assert finding.code == "business.idempotency.missing_key"
    assert finding.severity is Severity.WARNING
    assert "'idempotency_key'" in finding.message


def test_write_tool_without_any_key_field_is_reported_once(bz: Any) -> None:
    g = gate()
    tool = bz.contract("send_email", {"to": {"type": "string"}})
    first = bz.run(g, tool, {"to": "a"}, call_id="c1")
    assert bz.codes(first) == ["business.idempotency.missing_key"]
    assert "reported once per tool" in first[0].message
    assert bz.run(g, tool, {"to": "b"}, call_id="c2") == []


def test_same_write_without_a_key_is_a_probable_double_write(bz: Any) -> None:
    g = gate(missing_key=None)
    tool = bz.contract("send_email", {"to": {"type": "string"}})
    assert bz.run(g, tool, {"to": "a"}, call_id="c1", file="t.jsonl", line=4) == []
    assert bz.run(g, tool, {"to": "a"}, call_id="c1") == []  # the same call captured twice
    (double,) = bz.run(g, tool, {"to": "a"}, call_id="c2")
    assert double.code == "business.idempotency.double_write"
    assert double.severity is Severity.WARNING
    assert "already made at t.jsonl:4" in double.message
    assert bz.run(g, tool, {"to": "b"}, call_id="c3") == []


@pytest.mark.parametrize("hop", [Hop.MODEL, Hop.DOWNSTREAM])
def test_double_write_without_call_ids(bz: Any, hop: Hop) -> None:
    # a legacy function_call or a bare downstream body carries no call id to tell
    # "the same call captured twice" from "a second call"
    g = gate(missing_key=None)
    tool = bz.contract("send_email", {"to": {"type": "string"}})
    assert bz.run(g, tool, {"to": "a"}, hop=hop, call_id=None, file="t.jsonl", line=1) == []
    (double,) = bz.run(g, tool, {"to": "a"}, hop=hop, call_id=None, file="t.jsonl", line=2)
    assert double.code == "business.idempotency.double_write"
    assert "already made at t.jsonl:1" in double.message


LEGACY_CALL = (
    '{"role": "assistant", "content": null,'
    ' "function_call": {"name": "send_email", "arguments": "{\\"to\\": \\"a\\"}"}}'
)


@pytest.mark.parametrize(
    ("line", "options"),
    [
        (LEGACY_CALL, {}),  # OpenAI Chat's legacy function_call has no id
        ('{"to": "a"}', {"tool": "send_email", "dialect": "downstream"}),  # a bare body
    ],
)
def test_double_write_of_captured_calls_without_ids(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str, options: dict[str, Any]
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("tools.json").write_text(
        '{"tools": [{"name": "send_email", "inputSchema": {"type": "object",'
        ' "properties": {"to": {"type": "string"}}}}]}'
    )
    Path("t.jsonl").write_text(f"{line}\n{line}\n")
    report = check(["t.jsonl"], tools=["tools.json"], business=load_business(), **options)
    first, second = (result.findings for result in report.results)
    assert [f.code for f in first] == ["business.idempotency.missing_key"]
    (double,) = second
    assert double.code == "business.idempotency.double_write"
    assert "already made at t.jsonl:1" in double.message


def test_idempotent_tools_only_check_conflicts(bz: Any) -> None:
    g = gate()
    tool = bz.contract(
        "set_flag", {"on": {}}, annotations={"readOnlyHint": False, "idempotentHint": True}
    )
    assert bz.run(g, tool, {"on": True}, call_id="a") == []
    assert bz.run(g, tool, {"on": True}, call_id="b") == []


def test_reads_are_ignored_and_checks_can_be_turned_off(bz: Any) -> None:
    g = gate()
    search = bz.contract("searchInvoices", {})
    assert bz.run(g, search, {}, call_id="a") == bz.run(g, search, {}, call_id="b") == []
    off = gate(conflict=None, missing_key=None, double_write=None)
    tool = bz.contract("update_shipment", KEYED)
    assert bz.run(off, tool, {"order_id": "A", "idempotency_key": "k"}) == []
    assert bz.run(off, tool, {"order_id": "B", "idempotency_key": "k"}) == []
    disabled = gate(enabled=False)
    assert disabled.tracker is None


def test_key_field_names_are_configurable(bz: Any) -> None:
    g = gate(key_fields=("requestToken",))
    tool = bz.contract("update_thing", {"requestToken": {}})
    assert bz.run(g, tool, {"requestToken": "r1", "v": 1}) == []
    assert bz.codes(bz.run(g, tool, {"requestToken": "r1", "v": 2})) == [
        "business.idempotency.conflict"
    ]


def test_settings_from_config() -> None:
    settings = IdempotencySettings.from_config(
        {"key_names": ["rid"], "missing_key": "off", "double_write": "error", "write_tools": ["x"]}
    )
    assert settings.key_fields == ("rid",)
    assert settings.missing_key is None
    assert settings.double_write is Severity.ERROR
    assert settings.write_tools == frozenset({"x"})


def test_key_names_is_the_config_key_and_key_fields_its_old_name(tmp_path: Path) -> None:
    config = tmp_path / "jsoncontract.toml"
    config.write_text('[business.idempotency]\nkey_names = ["rid"]\n')
    gate = load_business(config=load_config(config))
    assert gate.tracker is not None and gate.tracker.settings.key_fields == ("rid",)
    assert gate.warnings == []
    config.write_text('[business.idempotency]\nkey_fields = ["rid"]\n')
    old = load_business(config=load_config(config))
    assert old.tracker is not None and old.tracker.settings.key_fields == ("rid",)
    assert old.warnings == [
        f"{config}: [business.idempotency] key_fields is the old name of key_names (as in "
        "[lint.idempotency]); it still works, but rename it"
    ]
    config.write_text('[business.idempotency]\nkey_names = ["rid"]\nkey_fields = ["x"]\n')
    with pytest.raises(ConfigError) as caught:
        load_business(config=load_config(config))
    assert str(caught.value) == (
        f"{config}: [business.idempotency] sets both key_names and key_fields (its old name): "
        "keep key_names only"
    )


def test_the_index_holds_keys_not_payloads(bz: Any) -> None:
    import tracemalloc

    g = gate()
    tool = bz.contract("update_shipment", KEYED)
    payload = "x" * 10_000
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(2_000):
        arguments = {"order_id": payload, "idempotency_key": f"k{i}"}
        bz.run(g, tool, arguments, call_id=f"c{i}")
        del arguments
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert g.tracker is not None and g.tracker.size == 2_000
    assert grown / 2_000 < 400  # bytes per key, with 10 kB payloads


def test_a_fresh_gate_shares_the_rules_and_context_but_not_the_trace(
    gate_from: Any, bz: Any
) -> None:
    g = gate_from(
        '[[tools.update_shipment]]\nid = "role"\nrule = "context.role == \'ops\'"\n',
        context={"role": "ops", "now": "2025-01-01T00:00:00Z"},
        idempotency=IdempotencySettings(),
    )
    tool = bz.contract("update_shipment", KEYED)
    assert bz.run(g, tool, {"order_id": "A", "idempotency_key": "k1"}) == []
    changed = {"order_id": "B", "idempotency_key": "k1"}
    assert bz.codes(bz.run(g, tool, changed, call_id="c2")) == ["business.idempotency.conflict"]
    fresh = g.fresh()
    assert fresh.rules is g.rules and fresh.context == g.context and fresh.now == g.now
    assert bz.run(fresh, tool, changed, call_id="c3") == []  # the key is new to this gate
    assert bz.codes(bz.run(g, tool, changed, call_id="c4")) == ["business.idempotency.conflict"]
    off = BusinessRules(None, idempotency=None)
    assert off.fresh().tracker is None


def _nested(depth: int, leaf: Any) -> Any:
    value = leaf
    for _ in range(depth):
        value = [value]
    return value


def test_arguments_nested_deeper_than_the_serializer_goes(bz: Any) -> None:
    g = gate()
    tool = bz.contract("update_shipment", KEYED)
    deep = {"idempotency_key": "k1", "x": _nested(1000, 1)}
    assert bz.run(g, tool, deep) == []
    assert bz.run(g, tool, {"idempotency_key": "k1", "x": _nested(1000, 1)}, call_id="c2") == []
    changed = {"idempotency_key": "k1", "x": _nested(1000, 2)}
    assert bz.codes(bz.run(g, tool, changed, call_id="c3")) == ["business.idempotency.conflict"]


def test_a_key_with_a_lone_surrogate_is_quoted_escaped(bz: Any) -> None:
    g = gate()
    tool = bz.contract("update_shipment", KEYED)
    assert bz.run(g, tool, {"order_id": "A", "idempotency_key": "k\ud800"}) == []
    (conflict,) = bz.run(g, tool, {"order_id": "B", "idempotency_key": "k\ud800"}, call_id="c2")
    assert 'idempotency key "k\\ud800" was first used' in conflict.message
