"""No report of ``jsoncontract mcp`` repeats a secret a server hands it: in an error message,
an ``isError`` text, its stderr, a description, a schema's ``default``, a pinned tool's
change. Each is named by kind and hash, as every other report does."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult

pytestmark = pytest.mark.slow

Run = Callable[..., CliResult]
#: A credential in the form OpenAI gives them (not a real one).
SECRET = "sk-proj-" + "Qx7Lm2Nv8Rt4Kp1Wz6Hs3Jd9Fg5Bc0Ya2Ue7Io4Tn8Mr1Lk"
LEAK = f"OPENAI_API_KEY={SECRET}"
WORKBENCH = ["python", "tests/live/servers/workbench.py"]
FORMATS = ("text", "json", "junit", "sarif", "github")


def _clean(result: CliResult, *, shown: bool = True) -> None:
    """No part of the secret in the output; where the report quotes the server, the
    secret's label in its place."""
    assert SECRET[8:30] not in result.stdout + result.stderr
    assert not shown or "redacted " in result.stdout + result.stderr


@pytest.mark.parametrize("fmt", FORMATS)
def test_probe_reports_name_a_leaked_secret_and_never_show_it(
    run_cli: Run, repo_cwd: Path, fmt: str
) -> None:
    server = [*WORKBENCH, "--leak", LEAK, "--only", "find_customer", "--only", "lookup_order"]
    result = run_cli("mcp", "probe", "-f", fmt, "--timeout", "5", "--", *server)
    assert result.code == 0, result.stderr  # warnings only
    _clean(result, shown=fmt in ("text", "json", "junit"))


def test_a_dry_run_and_a_crash_show_no_secret(run_cli: Run, repo_cwd: Path) -> None:
    server = [*WORKBENCH, "--leak", LEAK, "--only", "find_customer"]
    dry = run_cli("mcp", "probe", "--dry-run", "--", *server)
    assert dry.code == 0, dry.stderr
    _clean(dry)
    crash = [*WORKBENCH, "--leak", LEAK, "--only", "crash_report"]
    crashed = run_cli("mcp", "probe", "-f", "json", "--timeout", "5", "--", *crash)
    assert crashed.code == 1, crashed.stderr
    assert "segmentation fault" in crashed.stdout
    _clean(crashed)


@pytest.mark.parametrize("fmt", ["text", "json", "junit"])
def test_mcp_test_reports_show_no_secret(
    run_cli: Run, repo_cwd: Path, tmp_path: Path, fmt: str
) -> None:
    server = [*WORKBENCH, "--leak", LEAK, "--only", "lookup_order"]
    listing = tmp_path / "tools.json"
    assert run_cli("mcp", "tools", "-f", "json", "-o", str(listing), "--", *server).code == 0
    assert run_cli("fixtures", "--tools", str(listing), str(tmp_path / "suites")).code == 0
    result = run_cli("mcp", "test", "-f", fmt, str(tmp_path / "suites"), "--", *server)
    assert result.code in (0, 1), result.stderr
    _clean(result, shown=fmt != "text")


def test_a_description_holding_a_secret(run_cli: Run, repo_cwd: Path, tmp_path: Path) -> None:
    server = [*WORKBENCH, "--only", "lookup_order"]
    listed = run_cli("mcp", "tools", "--", *server, "--describe", f" Key: {SECRET}.")
    assert listed.code == 0, listed.stderr
    _clean(listed)
    lock = tmp_path / "mcp.lock"
    assert run_cli("mcp", "pin", "--lock", str(lock), "--", *server).code == 0
    for fmt in ("text", "json"):
        drift = run_cli(
            "mcp", "pin", "--lock", str(lock), "--check", "-f", fmt,
            "--", *server, "--describe", f" Key: {SECRET}.",
        )  # fmt: skip
        assert drift.code == 1, drift.stderr
        _clean(drift)
