"""Benchmark: lint a synthetic catalog of tool definitions with every rule of every profile.

    python benchmarks/bench_lint.py [--tools 2000] [--repeat 3]

Prints the end-to-end rate of ``jsoncontract lint CATALOG --profile all --format json``
(a fresh process, startup included), the in-process rate of the library, where the time
goes (loading, meta-schema checks, rules, the JSON report), and the meta-schema check with
python-jsonschema for comparison.
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import BenchParser, make_catalog, write_tools

WORDS = ["order", "invoice", "customer", "ticket", "shipment", "refund", "report", "user"]
VERBS = ["get", "list", "search", "create", "update", "delete", "send", "cancel"]


def _property(rng: random.Random, name: str, depth: int) -> dict[str, Any]:
    kind = rng.choice(["id", "enum", "date", "text", "amount", "count", "flag", "object", "list"])
    if kind == "id":
        return {"type": "string", "description": f"The {name}.", "pattern": "^[A-Z]{3}-[0-9]{6}$"}
    if kind == "enum":
        return {"type": "string", "description": "The state.", "enum": ["open", "closed", "void"]}
    if kind == "date":
        return {"type": "string", "description": "A day.", "format": "date"}
    if kind == "text":
        return {"type": "string", "description": "Free text.", "maxLength": 500}
    if kind == "amount":
        return {"type": "number", "description": "Euros.", "minimum": 0, "maximum": 100000}
    if kind == "count":
        return {"type": "integer", "description": "How many.", "minimum": 1, "maximum": 100}
    if kind == "flag":
        return {"type": "boolean", "description": "Whether to notify."}
    if kind == "list" or depth > 1:
        return {
            "type": "array",
            "description": "Labels.",
            "items": {"type": "string", "maxLength": 40},
            "maxItems": 20,
        }
    return _object(rng, depth + 1, description="A nested record.")


def _object(rng: random.Random, depth: int, description: str) -> dict[str, Any]:
    names = rng.sample(
        [
            "order_id",
            "status",
            "start_date",
            "note",
            "amount",
            "limit",
            "notify",
            "address",
            "labels",
            "customer_id",
            "priority",
            "end_date",
        ],
        rng.randint(3, 8),
    )
    props = {n: _property(rng, n, depth) for n in names}
    schema: dict[str, Any] = {
        "type": "object",
        "description": description,
        "properties": props,
        "required": names[: rng.randint(1, len(names))],
    }
    if rng.random() < 0.8:  # some objects are left open on purpose: findings to report
        schema["additionalProperties"] = False
    return schema


def _typical(rng: random.Random, verb: str, noun: str) -> dict[str, Any]:
    """The common shape of a public MCP tool: a few described parameters, some optional."""
    props: dict[str, Any] = {
        f"{noun}_id": {"type": "string", "description": f"The {noun} to use, e.g. ABC-000123."}
    }
    if rng.random() < 0.5:
        props["status"] = {"type": "string", "enum": ["open", "closed"], "description": "State."}
    if rng.random() < 0.5:
        props["limit"] = {
            "type": "integer",
            "description": "Page size.",
            "minimum": 1,
            "maximum": 100,
        }
    if rng.random() < 0.4:
        props["query"] = {"type": "string", "description": "Words to look for."}
    if rng.random() < 0.3:
        props["include_archived"] = {"type": "boolean", "description": "Also archived ones."}
    schema: dict[str, Any] = {"type": "object", "properties": props, "required": [f"{noun}_id"]}
    if rng.random() < 0.7:
        schema["additionalProperties"] = False
    return schema


def _weak(rng: random.Random, noun: str) -> dict[str, Any]:
    """A careless tool: open objects, free strings, no descriptions."""
    return {
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "status": {"type": "string"},
            "data": {"type": "object"},
            "email": {"type": "string"},
            "amount": {"type": "number"},
        },
    }


def catalog(count: int, seed: int = 7) -> dict[str, Any]:
    """An MCP tools/list result of ``count`` tools: 60% typical public tools, 25% richly
    constrained ones (bounds, formats, nested objects: what strict profiles reject most),
    15% careless ones."""
    rng = random.Random(seed)
    tools = []
    for i in range(count):
        verb, noun = rng.choice(VERBS), rng.choice(WORDS)
        reads = verb in ("get", "list", "search")
        kind = rng.random()
        if kind < 0.6:
            schema = _typical(rng, verb, noun)
        elif kind < 0.85:
            schema = _object(rng, 0, description=f"Arguments of {verb}_{noun}.")
        else:
            schema = _weak(rng, noun)
        tool: dict[str, Any] = {
            "name": f"{verb}_{noun}_{i}",
            "description": f"{verb.title()} a {noun} record of the back office (set {i}), "
            "by id or by filters.",
            "inputSchema": schema,
        }
        if kind < 0.85:
            tool["annotations"] = {"readOnlyHint": reads}
            if not reads:
                schema["properties"]["idempotency_key"] = {
                    "type": "string",
                    "maxLength": 64,
                    "description": "Retry key.",
                }
                schema.setdefault("required", []).append("idempotency_key")
        if rng.random() < 0.1:
            tool["outputSchema"] = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
        tools.append(tool)
    return {"jsonrpc": "2.0", "id": 1, "result": {"tools": tools}}


def _time(func: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        func()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def _cpu(func: Any, repeat: int) -> float:
    """CPU seconds of ``func`` in this process, the best of ``repeat`` runs."""
    best = float("inf")
    for _ in range(repeat):
        started = time.process_time()
        func()
        best = min(best, time.process_time() - started)
    return best


def _child_cpu(command: list[str], repeat: int) -> tuple[float, float]:
    """(wall, CPU) seconds of a child process, the best of ``repeat`` runs.

    CPU time (user + system) does not count time the machine gave to other processes,
    so it is the steadier figure on a busy machine.
    """
    best_wall = best_cpu = float("inf")
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(command, check=True)
        wall = time.perf_counter() - started
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best_wall, best_cpu = min(best_wall, wall), min(best_cpu, cpu)
    return best_wall, best_cpu


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--tools", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from jsoncontract.lint.engine import Linter
    from jsoncontract.lint.meta import meta_errors
    from jsoncontract.lint.settings import build_settings
    from jsoncontract.tools.loader import load_tool_file

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "catalog.json"
        path.write_text(json.dumps(catalog(args.tools), indent=1))
        data = path.read_bytes()
        count = args.tools
        print(f"catalog: {count} tools, {len(data) / 1e6:.1f} MB, profiles: all, rules: every")

        report = str(Path(tmp) / "r.json")
        command = [sys.executable, "-m", "jsoncontract", "lint", str(path), "--profile", "all"]
        command += ["--format", "json", "--fail-on", "never", "-o", report]
        wall, cpu = _child_cpu(command, args.repeat)
        findings = json.loads((Path(tmp) / "r.json").read_text())["summary"]["findings"]
        one = Path(tmp) / "one.json"
        one.write_text(json.dumps(catalog(1)))
        _, fixed_cpu = _child_cpu([*command[:4], str(one), *command[5:]], args.repeat)
        print(
            f"end to end (--format json): {count / cpu:,.0f} tools/s of CPU time ({cpu:.2f} s), "
            f"{count / wall:,.0f} tools/s of wall-clock time ({wall:.2f} s)"
        )
        per_tool = (cpu - fixed_cpu) / count
        print(
            f"  {findings} findings ({findings / count:.1f} per tool); fixed cost of a run "
            f"(interpreter, imports, a one-tool file) {fixed_cpu:.2f} s, then "
            f"{per_tool * 1e6:.0f} us per tool"
        )

        shared = write_tools(Path(tmp) / "shared.json", make_catalog(count))
        _, shared_cpu = _child_cpu([*command[:4], str(shared), *command[5:]], 1)
        shared_findings = json.loads(Path(report).read_text())["summary"]["findings"]
        print(
            f"  the shared catalog of benchmarks/_common.py ({count} closed, constrained tools, "
            f"{shared_findings / count:.1f} findings per tool): "
            f"{count / shared_cpu:,.0f} tools/s of CPU time ({shared_cpu:.2f} s)"
        )

        settings = build_settings(None, profiles=["all"])
        linter = Linter(settings)
        in_process = _cpu(lambda: linter.lint_sources([(str(path), data)]), args.repeat)
        print(
            f"library, in process:        {count / in_process:,.0f} tools/s of CPU time "
            f"({in_process:.2f} s)"
        )

        load = _cpu(lambda: load_tool_file(path, data=data), args.repeat)
        tools = load_tool_file(path, data=data)
        schemas = [t.input_schema for t in tools]
        meta_rs = _cpu(lambda: [meta_errors(s, "2020-12") for s in schemas], args.repeat)
        print(f"  loading the tools:        {load:.2f} s")
        print(f"  meta-schema, jsonschema-rs: {meta_rs * 1000:.1f} ms for {len(schemas)} schemas")
        import jsonschema

        sample = schemas[: min(len(schemas), 300)]
        validator = jsonschema.Draft202012Validator
        meta_py = _cpu(lambda: [validator.check_schema(s) for s in sample], 1)
        per = meta_py / len(sample)
        ratio = per / (meta_rs / len(schemas))
        print(
            f"  meta-schema, python-jsonschema: {per * 1000:.2f} ms per schema "
            f"(~{per * len(schemas):.1f} s for all; {ratio:,.0f}x)"
        )


if __name__ == "__main__":
    main()
