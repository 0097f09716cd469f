"""Joinable dialect memories (:class:`~jsoncontract.capture.interface.JoinableState`): a part
of a file read from a fresh, watched memory, then joined onto the memory the file's earlier
lines left, reads exactly as the file read in one go, or does not join.

Each generated file of Responses or MCP lines is cut in three: the first cut is read from a
fresh memory, the middle one from another fresh memory that watches, and, when the first's
memory joins the middle's, the last cut is read on from the joined memory. Everything read
(through the fast lane where it takes a line) and the memory at the end must be what one
memory gives reading the whole file. The memories of MCP ids are cut to a bound of three,
so that parts push ids out of them.
"""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jsoncontract.capture import mcp
from jsoncontract.capture.ledger import Ledger
from jsoncontract.capture.mcp import McpState
from jsoncontract.capture.openai_responses import ResponsesStream
from jsoncontract.capture.reader import CaptureReader
from jsoncontract.model import CallResult, PassedCall, ToolCall, TraceEvent
from jsoncontract.pipeline.checker import Checker
from jsoncontract.pipeline.fast import build_lane
from jsoncontract.tools import ToolSet
from tests.pipeline import corpus

FILE = "trace.jsonl"
ARGUMENTS = ('{"id": 1}', '{"id": 2}', '{"id": -1}')


@pytest.fixture(scope="module")
def lane_and_reader(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, CaptureReader]:
    tools_file, _ = corpus.write_tools(tmp_path_factory.mktemp("tools"))
    checker = Checker(ToolSet.from_paths([tools_file]))
    reader = CaptureReader()
    return build_lane(checker, reader), reader


# -- the lines --------------------------------------------------------------------------------


def _item(n: int, arguments: str) -> dict[str, Any]:
    return {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"call_{n}",
        "name": "lookup",
        "arguments": arguments,
    }


@st.composite
def responses_line(draw: st.DrawFn) -> dict[str, Any]:
    """A whole response, a request's history, or a stream event, of a few item ids (so
    that items are produced again, within a cut and across cuts)."""
    kind = draw(st.sampled_from(["response", "response", "history", "stream"]))
    if kind == "response":
        items = draw(st.lists(st.tuples(st.integers(0, 5), st.sampled_from(ARGUMENTS)), max_size=2))
        return {
            "object": "response",
            "id": f"resp_{draw(st.integers(0, 3))}",
            "output": [_item(n, a) for n, a in items],
        }
    if kind == "history":
        n, arguments = draw(st.integers(0, 5)), draw(st.sampled_from(ARGUMENTS))
        return {"model": "gpt-5-mini", "input": [_item(n, arguments)]}
    n, arguments = draw(st.integers(0, 5)), draw(st.sampled_from(ARGUMENTS))
    event = draw(st.sampled_from(["created", "added", "delta", "done", "item_done"]))
    if event == "created":
        return {"type": "response.created", "response": {"id": f"resp_s{n}"}}
    if event == "added":
        return {"type": "response.output_item.added", "item": {**_item(n, ""), "arguments": ""}}
    if event == "delta":
        return {
            "type": "response.function_call_arguments.delta",
            "item_id": f"fc_{n}",
            "delta": "{",
        }
    if event == "done":
        return {
            "type": "response.function_call_arguments.done",
            "item_id": f"fc_{n}",
            "arguments": arguments,
        }
    return {"type": "response.output_item.done", "item": _item(n, arguments)}


@st.composite
def mcp_line(draw: st.DrawFn) -> dict[str, Any]:
    """A tools/call request or its answer, another request or its answer, or a session
    message, of a few JSON-RPC ids (``1`` and ``"1"`` are two)."""
    number = draw(st.integers(1, 6))
    request_id: Any = draw(st.sampled_from([number, str(number)]))
    kind = draw(
        st.sampled_from(
            ["call", "call", "call", "answer", "ping", "empty", "initialize", "changed", "list"]
        )
    )
    if kind == "call":
        arguments = json.loads(draw(st.sampled_from(ARGUMENTS)))
        params = {"name": "lookup", "arguments": arguments}
        return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}
    if kind == "answer":
        result = {"content": [{"type": "text", "text": "ok"}], "isError": False}
        return {"jsonrpc": "2.0", "id": request_id, "result": result}
    if kind == "ping":
        return {"jsonrpc": "2.0", "id": request_id, "method": "ping", "params": {}}
    if kind == "empty":  # the answer to a ping, or to a call (then a malformed result)
        return {"jsonrpc": "2.0", "id": request_id, "result": {}}
    if kind == "initialize":
        return {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": {}}
    if kind == "changed":
        return {"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": {}}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": {}}


def _numbered(lines: list[dict[str, Any]], first: int) -> list[tuple[int, bytes]]:
    return [(first + i, json.dumps(line).encode()) for i, line in enumerate(lines)]


# -- reading ----------------------------------------------------------------------------------


def _read(
    reader: CaptureReader, lane: Any, state: Any, lines: list[tuple[int, bytes]]
) -> list[Any]:
    return [_view(item) for item in reader.read_lines(FILE, lines, state, lane, last=False)]


def _view(item: Any) -> Any:
    """What a report says of an item read (a call's session and turn too)."""
    if isinstance(item, PassedCall):
        item = item.result()
    if isinstance(item, CallResult):
        return (item.to_dict(), item.call.session, item.call.turn, item.call.sighting)
    if isinstance(item, ToolCall):
        return repr(item)
    assert isinstance(item, TraceEvent)
    return repr(item)


def _memory(state: Any) -> Any:
    """What a dialect memory holds, comparably (sets as sets, ordered memories in order)."""
    if isinstance(state, ResponsesStream):
        return (state.emitted, state.calls.opened(), state.turn)
    if isinstance(state, McpState):
        return (
            state._session,
            state._count,
            state._used,
            state._pages,
            list(state._calls.items()),
            list(state._methods.items()),
        )
    return pickle.dumps(state)


def _cut_in_three(
    reader: CaptureReader, lane: Any, lines: list[dict[str, Any]], cuts: tuple[int, int]
) -> bool:
    """Read ``lines`` whole, and cut at ``cuts`` with the middle joined; assert they read
    the same when the middle joins. Returns whether it joined."""
    one, two = sorted(cuts)
    numbered = _numbered(lines, 1)
    whole = reader.new_state(_alone(), [])
    expected = _read(reader, lane, whole, numbered)

    ledger = _alone()
    run = reader.new_state(ledger, [])
    got = _read(reader, lane, run, numbered[:one])
    part = reader.new_state(ledger, [])
    part.watch(True)
    got += _read(reader, lane, part, numbered[one:two])
    memory = part.memory()
    assert memory is not None
    theirs = run.joins(memory, reader.dialects)
    if theirs is None:
        return False
    run.absorb(theirs, reader.dialects)
    got += _read(reader, lane, run, numbered[two:])
    assert got == expected
    assert [_memory(s) for s in run.states] == [_memory(s) for s in whole.states]
    return True


def _alone() -> Ledger:
    """A ledger past its first window with no result: calls leave at once (as every part
    but the first starts), so that the lane takes lines."""
    ledger = Ledger(window=0)
    ledger.assume_alone()
    return ledger


SETTINGS = settings(
    max_examples=200,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
TALLY: dict[str, list[bool]] = {"responses": [], "mcp": []}


@SETTINGS
@given(st.lists(responses_line(), max_size=14), st.tuples(st.integers(0, 14), st.integers(0, 14)))
def test_a_responses_part_that_joins_reads_as_in_one_go(
    lane_and_reader: tuple[Any, CaptureReader],
    lines: list[dict[str, Any]],
    cuts: tuple[int, int],
) -> None:
    lane, reader = lane_and_reader
    TALLY["responses"].append(_cut_in_three(reader, lane, lines, cuts))


@SETTINGS
@given(st.lists(mcp_line(), max_size=14), st.tuples(st.integers(0, 14), st.integers(0, 14)))
def test_an_mcp_part_that_joins_reads_as_in_one_go(
    lane_and_reader: tuple[Any, CaptureReader],
    monkeypatch: pytest.MonkeyPatch,
    lines: list[dict[str, Any]],
    cuts: tuple[int, int],
) -> None:
    lane, reader = lane_and_reader
    with monkeypatch.context() as patched:
        patched.setattr(mcp, "_REMEMBERED", 3)
        TALLY["mcp"].append(_cut_in_three(reader, lane, lines, cuts))


def test_the_draws_joined_and_refused() -> None:
    """Runs after the tests above (same module, in order): both outcomes came up often."""
    for name, outcomes in TALLY.items():
        if outcomes:
            assert outcomes.count(True) > len(outcomes) // 5, name
            assert outcomes.count(False) > len(outcomes) // 20, name


# -- what refuses a join ----------------------------------------------------------------------


def _states(reader: CaptureReader, lines: list[dict[str, Any]], *, watch: bool) -> Any:
    state = reader.new_state(_alone(), [])
    state.watch(watch)
    _read(reader, None, state, _numbered(lines, 1))
    return state


def _joins(
    reader: CaptureReader, before: list[dict[str, Any]], after: list[dict[str, Any]]
) -> bool:
    run = _states(reader, before, watch=False)
    memory = _states(reader, after, watch=True).memory()
    return run.joins(memory, reader.dialects) is not None


def test_an_item_produced_before_refuses(lane_and_reader: tuple[Any, CaptureReader]) -> None:
    _, reader = lane_and_reader
    first = {"object": "response", "id": "r1", "output": [_item(1, '{"id": 1}')]}
    other = {"object": "response", "id": "r2", "output": [_item(2, '{"id": 1}')]}
    assert _joins(reader, [first], [other])
    assert not _joins(reader, [first], [other, first])  # skipped in one go: read again
    # the same item id with other arguments is another item: it joins
    edited = {"object": "response", "id": "r3", "output": [_item(1, '{"id": 2}')]}
    assert _joins(reader, [first], [edited])


def test_a_stream_open_at_the_cut_refuses(lane_and_reader: tuple[Any, CaptureReader]) -> None:
    _, reader = lane_and_reader
    opened = {"type": "response.output_item.added", "item": {**_item(1, ""), "arguments": ""}}
    whole = {"object": "response", "id": "r2", "output": [_item(2, '{"id": 1}')]}
    assert not _joins(reader, [opened], [whole])
    created = {"type": "response.created", "response": {"id": "r1"}}
    done = {"type": "response.output_item.done", "item": _item(3, '{"id": 1}')}
    assert not _joins(reader, [created], [done])  # its turn was the run's response
    assert _joins(reader, [created], [created, done])


def test_an_mcp_answer_or_id_of_the_run_refuses(
    lane_and_reader: tuple[Any, CaptureReader],
) -> None:
    _, reader = lane_and_reader

    def call(request_id: Any) -> dict[str, Any]:
        params = {"name": "lookup", "arguments": {"id": 1}}
        return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}

    assert _joins(reader, [call(1)], [call(2), call("1")])  # 1 and "1" are two ids
    assert not _joins(reader, [call(1)], [call(1)])  # an id of the run remembered again
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    empty = {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert not _joins(reader, [call(1)], [empty])  # the run knows what it answers
    assert not _joins(reader, [ping], [empty])
    assert _joins(reader, [call(1)], [call(2)])
    initialize = {"jsonrpc": "2.0", "id": 9, "method": "initialize", "params": {}}
    assert not _joins(reader, [call(1)], [initialize])  # a second session in one go
    assert _joins(reader, [], [initialize])


def test_a_memory_without_joins_refuses_unless_fresh(tmp_path: Path) -> None:
    """A dialect memory that is not joinable (an Anthropic stream) joins only when fresh."""
    reader = CaptureReader()
    start = {"type": "message_start", "message": {"id": "msg_1", "content": []}}
    block = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {}},
    }
    assert not _joins(reader, [start, block], [])
    assert _joins(reader, [], [start, block])
