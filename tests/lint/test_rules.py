"""Every rule: its fixture's cases fire (at the expected pointers) or stay silent, and the
rendered findings match a golden snapshot, ruff style.

A fixture (``tests/lint/fixtures/<CODE>.json``) lists ``fire`` cases, then ``ok`` cases. A
case is a whole tool file (``document``, ``text``, or several ``files``), an input
``schema`` (wrapped in an MCP tool), or a ``tool`` name; ``expect`` lists JSON Pointers that
must carry a finding; ``profile``, ``mcp_version``, ``limits`` and ``engine_check`` tune the run.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from jsoncontract.lint.codes import all_rules
from jsoncontract.lint.engine import Linter
from jsoncontract.lint.profiles import GENERIC, PROFILES
from jsoncontract.lint.settings import build_settings

if TYPE_CHECKING:
    from jsoncontract.lint.report import LintReport

FIXTURES = Path(__file__).parent / "fixtures"
PROBE_DESCRIPTION = "Probe tool for tests."


def load_fixture(code: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((FIXTURES / f"{code}.json").read_text(encoding="utf-8"))
    return data


def write_case(directory: Path, case: dict[str, Any]) -> list[Path]:
    """The case as tool files under ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    if "files" in case:
        paths = []
        for name, document in case["files"].items():
            path = directory / name
            path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
            paths.append(path)
        return paths
    path = directory / "tools.json"
    if "text" in case:
        path.write_text(case["text"], encoding="utf-8")
        return [path]
    if "document" in case:
        document = case["document"]
    elif "schema" in case:
        document = {
            "name": "probe",
            "description": PROBE_DESCRIPTION,
            "inputSchema": case["schema"],
        }
    else:
        document = {
            "name": case["tool"],
            "description": PROBE_DESCRIPTION,
            "inputSchema": {"type": "object", "additionalProperties": False},
        }
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False), encoding="utf-8")
    return [path]


def default_profiles(code: str) -> list[str]:
    """generic when the rule runs there, else every profile that runs it."""
    rule = all_rules()[code]
    if rule.severity_for([GENERIC], None)[0] is not None:
        return [GENERIC]
    return [
        p
        for p in PROFILES
        if rule.severity_for([p], "2026-07-28")[0] is not None
        or (p == "mcp" and rule.mcp_versions is not None)
    ]


def lint_case(
    code: str, fixture: dict[str, Any], case: dict[str, Any], directory: Path
) -> LintReport:
    """Lint one case with only ``code`` selected."""
    files = write_case(directory, case)
    settings = build_settings(
        None,
        profiles=case.get("profile") or fixture.get("profile") or default_profiles(code),
        mcp_version=case.get("mcp_version") or fixture.get("mcp_version"),
        select=[code],
        limits=case.get("limits") or fixture.get("limits", ()),
        engine_check=case.get("engine_check", fixture.get("engine_check", False)),
    )
    return Linter(settings).lint_paths(files)


CODES = sorted(all_rules())


def _cases(kind: str) -> list[Any]:
    out = []
    for code in CODES:
        fixture = load_fixture(code)
        for index, case in enumerate(fixture.get(kind, [])):
            slug = re.sub(r"[^a-z0-9]+", "-", case["name"].lower()).strip("-")
            out.append(pytest.param(code, index, id=f"{code}-{slug}"))
    return out


@pytest.mark.parametrize(("code", "index"), _cases("fire"))
def test_fires(code: str, index: int, tmp_path: Path) -> None:
    fixture = load_fixture(code)
    case = fixture["fire"][index]
    report = lint_case(code, fixture, case, tmp_path)
    found = [item for item in report.findings if item.finding.code == code]
    assert found, f"{code} did not fire on {case['name']!r}"
    for item in found:
        source = item.finding.source
        assert source is not None and source.line is not None and source.column is not None
    paths = {item.finding.path for item in found}
    for pointer in case.get("expect", []):
        assert pointer in paths, f"{code}: no finding at {pointer}; found at {sorted(paths)}"


@pytest.mark.parametrize(("code", "index"), _cases("ok"))
def test_stays_silent(code: str, index: int, tmp_path: Path) -> None:
    fixture = load_fixture(code)
    case = fixture["ok"][index]
    report = lint_case(code, fixture, case, tmp_path)
    found = [item.finding.message for item in report.findings if item.finding.code == code]
    assert not found, f"{code} fired on the OK case {case['name']!r}: {found}"


@pytest.mark.parametrize("code", CODES)
def test_snapshot(code: str, tmp_path: Path, golden: Callable[[str, str], None]) -> None:
    fixture = load_fixture(code)
    lines = []
    for index, case in enumerate(fixture["fire"]):
        report = lint_case(code, fixture, case, tmp_path / str(index))
        lines.append(f"## {case['name']}")
        for item in report.findings:
            finding = item.finding
            source = finding.source
            assert source is not None
            name = Path(source.file).name
            mark = " [*]" if item.fix is not None else ""
            lines.append(
                f"{index}/{name}:{source.line}:{source.column}: {finding.severity.value} "
                f"{finding.code}{mark} {finding.message} [{finding.tool}] "
                f"({', '.join(item.profiles)})"
            )
            if finding.hint:
                lines.append(f"    hint: {finding.hint}")
            if item.refused:
                lines.append(f"    not fixed: {item.refused}")
        lines.append("")
    text = "\n".join(lines).replace(str(tmp_path) + "/", "")
    golden(f"lint/rules/{code}.txt", text)
