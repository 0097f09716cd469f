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
from jsoncontract.model import ArgumentsForm, Hop

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


def _literals(dialect: CaptureDialect) -> set[str]:
    """Every string written in the dialect's module and in the helpers its detection calls:
    the member names its ``part`` could read among them."""
    import ast

    from jsoncontract.capture import base, openai_chat

    found: set[str] = set()
    for module in (inspect.getmodule(type(dialect)), base, openai_chat):
        tree = ast.parse(inspect.getsource(module))  # type: ignore[arg-type]
        found.update(
            n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and type(n.value) is str
        )
    return found


#: Values a member is given: one of each JSON kind, and lists and objects that hold more.
_VALUES: list[Any] = [None, True, 1, 1.5, "", "x", [], [{}], [{"type": "text"}], {}, {"a": 1}]


@pytest.mark.parametrize(
    "dialect", [d for d in DIALECTS if d is not built_in().fallback], ids=lambda d: str(d.name)
)
def test_a_dialect_takes_no_object_without_a_member_it_claims(dialect: Any) -> None:
    """``claims`` (with ``mark``) names the members the dialect reads an object by: an object
    with none of them, whatever else it holds, is not the dialect's (the fast lane reads such
    an object as a bare body without asking). Tried: every string of the module as a
    member, alone and in pairs, with values of every kind (an object holding every string as
    a member among them), and those strings as values."""
    claims = dialect.claims | ({dialect.mark} if dialect.mark else set())
    literals = _literals(dialect)
    names = sorted(literals - claims)
    kinds = [*_VALUES, dict.fromkeys(literals, "x"), [dict.fromkeys(literals, "x")]]
    state = dialect.new_state()
    for i, name in enumerate(names):
        for value in [*kinds, *names]:
            assert dialect.part({name: value}, state) is None, (name, value)
        for other in names[i + 1 :]:
            for value in kinds:
                for full in kinds[-2:]:  # the objects that hold every string
                    assert dialect.part({name: value, other: full}, state) is None, (name, other)
                    assert dialect.part({name: full, other: value}, state) is None, (name, other)


def test_a_reader_given_a_tool_reads_an_unclaimed_object_as_a_body() -> None:
    """The lane's body shortcut: an object with no claimed member is the tool's body; one
    with a claimed member is asked of the dialects, as the full path asks."""
    from jsoncontract.capture.ledger import Ledger
    from jsoncontract.capture.reader import CaptureReader

    reader = CaptureReader(tool="lookup")
    state = reader.new_state(Ledger(), [])
    body = {"city": "Paris", "days": 3}
    found = reader.shortcut(body, state)
    assert found is not None
    shortcut, tool, dialect = found
    assert (tool, dialect) == ("lookup", built_in().fallback)
    assert shortcut.extract(body, tool, "f.jsonl", 1) == [
        ("lookup", None, body, ArgumentsForm.VALUE, None)
    ]
    assert reader.shortcut({"name": "f", "args": {}}, state) is None  # Gemini's call: no body
    assert reader.shortcut({"custom_id": "1", "a": 1}, state) is None  # maybe a batch line
    assert CaptureReader().shortcut(body, state) is None  # no tool named
