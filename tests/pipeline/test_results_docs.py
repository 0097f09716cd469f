"""What docs/results.md and the return leg's page (docs/commands/results.md) say is true."""

from __future__ import annotations

import glob
import json
import re
import shlex
from collections.abc import Callable
from pathlib import Path

import pytest

from jsoncontract.config import validate_config
from jsoncontract.masking import SECRET_PATTERNS
from jsoncontract.pipeline import codes
from jsoncontract.pipeline.contracts import CHECKS, SessionContracts
from jsoncontract.pipeline.leaks import LANGUAGES
from jsoncontract.pipeline.result import ResultChecks
from tests.conftest import REPO, CliResult

DOC = (REPO / "docs" / "results.md").read_text(encoding="utf-8")


def _section(title: str) -> str:
    return DOC.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_every_code_has_its_row() -> None:
    rows = dict(re.findall(r"^\| `((?:result|session)\.[a-z_]+)` \| ([a-z, ]+) \|", DOC, re.M))
    assert set(rows) == set(codes.RESULT_CODES) | set(codes.SESSION_CODES)
    for code, severity in rows.items():
        assert set(re.split(r", or | or |, ", severity)) <= {"error", "warning", "info"}, code


def test_the_configuration_shown_is_valid_and_complete() -> None:
    import tomllib

    block = _section("Configuration").split("```toml\n", 1)[1].split("```", 1)[0]
    table = tomllib.loads(block)
    validate_config(table, file="docs/results.md")
    from jsoncontract.settings import Config

    config = Config(None, table)
    results = ResultChecks.from_config(config).settings
    assert results.protocol_version == "2025-11-25" and results.contract is not None
    session = SessionContracts.from_config(config).settings
    assert session.side_effects["payment"] == frozenset({"settle_invoice"})
    for name in ("results", "session"):
        schema = json.loads((REPO / f"jsoncontract/schemas/config/{name}.json").read_text())
        for key in schema["properties"]:
            assert re.search(rf"^\[?{name}\.{key}\]|^{key} =", block, re.M), (name, key)
        contract = schema["properties"].get("contract", {}).get("properties", {})
        for key in contract:
            assert re.search(rf"^{key} =", block, re.M), key


def test_every_secret_kind_and_language_is_named() -> None:
    secrets = _section("The result stage").split("### Secrets", 1)[1]
    for pattern in SECRET_PATTERNS:
        assert f"`{pattern.kind}`" in secrets, pattern.kind
    traces = _section("The result stage").split("### Stack traces", 1)[1].split("###", 1)[0]
    for label in LANGUAGES.values():
        assert f"| {label} |" in traces, label


def test_every_check_of_the_run_is_in_the_state_table() -> None:
    table = _section("The checks over a run").split("### What each check keeps", 1)[1]
    names = {"results": "results without calls"}
    for name in CHECKS:
        assert f"| {names.get(name, name)} |" in table, name


def test_the_readme_section_runs_as_written(
    run_cli: Callable[..., CliResult], in_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    section = (REPO / "docs" / "commands" / "results.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0] for b in section.split("```text\n")[1:]]
    assert len(blocks) == 4
    for block in blocks:
        command, _, shown = block.partition("\n")
        words = shlex.split(command.removeprefix("$ "))
        args = [match for word in words[1:] for match in (sorted(glob.glob(word)) or [word])]
        result = run_cli(*args)
        assert result.code == 1, command
        assert result.stdout == shown, command
