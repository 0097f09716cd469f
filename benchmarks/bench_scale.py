"""``check`` at scale, against the bare loop, side by side in the same run.

    python benchmarks/bench_scale.py                  # 200,000 OpenAI Chat calls, 120 tools
    python benchmarks/bench_scale.py --rounds 3       # the README's figures (median of 3)

The bare loop is the floor a reader would write by hand: for each line of a JSONL of OpenAI
Chat tool calls, ``orjson.loads(line)``, take ``tool_calls[0].function``,
``orjson.loads(arguments)`` and ``validators[name].is_valid(arguments)``, with one
python-jsonschema ``Draft202012Validator`` per tool built up front; only the loop is timed.

Each round runs the bare loop (in this process) and then ``check --format json -o FILE
--jobs N`` (a child process, end to end: start-up, tool loading and the report included) for
every N asked, so every figure of a round is taken under the same load. The machine is
shared, so two clocks are printed:

- CPU seconds: the loop's own CPU time, and the child's user + system time (its workers'
  included, as they are its children). CPU time is what load on the machine disturbs least;
  the ``--jobs 1`` ratio is read from it.
- wall seconds: what a user waits for. More jobs only help the wall clock, so the ratio for
  ``--jobs`` above one is read from it (and is only meaningful when the machine is idle).

The ratio is the bare loop's time over the check's: above 1 the check is faster.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import orjson
from _common import COMMAND_ENV, BenchParser, cli, make_catalog, out_dir, write_tools, write_trace


def bare_loop(trace: Path, catalog: list[dict[str, Any]]) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, valid calls) of the bare loop over ``trace``."""
    from jsonschema import Draft202012Validator

    validators = {t["name"]: Draft202012Validator(t["inputSchema"]) for t in catalog}
    lines = trace.read_bytes().splitlines()
    loads = orjson.loads
    valid = 0
    cpu, wall = time.process_time(), time.perf_counter()
    for line in lines:
        function = loads(line)["choices"][0]["message"]["tool_calls"][0]["function"]
        try:
            arguments = loads(function["arguments"])
        except orjson.JSONDecodeError:
            continue
        valid += validators[function["name"]].is_valid(arguments)
    return time.process_time() - cpu, time.perf_counter() - wall, valid


def run_check(args: list[str]) -> tuple[float, float, int]:
    """(CPU seconds, wall seconds, exit code) of one child run (its peak RSS would be this
    process's, forked with the trace in memory: bench_memory.py measures memory)."""
    wall = time.perf_counter()
    proc = subprocess.Popen(
        args, env=COMMAND_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - wall
    proc.stderr.close()
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"check failed (exit {code}): {err.decode(errors='replace')}")
    return usage.ru_utime + usage.ru_stime, wall, code


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--tools", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=1, help="alternating rounds (median)")
    parser.add_argument(
        "--jobs", type=int, nargs="+", default=[1, 0], help="--jobs values (0: the default)"
    )
    parser.add_argument("--extra", nargs=argparse.REMAINDER, default=[], help="more check args")
    options = parser.parse_args()

    out = out_dir()
    catalog = make_catalog(options.tools)
    tools = write_tools(out / "bench-tools.json", catalog)
    trace = write_trace(
        out / f"bench-chat-{options.calls}.jsonl", catalog, options.calls, dialects=1
    )
    print(
        f"trace: {options.calls:,} OpenAI Chat calls over {options.tools} tools, "
        f"{trace.stat().st_size / 1e6:.0f} MB; load average {os.getloadavg()[0]:.1f}"
    )
    base = [*cli(), "check", "--tools", str(tools), str(trace), "--format", "json"]
    base += ["-o", str(out / "bench-scale-report.json"), "--no-progress", *options.extra]
    figures: dict[str, list[tuple[float, float]]] = {"bare": []}
    for _ in range(options.rounds):
        cpu, wall, _valid = bare_loop(trace, catalog)
        figures["bare"].append((cpu, wall))
        for jobs in options.jobs:
            label = f"--jobs {jobs}" if jobs else "default jobs"
            command = base + (["--jobs", str(jobs)] if jobs else [])
            cpu_c, wall_c, _code = run_check(command)
            figures.setdefault(label, []).append((cpu / cpu_c, wall / wall_c))
    bare_cpu = statistics.median(c for c, _ in figures["bare"])
    bare_wall = statistics.median(w for _, w in figures["bare"])
    print(
        f"bare loop: {options.calls / bare_cpu:,.0f} calls/s CPU, "
        f"{options.calls / bare_wall:,.0f} calls/s wall"
    )
    for label, ratios in figures.items():
        if label == "bare":
            continue
        cpu_ratio = statistics.median(c for c, _ in ratios)
        wall_ratio = statistics.median(w for _, w in ratios)
        print(
            f"check {label}: {cpu_ratio:.2f}x the bare loop in CPU time, "
            f"{wall_ratio:.2f}x in wall time "
            f"(~{options.calls / bare_wall * wall_ratio:,.0f} calls/s wall); rounds, CPU: "
            + ", ".join(f"{c:.2f}" for c, _ in ratios)
            + "; wall: "
            + ", ".join(f"{w:.2f}" for _, w in ratios)
        )


if __name__ == "__main__":
    main()
