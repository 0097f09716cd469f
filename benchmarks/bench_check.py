"""Benchmark ``jsoncontract check``: throughput, memory and cold start.

    python benchmarks/bench_check.py              # 200,000 calls over 120 tools
    python benchmarks/bench_check.py --calls 1000000 --skip-cold

Prints calls per second end to end (``check --format json -o FILE``, a separate process) and
through the library (``iter_check``), the peak RSS of the CLI run, and the cold start of
``jsoncontract --version``, ``--help`` and a one-call ``check``.
"""

from __future__ import annotations

import time

from _common import (
    BenchParser,
    cli,
    make_catalog,
    median_time,
    out_dir,
    run_command,
    write_tools,
    write_trace,
)


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--tools", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--cold-runs", type=int, default=11, help="runs per cold start (median)")
    parser.add_argument("--skip-cold", action="store_true")
    options = parser.parse_args()

    from jsoncontract import iter_check
    from jsoncontract.tools import ToolSet

    out = out_dir()
    catalog = make_catalog(options.tools)
    tools = write_tools(out / "bench-tools.json", catalog)
    trace = write_trace(out / f"bench-trace-{options.calls}.jsonl", catalog, options.calls)
    size_mb = trace.stat().st_size / 1e6
    print(f"trace: {options.calls:,} calls over {options.tools} tools, {size_mb:.0f} MB")

    command = [
        *cli(),
        "check",
        "--tools",
        str(tools),
        str(trace),
        "-f",
        "json",
        "-o",
        str(out / "bench-report.json"),
        "--no-progress",
    ]
    runs = [run_command(command) for _ in range(options.repeat)]
    best = sorted(runs)[len(runs) // 2]
    seconds, code, rss = best
    print(
        f"check --format json (end to end): {options.calls / seconds:,.0f} calls/s "
        f"({seconds:.2f} s, exit {code}, peak RSS {rss} MB)"
    )

    toolset = ToolSet.from_paths([tools])

    def library() -> float:
        start = time.perf_counter()
        failed = 0
        for result in iter_check([trace], tools=toolset):
            failed += result.stage is not None
        return time.perf_counter() - start

    seconds = median_time(library, options.repeat)
    print(f"iter_check (library): {options.calls / seconds:,.0f} calls/s ({seconds:.2f} s)")

    if options.skip_cold:
        return
    one = out / "bench-one-call.jsonl"
    one.write_bytes(trace.read_bytes().split(b"\n", 1)[0] + b"\n")
    for label, args in (
        ("jsoncontract --version", [*cli(), "--version"]),
        ("jsoncontract --help", [*cli(), "--help"]),
        ("one-call check", [*cli(), "check", "--tools", str(tools), str(one), "-q"]),
    ):
        run_command(args)  # warm the file cache
        seconds = median_time(lambda a=args: run_command(a)[0], options.cold_runs)
        print(f"cold start, {label}: {seconds * 1000:.0f} ms")


if __name__ == "__main__":
    main()
