"""Synthetic tool catalogs and traces shared by the benchmark scripts, plus timing helpers.

Everything is deterministic for a seed, so figures are comparable between runs.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

OUT = Path(__file__).resolve().parent / "out"
ENUM_WORDS = ["standard", "expedited", "overnight", "draft", "open", "paid", "void", "low", "high"]


class BenchParser(argparse.ArgumentParser):
    """The argument parser of every benchmark script, which gives each of them ``--quick``:
    a run small enough to show that the script works (its logic, not its figures; the
    tests run the scripts so). An integer option left at its default is cut to the
    ``quick=`` value the script gives it, else to a thousandth of its default (at least 1).
    """

    def __init__(self, description: str | None) -> None:
        super().__init__(description=(description or "").strip().splitlines()[0])
        self._quick: dict[str, Any] = {}
        self.add_argument(
            "--quick",
            action="store_true",
            help="a small run that shows the script works; its figures mean nothing",
        )

    def add_argument(self, *args: Any, quick: Any = None, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        if quick is not None:
            self._quick[action.dest] = quick
        return action

    def parse_args(self, args: Any = None, namespace: Any = None) -> Any:  # type: ignore[override]
        options = super().parse_args(args, namespace)
        if not options.quick:
            return options
        for action in self._actions:
            value = getattr(options, action.dest, None)
            if value != action.default or value is None:
                continue  # given on the command line: kept
            if action.dest in self._quick:
                setattr(options, action.dest, self._quick[action.dest])
            elif type(action.default) is int and action.default > 1:
                setattr(options, action.dest, max(1, action.default // 1000))
        print("--quick: a small run; its figures mean nothing", file=sys.stderr)
        return options


def out_dir() -> Path:
    """``benchmarks/out`` (git-ignored), created on demand."""
    OUT.mkdir(parents=True, exist_ok=True)
    return OUT


def make_schema(rng: random.Random, index: int) -> dict[str, Any]:
    """A realistic closed input schema: ids, enums, dates, numbers, a nested object, an array."""
    properties: dict[str, Any] = {
        "id": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{6}$"},
        "mode": {"type": "string", "enum": rng.sample(ENUM_WORDS, 3)},
        "count": {"type": "integer", "minimum": 1, "maximum": 100},
    }
    extra = rng.randint(1, 5)
    for n in range(extra):
        kind = rng.choice(["date", "number", "flag", "text", "tags"])
        name = f"{kind}_{n}"
        if kind == "date":
            properties[name] = {"type": "string", "format": "date"}
        elif kind == "number":
            properties[name] = {"type": "number", "minimum": 0}
        elif kind == "flag":
            properties[name] = {"type": "boolean"}
        elif kind == "text":
            properties[name] = {"type": "string", "minLength": 1, "maxLength": 200}
        else:
            properties[name] = {
                "type": "array",
                "items": {"type": "string", "maxLength": 20},
                "maxItems": 5,
            }
    properties["address"] = {
        "type": "object",
        "properties": {
            "city": {"type": "string", "minLength": 1},
            "country": {"type": "string", "pattern": "^[A-Z]{2}$"},
        },
        "required": ["city", "country"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": properties,
        "required": ["id", "mode", "count"],
        "additionalProperties": False,
    }


def make_catalog(count: int, seed: int = 7) -> list[dict[str, Any]]:
    """``count`` MCP tool definitions with varied schemas."""
    rng = random.Random(seed)
    return [
        {
            "name": f"tool_{i:04d}",
            "description": f"Synthetic tool number {i} for benchmarking.",
            "inputSchema": make_schema(rng, i),
        }
        for i in range(count)
    ]


def make_arguments(schema: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A valid instance of a schema made by :func:`make_schema`."""
    args: dict[str, Any] = {
        "id": f"ABC-{rng.randint(0, 999_999):06d}",
        "mode": rng.choice(schema["properties"]["mode"]["enum"]),
        "count": rng.randint(1, 100),
    }
    for name, prop in schema["properties"].items():
        if name in args or rng.random() < 0.3:
            continue
        kind = prop.get("type")
        if prop.get("format") == "date":
            args[name] = f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        elif kind == "number":
            args[name] = round(rng.random() * 1000, 2)
        elif kind == "boolean":
            args[name] = rng.random() < 0.5
        elif kind == "string":
            args[name] = "some text value"
        elif kind == "array":
            args[name] = ["a", "b"]
        elif kind == "object":
            args[name] = {"city": "Lisbon", "country": "PT"}
    return args


def break_arguments(args: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], str | None]:
    """Damage valid arguments in one of several ways; returns (args, raw-text override)."""
    broken = dict(args)
    fault = rng.randrange(6)
    if fault == 0:
        del broken["id"]
    elif fault == 1:
        broken["mode"] = "urgent"
    elif fault == 2:
        broken["count"] = str(broken["count"])
    elif fault == 3:
        broken["surprise"] = True
    elif fault == 4:
        return broken, "```json\n" + orjson.dumps(broken).decode() + "\n```"
    else:
        return broken, orjson.dumps(broken).decode()[:-3]
    return broken, None


def _event(dialect: int, name: str, call_id: str, args: dict[str, Any], raw: str | None) -> bytes:
    text = raw if raw is not None else orjson.dumps(args).decode()
    if dialect == 0 or raw is not None:  # OpenAI Chat completion
        doc: dict[str, Any] = {
            "id": "chatcmpl-" + call_id,
            "object": "chat.completion",
            "created": 1764460800,
            "model": "gpt-4.1",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_" + call_id,
                                "type": "function",
                                "function": {"name": name, "arguments": text},
                            }
                        ],
                    },
                }
            ],
        }
    elif dialect == 1:  # Anthropic message
        doc = {
            "id": "msg_" + call_id,
            "type": "message",
            "role": "assistant",
            "model": "claude-sonnet-4-5",
            "content": [
                {"type": "tool_use", "id": "toolu_" + call_id, "name": name, "input": args}
            ],
            "stop_reason": "tool_use",
        }
    elif dialect == 2:  # MCP tools/call
        doc = {
            "jsonrpc": "2.0",
            "id": call_id,
            "method": "tools/call",
            "params": {"name": name, "arguments": args},
        }
    else:  # Gemini
        doc = {
            "candidates": [
                {
                    "content": {
                        "role": "model",
                        "parts": [{"functionCall": {"id": call_id, "name": name, "args": args}}],
                    },
                    "finishReason": "STOP",
                }
            ],
            "modelVersion": "gemini-2.5-flash",
        }
    return orjson.dumps(doc) + b"\n"


def iter_trace(
    catalog: Sequence[dict[str, Any]],
    calls: int,
    *,
    invalid: float = 0.1,
    seed: int = 11,
    dialects: int = 4,
) -> Iterator[bytes]:
    """JSONL lines: ``calls`` tool calls over ``catalog``, ``invalid`` broken, in the first
    ``dialects`` of OpenAI Chat, Anthropic, MCP and Gemini (1: OpenAI Chat only)."""
    rng = random.Random(seed)
    for i in range(calls):
        tool = catalog[rng.randrange(len(catalog))]
        args = make_arguments(tool["inputSchema"], rng)
        raw = None
        if rng.random() < invalid:
            args, raw = break_arguments(args, rng)
        yield _event(i % dialects, tool["name"], f"{i:08x}", args, raw)


def write_trace(path: Path, catalog: Sequence[dict[str, Any]], calls: int, **kw: Any) -> Path:
    """Write a trace file (reused when it already exists with the same size request)."""
    marker = path.with_suffix(path.suffix + ".calls")
    if path.exists() and marker.exists() and marker.read_text() == str(calls):
        return path
    with path.open("wb") as out:
        for line in iter_trace(catalog, calls, **kw):
            out.write(line)
    marker.write_text(str(calls))
    return path


def write_tools(path: Path, catalog: Sequence[dict[str, Any]]) -> Path:
    """An MCP ``tools/list`` result holding the catalog."""
    path.write_bytes(orjson.dumps({"tools": list(catalog)}, option=orjson.OPT_INDENT_2))
    return path


#: Commands run as an installed program runs: Python may cache bytecode (an environment
#: that forbids it recompiles every module on every start, which is not what users see).
COMMAND_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_command(args: Sequence[str], *, stdin: bytes | None = None) -> tuple[float, int, int]:
    """Run a command; return (seconds, exit code, peak RSS in MB of that child)."""
    start = time.perf_counter()
    proc = subprocess.Popen(
        args,
        env=COMMAND_ENV,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    if stdin is not None:
        assert proc.stdin is not None
        proc.stdin.write(stdin)
        proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stderr is not None:
        err = proc.stderr.read()
        proc.stderr.close()
        if proc.returncode not in (0, 1):
            sys.stderr.write(err.decode(errors="replace"))
    return elapsed, proc.returncode, usage.ru_maxrss // 1024


def median_time(fn: Callable[[], float], repeat: int) -> float:
    """The median of ``repeat`` timings returned by ``fn``."""
    return statistics.median(fn() for _ in range(repeat))


def cli() -> list[str]:
    """How to run the installed CLI with this interpreter."""
    script = Path(sys.executable).with_name("jsoncontract")
    return [str(script)] if script.exists() else [sys.executable, "-m", "jsoncontract"]
