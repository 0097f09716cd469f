"""docs/guard.md holds: its shell commands run as written (a benchmark with ``--quick``) and
print what it shows, its Python runs, its example answer is the guard's, its config loads."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from jsoncontract import Guard
from jsoncontract.config import validate_config
from tests.conftest import REPO
from tests.live.conftest import untimed

pytestmark = pytest.mark.slow

PAGE = REPO / "docs" / "guard.md"
_BLOCK = re.compile(r"```(sh|text|python|json|toml)\n(.*?)```", re.S)


def blocks(kind: str) -> list[str]:
    return [
        body for found, body in _BLOCK.findall(PAGE.read_text(encoding="utf-8")) if found == kind
    ]


def test_the_shell_commands_run_and_print_what_the_page_shows(tmp_path: Path) -> None:
    (tmp_path / "tests").symlink_to(REPO / "tests")
    (tmp_path / "benchmarks").symlink_to(REPO / "benchmarks")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    outputs = []
    for block in blocks("sh"):
        printed = ""
        for command in filter(None, (line.strip() for line in block.splitlines())):
            if command.startswith("python benchmarks/"):
                command += " --quick"
            done = subprocess.run(
                ["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True, timeout=600
            )
            err = done.stderr.decode()
            assert done.returncode in (0, 1), f"{command}: {err}"
            assert "Traceback" not in err and "jsoncontract: error" not in err, f"{command}: {err}"
            printed = done.stdout.decode()
        outputs.append(printed)
    shown = blocks("text")[0].strip().splitlines()
    assert shown[0] == "..."
    assert all(line in untimed(outputs[0]).splitlines() for line in shown[1:])


def test_the_python_runs() -> None:
    for block in blocks("python"):
        exec(compile(block, str(PAGE), "exec"), {"__name__": "guard_docs"})


def test_the_example_answer_is_the_guards() -> None:
    example = json.loads(blocks("json")[1])
    tool = {
        "name": "quote",
        "inputSchema": {
            "type": "object",
            "properties": {"destination": {"type": "string", "enum": ["AMS", "BER", "LIS"]}},
            "required": ["destination"],
        },
    }
    verdict = Guard(tools=[tool]).call(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
         "params": {"name": "quote", "arguments": {"destination": "MARS"}}}
    )  # fmt: skip
    assert verdict.answer is not None
    assert json.loads(verdict.answer["result"]["content"][0]["text"]) == example


def test_the_host_config_and_the_project_config_are_valid() -> None:
    host = json.loads(blocks("json")[0])
    assert host["mcpServers"]["warehouse"]["args"][:2] == ["mcp", "guard"]
    validate_config(tomllib.loads(blocks("toml")[0]), file=str(PAGE))
