"""The pre-commit hooks take the changed files: each hook's entry is run exactly as
pre-commit runs it (the entry, then the changed files that match its filter)."""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
HOOKS = {hook["id"]: hook for hook in yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())}


def run_hook(hook_id: str, changed: list[str], run_cli: Callable[..., Any]) -> Any:
    """What pre-commit does: keep the changed files the hook's filter matches, append them
    to its entry."""
    hook = HOOKS[hook_id]
    assert hook["pass_filenames"] is True
    kinds = {"json": (".json",), "yaml": (".yaml", ".yml")}
    files = [
        f
        for f in changed
        if ("types_or" not in hook or f.endswith(sum((kinds[t] for t in hook["types_or"]), ())))
        and ("files" not in hook or re.search(hook["files"], f))
    ]
    command = shlex.split(hook["entry"])
    assert command[0] == "jsoncontract"
    return run_cli(*command[1:], *files)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "tools").mkdir()
    shutil.copy(REPO / "fixtures/tools/anthropic.json", tmp_path / "tools/anthropic.json")
    (tmp_path / "package.json").write_text('{"name": "app", "version": "1.0.0"}')
    (tmp_path / "jsoncontract.toml").write_text('tools = ["tools/"]\n')
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_lint_hook_lints_the_changed_tool_files(
    project: Path, run_cli: Callable[..., Any]
) -> None:
    only_package = run_hook("jsoncontract-lint", ["package.json", "README.md"], run_cli)
    assert only_package.code == 0
    assert "no changed tool definition file to lint" in only_package.stderr
    both = run_hook("jsoncontract-lint", ["package.json", "tools/anthropic.json"], run_cli)
    assert "1 file)" in both.stdout  # the tools file only
    weak = project / "tools" / "weak.yaml"
    weak.write_text(
        "- name: create_refund\n  input_schema:\n    type: object\n"
        "    properties: {amount: {type: number}}\n"
    )
    failing = run_hook("jsoncontract-lint", ["tools/weak.yaml"], run_cli)
    assert "tools/weak.yaml" in failing.stdout and "create_refund" in failing.stdout


def test_the_lint_hook_without_configured_tools_lints_what_changed(
    project: Path, run_cli: Callable[..., Any]
) -> None:
    (project / "jsoncontract.toml").unlink()
    result = run_hook("jsoncontract-lint", ["package.json", "tools/anthropic.json"], run_cli)
    assert result.code == 0, result.stderr
    assert "note: skipped package.json" in result.stderr
    assert "1 file)" in result.stdout


def test_the_pin_hook_checks_when_a_tool_or_the_lock_changed(
    project: Path, run_cli: Callable[..., Any]
) -> None:
    assert run_cli("pin").code == 0
    assert run_hook("jsoncontract-pin-check", ["package.json"], run_cli).code == 0
    assert run_hook("jsoncontract-pin-check", ["tools/anthropic.json"], run_cli).code == 0
    tools = project / "tools" / "anthropic.json"
    tools.write_text(tools.read_text().replace('"celsius",', ""))
    drift = run_hook("jsoncontract-pin-check", ["tools/anthropic.json"], run_cli)
    assert drift.code == 1 and "get_weather" in drift.stdout
    unrelated = run_hook("jsoncontract-pin-check", ["package.json"], run_cli)
    assert unrelated.code == 0  # nothing this commit touched
