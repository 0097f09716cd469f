"""Benchmark the result stage and the checks over a run, against the gates on the arguments.

    python benchmarks/bench_results.py                 # 5,000 conversations
    python benchmarks/bench_results.py --conversations 20000 --rounds 7

Writes the conversation capture of ``bench_conversation.py`` (the last request of each
conversation: every call with its result) and the same calls bare, and checks each through
the library in alternating rounds, measuring CPU time:

- ``arguments``: the gates on the arguments only (``results=None, session=None``);
- ``+ results``: and the result stage;
- ``+ run``: and the checks over the run (turns, sessions, pairing, retries): the default.

Prints the seconds of each, and what the result stage and the checks over the run add per
call, in microseconds (on the conversation; on the bare calls, which have no result, only
the checks over the run run).
"""

from __future__ import annotations

from typing import Any

from _common import BenchParser, make_catalog, out_dir, write_tools
from bench_conversation import cpu, write_captures


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
    captures = {"conversation": paths["final request"], "bare calls": paths["bare"]}
    gates: dict[str, dict[str, Any]] = {
        "arguments": {"results": None, "session": None},
        "+ results": {"session": None},
        "+ run": {},
    }
    best = {(c, g): float("inf") for c in captures for g in gates}
    calls = 0
    for _ in range(options.rounds):
        for capture, path in captures.items():
            for gate, kwargs in gates.items():
                start = cpu()
                calls = sum(1 for _ in iter_check([path], tools=tools, **kwargs))
                best[capture, gate] = min(best[capture, gate], cpu() - start)
    print(f"{calls:,} calls in {options.conversations:,} conversations of {options.turns} turns")
    for capture in captures:
        base = best[capture, "arguments"]
        parts = []
        for gate in gates:
            seconds = best[capture, gate]
            parts.append(f"{gate} {seconds:.3f} s")
        results = (best[capture, "+ results"] - base) / calls * 1e6
        run = (best[capture, "+ run"] - best[capture, "+ results"]) / calls * 1e6
        whole = best[capture, "+ run"] / base
        print(
            f"{capture:>12}: {', '.join(parts)}; the result stage {results:+.1f} µs a call, "
            f"the checks over the run {run:+.1f} µs a call ({whole:.2f}x the argument gates)"
        )


if __name__ == "__main__":
    main()
