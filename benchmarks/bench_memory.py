"""Peak memory of ``check`` on long traces, and what a compressed trace costs.

    python benchmarks/bench_memory.py                       # every figure, shorter
    python benchmarks/bench_memory.py --keys 10000000 --rounds 3   # the README's figures

Figures (each a child process's peak RSS and CPU time, from ``wait4``):

- 1,000,000 OpenAI Chat calls, ``--format json -o FILE`` (``--jobs 1``, and the default);
- ``--keys`` calls (default 1,000,000; the README's figure: 10,000,000) of a write tool,
  each with its own idempotency key, ``--format json --results failed --jobs 1``: the index
  of keys spills to disk past its budget;
- a trace of ``--gzip-calls`` calls (default 200,000) plain and as ``.jsonl.gz``, run
  alternately, CPU time compared.
"""

from __future__ import annotations

import gzip
import os
import statistics
import time
from pathlib import Path

import orjson
from _common import COMMAND_ENV, BenchParser, cli, make_catalog, out_dir, write_tools, write_trace


def run(args: list[str]) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, peak RSS MB) of one child run (exit 0 or 1 expected).

    The child is started with posix_spawn, so its peak RSS is its own (a forked child
    starts with the pages of this process)."""
    wall = time.perf_counter()
    pid = os.posix_spawn(args[0], args, COMMAND_ENV)
    _, status, usage = os.wait4(pid, 0)
    wall = time.perf_counter() - wall
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{' '.join(args)} exited {code}")
    return usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss // 1024


def write_keys(path: Path, calls: int) -> Path:
    """MCP ``tools/call`` lines of ``create_order``, a distinct idempotency key each."""
    marker = path.with_suffix(".calls")
    if path.exists() and marker.exists() and marker.read_text() == str(calls):
        return path
    with path.open("wb") as out:
        block = []
        for i in range(calls):
            args = {"order_id": f"O{i % 9973}", "idempotency_key": f"key-{i:012d}"}
            call = {"name": "create_order", "arguments": args}
            block.append(
                orjson.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": call})
            )
            if len(block) == 10_000:
                out.write(b"\n".join(block) + b"\n")
                block = []
        if block:
            out.write(b"\n".join(block) + b"\n")
    marker.write_text(str(calls))
    return path


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--keys", type=int, default=1_000_000)
    parser.add_argument("--gzip-calls", type=int, default=200_000, help="the plain/gzip trace")
    parser.add_argument("--rounds", type=int, default=1, help="plain/gzip alternations")
    parser.add_argument("--skip", nargs="*", default=[], choices=["calls", "keys", "gzip"])
    options = parser.parse_args()
    out = out_dir()
    catalog = make_catalog(120)
    tools = write_tools(out / "bench-tools.json", catalog)
    report = str(out / "bench-memory-report.json")
    base = [*cli(), "check", "--tools", str(tools), "--no-progress", "-o", report]
    print(f"load average {os.getloadavg()[0]:.1f}")

    if "calls" not in options.skip:
        trace = write_trace(
            out / f"bench-chat-{options.calls}.jsonl", catalog, options.calls, dialects=1
        )
        for jobs in ("1", None):
            extra = ["--jobs", jobs] if jobs else []
            cpu, wall, rss = run([*base, str(trace), "-f", "json", *extra])
            label = "--jobs 1" if jobs else "default jobs"
            print(
                f"{options.calls:,} calls, --format json, {label}: "
                f"peak RSS {rss} MB, {cpu:.1f} s CPU, {wall:.1f} s wall"
            )

    if "keys" not in options.skip:
        key_tools = out / "bench-key-tools.json"
        schema = {
            "type": "object",
            "properties": {"order_id": {"type": "string"}, "idempotency_key": {"type": "string"}},
            "required": ["order_id", "idempotency_key"],
        }
        key_tools.write_bytes(
            orjson.dumps({"tools": [{"name": "create_order", "inputSchema": schema}]})
        )
        keys = write_keys(out / f"bench-keys-{options.keys}.jsonl", options.keys)
        command = [*cli(), "check", "--tools", str(key_tools), "--no-progress", "-o", report]
        cpu, wall, rss = run(
            [*command, str(keys), "-f", "json", "--results", "failed", "--jobs", "1"]
        )
        print(
            f"{options.keys:,} calls, a distinct idempotency key each: peak RSS {rss} MB, "
            f"{cpu:.1f} s CPU, {wall:.1f} s wall ({options.keys / wall:,.0f} calls/s)"
        )

    if "gzip" not in options.skip:
        size = options.gzip_calls
        plain = write_trace(out / f"bench-chat-{size}.jsonl", catalog, size, dialects=1)
        packed = plain.with_suffix(".jsonl.gz")
        if not packed.exists() or packed.stat().st_mtime < plain.stat().st_mtime:
            packed.write_bytes(gzip.compress(plain.read_bytes(), compresslevel=6))
        ratios = []
        for _ in range(options.rounds):
            cpu_plain = run([*base, str(plain), "-f", "json", "--jobs", "1"])[0]
            cpu_gz = run([*base, str(packed), "-f", "json", "--jobs", "1"])[0]
            ratios.append(cpu_gz / cpu_plain)
        print(
            f".jsonl.gz against .jsonl ({size:,} calls, --jobs 1, CPU time): "
            f"{statistics.median(ratios):.2f}x (rounds: {', '.join(f'{r:.2f}' for r in ratios)})"
        )


if __name__ == "__main__":
    main()
