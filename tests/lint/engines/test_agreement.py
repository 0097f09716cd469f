"""The engine profiles against the real engines (the ``engines`` extra: llguidance and
outlines-core, pinned), over the corpus of ``corpus/`` (BFCL's tools, the pinned MCP
servers' tools, one tool per keyword; ``make_corpus.py`` made it).

``-p llguidance`` and ``-p outlines`` must report an error on a tool exactly when the installed
engine refuses its schema: no miss, at most 1% false errors. ``--fix`` must leave only
schemas the engine compiles, where it leaves no error.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.lint.engine import Linter
from jsoncontract.lint.engines import engine
from jsoncontract.lint.fix import fix_source
from jsoncontract.lint.settings import build_settings
from jsoncontract.model import Severity

CORPUS = Path(__file__).parent / "corpus"
FILES = sorted(CORPUS.glob("*.json"))
ENGINE_RULES = ["engines"]


def tools_of(path: Path) -> list[dict[str, Any]]:
    tools: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["tools"]
    return tools


def refused_by_profile(paths: list[Path], profile: str) -> set[str]:
    """The tools the profile gives an error."""
    settings = build_settings(None, profiles=[profile], select=ENGINE_RULES)
    report = Linter(settings).lint_paths(paths)
    return {
        f.finding.tool
        for f in report.findings
        if f.finding.severity is Severity.ERROR and f.finding.tool is not None
    }


@pytest.mark.parametrize("profile", ["llguidance", "outlines"])
def test_profile_errors_exactly_when_the_engine_refuses(profile: str) -> None:
    compiler = engine(profile)
    tools = [tool for path in FILES for tool in tools_of(path)]
    assert len(tools) > 2000
    refused = {t["name"] for t in tools if compiler.compile(t["inputSchema"]) is not None}
    reported = refused_by_profile(FILES, profile)
    misses = refused - reported
    false = reported - refused
    assert refused, "the corpus holds schemas the engine refuses"
    assert not misses, f"{profile}: errors missed on {sorted(misses)[:10]}"
    assert len(false) <= len(tools) // 100, f"{profile}: false errors on {sorted(false)[:10]}"


def test_outlines_ignored_constraints_are_warnings_at_their_node(tmp_path: Path) -> None:
    path = CORPUS / "keywords.json"
    settings = build_settings(None, profiles=["outlines"], select=["JC201"])
    report = Linter(settings).lint_paths([path])
    found = {(f.finding.tool, f.finding.path) for f in report.findings}
    assert all(f.finding.severity is Severity.WARNING for f in report.findings)
    for tool, at in (
        ("kw_minimum_0_typed", "/properties/v/minimum"),
        ("kw_uniqueItems_0_typed", "/properties/v/uniqueItems"),
        ("kw_contains_0_typed", "/properties/v/contains"),
        ("kw_multipleOf_0_nested", "/properties/v/items/multipleOf"),
    ):
        index = [t["name"] for t in tools_of(path)].index(tool)
        assert (tool, f"/tools/{index}/inputSchema{at}") in found


@pytest.mark.parametrize("profile", ["llguidance", "outlines"])
def test_what_fix_leaves_without_an_error_compiles(profile: str, tmp_path: Path) -> None:
    compiler = engine(profile)
    settings = build_settings(None, profiles=[profile], select=ENGINE_RULES)
    linter = Linter(settings)
    checked = 0
    for source in FILES:
        path = tmp_path / source.name
        shutil.copy(source, path)
        fixed = fix_source(linter, str(path), path.read_bytes())
        path.write_text(fixed.after, encoding="utf-8")
        still = refused_by_profile([path], profile)
        for tool in tools_of(path):
            if tool["name"] in still:
                continue
            checked += 1
            error = compiler.compile(tool["inputSchema"])
            assert error is None, f"{profile}: {tool['name']} left by --fix: {error}"
    assert checked > 1900
