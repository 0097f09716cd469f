"""The Python example of the "Checking at scale" section of docs/commands/check.md runs as
written. Its shell commands run with every other page's, in a clean checkout
(``tests/test_readme.py``)."""

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
EXAMPLE = re.search(r"```python\n(.*?)```", SECTION, re.DOTALL)
assert EXAMPLE is not None

pytestmark = [pytest.mark.slow]


def _workdir(tmp_path: Path) -> Path:
    (tmp_path / "fixtures").symlink_to(REPO / "fixtures")
    return tmp_path


def _env() -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": bin_dir + os.pathsep + os.environ.get("PATH", "")}


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
