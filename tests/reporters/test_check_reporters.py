"""Every ``check`` report format, compared with its golden file."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from jsoncontract import check
from jsoncontract.model import CheckReport
from jsoncontract.reporters import ReportOptions, reporter_class
from jsoncontract.tools import ToolSet

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

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
    reporter = reporter_class("check", fmt)(stream, ReportOptions(color=False, **options))  # type: ignore[arg-type]
    reporter.write(report.summary, report.results)
    return stream.getvalue().decode()


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


def test_json_written_in_many_chunks(report: CheckReport, monkeypatch: pytest.MonkeyPatch) -> None:
    from jsoncontract.reporters import check_json

    monkeypatch.setattr(check_json, "_CHUNK_BYTES", 64)  # every result fills a chunk
    assert json.loads(render(report, "json")) == report.to_dict()


def test_jsonl(report: CheckReport, golden: Callable[[str, str], None]) -> None:
    text = render(report, "jsonl")
    lines = [json.loads(line) for line in text.splitlines()]
    assert lines[:-1] == [r.to_dict() for r in report.results]
    golden("check/report.jsonl", text)


def test_styled_text_uses_ansi_and_the_same_words(report: CheckReport) -> None:
    plain = render(report, "text")
    stream = io.BytesIO()
    reporter = reporter_class("check", "text")(stream, ReportOptions(color=True, width=200))
    reporter.write(report.summary, report.results)
    styled = stream.getvalue().decode()
    assert "\x1b[" in styled
    import re

    assert re.sub(r"\x1b\[[0-9;]*m", "", styled) == plain


def test_no_color_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    from jsoncontract.reporters.text import wants_color

    class Tty(io.BytesIO):
        def isatty(self) -> bool:
            return True

    assert wants_color(Tty(), None) is True
    monkeypatch.setenv("NO_COLOR", "1")
    assert wants_color(Tty(), None) is False
    assert wants_color(Tty(), True) is True


def test_github(report: CheckReport, golden: Callable[[str, str], None]) -> None:
    text = render(report, "github")
    lines = text.splitlines()
    assert lines[0].startswith(
        "::error file=fixtures/captures/faults/schema-enum.json,line=13,title=schema.enum::"
    )
    assert all("\n" not in line for line in lines)
    assert lines[-1] == "jsoncontract check: 22 calls in 5 files, 13 ok, 9 failed"
    golden("check/report.github.txt", text)


def test_sarif_is_valid_sarif_2_1_0(
    report: CheckReport, golden: Callable[[str, str], None]
) -> None:
    import jsonschema  # the official schema has a pattern ECMA-262 engines reject

    text = render(report, "sarif")
    log = json.loads(text)
    schema = json.loads((Path(__file__).parent / "sarif-schema-2.1.0.json").read_text())
    validator = jsonschema.Draft7Validator(schema)
    assert [e.message for e in validator.iter_errors(log)] == []
    run = log["runs"][0]
    assert len(run["results"]) == report.summary.by_severity["error"]
    codes = {rule["id"] for rule in run["tool"]["driver"]["rules"]}
    assert codes == set(report.summary.by_code)
    enum_rule = next(r for r in run["tool"]["driver"]["rules"] if r["id"] == "schema.enum")
    assert "JSON Schema" in enum_rule["shortDescription"]["text"]
    golden("check/report.sarif.json", text)


def test_junit_has_a_case_per_call(report: CheckReport, golden: Callable[[str, str], None]) -> None:
    from xml.etree import ElementTree

    text = render(report, "junit")
    root = ElementTree.fromstring(text)
    assert root.get("tests") == str(report.summary.calls)
    assert root.get("failures") == str(report.summary.failed)
    assert {s.get("name") for s in root} == {Path(p).as_posix() for p in CAPTURES}
    golden("check/report.junit.xml", text)


def test_sarif_rules_carry_the_catalog_page_as_help(report: CheckReport) -> None:
    from jsoncontract.codes import CATALOG, code_markdown, plain_text

    run = json.loads(render(report, "sarif"))["runs"][0]
    for rule in run["tool"]["driver"]["rules"]:
        entry = CATALOG.get(rule["id"])
        assert entry is not None, rule["id"]
        page = code_markdown(entry, rule["id"])
        assert rule["help"] == {"text": plain_text(page), "markdown": page}
        assert rule["helpUri"].endswith(f"docs/codes.md#{entry.anchor}")


def surrogate_report(tmp_path: Path) -> CheckReport:
    """Calls whose tool name, call id, argument key and file name hold lone surrogates
    (invalid UTF-8 bytes or lone ``\\ud800`` escapes in the capture)."""
    lines = [
        b'{"jsonrpc":"2.0","id":"a\\ud800","method":"tools/call",'
        b'"params":{"name":"x\\udc00y","arguments":{}}}',
        b'{"jsonrpc":"2.0","id":2,"method":"tools/call",'
        b'"params":{"name":"get_weather","arguments":{"c\xffity":1,"c\xffity":2}}}',
    ]
    try:
        path = tmp_path / os.fsdecode(b"trace-\xff.jsonl")
        path.write_bytes(b"\n".join(lines) + b"\n")
    except (OSError, UnicodeError):  # a file system that holds only UTF-8 names
        path = tmp_path / "trace.jsonl"
        path.write_bytes(b"\n".join(lines) + b"\n")
    return check([path], tools=ToolSet.from_paths([FIXTURES / "tools"]))


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "github", "sarif", "junit"])
@pytest.mark.parametrize("color", [False, True])
def test_text_utf8_cannot_hold_is_spelt_out(tmp_path: Path, fmt: str, color: bool) -> None:
    report = surrogate_report(tmp_path)
    assert [r.stage for r in report.results] == ["envelope", "parse"]
    stream = io.BytesIO()
    reporter_class("check", fmt)(stream, ReportOptions(color=color)).write(
        report.summary, report.results
    )
    text = stream.getvalue().decode("utf-8")  # strict: the report is UTF-8
    if fmt in ("json", "jsonl", "sarif"):  # and still JSON
        for document in text.splitlines() if fmt == "jsonl" else [text]:
            json.loads(document)
    spelt = {"json": r"x\\udc00y", "jsonl": r"x\\udc00y", "sarif": r"x\\udc00y"}
    assert spelt.get(fmt, r"x\xdc00y" if fmt == "junit" else r"x\udc00y") in text


def test_json_report_spells_out_lone_surrogates(tmp_path: Path) -> None:
    report = surrogate_report(tmp_path)
    log = json.loads(render(report, "json"))
    first, second = log["results"]
    assert (first["tool"], first["call_id"]) == ("x\\udc00y", "a\\ud800")
    assert second["findings"][0]["path"] == "/c\\udcffity"
    assert "x\\udc00y" in log["summary"]["by_tool"]


@pytest.mark.parametrize("color", [False, True])
def test_text_from_a_capture_cannot_drive_the_terminal(tmp_path: Path, color: bool) -> None:
    message = {
        "jsonrpc": "2.0",
        "id": "1\x1b]0;retitled\x07",
        "method": "tools/call",
        "params": {
            "name": "get_weather",
            "arguments": {"city": "Oslo", "x\x1b[2J\nok   forged.json:1 get_weather": 1},
        },
    }
    path = tmp_path / "trace.jsonl"
    path.write_bytes(json.dumps(message).encode() + b"\n")
    report = check([path], tools=ToolSet.from_paths([FIXTURES / "tools"]))
    stream = io.BytesIO()
    reporter_class("check", "text")(stream, ReportOptions(color=color)).write(
        report.summary, report.results
    )
    text = stream.getvalue().decode()
    if color:  # rich's own styling is the only escape sequence left
        import re

        text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    assert "\x1b" not in text and "\x07" not in text
    assert not any(line.startswith("ok ") for line in text.splitlines())
    assert "x\\x1b[2J\\x0aok   forged.json:1" in text
    assert "1\\x1b]0;retitled\\x07" in text
