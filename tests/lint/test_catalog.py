"""The rule catalog as a whole: codes, names, documentation, fixtures, generated docs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from jsoncontract.lint.codes import NOT_LINT_RULES, REDIRECTS, RULES, all_rules, lookup
from jsoncontract.lint.docs import drift, expected_pages, write_docs
from jsoncontract.lint.profiles import ENGINE_PROFILES, PROFILES
from jsoncontract.lint.rule import ALL, Family

REPO = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead",
            "## References")  # fmt: skip
CODES = sorted(all_rules())


def test_table_is_sorted_and_consistent() -> None:
    assert list(RULES) == sorted(RULES)
    names = [rule.name for rule in all_rules().values()]
    assert len(names) == len(set(names))
    for code, rule in all_rules().items():
        assert re.fullmatch(r"JC[0-9]{3}", code)
        assert rule.code == code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", rule.name), rule.name
        assert isinstance(rule.family, Family)
        assert rule.summary and not rule.summary.endswith(".")
        assert set(rule.profiles) <= {ALL, *PROFILES, *ENGINE_PROFILES}


def test_redirects_and_retired_codes() -> None:
    for old, new in REDIRECTS.items():
        assert old not in RULES and new in RULES
        assert lookup(old).code == new
    assert not set(NOT_LINT_RULES) & set(RULES)
    with pytest.raises(LookupError, match="JC071 is not a lint rule"):
        lookup("JC071")


@pytest.mark.parametrize("code", CODES)
def test_documentation(code: str) -> None:
    doc = all_rules()[code].doc()
    positions = [doc.find(section) for section in SECTIONS]
    assert all(p >= 0 for p in positions), f"{code} lacks a section of {SECTIONS}"
    assert positions == sorted(positions), f"{code}: sections out of order"
    references = doc.split("## References", 1)[1]
    assert re.search(r"^- \S", references, re.MULTILINE), f"{code} cites no source"


@pytest.mark.parametrize("code", CODES)
def test_fixture_has_both_kinds_of_case(code: str) -> None:
    fixture = json.loads((FIXTURES / f"{code}.json").read_text(encoding="utf-8"))
    assert fixture["rule"] == code
    assert fixture.get("fire"), f"{code} has no case that fires"
    assert fixture.get("ok"), f"{code} has no case that must stay silent"


def test_no_stray_fixtures() -> None:
    assert {p.stem for p in FIXTURES.glob("*.json")} == set(CODES)


def test_generated_docs_are_current(request: pytest.FixtureRequest) -> None:
    directory = REPO / "docs" / "rules"
    if request.config.getoption("--update-golden"):
        write_docs(directory)
    stale = drift(directory)
    assert not stale, (
        f"docs/rules is out of date ({', '.join(stale[:5])}); regenerate with "
        "python -m jsoncontract.lint.docs docs/rules (or pytest --update-golden)"
    )


def test_drift_is_detected(tmp_path: Path) -> None:
    write_docs(tmp_path)
    assert drift(tmp_path) == []
    (tmp_path / "JC020.md").write_text("edited by hand\n", encoding="utf-8")
    (tmp_path / "JC999.md").write_text("left over\n", encoding="utf-8")
    assert drift(tmp_path) == ["JC020.md", "JC999.md"]
    assert set(expected_pages()) == {f"{c}.md" for c in CODES} | {"README.md"}


@pytest.mark.parametrize("code", CODES)
def test_json_examples_are_json(code: str) -> None:
    for block in re.findall(r"```json\n(.*?)```", all_rules()[code].doc(), re.DOTALL):
        json.loads(block)
