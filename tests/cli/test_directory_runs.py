"""Directory runs: a stray file neither stops the run nor hides the others. A file that
holds no capture (or no tool definition) is skipped with a note, one that cannot be read is
a finding (exit 1) while the rest is still checked, and --exclude leaves files out."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Captures next to the tools file, a package.json, a broken file, a build folder."""
    shutil.copy(REPO / "fixtures/tools/anthropic.json", tmp_path / "tools.json")
    shutil.copy(REPO / "fixtures/captures/faults/schema-enum.json", tmp_path / "call.json")
    (tmp_path / "package.json").write_text(json.dumps({"name": "my-app", "version": "1.0.0"}))
    (tmp_path / "build").mkdir()
    (tmp_path / "build" / "broken.json").write_text("{not json")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_check_a_directory_holding_the_tools_file_and_package_json(
    project: Path, run_cli: Callable[..., Any]
) -> None:
    result = run_cli("check", "--no-config", "-t", "fixtures-tools-missing", ".")
    assert result.code == 2  # a tools path that does not exist is still a usage error
    result = run_cli("check", "--no-config", "-t", "tools.json", ".", "-f", "json")
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    codes = {(r["source"]["file"], f["code"]) for r in report["results"] for f in r["findings"]}
    assert codes == {
        ("build/broken.json", "input.unreadable"),  # a finding, the rest still checked
        ("call.json", "schema.enum"),
    }
    assert "note: skipped package.json: not a capture in any known dialect" in result.stderr
    assert "note: skipped tools.json: not a capture" in result.stderr


def test_a_tools_directory_skips_what_holds_no_tool(
    project: Path, run_cli: Callable[..., Any]
) -> None:
    tools = project / "tools"
    tools.mkdir()
    shutil.copy(project / "tools.json", tools / "anthropic.json")
    shutil.copy(project / "package.json", tools / "package.json")
    result = run_cli("check", "--no-config", "-t", "tools", "call.json")
    assert result.code == 1, result.stderr
    assert "note: skipped tools/package.json: tool 'my-app' has no schema" in result.stderr


def test_exclude_leaves_files_and_directories_out(
    project: Path, run_cli: Callable[..., Any]
) -> None:
    result = run_cli(
        "check",
        "--no-config",
        "-t",
        "tools.json",
        ".",
        "--exclude",
        "build/",
        "--exclude",
        "package.json",
        "--exclude",
        "tools.json",
        "-f",
        "json",
    )
    assert result.code == 1
    assert [r["source"]["file"] for r in json.loads(result.stdout)["results"]] == ["call.json"]
    assert "skipped" not in result.stderr
    (project / "jsoncontract.toml").write_text('exclude = ["build/**"]\n')
    configured = run_cli("check", "-t", "tools.json", ".", "-f", "json")
    files = {r["source"]["file"] for r in json.loads(configured.stdout)["results"]}
    assert files == {"call.json"}


def test_a_directory_everything_is_excluded_from_says_so(
    project: Path, run_cli: Callable[..., Any]
) -> None:
    result = run_cli("check", "--no-config", "-t", "tools.json", "build", "--exclude", "*.json")
    assert result.code == 2
    assert "directory has no capture files" in result.stderr
    assert "once --exclude is applied" in result.stderr


def test_a_named_file_is_still_an_error(project: Path, run_cli: Callable[..., Any]) -> None:
    result = run_cli("check", "--no-config", "-t", "tools.json", "package.json")
    assert result.code == 2
    assert "package.json: not a capture in any known dialect" in result.stderr


def test_lint_goes_on_past_a_broken_file(project: Path, run_cli: Callable[..., Any]) -> None:
    result = run_cli("lint", "--no-config", ".", "-f", "json")
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    broken = [f for f in report["findings"] if f["code"] == "input.unreadable"]
    assert [f["source"]["file"] for f in broken] == ["build/broken.json"]
    assert any(f.get("tool") == "update_shipment" for f in report["findings"])  # tools.json
    assert "note: skipped package.json" in result.stderr
    assert "note: skipped call.json" in result.stderr
    sarif = run_cli("lint", "--no-config", ".", "-f", "sarif")
    rules = {r["id"] for r in json.loads(sarif.stdout)["runs"][0]["tool"]["driver"]["rules"]}
    assert "input.unreadable" in rules
    named = run_cli("lint", "--no-config", "build/broken.json")
    assert named.code == 2  # named on the command line: the file itself is the mistake


def test_pin_skips_what_holds_no_tool_and_takes_exclude(
    project: Path, run_cli: Callable[..., Any]
) -> None:
    pinned = run_cli("pin", "--no-config", ".", "--exclude", "build/", "--lock", "tools.lock")
    assert pinned.code == 0, pinned.stderr
    assert "note: skipped package.json" in pinned.stderr
    assert "note: skipped call.json" in pinned.stderr
    lock = json.loads((project / "tools.lock").read_text())
    assert list(lock["files"]) == ["tools.json"]
    checked = run_cli(
        "pin", "--no-config", ".", "--exclude", "build/", "--lock", "tools.lock", "--check"
    )
    assert checked.code == 0, checked.stderr
    broken = run_cli("pin", "--no-config", ".", "--lock", "tools.lock")
    assert broken.code == 2  # a file that cannot be read is not skipped: the lock would lie
    assert "build/broken.json" in broken.stderr
