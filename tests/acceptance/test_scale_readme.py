"""The "Checking at scale" commands and Python example of docs/commands/check.md run as written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import REPO

SECTION = (
    REPO.joinpath("docs", "commands", "check.md")
    .read_text(encoding="utf-8")
    .split("## Checking at scale")[1]
)
SECTION = SECTION.split("\n## ")[0]
COMMANDS = re.search(r"```sh\n(.*?)```", SECTION, re.DOTALL)
EXAMPLE = re.search(r"```python\n(.*?)```", SECTION, re.DOTALL)
assert COMMANDS is not None and EXAMPLE is not None

pytestmark = [pytest.mark.slow]


def _workdir(tmp_path: Path) -> Path:
    (tmp_path / "fixtures").symlink_to(REPO / "fixtures")
    return tmp_path


def _env() -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}


#: The section's commands but the installation of the spark extra, which the docs test
#: runs in a clean checkout (tests/test_readme.py); here the extra is installed already.
CHECKS = [c for c in COMMANDS.group(1).strip().splitlines() if not c.startswith("pip install")]


@pytest.mark.parametrize("command", CHECKS)
def test_command(command: str, tmp_path: Path) -> None:
    if "--spark" in command:
        pytest.importorskip("pyspark") if not os.environ.get("CI") else None
    proc = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=_workdir(tmp_path),
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode in (0, 1), proc.stderr  # 1: the bundled trace has findings
    assert "error" not in proc.stderr.lower().replace("log4j", ""), proc.stderr
    assert proc.stdout or (tmp_path / "report.json").exists()


def test_python_example(tmp_path: Path) -> None:
    if not os.environ.get("CI"):
        pytest.importorskip("pyspark")
    assert EXAMPLE is not None
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(EXAMPLE.group(1))],
        cwd=_workdir(tmp_path),
        env=_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    calls, failed = proc.stdout.splitlines()[0].split()
    assert int(calls) > 10 and 0 < int(failed) < int(calls)
    assert "|file|line|tool|stage|" in proc.stdout.replace(" ", "")
