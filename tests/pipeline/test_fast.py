"""The fast lane gives the same results as the full path, line for line and byte for byte.

Every line below is checked twice, with the lane and without it; the JSON reports must be
identical. The lines are the common case and, around it, each thing the lane must not take
for it: what orjson hides (duplicate keys, big integers, lone surrogates, escapes), shapes
one step away from the common one, unknown tools, invalid arguments, and calls the business
gate has something to say about.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from jsoncontract.api import iter_check, iter_results
from jsoncontract.business import BusinessRules
from jsoncontract.business.idempotency import IdempotencySettings
from jsoncontract.capture.reader import CaptureReader
from jsoncontract.errors import InputError
from jsoncontract.model import PassedCall, Summary
from jsoncontract.pipeline.checker import Checker
from jsoncontract.pipeline.fast import build_lane
from jsoncontract.reporters import ReportOptions, render
from jsoncontract.tools import ToolSet
from tests.conftest import FIXTURES, same
from tests.pipeline import corpus

TOOLS = ToolSet.from_paths([FIXTURES / "tools"])
GOOD = {"city": "Oslo"}
_IDS = itertools.count(1)
_FRESH: Any = object()


def completion(
    arguments: Any = None, *, name: str = "get_weather", call_id: Any = _FRESH, **top: Any
) -> dict[str, Any]:
    """A completion with one call, of an id of its own unless ``call_id`` is given (one id
    seen twice with the same tool and arguments is one call seen in two places)."""
    if call_id is _FRESH:
        call_id = f"call_{next(_IDS)}"
    text = json.dumps(GOOD if arguments is None else arguments)
    doc: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "gpt-4.1",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": text},
                        }
                    ],
                },
            }
        ],
    }
    doc.update(top)
    return doc


def line(doc: Any) -> str:
    return json.dumps(doc, separators=(",", ":"))


def raw_arguments(text: str, **kw: Any) -> str:
    """A completion whose arguments text is exactly ``text``."""
    doc = completion(**kw)
    doc["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = text
    return line(doc)


def _lines() -> list[str]:
    two_calls = completion()
    calls = two_calls["choices"][0]["message"]["tool_calls"]
    calls.append(dict(calls[0], id="call_2"))
    legacy = completion()
    legacy["choices"][0]["message"]["function_call"] = {"name": "get_weather", "arguments": "{}"}
    chunk = completion()
    chunk["object"] = "chat.completion.chunk"
    return [
        line(completion()),  # the common case
        line(completion({"city": "Oslo", "units": "celsius"})),
        json.dumps(completion()),  # spaces after separators
        line(completion()).replace('"id":"chatcmpl-1"', '"id":"chatcmpl-1","id":"x"'),
        raw_arguments('{"city":"Oslo","city":"Bergen"}'),  # duplicate key in the arguments
        raw_arguments('{"city":"Oslo","n":123456789012345678901234}'),  # beyond 64 bits
        raw_arguments('{"city":"Oslo","n":12345678901234567890}'),  # 20 digits, fits u64
        raw_arguments('{"city":"Oslo","n":-9223372036854775809}'),
        raw_arguments('{"city":"Os\\u003alo"}'),  # an escaped colon
        raw_arguments('{"city":"Os\\\\u003alo"}'),
        raw_arguments('{"city":"\\ud800"}'),  # a lone surrogate in the arguments
        line(completion()).replace("chatcmpl-1", "chatcmpl-\\udc00"),  # and in the envelope
        raw_arguments('{"city":NaN}'),
        raw_arguments('{"city": 1e400}'),
        raw_arguments('```json\n{"city":"Oslo"}\n```'),  # a code fence
        raw_arguments('{"city":"Oslo"'),  # cut off
        raw_arguments(""),
        raw_arguments('"{\\"city\\":\\"Oslo\\"}"'),  # encoded twice
        raw_arguments("[1,2]"),
        raw_arguments('{"city":"Oslo"}', name="get_wether"),  # an unknown tool
        raw_arguments('{"city":"Oslo"}', name=""),
        line(completion({"city": 5})),  # schema violations
        line(completion({})),
        line(completion({"city": "Oslo", "extra": True})),
        line(completion(call_id=7)),  # an id that is no string
        line(completion(call_id=None)),
        line(two_calls),
        line(legacy),
        line(chunk),
        line(completion(jsonrpc="2.0")),  # a mark detected before OpenAI Chat
        line(completion(payload={"x": 1})),
        line({"hop": "model", "payload": completion()}),
        "\ufeff" + line(completion()),  # a byte order mark
        "",
        "not json",
        "[" + line(completion()) + "]",
        line(completion(list(range(5)))),
        raw_arguments("[" * 300 + "]" * 300),
        line(completion({"city": "Oslo"}, name="update_shipment")),
        line(completion({"order_id": "ORD-1", "priority": "standard"}, name="update_shipment")),
        raw_arguments('{"city":"Oslo","days":1.0000000000000001}'),  # read as a whole 1
        raw_arguments('{"city":"Oslo","days":2.9999999999999999}'),
        raw_arguments('{"city":"Oslo","days":1e-400}'),  # read as 0
        raw_arguments('{"city":"Oslo","days":3}', call_id="c" + "0" * 15),  # the bound: 15 zeros
        line(completion({"city": "sk-" + "proj-Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2"})),  # a secret, valid
        line(completion({"city": "Oslo", "unit": "AKIA" + "IOSFODNN7EXAMPLE"})),  # invalid
    ]


def _report(path: Path, *, fast: bool, business: Any = None, window: int = 0) -> bytes:
    """The JSON report; with a window of 0 no call waits for its result, so the lane is
    open from the second line on (with the default, past the first 1024 lines)."""
    summary = Summary()
    results = iter_results(
        [path], tools=TOOLS, summary=summary, business=business, fast=fast, window=window
    )
    out = _Sink()
    render("check", "json", out, ReportOptions(), summary, results)
    return out.data


class _Sink:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)


@pytest.mark.parametrize("window", [0, 1024])
@pytest.mark.parametrize("business", [False, True])
def test_the_lane_and_the_full_path_write_the_same_report(
    tmp_path: Path, business: bool, window: int
) -> None:
    """With a window of 0 the lane checks the lines; with the default, every call waits
    for its result: the lane reads each completion for the ledger."""
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(_lines()) + "\n", encoding="utf-8", errors="surrogatepass")

    def gate() -> BusinessRules | None:
        return BusinessRules(None, idempotency=IdempotencySettings()) if business else None

    full = _report(trace, fast=False, business=gate(), window=window)
    fast = _report(trace, fast=True, business=gate(), window=window)
    assert fast == full
    report = orjson.loads(full)
    assert report["summary"]["calls"] >= len(_lines()) - 4
    assert report["summary"]["ok"] >= 4
    assert report["summary"]["failed"] >= 20


def test_the_lane_takes_the_common_case_and_nothing_it_must_not(tmp_path: Path) -> None:
    reader = CaptureReader()
    lane = build_lane(Checker(TOOLS), reader)
    assert lane is not None

    def state() -> Any:
        """A file's state past the first window, in a trace of calls alone."""
        ledger = reader.new_ledger()
        ledger.assume_alone()
        return reader.new_state(ledger, [])

    lines = _lines()
    taken = [lane("t.jsonl", 1, text.encode("utf-8", "surrogatepass"), state()) for text in lines]
    passed = [
        i for i, item in enumerate(taken) if item and all(isinstance(r, PassedCall) for r in item)
    ]
    assert passed == [0, 2, 26, 44]  # the completion with two calls among them
    assert len(taken[26] or ()) == 2
    # what might hide something, and every other shape, is read by the full path (a
    # 20-digit integer that fits in 64 bits too: the probe is a cheap bound, not exact)
    full_path = [i for i, item in enumerate(taken) if item is None]
    assert full_path == [3, 4, 5, 6, 7, 8, 9, 11, 19, 20, 24, 25, *range(27, 36), *range(40, 44)]
    # the rest are failures the lane hands, read, to the checker's gates
    assert all((found := taken[i]) is not None and found[0].stage for i in (1, 10, *range(12, 19)))


def test_a_passed_call_is_the_full_result(tmp_path: Path) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_text(line(completion(call_id="call_0")) + "\n" + line(completion()) + "\n")
    _, fast = iter_results([trace], tools=TOOLS, window=0)
    assert isinstance(fast, PassedCall)
    _, full = iter_check([trace], tools=TOOLS, window=0, session=None)
    assert fast.result() == full
    assert full.call.turn == "chatcmpl-1/0"
    assert full.arguments == GOOD


def test_every_report_format_is_the_same_with_the_lane(tmp_path: Path) -> None:
    from jsoncontract.reporters import formats

    trace = tmp_path / "trace.jsonl"
    lines = _lines()[:30] + _lines()[40:]  # with numbers a double misreads, and secrets
    trace.write_text("\n".join(lines) + "\n", encoding="utf-8", errors="surrogatepass")
    for fmt in formats("check"):
        reports = []
        for fast in (False, True):
            summary = Summary()
            out = _Sink()
            results = iter_results([trace], tools=TOOLS, summary=summary, fast=fast, window=0)
            render("check", fmt, out, ReportOptions(verbose=True, color=False), summary, results)
            reports.append(out.data)
        assert same(fmt, reports[0], reports[1]), fmt


@pytest.mark.parametrize("block", [5, 97, 1 << 20])
def test_the_lane_reads_lines_as_lines_of_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, block: int
) -> None:
    """Lines cut across the blocks the lane's reader takes, lines too long to hold (within
    one block or over many, in the middle and at the end without a line break), blank lines:
    the same numbers, calls and findings as the line reader gives."""
    from jsoncontract.capture import reader as reader_module

    monkeypatch.setattr(reader_module, "_BLOCK", block)
    calls = [line(completion(call_id=f"call_{i}")) for i in range(6)]
    lines = [calls[0], "x" * 900, calls[1], "", calls[2], "{" + "y" * 2500, calls[3]]
    lines += ["  ", calls[4], calls[5], "z" * 700]
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(lines))  # the last line has no line break
    assert all(len(text) < 600 for text in calls)

    def read(fast: bool) -> list[dict[str, Any]]:
        reader = CaptureReader(max_line_bytes=600, window=0)
        results = iter_results([trace], tools=TOOLS, reader=reader, fast=fast, window=0)
        return [(r.result() if isinstance(r, PassedCall) else r).to_dict() for r in results]

    lane = read(True)
    assert lane == read(False)
    too_long = [r for r in lane if r["findings"] and r["findings"][0]["code"] == "parse.too_large"]
    assert [r["source"]["line"] for r in too_long] == [2, 6, 11]
    assert len(lane) == 9


@pytest.mark.parametrize("fast", [False, True])
def test_a_truncated_gzip_gives_its_calls_then_names_the_last_line(
    tmp_path: Path, fast: bool
) -> None:
    """The lane reads blocks: those before the fault are checked, as the line reader does,
    and the error names the last whole line (not "at the start")."""
    import gzip

    lines = [line(completion(call_id=f"call_{i}")) for i in range(4000)]
    whole = gzip.compress(("\n".join(lines) + "\n").encode())
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) // 2])
    read: list[Any] = []
    with pytest.raises(InputError, match=r"after line [\d,]+, compressed byte") as caught:
        read.extend(iter_results([path], tools=TOOLS, fast=fast, window=0))
    import re

    found = re.search(r"after line ([\d,]+), compressed", caught.value.message)
    assert found is not None
    last = int(found.group(1).replace(",", ""))
    assert len(read) >= last - 1 > 1000


class _Gate:
    """A gate over the run that notes how each call reaches it."""

    per_call = True

    def __init__(self, failures_as_passed: bool) -> None:
        self.failures_as_passed = failures_as_passed
        self.seen: list[tuple[str, str | None]] = []

    def passed(self, passed: PassedCall) -> None:
        self.seen.append(("passed", passed.call_id))

    def call(self, checked: Any) -> tuple[()]:
        self.seen.append(("call", checked.call.call_id))
        return ()

    def event(self, event: Any) -> tuple[()]:
        return ()

    def close(self) -> list[Any]:
        return []


@pytest.mark.parametrize("as_passed", [True, False])
def test_a_call_the_schema_gate_fails_reaches_the_gate_over_the_run_as_it_says(
    as_passed: bool,
) -> None:
    """A gate that reads no finding of a call without a result takes a failing lone call
    through ``passed``, as a passing one; any other gate through ``call``, with its
    findings."""
    gate = _Gate(as_passed)
    reader = CaptureReader()
    lane = build_lane(Checker(TOOLS, session=gate), reader)
    assert lane is not None
    ledger = reader.new_ledger()
    ledger.assume_alone()
    text = line(completion({"city": 5}, call_id="c1")) + "\n" + line(completion(call_id="c2"))
    taken = [
        lane("t.jsonl", n, doc.encode(), reader.new_state(ledger, []))
        for n, doc in enumerate(text.splitlines(), 1)
    ]
    assert [type(t[0]).__name__ for t in taken if t] == ["CallResult", "PassedCall"]
    assert taken[0] is not None and taken[0][0].stage == "schema"
    assert gate.seen == [("passed" if as_passed else "call", "c1"), ("passed", "c2")]


# -- lines the lane reads for the ledger: MCP sessions with answers, conversation histories --


def _reading(monkeypatch: pytest.MonkeyPatch) -> collections.Counter[str]:
    """Counts the documents each shortcut that reads for the ledger took (a reader made
    afterwards uses the counting ones)."""
    from jsoncontract.capture import mcp, openai_chat
    from jsoncontract.capture.interface import Shortcut

    taken: collections.Counter[str] = collections.Counter()

    def counting(name: str, shortcut: Shortcut) -> Shortcut:
        read = shortcut.read
        assert read is not None

        def counted(node: Any, state: Any, ctx: Any) -> Any:
            found = read(node, state, ctx)
            if found is not None:
                taken[name] += 1
            return found

        return dataclasses.replace(shortcut, read=counted)

    for dialect, handler, name in [
        (mcp.DIALECT, mcp.McpState.read, "mcp"),
        (openai_chat.DIALECT, openai_chat.ChatStream.history, "history"),
        (openai_chat.DIALECT, openai_chat.ChatStream.response, "completion"),
    ]:
        monkeypatch.setitem(dialect.shortcuts, handler, counting(name, dialect.shortcuts[handler]))
    return taken


def _both(path: Path, tools: Path, rules: Path, window: int) -> bytes:
    """The JSON report of ``path`` with the lane and without it, which must be the same."""
    from tests.pipeline.test_differential import report

    full = report([path], tools, rules, fast=False, jobs=1, window=window)
    assert report([path], tools, rules, fast=True, jobs=1, window=window) == full
    return full


def _session() -> list[corpus.Step]:
    """An MCP session whose every request is answered in the next line: valid and invalid
    arguments, tool errors, structured content, a leaked key, an id used again once
    answered; then a JSON-RPC error, an answer given twice and one to no request (the
    full path's)."""
    steps: list[corpus.Step] = []
    for n in range(12):
        tool = "pay" if n % 4 == 3 else "lookup"
        arguments = corpus.ARGUMENTS[tool][n % len(corpus.ARGUMENTS[tool])]
        request_id: Any = n % 5 + 1 if n < 6 else f"r{n % 5}"  # ids used again
        request = corpus.Call("c", tool, arguments)
        steps.append(corpus.Step("mcp_request", (request,), 0, request_id))
        answer = corpus.Call("c", tool, arguments, n % 3)
        shape = "mcp_structured" if n % 2 else "mcp_response"
        steps.append(corpus.Step(shape, (answer,), 0, request_id))
    lookup = corpus.Call("c", "lookup", {"id": 1}, 0)
    steps += [
        corpus.Step("mcp_request", (lookup,), 0, 7),
        corpus.Step("mcp_error", (lookup,), 0, 7),
        corpus.Step("mcp_request", (lookup,), 0, 8),
        corpus.Step("mcp_response", (lookup,), 0, 8),
        corpus.Step("mcp_response", (lookup,), 0, 8),
        corpus.Step("mcp_response", (lookup,), 0, 9),
    ]
    return steps


@pytest.mark.parametrize("window", [0, 3, 1024])
def test_the_lane_reads_an_mcp_session_with_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int
) -> None:
    """Every ordinary request and answer of an MCP session is read by the lane, for the
    ledger, which pairs them as the full path's; the report is the same."""
    taken = _reading(monkeypatch)
    tools, rules = corpus.write_tools(tmp_path)
    steps = _session()
    path = tmp_path / "session.jsonl"
    path.write_text("".join(corpus.line(s) + "\n" for s in steps))
    report = orjson.loads(_both(path, tools, rules, window))
    assert report["summary"]["calls"] == 14
    assert report["summary"]["failed"] >= 4
    codes = report["summary"]["by_code"]
    assert codes.get("result.secret", 0) > 0
    # every request and answer but the error, the second answer and the one to no request
    # (with a window of 0, the first request comes before any answer: a call alone, which
    # the lane checks)
    assert taken["mcp"] == len(steps) - 3 - (window == 0)


def _conversation(turns: int, serial: int) -> list[corpus.Step]:
    """A conversation as a proxy logs it: each completion, then the request that repeats
    every earlier turn with its results."""
    steps: list[corpus.Step] = []
    history: list[corpus.Call] = []
    for n in range(turns):
        tool = "pay" if n % 3 == 2 else "lookup"
        calls = tuple(
            corpus.Call(f"call_{serial}_{n}_{i}", tool, corpus.ARGUMENTS[tool][(n + i) % 3])
            for i in range(n % 2 + 1)
        )
        steps.append(corpus.Step("chat_response", calls, 0, f"{serial}_{n}"))
        history += [corpus.Call(c.call_id, c.tool, c.arguments, (n + 1) % 3) for c in calls]
        steps.append(corpus.Step("chat_request", tuple(history), 0))
    return steps


@pytest.mark.parametrize("window", [0, 3, 1024])
def test_the_lane_reads_what_is_new_in_each_request_of_a_conversation(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, window: int
) -> None:
    """Completions whose calls wait for the results the next request brings, and requests
    that repeat the last one's messages: the lane reads them for the ledger (a request from
    its first new message), but the first request of each conversation and one that edits
    an earlier turn, which the full path reads; the report is the same."""
    taken = _reading(monkeypatch)
    tools, rules = corpus.write_tools(tmp_path)
    steps = _conversation(5, 1) + _conversation(4, 2)
    edited = list(steps[-1].calls)
    edited[0] = corpus.Call(edited[0].call_id, edited[0].tool, edited[0].arguments, 2)
    steps.append(corpus.Step("chat_request", tuple(edited), 0))  # another result for a call
    steps.append(corpus.Step("chat_request", tuple(edited), 0))  # the same again
    path = tmp_path / "conversation.jsonl"
    path.write_text("".join(corpus.line(s) + "\n" for s in steps))
    report = orjson.loads(_both(path, tools, rules, window))
    assert report["summary"]["calls"] == corpus.expected_calls(steps)
    assert report["summary"]["by_code"].get("result.secret", 0) > 0
    assert taken["completion"] == 9
    # every request but the first of each conversation and the one that edits a result
    assert taken["history"] == 11 - 3


@pytest.mark.parametrize("size", [3, 4, 7])
def test_a_history_is_read_again_once_its_ids_may_be_forgotten(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, size: int
) -> None:
    """The ids a file's histories showed are remembered in two bounded generations: once
    one may have been forgotten, a request that repeats the last one is read whole again,
    as on the full path (where the ledger, which forgot the calls too, counts them anew)."""
    from jsoncontract.capture import base, ledger

    # ids forgotten while a request is read (3), and between two requests (4, 7)
    monkeypatch.setattr(base.Known.__init__, "__defaults__", (size,))
    bounds = {"window": 0, "limit": 16384, "remembered": 2}
    monkeypatch.setattr(ledger.Ledger.__init__, "__kwdefaults__", bounds)
    taken = _reading(monkeypatch)
    tools, rules = corpus.write_tools(tmp_path)
    steps = _conversation(8, 1)
    path = tmp_path / "conversation.jsonl"
    path.write_text("".join(corpus.line(s) + "\n" for s in steps))
    report = orjson.loads(_both(path, tools, rules, 0))
    assert report["summary"]["calls"] > corpus.expected_calls(steps)  # counted anew
    assert 0 < taken["history"] < 7  # of 8 requests: some read whole again


@pytest.mark.parametrize("where", ["content", "arguments"])
def test_a_repeated_message_python_finds_equal_but_json_does_not_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """``1 == True`` in Python: a request whose repeated tool message (or call) holds
    ``true`` where the last one held ``1`` is another result (or call) to the full path,
    so the lane reads such a request whole, and the reports are the same."""
    taken = _reading(monkeypatch)
    tools, rules = corpus.write_tools(tmp_path)
    call = {"id": "call_x", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    answer = {"role": "tool", "tool_call_id": "call_x", "content": "ok"}

    def request(value: Any) -> dict[str, Any]:
        made = json.loads(json.dumps([call, answer]))
        if where == "content":
            made[1]["content"] = [{"type": "text", "text": "ok", "n": value}]
        else:
            made[0]["function"]["arguments"] = {"id": value}
        assistant = {"role": "assistant", "content": None, "tool_calls": [made[0]]}
        return {"model": "m", "messages": [{"role": "user", "content": "Go."}, assistant, made[1]]}

    two = request(True)
    two["messages"].append({"role": "user", "content": "Again."})
    path = tmp_path / "conversation.jsonl"
    path.write_text(line(request(1)) + "\n" + line(two) + "\n")
    report = orjson.loads(_both(path, tools, rules, 1024))
    assert report["summary"]["calls"] == 1 + (where == "arguments")
    assert taken["history"] == 0
