"""Pairing hops across a trace: by id, by order and tool, unpaired, bounded memory."""

from __future__ import annotations

from typing import Any

from jsoncontract.diff.correlate import Correlator, Group
from jsoncontract.model import ArgumentsForm, Dialect, Hop, Source, ToolCall

_DIALECT = {
    Hop.MODEL: Dialect.OPENAI_CHAT,
    Hop.MCP: Dialect.MCP,
    Hop.DOWNSTREAM: Dialect.DOWNSTREAM,
}


def call(
    hop: Hop | None,
    tool: str | None = "search",
    call_id: str | None = None,
    *,
    meta: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    line: int = 1,
) -> ToolCall:
    return ToolCall(
        hop,
        _DIALECT[hop] if hop is not None else None,
        tool,
        call_id,
        {},
        ArgumentsForm.VALUE,
        Source("trace.jsonl", line),
        meta=meta,
        context=context,
    )


def groups(calls: list[ToolCall], **kw: Any) -> list[list[tuple[str, str, str | None]]]:
    """Each group as (hop, how it joined, line) triples."""
    out = []
    for group in Correlator(**kw).run(calls):
        out.append(
            [
                (m.call.hop.value if m.call.hop else "?", m.matched_by, str(m.call.source.line))
                for m in group.members
            ]
        )
    return out


def test_hops_pair_by_the_id_in_mcp_meta_and_the_record_call_id() -> None:
    calls = [
        call(Hop.MODEL, call_id="call_A", line=1),
        call(Hop.MODEL, call_id="call_B", line=2),
        call(Hop.MCP, call_id="7", meta={"tool_call_id": "call_B"}, line=3),
        call(Hop.MCP, call_id="8", meta={"tool_call_id": "call_A"}, line=4),
        call(Hop.DOWNSTREAM, call_id="call_A", line=5),
        call(Hop.DOWNSTREAM, call_id="call_B", line=6),
    ]
    assert groups(calls) == [
        [("model", "first", "1"), ("mcp", "id", "4"), ("downstream", "id", "5")],
        [("model", "first", "2"), ("mcp", "id", "3"), ("downstream", "id", "6")],
    ]


def test_hops_without_ids_pair_by_order_and_tool() -> None:
    calls = [
        call(Hop.MODEL, "search", "call_A", line=1),
        call(Hop.MODEL, "weather", "call_W", line=2),
        call(Hop.MCP, "search", "1", line=3),
        call(Hop.MCP, "weather", "2", line=4),
        call(Hop.DOWNSTREAM, "search", line=5),
    ]
    got = list(Correlator().run(calls))
    assert [g.pairing() for g in got] == ["order", "order"]
    assert [m.call.source.line for m in got[0].members] == [1, 3, 5]
    assert [m.call.source.line for m in got[1].members] == [2, 4]


def test_a_downstream_body_can_quote_the_mcp_request_id() -> None:
    calls = [
        call(Hop.MODEL, call_id="call_A", line=1),
        call(Hop.MCP, call_id="41", line=2),
        call(Hop.DOWNSTREAM, call_id="41", line=3),
    ]
    group = next(iter(Correlator().run(calls)))
    assert [(m.matched_by, m.key) for m in group.members] == [
        ("first", None),
        ("order", None),
        ("id", "41"),
    ]
    assert group.pairing() == "id+order"


def test_explicit_ids_that_differ_are_never_paired_by_order() -> None:
    calls = [
        call(Hop.MODEL, call_id="call_A", line=1),
        call(Hop.DOWNSTREAM, call_id="call_Z", line=2),
    ]
    assert groups(calls) == [[("model", "first", "1")], [("downstream", "first", "2")]]


def test_correlation_fields_are_configurable_and_may_be_pointers() -> None:
    calls = [
        call(Hop.MODEL, call_id="call_A", line=1),
        call(Hop.MCP, "other-name", "9", meta={"io.example/trace": {"callId": "call_A"}}, line=2),
    ]
    assert groups(calls, fields=("/io.example~1trace/callId",)) == [
        [("model", "first", "1"), ("mcp", "id", "2")]
    ]
    assert groups(calls) == [[("model", "first", "1")], [("mcp", "first", "2")]]


def test_context_of_a_trace_record_carries_ids_too() -> None:
    calls = [
        call(Hop.MODEL, call_id="call_A", line=1),
        call(Hop.MCP, call_id="3", context={"call_id": "call_A"}, line=2),
    ]
    assert groups(calls)[0][1] == ("mcp", "id", "2")


def test_a_later_hop_never_pairs_with_a_group_that_already_has_a_later_one() -> None:
    calls = [
        call(Hop.MODEL, call_id="call_A", line=1),
        call(Hop.DOWNSTREAM, call_id="call_A", line=2),
        call(Hop.MCP, call_id="5", line=3),  # comes after the downstream body: its own group
    ]
    assert groups(calls) == [
        [("model", "first", "1"), ("downstream", "id", "2")],
        [("mcp", "first", "3")],
    ]


def test_unreadable_lines_are_groups_of_their_own_in_order() -> None:
    calls = [call(Hop.MODEL, call_id="a", line=1), call(None, None, line=2)]
    assert groups(calls) == [[("model", "first", "1")], [("?", "first", "2")]]


def test_groups_come_out_in_order_as_soon_as_they_are_finished() -> None:
    correlator = Correlator(window=3)
    out: list[Group] = []
    out.extend(correlator.feed(call(Hop.MODEL, call_id="a", line=1)))
    out.extend(correlator.feed(call(Hop.DOWNSTREAM, call_id="a", line=2)))
    assert len(out) == 1  # finished: it has its downstream hop
    out.extend(correlator.feed(call(Hop.MODEL, "x", call_id="b", line=3)))
    out.extend(correlator.feed(call(Hop.MODEL, "y", call_id="c", line=4)))
    out.extend(correlator.feed(call(Hop.MODEL, "z", call_id="d", line=5)))
    out.extend(correlator.feed(call(Hop.MODEL, "w", call_id="e", line=6)))
    assert len(out) == 2  # b waited three calls without growing: handed out as it is
    assert len(list(correlator.flush())) == 3


def test_a_long_trace_streams_in_bounded_memory() -> None:
    correlator = Correlator(window=50)
    handed = 0
    for i in range(20_000):
        for group in correlator.feed(call(Hop.MODEL, f"t{i % 7}", f"id{i}", line=i)):
            handed += len(group.members)
        assert len(correlator._open) <= 51
        assert sum(len(q) for q in correlator._waiting.values()) <= 51
    handed += sum(len(g.members) for g in correlator.flush())
    assert handed == 20_000


def test_a_request_id_every_session_reuses_does_not_make_pairing_quadratic(
    monkeypatch: Any,
) -> None:
    # MCP request ids restart at 1 in every session: 20,000 frames with id 1 (and no
    # downstream hop to close their groups) used to make each frame look at every open
    # group holding that id
    looked = 0

    class Hops(set[Hop]):
        def __contains__(self, hop: object) -> bool:
            nonlocal looked
            looked += 1
            return super().__contains__(hop)

    opened = Group.__init__

    def init(self: Group, **kw: Any) -> None:
        opened(self, **kw)
        self.hops = Hops()

    monkeypatch.setattr(Group, "__init__", init)
    count = 20_000
    calls: list[ToolCall] = []
    for i in range(count):
        calls.append(call(Hop.MODEL, call_id=f"call_{i}", line=2 * i + 1))
        calls.append(call(Hop.MCP, call_id="1", line=2 * i + 2))
    found = groups(calls)
    assert len(found) == count
    assert all(g == [("model", "first", str(2 * i + 1)), ("mcp", "order", str(2 * i + 2))]
               for i, g in enumerate(found))  # fmt: skip
    assert looked < 4 * count
