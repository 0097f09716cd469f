"""An extra that is not installed is a one-line usage error that names it (exit 2).

Each command runs in a fresh interpreter in which nothing that only the extra brings can be
imported: the distributions the extra requires (and theirs, all the way down), less those the
base install requires too, found in the installed metadata; their modules raise
``ModuleNotFoundError`` as they do where they were never installed. That is the environment
of a plain ``pip install .``, without building one per test.
"""

from __future__ import annotations

import importlib.metadata as metadata
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parent.parent

#: Run ``jsoncontract ARGS`` with some top-level modules unimportable.
BLOCKED_RUN = """
import sys
blocked = set(sys.argv[1].split(","))

class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in blocked:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, Missing())
from jsoncontract.cli import run
sys.exit(run(sys.argv[2:]))
"""


def _name(requirement: Requirement) -> str:
    return requirement.name.lower().replace("_", "-")


def _closure(requirements: list[Requirement]) -> set[str]:
    """The distributions these requirements install, with everything they require."""
    seen: set[str] = set()
    todo = list(requirements)
    while todo:
        requirement = todo.pop()
        name = _name(requirement)
        if name in seen:
            continue
        seen.add(name)
        try:
            below = metadata.requires(name) or []
        except metadata.PackageNotFoundError:
            continue
        todo.extend(r for r in map(Requirement, below) if r.marker is None or r.marker.evaluate())
    return seen


@cache
def only_in(extra: str) -> frozenset[str]:
    """The top-level modules that the extra installs and the base install does not."""
    declared = [Requirement(r) for r in metadata.requires("jsoncontract") or []]
    base = [r for r in declared if r.marker is None or r.marker.evaluate({"extra": ""})]
    wanted = [r for r in declared if r.marker is not None and r.marker.evaluate({"extra": extra})]
    distributions = _closure(wanted) - _closure(base)
    modules = {
        module
        for module, owners in metadata.packages_distributions().items()
        if any(owner.lower().replace("_", "-") in distributions for owner in owners)
    }
    assert modules, f"the {extra} extra is installed in the test environment"
    return frozenset(modules)


def without(extra: str, *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    blocked = ",".join(sorted(only_in(extra)))
    return subprocess.run(
        [sys.executable, "-c", BLOCKED_RUN, blocked, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


MCP_MISSING = (
    "jsoncontract: error: the mcp commands need the mcp extra (the official MCP SDK): "
    "pip install '.[mcp]' in a clone of jsoncontract\n"
)
SPARK_MISSING = (
    "jsoncontract: error: --spark needs the spark extra (pyspark 4.0, on Java 17): "
    "pip install '.[spark]' in a clone of jsoncontract\n"
)


def test_what_each_extra_alone_brings() -> None:
    assert {"mcp", "mcp_types", "anyio", "httpx2", "uvicorn", "starlette"} <= only_in("mcp")
    assert "pyspark" in only_in("spark")
    assert not only_in("mcp") & {"jsonschema", "rich", "typer", "yaml", "orjson"}


@pytest.mark.parametrize(
    "args",
    [
        ["mcp", "tools", "--", "x"],
        ["mcp", "lint", "--", "x"],
        ["mcp", "pin", "--lock", "mcp.lock", "--", "x"],
        ["mcp", "probe", "--", "x"],
        ["mcp", "test", str(REPO / "fixtures/suites/example"), "--", "x"],
        ["mcp", "record", "-o", "t.jsonl", "--listen", "127.0.0.1:0", "--upstream", "http://x"],
        ["compat", "--old-server", "x", "--new-server", "y"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_the_mcp_commands_without_the_mcp_extra(args: list[str], tmp_path: Path) -> None:
    done = without("mcp", *args, cwd=tmp_path)
    assert (done.returncode, done.stdout, done.stderr) == (2, "", MCP_MISSING)
    assert list(tmp_path.iterdir()) == []  # nothing written


def test_check_spark_without_the_spark_extra() -> None:
    done = without(
        "spark", "check", "--spark", "local[2]", "-t", "fixtures/tools", "fixtures/captures"
    )  # before it would say that a file of fixtures/captures is no JSONL capture
    assert (done.returncode, done.stdout, done.stderr) == (2, "", SPARK_MISSING)


def test_what_needs_no_extra_runs_without_them() -> None:
    """The blocker leaves the rest alone: check runs, and replay (bytes only, no SDK)
    answers a recorded session without the mcp extra."""
    done = without("spark", "check", "-q", "-t", "fixtures/tools", "fixtures/captures")
    assert done.returncode == 1, done.stderr
    assert "62 calls in 41 files" in done.stdout
    done = without("mcp", "check", "-q", "-t", "fixtures/tools", "fixtures/captures")
    assert done.returncode == 1, done.stderr
