"""docs/error-handling.md states the limits the code has: each figure of its table is read
from the constant that sets it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jsoncontract import _files, _json, _spelling, _yaml, validation
from jsoncontract.business import _cel, cost, rules
from jsoncontract.business.context import MAX_CONTEXT_BYTES
from jsoncontract.capture.reader import MAX_LINE_BYTES
from jsoncontract.cli import MAX_ERROR_LINE
from jsoncontract.cli.options import HELD_IN_MEMORY
from jsoncontract.reporters import github, markdown, sarif
from jsoncontract.settings import MAX_CONFIG_BYTES

DOC = Path(__file__).resolve().parent.parent / "docs" / "error-handling.md"
MiB = 1024 * 1024

#: (words of the table row, the figure it must show)
FIGURES = [
    ("one JSON document", f"{_files.MAX_DOCUMENT_BYTES // MiB} MB"),
    ("one JSON Lines line", f"{MAX_LINE_BYTES // MiB} MB"),
    ("nesting depth", f"{_json.MAX_DEPTH} levels"),
    ("integer digits", f"{_json.MAX_INT_DIGITS:,} digits"),
    ("anomalies recorded", f"| {_json.MAX_ANOMALIES} |"),
    ("the JSON Pointer an anomaly", f"{_json.MAX_POINTER:,} characters"),
    ("violations listed", f"| {validation.MAX_VIOLATIONS} |"),
    ("a violation's message", f"{validation.MAX_MESSAGE} characters"),
    ("an error line", f"{MAX_ERROR_LINE:,} characters"),
    ("close-match", f"{_spelling.MAX_COMPARISONS:,}"),
    ("close-match", f"more than {_spelling.MAX_INDEXED:,} options"),
    ("a business rules file", f"{rules._MAX_RULES_BYTES // MiB} MiB"),
    ("`--context @FILE`", f"{MAX_CONTEXT_BYTES // MiB} MB"),
    ("a config file", f"{MAX_CONFIG_BYTES // MiB} MiB"),
    ("a CEL expression", f"{cost.DEFAULT_BUDGET:,}"),
    ("a CEL expression", f"{_cel.RUNTIME_ITERATIONS:,} comprehension steps"),
    ("a Python business rule", f"{rules.DEFAULT_PYTHON_TIMEOUT:g} s per call"),
    ("a report to a pipe", f"{HELD_IN_MEMORY // MiB} MB in memory"),
    ("a dataset", f"{_files.MAX_DOCUMENT_BYTES // MiB} MiB"),
    ('given a "did you mean"', f"| {validation._GUESSES} |"),
    ("names a hint lists", f"| {validation._LISTED} |"),
    ("YAML aliases", f"{_yaml.MAX_NODES:,} nodes"),
    ("SARIF results", f"{sarif.MAX_RESULTS:,} per run"),
    ("GitHub annotations", f"{github.PER_STEP['error']} errors"),
    ("GitHub annotations", f"{github.PER_STEP['warning']} warnings"),
    ("Markdown step summary", f"{markdown.STEP_SUMMARY_BYTES // MiB} MiB"),
]


def _row(words: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("## Limits") :]
    rows = [line for line in table.splitlines() if line.startswith("| ") and words in line]
    assert rows, f"docs/error-handling.md has no limit row for {words!r}"
    return rows[0]


@pytest.mark.parametrize(("words", "figure"), FIGURES, ids=[f"{w}: {f}" for w, f in FIGURES])
def test_the_documented_limit_is_the_code_s(words: str, figure: str) -> None:
    assert figure in _row(words)


def test_every_limit_row_is_checked() -> None:
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("## Limits") : text.index("## Empty and unreadable input")]
    rows = [re.split(r" \| ", line)[0][2:] for line in table.splitlines()
            if line.startswith("| ") and not line.startswith("| limit")]  # fmt: skip
    unchecked = {
        "a rules file or config nested deeper than Python's parser recurses",
        "`pattern`, `patternProperties` (every draft), the fixture generator's pattern checks",
        "`$ref`",
        "a suite's `capture_file`",
    }
    checked = {words for words, _ in FIGURES}
    for row in rows:
        assert row in unchecked or any(w in row for w in checked), row
