"""``jsoncontract lint`` end to end: every format on the bundled weak tool file, exit
codes, selection, configuration and the bad inputs of the issue."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

WEAK = "fixtures/lint/weak-tools.json"
SARIF_SCHEMA = json.loads(
    (Path(__file__).parents[1] / "reporters" / "sarif-schema-2.1.0.json").read_text()
)

Run = Callable[..., Any]


@pytest.mark.parametrize(
    ("fmt", "golden_name"),
    [
        ("text", "weak-tools.txt"),
        ("json", "weak-tools.json"),
        ("sarif", "weak-tools.sarif.json"),
        ("junit", "weak-tools.junit.xml"),
        ("github", "weak-tools.github.txt"),
    ],
)
def test_weak_tools_in_every_format(
    fmt: str, golden_name: str, run_cli: Run, in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    result = run_cli("lint", WEAK, "--format", fmt)
    assert result.code == 0, result.stderr  # warnings only; the default --fail-on is error
    output = result.stdout
    if fmt == "sarif":
        output = output.replace(_version(), "VERSION")
    golden(f"lint/{golden_name}", output)


def _version() -> str:
    from jsoncontract import __version__

    return __version__


def test_sarif_of_a_real_run_validates(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("lint", WEAK, "fixtures/tools", "--profile", "all", "--format", "sarif")
    log = json.loads(result.stdout)
    validator = jsonschema.Draft7Validator(
        SARIF_SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER
    )
    assert not list(validator.iter_errors(log))
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(r["help"]["markdown"].startswith(f"# {r['id']} ") for r in rules)
    assert all(r["helpUri"].endswith(f"docs/rules/{r['id']}.md") for r in rules)


def test_json_report_shape(run_cli: Run, in_repo: Path) -> None:
    report = json.loads(run_cli("lint", WEAK, "-f", "json").stdout)
    assert report["version"] == 1
    summary = report["summary"]
    assert summary["tools"] == 3 and summary["files"] == 1
    assert summary["findings"] == len(report["findings"])
    first = report["findings"][0]
    for key in ("code", "severity", "message", "path", "tool", "source", "rule", "profiles"):
        assert key in first
    assert set(first["source"]) == {"file", "line", "column"}


def test_fail_on_and_exit_codes(run_cli: Run, in_repo: Path) -> None:
    assert run_cli("lint", WEAK).code == 0
    assert run_cli("lint", WEAK, "--fail-on", "warning").code == 1
    assert run_cli("lint", WEAK, "--profile", "openai-strict").code == 1  # JC010 is an error
    assert run_cli("lint", "fixtures/tools", "--fail-on", "never", "-p", "all").code == 0


def test_select_and_ignore(run_cli: Run, in_repo: Path) -> None:
    only = json.loads(run_cli("lint", WEAK, "-f", "json", "--select", "closure").stdout)
    assert {f["code"] for f in only["findings"]} == {"JC020"}
    by_prefix = json.loads(run_cli("lint", WEAK, "-f", "json", "--select", "JC12").stdout)
    assert {f["code"] for f in by_prefix["findings"]} == {"JC120", "JC121", "JC122"}
    rest = json.loads(run_cli("lint", WEAK, "-f", "json", "--ignore", "JC020,descriptions").stdout)
    codes = {f["code"] for f in rest["findings"]}
    assert "JC020" not in codes and "JC054" not in codes and "JC110" in codes


def test_redirected_code_is_followed_with_a_warning(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("lint", WEAK, "-f", "json", "--select", "JC052")
    assert {f["code"] for f in json.loads(result.stdout)["findings"]} == {"JC020"}
    assert "JC052 is now JC020" in result.stderr


def test_unknown_rule_code_exits_2_with_the_closest(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("lint", WEAK, "--select", "JC02O")
    assert result.code == 2
    assert "unknown rule 'JC02O'; did you mean 'JC020'?" in result.stderr


def test_rule_outside_the_profiles_is_announced(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("lint", WEAK, "--select", "JC021")
    assert result.code == 0
    assert "JC021 (property-not-required) does not run in the profiles generic" in result.stderr


def test_several_profiles_in_one_run(run_cli: Run, in_repo: Path) -> None:
    report = json.loads(
        run_cli("lint", WEAK, "-f", "json", "--profile", "openai-strict,gemini").stdout
    )
    assert report["summary"]["profiles"] == ["openai-strict", "gemini"]
    by_code: dict[str, set[str]] = {}
    for finding in report["findings"]:
        by_code.setdefault(finding["code"], set()).update(finding["profiles"])
    assert by_code["JC021"] == {"openai-strict"}
    assert by_code["JC042"] == {"gemini"}
    assert by_code["JC020"] == {"openai-strict", "gemini"}
    severities = {f["code"]: f["severity"] for f in report["findings"]}
    assert severities["JC020"] == "error"  # the strictest profile wins


def test_mcp_version_changes_the_rules(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "tools.json",
        {
            "tools": [
                {
                    "name": "a/b",
                    "description": "Slash in the name.",
                    "inputSchema": {
                        "type": "object",
                        "properties": {"x": True},
                        "additionalProperties": False,
                    },
                }
            ]
        },
    )
    old = json.loads(
        run_cli("lint", str(path), "-p", "mcp", "--mcp-version", "2025-06-18", "-f", "json").stdout
    )
    new = json.loads(
        run_cli("lint", str(path), "-p", "mcp", "--mcp-version", "2026-07-28", "-f", "json").stdout
    )
    old_codes = {f["code"] for f in old["findings"]}
    new_codes = {f["code"] for f in new["findings"]}
    assert "JC050" in old_codes and "JC050" not in new_codes
    assert "JC012" not in old_codes and "JC012" in new_codes
    assert old["summary"]["mcp_version"] == "2025-06-18"


def test_limit_override(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "t.json",
        {
            "name": "probe",
            "description": "Probe tool for the tests.",
            "inputSchema": {"type": "object", "additionalProperties": False},
        },
    )
    tight = run_cli(
        "lint",
        str(path),
        "--limit",
        "descriptions.min_tool_description=40",
        "-f",
        "json",
        "--select",
        "JC140",
    )
    assert [f["code"] for f in json.loads(tight.stdout)["findings"]] == ["JC140"]
    bad = run_cli("lint", str(path), "--limit", "openai.max_dept=3")
    assert bad.code == 2 and "did you mean 'max_depth'?" in bad.stderr


def test_statistics_and_quiet(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("lint", WEAK, "--statistics", "--quiet")
    assert "JC020 [*] additional-properties-allowed" in result.stdout
    assert "fixtures/lint/weak-tools.json:" not in result.stdout


def test_output_file(run_cli: Run, in_repo: Path, tmp_path: Path) -> None:
    target = tmp_path / "report.sarif"
    result = run_cli("lint", WEAK, "-f", "sarif", "-o", str(target))
    assert result.stdout == "" and json.loads(target.read_text())["version"] == "2.1.0"


# -- configuration ---------------------------------------------------------------------


def _config(write: Callable[..., Path], text: str) -> Path:
    return write("jsoncontract.toml", text)


def test_config_section(run_cli: Run, write: Callable[..., Path], repo: Path) -> None:
    config = _config(
        write,
        f"""
tools = ["{repo / WEAK}"]
[lint]
profile = ["generic", "mcp"]
ignore = ["JC141"]
[lint.severity]
JC110 = "error"
closed-sets = "info"
[[lint.suppress]]
tool = "create_*"
rules = ["JC020", "JC054"]
reason = "generated by the legacy gateway; rewritten in v3"
[[lint.suppress]]
tool = "nothing_matches"
rules = "JC010"
reason = "kept to show unused suppressions"
""",
    )
    result = run_cli("lint", "--config", str(config), "-f", "json")
    report = json.loads(result.stdout)
    assert result.code == 1  # JC110 raised to error
    codes = {(f["code"], f["tool"]) for f in report["findings"]}
    assert ("JC020", "create_refund") not in codes and ("JC020", "tickets.update") in codes
    assert not any(code == "JC141" for code, _ in codes)
    severity = {f["code"]: f["severity"] for f in report["findings"]}
    assert severity["JC110"] == "error" and severity["JC101"] == "info"
    assert report["summary"]["suppressed"] == 2
    assert report["summary"]["unused_suppressions"][0]["tools"] == ["nothing_matches"]
    sarif = json.loads(run_cli("lint", "--config", str(config), "-f", "sarif").stdout)
    suppressed = [r for r in sarif["runs"][0]["results"] if "suppressions" in r]
    assert len(suppressed) == 2
    assert suppressed[0]["suppressions"][0]["justification"].startswith("generated by")


def test_suppression_by_path_and_pattern(
    run_cli: Run, write: Callable[..., Path], repo: Path
) -> None:
    config = _config(
        write,
        """
[[lint.suppress]]
tools = ["tickets.*", "nothing"]
rules = ["closure"]
path = "/properties/assignee"
reason = "the assignee object is extended by plugins"
""",
    )
    report = json.loads(
        run_cli("lint", str(repo / WEAK), "--config", str(config), "-f", "json").stdout
    )
    closure = [(f["tool"], f["schema_path"]) for f in report["findings"] if f["code"] == "JC020"]
    assert ("tickets.update", "#/properties/assignee") not in closure
    assert ("tickets.update", "#") in closure  # the root is outside the suppressed path
    assert report["summary"]["suppressed"] == 1


def test_lint_from_stdin(run_cli: Run, repo: Path) -> None:
    data = (repo / WEAK).read_bytes()
    result = run_cli("lint", "-", "-f", "json", "--select", "JC010", stdin=data)
    [finding] = json.loads(result.stdout)["findings"]
    assert finding["source"] == {"file": "-", "line": 4, "column": 7}
    assert run_cli("lint", "-", "--fix", stdin=data).code == 2


def test_suppression_needs_a_reason(run_cli: Run, write: Callable[..., Path], repo: Path) -> None:
    config = _config(write, '[lint]\n[[lint.suppress]]\ntool = "x"\nrules = ["JC020"]\n')
    result = run_cli("lint", str(repo / WEAK), "--config", str(config))
    assert result.code == 2 and "reason" in result.stderr


def test_unknown_code_in_config(run_cli: Run, write: Callable[..., Path], repo: Path) -> None:
    config = _config(write, '[lint]\nignore = ["JC0200"]\n')
    result = run_cli("lint", str(repo / WEAK), "--config", str(config))
    assert result.code == 2
    assert "unknown rule 'JC0200'; did you mean 'JC020'?" in result.stderr
    assert "jsoncontract.toml [lint] ignore" in result.stderr


def test_unknown_config_key(run_cli: Run, write: Callable[..., Path], repo: Path) -> None:
    config = _config(write, '[lint]\nprofiles = ["gemini"]\n')
    result = run_cli("lint", str(repo / WEAK), "--config", str(config))
    assert result.code == 2 and "did you mean 'profile'?" in result.stderr


def test_unknown_profile(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("lint", WEAK, "--profile", "openai")
    assert result.code == 2 and "unknown profile 'openai'" in result.stderr


# -- bad inputs --------------------------------------------------------------------------


def test_not_json_exits_2(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write("tools.json", '{"tools": [ {"name": "a",} ]}')
    result = run_cli("lint", str(path))
    assert result.code == 2
    assert "tools.json:1:" in result.stderr and "not JSON" in result.stderr


_UNWRITABLE = {
    "invalid UTF-8": (
        b'{"name": "t\xff", "description": "A tool for the tests.", "inputSchema": '
        b'{"type": "object", "properties": {"a": {"type": "string"}}}}',
        "1:2",
        "not valid UTF-8 (at /name)",
    ),
    "lone surrogate": (
        b'{"name": "t", "description": "A tool for the tests.", "inputSchema": '
        b'{"type": "object", "properties": {"a\\udcfe": {"type": "string"}}}}',
        "1:89",
        "key contains a lone UTF-16 surrogate",
    ),
    "NaN": (
        b'{"name": "t", "description": "A tool for the tests.", "inputSchema": '
        b'{"type": "object", "properties": {"a": {"type": "number", "maximum": NaN}}}}',
        "1:128",
        "NaN is not a JSON number (NaN and Infinity are not allowed) "
        "(at /inputSchema/properties/a/maximum)",
    ),
    "overflowing number": (
        b'{"name": "t", "description": "A tool for the tests.", "inputSchema": '
        b'{"type": "object", "properties": {"a": {"type": "number", "maximum": 1e999}}}}',
        "1:128",
        "overflows a double",
    ),
}


@pytest.mark.parametrize("case", sorted(_UNWRITABLE))
@pytest.mark.parametrize("command", ["lint", "lint --diff", "lint --fix", "pin"])
def test_values_no_parser_reads_the_same_exit_2(
    run_cli: Run, write: Callable[..., Path], case: str, command: str
) -> None:
    data, where, message = _UNWRITABLE[case]
    path = write("tools.json", data)
    args = [*command.split(), str(path)]
    if command == "pin":
        args += ["--lock", str(path.parent / "tools.lock")]
    result = run_cli(*args)
    assert result.code == 2, result.stderr
    assert f"tools.json:{where}: " in result.stderr and message in result.stderr
    assert "internal error" not in result.stderr
    assert path.read_bytes() == data


def test_a_finding_about_the_file_counts_no_tool(run_cli: Run, write: Callable[..., Path]) -> None:
    tool = (
        '{"name": "t_one", "description": "A tool for the tests.", '
        '"inputSchema": {"type": "object", "additionalProperties": false}}'
    )
    path = write("tools.json", '{"meta": 1, "meta": 2, "tools": [' + tool + "]}")
    result = run_cli("lint", str(path), "-f", "json")
    report = json.loads(result.stdout)
    assert [(f["code"], f.get("tool")) for f in report["findings"]] == [("JC150", None)]
    assert report["summary"]["tools"] == 1
    assert report["summary"]["tools_with_findings"] == 0


def test_unknown_dialect_exits_2(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write("tools.json", {"servers": [{"url": "https://example.com"}]})
    result = run_cli("lint", str(path))
    assert result.code == 2 and "not a tool definition in any known dialect" in result.stderr


def test_invalid_schema_is_a_located_finding(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "tools.json",
        {
            "name": "probe",
            "description": "Probe tool for the tests.",
            "inputSchema": {
                "type": "object",
                "properties": {"n": {"type": "int"}},
                "additionalProperties": False,
            },
        },
    )
    result = run_cli("lint", str(path), "-f", "json")
    assert result.code == 1
    finding = next(f for f in json.loads(result.stdout)["findings"] if f["code"] == "JC002")
    assert finding["path"] == "/inputSchema/properties/n/type"
    assert finding["source"]["line"] == 8 and finding["source"]["column"] == 9


def test_ref_cycle(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "tools.json",
        {
            "name": "probe",
            "description": "Probe tool for the tests.",
            "inputSchema": {
                "type": "object",
                "properties": {"a": {"$ref": "#/$defs/a"}},
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                "additionalProperties": False,
            },
        },
    )
    result = run_cli("lint", str(path), "-f", "json", "-p", "all")
    codes = [f["code"] for f in json.loads(result.stdout)["findings"]]
    assert "JC004" in codes and result.code == 1


def test_root_self_reference(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "tools.json",
        {
            "name": "probe",
            "description": "Probe tool for the tests.",
            "inputSchema": {"$ref": "#", "type": "object"},
        },
    )
    result = run_cli("lint", str(path), "-f", "json", "-p", "all")
    assert result.code == 1


def _nested(levels: int) -> str:
    return (
        '{"name": "deep", "description": "A deeply nested schema.", "inputSchema": '
        + '{"type": "object", "properties": {"a": ' * levels
        + "{}"
        + "}}" * levels
        + "}"
    )


def test_deep_nesting_within_the_parser_limit(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write("deep.json", _nested(300))
    result = run_cli("lint", str(path), "-f", "json", "-p", "all")
    codes = {f["code"] for f in json.loads(result.stdout)["findings"]}
    assert "JC007" in codes  # reported, not a crash
    assert result.code == 1  # JC026 (nesting over 10) for openai-strict


def test_ten_thousand_levels_exit_2(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write("deep.json", _nested(10_000))
    result = run_cli("lint", str(path))
    assert result.code == 2 and "too deep" in result.stderr
    assert "Traceback" not in result.stderr


def test_regex_that_does_not_compile(run_cli: Run, write: Callable[..., Path]) -> None:
    path = write(
        "tools.json",
        {
            "name": "probe",
            "description": "Probe tool for the tests.",
            "inputSchema": {
                "type": "object",
                "additionalProperties": False,
                "properties": {"q": {"type": "string", "pattern": "([a-z"}},
            },
        },
    )
    result = run_cli("lint", str(path), "-f", "json")
    findings = json.loads(result.stdout)["findings"]
    assert [f["code"] for f in findings if f["code"] in ("JC002", "JC008")] == ["JC008"]
    assert result.code == 1


def _catalog(count: int) -> bytes:
    tool = (
        '{"name": "tool_%d", "description": "Looks up one record of set %d by its id.", '
        '"inputSchema": {"type": "object", "properties": {"record_id": {"type": "string", '
        '"description": "The record.", "pattern": "^R[0-9]{6}$"}}, "required": ["record_id"], '
        '"additionalProperties": false}, "annotations": {"readOnlyHint": true}}'
    )
    return ('{"tools": [' + ",".join(tool % (i, i) for i in range(count)) + "]}").encode()


@pytest.mark.slow
def test_large_catalog_is_linear(write: Callable[..., Path]) -> None:
    from jsoncontract.lint import lint

    small = write("small.json", _catalog(5_000))
    large = write("large.json", _catalog(50_000))
    # CPU time: what another process on a shared machine disturbs least
    started = time.process_time()
    report = lint([small], profiles=["all"])
    small_time = time.process_time() - started
    started = time.process_time()
    report = lint([large], profiles=["all"])
    large_time = time.process_time() - started
    assert report.tools == 50_000
    # per tool: pattern is outside Gemini's list; per list: too many strict tools and tools
    assert {f.code for f in report.findings} == {"JC031", "JC042", "JC146"}
    assert large_time < small_time * 20  # linear (10x the tools), with slack for noise
