"""The GitHub Action (``action.yml``): its steps run here, as a runner would run them on a
pull request that changes a tool file, with the expressions of its ``env`` and ``if``
evaluated from the inputs, the step outputs and the event. The upload to code scanning
(another action) is not run: its SARIF files are checked against GitHub's rules instead;
nor is the comment (``gh`` and a token), whose body is the changelog the docs show."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.conftest import REPO, check_github_sarif

pytestmark = pytest.mark.slow

ACTION = yaml.safe_load((REPO / "action.yml").read_text())
OLD = REPO / "fixtures" / "compat" / "mcp-server-git-2025.9.25.json"
NEW = REPO / "fixtures" / "compat" / "mcp-server-git-2026.10.19.json"
_CONTEXT = re.compile(r"\b(inputs|steps|github|runner)\.([A-Za-z0-9_.-]+)")


class Runner:
    """Runs the action's steps in a work tree, as GitHub Actions would."""

    def __init__(self, work: Path, temp: Path, inputs: dict[str, str], event: dict[str, Any]):
        self.work, self.temp = work, temp
        defaults = {k: str(v.get("default", "")) for k, v in ACTION["inputs"].items()}
        self.inputs = {**defaults, **inputs}
        self.event = event
        self.outputs: dict[str, dict[str, str]] = {}
        self.summary = temp / "summary.md"
        self.codes: dict[str, int] = {}

    def value(self, name: str, rest: str) -> str:
        if name == "inputs":
            return self.inputs[rest]
        if name == "runner":
            return {"temp": str(self.temp)}[rest]
        if name == "steps":
            step, _, output = rest.partition(".outputs.")
            return self.outputs.get(step, {}).get(output, "")
        if rest == "action_path":
            return str(REPO)
        node: Any = self.event
        for part in rest.removeprefix("event.").split("."):
            node = node.get(part, "") if isinstance(node, dict) else ""
        return str(node)

    def expand(self, text: str) -> str:
        """``${{ context.name }}`` in a value, replaced."""
        return re.sub(
            r"\$\{\{\s*(\w+)\.([A-Za-z0-9_.-]+)\s*\}\}", lambda m: self.value(*m.groups()), text
        )

    def condition(self, text: str) -> bool:
        """An ``if:`` of the forms the action uses."""
        expr = text.replace("&&", " and ").replace("||", " or ").replace("always()", "True")

        def files(m: re.Match[str]) -> str:
            folder = self.value("runner", "temp") + m.group(1)
            return repr("x" if list(Path(folder).parent.glob(Path(folder).name)) else "")

        expr = re.sub(r"hashFiles\(format\('\{0\}([^']*)', runner\.temp\)\)", files, expr)
        expr = _CONTEXT.sub(lambda m: repr(self.value(*m.groups())), expr)
        return bool(eval(expr, {"__builtins__": {}}, {"True": True}))

    def run(self, step: dict[str, Any], extra: dict[str, str]) -> int:
        output = self.temp / f"output-{len(self.codes)}"
        output.write_text("")
        env = {
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
            "GITHUB_OUTPUT": str(output),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "GITHUB_BASE_REF": str(self.event.get("pull_request", {}).get("base_ref", "")),
            **{k: self.expand(str(v)) for k, v in step.get("env", {}).items()},
            **extra,
        }
        done = subprocess.run(
            ["bash", "-e", "-c", step["run"]], cwd=self.work, env=env, capture_output=True,
            text=True, check=False, timeout=300,
        )  # fmt: skip
        if "id" in step:
            pairs = [line.split("=", 1) for line in output.read_text().splitlines() if "=" in line]
            self.outputs[step["id"]] = dict(pairs)
        self.codes[step["name"]] = done.returncode
        assert done.returncode in (0, 1), (step["name"], done.stderr)
        return done.returncode


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


@pytest.fixture
def pull_request(tmp_path: Path) -> Path:
    """A clone holding a pull request that moves tools/git.json from the older release of
    mcp-server-git to the newer, whose base branch is not fetched."""
    upstream = tmp_path / "upstream"
    (upstream / "tools").mkdir(parents=True)
    _git("init", "-q", "-b", "main", str(upstream), cwd=tmp_path)
    (upstream / "tools" / "git.json").write_text(OLD.read_text())
    (upstream / "calls.jsonl").write_text(
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "git_add", '
        '"arguments": {"repo_path": "/r", "files": []}}}\n'
    )
    _git("add", "-A", cwd=upstream)
    _git("commit", "-qm", "tools", cwd=upstream)
    _git("checkout", "-qb", "new-git", cwd=upstream)
    (upstream / "tools" / "git.json").write_text(NEW.read_text())
    _git("commit", "-qam", "mcp-server-git 2026.10.19", cwd=upstream)
    work = tmp_path / "work"
    _git("clone", "-q", "--single-branch", "--branch", "new-git", str(upstream), str(work),
         cwd=tmp_path)  # fmt: skip
    return work


def test_the_action_on_a_pull_request(
    pull_request: Path, tmp_path: Path, golden: Callable[[str, str], None]
) -> None:
    temp = tmp_path / "runner"
    temp.mkdir()
    event = {"pull_request": {"number": 7, "base_ref": "main"}}
    runner = Runner(pull_request, temp, {"tools": "tools/git.json", "captures": "calls.jsonl"},
                    event)  # fmt: skip
    uses = []
    for step in ACTION["runs"]["steps"]:
        if "if" in step and not runner.condition(step["if"]):
            continue
        if "uses" in step:
            uses.append(step)
            continue
        extra: dict[str, str] = {}
        if "pip install" in step["run"]:
            # the install runs as written, in a virtual environment of its own (the
            # dependencies are those of the suite's, left out)
            venv.create(tmp_path / "venv", with_pip=True)
            path = f"{tmp_path / 'venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"
            extra = {"PATH": path, "PIP_NO_DEPS": "1"}
        runner.run(step, extra)
    assert (tmp_path / "venv" / "bin" / "jsoncontract").is_file()
    # each command's findings are its step's output (lint finds only warnings here); the
    # verdict fails the job on them
    assert runner.codes == {
        "Install jsoncontract": 0,
        "Lint the tool definitions": 0,
        "Compare with the base branch": 0,
        "Check the captured calls": 0,
        "Verdict": 1,
    }
    assert {step: runner.outputs[step]["code"] for step in ("lint", "compat", "check")} == {
        "lint": "0", "compat": "1", "check": "1",
    }  # fmt: skip
    # SARIF for code scanning, through a pinned release of GitHub's upload action
    [upload] = uses
    assert re.fullmatch(r"github/codeql-action/upload-sarif@v\d+", upload["uses"])
    sarif = Path(runner.expand(upload["with"]["sarif_file"]))
    assert sorted(p.name for p in sarif.iterdir()) == ["check.sarif", "compat-1.sarif",
                                                       "lint.sarif"]  # fmt: skip
    for report in sarif.iterdir():
        check_github_sarif(report.read_text())
    # the changelog: on the job summary, and the body of the pull request's comment
    changelog = Path(runner.outputs["compat"]["changelog"])
    body = changelog.read_text()
    assert body.startswith("## 🔴 Tool contract changes: 1 breaking, 1 risky")
    assert "`git:origin/main:tools/git.json` → `tools/git.json`" in body
    assert body in runner.summary.read_text()
    golden("compat/action-comment.md", body)
    assert runner.condition(
        ACTION["runs"]["steps"][-2]["if"].replace("inputs.comment", "'true'")
    ), "with comment: true the changelog is posted"


def test_the_action_passes_a_pull_request_that_breaks_nothing(
    pull_request: Path, tmp_path: Path
) -> None:
    temp = tmp_path / "runner"
    temp.mkdir()
    _git("fetch", "-q", "origin", "main:refs/remotes/origin/main", cwd=pull_request)
    (pull_request / "tools" / "git.json").write_text(OLD.read_text())
    runner = Runner(pull_request, temp, {"tools": "tools/git.json", "lint": "false"},
                    {"pull_request": {"number": 7, "base_ref": "main"}})  # fmt: skip
    steps = {s["name"]: s for s in ACTION["runs"]["steps"]}
    assert runner.run(steps["Compare with the base branch"], {}) == 0
    assert runner.run(steps["Verdict"], {}) == 0
    assert "no change" in Path(runner.outputs["compat"]["changelog"]).read_text()
