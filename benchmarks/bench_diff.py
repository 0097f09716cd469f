"""Benchmark ``jsoncontract diff``: a trace of three-hop calls, and one diff of two large documents.

    python benchmarks/bench_diff.py                 # 10,000 three-hop calls, 1 MB documents
    python benchmarks/bench_diff.py --calls 50000 --skip-deepdiff

Prints calls per second end to end (``diff --trace --format json -o FILE``, a separate
process, start-up included) and through the library (``iter_diff``), the time of one diff
of two 1 MB documents (end to end, and the comparison alone), deepdiff on the same pair for
reference, and the cold start of ``jsoncontract diff --help``.
"""

from __future__ import annotations

import random
import resource
import time
from pathlib import Path
from typing import Any

import orjson
from _common import (
    BenchParser,
    _event,
    cli,
    make_arguments,
    make_catalog,
    median_time,
    out_dir,
    run_command,
    write_tools,
)

#: Share of calls with each fault; the rest are clean.
FAULTS = {"coerced": 0.05, "renamed": 0.05, "string-arguments": 0.05, "dropped": 0.05}


#: The model dialects of ``_common._event`` used here, and the id each gives the call.
MODEL_DIALECTS = {0: "call_{}", 1: "toolu_{}", 3: "{}"}


def _hops(rng: random.Random, index: int, tool: dict[str, Any]) -> list[tuple[int, bytes]]:
    """The three lines of one call, each with the position it is written at."""
    name = tool["name"]
    call_id = f"{index:08x}"
    args = make_arguments(tool["inputSchema"], rng)
    sent: Any = dict(args)
    body = dict(args)
    roll = rng.random()
    edge = 0.0
    fault = "clean"
    for label, share in FAULTS.items():
        edge += share
        if roll < edge:
            fault = label
            break
    if fault == "coerced":
        body["count"] = str(body["count"])
    elif fault == "renamed":
        body["identifier"] = body.pop("id")
    elif fault == "dropped":
        body.pop("mode")
    elif fault == "string-arguments":
        sent = orjson.dumps(args).decode()
    dialect = rng.choice(list(MODEL_DIALECTS))
    model_id = MODEL_DIALECTS[dialect].format(call_id)
    frame = {
        "jsonrpc": "2.0",
        "id": index,
        "method": "tools/call",
        "params": {"name": name, "arguments": sent, "_meta": {"tool_call_id": model_id}},
    }
    record = {"hop": "downstream", "tool": name, "call_id": model_id, "payload": body}
    position = index * 3
    # hops of neighbouring calls interleave, as a gateway log does under concurrency
    return [
        (position, _event(dialect, name, call_id, args, None).rstrip(b"\n")),
        (position + 4, orjson.dumps(frame)),
        (position + 8, orjson.dumps(record)),
    ]


def write_trace(path: Path, catalog: list[dict[str, Any]], calls: int, seed: int = 17) -> Path:
    """A JSONL trace of ``calls`` three-hop calls (reused when already written)."""
    marker = path.with_suffix(".calls")
    if path.exists() and marker.exists() and marker.read_text() == str(calls):
        return path
    rng = random.Random(seed)
    lines: list[tuple[int, bytes]] = []
    for i in range(calls):
        lines.extend(_hops(rng, i, catalog[rng.randrange(len(catalog))]))
    lines.sort(key=lambda item: item[0])
    path.write_bytes(b"\n".join(line for _, line in lines) + b"\n")
    marker.write_text(str(calls))
    return path


def large_pair(size: int, seed: int = 5) -> tuple[dict[str, Any], dict[str, Any]]:
    """Two documents of about ``size`` bytes: the second edited here and there."""
    rng = random.Random(seed)
    items = []
    while len(orjson.dumps(items)) < size:
        n = len(items)
        items.append(
            {
                "sku": f"SKU-{n:06d}",
                "name": f"Item number {n} with a longer descriptive name",
                "price": round(rng.random() * 500, 2),
                "qty": rng.randint(1, 20),
                "tags": rng.sample(["red", "blue", "green", "sale", "new", "bulk"], 3),
                "dims": {"w": rng.randint(1, 99), "h": rng.randint(1, 99), "unit": "cm"},
            }
        )
    before = {"order": "ORD-000001", "customer": {"id": "C00417", "tier": "gold"}, "items": items}
    after = orjson.loads(orjson.dumps(before))
    lines = after["items"]
    for k in range(0, len(lines), 97):
        lines[k]["qty"] = str(lines[k]["qty"])  # coerced
    for k in range(13, len(lines), 211):
        lines[k]["price"] = round(lines[k]["price"] * 1.1, 2)  # value changed
    del lines[len(lines) // 3]  # dropped
    lines.insert(len(lines) // 2, dict(lines[0], sku="SKU-NEW"))  # added
    after["customer"]["customerTier"] = after["customer"].pop("tier")  # renamed
    return before, after


def timed(command: list[str]) -> tuple[float, float, int, int]:
    """(wall seconds, CPU seconds, exit code, peak RSS MB) of one run of a command.

    The CPU time is what the figures mean on a machine shared with other work.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds, code, rss = run_command(command)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu, code, rss


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--tools", type=int, default=120)
    parser.add_argument("--size", type=int, default=1_000_000, help="bytes per large document")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--skip-deepdiff", action="store_true")
    options = parser.parse_args()

    from jsoncontract.diff import CompareOptions, Comparer, diff, iter_diff
    from jsoncontract.tools import ToolSet

    out = out_dir()
    catalog = make_catalog(options.tools)
    tools = write_tools(out / "bench-diff-tools.json", catalog)
    trace = write_trace(out / f"bench-diff-trace-{options.calls}.jsonl", catalog, options.calls)
    size_mb = trace.stat().st_size / 1e6
    print(
        f"trace: {options.calls:,} three-hop calls ({options.calls * 3:,} lines) over "
        f"{options.tools} tools, {size_mb:.1f} MB, {sum(FAULTS.values()):.0%} with a fault"
    )

    command = [
        *cli(), "diff", "--tools", str(tools), "--trace", str(trace),
        "-f", "json", "-o", str(out / "bench-diff-report.json"),
    ]  # fmt: skip
    runs = sorted(timed(command) for _ in range(options.repeat))
    seconds, cpu, code, rss = runs[len(runs) // 2]
    print(
        f"diff --trace --format json (end to end): {options.calls / seconds:,.0f} calls/s "
        f"({seconds:.2f} s wall, {cpu:.2f} s CPU = {options.calls / cpu:,.0f} calls per CPU "
        f"second; exit {code}, peak RSS {rss} MB)"
    )

    toolset = ToolSet.from_paths([tools])

    def library() -> float:
        start = time.perf_counter()
        for _ in iter_diff(trace=trace, tools=toolset):
            pass
        return time.perf_counter() - start

    seconds = median_time(library, options.repeat)
    print(f"iter_diff (library): {options.calls / seconds:,.0f} calls/s ({seconds:.2f} s)")

    before, after = large_pair(options.size)
    a_file = out / "bench-diff-large-mcp.json"
    b_file = out / "bench-diff-large-body.json"
    a_file.write_bytes(
        orjson.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "bulk_order", "arguments": before}}
        )
    )  # fmt: skip
    b_file.write_bytes(orjson.dumps(after))
    sizes = [f"{p.stat().st_size / 1e6:.2f} MB" for p in (a_file, b_file)]
    print(f"large pair: {' and '.join(sizes)}, {len(before['items']):,} array items")
    command = [*cli(), "diff", "-f", "json", "-o", str(out / "bench-diff-large.json"),
               str(a_file), str(b_file)]  # fmt: skip
    runs = sorted(timed(command) for _ in range(options.repeat))
    seconds, cpu, code, _ = runs[len(runs) // 2]
    print(
        f"one diff of the large pair (end to end, start-up and parse included): {seconds:.2f} s "
        f"wall, {cpu:.2f} s CPU (exit {code})"
    )
    text = [*cli(), "diff", "-o", str(out / "bench-diff-large.txt"), str(a_file), str(b_file)]
    runs = sorted(timed(text) for _ in range(options.repeat))
    seconds, cpu, code, _ = runs[len(runs) // 2]
    print(f"  the same with the side-by-side text report: {seconds:.2f} s wall, {cpu:.2f} s CPU")

    def compare() -> float:
        start = time.perf_counter()
        Comparer(CompareOptions()).compare(before, after)
        return time.perf_counter() - start

    print(f"  the comparison alone: {median_time(compare, options.repeat) * 1000:.0f} ms")

    def whole() -> float:
        start = time.perf_counter()
        report = diff([a_file, b_file])
        report.results[0].rows()
        return time.perf_counter() - start

    print(
        f"  library diff() with the side-by-side rows: {median_time(whole, options.repeat):.2f} s"
    )
    if not options.skip_deepdiff:
        start = time.perf_counter()
        from deepdiff import DeepDiff

        imported = time.perf_counter() - start
        start = time.perf_counter()
        DeepDiff(before, after)
        print(
            f"  for reference, deepdiff on the same pair: {time.perf_counter() - start:.2f} s "
            f"(+{imported * 1000:.0f} ms to import it)"
        )

    help_cmd = [*cli(), "diff", "--help"]
    run_command(help_cmd)
    seconds = median_time(lambda: run_command(help_cmd)[0], 7)
    print(f"cold start, jsoncontract diff --help: {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
