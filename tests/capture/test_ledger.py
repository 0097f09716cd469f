"""The ledger: results meet their calls in any order, within bounds, in capture order."""

from __future__ import annotations

from typing import Any

import pytest

from jsoncontract.capture.ledger import Ledger, Released
from jsoncontract.model import (
    ArgumentsForm,
    Captured,
    EventKind,
    Hop,
    McpSession,
    Source,
    ToolCall,
    ToolResult,
    TraceEvent,
)


def call(call_id: str | None, hop: Hop = Hop.MODEL, **kw: Any) -> ToolCall:
    form = kw.pop("form", ArgumentsForm.VALUE)
    return ToolCall(hop, "d", "t", call_id, kw.pop("arguments", {}), form, Source("f"), **kw)


def result(call_id: str | None, hop: Hop = Hop.MODEL, **kw: Any) -> ToolResult:
    return ToolResult(hop, "d", call_id, Source("r"), **kw)


def run(ledger: Ledger, *documents: list[Captured]) -> list[list[Released]]:
    """What leaves after each document, then what the end of the run hands on."""
    steps: list[list[Released]] = []
    for items in documents:
        out: list[Released] = []
        ledger.add(items, out)
        steps.append(out)
    end: list[Released] = []
    ledger.flush(end)
    steps.append(end)
    return steps


def test_a_call_leaves_when_its_result_arrives() -> None:
    a, answer = call("a"), result("a")
    steps = run(Ledger(), [a], [], [answer])
    assert steps == [[], [], [a], []]
    assert a.result is answer


def test_a_result_that_comes_first_waits_for_its_call() -> None:
    a, answer = call("a"), result("a")
    steps = run(Ledger(), [answer], [a])
    assert steps == [[], [a], []]
    assert a.result is answer


def test_calls_leave_in_capture_order() -> None:
    a, b = call("a"), call("b")
    steps = run(Ledger(), [a], [b], [result("b")], [result("a")])
    assert steps == [[], [], [], [a, b], []]


def test_an_unanswered_call_leaves_after_the_window() -> None:
    a = call("a")
    steps = run(Ledger(window=2), [a], [], [], [])
    assert steps == [[], [], [a], [], []]
    assert a.result is None


def test_a_window_of_zero_never_holds_a_call() -> None:
    a = call("a")
    assert run(Ledger(window=0), [a], [result("a")])[0] == [a]


def test_the_limit_bounds_what_waits() -> None:
    calls = [call(str(i)) for i in range(5)]
    steps = run(Ledger(limit=3), *([c] for c in calls))
    assert [len(s) for s in steps] == [0, 0, 0, 1, 1, 3]
    assert [c for s in steps for c in s] == calls


def test_a_result_after_its_call_left_is_late() -> None:
    a, answer = call("a"), result("a")
    steps = run(Ledger(window=1), [a], [], [answer])
    assert steps[1] == [a]
    (late,) = steps[2]
    assert isinstance(late, TraceEvent) and late.kind is EventKind.LATE_RESULT
    assert late.result is answer and a.result is None


def test_a_result_no_call_claims_is_an_orphan_once_the_window_passes() -> None:
    stray = result("zz")
    steps = run(Ledger(window=1), [stray], [], [])
    orphans = [e for s in steps for e in s]
    assert len(orphans) == 1
    (orphan,) = orphans
    assert isinstance(orphan, TraceEvent) and orphan.kind is EventKind.ORPHAN_RESULT
    assert orphan.result is stray


def test_results_still_waiting_at_the_end_are_orphans() -> None:
    (end,) = run(Ledger(), [result("x")])[1:]
    assert [e.kind for e in end if isinstance(e, TraceEvent)] == [EventKind.ORPHAN_RESULT]


def test_a_result_without_an_id_is_an_orphan_at_once() -> None:
    steps = run(Ledger(), [result(None)])
    assert isinstance(steps[0][0], TraceEvent)


def test_a_model_call_seen_again_is_one_call() -> None:
    first, again = call("a"), call("a")
    steps = run(Ledger(), [first], [again, result("a")])
    assert steps[1] == [first]
    assert first.result is not None


def test_a_model_call_seen_again_after_it_left_is_dropped() -> None:
    first = call("a")
    steps = run(Ledger(window=1), [result("z"), first], [], [call("a")])
    calls = [c for s in steps for c in s if isinstance(c, ToolCall)]
    assert calls == [first]


def test_calls_alone_are_not_held_but_still_one_call_each() -> None:
    """Past the first window without results, calls pass at once; a call seen again is still
    the same call (identity does not depend on where a line sits)."""
    first, again, other = call("a"), call("a"), call("a", arguments={"x": 1})
    steps = run(Ledger(window=0), [first], [again], [other])
    assert steps[:2] == [[first], []]
    reused, counted = steps[2]
    assert isinstance(reused, TraceEvent) and reused.kind is EventKind.REUSED_CALL_ID
    assert reused.call is other and counted is other


def test_a_result_after_calls_alone_is_late() -> None:
    a = call("a")
    steps = run(Ledger(window=0), [a], [result("a")])
    (late,) = steps[1]
    assert isinstance(late, TraceEvent) and late.kind is EventKind.LATE_RESULT


def test_a_repeated_result_keeps_the_first() -> None:
    a, one, two = call("a"), result("a"), result("a", in_history=True)
    run(Ledger(), [a, one], [two])
    assert a.result is one


def test_the_second_sighting_supplies_unrecorded_arguments() -> None:
    span = call("a", form=ArgumentsForm.UNRECORDED, arguments=None)
    chat = call("a", form=ArgumentsForm.TEXT, arguments='{"x": 1}')
    run(Ledger(), [span], [chat])
    assert (span.form, span.arguments) == (ArgumentsForm.TEXT, '{"x": 1}')


def test_mcp_ids_are_scoped_by_session_and_may_be_used_again() -> None:
    one, two = McpSession("s1"), McpSession("s2")
    a = call("1", Hop.MCP, session=one)
    b = call("1", Hop.MCP, session=two)
    c = call("1", Hop.MCP, session=one)  # used again once answered: a new call
    steps = run(
        Ledger(),
        [a],
        [b],
        [result("1", Hop.MCP, session=one)],
        [c],
        [result("1", Hop.MCP, session=two), result("1", Hop.MCP, session=one)],
    )
    assert [x for s in steps for x in s] == [a, b, c]
    assert all(x.result is not None for x in (a, b, c))
    assert a.result is not c.result


def test_an_mcp_id_used_again_while_unanswered_closes_the_first() -> None:
    session = McpSession("s")
    a, b = call("1", Hop.MCP, session=session), call("1", Hop.MCP, session=session)
    steps = run(Ledger(), [a], [b], [result("1", Hop.MCP, session=session)])
    assert steps[1] == [a] and a.result is None
    assert steps[2] == [b] and b.result is not None


def test_events_keep_their_place_among_calls() -> None:
    a = call("a")
    event = TraceEvent(EventKind.LIST_CHANGED, Source("f"))
    b = call(None)
    steps = run(Ledger(), [a], [event, b], [result("a")])
    assert steps == [[], [], [a, event, b], []]


def test_a_call_without_id_never_waits() -> None:
    lone = call(None)
    assert run(Ledger(), [lone])[0] == [lone]


def test_the_time_a_call_was_made_starts_its_result() -> None:
    a, answer = call("a", time=100.0), result("a", ended=100.25)
    run(Ledger(), [a], [answer])
    assert answer.started == 100.0 and answer.duration_ms == 250.0


def test_bad_bounds_are_refused() -> None:
    with pytest.raises(ValueError):
        Ledger(window=-1)
    with pytest.raises(ValueError):
        Ledger(limit=0)


def test_calls_stop_waiting_where_the_first_window_held_no_result() -> None:
    ledger = Ledger(window=2)
    calls = [call(str(i)) for i in range(5)]
    steps = run(ledger, *([c] for c in calls))
    # the first two wait out the window; from then on the trace is taken for calls alone
    assert steps == [[], [], [calls[0]], [calls[1], calls[2], calls[3]], [calls[4]], []]


def test_a_hop_with_results_keeps_waiting() -> None:
    ledger = Ledger(window=2)
    a, b, c = call("a"), call("b"), call("c")
    steps = run(ledger, [a, result("a")], [], [], [b], [], [result("b")], [c])
    assert steps[0] == [a] and steps[5] == [b] and b.result is not None
    assert steps[6] == [] and steps[7] == [c]


def test_a_second_sighting_that_brings_the_result_releases_the_call() -> None:
    first, again = call("a"), call("a", result=result("a"))
    steps = run(Ledger(), [result("z")], [first], [again])
    assert steps[2] == [first] and first.result is again.result


def test_a_call_that_brings_its_result_shows_the_hop_carries_results() -> None:
    """An OpenTelemetry export: a chat span's call, then the execute-tool span of the same
    id with the result. However long the file, each such pair is one call."""
    ledger = Ledger(window=2)
    documents: list[list[Captured]] = []
    for i in range(6):
        documents += [[call(str(i))], [call(str(i), result=result(str(i)))]]
    steps = run(ledger, *documents)
    calls = [c for s in steps for c in s if isinstance(c, ToolCall)]
    assert [c.call_id for c in calls] == [str(i) for i in range(6)]
    assert all(c.result is not None for c in calls)
