"""``compat`` on two real releases of ``mcp-server-git`` (2025.9.25 -> 2026.10.19), read
from every kind of side: the committed listings, a lock, the repository's history, and
the live server.

``fixtures/compat/mcp-server-git-2025.9.25.json`` was listed from the real release
(``benchmarks/compat_fixtures.py git``); the 2026.10.19 listing is checked here against
what the installed server (the ``servers`` extra) lists, so the fixture cannot drift.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, CliResult

Run = Callable[..., CliResult]
BIN = Path(sys.executable).parent
OLD = REPO / "fixtures" / "compat" / "mcp-server-git-2025.9.25.json"
NEW = REPO / "fixtures" / "compat" / "mcp-server-git-2026.10.19.json"
SERVER = str(BIN / "mcp-server-git")


def _json(result: CliResult) -> dict[str, Any]:
    assert result.code in (0, 1), result.stderr
    report: dict[str, Any] = json.loads(result.stdout)
    return report


def _verdicts(report: dict[str, Any]) -> list[tuple[str, str, str, str, str]]:
    """What two sides standing for the same files must agree on (not where they are)."""
    return [
        (c["tool"], c["pointer"], c["class"], c["code"], c["message"]) for c in report["changes"]
    ]


@pytest.mark.slow
def test_the_committed_new_listing_is_what_the_installed_release_lists(run_cli: Run) -> None:
    assert version("mcp-server-git") == "2026.10.19"
    live = _json(run_cli("mcp", "tools", "--no-config", "-f", "json", "--", SERVER))
    assert live["tools"] == json.loads(NEW.read_text())["tools"]


def test_the_release_pair_has_one_break(run_cli: Run) -> None:
    result = run_cli("compat", "--no-config", "-f", "json", str(OLD), str(NEW))
    assert result.code == 1, result.stderr
    report = json.loads(result.stdout)
    changes = report["changes"]
    breaking = [c for c in changes if c["class"] == "breaking"]
    assert [(c["tool"], c["pointer"], c["code"]) for c in breaking] == [
        ("git_add", "/inputSchema/properties/files/minItems", "compat.bound_tightened")
    ]
    assert breaking[0]["old"] is None and breaking[0]["new"] == 1
    titles = [c for c in changes if c["pointer"] == "/inputSchema/title"]
    assert len(titles) == 12
    assert {(c["class"], c["code"]) for c in titles} == {("cosmetic", "compat.title_changed")}
    assert titles[0]["old"] == "GitAdd" and titles[0]["new"] == "addArguments"
    [risky] = [c for c in changes if c["class"] == "risky"]
    assert (risky["tool"], risky["pointer"], risky["code"]) == (
        "git_show",
        "/description",
        "compat.description_changed",
    )
    # the 12 added annotations say what MCP's defaults said, or that the tool is safer
    hints = Counter(c["code"] for c in changes if c["pointer"].startswith("/annotations/"))
    assert hints == {"compat.hint_safer": 39, "compat.hint_restated": 9}
    summary = report["summary"]
    assert (summary["breaking"], summary["risky"], summary["compatible"]) == (1, 1, 39)
    assert summary["cosmetic"] == 21 and summary["tools_old"] == summary["tools_new"] == 12


def test_fail_on_sets_the_exit_code(run_cli: Run) -> None:
    assert run_cli("compat", "--no-config", str(NEW), str(NEW)).code == 0
    assert run_cli("compat", "--no-config", str(OLD), str(NEW), "--fail-on", "breaking").code == 1
    assert run_cli("compat", "--no-config", str(NEW), str(OLD), "--fail-on", "any").code == 1
    # going back: minItems removed is compatible, the description risky, the annotations
    # riskier (read with MCP's defaults)
    back = _json(run_cli("compat", "--no-config", "-f", "json", str(NEW), str(OLD)))
    assert back["summary"]["breaking"] == 0
    assert run_cli("compat", "--no-config", str(NEW), str(OLD)).code == 0


def test_a_lock_gives_the_verdicts_of_the_files_it_pins(run_cli: Run, tmp_path: Path) -> None:
    files = _json(run_cli("compat", "--no-config", "-f", "json", str(OLD), str(NEW)))
    old_lock, new_lock = tmp_path / "old.lock", tmp_path / "new.lock"
    assert run_cli("pin", "--no-config", str(OLD), "--lock", str(old_lock)).code == 0
    assert run_cli("pin", "--no-config", str(NEW), "--lock", str(new_lock)).code == 0
    for old, new in ((old_lock, NEW), (OLD, new_lock), (old_lock, new_lock)):
        locked = _json(run_cli("compat", "--no-config", "-f", "json", str(old), str(new)))
        assert _verdicts(locked) == _verdicts(files)


def test_git_revisions_give_the_verdicts_of_the_files(
    run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _json(run_cli("compat", "--no-config", "-f", "json", str(OLD), str(NEW)))
    repo = tmp_path / "repo"
    (repo / "tools").mkdir(parents=True)
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "tools" / "git.json").write_text(OLD.read_text())
    (repo / "README.md").write_text("not a tool file\n")
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "old"], check=True)
    (repo / "tools" / "git.json").write_text(NEW.read_text())
    subprocess.run([*git, "commit", "-qam", "new"], check=True)
    monkeypatch.chdir(repo)
    for old, new in (
        ("git:HEAD~1:tools/git.json", "tools/git.json"),
        ("git:HEAD~1:tools", "git:HEAD:tools"),
        ("git:HEAD~1:", "tools"),
    ):
        report = _json(run_cli("compat", "--no-config", "-f", "json", old, new))
        assert _verdicts(report) == _verdicts(files), (old, new)
    (repo / "tools" / "git.json").write_text(OLD.read_text())
    # the working tree now holds the old file again: nothing changed since HEAD~1
    same = run_cli("compat", "--no-config", "git:HEAD~1:tools", "tools")
    assert same.code == 0 and "no change" in same.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["git:HEAD"], "write git:REF:PATH"),
        (["git:nosuchref:tools"], "names no commit"),
        (["git:HEAD:nowhere"], "nowhere is not in HEAD"),
        (["git:--help:x"], "does not start with '-'"),
    ],
)
def test_a_bad_revision_is_exit_2(
    run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], message: str
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "t.json").write_text(NEW.read_text())
    subprocess.run(
        ["git", "-C", str(tmp_path), "-c", "user.email=t@example.com", "-c", "user.name=t",
         "commit", "-qm", "x", "--allow-empty"], check=True,
    )  # fmt: skip
    monkeypatch.chdir(tmp_path)
    result = run_cli("compat", "--no-config", *args, "t.json")
    assert result.code == 2 and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.slow
def test_a_live_server_gives_the_verdicts_of_its_listing(run_cli: Run, tmp_path: Path) -> None:
    files = _json(run_cli("compat", "--no-config", "-f", "json", str(OLD), str(NEW)))
    by_command = _json(
        run_cli("compat", "--no-config", "-f", "json", str(OLD), "--new-server", SERVER)
    )
    assert _verdicts(by_command) == _verdicts(files)
    assert by_command["summary"]["new"] == "mcp-git"
    config = tmp_path / "jsoncontract.toml"
    config.write_text(f'[mcp.servers.git]\ncommand = "{SERVER}"\n')
    by_name = _json(run_cli("compat", "--config", str(config), "-f", "json", str(OLD), "git"))
    assert _verdicts(by_name) == _verdicts(files)
    both = _json(
        run_cli("compat", "--no-config", "-f", "json", "--old-server", SERVER, "--new-server",
                f"{SERVER} --repository {REPO}")
    )  # fmt: skip
    assert both["changes"] == []
