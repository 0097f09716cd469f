"""``mcp record`` latency and ``mcp probe`` wall time.

Proxy: a line-echo server is run twice side by side, once directly and once behind
``jsoncontract mcp record -o TRACE``; frames are sent to each in turn (A, B, A, B...) so that
both see the same machine load, and the round trips are compared. A round trip crosses the
proxy twice (the request and the answer), so the added latency per frame is half the
difference of the medians.

Probe: the test suite's workbench server with N generated read-only tools, probed with the
default settings (four calls in flight), and one call at a time for comparison; once with
tools that answer at once, once with tools that take ``--latency`` ms (a backend call).

    python benchmarks/bench_mcp.py [--frames 2000] [--tools 20] [--latency 50]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO

from _common import BenchParser

REPO = Path(__file__).resolve().parent.parent
ECHO = (
    "import sys\n"
    "for line in sys.stdin.buffer:\n"
    "    sys.stdout.buffer.write(line)\n"
    "    sys.stdout.buffer.flush()\n"
)
CALL = (
    b'{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"update_shipment",'
    b'"arguments":{"order_id":"ORD-771204","priority":"overnight","notify_customer":true,'
    b'"idempotency_key":"ovn-771204-0001","lines":[{"sku":"SKU-1","qty":2},'
    b'{"sku":"SKU-2","qty":1}]}}}\n'
)


def _round_trip(stdin: IO[bytes], stdout: IO[bytes], frame: bytes) -> float:
    start = time.perf_counter()
    stdin.write(frame)
    stdin.flush()
    stdout.readline()
    return time.perf_counter() - start


def proxy_latency(frames: int) -> dict[str, float]:
    """Median round trip directly and through the recording proxy, interleaved."""
    with tempfile.TemporaryDirectory() as scratch:
        trace = Path(scratch) / "trace.jsonl"
        direct = subprocess.Popen(
            [sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        proxied = subprocess.Popen(
            [sys.executable, "-m", "jsoncontract", "mcp", "record", "-o", str(trace), "--",
             sys.executable, "-c", ECHO],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=REPO,
        )  # fmt: skip
        assert direct.stdin and direct.stdout and proxied.stdin and proxied.stdout
        for i in range(50):  # warm up both
            _round_trip(direct.stdin, direct.stdout, CALL % i)
            _round_trip(proxied.stdin, proxied.stdout, CALL % i)
        plain, through = [], []
        for i in range(frames):
            plain.append(_round_trip(direct.stdin, direct.stdout, CALL % i))
            through.append(_round_trip(proxied.stdin, proxied.stdout, CALL % i))
        for process in (direct, proxied):
            assert process.stdin and process.stdout
            process.stdin.close()
            process.wait(timeout=30)
            process.stdout.close()
        recorded = sum(1 for _ in trace.open("rb")) - 2  # minus the start and exit lines
    direct_ms = statistics.median(plain) * 1000
    proxied_ms = statistics.median(through) * 1000
    return {
        "frames": frames,
        "recorded": recorded,
        "direct_ms": direct_ms,
        "proxied_ms": proxied_ms,
        "added_per_frame_ms": (proxied_ms - direct_ms) / 2,
        "direct_p95_ms": sorted(plain)[int(0.95 * frames)] * 1000,
        "proxied_p95_ms": sorted(through)[int(0.95 * frames)] * 1000,
    }


def probe_time(tools: int, concurrency: int, latency: float) -> dict[str, float]:
    """Wall time of ``mcp probe`` over the workbench with ``tools`` generated tools whose
    calls take ``latency`` ms each."""
    from jsoncontract.live.probe import ProbeSettings, probe
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.wire import ConnectOptions

    spec = ServerSpec(
        command=(sys.executable, str(REPO / "tests/live/servers/workbench.py"), "--tools",
                 str(tools), "--latency", str(latency)),
        name="workbench",
    )  # fmt: skip
    start = time.perf_counter()
    report = probe(spec, ProbeSettings(concurrency=concurrency), ConnectOptions(timeout=10))
    seconds = time.perf_counter() - start
    card = report.servers[0]
    assert card.error is None, card.error
    summary = card.summary()
    checks = sum(c.seconds or 0.0 for c in card.protocol)
    calls = sum(r.seconds or 0.0 for t in card.tools for r in t.sent)
    return {
        "tools": summary["tools_called"],
        "calls": summary["calls"],
        "seconds": seconds,
        "checks_s": checks,
        "call_s": calls,
    }


def main() -> None:
    """Print the figures."""
    parser = BenchParser(__doc__)
    parser.add_argument("--frames", type=int, default=2000)
    parser.add_argument("--tools", type=int, default=20)
    parser.add_argument("--latency", type=float, default=50.0, help="ms per call, second run")
    args = parser.parse_args()
    import logging

    logging.getLogger().addHandler(logging.NullHandler())
    latency = proxy_latency(args.frames)
    print(
        f"proxy: {latency['frames']} round trips ({latency['recorded']} frames recorded); "
        f"median {latency['direct_ms']:.3f} ms direct, {latency['proxied_ms']:.3f} ms through "
        f"mcp record (p95 {latency['direct_p95_ms']:.3f} / {latency['proxied_p95_ms']:.3f} ms); "
        f"added per frame: {latency['added_per_frame_ms']:.3f} ms"
    )
    for latency in (0.0, args.latency):
        for concurrency in (1, 4):
            result = probe_time(args.tools, concurrency, latency)
            print(
                f"probe: {result['tools']} tools answering in {latency:g} ms, "
                f"{result['calls']} calls, concurrency {concurrency}: {result['seconds']:.2f} s "
                f"in all (negotiation and protocol checks {result['checks_s']:.2f} s)"
            )


if __name__ == "__main__":
    main()
