"""Benchmark ``check --jobs 1`` on traces that carry results: MCP sessions with their answers,
and Chat conversations whose requests repeat the earlier turns.

    python benchmarks/bench_sessions.py                      # build, then time each trace
    python benchmarks/bench_sessions.py --profile mcp-session
    python benchmarks/bench_sessions.py --baseline OTHER_CHECKOUT --rounds 3

The traces are derived from the BFCL workload of ``bench_real.py`` (built, or read from its
cache, with the same options), call for call:

- ``mcp-session``: every MCP ``tools/call`` request of the trace followed by its answer, in
  sessions of 500 requests, each opened by ``initialize`` and its answer. A third of the
  tools (chosen by a digest of the name) declare an ``outputSchema``; their answers carry
  ``structuredContent`` and its text, one in 40 of them damaged (a count sent as a string).
  One answer in 20 is a tool error (``isError``, a text); the rest answer with a text.
- ``chat-history``: the Chat Completions of the trace grouped into conversations of four
  turns, logged as a proxy logs them: each request (its ``messages`` repeating every
  earlier assistant turn's ``tool_calls`` and a ``tool`` message per call), then the
  completion that answers it, and the last request that hands the fourth turn's results
  back. Every call is seen in its completion and again in each later
  request of its conversation, with its result.
- ``mcp-fail`` / ``mcp-pass``: the workload's 20,000 damaged and valid MCP requests, each
  answered, in one session: what a failing call costs when it has a result.

Each round runs every trace in alternation (with ``--baseline DIR``, the checkout in DIR on
the same trace right after), as a child process, and reads its CPU time; a tiny version of
each trace (1% of it) pays the start-up, and the marginal µs per call is (full - tiny) /
(calls in full - calls in tiny). Figures are the medians of the rounds. The script exits 1
when a checkout's verdicts (calls, failed, findings) differ from the other's.
"""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson
from _bfcl import BFCL_VERSION, Plan, Workload, bfcl_wheel, build_workload
from _common import BenchParser, out_dir
from bench_real import FULL, QUICK, PROFILED, run_child

TRACES = ("mcp-session", "chat-history", "mcp-fail", "mcp-pass")
SESSION = 500  # requests per MCP session
TURNS = 4  # turns per Chat conversation

OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["ok", "partial"]},
        "count": {"type": "integer", "minimum": 0},
        "items": {"type": "array", "items": {"type": "object"}},
    },
    "required": ["status", "count"],
}


def _digest(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=4).digest())


def declares_output(name: str) -> bool:
    """Whether a tool of the session trace declares an output schema (a third of them)."""
    return _digest(name) % 3 == 0


def session_tools(workload: Workload, path: Path) -> Path:
    """The workload's tools, a third of them with an output schema."""
    tools = orjson.loads(workload.tools.read_bytes())["tools"]
    for tool in tools:
        if declares_output(tool["name"]):
            tool["outputSchema"] = OUTPUT_SCHEMA
    path.write_bytes(orjson.dumps({"tools": tools}))
    return path


def answer(request: dict[str, Any], number: int) -> dict[str, Any]:
    """The answer to one ``tools/call`` request."""
    name = request["params"]["name"]
    if number % 20 == 7:
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": f"{name}: upstream timed out after 30 s"}],
            "isError": True,
        }
    elif declares_output(name):
        structured: dict[str, Any] = {
            "status": "ok" if number % 5 else "partial",
            "count": number % 13,
            "items": [{"id": number, "name": name}],
        }
        if number % 40 == 3:
            structured["count"] = str(structured["count"])  # damaged: a number as a string
        result = {
            "content": [{"type": "text", "text": json.dumps(structured)}],
            "structuredContent": structured,
        }
    else:
        result = {"content": [{"type": "text", "text": f"done: {name} #{number}"}]}
    return {"jsonrpc": "2.0", "id": request["id"], "result": result}


def _initialize(number: int) -> list[dict[str, Any]]:
    return [
        {
            "jsonrpc": "2.0",
            "id": f"init-{number}",
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1.0"},
            },
        },
        {
            "jsonrpc": "2.0",
            "id": f"init-{number}",
            "result": {
                "protocolVersion": "2025-06-18",
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "bfcl-tools", "version": "1.0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]


def mcp_session(requests: Iterable[bytes]) -> Iterator[Any]:
    """Each request then its answer, sessions of :data:`SESSION` requests."""
    for number, line in enumerate(requests):
        if number % SESSION == 0:
            yield from _initialize(number)
        request = orjson.loads(line)
        yield orjson.Fragment(line)
        yield answer(request, number)


def _tool_message(call: dict[str, Any], number: int) -> dict[str, Any]:
    name = call["function"]["name"]
    content = json.dumps({"status": "ok", "tool": name, "count": number % 13})
    return {"role": "tool", "tool_call_id": call["id"], "content": content}


def chat_history(completions: Iterable[bytes]) -> Iterator[Any]:
    """Conversations of :data:`TURNS` turns: each request, then its completion."""
    messages: list[dict[str, Any]] = []
    for number, line in enumerate(completions):
        completion = orjson.loads(line)
        if number % TURNS == 0:
            messages = [
                {"role": "system", "content": "You are a helpful assistant with tools."},
                {"role": "user", "content": f"Please help with task {number // TURNS}."},
            ]
        yield {"model": completion["model"], "messages": messages, "tools": []}
        yield orjson.Fragment(line)
        message = completion["choices"][0]["message"]
        messages = [
            *messages,
            {"role": "assistant", "content": None, "tool_calls": message["tool_calls"]},
            *(_tool_message(call, number) for call in message["tool_calls"]),
        ]
        if number % TURNS == TURNS - 1:  # the request that hands the last results back
            yield {"model": completion["model"], "messages": messages, "tools": []}


def _write(path: Path, documents: Iterable[Any]) -> None:
    with path.open("wb") as out:
        for document in documents:
            out.write(orjson.dumps(document) + b"\n")


def _lines(path: Path, count: int | None = None) -> list[bytes]:
    lines = path.read_bytes().splitlines()
    return lines if count is None else lines[:count]


def build(workload: Workload, folder: Path, share: float) -> dict[str, tuple[Path, Path]]:
    """Each trace, full and tiny, in ``folder`` (and the tools with output schemas)."""
    folder.mkdir(parents=True, exist_ok=True)
    made: dict[str, tuple[Path, Path]] = {}
    sources = {
        "mcp-session": (workload.shape("mcp"), mcp_session),
        "chat-history": (workload.shape("chat"), chat_history),
        "mcp-fail": (workload.shape("mcp", "fail"), mcp_session),
        "mcp-pass": (workload.shape("mcp", "pass"), mcp_session),
    }
    for trace, (source, writer) in sources.items():
        lines = _lines(source)
        full, tiny = folder / f"{trace}.full.jsonl", folder / f"{trace}.tiny.jsonl"
        if not full.is_file():
            _write(tiny, writer(lines[: max(1, round(len(lines) * share))]))
            _write(full, writer(lines))
        made[trace] = (full, tiny)
    return made


def check_args(python: str, tools: Path, trace: Path, report: Path) -> list[str]:
    return [
        python, "-m", "jsoncontract", "check", "--tools", str(tools), str(trace),
        "-f", "json", "-o", str(report), "--no-progress", "--jobs", "1",
    ]  # fmt: skip


def verdicts(report: Path) -> tuple[int, int, int]:
    document = orjson.loads(report.read_bytes())
    summary = document["summary"]
    return summary["calls"], summary["failed"], len(document.get("findings", []))


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--traces", nargs="+", choices=TRACES, default=list(TRACES))
    parser.add_argument("--rounds", type=int, default=3, quick=1)
    parser.add_argument("--baseline", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--profile", nargs="+", choices=TRACES, help="profile instead of timing")
    parser.add_argument("--top", type=int, default=30, quick=30)
    parser.add_argument("--wheel", type=Path, help="a bfcl-eval wheel to read (no download)")
    options = parser.parse_args()

    sizes = QUICK if options.quick else FULL
    plan = Plan(sizes.calls, sizes.one_schema, sizes.fail_pass, sizes.tiny_share)
    root = out_dir()
    workload = build_workload(bfcl_wheel(BFCL_VERSION, options.wheel, root / "wheels"), plan, root)
    folder = workload.folder / "sessions"
    traces = build(workload, folder, sizes.tiny_share)
    tools = session_tools(workload, folder / "tools.json")
    here = str(Path(__file__).resolve().parent.parent)
    checkouts = {"this": here}
    if options.baseline is not None:
        checkouts["baseline"] = str(options.baseline.resolve())
    with tempfile.TemporaryDirectory(prefix="bench-sessions-") as scratch:
        work = Path(scratch)
        report = work / "report.json"
        if options.profile:
            import pstats

            for trace in options.profile:
                data = folder / f"profile-{trace}.prof"
                args = [sys.executable, "-c", PROFILED, str(data), "check", "--tools", str(tools)]
                args += [str(traces[trace][0]), "-f", "json", "-o", str(report)]
                args += ["--no-progress", "--jobs", "1"]
                run = run_child(args, work)
                calls = verdicts(report)[0]
                stats = pstats.Stats(str(data))
                print(f"{trace}: {calls:,} calls, {run.cpu:.1f} s CPU under cProfile")
                stats.sort_stats("cumulative").print_stats(options.top)
            return
        marginal: dict[tuple[str, str], list[float]] = {}
        seen: dict[tuple[str, str], tuple[int, int, int]] = {}
        for _ in range(options.rounds):
            for trace in options.traces:
                for label, checkout in checkouts.items():
                    times = []
                    for path in traces[trace][::-1]:  # tiny, then full
                        python = sys.executable
                        env_path = f"PYTHONPATH={checkout}"
                        run = run_child(["env", env_path, *check_args(python, tools, path, report)],
                                        work)  # fmt: skip
                        if run.code not in (0, 1):
                            raise SystemExit(f"{label} on {path.name}: {run.stderr.decode()[-400:]}")
                        times.append((run.cpu, verdicts(report)))
                    (tiny_cpu, tiny_v), (full_cpu, full_v) = times
                    per = (full_cpu - tiny_cpu) / (full_v[0] - tiny_v[0]) * 1e6
                    marginal.setdefault((trace, label), []).append(per)
                    seen[trace, label] = full_v
                    print(f"{trace:>13} {label:>9}: {per:6.1f} µs a call, verdicts {full_v}",
                          file=sys.stderr)  # fmt: skip
    print(f"{'trace':>13} {'calls':>8} " + " ".join(f"{c:>16}" for c in checkouts))
    agree = True
    for trace in options.traces:
        cells = [f"{statistics.median(marginal[trace, c]):7.1f} µs a call" for c in checkouts]
        calls = seen[trace, "this"][0]
        print(f"{trace:>13} {calls:>8,} " + " ".join(f"{cell:>16}" for cell in cells))
        if len({seen[trace, c] for c in checkouts}) > 1:
            agree = False
            print(f"  verdicts differ: {[seen[trace, c] for c in checkouts]}", file=sys.stderr)
    for label in checkouts:
        fail, passing = marginal.get(("mcp-fail", label)), marginal.get(("mcp-pass", label))
        if fail and passing:
            ratios = [f / p for f, p in zip(fail, passing, strict=True)]
            print(f"{label}: a failing MCP call with its answer / a passing one: "
                  f"{statistics.median(ratios):.2f}x")  # fmt: skip
    if not agree:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
