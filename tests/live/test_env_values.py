"""Values a host config takes from the environment (``${VAR}``) are credentials: they reach the
server, and never a report, an error line or a header, on success or failure."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult

pytestmark = pytest.mark.slow

Run = Callable[..., CliResult]
TOKEN = "tok-" + "Q7wE9rT2yU4iO6pA"
FOLDER = "srv" + "Zz81secretdir"


def _host(tmp_path: Path, servers: dict[str, object]) -> Path:
    host = tmp_path / ".mcp.json"
    host.write_text(json.dumps({"mcpServers": servers}))
    return host


def test_a_url_with_values_from_the_environment_never_shows_them(
    run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defect 7: in a URL path and a ?key= query, they showed in the error line."""
    monkeypatch.setenv("MCP_PATH", FOLDER)
    monkeypatch.setenv("MCP_KEY", TOKEN)
    host = _host(tmp_path, {"remote": {"url": "http://127.0.0.1:1/${MCP_PATH}/mcp?key=${MCP_KEY}"}})
    for fmt in ("text", "json"):
        result = run_cli("mcp", "tools", "remote", "--mcp-config", str(host), "-f", fmt)
        assert result.code == 2
        shown = result.stdout + result.stderr
        assert TOKEN not in shown and FOLDER not in shown, shown


def test_a_command_with_values_from_the_environment_never_shows_them(
    run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, repo_cwd: Path
) -> None:
    """Defect 7: in a command path and in the server's stderr, even on success (the header
    of ``mcp tools``)."""
    folder = tmp_path / FOLDER
    folder.mkdir()
    server = folder / "serve.py"
    warehouse = repo_cwd / "tests" / "live" / "servers" / "warehouse.py"
    server.write_text(
        "import runpy, sys\n"
        f"sys.stderr.write('starting with {TOKEN}\\n'); sys.stderr.flush()\n"
        "sys.argv = ['warehouse.py']\n"
        f"runpy.run_path({str(warehouse)!r}, run_name='__main__')\n"
    )
    monkeypatch.setenv("MCP_DIR", str(folder))
    monkeypatch.setenv("MCP_TOKEN", TOKEN)
    host = _host(
        tmp_path,
        {
            "shop": {"command": sys.executable, "args": ["${MCP_DIR}/serve.py", "--token", "x"]},
            "loud": {
                "command": sys.executable,
                "args": ["-c", "import sys; sys.exit('${MCP_TOKEN}')"],
            },
        },
    )
    ok = run_cli("mcp", "tools", "shop", "--mcp-config", str(host))
    assert ok.code == 0, ok.stderr
    assert FOLDER not in ok.stdout + ok.stderr and TOKEN not in ok.stdout + ok.stderr
    failed = run_cli("mcp", "tools", "loud", "--mcp-config", str(host))
    assert failed.code == 2
    assert TOKEN not in failed.stdout + failed.stderr, failed.stderr
