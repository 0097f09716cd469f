"""``mcp guard``'s command line: what it refuses before it starts anything (exit 2, one line,
no traceback), and the config it reads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.config import load_config
from jsoncontract.live.guard.settings import GuardSettings, MissingKey, OnDrift, guard_settings


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--listen", "127.0.0.1:0"],
            "an HTTP proxy needs both --listen HOST:PORT and --upstream URL",
        ),
        (["--listen", "127.0.0.1:0", "--upstream", "ftp://x"], "is not an http(s):// URL"),
        (["--on-drift", "ignore", "--", "true"], "'ignore' is not one of"),
        (["--max-retries", "-1", "--", "true"], "-1 is not in the range x>=0"),
        (
            ["--", "no-such-server-command-here"],
            "cannot start the server: no-such-server-command-here",
        ),
        (["--rules", "missing.toml", "--", "true"], "missing.toml"),
        (["http://127.0.0.1:1/mcp"], "is an HTTP server: guard it with --listen"),
    ],
)
def test_what_it_refuses(
    args: list[str], message: str, run_cli: Callable[..., Any], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    result = run_cli("mcp", "guard", "--no-config", *args)
    assert result.code == 2, result.stdout + result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_a_trace_that_cannot_be_written_is_an_input_error(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    result = run_cli(
        "mcp", "guard", "--no-config", "-o", str(tmp_path / "no" / "t.jsonl"), "--", "true"
    )
    assert result.code == 2 and "cannot write the trace" in result.stderr


def test_the_config_and_a_server_s_own_table_and_the_command_line(tmp_path: Path) -> None:
    config = tmp_path / "jsoncontract.toml"
    config.write_text(
        '[mcp.guard]\nclosed = true\nmax_retries = 4\non_drift = "flag"\n'
        '[mcp.servers.billing]\ncommand = "python"\n'
        '[mcp.servers.billing.guard]\nmax_retries = 1\nmissing_key = "allow"\n'
    )
    cfg = load_config(config)
    assert guard_settings(cfg, None) == GuardSettings(
        closed=True, max_retries=4, on_drift=OnDrift.FLAG
    )
    billing = guard_settings(cfg, "billing", observe=True, max_retries=None)
    assert billing == GuardSettings(
        closed=True,
        max_retries=1,
        on_drift=OnDrift.FLAG,
        missing_key=MissingKey.ALLOW,
        observe=True,
    )
