"""Benchmark the business gate: added cost per call, and the idempotency index's memory.

    python benchmarks/bench_business.py                 # 200,000 calls over 120 tools
    python benchmarks/bench_business.py --calls 50000 --repeat 1

Five simple rules per tool (a range, an inequality, a string function, a small-set and a
large-set lookup: 1,000,000 reference ids), compiled once. Figures:

- loading: the rules compiled alone, and compiled and checked against their tools'
  schemas (types, presence, cost), side by side;
- the gate alone on schema-valid calls (``BusinessRules.check`` in a loop), per call, with
  the evaluation as it is and as it was before the run-time guard (which turns an
  evaluation the runtime stops into a finding), in alternating runs;
- ``iter_check`` over the trace with and without the gate: the added cost per call;
- the idempotency index after 200,000 writes with distinct keys: bytes per key.
"""

from __future__ import annotations

import gc
import random
import time
import tracemalloc
from pathlib import Path
from typing import Any

import orjson
from _common import (
    BenchParser,
    make_arguments,
    make_catalog,
    median_time,
    out_dir,
    write_tools,
    write_trace,
)

RULES = """
[[tools.{name}]]
id = "count-in-range"
rule = "self.count >= 1 && self.count <= 100"

[[tools.{name}]]
id = "count-not-13"
rule = "self.count != 13"

[[tools.{name}]]
id = "id-prefix"
rule = "self.id.startsWith('ABC-')"

[[tools.{name}]]
id = "country-known"
scope = "/address"
rule = "self.country in data.countries"

[[tools.{name}]]
id = "id-known"
rule = "self.id in data.ids"
severity = "warning"
"""


def write_rules(out: Path, catalog: list[dict[str, Any]], count: int) -> Path:
    """Five rules per tool, plus the reference data they read (``count`` ids)."""
    ids = [f"ABC-{i:06d}" for i in range(count)]
    (out / "bench-ids.json").write_bytes(orjson.dumps(ids))
    header = (
        '[data.countries]\nvalues = ["PT", "ES", "FR", "DE", "GB"]\n'
        '[data.ids]\njson = "bench-ids.json"\n'
    )
    body = "".join(RULES.format(name=tool["name"]) for tool in catalog)
    path = out / "bench-rules.toml"
    path.write_text(header + body, encoding="utf-8")
    return path


def make_calls(
    toolset: Any, catalog: list[dict[str, Any]], count: int
) -> list[tuple[Any, Any, Any]]:
    """``count`` schema-valid calls over the catalog: (call, arguments, tool)."""
    from jsoncontract.model import ArgumentsForm, Dialect, Hop, Source, ToolCall

    rng = random.Random(5)
    calls = []
    for i in range(count):
        tool = catalog[rng.randrange(len(catalog))]
        arguments = make_arguments(tool["inputSchema"], rng)
        call = ToolCall(
            Hop.MCP,
            Dialect.MCP,
            tool["name"],
            str(i),
            arguments,
            ArgumentsForm.VALUE,
            Source("bench.jsonl", i + 1),
        )
        calls.append((call, arguments, toolset.get(tool["name"])))
    return calls


def gate_alone(gate: Any, calls: list[tuple[Any, Any, Any]]) -> float:
    """Seconds per call of ``gate.check`` on schema-valid calls (parsing not included)."""
    check = gate.check
    start = time.perf_counter()
    for call, arguments, contract in calls:
        check(call, arguments, contract)
    return (time.perf_counter() - start) / len(calls)


def unguarded_evaluate(self: Any, expression: Any, activation: Any) -> tuple[Any, str | None]:
    """``CelEnvironment.evaluate`` as it was before the run-time guard: the baseline."""
    result = expression.program.eval(activation)
    value = result.value()
    if value is True:
        return True, None
    if result.type() == self._error_type:
        return None, _runtime_message(str(value))
    return value, None


def _runtime_message(text: str) -> str:
    from jsoncontract.business._cel import runtime_message

    return runtime_message(text)


def side_by_side(gate: Any, calls: list[tuple[Any, Any, Any]], rounds: int) -> Any:
    """Seconds per call of the gate with today's evaluation and with the baseline's, over
    the same calls in alternating rounds (the best round of each: on a shared machine the
    fastest round is the one least disturbed)."""
    from jsoncontract.business._cel import CelEnvironment

    guarded = CelEnvironment.evaluate
    now: list[float] = []
    before: list[float] = []
    arms = ((guarded, now), (unguarded_evaluate, before))
    try:
        gate_alone(gate, calls)  # warm up
        for run in range(rounds):
            for evaluate, times in arms if run % 2 == 0 else arms[::-1]:
                CelEnvironment.evaluate = evaluate  # type: ignore[method-assign]
                times.append(gate_alone(gate, calls))
    finally:
        CelEnvironment.evaluate = guarded  # type: ignore[method-assign]
    return min(now), min(before)


def index_memory(count: int) -> tuple[float, int]:
    """Bytes per key of the idempotency index after ``count`` writes with distinct keys."""
    from jsoncontract.business import BusinessRules
    from jsoncontract.business.idempotency import IdempotencySettings
    from jsoncontract.model import ArgumentsForm, Dialect, Hop, Source, ToolCall, ToolContract

    tool = ToolContract(
        name="update_shipment",
        input_schema={"type": "object", "properties": {"idempotency_key": {"type": "string"}}},
        dialect=Dialect.MCP,
        source=Source("tools.json"),
    )
    gate = BusinessRules(None, idempotency=IdempotencySettings())
    source = Source("bench.jsonl", 1)
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for i in range(count):
        arguments = {"order_id": f"ORD-{i:06d}", "note": "x" * 200, "idempotency_key": f"k-{i}"}
        call = ToolCall(
            Hop.MCP, Dialect.MCP, tool.name, str(i), arguments, ArgumentsForm.VALUE, source
        )
        gate.check(call, arguments, tool)
    gc.collect()
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert gate.tracker is not None and gate.tracker.size == count
    return grown / count, grown


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--calls", type=int, default=200_000)
    parser.add_argument("--tools", type=int, default=120)
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--ids", type=int, default=1_000_000, help="reference ids (large set)")
    parser.add_argument("--gate-calls", type=int, default=20_000, help="calls the gate alone takes")
    parser.add_argument("--gate-rounds", type=int, default=20, help="its rounds (best)")
    options = parser.parse_args()

    from jsoncontract import iter_check
    from jsoncontract.business import BusinessRules, IdempotencySettings, load_rules
    from jsoncontract.tools import ToolSet

    out = out_dir()
    catalog = make_catalog(options.tools)
    tools = write_tools(out / "bench-tools.json", catalog)
    trace = write_trace(out / f"bench-trace-{options.calls}.jsonl", catalog, options.calls)
    toolset = ToolSet.from_paths([tools])
    rules_path = write_rules(out, catalog, options.ids)
    start = time.perf_counter()
    plain = load_rules([rules_path], tool_names=toolset.names())
    plain_ms = (time.perf_counter() - start) * 1000
    start = time.perf_counter()
    rules = load_rules([rules_path], tools=toolset)
    load_ms = (time.perf_counter() - start) * 1000
    print(
        f"rules: {len(rules)} ({len(rules) // options.tools} per tool), "
        f"{options.ids:,} reference ids; "
        f"loaded and compiled in {plain_ms:.0f} ms, and checked against the schemas too in "
        f"{load_ms:.0f} ms (+{(load_ms - plain_ms) / len(rules) * 1000:.0f} us per rule)"
    )
    del plain
    rules_only = BusinessRules(rules, idempotency=IdempotencySettings(enabled=False))
    calls = make_calls(toolset, catalog, options.gate_calls)
    per_call, baseline = side_by_side(rules_only, calls, options.gate_rounds)
    verdict = "met" if per_call <= 30e-6 else "MISSED"
    print(
        f"gate alone, 5 rules per call: {per_call * 1e6:.1f} us per call (before the run-time "
        f"guard: {baseline * 1e6:.1f} us; ratio {per_call / baseline:.3f}); target <= 30 us: "
        f"{verdict}"
    )

    def library(business: Any) -> float:
        start = time.perf_counter()
        for _ in iter_check([trace], tools=toolset, business=business):
            pass
        return time.perf_counter() - start

    base = median_time(lambda: library(None), options.repeat)
    with_rules = median_time(
        lambda: library(BusinessRules(rules, idempotency=IdempotencySettings())), options.repeat
    )
    added = (with_rules - base) / options.calls
    print(
        f"iter_check over {options.calls:,} calls: {base:.2f} s without the gate, "
        f"{with_rules:.2f} s with it: +{added * 1e6:.1f} us per call "
        f"({options.calls / with_rules:,.0f} calls/s)"
    )
    per_key, total = index_memory(options.calls)
    print(
        f"idempotency index: {per_key:.0f} bytes per key, {total / 1e6:.1f} MB for "
        f"{options.calls:,} distinct keys (200-byte payloads are not kept)"
    )


if __name__ == "__main__":
    main()
