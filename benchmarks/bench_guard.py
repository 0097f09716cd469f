"""``mcp guard``: the latency a schema-only guard adds to a call, side by side with a direct
connection.

Two copies of one stdio server run at once, one directly and one behind
``jsoncontract mcp guard --no-config -- SERVER`` (no rules, no lock, no trace: the envelope,
parse and schema gates on every call, and the result stage on every answer). ``tools/call``
frames are sent to each in turn (A, B, A, B...), so that both see the same machine load, and
the round trips are compared: the guard's cost per call is the difference of the medians
(a call crosses the guard twice, the request and its answer).

The server is a line server that answers at once (so the guard's cost is not lost in the
server's), and then the shipping server of the test suite, built with the official SDK (a
server as they are written); a third run puts ``-o TRACE`` on the guard.

    python benchmarks/bench_guard.py [--calls 2000] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

import orjson

REPO = Path(__file__).resolve().parent.parent
SHIPPING = REPO / "tests" / "live" / "servers" / "shipping.py"
#: The one tool of the line server: a closed schema with an enum, a bound and nested items.
QUOTE = {
    "name": "quote",
    "description": "Quote a shipping price.",
    "annotations": {"readOnlyHint": True},
    "inputSchema": {
        "type": "object",
        "additionalProperties": False,
        "required": ["destination", "weight_kg"],
        "properties": {
            "destination": {"type": "string", "enum": ["AMS", "BER", "LIS"]},
            "weight_kg": {"type": "number", "exclusiveMinimum": 0},
            "lines": {
                "type": "array",
                "maxItems": 20,
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["sku", "qty"],
                    "properties": {
                        "sku": {"type": "string", "pattern": "^SKU-[0-9]+$"},
                        "qty": {"type": "integer", "minimum": 1},
                    },
                },
            },
        },
    },
}
#: A server that lists the tool given as its argument and answers every call at once.
LINES = r"""
import json, sys
tools, out = [json.loads(sys.argv[1])], sys.stdout.buffer
answer = {"content": [{"type": "text", "text": '{"ok": true, "eur": 12.5}'}]}
for line in sys.stdin.buffer:
    message = json.loads(line)
    if "method" not in message or "id" not in message:
        continue
    result = {"tools": tools} if message["method"] == "tools/list" else answer
    out.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}).encode())
    out.write(b"\n")
    out.flush()
"""
INIT = {
    "jsonrpc": "2.0",
    "id": "init",
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST = {"jsonrpc": "2.0", "id": "list", "method": "tools/list"}


def _call(number: int) -> bytes:
    arguments = {
        "destination": ("AMS", "BER", "LIS")[number % 3],
        "weight_kg": 1.5 + number % 7,
        "lines": [{"sku": f"SKU-{number}", "qty": 2}, {"sku": "SKU-9", "qty": 1}],
    }
    if "SHIPPING" in _SERVER[0]:
        arguments.pop("lines")
    message = {"jsonrpc": "2.0", "id": number, "method": "tools/call",
               "params": {"name": "quote", "arguments": arguments}}  # fmt: skip
    return orjson.dumps(message) + b"\n"


_SERVER: list[str] = [""]


def _send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write(orjson.dumps(message) + b"\n")
    stdin.flush()


def _round_trip(stdin: IO[bytes], stdout: IO[bytes], frame: bytes) -> float:
    start = time.perf_counter()
    stdin.write(frame)
    stdin.flush()
    answer = stdout.readline()
    elapsed = time.perf_counter() - start
    assert b'"result"' in answer, answer
    return elapsed


def side_by_side(server: list[str], calls: int, *guard_options: str) -> dict[str, float]:
    """Median round trips directly and through the guard, interleaved."""
    _SERVER[0] = "SHIPPING" if str(SHIPPING) in server else "LINES"
    direct = subprocess.Popen(server, stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO)
    guarded = subprocess.Popen(
        [sys.executable, "-m", "jsoncontract", "mcp", "guard", "--no-config", *guard_options,
         "--", *server],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO,
    )  # fmt: skip
    pairs = ((direct.stdin, direct.stdout), (guarded.stdin, guarded.stdout))
    for stdin, stdout in pairs:
        assert stdin is not None and stdout is not None
        for message in (INIT, LIST):
            _send(stdin, message)
            stdout.readline()
            if message is INIT:
                _send(stdin, INITIALIZED)
    plain: list[float] = []
    through: list[float] = []
    try:
        for number in range(-50, calls):  # the first 50 warm both up
            frame = _call(number)
            a = _round_trip(direct.stdin, direct.stdout, frame)  # type: ignore[arg-type]
            b = _round_trip(guarded.stdin, guarded.stdout, frame)  # type: ignore[arg-type]
            if number >= 0:
                plain.append(a)
                through.append(b)
    finally:
        for process in (direct, guarded):
            assert process.stdin is not None and process.stdout is not None
            process.stdin.close()
            process.wait(timeout=30)
            process.stdout.close()
    direct_ms = statistics.median(plain) * 1000
    guarded_ms = statistics.median(through) * 1000
    return {
        "calls": calls,
        "direct_ms": direct_ms,
        "guarded_ms": guarded_ms,
        "added_ms": guarded_ms - direct_ms,
        "direct_p95_ms": sorted(plain)[int(0.95 * calls)] * 1000,
        "guarded_p95_ms": sorted(through)[int(0.95 * calls)] * 1000,
    }


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000, help="calls per run")
    parser.add_argument(
        "--quick", action="store_true", help="a small run that shows the script works"
    )
    return parser


def main(argv: list[str] | None = None) -> None:
    """Print the figures."""
    options = _parser().parse_args(argv)
    calls = 100 if options.quick and options.calls == 2000 else options.calls
    runs = [
        ("a line server", [sys.executable, "-c", LINES, json.dumps(QUOTE)], ()),
        ("the SDK shipping server", [sys.executable, str(SHIPPING)], ()),
    ]
    with tempfile.TemporaryDirectory() as scratch:
        trace = str(Path(scratch) / "trace.jsonl")
        line_server = [sys.executable, "-c", LINES, json.dumps(QUOTE)]
        runs.append(("a line server, -o TRACE", line_server, ("-o", trace)))
        for label, server, extra in runs:
            figures = side_by_side(server, calls, *extra)
            print(
                f"{label}: {figures['calls']} calls; median {figures['direct_ms']:.3f} ms direct, "
                f"{figures['guarded_ms']:.3f} ms through mcp guard (p95 "
                f"{figures['direct_p95_ms']:.3f} / {figures['guarded_p95_ms']:.3f} ms); added per "
                f"call: {figures['added_ms']:.3f} ms"
            )


if __name__ == "__main__":
    main()
