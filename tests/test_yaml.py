"""YAML documents read as JSON values with the place of every node: tool definitions,
captures and OpenAPI documents in YAML, through the same commands as JSON."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract._yaml import MAX_NODES, load_yaml
from jsoncontract.errors import InputError
from jsoncontract.tools.loader import load_tool_file

REPO = Path(__file__).resolve().parent.parent
YAML = REPO / "fixtures" / "yaml"


def one(text: str) -> Any:
    (document,) = load_yaml(text.encode(), name="t.yaml")
    return document


def test_values_are_json_under_yaml_1_2() -> None:
    document = one(
        "a: yes\nb: 2025-10-01\nc: 0x1F\nd: 1e3\ne: ~\nf: '007'\ng: 007\n200: ok\nh: True\n"
        "i: .inf\nj: 18446744073709551616\nk: !!str 12\nl: !!float 3\n"
    )
    assert document.value == {
        "a": "yes",
        "b": "2025-10-01",
        "c": 31,
        "d": 1000.0,
        "e": None,
        "f": "007",
        "g": 7,
        "200": "ok",
        "h": True,
        "i": float("inf"),
        "j": 18446744073709551616,
        "k": "12",
        "l": 3.0,
    }
    kinds = {(a.kind, a.pointer) for a in document.anomalies}
    assert kinds == {("nan_infinity", "/i"), ("big_integer", "/j")}


def test_positions_are_those_of_keys_and_items() -> None:
    document = one("top:\n  - name: a\n    list: [1, 2]\n  - name: b\n")
    positions = document.positions
    assert positions.position("/top") == (1, 1)
    assert positions.position("/top/1/name") == (4, 5)
    assert positions.position("/top/0/list/1") == (3, 15)
    assert positions.position("/top/0/missing") == (2, 5)  # the closest ancestor


def test_duplicate_keys_and_merge_keys() -> None:
    document = one("base: &b {x: 1, y: 2}\nuse:\n  <<: *b\n  y: 3\n  z: 4\n  z: 5\n")
    assert document.value["use"] == {"x": 1, "y": 3, "z": 5}
    assert [a.pointer for a in document.anomalies] == ["/use/z"]
    assert document.positions.repeated_keys == 1


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("a: [1, 2\n", "not YAML", 2),
        ("a: !!python/object:os.system {}\n", "builds no JSON value", 1),
        ("? [a, b]\n: 1\n", "not a scalar", 1),
        ("a: !!int nope\n", "is no int", 1),
    ],
)
def test_what_is_not_json_is_refused_with_its_place(text: str, message: str, line: int) -> None:
    with pytest.raises(InputError, match=message) as info:
        load_yaml(text.encode(), name="t.yaml")
    assert info.value.line == line and info.value.file == "t.yaml"


def test_aliases_that_explode_are_refused() -> None:
    lines = ['a: &a ["x", "x", "x", "x", "x", "x", "x", "x", "x", "x"]']
    for i in range(1, 9):
        lines.append(f"{chr(97 + i)}: &{chr(97 + i)} [{', '.join(['*' + chr(96 + i)] * 10)}]")
    with pytest.raises(InputError, match=f"more than {MAX_NODES:,} nodes"):
        load_yaml("\n".join(lines).encode(), name="bomb.yaml")


def test_a_yaml_tools_file_reads_as_its_json_twin() -> None:
    tools = load_tool_file(YAML / "tools.yaml")
    assert [t.name for t in tools] == ["get_weather", "book_pickup"]
    weather = tools[0]
    twin = json.loads((REPO / "fixtures" / "tools" / "anthropic.json").read_text())[0]
    assert weather.input_schema == twin["input_schema"]
    assert weather.source.line == 3 and weather.dialect == "anthropic"
    pickup = tools[1].input_schema["properties"]
    assert pickup["return_to"] == pickup["address"]  # the anchor, followed
    assert pickup["date"]["description"] == "The pickup day, e.g. 2025-10-01."


def test_a_stream_of_documents_is_refused_as_a_tools_file(tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text("name: a\ninput_schema: {type: object}\n---\nname: b\n")
    with pytest.raises(InputError, match="holds 2 YAML documents; one was expected"):
        load_tool_file(path)


def test_lint_locates_yaml_findings_and_leaves_the_file_to_its_author(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    result = run_cli("lint", "--no-config", "fixtures/yaml/tools.yaml", "-f", "json")
    findings = json.loads(result.stdout)["findings"]
    address = next(f for f in findings if f["path"].endswith("/address"))
    assert address["source"] == {"file": "fixtures/yaml/tools.yaml", "line": 29, "column": 7}
    assert address["fixable"] is False
    assert address["fix_refused"] == "--fix edits JSON files; this one is YAML"
    copy = tmp_path / "tools.yaml"
    copy.write_text((YAML / "tools.yaml").read_text())
    fixed = run_cli("lint", "--no-config", str(copy), "--fix")
    assert "--fix edits JSON files, not YAML" in fixed.stderr
    assert copy.read_text() == (YAML / "tools.yaml").read_text()


def test_lint_finds_a_duplicate_key_in_yaml(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    path = tmp_path / "tools.yaml"
    path.write_text(
        "- name: t\n  description: Reads one record by its id.\n  input_schema:\n"
        "    type: object\n    type: array\n"
    )
    result = run_cli("lint", "--no-config", str(path), "--select", "JC150", "-f", "json")
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["code"] == "JC150" and finding["source"]["line"] == 5


def test_a_yaml_capture_stream(run_cli: Callable[..., Any], in_repo: Path) -> None:
    result = run_cli(
        "check",
        "--no-config",
        "-t",
        "fixtures/yaml/tools.yaml",
        "fixtures/yaml/capture.yaml",
        "-f",
        "json",
    )
    assert result.code == 1
    report = json.loads(result.stdout)
    assert [(r["tool"], r["ok"], r["source"]["line"]) for r in report["results"]] == [
        ("get_weather", False, 9),
        ("book_pickup", True, 23),
    ]
    assert report["results"][0]["findings"][0]["code"] == "schema.enum"


def test_duplicate_keys_in_yaml_arguments_are_parse_findings(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    capture = tmp_path / "call.yaml"
    capture.write_text(
        "jsonrpc: '2.0'\nid: 1\nmethod: tools/call\nparams:\n  name: get_weather\n"
        "  arguments:\n    city: Porto\n    city: Lisbon\n"
    )
    result = run_cli("check", "--no-config", "-t", "fixtures/tools", str(capture), "-f", "json")
    (call,) = json.loads(result.stdout)["results"]
    assert call["stage"] == "parse"
    assert call["findings"][0]["code"] == "parse.duplicate_key"


def test_a_broken_yaml_capture_is_exit_2_with_its_place(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    capture = tmp_path / "call.yaml"
    capture.write_text("id: 1\nparams: {name: [x\n")
    result = run_cli("check", "--no-config", "-t", "fixtures/tools", str(capture))
    assert result.code == 2
    assert result.stderr.startswith(f"jsoncontract: error: {capture}:3:1: not YAML: ")


def test_an_alias_inside_its_own_anchor_is_refused() -> None:
    with pytest.raises(InputError, match="expands to more than"):
        load_yaml(b"a: &a [1, *a]\n", name="r.yaml")
    (document,) = load_yaml(b"a: &a [1, 2]\nb: [*a, *a]\n", name="r.yaml")
    assert document.value == {"a": [1, 2], "b": [[1, 2], [1, 2]]}
