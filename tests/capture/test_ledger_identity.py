"""The ledger's call identity, piece by piece: how arguments and results are compared, what
is remembered and for how long, and how a part of a run read on its own replays on the
run's ledger."""

from __future__ import annotations

import json
from typing import Any

import pytest

from jsoncontract.capture import ledger as L
from jsoncontract.capture.ledger import Ledger, Released, StepLog
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
    tool = kw.pop("tool", "t")
    source = kw.pop("source", Source("f", kw.pop("line", None)))
    return ToolCall(hop, "d", tool, call_id, kw.pop("arguments", {}), form, source, **kw)


def result(call_id: str | None, hop: Hop = Hop.MODEL, **kw: Any) -> ToolResult:
    return ToolResult(hop, "d", call_id, kw.pop("source", Source("r")), **kw)


def run(ledger: Ledger, *documents: list[Captured]) -> list[Released]:
    """Everything that leaves, in order."""
    out: list[Released] = []
    for items in documents:
        ledger.add(items, out)
    ledger.flush(out)
    return out


def events(out: list[Released]) -> list[EventKind]:
    return [e.kind for e in out if isinstance(e, TraceEvent)]


def calls(out: list[Released]) -> list[ToolCall]:
    return [c for c in out if isinstance(c, ToolCall)]


# -- comparing arguments and results ---------------------------------------------------------


def test_canonical_sorts_keys_and_drops_spaces() -> None:
    assert L.canonical({"b": 1, "a": [1, 2]}) == b'{"a":[1,2],"b":1}'
    assert L.canonical({"n": 2**70}) == b'{"n":1180591620717411303424}'  # past 64 bits
    assert L.canonical({"b": 1, "a": {"n": 2**70}}) == b'{"a":{"n":1180591620717411303424},"b":1}'
    deep: Any = 1
    for _ in range(5000):
        deep = [deep]
    one, two = L.canonical(deep), L.canonical([deep])
    assert one.startswith(b"\x01") and one != two  # too deep: a mark equal to no other


def test_canonical_text_reads_the_json_a_text_holds() -> None:
    assert L._canonical_text('{ "b" : 1 , "a" : 2 }') == b'{"a":2,"b":1}'
    assert L._canonical_text('{"n": 12345678901234567890123}') == b'{"n":12345678901234567890123}'
    assert L._canonical_text("not json") == b"\x00not json"
    assert L._canonical_text("[" * 100_000) == b"\x00" + b"[" * 100_000


def test_arguments_are_compared_as_json_values() -> None:
    short = call("a", form=ArgumentsForm.TEXT, arguments='{"x": 1, "y": 2}')
    assert L.arguments_mark(short) == '{"x": 1, "y": 2}'  # short: the text itself
    spaced = L.text_mark('{ "y" : 2 , "x" : 1 }')
    assert L.same_arguments(L.arguments_mark(short), spaced)
    assert not L.same_arguments(L.arguments_mark(short), L.text_mark('{"x": 1, "y": 3}'))
    value = call("a", arguments={"y": 2, "x": 1})
    assert L.same_arguments(L.arguments_mark(value), L.arguments_mark(short))
    long_text = json.dumps({"x": "a" * L.SHORT})
    long_mark = L.text_mark(long_text)
    assert isinstance(long_mark, bytes) and len(long_mark) == 16  # long: a digest
    assert L.same_arguments(long_mark, L.arguments_mark(call("a", arguments=json.loads(long_text))))
    assert L.text_mark("x" * L.SHORT) == "x" * L.SHORT
    assert isinstance(L.text_mark("x" * (L.SHORT + 1)), bytes)
    unrecorded = call("a", form=ArgumentsForm.UNRECORDED, arguments=None)
    assert L.arguments_mark(unrecorded) is None
    assert L.same_arguments(None, spaced) and L.same_arguments(spaced, None)
    long_call = call("a", form=ArgumentsForm.TEXT, arguments=long_text)
    assert L.arguments_mark(long_call) == long_mark


def test_results_are_compared_by_what_they_say() -> None:
    text = result("a", content='{"ok": true, "n": 1}')
    same = result("a", content={"n": 1, "ok": True}, is_error=False)  # the value, another place
    assert L.result_mark(text) == L.result_mark(same)
    assert L.result_mark(text) != L.result_mark(result("a", content='{"ok": false}'))
    structured = result("a", content=[], structured_content={"n": 1}, present_structured=True)
    assert L.result_mark(structured) != L.result_mark(result("a", content=[]))
    failing = result("a", content=[], error={"code": -1})
    assert L.result_mark(failing) != L.result_mark(result("a", content=[]))
    assert len(L.result_mark(text)) == 16


def test_a_result_that_records_nothing() -> None:
    assert L.unrecorded(result("a"))
    assert not L.unrecorded(result("a", content=""))
    assert not L.unrecorded(result("a", structured_content=None, present_structured=True))
    assert not L.unrecorded(result("a", error={"code": 1}))
    assert not L.unrecorded(result("a", is_error=True))
    assert L.unrecorded(result("a", is_error=False))
    from jsoncontract.model import Finding, Severity

    broken = result("a", load_findings=[Finding("result.malformed", Severity.ERROR, "x")])
    assert not L.unrecorded(broken)


def test_keys() -> None:
    session = McpSession("s")
    assert L.result_key(result("a")) == "a"
    assert L.result_key(result(None)) is None
    assert L.result_key(result("1", Hop.MCP, session=session)) == ("mcp", "s", "1")
    typed = result("1", Hop.MCP, session=session, sighting="int:1")
    assert L.result_key(typed) == ("mcp", "s", "int:1")
    assert L.result_key(result("1", Hop.DOWNSTREAM)) == ("downstream", None, "1")
    assert L._key(None, None, "x") == ("", None, "x")


# -- one call, several sightings ----------------------------------------------------------------


def test_the_same_call_again_is_one_call_and_another_is_a_reuse() -> None:
    a1, a2 = call("a", arguments={"x": 1}, line=1), call("a", arguments={"x": 1}, line=2)
    other = call("a", arguments={"x": 2}, line=3)
    tool = call("a", tool="u", arguments={"x": 1}, line=4)
    out = run(Ledger(), [a1], [a2], [other], [tool])
    assert calls(out) == [a1, other, tool]
    reused = [e for e in out if isinstance(e, TraceEvent)]
    assert [e.kind for e in reused] == [EventKind.REUSED_CALL_ID] * 2
    assert reused[0].call is other and reused[0].earlier == Source("f", 1)
    assert reused[1].call is tool and reused[1].earlier == Source("f", 3)


def test_a_reuse_after_the_first_left_names_where_it_was() -> None:
    first = call("a", arguments={"x": 1}, line=1)
    again = call("a", arguments={"x": 2}, line=9)
    out = run(Ledger(window=0), [first], [again])
    (event,) = [e for e in out if isinstance(e, TraceEvent)]
    assert event.earlier == Source("f", 1) and event.call is again
    assert calls(out) == [first, again]


def test_a_third_sighting_like_the_first_is_the_first() -> None:
    one, two, three = (call("a", arguments={"x": n}) for n in (1, 2, 1))
    assert calls(run(Ledger(), [one], [two], [three])) == [one, two]
    assert calls(run(Ledger(window=0), [one], [two], [three])) == [one, two]


def test_a_later_sighting_brings_its_result() -> None:
    first = call("a")
    again = call("a", result=result("a", content="ok"))
    out = run(Ledger(), [result("z", content="x")], [first], [again])
    assert calls(out) == [first] and first.result is again.result
    # once left, it comes as a late result; the same again is dropped; another conflicts
    first = call("a")
    late = call("a", result=result("a", content="ok"))
    repeat = call("a", result=result("a", content="ok"))
    other = call("a", result=result("a", content="no"))
    out = run(Ledger(window=0), [first], [late], [repeat], [other])
    assert calls(out) == [first]
    assert events(out) == [EventKind.LATE_RESULT, EventKind.CONFLICTING_RESULT]
    assert first.result is None


def test_a_second_result_while_the_call_is_held() -> None:
    first = call("a")
    out = run(
        Ledger(),
        [result("z", content="x")],
        [first],
        [result("a", content="ok")],
        [result("a", content="ok")],
        [result("a", content="other")],
    )
    assert first.result is not None and first.result.content == "ok"
    assert EventKind.CONFLICTING_RESULT in events(out)
    assert events(out).count(EventKind.CONFLICTING_RESULT) == 1


def test_results_before_their_call() -> None:
    first = call("a")
    out = run(
        Ledger(),
        [result("a", content="ok")],
        [result("a", content="ok")],
        [result("a", content="no")],
        [first],
    )
    assert first.result is not None and first.result.content == "ok"
    assert events(out) == [EventKind.CONFLICTING_RESULT]
    # a result that records nothing waiting is replaced by one that does
    second = call("b")
    run(Ledger(), [result("b")], [result("b", content="ok")], [second])
    assert second.result is not None and second.result.content == "ok"
    third = call("c")
    run(Ledger(), [result("c", content="ok")], [result("c")], [third])
    assert third.result is not None and third.result.content == "ok"


def test_a_result_that_records_nothing_is_completed() -> None:
    bare = result("a", started=1.0, ended=2.0)
    span = call("a", result=bare)
    told = result("a", content="ok")
    out = run(Ledger(), [span], [told])
    assert span.result is told and (told.started, told.ended) == (1.0, 2.0)
    assert not events(out)
    # the other way round: nothing to add, no conflict
    span = call("b", result=result("b", content="ok"))
    out = run(Ledger(), [span], [result("b")])
    assert span.result is not None and span.result.content == "ok" and not events(out)
    # and a sighting that records nothing after the call left is no second answer
    first = call("c", result=result("c", content="ok"))
    out = run(Ledger(window=0), [first], [call("c", result=result("c"))])
    assert not events(out)


def test_a_held_call_completed_by_a_later_sighting_keeps_its_own_times() -> None:
    first = call("a", time=5.0)
    again = call("a", result=result("a", content="ok"), time=7.0)
    run(Ledger(), [result("z", content="x")], [first], [again])
    assert first.result is again.result and first.time == 5.0
    assert first.result is not None and first.result.started is None
    untimed = call("b")
    run(Ledger(), [result("z", content="x")], [untimed], [call("b", time=3.0)])
    assert untimed.time == 3.0


def test_an_answer_attached_starts_at_the_call() -> None:
    first = call("a", time=5.0)
    answer = result("a", content="ok")
    run(Ledger(), [result("z", content="x")], [first], [answer])
    assert answer.started == 5.0
    timed = result("b", content="ok", started=1.0)
    second = call("b", time=5.0)
    run(Ledger(), [result("z", content="x")], [second], [timed])
    assert timed.started == 1.0


def test_mcp_answers() -> None:
    session = McpSession("s")
    one = call("1", Hop.MCP, session=session)
    answers = [result("1", Hop.MCP, session=session, content=[]) for _ in range(3)]
    out = run(Ledger(), [one], [answers[0]], [answers[1]])
    assert one.result is answers[0] and events(out) == [EventKind.ORPHAN_RESULT]
    # in a history, a repeat is no orphan
    two = call("2", Hop.MCP, session=session)
    repeat = result("2", Hop.MCP, session=session, content=[], in_history=True)
    out = run(Ledger(), [two], [result("2", Hop.MCP, session=session, content=[])], [repeat])
    assert not events(out)
    # left: late, then an orphan; a history's repeat after it left is dropped
    three = call("3", Hop.MCP, session=session)
    late = result("3", Hop.MCP, session=session, content=[])
    again = result("3", Hop.MCP, session=session, content=[], in_history=True)
    out = run(Ledger(window=0), [result("0", Hop.MCP, session=session)], [three], [late], [again])
    assert events(out)[-1:] == [EventKind.LATE_RESULT]


def test_a_late_result_names_its_tool() -> None:
    first = call("a", tool="lookup")
    late = result("a", content="ok")
    run(Ledger(window=0), [first], [late])
    assert late.tool == "lookup"
    named = result("b", content="ok", tool="own")
    run(Ledger(window=0), [call("b", tool="lookup")], [named])
    assert named.tool == "own"


def test_a_result_before_calls_alone_waits_at_the_model_hop_only() -> None:
    session = McpSession("s")
    # the model hop: taken for calls alone, a result still waits for its call
    out = run(Ledger(window=1), [call("x")], [call("y")], [result("a", content="ok")], [call("a")])
    assert [c.call_id for c in calls(out)] == ["x", "y", "a"]
    assert calls(out)[2].result is not None
    # the MCP hop: calls alone pass unremembered, so a result for them is late
    out = run(
        Ledger(window=0),
        [call("x", Hop.MCP, session=session)],
        [result("1", Hop.MCP, session=session, content=[])],
    )
    assert events(out) == [EventKind.LATE_RESULT]


# -- memory -------------------------------------------------------------------------------


def test_keys_are_remembered_in_two_generations() -> None:
    ledger = Ledger(window=0, remembered=2)
    first = [call(str(n)) for n in range(3)]
    run(ledger, *([c] for c in first))
    assert set(ledger._seen) | set(ledger._older) == {"0", "1", "2"}
    run(ledger, [call("3")], [call("4")])
    assert "0" in ledger._older
    run(ledger, [call("5")])
    assert "0" not in ledger._seen and "0" not in ledger._older  # forgotten
    again = call("0")
    assert calls(run(ledger, [again])) == [again]  # a sighting of a forgotten call counts


def test_a_key_used_again_in_the_newer_generation_moves_there() -> None:
    ledger = Ledger(window=0, remembered=2)
    run(ledger, [call("a")], [call("b")], [call("c")])  # a and b rotated out of the newer
    assert "a" in ledger._older
    run(ledger, [call("a", arguments={"x": 2})])
    assert "a" in ledger._seen and "a" not in ledger._older
    assert ledger._records("a") is not None and len(ledger._records("a")) == 2


def test_a_key_names_at_most_per_key_calls() -> None:
    ledger = Ledger(window=0)
    run(ledger, *([call("a", arguments={"n": n})] for n in range(L.PER_KEY + 3)))
    records = ledger._records("a")
    assert records is not None and len(records) == L.PER_KEY
    assert records[-1][L._ARGS] is not None and records[0] != records[-1]


def test_fresh_remembers_a_new_call_and_refuses_a_known_one() -> None:
    ledger = Ledger(window=0)
    ledger.assume_alone()
    assert ledger.passing
    assert ledger.fresh("a", "t", '{"x": 1}', "f", 3)
    assert not ledger.fresh("a", "t", '{"x": 1}', "f", 4)
    assert ledger._seen["a"] == ("t", '{"x": 1}', "f", 3, None)
    # the same call on the full path is then one call
    assert calls(run(ledger, [call("a", form=ArgumentsForm.TEXT, arguments='{"x":1}')])) == []
    held = Ledger()
    run(held, [result("z", content="x")], [call("b")])
    assert not held.fresh("q", "t", "{}", "f", 1) or "q" in held._seen


def test_a_held_key_is_not_fresh() -> None:
    ledger = Ledger()
    out: list[Released] = []
    ledger.add([result("z", content="x")], out)
    ledger.add([call("a")], out)
    assert ledger._classify("a", "t", None) == L._OTHER
    assert not ledger.fresh("a", "t", "{}", "f", 1)


# -- parts read on their own -----------------------------------------------------------------


def test_a_part_replays_on_the_runs_ledger() -> None:
    part = StepLog(window=0)
    part.assume_alone()
    a, b = call("a", arguments={"x": 1}), call("b")
    run(part, [a], [b], [call("a", arguments={"x": 1})])
    assert part.clean and part.steps
    assert _kinds(part.steps) == [L._UNSEEN, L._REMEMBER, L._UNSEEN, L._REMEMBER, L._SAME]
    runs = Ledger(window=0)
    runs.assume_alone()
    assert runs.settled
    assert runs.replay(part.steps)
    assert set(runs._seen) == {"a", "b"}
    # a run that saw "a" with other arguments would have reported a reuse: no replay
    other = Ledger(window=0)
    other.assume_alone()
    run(other, [call("a", arguments={"x": 9})])
    before = dict(other._seen)
    assert not other.replay(part.steps)
    assert other._seen == before  # unchanged


def test_a_part_that_makes_an_event_is_not_clean() -> None:
    part = StepLog(window=0)
    part.assume_alone()
    run(part, [call("a", arguments={"x": 1})], [call("a", arguments={"x": 2})])
    assert not part.clean
    results = StepLog()
    results.add([result("a", content="x")], [])
    assert not results.clean


def test_plain_is_the_same_state_without_the_log() -> None:
    part = StepLog(window=3)
    run(part, [call("a")], [call("b")])
    plain = part.plain()
    assert type(plain) is Ledger and plain.window == 3 and plain.doc == part.doc
    assert plain._seen is part._seen and plain._expect is part._expect
    steps = len(part.steps)
    run(plain, [call("c")])
    assert len(part.steps) == steps  # the plain one logs nothing


def test_assume_alone_takes_every_hop_for_calls_alone() -> None:
    ledger = Ledger()
    assert not ledger.settled and not ledger.passing
    ledger.assume_alone()
    assert ledger.settled and ledger.passing and not ledger.expects_results
    assert set(ledger._alone) == set(Hop)
    mcp = call("1", Hop.MCP, session=McpSession("s"))
    out: list[Released] = []
    ledger.add([mcp], out)
    assert out == [mcp]  # at once


def test_the_first_window_decides_per_hop() -> None:
    ledger = Ledger(window=1)
    run(ledger, [call("a", result=result("a", content="x"))], [call("b")], [call("c")])
    assert ledger.expects_results and not ledger.passing
    assert ledger._expect["model"] is True and ledger._expect["mcp"] is False
    assert ledger.waiting == 0 and ledger.idle


@pytest.mark.parametrize("window", [-1])
def test_bad_windows(window: int) -> None:
    with pytest.raises(ValueError, match="window"):
        Ledger(window=window)


def _kinds(steps: list[object]) -> list[object]:
    """The kind of each step of a flat step log (see :class:`StepLog`)."""
    sizes = {L._FRESH: 6, L._REMEMBER: 3}
    kinds, i = [], 0
    while i < len(steps):
        kinds.append(steps[i])
        i += sizes.get(steps[i], 4)  # type: ignore[call-overload]
    return kinds


def test_a_part_logs_what_the_lane_asked() -> None:
    """A worker's lane asks its StepLog: each new id is one flat step, a lookup that found
    nothing and a record, replayed as such; a known one is refused and leaves one lookup
    more."""
    part = StepLog(window=0)
    part.assume_alone()
    assert part.fresh("a", "t", '{"x": 1}', "f", 1)
    assert not part.fresh("a", "t", '{"x": 1}', "f", 2)
    assert part.steps == [L._FRESH, "a", "t", '{"x": 1}', "f", 1, L._SAME, "a", "t", None]
    runs = Ledger(window=0)
    runs.assume_alone()
    assert runs.replay(part.steps) and runs._seen["a"] == ("t", '{"x": 1}', "f", 1, None)
    other = Ledger(window=0)
    other.assume_alone()
    assert other.fresh("a", "u", "{}", "g", 9)
    assert not other.replay(part.steps)  # "a" was another call there: read again
    assert other._seen["a"] == ("u", "{}", "g", 9, None)


@pytest.mark.parametrize("older", [False, True])
@pytest.mark.parametrize("several", [False, True])
def test_a_late_answer_is_remembered_for_its_own_call(older: bool, several: bool) -> None:
    """The answer is set on the record of the call it answers, wherever that record is:
    the same answer again is nothing, another is a conflict."""
    ledger = Ledger(window=0, remembered=2)
    first = call("a", arguments={"x": 1})
    documents: list[list[Captured]] = [[first]]
    if several:
        documents.append([call("a", arguments={"x": 2})])
    if older:  # two more keys move "a" into the older generation
        documents += [[call("b")], [call("c")]]
        if several:
            documents += [[call("d")]]
    run(ledger, *documents)
    assert ("a" in ledger._older) is older
    late = call("a", arguments={"x": 1}, result=result("a", content="ok"))
    out = run(ledger, [late])
    assert events(out) == [EventKind.LATE_RESULT]
    records = ledger._records("a")
    assert records is not None
    answered = [r for r in records if r[L._ANSWER] is not None]
    assert len(answered) == 1 and answered[0][L._ARGS] is not None
    assert events(run(ledger, [late])) == []
    again = call("a", arguments={"x": 1}, result=result("a", content="no"))
    assert events(run(ledger, [again])) == [EventKind.CONFLICTING_RESULT]
