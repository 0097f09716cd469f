"""``--help`` teaches: readable at 80 columns, one name per kind of value, examples that
run as written; and shell completion works."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.cli.app import COMMAND_MODULES, build
from jsoncontract.cli.help import EXAMPLES

REPO = Path(__file__).resolve().parents[2]


def every_command() -> list[list[str]]:
    mcp = build(["mcp"]).commands["mcp"]
    return [[name] for name in COMMAND_MODULES] + [["mcp", name] for name in mcp.commands]


@pytest.mark.parametrize("command", every_command(), ids=" ".join)
def test_help_reads_at_80_columns(
    command: list[str], run_cli: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    result = run_cli(*command, "--help")
    assert result.code == 0, result.stderr
    wide = [line for line in result.stdout.splitlines() if len(line) > 80]
    assert wide == []
    assert not re.search(r"<(str|path|file|int|float|text)[^>]*>", result.stdout)


@pytest.mark.parametrize("command", list(EXAMPLES))
def test_each_command_shows_examples_that_run(
    command: str, run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    shown = run_cli(command, "--help").stdout
    examples = EXAMPLES[command]
    assert 1 <= len(examples) <= 2
    assert "Examples:" in shown and all(example in shown for example in examples)
    (tmp_path / "fixtures").symlink_to(REPO / "fixtures")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    for example in examples:
        done = subprocess.run(
            ["bash", "-c", example], cwd=tmp_path, env=env, capture_output=True, check=False
        )
        assert done.returncode in (0, 1), f"{example}: {done.stderr.decode()}"
        assert b"error" not in done.stderr.lower(), f"{example}: {done.stderr.decode()}"


def test_options_name_their_values_alike() -> None:
    seen: dict[str, set[str]] = {}
    for command in build().commands.values():
        for param in command.params:
            if param.param_type_name == "option" and not param.is_flag:
                seen.setdefault(param.opts[0], set()).add(param.make_metavar(None))
    assert seen["--format"] == {"FORMAT"} and seen["--tools"] == {"PATH"}
    assert seen["--output"] == {"FILE"} and seen["--config"] == {"FILE"}
    assert seen["--fail-on"] == {"LEVEL"}


def complete(words: str) -> list[str]:
    env = {
        **os.environ,
        "_JSONCONTRACT_COMPLETE": "complete_bash",
        "COMP_WORDS": words,
        "COMP_CWORD": str(len(words.split(" ")) - 1),
    }
    done = subprocess.run(
        [sys.executable, "-m", "jsoncontract"], env=env, capture_output=True, check=False
    )
    return done.stdout.decode().split()


def test_shell_completion() -> None:
    assert complete("jsoncontract ch") == ["check"]
    assert complete("jsoncontract check --for") == ["--format"]
    assert "sarif" in complete("jsoncontract check --format ")
    # --show-completion takes no shell name: it detects the shell it was started from, in
    # the process's parents. Started from bash, as a person types it (a compound command, so
    # that bash stays the parent rather than exec-ing it), whatever started the tests.
    script = subprocess.run(
        ["bash", "-c", f'"{sys.executable}" -m jsoncontract --show-completion; exit $?'],
        capture_output=True,
        check=False,
    )
    assert script.returncode == 0, script.stderr
    assert b"_JSONCONTRACT_COMPLETE" in script.stdout
    assert b"complete -o default -F _jsoncontract_completion jsoncontract" in script.stdout
