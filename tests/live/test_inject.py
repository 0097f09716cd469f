"""Fault rules: parsing, which frames they change, and that the same seed gives the same faults."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from jsoncontract.errors import UsageError
from jsoncontract.live.inject import NEVER, Injector, break_output, parse_rule, seconds_of
from jsoncontract.validation import CompiledSchema

OUTPUT = {
    "type": "object",
    "properties": {"total": {"type": "number"}},
    "required": ["total"],
}
LISTING = {
    "jsonrpc": "2.0",
    "id": 1,
    "result": {
        "tools": [
            {"name": "summary", "inputSchema": {"type": "object"}, "outputSchema": OUTPUT},
            {"name": "delete_order", "inputSchema": {"type": "object"}},
        ]
    },
}


def _session(injector: Injector, tool: str = "summary", call_id: int = 7) -> Any:
    """List the tools through the injector, then answer one call of ``tool``."""
    injector.client_frame({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    injector.server_frame(orjson.dumps(LISTING), LISTING)
    call = {"jsonrpc": "2.0", "id": call_id, "method": "tools/call", "params": {"name": tool}}
    injector.client_frame(call)
    answer = {
        "jsonrpc": "2.0",
        "id": call_id,
        "result": {"content": [], "structuredContent": {"total": 12.5}},
    }
    return injector.server_frame(orjson.dumps(answer), answer)


@pytest.mark.parametrize(
    ("text", "tool", "kind", "value", "rate"),
    [
        ("delay=2s", "*", "delay", "2s", 1.0),
        ("search:timeout", "search", "timeout", None, 1.0),
        ("a:b:error=-32603@0.25", "a:b", "error", "-32603", 0.25),
        ("get:is-error=store down", "get", "is-error", "store down", 1.0),
        ("delete_order:drop", "delete_order", "drop", None, 1.0),
    ],
)
def test_rules_parse(text: str, tool: str, kind: str, value: str | None, rate: float) -> None:
    rule = parse_rule(text)
    assert (rule.tool, rule.kind, rule.value, rule.rate) == (tool, kind, value, rate)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("slow", "unknown fault 'slow'"),
        ("delay", "delay needs a value"),
        ("delay=soon", "500ms, 2s"),
        ("error=oops", "an integer"),
        ("timeout=3", "takes no value"),
        ("drop", "name the tool"),
        ("timeout@1.5", "between 0 and 1"),
    ],
)
def test_bad_rules_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        parse_rule(text)


def test_durations() -> None:
    assert (seconds_of("500ms"), seconds_of("2s"), seconds_of("0.25s")) == (0.5, 2.0, 0.25)


def test_without_rules_frames_pass_untouched() -> None:
    delivery = _session(Injector([]))
    assert delivery.fault is None and delivery.delay == 0 and delivery.original is None


def test_each_kind_changes_the_answer() -> None:
    delayed = _session(Injector([parse_rule("summary:delay=300ms")]))
    assert delayed.delay == 0.3 and delayed.fault == "summary:delay=300ms"
    assert _session(Injector([parse_rule("timeout")])).delay == NEVER
    failed = orjson.loads(_session(Injector([parse_rule("is-error=down")])).data)
    assert failed["result"] == {"content": [{"type": "text", "text": "down"}], "isError": True}
    errored = orjson.loads(_session(Injector([parse_rule("error=-32603")])).data)
    assert errored["error"]["code"] == -32603 and errored["id"] == 7
    broken = orjson.loads(_session(Injector([parse_rule("bad-output")])).data)
    assert not CompiledSchema(OUTPUT).is_valid(broken["result"]["structuredContent"])
    for kind in ("malformed", "truncate"):
        data = _session(Injector([parse_rule(kind)])).data
        with pytest.raises(orjson.JSONDecodeError):
            orjson.loads(data)
    changed = _session(Injector([parse_rule("list-changed")]))
    assert changed.then == [b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}']
    other_tool = _session(Injector([parse_rule("delete_order:timeout")]))
    assert other_tool.fault is None


def test_drop_takes_a_tool_out_of_the_listing() -> None:
    injector = Injector([parse_rule("delete_order:drop")])
    injector.client_frame({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
    delivery = injector.server_frame(orjson.dumps(LISTING), LISTING)
    names = [t["name"] for t in orjson.loads(delivery.data)["result"]["tools"]]
    assert names == ["summary"] and delivery.fault == "delete_order:drop"
    assert delivery.original == orjson.dumps(LISTING)


def test_the_same_seed_gives_the_same_faults() -> None:
    def run(seed: int) -> list[bool]:
        injector = Injector([parse_rule("summary:timeout@0.5")], seed)
        return [_session(injector, call_id=i).delay == NEVER for i in range(40)]

    first = run(3)
    assert first == run(3)
    assert first != run(4)
    assert 5 < sum(first) < 35


def test_breaking_an_output_keeps_its_shape_where_it_can() -> None:
    schema = {
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
        "required": ["a"],
    }
    assert break_output(schema, {"a": "x", "b": 1}) == {"b": 1}  # a required member dropped
    closed = {"type": "array", "items": {"type": "integer"}}
    assert not CompiledSchema(closed).is_valid(break_output(closed, [1, 2]))
    assert isinstance(break_output(None, {"a": 1}), str)
