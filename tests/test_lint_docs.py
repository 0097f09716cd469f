"""What the lint page and the pre-commit hooks promise about lint matches what it does."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest

REPO = Path(__file__).resolve().parent.parent


def _page() -> str:
    return (REPO / "docs" / "commands" / "lint.md").read_text(encoding="utf-8")


def test_readme_lint_report_is_real(run_cli: Callable[..., Any], in_repo: Path) -> None:
    section = _page()
    block = re.search(r"```text\n(.*?)```", section, re.DOTALL)
    assert block is not None
    actual = run_cli("lint", "fixtures/lint/weak-tools.json").stdout.splitlines()
    shown = [line for line in block.group(1).splitlines() if line and line != "..."]
    for line in shown:
        assert line in actual, f"the lint page shows a line lint no longer prints: {line}"


def test_readme_mentions_the_ci_setup() -> None:
    section = _page()
    assert "upload-sarif" in section and "--format sarif" in section
    assert "id: jsoncontract-lint" in section


def test_pre_commit_hooks() -> None:
    text = (REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    hooks = list(text.split("\n- ")[1:])
    fields = [
        dict(re.findall(r"^\s*(\w+): (.*)$", "id: " + h.split("id: ", 1)[1], re.M)) for h in hooks
    ]
    by_id = {hook["id"]: hook for hook in fields}
    # lint and pin take the changed files (tests/cli/test_hooks.py runs them as pre-commit does)
    assert by_id["jsoncontract-lint"]["entry"] == "jsoncontract lint --changed"
    assert by_id["jsoncontract-lint"]["types_or"] == "[json, yaml]"
    assert by_id["jsoncontract-pin-check"]["entry"] == "jsoncontract pin --check --changed"
    assert by_id["jsoncontract-rules-check"]["entry"] == "jsoncontract rules --check"
    assert re.search(by_id["jsoncontract-rules-check"]["files"], "rules/shipping.toml")
    # the secret check reads the files being committed; the others read the config's
    assert by_id["jsoncontract-redact-check"]["entry"] == "jsoncontract redact --check --quiet"
    assert by_id["jsoncontract-redact-check"]["pass_filenames"] == "true"
    assert re.search(by_id["jsoncontract-redact-check"]["files"], "fixtures/trace.jsonl")
    for hook in fields:
        assert hook["language"] == "python"
        assert hook["pass_filenames"] == ("false" if hook["id"].endswith("rules-check") else "true")
        assert "types_or" in hook or re.search(hook["files"], "tools/server.json")


def test_library_returns_data(in_repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from jsoncontract.lint import lint

    report = lint(["fixtures/lint/weak-tools.json"], profiles=["generic", "mcp"])
    assert capsys.readouterr() == ("", "")
    assert report.tools == 3 and report.files == ["fixtures/lint/weak-tools.json"]
    codes = {item.code for item in report.findings}
    assert {"JC010", "JC020", "JC054", "JC101", "JC110", "JC058"} <= codes
    finding = report.findings[0].finding
    assert finding.source is not None and finding.source.column is not None
    assert report.to_dict()["summary"]["profiles"] == ["generic", "mcp"]
