"""Benchmark ``check --jobs 1`` on traces that carry results (MCP sessions with their
answers, Chat conversations whose requests repeat the earlier turns), and a failing call
against a passing one in every shape.

    python benchmarks/bench_sessions.py                    # build, then time every trace
    python benchmarks/bench_sessions.py --traces mcp-session --profile
    python benchmarks/bench_sessions.py --baseline OTHER_CHECKOUT

The traces are derived from the BFCL workload of ``bench_real.py`` (built, or read from its
cache, at the same sizes), call for call:

- ``mcp-session``: every MCP ``tools/call`` request of the trace followed by its answer, in
  sessions of 500 requests, each opened by ``initialize`` and its answer. A third of the
  tools (chosen by a digest of the name) declare an ``outputSchema``; their answers carry
  ``structuredContent`` and its text, one in 40 of them damaged (a count sent as a string).
  One answer in 20 is a tool error (``isError``, a text); the rest answer with a text.
- ``chat-history``: the Chat Completions of the trace grouped into conversations of four
  turns, logged as a proxy logs them: each request (its ``messages`` repeating every
  earlier assistant turn's ``tool_calls`` and a ``tool`` message per call), then the
  completion that answers it, and the last request that hands the fourth turn's results
  back. Every call is seen in its completion and again in each later request of its
  conversation, with its result.
- ``SHAPE.fail`` and ``SHAPE.pass``: the workload's damaged and valid calls in each shape
  (20,000 of each), and ``mcp-answered.fail`` / ``.pass``: the MCP ones each answered.

Each round runs every trace in turn, as a child process, on this checkout and, with
``--baseline DIR``, on the checkout in DIR right after (the same interpreter, the other
package first on the path, run from a scratch folder whatever the working directory), and
reads the CPU time; a tiny version of each trace (its first
1%) pays the start-up, and the marginal µs per call is (full - tiny) / (calls in full -
calls in tiny). Figures are the medians of the rounds; a failing call against a passing one
is the median of the rounds' ratios. The script exits 1 when two checkouts' verdicts (calls,
failed, run-level findings) differ. ``--profile`` runs ``check --jobs 1`` on each trace
under cProfile instead, and lists the package's costliest functions (cumulative).
"""

from __future__ import annotations

import hashlib
import json
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson
from _bfcl import BFCL_VERSION, SHAPES, Plan, Workload, bfcl_wheel, build_workload
from _common import BenchParser, out_dir
from bench_real import FULL, PROFILED, QUICK, run_child

PAIRED = (*SHAPES, "mcp-answered")  # the shapes whose failing and passing calls are timed
TRACES = (
    "mcp-session",
    "chat-history",
    *(f"{shape}.{part}" for shape in PAIRED for part in ("fail", "pass")),
)
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


def build(workload: Workload, folder: Path, share: float) -> dict[str, tuple[Path, Path]]:
    """Each trace, full and tiny (its first ``share``), in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    sources: dict[str, tuple[Path, Callable[[Iterable[bytes]], Iterator[Any]]]] = {
        "mcp-session": (workload.shape("mcp"), mcp_session),
        "chat-history": (workload.shape("chat"), chat_history),
        "mcp-answered.fail": (workload.shape("mcp", "fail"), mcp_session),
        "mcp-answered.pass": (workload.shape("mcp", "pass"), mcp_session),
    }
    for shape in SHAPES:
        for part in ("fail", "pass"):
            sources[f"{shape}.{part}"] = (workload.shape(shape, part), _as_they_are)
    made: dict[str, tuple[Path, Path]] = {}
    for trace, (source, writer) in sources.items():
        full, tiny = folder / f"{trace}.full.jsonl", folder / f"{trace}.tiny.jsonl"
        if not full.is_file():
            lines = source.read_bytes().splitlines()
            _write(tiny, writer(lines[: max(1, round(len(lines) * share))]))
            _write(full, writer(lines))
        made[trace] = (full, tiny)
    return made


def _as_they_are(lines: Iterable[bytes]) -> Iterator[Any]:
    return (orjson.Fragment(line) for line in lines)


def check_args(tools: Path, trace: Path, report: Path) -> list[str]:
    return [
        sys.executable, "-m", "jsoncontract", "check", "--tools", str(tools), str(trace),
        "-f", "json", "-o", str(report), "--no-progress", "--jobs", "1",
    ]  # fmt: skip


def verdicts(report: Path) -> tuple[int, int, int]:
    """Calls, failed calls and run-level findings of a JSON report."""
    document = orjson.loads(report.read_bytes())
    summary = document["summary"]
    return summary["calls"], summary["failed"], len(document.get("findings", []))


def timed(checkout: str, tools: Path, paths: tuple[Path, Path], work: Path) -> tuple[float, Any]:
    """Marginal µs per call of ``check --jobs 1`` from ``checkout`` on a trace, and the full
    run's verdicts."""
    report = work / "report.json"
    runs = []
    for path in paths[::-1]:  # tiny, then full
        env = [f"PYTHONPATH={checkout}"]
        # from the scratch folder: ``python -m`` puts the working directory first on the
        # path, which would run the checkout it holds whatever the PYTHONPATH
        run = run_child(["env", *env, *check_args(tools, path, report)], work, cwd=work)
        if run.code not in (0, 1):
            raise SystemExit(f"{checkout} on {path.name}: {run.stderr.decode()[-400:]}")
        runs.append((run.cpu, verdicts(report)))
    (tiny_cpu, tiny), (full_cpu, full) = runs
    return (full_cpu - tiny_cpu) / (full[0] - tiny[0]) * 1e6, full


def profile(tools: Path, trace: Path, work: Path, top: int) -> None:
    import pstats

    data = trace.with_suffix(".prof")
    args = [
        sys.executable,
        "-c",
        PROFILED,
        str(data),
        *check_args(tools, trace, work / "r.json")[3:],
    ]
    run = run_child(args, work)
    calls = verdicts(work / "r.json")[0]
    print(f"{trace.name}: {calls:,} calls, {run.cpu:.1f} s CPU under cProfile")
    # the package's functions only (the interpreter's start-up is the tiny trace's to pay)
    pstats.Stats(str(data)).sort_stats("cumulative").print_stats("jsoncontract/", top)


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--traces", nargs="+", choices=TRACES, default=list(TRACES))
    parser.add_argument("--rounds", type=int, default=3, quick=1, help="alternating rounds")
    parser.add_argument("--baseline", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--profile", action="store_true", help="profile instead of timing")
    parser.add_argument("--top", type=int, default=40, quick=40, help="functions a profile lists")
    parser.add_argument("--wheel", type=Path, help="a bfcl-eval wheel to read (no download)")
    options = parser.parse_args()
    if options.baseline is not None and not (options.baseline / "jsoncontract").is_dir():
        parser.error(f"--baseline {options.baseline}: no jsoncontract package in it")

    sizes = QUICK if options.quick else FULL
    plan = Plan(sizes.calls, sizes.one_schema, sizes.fail_pass, sizes.tiny_share)
    root = out_dir()
    workload = build_workload(bfcl_wheel(BFCL_VERSION, options.wheel, root / "wheels"), plan, root)
    folder = workload.folder / "sessions"
    traces = build(workload, folder, sizes.tiny_share)
    tools = session_tools(workload, folder / "tools.json")
    checkouts = {"this": str(Path(__file__).resolve().parent.parent)}
    if options.baseline is not None:
        checkouts["baseline"] = str(options.baseline.resolve())
    marginal: dict[tuple[str, str], list[float]] = {}
    seen: dict[tuple[str, str], Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-sessions-") as scratch:
        work = Path(scratch)
        if options.profile:
            for trace in options.traces:
                profile(tools, traces[trace][0], work, options.top)
            return
        for _ in range(options.rounds):
            for trace in options.traces:
                for label, checkout in checkouts.items():
                    per, found = timed(checkout, tools, traces[trace], work)
                    marginal.setdefault((trace, label), []).append(per)
                    seen[trace, label] = found
                    print(f"{trace:>20} {label:>9}: {per:6.1f} µs a call", file=sys.stderr)
    print(report(options.traces, checkouts, marginal, seen))
    if any(len({seen[t, c] for c in checkouts}) > 1 for t in options.traces):
        print("verdicts DIFFER between the checkouts", file=sys.stderr)
        raise SystemExit(1)


def report(
    traces: list[str],
    checkouts: dict[str, str],
    marginal: dict[tuple[str, str], list[float]],
    seen: dict[tuple[str, str], Any],
) -> str:
    """The table: marginal µs per call per trace and checkout, then failing against passing."""
    lines = [f"{'trace':>20} {'calls':>8} {'failed':>7} " + " ".join(f"{c:>9}" for c in checkouts)]
    for trace in traces:
        calls, failed, _ = seen[trace, "this"]
        cells = " ".join(f"{statistics.median(marginal[trace, c]):9.1f}" for c in checkouts)
        lines.append(f"{trace:>20} {calls:>8,} {failed:>7,} {cells}")
    lines.append("a failing call / a passing one (medians of the rounds' ratios):")
    for shape in PAIRED:
        if f"{shape}.fail" not in traces or f"{shape}.pass" not in traces:
            continue
        cells = []
        for label in checkouts:
            fail, ok = marginal[f"{shape}.fail", label], marginal[f"{shape}.pass", label]
            ratio = statistics.median(f / p for f, p in zip(fail, ok, strict=True))
            cells.append(f"{ratio:8.2f}x")
        lines.append(f"{shape:>20} {'':>8} {'':>7} " + " ".join(cells))
    return "\n".join(lines)


if __name__ == "__main__":
    main()
