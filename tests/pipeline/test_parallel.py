"""``--jobs``: worker processes give the report of one process, byte for byte.

The traces are cut into parts of a few kilobytes so that every test crosses many cuts: calls
of every dialect, streams whose chunks straddle a cut, idempotency keys reused far apart,
key-less double writes. A worker that dies, and Ctrl-C, stop the run cleanly.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.api import iter_results
from jsoncontract.business import load_business
from jsoncontract.capture.reader import CaptureReader
from jsoncontract.errors import JsoncontractError
from jsoncontract.model import Summary
from jsoncontract.pipeline import parallel, runner
from jsoncontract.reporters import ReportOptions, formats, render, reporter_class
from jsoncontract.tools import ToolSet
from tests.conftest import FIXTURES, same


@pytest.fixture(autouse=True)
def forking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Workers are forked even when an earlier test in this process left a thread behind
    (a run only forks from a single thread, as a guard; these tests fork regardless)."""
    assert "fork" in __import__("multiprocessing").get_all_start_methods()
    monkeypatch.setattr(parallel, "can_fork", lambda: True)


TOOLS = ToolSet.from_paths([FIXTURES / "tools"])
CAN_FORK = parallel.can_fork
MIXED = (FIXTURES / "captures" / "trace.jsonl").read_bytes().decode("utf-8", "surrogateescape")
#: The bundled trace without its MCP exchanges: calls alone, which workers check in parts
#: (a trace with results is read by the parent from its first result on)
CALLS = "\n".join(line for line in MIXED.splitlines() if '"jsonrpc"' not in line)


def _encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


class _Sink:
    def __init__(self) -> None:
        self.data = b""

    def write(self, data: bytes) -> int:
        self.data += data
        return len(data)


def report(path: Path, fmt: str, *, jobs: int, business: Any = None) -> bytes:
    summary = Summary()
    results = iter_results(
        [path],
        tools=TOOLS,
        summary=summary,
        business=business,
        jobs=jobs,
        result_runs=reporter_class("check", fmt).takes_result_runs,
    )
    out = _Sink()
    render("check", fmt, out, ReportOptions(color=False, max_shown=0), summary, results)
    return out.data


def chunk_stream(index: int) -> list[str]:
    """An OpenAI Chat stream of one call in three chunks."""
    rid = f"chatcmpl-s{index}"

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return json.dumps(
            {
                "id": rid,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
        )

    call = {"index": 0, "id": f"call_s{index}", "type": "function"}
    return [
        chunk({"tool_calls": [{**call, "function": {"name": "get_weather", "arguments": ""}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Os'}}]}),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'lo"}'}}]}, "tool_calls"),
    ]


@pytest.fixture
def small_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "PART_BYTES", 4096)


@pytest.mark.parametrize("text", [MIXED, CALLS], ids=["with-results", "calls-alone"])
def test_every_format_is_the_same_with_workers(
    tmp_path: Path, small_parts: None, text: str
) -> None:
    lines: list[str] = []
    for i in range(40):
        lines.extend(text.splitlines())
        lines.extend(chunk_stream(i))  # some of them straddle a cut
    trace = tmp_path / "trace.jsonl"
    trace.write_bytes(_encode("\n".join(lines) + "\n"))
    assert len(runner.plan([trace])) > 20
    for fmt in formats("check"):
        assert same(fmt, report(trace, fmt, jobs=2), report(trace, fmt, jobs=1)), fmt


def test_a_part_that_ends_inside_a_stream_is_read_again(tmp_path: Path, small_parts: None) -> None:
    lines = [line for i in range(300) for line in chunk_stream(i)]
    trace = tmp_path / "streams.jsonl"
    trace.write_bytes(_encode("\n".join(lines) + "\n"))
    parts = runner.plan([trace])
    cut = parts[0].end
    assert cut is not None
    from jsoncontract.capture.reader import CaptureReader

    reader = CaptureReader()
    carried = []
    for part in parts[:-1]:
        state = reader.new_state(reader.new_ledger(), [])
        source = reader.read_part(
            str(trace), state, start=part.start, end=part.end, first=part.first_line, last=False
        )
        list(source)
        carried.append(not state.pristine(reader.dialects))  # a stream open at its end
    assert any(carried)  # the test does cross streams
    full = orjson_loads(report(trace, "json", jobs=1))
    assert full["summary"]["calls"] == 300 and full["summary"]["failed"] == 0
    assert report(trace, "json", jobs=2) == report(trace, "json", jobs=1)


def _responses(n: int) -> str:
    """A Responses response of one ``get_weather`` call (a failing one every seventh)."""
    city = "" if n % 7 == 0 else f"City {n}"
    item = {
        "type": "function_call",
        "id": f"fc_{n}",
        "call_id": f"call_{n}",
        "name": "get_weather",
        "arguments": json.dumps({"city": city}),
    }
    return json.dumps({"object": "response", "id": f"resp_{n}", "output": [item]})


def _mcp(n: int) -> str:
    """An MCP ``tools/call`` request of ``read_file`` (a failing one every seventh)."""
    arguments = {"path": "" if n % 7 == 0 else f"docs/{n}.md"}
    params = {"name": "read_file", "arguments": arguments}
    return json.dumps({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": params})


def _verdicts(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Whether the run took each part from its worker (``False``: read again here)."""
    verdicts: list[bool] = []
    takes = runner.Join.takes

    def counted(run: Any, *args: Any) -> bool:
        verdicts.append(takes(run, *args))
        return verdicts[-1]

    monkeypatch.setattr(runner.Join, "takes", counted)
    return verdicts


@pytest.mark.parametrize("line", [_responses, _mcp], ids=["responses", "mcp"])
def test_every_part_of_a_file_its_dialect_remembers_is_taken_from_the_workers(
    tmp_path: Path, small_parts: None, monkeypatch: pytest.MonkeyPatch, line: Any
) -> None:
    """Responses and MCP files leave a memory at every cut (the items produced, the
    requests unanswered): once the run's ledger holds no call (past the first result
    windows, as for any dialect), each part joins it, and none is read again."""
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(line(n) for n in range(4000)) + "\n")
    verdicts = _verdicts(monkeypatch)
    for fmt in ("json", "text"):
        verdicts.clear()
        assert same(fmt, report(trace, fmt, jobs=2), report(trace, fmt, jobs=1)), fmt
        taken = verdicts.index(True)
        assert verdicts[taken:] == [True] * (len(verdicts) - taken), fmt
        assert len(verdicts) - taken > 50, fmt


def test_a_part_that_would_read_otherwise_after_the_run_is_read_again(
    tmp_path: Path, small_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A response written again far on: its items were produced, so one process skips
    them; the part that holds it does not join, and is read again here."""
    lines = [_responses(n) for n in range(4000)]
    lines.insert(3500, lines[3000])
    trace = tmp_path / "trace.jsonl"
    trace.write_text("\n".join(lines) + "\n")
    verdicts = _verdicts(monkeypatch)
    one = orjson_loads(report(trace, "json", jobs=1))
    assert one["summary"]["calls"] == 4000  # the response written again counts no call
    assert report(trace, "json", jobs=2) == report(trace, "json", jobs=1)
    taken = verdicts.index(True)
    assert verdicts[taken:].count(False) == 1 and len(verdicts) - taken > 50


def orjson_loads(data: bytes) -> Any:
    return json.loads(data)


def test_idempotency_is_exact_across_workers(tmp_path: Path, small_parts: None) -> None:
    schema = {
        "type": "object",
        "properties": {"order_id": {"type": "string"}, "idempotency_key": {"type": "string"}},
        "required": ["order_id"],
    }
    tools_file = tmp_path / "tools.json"
    tools_file.write_text(json.dumps({"tools": [{"name": "update_order", "inputSchema": schema}]}))
    tools = ToolSet.from_paths([tools_file])
    lines = []
    for i in range(600):
        args = {"order_id": f"O{i % 300}", "idempotency_key": f"k{i % 150}"}
        if i % 7 == 0:  # no key: the same write again under another id is a double write
            args = {"order_id": f"O{i % 5}"}
        call = {"name": "update_order", "arguments": args}
        lines.append(
            json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": call})
        )
    trace = tmp_path / "writes.jsonl"
    trace.write_text("\n".join(lines) + "\n")

    def run(jobs: int) -> bytes:
        business = load_business(None, tools=tools)
        try:
            summary = Summary()
            results = iter_results(
                [trace],
                tools=tools,
                summary=summary,
                business=business,
                jobs=jobs,
                result_runs=True,
            )
            out = _Sink()
            render("check", "json", out, ReportOptions(), summary, results)
            return out.data
        finally:
            business.close()

    serial = run(1)
    codes = json.loads(serial)["summary"]["by_code"]
    assert codes["business.idempotency.conflict"] > 100
    assert codes["business.idempotency.double_write"] > 50
    assert codes["business.idempotency.missing_key"] > 50
    assert run(2) == serial


def test_compressed_and_several_files_keep_input_order(tmp_path: Path, small_parts: None) -> None:
    import gzip

    folder = tmp_path / "day"
    folder.mkdir()
    for n in range(5):
        text = "\n".join(MIXED.splitlines() * (n + 1)) + "\n"
        if n % 2:
            (folder / f"{n}.jsonl.gz").write_bytes(gzip.compress(_encode(text)))
        else:
            (folder / f"{n}.jsonl").write_bytes(_encode(text))
    assert report(folder, "jsonl", jobs=2) == report(folder, "jsonl", jobs=1)


def test_a_worker_that_dies_stops_the_run_naming_the_part(
    tmp_path: Path, small_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_bytes(_encode("\n".join(CALLS.splitlines() * 60) + "\n"))
    real = runner.Worker.part

    def dying(worker: runner.Worker, part: runner.Part, first: bool) -> Any:
        if part.first_line > 200:
            os._exit(9)  # as the kernel's out-of-memory killer would
        return real(worker, part, first)

    monkeypatch.setattr(runner.Worker, "part", dying)
    with pytest.raises(JsoncontractError, match=r"a worker process died while checking .*trace"):
        list(iter_results([trace], tools=TOOLS, jobs=2))


def test_the_cli_exits_2_and_writes_nothing_when_a_worker_dies(
    tmp_path: Path, small_parts: None, monkeypatch: pytest.MonkeyPatch, run_cli: Any
) -> None:
    trace = tmp_path / "trace.jsonl"
    trace.write_bytes(_encode("\n".join(CALLS.splitlines() * 60) + "\n"))
    monkeypatch.setattr(runner.Worker, "part", lambda *a: os._exit(9))
    out = tmp_path / "report.json"
    tools = str(FIXTURES / "tools")
    result = run_cli("check", "-t", tools, str(trace), "-f", "json", "-o", str(out), "-j", "2")
    assert result.code == 2
    assert "a worker process died while checking" in result.stderr
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["trace.jsonl"]


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _ignores_ctrl_c(pid: int) -> bool:
    """Whether a process ignores SIGINT (a worker once its initializer has run)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    found = re.search(r"^SigIgn:\s*([0-9a-f]+)$", status, re.M)
    return found is not None and bool(int(found.group(1), 16) & (1 << (signal.SIGINT - 1)))


@pytest.fixture(scope="module")
def big_trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    trace = tmp_path_factory.mktemp("big") / "big.jsonl"
    trace.write_bytes(_encode("\n".join(CALLS.splitlines() * 20_000) + "\n"))  # ~ 360,000 calls
    return trace


def _interrupted(
    big_trace: Path, out: Path, when: Callable[[int], bool], poll: float = 0.01
) -> None:
    """Run check with two workers, press Ctrl-C once ``when(pid)`` holds, and check that the
    run stops as Ctrl-C should: exit 130, 'interrupted', no traceback, no worker left, no
    report."""
    command = [sys.executable, "-m", "jsoncontract", "check", "-t", str(FIXTURES / "tools")]
    command += [str(big_trace), "-f", "json", "-o", str(out), "--jobs", "2"]
    proc = subprocess.Popen(
        command,
        start_new_session=True,
        stderr=subprocess.PIPE,
        # as a terminal starts it: a test run from a background job (which ignores SIGINT,
        # and so would the run) still sends Ctrl-C to a run that takes it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 120
        while not when(proc.pid):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(poll)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends on Ctrl-C
        _, err = proc.communicate(timeout=90)  # a loaded machine is slow to stop too
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.stderr is not None:
            proc.stderr.close()
    assert proc.returncode == 130, err
    assert err.decode().strip().splitlines()[-1] == "jsoncontract: error: interrupted"
    assert b"Traceback" not in err and b"Exception" not in err
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.killpg(proc.pid, 0)  # is any process of the group left?
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail("a worker outlived the interrupted run")
    assert not out.exists() and not list(out.parent.glob(f".{out.name}.*"))


def test_ctrl_c_stops_every_worker(big_trace: Path, tmp_path: Path) -> None:
    def checking(pid: int) -> bool:  # both workers are up, and the report has begun
        workers = _children(pid)
        begun = any(p.name.startswith(".r.json.") for p in tmp_path.iterdir())
        return begun and len(workers) == 2 and all(map(_ignores_ctrl_c, workers))

    _interrupted(big_trace, tmp_path / "r.json", checking)


@pytest.mark.parametrize("attempt", range(3))
def test_ctrl_c_while_the_workers_are_forked(big_trace: Path, tmp_path: Path, attempt: int) -> None:
    """Ctrl-C the moment the first worker exists: the signal lands around the fork, where
    Python's own fork callbacks run (it was printed there and dropped, and the run went on
    to the end: exit 1)."""
    _interrupted(big_trace, tmp_path / "r.json", lambda pid: bool(_children(pid)), poll=0)


def test_a_process_with_threads_running_checks_in_one_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    real = CAN_FORK  # the one the fixture did not replace
    monkeypatch.setattr(threading, "active_count", lambda: 2)
    assert real() is False
    monkeypatch.setattr(threading, "active_count", lambda: 1)
    assert real() is (sys.platform != "darwin" and hasattr(os, "fork"))


def test_a_business_gate_of_another_kind_sees_every_call_in_this_process(
    tmp_path: Path, small_parts: None
) -> None:
    class Counting:  # a gate with state of its own: splitting it would lose calls
        def __init__(self) -> None:
            self.seen = 0

        def check(self, call: Any, arguments: Any, tool: Any) -> list[Any]:
            self.seen += 1
            return []

    trace = tmp_path / "trace.jsonl"
    trace.write_bytes(_encode("\n".join(MIXED.splitlines() * 40) + "\n"))
    assert len(runner.plan([trace])) > 1
    gates = Counting(), Counting()
    serial = list(iter_results([trace], tools=TOOLS, business=gates[0], jobs=1))
    split = list(iter_results([trace], tools=TOOLS, business=gates[1], jobs=2))
    assert gates[0].seen == gates[1].seen > 100
    assert [r.to_dict() for r in split] == [r.to_dict() for r in serial]


def test_a_day_with_results_is_the_same_with_workers(
    tmp_path: Path, small_parts: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calls alone, then MCP sessions and conversations: the parts before the first result
    are taken from the workers, the rest is read in the parent; every format is the same."""
    from jsoncontract.pipeline.contracts import SessionContracts
    from tests.pipeline import day

    tools_file, captures = day.write_day(tmp_path)
    tools = ToolSet.from_paths([tools_file])
    verdicts = _verdicts(monkeypatch)

    def run(fmt: str, jobs: int) -> bytes:
        business = load_business(None, tools=tools)
        try:
            summary = Summary()
            results = iter_results(
                captures,
                tools=tools,
                summary=summary,
                business=business,
                session=SessionContracts(tools),
                window=day.WINDOW,
                jobs=jobs,
                result_runs=reporter_class("check", fmt).takes_result_runs,
            )
            out = _Sink()
            render("check", fmt, out, ReportOptions(color=False), summary, results)
            return out.data
        finally:
            business.close()

    for fmt in formats("check"):
        assert same(fmt, run(fmt, 2), run(fmt, 1)), fmt
    assert verdicts.count(True) > 50  # taken from the workers
    assert verdicts.count(False) > 0  # read again in the parent
    codes = json.loads(run("json", 1))["summary"]["by_code"]
    assert codes["session.late_result"] and codes["session.orphan_result"]
    assert codes["business.idempotency.conflict"] and codes["session.parallel_side_effects"]


def test_files_found_in_a_directory_are_read_leniently_by_workers_too(
    tmp_path: Path, small_parts: None
) -> None:
    """A file that holds no capture is skipped, one that cannot be read is a call with an
    ``input.unreadable`` finding; the other files are checked, as in one process."""
    folder = tmp_path / "day"
    folder.mkdir()
    for n in range(3):
        (folder / f"{n}.jsonl").write_bytes(_encode("\n".join(CALLS.splitlines() * 30) + "\n"))
    (folder / "1-package.json").write_text('{"name": "my-app", "version": "1.0.0"}')
    (folder / "2-broken.json").write_text('{"choices": [')
    skipped = []
    for jobs in (1, 2):
        reader = CaptureReader()
        summary = Summary()
        results = list(
            iter_results([folder], tools=TOOLS, summary=summary, jobs=jobs, reader=reader)
        )
        skipped.append(reader.skipped)
        if jobs == 1:
            serial = [
                r.to_dict() if hasattr(r, "to_dict") else r.result().to_dict() for r in results
            ]
            assert summary.by_code["input.unreadable"] == 1
        else:
            split = [
                r.to_dict() if hasattr(r, "to_dict") else r.result().to_dict() for r in results
            ]
    assert len(runner.plan([folder])) > 5
    assert skipped[0] == skipped[1] and len(skipped[0]) == 1
    assert split == serial


# -- how an input is cut for the workers ------------------------------------------------------


def _jsonl(path: Path, size: int) -> Path:
    """A JSONL file of at least ``size`` bytes of Chat tool calls, one a line, each with its
    own id, one in ten failing."""
    lines: list[bytes] = []
    written = 0
    while written < size:
        limit: Any = 20 if len(lines) % 10 else "twenty"
        arguments = {"customerId": f"C{len(lines):05d}", "status": "open", "limit": limit}
        call = {"id": f"call_{len(lines)}", "type": "function"}
        call["function"] = {"name": "searchInvoices", "arguments": json.dumps(arguments)}
        lines.append(json.dumps({"tool_calls": [call]}).encode() + b"\n")
        written += len(lines[-1])
    path.write_bytes(b"".join(lines))
    return path


def test_an_input_of_a_few_megabytes_gives_each_worker_parts(tmp_path: Path) -> None:
    """Below two ranges of PART_BYTES a file was one part, checked by one process while the
    other cores idled: with workers it is cut so that each has a few parts, down to
    MIN_PART_BYTES; a run in one process, and a large input, are cut as before."""
    small = _jsonl(tmp_path / "small.jsonl", 6 * 2**20)
    assert len(runner.plan([small])) == 1
    parts = runner.plan([small], jobs=2)
    assert len(parts) == 2 * runner.PARTS_PER_WORKER
    assert [p.end for p in parts[:-1]] == [p.start for p in parts[1:]]
    assert parts[0].start == 0 and parts[-1].end == small.stat().st_size
    tiny = _jsonl(tmp_path / "tiny.jsonl", runner.MIN_PART_BYTES)
    assert len(runner.plan([tiny], jobs=8)) == 1  # one part: a worker would not pay
    assert runner.part_bytes_for(10**9, 2) == runner.PART_BYTES
    assert runner.part_bytes_for(10**6, 64) == runner.MIN_PART_BYTES


def test_a_few_megabytes_with_workers_give_the_report_of_one_process(tmp_path: Path) -> None:
    trace = _jsonl(tmp_path / "calls.jsonl", 2 * runner.MIN_PART_BYTES)
    assert len(runner.plan([trace], jobs=2)) == 2
    one = report(trace, "json", jobs=1)
    assert json.loads(one)["summary"]["failed"] > 0
    assert same("json", report(trace, "json", jobs=2), one)
