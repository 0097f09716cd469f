"""The frame of the package: the import contracts of ``pyproject.toml`` hold, they would catch
an import that breaks them, and what they say is what the docs show.

The contracts (``[tool.importlinter]``) are the architecture written down: a ``layers``
contract puts every module of the package on a floor, and a module imports only the floors
below its own (siblings written ``a | b`` not each other); ``independence`` contracts keep
the commands, the capture dialects and the lint rule families apart; ``forbidden`` ones keep
the optional extras where they are needed.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "jsoncontract"
DOC = REPO / "docs" / "development-layers.md"


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the package under ``root``, with that tree's own contracts."""
    command = "import sys; from importlinter.cli import lint_imports_command as m; sys.exit(m())"
    return subprocess.run(
        [sys.executable, "-c", command, "--no-cache", "--no-logo"],
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
        capture_output=True,
        text=True,
        check=False,
    )


def contracts() -> list[dict[str, object]]:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return found


def floors() -> list[str]:
    """The layers of the package's floor contract, top first."""
    (layers,) = (c for c in contracts() if c.get("id") == "layers")
    found = layers["layers"]
    assert isinstance(found, list)
    return [str(floor) for floor in found]


@pytest.mark.slow
def test_every_contract_is_kept() -> None:
    """The command the docs give, as they give it."""
    (command,) = re.findall(r"```\n(lint-imports[^\n]*)\n```", DOC.read_text(encoding="utf-8"))
    words = command.split()
    script = Path(sys.executable).parent / words[0]
    result = subprocess.run(
        [str(script), *words[1:]], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The package and its contracts, copied: a tree to break on purpose."""
    root = tmp_path_factory.mktemp("house")
    shutil.copytree(PACKAGE, root / "jsoncontract", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    return root


def broken(copy: Path, module: str, line: str) -> str:
    """The output of ``lint-imports`` on the copy with ``line`` added to ``module``'s
    imports (the module is put back afterwards)."""
    path = copy / "jsoncontract" / module
    before = path.read_text(encoding="utf-8")
    marker = "from __future__ import annotations\n"
    assert marker in before
    path.write_text(before.replace(marker, marker + line + "\n", 1), encoding="utf-8")
    try:
        result = lint_imports(copy)
    finally:
        path.write_text(before, encoding="utf-8")
    assert result.returncode != 0, f"{line!r} in {module} broke no contract"
    return result.stdout


@pytest.mark.slow
@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        # the ground importing a floor above it: the case this table exists for
        ("model.py", "from jsoncontract.reporters import render", "The floors of jsoncontract"),
        # a type-only import counts as much as any other
        (
            "settings.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from jsoncontract.pipeline.checker import Checker",
            "The floors of jsoncontract",
        ),
        # two siblings written independent
        ("lint/engine.py", "import jsoncontract.pipeline.checker", "The floors of jsoncontract"),
        ("cli/check.py", "import jsoncontract.cli.diff", "No command imports another"),
        ("capture/gemini.py", "import jsoncontract.capture.anthropic", "No capture dialect"),
        ("payload.py", "import pyspark", "pyspark (the spark extra)"),
        # the guard's gate reaching up to the session that drives it
        ("live/guard/gate.py", "import jsoncontract.live.guard.session", "The parts of mcp guard"),
    ],
)
def test_a_deliberate_break_fails(copy: Path, module: str, line: str, contract: str) -> None:
    output = broken(copy, module, line)
    assert "BROKEN" in output
    header = output[output.index("Broken contracts") :]
    assert contract in " ".join(header.split()), output


def test_the_copy_is_kept_before_it_is_broken(copy: Path) -> None:
    """The breaks above fail because of the line they add, not because of the copy."""
    result = lint_imports(copy)
    assert result.returncode == 0, result.stdout + result.stderr


def test_every_module_of_the_package_is_on_a_floor() -> None:
    """The floor contract is exhaustive (import-linter checks it); this says so plainly: a
    new top-level module or package must be given its floor."""
    placed = {name.strip() for floor in floors() for name in re.split(r"[|:]", floor)}
    present = {
        path.stem if path.is_file() else path.name
        for path in PACKAGE.iterdir()
        if (path.suffix == ".py" and path.stem != "__init__")
        or (path.is_dir() and (path / "__init__.py").exists())
    }
    assert present <= placed, f"no floor for {sorted(present - placed)}"


def _private_imports() -> list[str]:
    """``from jsoncontract.X import _name`` where ``_name`` is not a module: a name private
    to one module used in another."""
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if module is None or not module.startswith("jsoncontract"):
                continue
            assert isinstance(node, ast.ImportFrom)
            base = REPO / Path(*module.split("."))
            for alias in node.names:
                name = alias.name
                if not name.startswith("_") or name.startswith("__"):
                    continue
                if (base / f"{name}.py").exists() or (base / name).is_dir():
                    continue  # a private module of a package, imported inside it
                out.append(f"{path.relative_to(REPO)}:{node.lineno}: {module}.{name}")
    return out


def test_names_private_to_a_module_stay_in_it() -> None:
    assert _private_imports() == []


def test_the_docs_show_the_floors_of_the_contract() -> None:
    """``docs/development-layers.md`` lists the floors as the contract does, top first."""
    text = DOC.read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| (.+?) \|", text, flags=re.MULTILINE)
    shown = [(int(number), names) for number, names in rows]
    expected = [
        (len(floors()) - i, " ".join(f"`{n.strip()}`" for n in re.split(r"[|:]", floor)))
        for i, floor in enumerate(floors())
    ]
    assert shown == expected
