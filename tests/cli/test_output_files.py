"""Every command writes only the named output, and never clobbers what is at its path:
a device or a FIFO is written to, a symbolic link keeps leading to the file, a file keeps
its permission bits, and ``-o ''`` or a directory is a one-line exit 2."""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

Run = Callable[..., Any]
TRACE = ["check", "--no-config", "--tools", "fixtures/tools", "fixtures/captures/trace.jsonl"]


def test_output_to_a_device_leaves_the_device(run_cli: Run, in_repo: Path, tmp_path: Path) -> None:
    if os.geteuid() == 0:  # a null device of its own: a regression cannot harm /dev/null
        device = tmp_path / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:  # /dev is not writable: a regression fails to replace it, and says so
        device = Path("/dev/null")
    result = run_cli(*TRACE, "-f", "json", "-o", str(device))
    assert result.code in (0, 1), result.stderr
    assert result.stderr == f"jsoncontract: wrote the json report to {device}\n"
    assert stat.S_ISCHR(device.stat().st_mode)
    assert os.listdir(tmp_path) == (["null"] if os.geteuid() == 0 else [])


def test_output_through_a_symlink_writes_its_target(
    run_cli: Run, in_repo: Path, tmp_path: Path
) -> None:
    real = tmp_path / "reports" / "check.json"
    real.parent.mkdir()
    real.write_text("old\n")
    real.chmod(0o644)
    link = tmp_path / "latest.json"
    link.symlink_to(real)
    result = run_cli(*TRACE, "-f", "json", "-o", str(link))
    assert result.code in (0, 1)
    assert link.is_symlink() and real.read_text().startswith("{")
    assert real.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["check.json", "latest.json", "reports"]


def test_an_empty_output_name_is_one_line_exit_2(run_cli: Run, in_repo: Path) -> None:
    result = run_cli(*TRACE, "-o", "")
    assert result.code == 2
    assert result.stderr.count("\n") == 1 and "internal error" not in result.stderr
    assert result.stdout == ""


def test_lint_fix_through_a_symlink_fixes_the_target(
    run_cli: Run, repo: Path, tmp_path: Path
) -> None:
    real = tmp_path / "real-tools.json"
    shutil.copy(repo / "fixtures" / "lint" / "weak-tools.json", real)
    real.chmod(0o644)
    link = tmp_path / "tools.json"
    link.symlink_to(real)
    before = real.read_bytes()
    result = run_cli("lint", str(link), "--fix", "-f", "json")
    assert "fixed 3 in" in result.stderr
    assert link.is_symlink()
    assert real.read_bytes() != before and b'"additionalProperties": false' in real.read_bytes()
    assert real.stat().st_mode & 0o777 == 0o644


def test_test_update_keeps_the_suite_mode(run_cli: Run, in_repo: Path, tmp_path: Path) -> None:
    shutil.copytree("fixtures/suites/weak", tmp_path / "weak")
    suite = tmp_path / "weak" / "create_ticket.suite.json"
    suite.chmod(0o644)
    args = ["--tools", str(tmp_path / "weak" / "tools.json"), str(tmp_path / "weak")]
    assert run_cli("test", "--no-config", "--update", *args).code == 0
    assert suite.stat().st_mode & 0o777 == 0o644


def test_fixtures_writes_suites_with_the_umask_mode(
    run_cli: Run, in_repo: Path, tmp_path: Path
) -> None:
    umask = os.umask(0o022)
    try:
        result = run_cli("fixtures", "--no-config", "--tools", "fixtures/tools", str(tmp_path))
    finally:
        os.umask(umask)
    assert result.code == 0, result.stderr
    suites = list(tmp_path.glob("*.suite.json"))
    assert suites and all(p.stat().st_mode & 0o777 == 0o644 for p in suites)
