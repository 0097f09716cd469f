"""The catalog of finding codes: every code a command reports is declared once, documented,
reported through its constant, printed by ``jsoncontract rules CODE``, and listed in the
generated ``docs/codes.md``."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import pytest

from jsoncontract import codes
from jsoncontract._json import load
from jsoncontract.codes import CATALOG, Code
from jsoncontract.diff.model import DiffCode
from jsoncontract.lint.codes import all_rules
from jsoncontract.pin import OPTIONAL_PARTS, PARTS
from jsoncontract.suites.model import Mismatch

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "jsoncontract"
DECLARED = [c for c in CATALOG if not c.pattern]

Run = Callable[..., Any]


def test_the_generated_page_is_current() -> None:
    page = REPO / "docs" / "codes.md"
    assert page.read_text(encoding="utf-8") == codes.catalog_markdown(), (
        "docs/codes.md is stale: python -m jsoncontract.codes docs/codes.md"
    )
    assert codes.main([str(page), "--check"]) == 0


@pytest.mark.parametrize("entry", list(CATALOG), ids=lambda c: c.code)
def test_every_code_has_a_summary_and_a_paragraph(entry: Code) -> None:
    assert entry.summary and "\n" not in entry.summary and not entry.summary.endswith(".")
    assert entry.summary[0].islower() or entry.summary[0] in "`NT"  # NaN, True...
    assert len(entry.doc) > 80 and "\n" not in entry.doc and entry.doc.endswith((".", ")"))
    assert entry.code.startswith(entry.family.prefix)
    assert entry.family.commands


def test_a_code_is_declared_once_in_its_family() -> None:
    catalog = codes.Catalog()
    family = catalog.family("parse", "Parse gate", "About it.", commands=("check",))
    assert catalog.declare(family, "parse.x", "s", "d") == "parse.x"
    with pytest.raises(ValueError, match="declared twice"):
        catalog.declare(family, "parse.x", "s", "d")
    with pytest.raises(ValueError, match="does not start with"):
        catalog.declare(family, "schema.x", "s", "d")


def test_patterns_answer_for_their_family() -> None:
    schema = CATALOG.get("schema.minLength")
    assert schema is not None and schema.code == "schema.<keyword>"
    business = CATALOG.get("business.order-exists")
    assert business is not None and business.code == "business.<rule-id>"
    conflict = CATALOG.get(codes.BUSINESS_IDEMPOTENCY_CONFLICT)
    assert conflict is not None and not conflict.pattern
    assert CATALOG.get("schema.") is None and CATALOG.get("nothing.here") is None
    assert codes.schema_code("enum") == "schema.enum"
    assert codes.business_code("date-order") == "business.date-order"


# -- the families composed from a name: every name has its declared code ---------------------


def test_every_anomaly_the_parser_reports_has_its_codes() -> None:
    texts = [
        b'{"a": 1, "a": 2}',
        b'{"n": 123456789012345678901234567890}',
        b'{"x": NaN}',
        b'{"s": "\\ud800"}',
        b'{"city": "M\xfcnchen"}',
        b'{"tiny": 1e-400}',
    ]
    kinds = {a.kind for text in texts for a in load(text)[1]}
    assert kinds == set(codes.ANOMALY_CODES)
    for parse, envelope in codes.ANOMALY_CODES.values():
        assert CATALOG.get(parse) is not None and CATALOG.get(envelope) is not None


def test_every_mismatch_of_a_case_has_its_code() -> None:
    assert set(codes.SUITE_CODES) == {m.value for m in Mismatch}
    assert [c.code for c in CATALOG.of(codes.SUITE)] == list(codes.SUITE_CODES.values())


def test_every_pinned_part_has_its_code() -> None:
    assert list(codes.PIN_CHANGED) == [*PARTS[1:], *OPTIONAL_PARTS]


def test_every_kind_of_difference_is_declared() -> None:
    assert [d.value for d in DiffCode] == [c.code for c in CATALOG.of(codes.DIFFERENCE)]


# -- reported through the catalog ----------------------------------------------------------


#: A string that looks like a code and is not: the marker of a rules file that cannot be
#: read at all (the check stops with exit 2; nothing is reported).
NOT_CODES: Final = frozenset({"rules.unreadable"})


def _string_constants(path: Path) -> Iterator[tuple[int, str]]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def test_codes_are_written_in_the_catalog_only() -> None:
    """A code is reported through its constant; its text appears in no other module (a
    declared code, or a name in one of the catalog's families: ``parse.something``)."""
    prefixes = "|".join(re.escape(f.prefix) for f in CATALOG.families if f.prefix)
    code_text = re.compile(rf"(?:{prefixes})[a-z_][a-z0-9_-]*")  # attributes have more dots
    declared = {c.code for c in DECLARED if c.family.prefix}  # not the words of differences
    found = [
        f"{path.relative_to(REPO)}:{line}: {value}"
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "codes.py" or path.parent != PACKAGE
        for line, value in _string_constants(path)
        if (value in declared or code_text.fullmatch(value))
        and value not in NOT_CODES
        and not value.endswith(".json")  # a file name
    ]
    assert found == []


def _report_codes(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        if isinstance(value.get("code"), str):
            yield value["code"]
        for item in value.values():
            yield from _report_codes(item)
    elif isinstance(value, list):
        for item in value:
            yield from _report_codes(item)


def test_every_code_in_the_reference_reports_is_documented() -> None:
    """The golden reports of every command hold only codes ``rules`` can explain."""
    reports = list((REPO / "tests" / "golden").rglob("*.json"))
    seen = {c for p in reports for c in _report_codes(json.loads(p.read_text()))}
    assert len(seen) > 30
    lint = set(all_rules())
    assert sorted(c for c in seen if c not in lint and CATALOG.get(c) is None) == []


# -- printed by `rules CODE` ---------------------------------------------------------------


@pytest.mark.parametrize("code", [c.code for c in DECLARED], ids=str)
def test_rules_prints_every_code(run_cli: Run, code: str) -> None:
    result = run_cli("rules", code)
    assert result.code == 0, result.stderr
    entry = CATALOG.get(code)
    assert entry is not None
    assert result.stdout == codes.code_markdown(entry)
    assert result.stdout.startswith(f"# {code}\n")


def test_rules_explains_a_code_of_a_pattern(run_cli: Run) -> None:
    result = run_cli("rules", "schema.enum")
    assert result.code == 0
    assert result.stdout.startswith("# schema.enum\n\nThe arguments break the tool's JSON ")
    assert "| Pattern | `schema.<keyword>` |" in result.stdout
    assert run_cli("rules", "business.date-order").stdout.startswith("# business.date-order\n")


def test_rules_json_for_a_code(run_cli: Run) -> None:
    report = json.loads(run_cli("rules", "PARSE.CODE_FENCE", "-f", "json").stdout)
    [entry] = report["rules"]
    assert entry["code"] == "parse.code_fence"
    assert (entry["family"], entry["severity"], entry["pattern"]) == ("parse", "error", None)
    assert entry["reported_by"] == ["check", "diff", "test"]
    assert entry["docs_url"].endswith("docs/codes.md#parsecode_fence")
    assert entry["documentation"].startswith("# parse.code_fence\n")


def test_an_unknown_code_names_the_closest(run_cli: Run) -> None:
    result = run_cli("rules", "parse.code_fense")
    assert result.code == 2
    assert "unknown code 'parse.code_fense'; did you mean 'parse.code_fence'?" in result.stderr
    assert "unknown rule 'JC299'" in run_cli("rules", "JC299").stderr


def test_the_reports_page_lists_every_code_of_check() -> None:
    page = (REPO / "docs" / "reports.md").read_text()
    section = page[page.index("### Finding codes") :]
    checked = [*CATALOG.of(codes.ENVELOPE), *CATALOG.of(codes.PARSE), *CATALOG.of(codes.SESSION)]
    for code in [*(entry.code for entry in checked), codes.RESULT_MALFORMED]:
        assert f"`{code}`" in section, code
    assert "(codes.md)" in section
