"""The "Live MCP servers" page (docs/commands/mcp.md) runs as written and prints what it shows."""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import REPO, CliResult
from tests.live.conftest import untimed

pytestmark = pytest.mark.slow

_BLOCK = re.compile(r"```(sh|text)\n(.*?)```", re.S)


def _section() -> str:
    return (REPO / "docs" / "commands" / "mcp.md").read_text(encoding="utf-8")


def test_the_readme_commands_run_as_written(
    run_cli: Callable[..., CliResult], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "tests").symlink_to(REPO / "tests")  # the servers the commands name
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"])
    shown = 0
    for kind, block in _BLOCK.findall(_section()):
        if kind == "sh":
            for line in block.splitlines():
                if line.startswith("jsoncontract "):
                    result = run_cli(*shlex.split(line)[1:])
                    assert result.code == 0, f"{line}: {result.stderr}"
            continue
        if not block.startswith("$ "):
            continue
        command, _, expected = block.partition("\n")
        result = run_cli(*shlex.split(command.removeprefix("$ "))[1:])
        assert result.code in (0, 1), f"{command}: {result.stderr}"
        assert untimed(result.stdout) == untimed(expected), command
        shown += 1
    assert shown == 9


def test_every_subcommand_is_shown() -> None:
    section = _section()
    for command in (
        "tools",
        "resources",
        "prompts",
        "lint",
        "pin",
        "probe",
        "test",
        "verify",
        "record",
        "replay",
    ):
        assert f"$ jsoncontract mcp {command} " in section or (
            f"jsoncontract mcp {command} " in section
        ), command
