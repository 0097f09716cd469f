"""The differential test of call identity: every generated trace (see
:mod:`tests.pipeline.corpus`) is checked on every local path, and each must count every call
exactly once and write the same report.

The paths: the full path and the fast lane, one process and two workers, plain, gzip and
Zstandard files, and a trace of one file followed as it grows (``check --follow``, stopped
once the file is written: what it read by then is the file; Spark is compared in
``tests/test_spark.py``, on one shared session). The
reference is the full path in one process on plain files. The count is the contract's
(:func:`~tests.pipeline.corpus.expected_calls`), and a result that leaks a key is reported
wherever it sits.
"""

from __future__ import annotations

import gzip
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from jsoncontract import Follow
from jsoncontract.api import iter_results
from jsoncontract.business import load_business
from jsoncontract.model import Summary
from jsoncontract.reporters import ReportOptions, render
from jsoncontract.tools import ToolSet
from tests.pipeline import corpus

#: Local paths besides the reference: (lane, jobs, compression).
PATHS = [(True, 1, ""), (False, 2, ""), (True, 2, ""), (True, 1, ".gz"), (False, 1, ".zst")]


class _Sink:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)


@pytest.fixture(autouse=True)
def _small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Parts of a few lines, so that two jobs check a small trace in workers (a trace in one
    part is read in one process)."""
    from jsoncontract.pipeline import runner

    monkeypatch.setattr(runner, "PART_BYTES", 200)


def report(
    paths: list[Path],
    tools: Path,
    rules: Path,
    *,
    fast: bool,
    jobs: int,
    window: int,
    tool: str | None = None,
    dialect: str | None = None,
    capture: bool = False,
    follow: bool = False,
) -> bytes:
    """The JSON report of ``paths`` (file names without their compression suffix);
    ``tool``: the tool of bare bodies; ``dialect``: the dialect every line is read in;
    ``capture``: checked without tools (each call against the tools offered with it);
    ``follow``: the one file followed, the run stopped once it is read."""
    toolset = ToolSet([]) if capture else ToolSet.from_paths([tools])
    summary = Summary()
    results = iter_results(
        paths,
        tools=toolset,
        business=None if capture else load_business([rules], tools=toolset),
        summary=summary,
        fast=fast,
        jobs=jobs,
        window=window,
        tool=tool,
        dialect=dialect,
        follow=_stopped() if follow else None,
    )
    out = _Sink()
    render("check", "json", out, ReportOptions(), summary, results)
    return out.data.replace(b".jsonl.gz", b".jsonl").replace(b".jsonl.zst", b".jsonl")


def _stopped() -> Follow:
    """Following a file that is already written: stopped from the start, it reads what the
    file holds, then ends the run."""
    follow = Follow(poll=0.01)
    follow.stop.set()
    return follow


def compare(trace: corpus.Trace, where: Path) -> dict[str, Any]:
    """Check ``trace`` on every local path; returns the reference report."""
    tools, rules = corpus.write_tools(where)
    plain = where / "plain"
    plain.mkdir()
    window, capture = trace.window, trace.capture
    written = trace.write(plain)
    reference = report(written, tools, rules, fast=False, jobs=1, window=window, capture=capture)
    if len(written) == 1:
        followed = report(
            written, tools, rules, fast=True, jobs=1, window=window, capture=capture, follow=True
        )
        assert followed == reference, "follow"
    for fast, jobs, compression in PATHS:
        folder = where / f"{int(fast)}{jobs}{compression or '.plain'}"
        folder.mkdir()
        paths = trace.write(folder, compression)
        # the same names as the reference's, in another folder
        other = report(paths, tools, rules, fast=fast, jobs=jobs, window=window, capture=capture)
        assert other.replace(str(folder).encode(), str(plain).encode()) == reference, (
            fast,
            jobs,
            compression,
        )
    found: dict[str, Any] = json.loads(reference)
    return found


SETTINGS = settings(
    max_examples=int(os.environ.get("DIFFERENTIAL_EXAMPLES", "40")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=not os.environ.get("DIFFERENTIAL_EXAMPLES"),
    database=None,
)


def _one(trace: corpus.Trace) -> None:
    with tempfile.TemporaryDirectory() as folder:
        found = compare(trace, Path(folder))
    summary = found["summary"]
    assert summary["calls"] == corpus.expected_calls(trace.steps)
    if any(c.result == 2 for s in trace.steps for c in s.calls):
        # a result the tool saw is checked, wherever it sits
        assert summary["by_code"].get("result.secret", 0) > 0
    assert corpus._STRIPE not in json.dumps(found)  # and its secret is never shown


@SETTINGS
@given(corpus.traces())
def test_every_path_counts_every_call_once_and_reports_the_same(trace: corpus.Trace) -> None:
    _one(trace)


@pytest.mark.parametrize("shape", sorted(corpus.SHAPES))
def test_every_shape_among_others(shape: str) -> None:
    """A few traces that hold each shape, so that every shape is checked whatever the
    draw (and whichever worker runs the draws of other tests)."""
    seen: set[str] = set()

    @settings(SETTINGS, max_examples=max(3, SETTINGS.max_examples // 8))
    @given(corpus.traces(max_steps=6, shape=shape))
    def check(trace: corpus.Trace) -> None:
        _one(trace)
        seen.update(s.shape for s in trace.steps)

    check()
    assert shape in seen


@pytest.mark.parametrize("group", ["responses_run", "mcp_run"])
def test_runs_a_dialect_remembers_across_parts(group: str) -> None:
    """Responses and MCP runs cut into parts of a line or two: each part joins the memory
    its file's earlier parts left, or is read again, and every path reports the same."""

    @settings(SETTINGS, max_examples=max(4, SETTINGS.max_examples // 4))
    @given(corpus.traces(max_steps=3, shape=group))
    def check(trace: corpus.Trace) -> None:
        _one(trace)

    check()


@pytest.mark.parametrize("group", ["mcp_session", "conversation"])
def test_traces_with_results_the_lane_reads_for_the_ledger(group: str) -> None:
    """MCP sessions whose requests are answered (at once, later, twice, never, with errors
    and structured content) and Chat conversations whose requests repeat the turns before
    them (edited now and then), among other lines: every path reports the same."""

    @settings(SETTINGS, max_examples=max(6, SETTINGS.max_examples // 2))
    @given(corpus.traces(max_steps=4, shape=group))
    def check(trace: corpus.Trace) -> None:
        _one(trace)

    check()


def test_a_line_of_several_calls_one_a_write_the_gate_records(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A failing call, then a write the business gate keeps a record of, in one line: with
    workers each result keeps its own record (when the lane took such a line whole, the
    failing call's result was handed the write's record, and with it the write's finding).
    Parts of a line each, so that the workers check them."""
    from jsoncontract.pipeline import runner

    monkeypatch.setattr(runner, "PART_BYTES", 64)  # a line a part
    first = corpus.Call("call_1", "pay", {"amount": 5, "idempotency_key": "k1"})
    again = corpus.Call("call_3", "pay", {"amount": 7, "idempotency_key": "k1"})
    steps = [
        corpus.Step("chat_response", (first,), 0, 1),
        corpus.Step("chat_response", (corpus.Call("call_2", "lookup", {"id": -1}), again), 0, 2),
    ]
    _one(corpus.Trace(steps, window=0))


def test_an_mcp_session_with_answers_among_responses_the_lane_takes() -> None:
    """Past the window, Chat responses take the lane while MCP requests wait for their
    answers: the lane leaves every JSON-RPC line (requests, answers, one answered again,
    a reused id) to the full path, and the lines around them are the lane's again."""
    lookup = {"id": 1}
    steps: list[corpus.Step] = []
    for n in range(6):
        steps.append(corpus.Step("chat_response", (corpus.Call(f"call_a{n}", "lookup", lookup),)))
        call = corpus.Call(f"m{n}", "lookup", {"id": -1} if n == 2 else {"id": n + 1}, n % 2)
        steps.append(corpus.Step("mcp_request", (call,), 0, n % 3 + 1))
        steps.append(corpus.Step("mcp_response", (call,), 0, n % 3 + 1))
        if n == 4:
            steps.append(corpus.Step("mcp_response", (call,), 0, n % 3 + 1))
    steps.append(corpus.Step("mcp_request", (corpus.Call("m9", "pay", {"amount": 5}),), 0, 7))
    steps.append(corpus.Step("chat_response", (corpus.Call("call_z", "lookup", lookup),)))
    _one(corpus.Trace(steps, window=0))
    _one(corpus.Trace(steps, window=3))


def test_sessions_and_conversations_among_responses_the_lane_takes() -> None:
    """Past the window, Chat responses of calls alone take the lane; then MCP requests
    answered in the next line, a conversation whose requests repeat the turns before them,
    an answer past the window: the lane reads those for the ledger, and every path reports
    the same."""
    lookup = {"id": 1}
    steps = [
        corpus.Step("chat_response", (corpus.Call(f"call_a{n}", "lookup", lookup),), 0, n)
        for n in range(6)
    ]
    history: list[corpus.Call] = []
    for n in range(6):
        call = corpus.Call(f"m{n}", "lookup", {"id": -1} if n == 2 else {"id": n + 1}, n % 3)
        steps.append(corpus.Step("mcp_request", (call,), 0, n % 3 + 1))
        shape = "mcp_structured" if n % 2 else "mcp_response"
        if n != 4:
            steps.append(corpus.Step(shape, (call,), 0, n % 3 + 1))
        turn = corpus.Call(f"call_h{n}", "lookup", {"id": n % 3 - 1})
        steps.append(corpus.Step("chat_response", (turn,), 0, f"h{n}"))
        history.append(corpus.Call(turn.call_id, turn.tool, turn.arguments, (n + 2) % 3))
        steps.append(corpus.Step("chat_request", tuple(history), 0))
    steps.append(corpus.Step("mcp_response", (corpus.Call("m4", "lookup", {"id": 5}, 2),), 0, 2))
    steps.append(corpus.Step("chat_response", (corpus.Call("call_z", "lookup", lookup),), 0, "z"))
    for window in (0, 3, 1024):
        _one(corpus.Trace(steps, window=window))


#: Bare bodies of ``lookup`` (read with ``--tool lookup``), and lines among them that are not
#: plain bodies: another dialect's call, a record, a batch line, a duplicate key, a number
#: past 64 bits, bodies that are no object, a body of ``pay`` by a record.
BODIES = [
    '{"id": 1}',
    '{"id": -1}',
    '{"id": "x"}',
    '{"id": 2, "extra": true}',
    '{"id": 1}',
    '{"name": "lookup", "args": {"id": 3}}',
    '{"hop": "downstream", "tool": "pay", "payload": {"amount": 5, "idempotency_key": "k1"}}',
    '{"hop": "downstream", "tool": "pay", "payload": {"amount": 6, "idempotency_key": "k1"}}',
    '{"custom_id": "r1", "id": 1}',
    '{"id": 1, "id": 2}',
    '{"id": 123456789012345678901234567890}',
    "[1, 2]",
    '"text"',
    "7",
    "{}",
    '{"id": 4, "role": "user"}',
]


@pytest.mark.parametrize("dialect", [None, "downstream"])
def test_bare_bodies_are_the_same_on_every_path(tmp_path: Path, dialect: str | None) -> None:
    """A trace of bare bodies, checked with a tool named: the lane reads an object no
    dialect claims as the tool's body (every object, with ``--dialect downstream``), and
    every path writes the same report."""
    tools, rules = corpus.write_tools(tmp_path)
    lines = [BODIES[i % len(BODIES)] for i in range(200)]
    reports = []
    for fast, jobs, compression in [(False, 1, ""), *PATHS]:
        folder = tmp_path / f"{int(fast)}{jobs}{compression or '.plain'}"
        folder.mkdir()
        path = folder / f"bodies.jsonl{compression}"
        data = "\n".join(lines).encode() + b"\n"
        if compression == ".gz":
            data = gzip.compress(data)
        elif compression == ".zst":
            import zstandard

            data = zstandard.ZstdCompressor().compress(data)
        path.write_bytes(data)
        found = report(
            [path], tools, rules, fast=fast, jobs=jobs, window=0, tool="lookup", dialect=dialect
        )
        reports.append(found.replace(str(folder).encode(), b"F"))
    assert all(r == reports[0] for r in reports[1:])
    summary = json.loads(reports[0])["summary"]
    assert summary["calls"] == 200  # one a line (a batch line that is no batch's is a body)
    assert summary["ok"] > 20
