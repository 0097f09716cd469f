"""Every registered dialect satisfies :class:`~jsoncontract.capture.interface.CaptureDialect`:
each member is there, of the kind the Protocol says, and its methods take what the reader
passes them; and mypy, given each module's ``DIALECT`` as a ``CaptureDialect``, agrees."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.capture.interface import CaptureDialect, ToolLayout
from jsoncontract.capture.registry import BUILT_IN, built_in
from jsoncontract.model import Hop

REPO = Path(__file__).resolve().parents[2]
DIALECTS = list(built_in())
METHODS = [
    name
    for name, member in vars(CaptureDialect).items()
    if inspect.isfunction(member) and not name.startswith("_")
]


def _parameters(function: Any) -> list[str]:
    return [p.name for p in inspect.signature(function).parameters.values() if p.name != "self"]


def test_the_protocol_has_the_members_the_reader_uses() -> None:
    assert METHODS == ["new_state", "whole", "part"]


def test_every_built_in_dialect_is_registered() -> None:
    assert [d.name for d in DIALECTS] == [line.name for line in BUILT_IN]


@pytest.mark.parametrize("dialect", DIALECTS, ids=lambda d: str(d.name))
def test_a_dialect_has_every_member_of_the_protocol(dialect: CaptureDialect) -> None:
    assert isinstance(dialect.name, str) and dialect.name
    assert isinstance(dialect.hop, Hop)
    assert dialect.mark is None or isinstance(dialect.mark, str)
    assert dialect.tools is None or isinstance(dialect.tools, ToolLayout)
    for name in METHODS:
        method = getattr(dialect, name)
        assert callable(method), name
        expected = _parameters(getattr(CaptureDialect, name))
        assert _parameters(method) == expected, f"{dialect.name}.{name}"


@pytest.mark.parametrize("dialect", DIALECTS[:-1], ids=lambda d: str(d.name))
def test_a_dialect_answers_what_it_does_not_read_with_none(dialect: CaptureDialect) -> None:
    state = dialect.new_state()
    stranger = {"jsoncontract-test": "no dialect reads this"}
    assert dialect.part(stranger, state) is None


def test_the_fallback_reads_any_bare_body() -> None:
    fallback = built_in().fallback
    assert fallback is DIALECTS[-1]
    assert fallback.part({"jsoncontract-test": "a bare body"}, fallback.new_state()) is not None


@pytest.mark.slow
def test_mypy_takes_every_dialect_as_a_capture_dialect(tmp_path: Path) -> None:
    lines = ["from jsoncontract.capture.interface import CaptureDialect"]
    for line in BUILT_IN:
        alias = f"_{line.module}"
        lines.append(f"from jsoncontract.capture.{line.module} import DIALECT as {alias}")
        lines.append(f"{alias}_checked: CaptureDialect = {alias}")
    probe = tmp_path / "dialects_conform.py"
    probe.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(probe)],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
