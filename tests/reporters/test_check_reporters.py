"""Every ``check`` report format, compared with its golden file."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from jsoncontract import check
from jsoncontract.model import CheckReport
from jsoncontract.reporters import CHECK_REPORTERS, ReportOptions
from jsoncontract.tools import ToolSet

CAPTURES = [
    "fixtures/captures/faults/schema-enum.json",
    "fixtures/captures/faults/parse-code-fence.json",
    "fixtures/captures/faults/envelope-unknown-tool.json",
    "fixtures/captures/anthropic/message-ok.json",
    "fixtures/captures/trace.jsonl",
]


@pytest.fixture
def report(in_repo: Path) -> CheckReport:
    return check(CAPTURES, tools=ToolSet.from_paths(["fixtures/tools"]))


def render(report: CheckReport, fmt: str, **options: object) -> str:
    stream = io.BytesIO()
    reporter = CHECK_REPORTERS[fmt](stream, ReportOptions(color=False, **options))  # type: ignore[arg-type]
    for result in report.results:
        reporter.add(result)
    reporter.close(report.summary)
    return stream.getvalue().decode()


def test_every_format_is_registered() -> None:
    assert set(CHECK_REPORTERS) == {"text", "json", "jsonl"}


def test_text(report: CheckReport, golden: Callable[[str, str], None]) -> None:
    golden("check/report.txt", render(report, "text"))


def test_text_verbose(report: CheckReport, golden: Callable[[str, str], None]) -> None:
    golden("check/report-verbose.txt", render(report, "text", verbose=True))


def test_text_quiet(report: CheckReport, golden: Callable[[str, str], None]) -> None:
    golden("check/report-quiet.txt", render(report, "text", quiet=True))


def test_json(report: CheckReport, golden: Callable[[str, str], None]) -> None:
    text = render(report, "json")
    assert json.loads(text) == report.to_dict()
    golden("check/report.json", json.dumps(json.loads(text), indent=2) + "\n")


def test_jsonl(report: CheckReport, golden: Callable[[str, str], None]) -> None:
    text = render(report, "jsonl")
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[:-1] == [r.to_dict() for r in report.results]
    golden("check/report.jsonl", text)


def test_styled_text_uses_ansi_and_the_same_words(report: CheckReport) -> None:
    plain = render(report, "text")
    stream = io.BytesIO()
    reporter = CHECK_REPORTERS["text"](stream, ReportOptions(color=True, width=200))
    for result in report.results:
        reporter.add(result)
    reporter.close(report.summary)
    styled = stream.getvalue().decode()
    assert "\x1b[" in styled
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", styled) == plain


def test_no_color_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from jsoncontract.reporters.interface import wants_color

    class Tty(io.BytesIO):
        def isatty(self) -> bool:
            return True

    assert wants_color(Tty(), None) is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert wants_color(Tty(), None) is False
    assert wants_color(Tty(), True) is True
