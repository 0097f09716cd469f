"""Suite files: the shipped schema, invalid files (exit 2 material, with a location), layout."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from jsoncontract.errors import InputError
from jsoncontract.model import Stage
from jsoncontract.suites import (
    Expectation,
    Suite,
    SuiteError,
    dump_suite,
    find_suite_files,
    parse_suite,
    read_suite,
    suite_schema,
)
from jsoncontract.suites.model import case_lines

CASE = {"name": "valid", "expect": "ok", "arguments": {"a": 1}}


def document(*cases: Any, **top: Any) -> str:
    return json.dumps({"version": 1, "tool": "ship", "cases": list(cases), **top}, indent=2)


def test_the_shipped_schema_is_a_valid_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(suite_schema())


def test_bundled_suites_validate_against_the_schema(repo: Path) -> None:
    validator = jsonschema.Draft202012Validator(suite_schema())
    files = find_suite_files([repo / "fixtures" / "suites"])
    assert len(files) == 5
    for path in files:
        validator.validate(json.loads(path.read_text()))


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ('{"version": 1, "version": 1, "tool": "t", "cases": []}', 1, "'version' appears more"),
        (document(CASE, versoin=1), 1, "unknown member 'versoin' (did you mean 'version'?)"),
        (document({**CASE, "expected": "ok"}), 5, "case 1: unknown member 'expected'"),
        (document({**CASE, "text": "{}"}), 5, "case 1 needs exactly one input"),
        (document({"name": "n", "expect": "ok"}), 5, "(it has: none)"),
        (document({"name": "n", "expect": "ok", "hop": "mcp", "text": "{}"}), 8, "hop must be"),
        (document({**CASE, "expect": "fine"}), 7, 'expect must be "ok" or an object'),
        (document({**CASE, "expect": {"keyword": "enum"}}), 7, "missing member 'stage' (a code"),
        (document({**CASE, "expect": {"stage": "later"}}), 8, "case 1 (expect/stage)"),
        (
            document({**CASE, "expect": {"stage": "parse", "code": "schema.enum"}}),
            9,
            "code 'schema.enum' belongs to the schema stage, but the case expects a failure "
            "at parse",
        ),
        (document(CASE, CASE), 13, "case name 'valid' is used twice (first by case 1)"),
        (document(version=2), 2, "suite member /version"),
        (document({**CASE, "capture_file": "x.json"}), 5, "(it has: arguments, capture_file)"),
        (
            document({**CASE, "skip": True}),
            11,
            'case 1 (skip): skip takes the reason the case does not run, as a string ("skip": '
            '"waiting for the v2 schema"), not true',
        ),
        (document({**CASE, "skip": False}), 11, "not false; to run the case, leave skip out"),
        (
            document({**CASE, "skip": ""}),
            11,
            'as a string ("skip": "waiting for the v2 schema"), not an empty string',
        ),
        (document({**CASE, "skip": ["flaky"]}), 11, "not an array"),
    ],
)
def test_invalid_suites_say_where(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "t.suite.json"
    path.write_text(text)
    with pytest.raises(SuiteError) as caught:
        read_suite(path)
    assert message in str(caught.value)
    assert caught.value.file == str(path)
    assert caught.value.line == line


def test_a_suite_that_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "t.suite.json"
    path.write_text('{"version": 1,\n  "tool": ')
    with pytest.raises(InputError) as caught:
        read_suite(path)
    assert str(caught.value).startswith(f"{path}:2:")
    assert "not JSON (truncated)" in str(caught.value)


def test_missing_capture_file(tmp_path: Path) -> None:
    path = tmp_path / "t.suite.json"
    path.write_text(document({"name": "c", "expect": "ok", "capture_file": "gone.json"}))
    with pytest.raises(SuiteError, match=r"capture file 'gone\.json' does not exist") as caught:
        read_suite(path)
    assert caught.value.line == 8


def test_unreadable_and_missing_paths(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        find_suite_files([tmp_path / "nope"])
    with pytest.raises(InputError, match=r"directory has no suite files \(\*\.suite\.json\)"):
        find_suite_files([tmp_path])
    (tmp_path / "empty.suite.json").write_text("")
    with pytest.raises(InputError, match="file is empty"):
        read_suite(tmp_path / "empty.suite.json")


def test_directories_hold_only_suite_files(tmp_path: Path) -> None:
    (tmp_path / "a.suite.json").write_text(document(CASE))
    (tmp_path / "tools.json").write_text("[]")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "b.suite.json").write_text(document(CASE))
    assert find_suite_files([tmp_path]) == [tmp_path / "a.suite.json"]


def test_expectations_read_and_write() -> None:
    assert Expectation.from_json("ok") == Expectation()
    e = Expectation.from_json({"stage": "schema", "keyword": "enum", "path": "/p"})
    assert e == Expectation(Stage.SCHEMA, keyword="enum", path="/p")
    assert e.to_json() == {"stage": "schema", "keyword": "enum", "path": "/p"}
    f = Expectation.from_json({"fields": ["b", "a"]})
    assert f.ok and f.fields == ("a", "b") and f.to_json() == {"fields": ["a", "b"]}
    assert f.describe() == "pass with fields a, b"
    assert Expectation(Stage.PARSE, code="parse.truncated", path="").describe() == (
        "fail at parse (parse.truncated at /)"
    )


def test_layout_round_trips_and_reads_well(
    make_suite: Callable[..., Suite], golden: Callable[[str, str], None]
) -> None:
    suite = make_suite(
        {
            "arguments": {"order_id": "ORD-000001", "priority": "standard"},
            "expect": "ok",
            "name": "valid",
            "tags": ["generated", "valid"],
            "hop": "model",
        },
        {
            "name": "long arguments are broken into lines",
            "description": "Ünïcode stays as written.",
            "expect": {"stage": "schema", "keyword": "enum", "path": "/priority"},
            "arguments": {
                "order_id": "ORD-000001",
                "priority": "STANDARD",
                "address": {"line1": "14 Rue de la Paix", "city": "Paris", "country": "FR"},
                "notes": ["fragile", "keep upright"],
            },
        },
        {"name": "text", "expect": {"stage": "parse"}, "text": '{"a": 1,}'},
    )
    suite.seed = 0
    text = dump_suite(suite).decode()
    golden("suite-layout.json", text)
    again = parse_suite(text)
    assert [c.data for c in again.cases] == [c.data for c in suite.cases]
    assert dump_suite(again).decode() == text


def test_lone_surrogates_are_escaped(make_suite: Callable[..., Suite]) -> None:
    suite = make_suite({"name": "s", "expect": {"stage": "parse"}, "text": '{"a": "\ud800"}'})
    text = dump_suite(suite)
    assert b"\\ud800" in text
    assert parse_suite(text).cases[0].input == '{"a": "\ud800"}'


@pytest.mark.parametrize(
    "text",
    [
        '{"version": 1, "tool": "t", "cases": [{"name": "a", "expect": "ok", "arguments": {}}]}',
        # members around the cases, CRLF line ends, brackets and quotes inside strings, a
        # nested "cases" member, a case spread over lines and two on one line
        '{\r\n  "description": "cases: [\\"x\\", {\\"y\\": 1}]\\n",\r\n  "version": 1,\r\n'
        '  "tool": "t",\r\n  "cases": [\r\n    {"name": "a", "expect": "ok",\r\n'
        '     "arguments": {"cases": [1, {"]": "["}], "s": "\\\\\\""}},\r\n'
        '    {"name": "b", "expect": "ok", "text": "{"},  {"name": "c", "expect": "ok",'
        ' "arguments": 1}\r\n  ],\r\n  "seed": 3\r\n}\r\n',
        '\n\n{"cases"\n:\n[\n\n{"name": "a", "expect": "ok", "arguments": {}}\n,\n'
        '{"name": "b", "expect": "ok", "arguments": {"k": "\\ud800"}}],'
        ' "tool": "t", "version": 1}',
        '{"version": 1, "tool": "t", "cases": []}',
    ],
)
def test_case_lines_agree_with_the_position_index(text: str) -> None:
    from jsoncontract._locate import PositionIndex

    suite = parse_suite(text)
    index = PositionIndex(text)
    expected = [index.position(f"/cases/{c.index}") for c in suite.cases]
    assert [suite.line_of(c) for c in suite.cases] == [p[0] if p else None for p in expected]
    assert case_lines(text) == [p[0] for p in expected if p]


def test_case_lines_of_text_that_is_not_a_suite_document() -> None:
    assert case_lines('{"version": 1, "cases": {"a": 1}}') == []
    assert case_lines("[1, 2]") == []
    assert case_lines('{"cases": [1,\n 2') == [1, 2]  # the position index reads what it can


def test_values_nested_as_deep_as_a_parser_allows(make_suite: Callable[..., Suite]) -> None:
    from jsoncontract._locate import PositionIndex

    deep: Any = {"end": "\ud800"}
    for _ in range(1000):
        deep = [deep]
    suite = make_suite(
        {"name": "deep", "expect": "ok", "arguments": {"x": deep}},
        {"name": "next", "expect": "ok", "arguments": {}},
    )
    text = dump_suite(suite)
    again = parse_suite(text)
    value = again.cases[0].input["x"]
    for _ in range(1000):
        (value,) = value
    assert value == {"end": "\ud800"}
    index = PositionIndex(text.decode())
    lines = [again.line_of(c) for c in again.cases]
    assert lines == [index.position(f"/cases/{i}")[0] for i in range(2)]  # type: ignore[index]


def test_the_fingerprint_of_a_case_nested_past_what_orjson_writes() -> None:
    from jsoncontract.suites.model import case_digest

    deep: Any = 1
    for _ in range(1000):
        deep = [deep]
    digest = case_digest({"name": "d", "arguments": {"x": deep}})
    assert len(digest) == 12 and digest == case_digest({"arguments": {"x": deep}, "name": "d"})
