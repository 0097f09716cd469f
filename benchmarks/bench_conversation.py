"""Benchmark checking conversation captures against checking the same calls bare.

    python benchmarks/bench_conversation.py                 # 5,000 conversations
    python benchmarks/bench_conversation.py --conversations 20000 --turns 4

Writes three captures of the same calls (OpenAI Chat, two calls per turn, each answered by
a tool message) and checks each through the library, in alternating rounds, measuring CPU
time:

- ``bare``: one tool call per line, no results;
- ``final request``: the last request body of each conversation (its ``messages`` hold every
  call and every result);
- ``gateway log``: every response and every request of each conversation, as an LLM gateway
  logs them (each request repeats the history before it, so each call is seen in its
  response and again in every later request).

Prints the seconds per capture and each conversation capture's cost relative to the bare
calls (the target: at most 1.5x). Both go through the gates on the arguments only: what the
result stage and the checks over a run add is measured by ``bench_results.py``.
"""

from __future__ import annotations

import random
import resource
from pathlib import Path
from typing import Any

import orjson
from _common import BenchParser, make_arguments, make_catalog, out_dir, write_tools


def _call(rng: random.Random, tool: dict[str, Any], call_id: str) -> dict[str, Any]:
    arguments = orjson.dumps(make_arguments(tool["inputSchema"], rng)).decode()
    return {
        "id": call_id,
        "type": "function",
        "function": {"name": tool["name"], "arguments": arguments},
    }


def conversation(
    rng: random.Random, catalog: list[dict[str, Any]], number: int, turns: int
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the responses and requests in the order a gateway logs them, the bare calls)."""
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": "You are an operations assistant."},
        {"role": "user", "content": f"Please handle ticket {number}."},
    ]
    log: list[dict[str, Any]] = []
    bare: list[dict[str, Any]] = []
    for turn in range(turns):
        calls = [
            _call(rng, catalog[rng.randrange(len(catalog))], f"call_{number}_{turn}_{i}")
            for i in range(2)
        ]
        bare.extend(calls)
        assistant = {"role": "assistant", "content": None, "tool_calls": calls}
        log.append(
            {
                "id": f"chatcmpl-{number}-{turn}",
                "object": "chat.completion",
                "model": "gpt-4.1",
                "choices": [{"index": 0, "finish_reason": "tool_calls", "message": assistant}],
            }
        )
        messages.append(assistant)
        for call in calls:
            result = {"ok": True, "data": {"id": call["id"], "status": "done"}}
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call["id"],
                    "content": orjson.dumps(result).decode(),
                }
            )
        log.append({"model": "gpt-4.1", "messages": list(messages), "tools": []})
    return log, bare


def write_captures(
    out: Path, catalog: list[dict[str, Any]], count: int, turns: int
) -> dict[str, Path]:
    rng = random.Random(5)
    paths = {
        "bare": out / "conv-bare.jsonl",
        "final request": out / "conv-final.jsonl",
        "gateway log": out / "conv-gateway.jsonl",
    }
    with (
        paths["bare"].open("wb") as bare_file,
        paths["final request"].open("wb") as final_file,
        paths["gateway log"].open("wb") as log_file,
    ):
        for number in range(count):
            log, bare = conversation(rng, catalog, number, turns)
            for call in bare:
                bare_file.write(orjson.dumps(call) + b"\n")
            final_file.write(orjson.dumps(log[-1]) + b"\n")
            for entry in log:
                log_file.write(orjson.dumps(entry) + b"\n")
    return paths


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = BenchParser(__doc__)
    parser.add_argument("--conversations", type=int, default=5_000)
    parser.add_argument("--turns", type=int, default=3, help="tool turns per conversation")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (best)")
    options = parser.parse_args()

    from jsoncontract import iter_check
    from jsoncontract.tools import ToolSet

    out = out_dir()
    catalog = make_catalog(40)
    tools = ToolSet.from_paths([write_tools(out / "conv-tools.json", catalog)])
    paths = write_captures(out, catalog, options.conversations, options.turns)
    calls = options.conversations * options.turns * 2
    best = dict.fromkeys(paths, float("inf"))
    counted: dict[str, tuple[int, int]] = {}
    for _ in range(options.rounds):
        for name, path in paths.items():
            start = cpu()
            results = answered = 0
            for result in iter_check([path], tools=tools, results=None, session=None):
                results += 1
                answered += result.call.result is not None
            best[name] = min(best[name], cpu() - start)
            counted[name] = (results, answered)
    print(f"{calls:,} calls in {options.conversations:,} conversations of {options.turns} turns")
    for name, path in paths.items():
        results, answered = counted[name]
        size = path.stat().st_size / 1e6
        ratio = best[name] / best["bare"]
        print(
            f"{name:>14}: {best[name]:.3f} s CPU, {results:,} calls ({answered:,} with their "
            f"result), {size:.1f} MB, {ratio:.2f}x the bare calls"
        )


if __name__ == "__main__":
    main()
