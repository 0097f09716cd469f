"""Every command of the compat page (``docs/commands/compat.md``), run as written in a
repository whose ``main`` branch holds the older release of mcp-server-git's tools and whose
work tree the newer, with the lock pinned at the older one, and a trace of captured calls.
The page's ``pin``-less forms need history and a live server, which a plain copy of the
checkout (the README test's) does not have."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO

pytestmark = pytest.mark.slow

OLD = REPO / "fixtures" / "compat" / "mcp-server-git-2025.9.25.json"
NEW = REPO / "fixtures" / "compat" / "mcp-server-git-2026.10.19.json"

FIRST = ["jsoncontract", "compat", "fixtures/compat/mcp-server-git-2025.9.25.json", "fixtures/compat/mcp-server-git-2026.10.19.json"]  # noqa: E501  # fmt: skip
COMMANDS = [
    FIRST,
    ["jsoncontract", "compat", "git:main:tools/", "tools/", "--format", "markdown"],
    ["jsoncontract", "compat", "jsoncontract.lock", "tools/"],
    ["jsoncontract", "compat", "git:main:tools/", "--new-server", "mcp-server-git"],
    ["jsoncontract", "compat", "git:main:tools/", "tools/", "--usage", "traces/"],
    ["jsoncontract", "pin", "tools/", "--check", "--fail-on", "breaking"],
]


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.com", "-c", "user.name=t", *args],
        cwd=cwd, check=True, capture_output=True,
    )  # fmt: skip


def test_the_page_shows_these_commands() -> None:
    from tests.test_readme import commands

    shown = commands((REPO / "docs" / "commands" / "compat.md").read_text(encoding="utf-8"))
    assert [c.split() for c in shown] == COMMANDS


def test_every_command_of_the_page_runs(tmp_path: Path) -> None:
    shutil.copytree(REPO / "fixtures" / "compat", tmp_path / "fixtures" / "compat")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "git.json").write_text(OLD.read_text())
    _git("init", "-q", "-b", "main", str(tmp_path), cwd=tmp_path)
    _git("add", "tools", cwd=tmp_path)
    _git("commit", "-qm", "tools", cwd=tmp_path)
    bin_dir = Path(sys.executable).parent
    jsoncontract = str(bin_dir / "jsoncontract")
    pinned = [jsoncontract, "pin", "--no-config", "tools/"]
    subprocess.run(pinned, cwd=tmp_path, check=True, capture_output=True)
    (tmp_path / "tools" / "git.json").write_text(NEW.read_text())
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "calls.jsonl").write_text(
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "git_add", '
        '"arguments": {"repo_path": "/r", "files": []}}}\n'
    )
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "100"}
    for command in COMMANDS:
        done = subprocess.run(
            [str(bin_dir / command[0]), *command[1:]], cwd=tmp_path, env=env,
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 1, (command, done.stderr)
        assert "Traceback" not in done.stderr and "error:" not in done.stderr, done.stderr
        assert "breaking" in done.stdout, (command, done.stdout)
