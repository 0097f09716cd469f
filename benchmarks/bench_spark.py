"""``check`` on Apache Spark (``local[2]``) against the same trace checked locally.

    python benchmarks/bench_spark.py                  # 100,000 OpenAI Chat calls
    python benchmarks/bench_spark.py --calls 1000000  # the README's figure

Prints the Spark run's throughput (wall time of ``read_captures`` + ``check`` and the
summary, session start-up excluded) and whether its summary is the local run's.
"""

from __future__ import annotations

import os
import time

from _common import BenchParser, make_catalog, out_dir, write_tools, write_trace


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--master", default="local[2]")
    options = parser.parse_args()

    from jsoncontract import spark
    from jsoncontract.api import iter_results
    from jsoncontract.business import load_business
    from jsoncontract.model import Summary
    from jsoncontract.tools import ToolSet

    out = out_dir()
    catalog = make_catalog(120)
    tools = write_tools(out / "bench-tools.json", catalog)
    trace = write_trace(
        out / f"bench-chat-{options.calls}.jsonl", catalog, options.calls, dialects=1
    )
    print(f"trace: {options.calls:,} calls; load average {os.getloadavg()[0]:.1f}")

    session = spark.session(options.master)
    try:
        start = time.perf_counter()
        report = spark.check(spark.read_captures(session, [trace]), tools=[tools])
        seconds = time.perf_counter() - start
        partitions = report.results.rdd.getNumPartitions()
    finally:
        session.stop()
    print(
        f"Spark {options.master}: {options.calls / seconds:,.0f} calls/s "
        f"({seconds:.1f} s, {partitions} partitions, {report.reread} read again on the "
        f"driver{', in one task' if report.in_one_task else ''})"
    )

    toolset = ToolSet.from_paths([tools])
    business = load_business(None, tools=toolset)
    local = Summary()
    start = time.perf_counter()
    for _ in iter_results([trace], tools=toolset, business=business, summary=local):
        pass
    business.close()
    print(f"local, one process: {options.calls / (time.perf_counter() - start):,.0f} calls/s")
    same = report.summary.to_dict() == local.to_dict()
    print(
        f"summaries {'identical' if same else 'DIFFERENT'}: {local.calls:,} calls, "
        f"{local.ok:,} ok, {local.failed:,} failed"
    )


if __name__ == "__main__":
    main()
