"""``check`` on real traffic: BFCL's tools and answers in six capture shapes, against the bare
python-jsonschema loop and sourcemeta's C++ ``jsonschema`` CLI, side by side in one run.

    python benchmarks/bench_real.py                     # 200,000 calls, 3 alternating rounds
    python benchmarks/bench_real.py --quick             # small sizes: tests the logic, not speed
    python benchmarks/bench_real.py --json real.json    # the figures as JSON too
    python benchmarks/bench_real.py --profile chat mcp  # where check --jobs 1 spends its time

**The workload** (``_bfcl.py`` says how it is built): the 1,853 tools of BFCL's single-turn
function docs, converted from BFCL's schema dialect to JSON Schema; 200,000 calls drawn from
BFCL's possible answers, repeated as drawing repeats them, 10% of them damaged with one
realistic fault each; the same calls written as OpenAI Chat ``{"tool_calls": ...}`` lines,
full Chat Completions, Responses API objects, Anthropic messages, Gemini responses and MCP
``tools/call`` requests; and 100,000 bodies of one real schema, for the peer. It is built
once per bfcl-eval version and size, under ``benchmarks/out/``.

**The contestants**, run as child processes, alternately within each round (A B C A B C, the
first contestant moving on each round), each on a tiny input and then the full one:
``check --format json -o FILE --jobs 1``; ``check`` with the default jobs (one worker per
core); the bare loop (``--bare-loop``: read each line, ``orjson``, take the shape's calls by
hand, ``is_valid`` with a python-jsonschema ``Draft202012Validator`` per tool built before the
loop; nothing else); and, on the one-schema bodies, sourcemeta's ``jsonschema validate SCHEMA
BODIES --continue``, the issue's peer, and the same with ``--fast`` (its schema compiled for
speed rather than for error messages); ``check`` reads the bodies as downstream bodies with
``--tool``. The peer is
the npm package ``@sourcemeta/jsonschema``, installed with ``npm install --prefix
benchmarks/out`` (never globally) on first use; its native binary is run directly, not
through Node. ``--peer`` names another binary. When it cannot be had, one line says why and
the rest runs.

**Marginal time.** A run on the tiny input (1% of the calls) costs start-up and tool loading
(1,853 schemas) and a few calls; the marginal time per call is (full - tiny) / (calls in full
- calls in tiny). One process is read in CPU time (the child's user + system time: what load
on a shared machine disturbs least), default jobs in wall time (more processes only help the
wall clock), each against the bare loop's time on the same clock. The ratio is the bare
loop's marginal time over the contestant's (above 1: faster than the bare loop), or the
peer's over the contestant's. Figures are medians over the rounds. Verdicts are compared in
every run: the calls ``check`` fails, the calls the bare loop finds invalid and the instances
sourcemeta fails must all equal the workload's damaged count, or the script exits 1.

**Failing against passing calls.** Per shape, ``check --jobs 1`` on 20,000 valid calls and on
20,000 damaged ones (one per response), marginal CPU time per call.

**Profiles.** ``--profile SHAPE...`` runs ``check --jobs 1`` on each full trace under cProfile
instead of comparing, and lists the costliest functions, in µs per call.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from _bfcl import BFCL_VERSION, SHAPES, Plan, Workload, bfcl_wheel, build_workload
from _common import COMMAND_ENV, BenchParser, cli, out_dir

PEER_PACKAGE = "@sourcemeta/jsonschema"
PEER_VERSION = "16.11.0"
#: The peer as the issue's targets name it; its ``--fast`` mode is measured beside it.
PEER = "sourcemeta validate --continue"


@dataclass(frozen=True)
class Sizes:
    """How big a run is: the workload's plan and the alternating rounds. ``--quick`` picks
    :data:`QUICK`: small enough for a test, which checks the logic, not the figures."""

    calls: int
    one_schema: int
    fail_pass: int
    tiny_share: float
    rounds: int


FULL = Sizes(calls=200_000, one_schema=100_000, fail_pass=20_000, tiny_share=0.01, rounds=3)
QUICK = Sizes(calls=2_000, one_schema=1_000, fail_pass=200, tiny_share=0.05, rounds=1)


# --- the bare loop (run as a child: --bare-loop SHAPE) -------------------------------------


def bare_loop(shape: str, tools: Path, trace: Path, tool: str | None) -> dict[str, int]:
    """Validate every call's arguments with a cached validator per tool, nothing else;
    return the calls and the invalid ones. ``shape`` ``body``: bare bodies of ``tool``."""
    from jsonschema import Draft202012Validator

    loads = orjson.loads
    if shape == "body":
        valid = Draft202012Validator(loads(tools.read_bytes())).is_valid
        calls = bad = 0
        with trace.open("rb") as lines:
            for line in lines:
                calls += 1
                bad += not valid(loads(line))
        return {"calls": calls, "invalid": bad}
    definitions = loads(tools.read_bytes())["tools"]
    validators = {t["name"]: Draft202012Validator(t["inputSchema"]).is_valid for t in definitions}
    calls = bad = 0
    with trace.open("rb") as lines:
        for line in lines:
            doc = loads(line)
            if shape == "chat-bare":
                found = [(c["function"]["name"], loads(c["function"]["arguments"]))
                         for c in doc["tool_calls"]]  # fmt: skip
            elif shape == "chat":
                found = [(c["function"]["name"], loads(c["function"]["arguments"]))
                         for c in doc["choices"][0]["message"]["tool_calls"]]  # fmt: skip
            elif shape == "responses":
                found = [(o["name"], loads(o["arguments"]))
                         for o in doc["output"] if o["type"] == "function_call"]  # fmt: skip
            elif shape == "anthropic":
                found = [(b["name"], b["input"]) for b in doc["content"] if b["type"] == "tool_use"]
            elif shape == "gemini":
                found = [(p["functionCall"]["name"], p["functionCall"]["args"])
                         for p in doc["candidates"][0]["content"]["parts"]
                         if "functionCall" in p]  # fmt: skip
            else:
                found = [(doc["params"]["name"], doc["params"]["arguments"])]
            for name, arguments in found:
                calls += 1
                bad += not validators[name](arguments)
    return {"calls": calls, "invalid": bad}


# --- the peer ------------------------------------------------------------------------------


def peer_binary(given: str | None, root: Path) -> tuple[Path | None, str]:
    """sourcemeta's ``jsonschema`` binary and how it was found, or ``None`` and why not."""
    if given is not None:
        path = Path(given)
        return (path, f"{path} (--peer)") if path.is_file() else (None, f"no file at {given}")
    package = root / "node_modules" / "@sourcemeta" / "jsonschema"
    if not (package / "package.json").is_file():
        npm = shutil.which("npm")
        if npm is None:
            return None, "npm is not on PATH (install Node.js, or name a binary with --peer)"
        spec = f"{PEER_PACKAGE}@{PEER_VERSION}"
        print(f"installing {spec} with npm into {root / 'node_modules'}", file=sys.stderr)
        done = subprocess.run(
            [npm, "install", "--prefix", str(root), "--no-save", "--no-audit", "--no-fund", spec],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            return None, f"npm install {spec} failed: {last}"
    version = orjson.loads((package / "package.json").read_bytes()).get("version", "?")
    system = {"linux": "linux", "darwin": "darwin", "win32": "windows"}.get(sys.platform, "")
    machine = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "arm64", "arm64": "arm64"}.get(
        platform.machine().lower(), ""
    )
    musl = sys.platform == "linux" and platform.libc_ver()[0] != "glibc"
    name = f"jsonschema-{system}-{machine}" + ("-musl" if musl else "")
    binary = (
        package / "build" / "github-releases" / (name + (".exe" if system == "windows" else ""))
    )
    if binary.is_file():
        return binary, f"{PEER_PACKAGE} {version}, its {binary.name} binary"
    wrapper = root / "node_modules" / ".bin" / "jsonschema"
    if wrapper.is_file():
        return wrapper, f"{PEER_PACKAGE} {version}, through npm's wrapper"
    return None, f"{PEER_PACKAGE} {version} has no binary for {system}-{machine}"


# --- running and timing --------------------------------------------------------------------


@dataclass
class Run:
    """One child run: its clocks and what it said."""

    cpu: float
    wall: float
    code: int
    stdout: bytes
    stderr: bytes

    def seconds(self, clock: str) -> float:
        return self.cpu if clock == "cpu" else self.wall


def run_child(
    args: Sequence[str], scratch: Path, *, reap: bool = False, cwd: Path | None = None
) -> Run:
    """Run a command with its output in files (a pipe would throttle it); the CPU time is
    the child's and its own children's (workers). ``reap``: and that of every process it
    started that outlived it (Spark's Java process and its Python workers, which this
    process adopts and waits for; Linux only), the wall time ending with the command.
    ``cwd``: the folder it runs in (by default, this process's)."""
    out, err = scratch / "stdout", scratch / "stderr"
    if reap:
        adopt_orphans()
    with out.open("wb") as stdout, err.open("wb") as stderr:
        wall = time.perf_counter()
        proc = subprocess.Popen(
            args, env=COMMAND_ENV, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr, cwd=cwd
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - wall
        cpu = usage.ru_utime + usage.ru_stime
        while reap:
            try:
                _, _, usage = os.wait4(-1, 0)
            except ChildProcessError:
                break
            cpu += usage.ru_utime + usage.ru_stime
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Run(cpu, wall, proc.returncode, out.read_bytes(), err.read_bytes())


def adopt_orphans() -> None:
    """Make this process the parent of its descendants' orphans (``PR_SET_CHILD_SUBREAPER``),
    so that their CPU time is counted when they are waited for."""
    if sys.platform != "linux":
        raise SystemExit(
            "bench_real: --spark counts the CPU time of Spark's processes on Linux only"
        )
    import ctypes

    if ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) != 0:
        raise SystemExit(f"bench_real: prctl: {os.strerror(ctypes.get_errno())}")


@dataclass(frozen=True)
class Contestant:
    """A command measured on an input, and how to read its verdicts from its run."""

    label: str
    clock: str  # "cpu" or "wall": the clock its marginal time is read from
    command: Callable[[Path, Path], list[str]]  # (input, report) -> argv
    verdicts: Callable[[Run, Path], tuple[int, int]]  # (run, report) -> (calls, invalid)
    reap: bool = False  # its processes outlive it (Spark's): their CPU time is counted too


def check_verdicts(run: Run, report: Path) -> tuple[int, int]:
    if run.code not in (0, 1):
        raise Failure(f"exit {run.code}: {run.stderr.decode(errors='replace').strip()[-400:]}")
    summary = orjson.loads(report.read_bytes())["summary"]
    return summary["calls"], summary["failed"]


def bare_verdicts(run: Run, report: Path) -> tuple[int, int]:
    if run.code != 0:
        raise Failure(f"exit {run.code}: {run.stderr.decode(errors='replace').strip()[-400:]}")
    found = orjson.loads(run.stdout)
    return found["calls"], found["invalid"]


_PEER_SUMMARY = re.compile(rb"(\d+) validated, (\d+) passed, (\d+) failed")


def peer_verdicts(run: Run, report: Path) -> tuple[int, int]:
    found = _PEER_SUMMARY.findall(run.stderr + run.stdout)
    if run.code not in (0, 2) or not found:
        raise Failure(f"exit {run.code}: {run.stderr.decode(errors='replace').strip()[-400:]}")
    validated, _passed, failed = found[-1]
    return int(validated), int(failed)


class Failure(Exception):
    """A contestant did not do its job (a crash, an unreadable report)."""


def contestants(
    workload: Workload, shape: str, peer: Path | None, spark: Sequence[str] = ()
) -> list[Contestant]:
    """Who runs on ``shape`` (a trace shape, or ``body`` for the one-schema workload);
    ``spark``: the Spark masters ``check --spark`` runs on, for the trace shapes."""
    script = str(Path(__file__).resolve())
    if shape == "body":
        tool = ["--tools", str(workload.schema), "--tool", workload.meta["one_schema"]["tool"]]
        tool += ["--dialect", "downstream"]
        bare = [sys.executable, script, "--bare-loop", "body", "--tools", str(workload.schema)]
    else:
        tool = ["--tools", str(workload.tools)]
        bare = [sys.executable, script, "--bare-loop", shape, "--tools", str(workload.tools)]

    def check(jobs: list[str]) -> Callable[[Path, Path], list[str]]:
        return lambda path, report: [
            *cli(), "check", *tool, str(path), "-f", "json", "-o", str(report), "--no-progress",
            *jobs,
        ]  # fmt: skip

    out = [
        Contestant("bare loop", "cpu", lambda path, report: [*bare, str(path)], bare_verdicts),
        Contestant("check --jobs 1", "cpu", check(["--jobs", "1"]), check_verdicts),
        Contestant("check (default jobs)", "wall", check([]), check_verdicts),
    ]
    if shape != "body":
        for master in spark:
            label = f"check --spark {master}"
            out.append(Contestant(label, "cpu", check(["--spark", master]), check_verdicts, True))
    if shape == "body" and peer is not None:
        validate = [str(peer), "validate", str(workload.schema)]

        def peer_command(flags: list[str]) -> Callable[[Path, Path], list[str]]:
            return lambda path, report: [*validate, str(path), *flags]

        out.append(Contestant(PEER, "cpu", peer_command(["--continue"]), peer_verdicts))
        fast = peer_command(["--continue", "--fast"])
        out.append(Contestant(PEER + " --fast", "cpu", fast, peer_verdicts))
    return out


@dataclass
class Timing:
    """A contestant's runs on one workload, tiny and full, over the rounds."""

    tiny: list[Run] = field(default_factory=list)
    full: list[Run] = field(default_factory=list)

    def marginal(self, clock: str, calls: int, tiny_calls: int) -> list[float]:
        """Marginal µs per call, one per round."""
        return [
            (f.seconds(clock) - t.seconds(clock)) / (calls - tiny_calls) * 1e6
            for t, f in zip(self.tiny, self.full, strict=True)
        ]

    def startup(self, clock: str) -> float:
        """The tiny run's median time, in ms: start-up and tool loading (and a few calls)."""
        return statistics.median(t.seconds(clock) for t in self.tiny) * 1e3


def expected(workload: Workload, path: Path) -> tuple[int, int]:
    found = workload.meta["files"][path.name]
    return found["calls"], found["invalid"]


def measure(
    workload: Workload,
    shapes: Sequence[str],
    peer: Path | None,
    rounds: int,
    scratch: Path,
    spark: Sequence[str] = (),
) -> tuple[dict[str, Any], list[str]]:
    """Every contestant on every workload, alternately, ``rounds`` times; the figures and the
    verdicts that disagreed."""
    report = scratch / "report.json"
    disagreements: list[str] = []
    timings: dict[str, dict[str, Timing]] = {}
    fail_pass: dict[str, dict[str, list[Run]]] = {}
    workloads = [*shapes, "body"]

    def timed(shape: str, contestant: Contestant, path: Path) -> Run:
        report.unlink(missing_ok=True)
        run = run_child(contestant.command(path, report), scratch, reap=contestant.reap)
        try:
            seen = contestant.verdicts(run, report)
        except Failure as error:
            raise SystemExit(f"bench_real: {contestant.label} on {path.name}: {error}") from None
        if seen != expected(workload, path):
            calls, bad = expected(workload, path)
            disagreements.append(
                f"{contestant.label} on {path.name}: {seen[0]:,} calls, {seen[1]:,} invalid; "
                f"the workload has {calls:,} calls, {bad:,} invalid"
            )
        print(
            f"  {shape:10} {contestant.label:32} {path.name:28} {run.wall:7.2f} s wall "
            f"{run.cpu:7.2f} s CPU",
            file=sys.stderr,
        )
        return run

    for round_ in range(rounds):
        print(f"round {round_ + 1} of {rounds}", file=sys.stderr)
        for shape in workloads:
            group = contestants(workload, shape, peer, spark)
            group = group[round_ % len(group) :] + group[: round_ % len(group)]
            inputs = (
                (workload.bodies("tiny"), workload.bodies())
                if shape == "body"
                else (workload.shape(shape, "tiny"), workload.shape(shape))
            )
            for contestant in group:
                timing = timings.setdefault(shape, {}).setdefault(contestant.label, Timing())
                timing.tiny.append(timed(shape, contestant, inputs[0]))
                timing.full.append(timed(shape, contestant, inputs[1]))
            if shape == "body":
                continue
            one = next(c for c in group if c.label == "check --jobs 1")
            for part in ("pass.tiny", "pass", "fail.tiny", "fail"):
                run = timed(shape, one, workload.shape(shape, part))
                fail_pass.setdefault(shape, {}).setdefault(part, []).append(run)
    return summarise(workload, shapes, timings, fail_pass), disagreements


def summarise(
    workload: Workload,
    shapes: Sequence[str],
    timings: dict[str, dict[str, Timing]],
    fail_pass: dict[str, dict[str, list[Run]]],
) -> dict[str, Any]:
    """Medians and ratios of the runs."""
    figures: dict[str, Any] = {}
    for shape, by_label in timings.items():
        full = workload.shape(shape) if shape != "body" else workload.bodies()
        tiny = workload.shape(shape, "tiny") if shape != "body" else workload.bodies("tiny")
        calls, invalid = expected(workload, full)
        tiny_calls = expected(workload, tiny)[0]
        entry: dict[str, Any] = {"calls": calls, "invalid": invalid, "tiny_calls": tiny_calls}
        bare = by_label["bare loop"]
        for label, timing in by_label.items():
            clock = "wall" if label == "check (default jobs)" else "cpu"
            mine = timing.marginal(clock, calls, tiny_calls)
            theirs = bare.marginal(clock, calls, tiny_calls)
            figure: dict[str, Any] = {
                "clock": clock,
                "marginal_us": statistics.median(mine),
                "marginal_us_rounds": mine,
                "marginal_us_cpu": statistics.median(timing.marginal("cpu", calls, tiny_calls)),
                "marginal_us_wall": statistics.median(timing.marginal("wall", calls, tiny_calls)),
                "startup_ms": timing.startup(clock),
                "vs_bare": statistics.median(b / m for b, m in zip(theirs, mine, strict=True)),
            }
            peer = by_label.get(PEER)
            if peer is not None and label != PEER:
                theirs = peer.marginal(clock, calls, tiny_calls)
                figure["vs_peer"] = statistics.median(
                    p / m for p, m in zip(theirs, mine, strict=True)
                )
                figure["vs_peer_rounds"] = [p / m for p, m in zip(theirs, mine, strict=True)]
            if label.startswith("check --spark "):
                figure.update(
                    per_core(label, timing, by_label["check --jobs 1"], calls, tiny_calls)
                )
            entry[label] = figure
        if shape in fail_pass:
            runs = fail_pass[shape]
            ratios, per_call = [], {}
            for part in ("pass", "fail"):
                # marginal: less the same file's first calls (the start-up, no mix of calls)
                n = expected(workload, workload.shape(shape, part))[0]
                first = expected(workload, workload.shape(shape, f"{part}.tiny"))[0]
                per_call[part] = [
                    (r.cpu - t.cpu) / (n - first) * 1e6
                    for r, t in zip(runs[part], runs[f"{part}.tiny"], strict=True)
                ]
            ratios = [f / p for f, p in zip(per_call["fail"], per_call["pass"], strict=True)]
            entry["fail_pass"] = {
                "passing_us": statistics.median(per_call["pass"]),
                "failing_us": statistics.median(per_call["fail"]),
                "ratio": statistics.median(ratios),
                "ratio_rounds": ratios,
            }
        figures[shape] = entry
    return figures


def per_core(label: str, spark: Timing, one: Timing, calls: int, tiny_calls: int) -> dict[str, Any]:
    """Spark against ``check --jobs 1`` per core: the local run's marginal CPU time over
    Spark's (every Spark process counted), and, for ``local[N]``, the local run's marginal
    wall time over N times Spark's (at 0.5, Spark per core is half the local run)."""
    cpu = [
        o / s
        for o, s in zip(
            one.marginal("cpu", calls, tiny_calls), spark.marginal("cpu", calls, tiny_calls),
            strict=True,
        )
    ]  # fmt: skip
    out: dict[str, Any] = {"per_core_cpu": statistics.median(cpu), "per_core_cpu_rounds": cpu}
    cores = re.fullmatch(r"check --spark local\[(\d+)\]", label)
    if cores is not None:
        n = int(cores.group(1))
        wall = [
            o / (s * n)
            for o, s in zip(
                one.marginal("wall", calls, tiny_calls), spark.marginal("wall", calls, tiny_calls),
                strict=True,
            )
        ]  # fmt: skip
        out |= {"per_core_wall": statistics.median(wall), "per_core_wall_rounds": wall}
    return out


def table(meta: dict[str, Any], figures: dict[str, Any], peer: str, load: list[float]) -> str:
    """The figures as text tables."""
    lines = [
        f"bfcl-eval {meta['bfcl_eval']}: {meta['tools']:,} tools ({meta['write_tools']:,} read "
        f"as writes), {meta['calls']:,} calls in {meta['responses']:,} responses, "
        f"{meta['invalid']:,} damaged ({meta['invalid'] / meta['calls']:.1%}), "
        f"{meta['repeated_calls']:,} repeats of an earlier call",
        f"load average {load[0]:.1f} at the start, {load[1]:.1f} at the end",
        "",
        "marginal µs per call (start-up and tool loading subtracted); ×bare = the bare loop's "
        "time over the contestant's",
        f"{'shape':10} {'bare µs':>8} {'-j1 µs':>8} {'×bare':>6} {'jobs µs':>8} {'×bare':>6} "
        f"{'fail µs':>8} {'pass µs':>8} {'fail/pass':>9} {'start -j1':>10}",
    ]
    for shape, entry in figures.items():
        if shape == "body":
            continue
        bare, one, jobs = entry["bare loop"], entry["check --jobs 1"], entry["check (default jobs)"]
        fp = entry.get("fail_pass", {})
        lines.append(
            f"{shape:10} {bare['marginal_us']:8.1f} {one['marginal_us']:8.1f} "
            f"{one['vs_bare']:6.2f} {jobs['marginal_us']:8.1f} {jobs['vs_bare']:6.2f} "
            f"{fp.get('failing_us', float('nan')):8.1f} {fp.get('passing_us', float('nan')):8.1f} "
            f"{fp.get('ratio', float('nan')):9.2f} {one['startup_ms']:8.0f} ms"
        )
    lines += [
        "(-j1 and the bare loop in CPU time; default jobs in wall time, against the bare "
        "loop's wall time; fail and pass: check --jobs 1 on damaged and on valid calls only, less "
        "each file's first calls)",
    ]
    sparks = [
        (shape, label, figure)
        for shape, entry in figures.items()
        for label, figure in entry.items()
        if label.startswith("check --spark ")
    ]
    if sparks:
        lines += [
            "",
            "Spark against check --jobs 1, per core (marginal; at 0.50 Spark does per core "
            "half of what the local run does)",
            f"{'shape':10} {'contestant':26} {'CPU µs':>8} {'-j1 CPU µs':>10} {'per core':>8} "
            f"{'wall µs':>8} {'-j1 wall':>8} {'per core':>8} {'start-up':>9}",
        ]
        for shape, label, figure in sparks:
            one = figures[shape]["check --jobs 1"]
            lines.append(
                f"{shape:10} {label:26} {figure['marginal_us_cpu']:8.1f} "
                f"{one['marginal_us_cpu']:10.1f} {figure['per_core_cpu']:8.2f} "
                f"{figure['marginal_us_wall']:8.1f} {one['marginal_us_wall']:8.1f} "
                f"{figure.get('per_core_wall', float('nan')):8.2f} "
                f"{figure['startup_ms'] / 1e3:7.1f} s"
            )
        lines.append(
            "(CPU: every process of the run, Spark's Java process and Python workers included; "
            "per core by CPU: -j1's CPU time over Spark's; by wall: -j1's wall time over "
            "local[N]'s times N)"
        )
    body = figures.get("body")
    if body is not None:
        one = meta["one_schema"]
        lines += [
            "",
            f"one schema ({one['tool']}): {one['calls']:,} bodies, {one['invalid']:,} damaged; "
            f"peer: {peer}",
            f"{'contestant':38} {'µs/call':>8} {'clock':>5} {'×bare':>6} {'×peer':>6} "
            f"{'start-up':>9}",
        ]
        for label, figure in body.items():
            if not isinstance(figure, dict) or "marginal_us" not in figure:
                continue
            vs_peer = f"{figure['vs_peer']:6.2f}" if "vs_peer" in figure else f"{'':6}"
            lines.append(
                f"{label:38} {figure['marginal_us']:8.2f} {figure['clock']:>5} "
                f"{figure['vs_bare']:6.2f} {vs_peer} {figure['startup_ms']:6.0f} ms"
            )
        lines.append("(×peer: the peer's time over the contestant's; above 1 faster than it)")
    return "\n".join(lines)


# --- profile -------------------------------------------------------------------------------


#: Run ``jsoncontract`` (``sys.argv[2:]``) under cProfile on the process's CPU clock (its
#: default clock is the wall's, which a shared machine's load inflates), saved to argv[1].
PROFILED = """
import cProfile, runpy, sys, time
out, sys.argv = sys.argv[1], ["jsoncontract", *sys.argv[2:]]
profiler = cProfile.Profile(time.process_time)
profiler.enable()
try:
    runpy.run_module("jsoncontract", run_name="__main__", alter_sys=True)
except SystemExit as stop:
    code = stop.code
finally:
    profiler.disable()
    profiler.dump_stats(out)
sys.exit(code)
"""


def profile(workload: Workload, shape: str, scratch: Path, top: int) -> str:
    """``check --jobs 1`` on the full ``shape`` under cProfile: the costliest functions."""
    import pstats

    path = workload.shape(shape) if shape != "body" else workload.bodies()
    data = workload.folder / f"profile-{shape}.prof"
    tool = (
        ["--tools", str(workload.schema), "--tool", workload.meta["one_schema"]["tool"]]
        if shape == "body"
        else ["--tools", str(workload.tools)]
    )
    args = [sys.executable, "-c", PROFILED, str(data), "check", *tool, str(path)]
    args += ["-f", "json", "-o", str(scratch / "report.json"), "--no-progress", "--jobs", "1"]
    run = run_child(args, scratch)
    if run.code not in (0, 1):
        raise SystemExit(f"bench_real: the profiled run failed: {run.stderr.decode()[-400:]}")
    entries = pstats.Stats(str(data)).stats  # type: ignore[attr-defined]
    calls = expected(workload, path)[0]
    total = sum(tt for (_cc, _nc, tt, _ct, _callers) in entries.values())
    rows = [
        f"{tt / calls * 1e6:8.2f} {tt / total:6.1%} {ct / calls * 1e6:8.2f} {ncalls:>10,}  "
        f"{_short(file)}:{line}:{name}"
        for (file, line, name), (_cc, ncalls, tt, ct, _callers) in sorted(
            entries.items(), key=lambda kv: kv[1][2], reverse=True
        )[:top]
    ]
    return "\n".join(
        [
            f"check --jobs 1 on {path.name} ({calls:,} calls) under cProfile: {run.cpu:.1f} s "
            f"CPU, {total:.1f} s profiled ({total / calls * 1e6:.1f} µs a call, the profiler's "
            "own cost included: the shares are what counts); µs per call, own and with callees:",
            f"{'own':>8} {'share':>6} {'cumul':>8} {'calls':>10}  function",
            *rows,
            f"(the whole profile: python -m pstats {data})",
        ]
    )


def _short(file: str) -> str:
    for marker in ("/site-packages/", "/lib/python3"):
        if marker in file:
            return file.split(marker, 1)[1]
    root = str(Path(__file__).resolve().parent.parent) + "/"
    return file.removeprefix(root)


# --- main ----------------------------------------------------------------------------------


def main() -> None:
    parser = BenchParser(__doc__)  # --quick: small sizes, one round (for tests)
    parser.add_argument("--calls", type=int, help=f"calls in the trace (default {FULL.calls:,})")
    parser.add_argument("--rounds", type=int, help=f"alternating rounds (default {FULL.rounds})")
    parser.add_argument("--shapes", nargs="+", choices=SHAPES, default=list(SHAPES))
    parser.add_argument("--seed", type=int, default=21, quick=21)
    parser.add_argument("--invalid", type=float, default=0.1, help="share of damaged calls")
    parser.add_argument("--bfcl-version", default=BFCL_VERSION)
    parser.add_argument("--wheel", type=Path, help="a bfcl-eval wheel to read (no download)")
    parser.add_argument("--peer", help="sourcemeta's jsonschema binary (no npm install)")
    parser.add_argument("--no-peer", action="store_true", help="leave the peer out")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the figures as JSON")
    parser.add_argument(
        "--profile",
        nargs="+",
        choices=[*SHAPES, "body"],
        help="profile check --jobs 1 on these shapes instead of comparing",
    )
    parser.add_argument("--top", type=int, default=30, quick=30, help="functions a profile lists")
    parser.add_argument(
        "--spark",
        nargs="+",
        default=[],
        metavar="MASTER",
        help="also check --spark MASTER (local[1], local[2]...) on the trace shapes (the spark "
        "extra; Linux)",
    )
    parser.add_argument("--bare-loop", choices=[*SHAPES, "body"], help=argparse.SUPPRESS)
    parser.add_argument("--tools", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("trace", nargs="?", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.json is not None and (options.json.is_dir() or not options.json.parent.is_dir()):
        parser.error(f"--json {options.json}: not a file in an existing directory")

    if options.bare_loop:  # the child the comparison runs
        found = bare_loop(options.bare_loop, options.tools, options.trace, None)
        sys.stdout.write(json.dumps(found) + "\n")
        return

    sizes = QUICK if options.quick else FULL
    rounds = options.rounds or sizes.rounds
    plan = Plan(
        calls=options.calls or sizes.calls,
        one_schema=sizes.one_schema,
        fail_pass=sizes.fail_pass,
        tiny_share=sizes.tiny_share,
        seed=options.seed,
        invalid=options.invalid,
    )
    root = out_dir()
    wheel = bfcl_wheel(options.bfcl_version, options.wheel, root / "wheels")
    workload = build_workload(wheel, plan, root)
    meta = workload.meta
    with tempfile.TemporaryDirectory(prefix="bench-real-") as scratch:
        if options.profile:
            for shape in options.profile:
                print(profile(workload, shape, Path(scratch), options.top))
            return
        if options.no_peer:
            peer, about = None, "left out (--no-peer)"
        else:
            peer, about = peer_binary(options.peer, root)
        if peer is None:
            about = f"sourcemeta's jsonschema is left out: {about}"
            print(f"peer: {about}", file=sys.stderr)
        load = [os.getloadavg()[0]]
        figures, disagreements = measure(
            workload, options.shapes, peer, rounds, Path(scratch), options.spark
        )
        load.append(os.getloadavg()[0])
    print(table(meta, figures, about, load))
    if options.json:
        document = {
            "workload": {k: v for k, v in meta.items() if k != "files"},
            "rounds": rounds,
            "spark": options.spark,
            "quick": options.quick,
            "peer": about if peer is not None else None,
            "peer_left_out": None if peer is not None else about,
            "load_average": load,
            "shapes": {k: v for k, v in figures.items() if k != "body"},
            "one_schema": figures["body"],
            "verdicts_agree": not disagreements,
            "disagreements": disagreements,
        }
        options.json.write_text(json.dumps(document, indent=2) + "\n")
    if disagreements:
        print("verdicts DISAGREE:", *disagreements, sep="\n  ", file=sys.stderr)
        raise SystemExit(1)
    print("verdicts: every run found the workload's damaged calls", file=sys.stderr)


if __name__ == "__main__":
    main()
