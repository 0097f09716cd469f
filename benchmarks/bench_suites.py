"""Fixture suites: generate suites for a synthetic catalog of tools, then run them.

    python benchmarks/bench_suites.py                 # 2,000 tools
    python benchmarks/bench_suites.py --tools 5000 --repeat 3
    python benchmarks/bench_suites.py --compare-hypothesis 200

Targets: generation >= 500 tools/s, running >= 20,000 cases/s end to end (reading and
checking the suite files included). ``--compare-hypothesis N`` also builds one valid
instance for N tools with hypothesis-jsonschema (when it is installed) and with the
built-in generator, and prints speed and coverage side by side: the figures behind the
choice of a hand-written generator.
"""

from __future__ import annotations

import gc
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import BenchParser

WORDS = ["order", "customer", "invoice", "shipment", "ticket", "account", "user", "file", "event"]
FORMATS = ["date", "date-time", "email", "uuid", "uri"]
PATTERNS = ["^[A-Z]{3}$", "^ORD-[0-9]{6}$", "^C[0-9]{5}$", "^[a-z][a-z0-9_-]{2,15}$"]


def _property(rng: random.Random, depth: int) -> dict[str, Any]:
    k = rng.random()
    if k < 0.18:
        return {"type": "string", "enum": [f"v{i}" for i in range(rng.randint(2, 6))]}
    if k < 0.28:
        return {"type": "string", "pattern": rng.choice(PATTERNS)}
    if k < 0.38:
        return {"type": "string", "format": rng.choice(FORMATS)}
    if k < 0.50:
        return {"type": "string", "minLength": 1, "maxLength": rng.choice([16, 64, 200])}
    if k < 0.62:
        return {"type": "integer", "minimum": 0, "maximum": rng.choice([10, 100, 1000])}
    if k < 0.67:
        return {"type": "number", "exclusiveMinimum": 0}
    if k < 0.73:
        return {"type": "boolean"}
    if k < 0.78:
        return {"anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}]}
    if k < 0.86 and depth < 2:
        return _object(rng, depth + 1, rng.randint(2, 4))
    if depth < 2:
        items = _object(rng, depth + 1, 2) if rng.random() < 0.5 else {"type": "string"}
        return {"type": "array", "items": items, "minItems": 1, "maxItems": 10}
    return {"type": "string"}


def _object(rng: random.Random, depth: int, size: int) -> dict[str, Any]:
    props = {f"{rng.choice(WORDS)}_{i}": _property(rng, depth) for i in range(size)}
    names = list(props)
    out: dict[str, Any] = {
        "type": "object",
        "properties": props,
        "required": names[: max(1, size // 2)],
    }
    if rng.random() < 0.8:
        out["additionalProperties"] = False
    return out


def catalog(count: int, seed: int = 1) -> list[dict[str, Any]]:
    """``count`` tools in Anthropic's dialect, a third of them with a shared ``$defs``."""
    rng = random.Random(seed)
    tools = []
    for i in range(count):
        schema = _object(rng, 0, rng.randint(3, 9))
        if i % 3 == 0:
            schema["$defs"] = {"money": _object(rng, 2, 2)}
            schema["properties"]["amount"] = {"$ref": "#/$defs/money"}
        tools.append(
            {"name": f"tool_{i}", "description": "A synthetic tool.", "input_schema": schema}
        )
    return tools


def _rate(count: float, seconds: float) -> str:
    return f"{count / seconds:,.0f}/s" if seconds > 0 else "inf"


def bench(count: int, repeat: int) -> dict[str, float]:
    """Generate suites for ``count`` tools, then read and run them; print the best of
    ``repeat`` runs, wall-clock and CPU time (CPU time does not count other processes
    competing for the machine)."""
    from jsoncontract._gc import collector_paused
    from jsoncontract.business import load_business
    from jsoncontract.suites import generate_suites, load_suites
    from jsoncontract.suites.runner import SuiteRunner
    from jsoncontract.tools import ToolSet

    work = Path(tempfile.mkdtemp(prefix="bench-suites-"))
    try:
        tools_file = work / "tools.json"
        tools_file.write_text(json.dumps(catalog(count)))
        wall: dict[str, float] = {}
        cpu: dict[str, float] = {}

        def timed(name: str, run: Any, *, paused: bool = False) -> Any:
            w, c = time.perf_counter(), time.process_time()
            if paused:  # as `jsoncontract test` runs them (jsoncontract.cli.run)
                with collector_paused():
                    value = run()
            else:
                value = run()
            wall[name] = min(wall.get(name, float("inf")), time.perf_counter() - w)
            cpu[name] = min(cpu.get(name, float("inf")), time.process_time() - c)
            return value

        for _ in range(repeat):
            gc.collect()  # what the paused runs of the round before left: not this round's
            out = work / "suites"
            shutil.rmtree(out, ignore_errors=True)
            tools = timed("load_tools", lambda: ToolSet.from_paths([tools_file]))
            report = timed("generate", lambda: generate_suites(tools, out))  # noqa: B023
            suites = timed("read_suites", lambda: load_suites([out]), paused=True)  # noqa: B023
            gate = load_business(tools=tools).fresh  # as `jsoncontract test` runs
            runner = SuiteRunner(tools, business=gate)
            test = timed("run", lambda: runner.run(suites), paused=True)  # noqa: B023
        written = sum(t.cases for t in report.tools)
        missing = sum(1 for t in report.tools if t.error)
        cases = test.summary.cases
        print(
            f"catalog: {count:,} tools, {written:,} cases generated ({written / count:.1f} per "
            f"tool), {missing} tools without a suite; best of {repeat}, wall / cpu"
        )

        def line(
            label: str, names: tuple[str, ...], units: int, noun: str, target: str = ""
        ) -> None:
            w = sum(wall[n] for n in names)
            c = sum(cpu[n] for n in names)
            print(
                f"{label:<22}{w:7.3f}s {_rate(units, w):>10} / {c:6.3f}s {_rate(units, c):>10} "
                f"{noun}{target}"
            )

        line("load + compile tools", ("load_tools",), count, "tools")
        line("generate suites", ("generate",), count, "tools", "  (target >= 500/s)")
        line("  with tool loading", ("load_tools", "generate"), count, "tools")
        line("read + check suites", ("read_suites",), cases, "cases")
        line("run cases", ("run",), cases, "cases")
        line("test end to end", ("read_suites", "run"), cases, "cases", "  (target >= 20,000/s)")
        s = test.summary
        print(
            f"outcomes: {s.passed:,} passed, {s.failed:,} failed, {s.weaknesses:,} weaknesses "
            "(the catalog leaves a fifth of its objects open on purpose)"
        )
        return {
            "generate_tools_per_s": count / wall["generate"],
            "run_cases_per_s": cases / (wall["read_suites"] + wall["run"]),
        }
    finally:
        shutil.rmtree(work, ignore_errors=True)


def compare_hypothesis(count: int) -> None:
    """Valid-instance generation: the built-in generator against hypothesis-jsonschema."""
    from jsoncontract._schema_walk import Resolver
    from jsoncontract.model import Dialect, Source, ToolContract
    from jsoncontract.suites import build_valid
    from jsoncontract.suites.instance import annotate
    from jsoncontract.validation import CompiledSchema

    tools = catalog(count, seed=2)
    contracts = [
        ToolContract(t["name"], t["input_schema"], Dialect.ANTHROPIC, Source("bench"))
        for t in tools
    ]
    compiled = [CompiledSchema(c.input_schema) for c in contracts]

    def coverage(instance: Any, schema: dict[str, Any]) -> tuple[int, int]:
        nodes = annotate(Resolver(schema), instance)
        present = sum(1 for n in nodes if n.pointer)
        declared = _declared(schema)
        return present, declared

    t0 = time.perf_counter()
    built = [build_valid(c, v) for c, v in zip(contracts, compiled, strict=True)]
    seconds = time.perf_counter() - t0
    valid = [b for b in built if b.error is None]
    present = declared = 0
    for b, c in zip(built, contracts, strict=True):
        if b.error is None:
            p, d = coverage(b.value, c.input_schema)
            present, declared = present + p, declared + d
    print(
        f"built-in generator     : {count} tools in {seconds:.3f}s = {_rate(count, seconds)}; "
        f"valid {len(valid)}/{count}; members filled {present}/{declared} "
        f"({present / max(declared, 1):.0%})"
    )
    try:
        from hypothesis import HealthCheck, Phase, given, seed, settings
        from hypothesis_jsonschema import from_schema
    except ImportError:
        print("hypothesis-jsonschema : not installed (pip install hypothesis-jsonschema)")
        return

    def one(schema: dict[str, Any]) -> Any:
        box: list[Any] = []

        @seed(0)
        @settings(
            max_examples=1,
            database=None,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
            deadline=None,
        )
        @given(from_schema(schema))
        def draw(value: Any) -> None:
            box.append(value)

        draw()
        return box[0]

    t0 = time.perf_counter()
    ok = present = declared = 0
    errors: dict[str, int] = {}
    for c, v in zip(contracts, compiled, strict=True):
        try:
            value = one(c.input_schema)
        except Exception as exc:  # the library's own failures are what is measured here
            errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
            continue
        if v.is_valid(value):
            ok += 1
            p, d = coverage(value, c.input_schema)
            present, declared = present + p, declared + d
    seconds = time.perf_counter() - t0
    print(
        f"hypothesis-jsonschema  : {count} tools in {seconds:.3f}s = {_rate(count, seconds)}; "
        f"valid {ok}/{count}; members filled {present}/{declared} "
        f"({present / max(declared, 1):.0%}); failures {errors or 'none'}"
    )


def _declared(schema: Any) -> int:
    """Every property and array item a maximal instance of ``schema`` would hold (one item
    per array)."""
    if not isinstance(schema, dict):
        return 0
    total = 0
    for sub in (schema.get("properties") or {}).values():
        if isinstance(sub, dict) and "$ref" in sub:
            sub = schema.get("$defs", {}).get(sub["$ref"].rsplit("/", 1)[-1], {})
        total += 1 + _declared(sub)
    items = schema.get("items")
    if isinstance(items, dict):
        total += 1 + _declared(items)
    return total


def main() -> int:
    parser = BenchParser(__doc__)
    parser.add_argument("--tools", type=int, default=2000, help="catalog size (default 2000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs; the best is shown")
    parser.add_argument(
        "--compare-hypothesis",
        type=int,
        default=0,
        metavar="N",
        help="also compare valid-instance generation with hypothesis-jsonschema on N tools",
    )
    args = parser.parse_args()
    print(f"python {sys.version.split()[0]}")
    bench(args.tools, args.repeat)
    if args.compare_hypothesis:
        compare_hypothesis(args.compare_hypothesis)
    return 0


if __name__ == "__main__":
    sys.exit(main())
