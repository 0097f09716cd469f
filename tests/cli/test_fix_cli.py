"""``lint --fix`` and ``--diff``: mechanical fixes, layout kept, meaning-changing fixes
refused with a reason."""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

Run = Callable[..., Any]


def _copy(repo: Path, tmp_path: Path) -> Path:
    target = tmp_path / "weak-tools.json"
    shutil.copy(repo / "fixtures" / "lint" / "weak-tools.json", target)
    return target


def test_diff_shows_without_writing(
    run_cli: Run, repo: Path, tmp_path: Path, golden: Callable[[str, str], None]
) -> None:
    path = _copy(repo, tmp_path)
    before = path.read_bytes()
    result = run_cli("lint", str(path), "--diff")
    assert result.code == 1
    assert path.read_bytes() == before
    golden("lint/weak-tools.diff", result.stdout.replace(str(tmp_path), "TMP"))
    assert "3 fixes would be applied" in result.stderr


def test_fix_writes_and_keeps_the_layout(run_cli: Run, repo: Path, tmp_path: Path) -> None:
    path = _copy(repo, tmp_path)
    before = path.read_text().splitlines()
    result = run_cli("lint", str(path), "--fix", "-f", "json")
    after = path.read_text().splitlines()
    new = [line for line in after if line.strip() == '"additionalProperties": false']
    old = [line for line in before if '"additionalProperties": false' in line]
    assert len(new) == 4 and len(old) == 1 and len(after) == len(before) + 3
    rest = [line for line in after if line.strip() != '"additionalProperties": false']
    assert [line.rstrip(",") for line in rest] == [
        line.rstrip(",") for line in before if line.strip() != '"additionalProperties": false'
    ]
    report = json.loads(result.stdout)
    assert report["summary"]["fixed"] == 3
    assert not any(f["code"] == "JC020" for f in report["findings"])
    assert "fixed 3 in" in result.stderr
    # a second run has nothing left to fix
    assert run_cli("lint", str(path), "--diff").code == 0


def _strict_search(parameters: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI Responses tool with strict: true and these parameters."""
    return {
        "type": "function",
        "name": "search",
        "description": "Search the catalog by words.",
        "strict": True,
        "parameters": parameters,
    }


def test_strict_fixes(run_cli: Run, write: Callable[..., Path]) -> None:
    properties = {
        "query": {"type": "string", "description": "Words."},
        "page_size": {"type": "integer", "minimum": 1, "maximum": 50, "default": 20},
        "sort": {"enum": ["new", "old"], "description": "Order."},
        "filters": {"type": "object", "additionalProperties": False, "description": "Nothing yet."},
        "kind": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
    }
    path = write(
        "tools.json",
        _strict_search({"type": "object", "properties": properties, "required": ["query"]}),
    )
    result = run_cli("lint", str(path), "-p", "openai-strict", "--fix", "-f", "json")
    schema = json.loads(path.read_text())["parameters"]
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["query", "page_size", "sort", "filters", "kind"]
    assert schema["properties"]["page_size"]["type"] == ["integer", "null"]
    assert "default" not in schema["properties"]["page_size"]
    assert schema["properties"]["sort"]["enum"] == ["new", "old", None]
    assert schema["properties"]["filters"]["properties"] == {}
    assert schema["properties"]["kind"]["anyOf"][-1] == {"type": "null"}
    assert "oneOf" not in schema["properties"]["kind"]
    left = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert not left & {"JC020", "JC021", "JC023", "JC025", "JC029"}


def test_fix_that_would_change_meaning_is_refused(run_cli: Run, write: Callable[..., Path]) -> None:
    document = {
        "name": "probe",
        "description": "Probe tool for the tests.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "meta": {"type": "object", "additionalProperties": True},
                "blob": {"type": "object"},
                "v": {"oneOf": [{"type": "string"}, {"type": "string", "maxLength": 3}]},
            },
            "additionalProperties": False,
        },
    }
    path = write("tools.json", document)
    before = path.read_text()
    result = run_cli("lint", str(path), "-p", "openai-strict", "--select", "JC020,JC023", "--fix")
    assert path.read_text() == before
    assert result.code == 1
    out = result.stdout
    assert "not fixed: the object was opened on purpose" in out
    assert "not fixed: it declares no properties, so closing it would only accept {}" in out
    assert "not fixed: its branches may overlap" in out


def test_boolean_property_schema_fix(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "tools.json",
        '{"tools": [{"name": "probe", "description": "Probe tool.",\n'
        ' "inputSchema": {"type": "object", "properties": {"x": true, "y": false},\n'
        ' "additionalProperties": false}}]}\n',
    )
    run_cli("lint", str(path), "-p", "mcp", "--select", "JC050", "--fix")
    assert '"properties": {"x": {}, "y": {"not": {}}}' in path.read_text()


def test_gemini_annotation_and_const_fixes(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "tools.json",
        {
            "functionDeclarations": [
                {
                    "name": "probe",
                    "description": "Probe tool for the tests.",
                    "parametersJsonSchema": {
                        "$schema": "https://json-schema.org/draft/2020-12/schema",
                        "type": "object",
                        "properties": {"mode": {"const": "fast", "examples": ["fast"]}},
                    },
                }
            ]
        },
    )
    run_cli("lint", str(path), "-p", "gemini", "--select", "JC042", "--fix")
    schema = json.loads(path.read_text())["functionDeclarations"][0]["parametersJsonSchema"]
    assert "$schema" not in schema
    assert schema["properties"]["mode"] == {"enum": ["fast"]}


def test_duplicate_enum_fix(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "tools.json",
        {
            "name": "probe",
            "description": "Probe tool for the tests.",
            "inputSchema": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "s": {"type": "string", "enum": ["a", "b", "a"], "description": "Letter."}
                },
            },
        },
    )
    run_cli("lint", str(path), "--select", "JC103", "--fix")
    assert json.loads(path.read_text())["inputSchema"]["properties"]["s"]["enum"] == ["a", "b"]


def test_fix_and_diff_together_is_a_usage_error(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "tools.json",
        {
            "name": "p",
            "description": "Probe tool for the tests.",
            "inputSchema": {"type": "object"},
        },
    )
    assert run_cli("lint", str(path), "--fix", "--diff").code == 2


def test_fixing_a_large_catalog_is_near_linear(run_cli: Run, write: Callable[..., Path]) -> None:
    # 5,000 open objects: each fix used to be checked against every earlier one, the text
    # rebuilt once per edit and rescanned per new member, and the diff aligned by difflib
    # over 90,000 repetitive lines (44 s at this size)
    count = 5000
    tools = [
        {
            "name": f"tool_{i}",
            "description": f"Reads record {i} from the store.",
            "inputSchema": {
                "type": "object",
                "properties": {"id": {"type": "string", "maxLength": 10, "description": "Id."}},
                "required": ["id"],
            },
        }
        for i in range(count)
    ]
    path = write("tools.json", json.dumps({"tools": tools}, indent=1))
    started = time.perf_counter()
    result = run_cli("lint", str(path), "--diff", "--select", "JC020")
    assert time.perf_counter() - started < 15
    assert result.code == 1
    assert f"{count} fixes would be applied" in result.stderr
    assert result.stdout.count('\n+    "additionalProperties": false\n') == count
    assert result.stdout.count("@@ -") == count
    fixed = run_cli("lint", str(path), "--fix", "--select", "JC020")
    assert fixed.code == 0, fixed.stdout
    assert json.loads(path.read_text())["tools"][-1]["inputSchema"]["additionalProperties"] is False


def test_optional_union_that_already_takes_null_gets_no_second_null_branch(
    run_cli: Run, write: Callable[..., Path]
) -> None:
    # a null branch next to one typed ["integer", "null"] would make null match two oneOf
    # branches: the fix would reject the very null it means to allow
    kind = {"oneOf": [{"type": "string", "maxLength": 3}, {"type": ["string", "null"]}]}
    parameters = {
        "type": "object",
        "additionalProperties": False,
        "properties": {"query": {"type": "string"}, "kind": kind},
        "required": ["query"],
    }
    path = write("tools.json", _strict_search(parameters))
    run_cli("lint", str(path), "-p", "openai-strict", "--fix", "--select", "JC021")
    schema = json.loads(path.read_text())["parameters"]
    assert schema["required"] == ["query", "kind"]
    assert schema["properties"]["kind"] == kind
