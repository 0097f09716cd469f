"""``pin --check`` and ``mcp pin --check`` give each finding its compatibility class, and
``--fail-on`` decides on it; a lock written before a tool's title was pinned still
matches."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, CliResult

Run = Callable[..., CliResult]
OLD = REPO / "fixtures" / "compat" / "mcp-server-git-2025.9.25.json"
NEW = REPO / "fixtures" / "compat" / "mcp-server-git-2026.10.19.json"


def _locked(run_cli: Run, tmp_path: Path) -> tuple[Path, Path]:
    tools = tmp_path / "tools.json"
    shutil.copy(OLD, tools)
    lock = tmp_path / "jsoncontract.lock"
    assert run_cli("pin", "--no-config", str(tools), "--lock", str(lock)).code == 0
    shutil.copy(NEW, tools)
    return tools, lock


def _check(run_cli: Run, tools: Path, lock: Path, *args: str) -> CliResult:
    return run_cli("pin", "--no-config", str(tools), "--lock", str(lock), "--check", *args)


def test_each_drift_finding_has_its_class(run_cli: Run, tmp_path: Path) -> None:
    tools, lock = _locked(run_cli, tmp_path)
    result = _check(run_cli, tools, lock, "-f", "json")
    assert result.code == 1
    report: dict[str, Any] = json.loads(result.stdout)
    classes = {(f["tool"], f["code"], f.get("path")): f["class"] for f in report["findings"]}
    assert classes[("git_add", "pin.input_schema_changed", "/properties/files/minItems")] == (
        "breaking"
    )
    assert classes[("git_add", "pin.input_schema_changed", "/title")] == "cosmetic"
    assert classes[("git_show", "pin.description_changed", "")] == "risky"
    assert classes[("git_add", "pin.annotations_changed", "")] == "compatible"
    assert report["summary"]["classes"] == {
        "breaking": 1, "risky": 1, "compatible": 12, "cosmetic": 12,
    }  # fmt: skip
    text = _check(run_cli, tools, lock).stdout
    assert "error pin.input_schema_changed [breaking] tool 'git_add'" in text


def test_fail_on_decides_by_class(run_cli: Run, tmp_path: Path) -> None:
    tools, lock = _locked(run_cli, tmp_path)
    assert _check(run_cli, tools, lock).code == 1  # any drift, as before
    assert _check(run_cli, tools, lock, "--fail-on", "breaking").code == 1
    document = json.loads(NEW.read_text())
    add = next(t for t in document["tools"] if t["name"] == "git_add")
    del add["inputSchema"]["properties"]["files"]["minItems"]
    tools.write_text(json.dumps(document))
    assert _check(run_cli, tools, lock, "--fail-on", "breaking").code == 0
    assert _check(run_cli, tools, lock, "--fail-on", "risky").code == 1
    show = next(t for t in document["tools"] if t["name"] == "git_show")
    show["description"] = json.loads(OLD.read_text())["tools"][-2]["description"]
    tools.write_text(json.dumps(document))
    assert _check(run_cli, tools, lock, "--fail-on", "risky").code == 0
    assert _check(run_cli, tools, lock, "--fail-on", "any").code == 1


def test_a_lock_written_before_titles_were_pinned_still_matches(
    run_cli: Run, tmp_path: Path
) -> None:
    from jsoncontract.pin import digest

    tools = tmp_path / "tools.json"
    tool = {"name": "t", "title": "T", "inputSchema": {"type": "object"}}
    tools.write_text(json.dumps({"tools": [tool]}))
    lock = tmp_path / "jsoncontract.lock"
    assert run_cli("pin", "--no-config", str(tools), "--lock", str(lock)).code == 0
    document = json.loads(lock.read_text())
    entry = document["files"]["tools.json"]["t"]
    assert entry["title"] == "T" and entry["extra"] is None
    del entry["title"], entry["extra"]  # as an older jsoncontract wrote it
    entry["sha256"] = digest(entry)
    lock.write_text(json.dumps(document))
    assert _check(run_cli, tools, lock).code == 0
    tools.write_text(json.dumps({"tools": [dict(tool, title="Renamed")]}))
    assert _check(run_cli, tools, lock).code == 0  # the title was not pinned then
    assert run_cli("pin", "--no-config", str(tools), "--lock", str(lock)).code == 0
    tools.write_text(json.dumps({"tools": [dict(tool, title="Again")]}))
    result = _check(run_cli, tools, lock, "-f", "json")
    [finding] = json.loads(result.stdout)["findings"]
    assert (finding["code"], finding["class"]) == ("pin.title_changed", "cosmetic")
    tools.write_text(json.dumps({"tools": [dict(tool, execution={"taskSupport": "required"})]}))
    result = _check(run_cli, tools, lock, "-f", "json")
    found = {(f["code"], f["class"]) for f in json.loads(result.stdout)["findings"]}
    assert ("pin.definition_changed", "risky") in found


@pytest.mark.slow
def test_mcp_pin_check_gives_classes(run_cli: Run, tmp_path: Path) -> None:
    lock = tmp_path / "servers.lock"
    server = ["--", str(Path(sys.executable).parent / "mcp-server-git")]
    assert run_cli("mcp", "pin", "--no-config", "--lock", str(lock), *server).code == 0
    document = json.loads(lock.read_text())
    [key] = document["files"]
    from jsoncontract.pin import digest

    old = {t["name"]: t for t in json.loads(OLD.read_text())["tools"]}
    entries = document["files"][key]
    for name, entry in entries.items():  # the lock as the older release would have made it
        entry.update(
            description=old[name]["description"],
            input_schema=old[name]["inputSchema"],
            annotations=None,
        )
        entry["sha256"] = digest(entry)
    lock.write_text(json.dumps(document))
    args = ("mcp", "pin", "--no-config", "--lock", str(lock), "--check")
    result = run_cli(*args, "-f", "json", *server)
    assert result.code == 1
    summary = json.loads(result.stdout)["summary"]
    assert summary["classes"] == {"breaking": 1, "risky": 1, "compatible": 12, "cosmetic": 12}
    assert run_cli(*args, "--fail-on", "breaking", *server).code == 1
