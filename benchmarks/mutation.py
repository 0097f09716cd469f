"""Mutation testing of the code that decides what a call is and what stays secret: how many
small, realistic changes to it the test suite notices.

Runs mutmut (``pip install mutmut``, not a dependency of the project) over a copy of the
committed tree, so the checkout is never touched: the ledger (``capture/ledger.py``), the
fast lane (``pipeline/fast.py``), the result stage (``pipeline/result.py``) and redaction
(``redact.py``, ``scrub.py``), each mutant checked by the tests of those modules (the
generative differential test is left out: it would check every mutant for minutes). Prints
the kill rate per module and overall: mutants killed (or stopped by a timeout) over all
mutants, a mutant no selected test runs counting as a survivor. A survivor that
:data:`EQUIVALENT` names (a change no behaviour can show, with the reason) is counted apart,
neither killed nor survived. Writes each other survivor, with its change, to
``mutation-survivors.txt`` in the working directory.

    python benchmarks/mutation.py                 # every module (about an hour on 2 cores)
    python benchmarks/mutation.py ledger          # one module: ledger, lane, result, redaction

Not run in CI: it takes far longer than the suite.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
#: The modules mutated, and the tests each mutant is checked with.
MODULES = {
    "ledger": (
        ["jsoncontract/capture/ledger.py"],
        [
            "tests/capture/test_ledger.py",
            "tests/capture/test_ledger_identity.py",
            "tests/capture/test_call_identity.py",
            "tests/capture/test_conversations.py",
            "tests/capture/test_otlp.py",
            "tests/capture/test_mcp_trace.py",
            "tests/pipeline/test_pins.py",
        ],
    ),
    "lane": (
        ["jsoncontract/pipeline/fast.py"],
        [
            "tests/pipeline/test_fast.py",
            "tests/pipeline/test_pins.py",
        ],
    ),
    "result": (
        ["jsoncontract/pipeline/result.py"],
        [
            "tests/pipeline/test_result.py",
            "tests/pipeline/test_leaks.py",
            "tests/pipeline/test_answers.py",
            "tests/pipeline/test_pins.py",
            "tests/acceptance/test_bundled_results.py",
        ],
    ),
    "redaction": (
        ["jsoncontract/redact.py", "jsoncontract/scrub.py"],
        [
            "tests/test_redact.py",
            "tests/test_scrub.py",
            "tests/test_secret_patterns.py",
            "tests/cli/test_redact_cli.py",
            "tests/cli/test_redact_inputs.py",
            "tests/reporters/test_secret_names.py",
            "tests/pipeline/test_pins.py",
        ],
    ),
}


#: Survivors that are equivalent mutants: no input can tell them from the code. Each is
#: named by its module, its function (as mutmut names it, without the mutant's number) and
#: the changed line before and after (stripped), with the reason it cannot be observed.
EQUIVALENT: dict[tuple[str, str, str, str], str] = {}


def _copy_tree(target: Path) -> None:
    """The committed tree (HEAD) into ``target``."""
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", "HEAD"],
        check=True,
        capture_output=True,
    ).stdout
    with tempfile.TemporaryFile() as held:
        held.write(archive)
        held.seek(0)
        with tarfile.open(fileobj=held) as tar:
            tar.extractall(target, filter="data")


def _config(target: Path, files: list[str], tests: list[str]) -> None:
    lines = [
        "[mutmut]",
        "source_paths = jsoncontract",
        "only_mutate =",
        *(f"    {f}" for f in files),
        "also_copy =",
        "    fixtures",
        "    docs",
        "    README.md",
        "    CHANGELOG.md",
        "pytest_add_cli_args_test_selection =",
        *(f"    {t}" for t in tests if (target / t).exists()),
        "pytest_add_cli_args =",
        # one process: the suite's own -n auto would start workers under each mutant's run
        "    -n",
        "    0",
        "    -p",
        "    no:cacheprovider",
        # a timing bound, which the tracing of the first run makes miss
        "    --deselect",
        "    tests/test_secret_patterns.py::test_pattern_work_is_linear_on_hostile_text",
    ]
    (target / "setup.cfg").write_text("\n".join(lines) + "\n")


def _mutmut(target: Path, *args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "mutmut", *args],
        cwd=target,
        capture_output=True,
        text=True,
        check=False,
    ).stdout


def _change(diff: str) -> tuple[str, str]:
    """The lines a mutant's diff removes and adds, each stripped and joined."""
    lines = [line for line in diff.splitlines() if not line.startswith(("---", "+++"))]
    before = " ".join(line[1:].strip() for line in lines if line.startswith("-"))
    after = " ".join(line[1:].strip() for line in lines if line.startswith("+"))
    return before, after


def _equivalent(name: str, diff: str) -> str | None:
    """The reason a survivor is an equivalent mutant, or ``None``."""
    module, _, function = name.rpartition("__mutmut_")[0].rpartition(".")
    return EQUIVALENT.get((module, function, *_change(diff)))


def _statuses(target: Path) -> Counter[str]:
    """Each mutant's status, from mutmut's own results (a survivor named in
    :data:`EQUIVALENT` as ``equivalent``)."""
    counts: Counter[str] = Counter()
    survivors = []
    for line in _mutmut(target, "results", "--all", "true").splitlines():
        name, _, status = line.strip().rpartition(": ")
        if not name:
            continue
        if status in ("survived", "no tests"):
            diff = _mutmut(target, "show", name)
            if _equivalent(name, diff) is not None:
                status = "equivalent"
            else:
                survivors.append(f"{name}: {status}\n{diff}\n")
        counts[status] += 1
    with Path("mutation-survivors.txt").open("a") as out:
        out.writelines(survivors)
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help=f"any of {', '.join(MODULES)} (default: all)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()
    unknown = [m for m in args.modules if m not in MODULES]
    if unknown:
        parser.error(f"unknown module {unknown[0]!r}; choose from {', '.join(MODULES)}")
    if importlib.util.find_spec("mutmut") is None:
        parser.error("mutmut is not installed: pip install mutmut")
    totals: Counter[str] = Counter()
    report = {}
    for module in args.modules or list(MODULES):
        files, tests = MODULES[module]
        with tempfile.TemporaryDirectory(prefix="mutation-") as folder:
            target = Path(folder)
            _copy_tree(target)
            _config(target, files, tests)
            done = subprocess.run(
                [sys.executable, "-m", "mutmut", "run", "--max-children", str(args.jobs)],
                cwd=target,
                check=False,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            counts = _statuses(target)
        if not any(counts[s] for s in ("killed", "timeout", "survived", "no tests")):
            # mutmut stopped before its first mutant (the tests did not run unmutated)
            print(f"{module}: mutmut checked no mutant:\n{done.stderr[-2000:]}", file=sys.stderr)
            return 2
        killed = counts["killed"] + counts["timeout"]
        run = sum(counts[s] for s in ("killed", "timeout", "survived", "no tests"))
        report[module] = {**counts, "kill_rate": round(killed / run, 3) if run else None}
        totals.update(counts)
        print(
            f"{module}: {killed} of {run} mutants killed ({killed / max(run, 1):.1%}), "
            f"{counts['equivalent']} equivalent left out"
        )
    killed = totals["killed"] + totals["timeout"]
    run = sum(totals[s] for s in ("killed", "timeout", "survived", "no tests"))
    print(json.dumps(report, indent=2))
    print(
        f"overall: {killed} of {run} killed ({killed / max(run, 1):.1%}), "
        f"{totals['equivalent']} equivalent left out"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
