"""The shape of the command line: thin command modules that share one helper module.

A command module defines its typer command and nothing another command needs: no command
module imports another (what two commands share lives in ``jsoncontract.cli.options``), and
only ``jsoncontract._gc`` tunes the garbage collector.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jsoncontract.cli.app import COMMAND_MODULES

PACKAGE = Path(__file__).resolve().parents[2] / "jsoncontract"


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


@pytest.mark.parametrize("command", COMMAND_MODULES)
def test_no_command_imports_another(command: str) -> None:
    imported = imported_modules(PACKAGE / "cli" / f"{command}.py")
    others = {f"jsoncontract.cli.{name}" for name in COMMAND_MODULES if name != command}
    assert imported & others == set()


def test_one_module_tunes_the_garbage_collector() -> None:
    tuning = sorted(
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "gc" in imported_modules(path)
    )
    assert tuning == ["_gc.py"]
