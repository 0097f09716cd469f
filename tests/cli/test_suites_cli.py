"""``jsoncontract fixtures`` and ``jsoncontract test`` end to end: outputs, exit codes."""

from __future__ import annotations

import json
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

WEAK = ["--tools", "fixtures/suites/weak/tools.json", "fixtures/suites/weak"]
EXAMPLE = ["--tools", "fixtures/tools", "fixtures/suites/example"]


def _no_times(xml: str) -> str:
    return re.sub(r'time="[0-9.]+"', 'time="0"', xml)


def test_text_report_of_the_weak_tool(
    run_cli: Callable[..., Any], in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    result = run_cli("test", "--no-config", *WEAK)
    assert result.code == 1
    assert result.stderr == ""
    golden("suites-test-weak.txt", result.stdout)
    as_json = run_cli("test", "--no-config", "-f", "json", *WEAK)
    assert as_json.code == 1
    golden("suites-test-weak.json", json.dumps(json.loads(as_json.stdout), indent=2) + "\n")


def test_the_bundled_example_passes(run_cli: Callable[..., Any], in_repo: Path) -> None:
    result = run_cli("test", "--no-config", *EXAMPLE)
    assert result.code == 0, result.stdout
    assert result.stdout.endswith("89 cases in 4 suites: 89 passed\n")
    # one line per suite, in columns: tool, file, counts
    heads = result.stdout.splitlines()[:4]
    assert len({head.index(" passed") - len(head.split()[2]) for head in heads}) == 1
    assert len({head.index("fixtures/") for head in heads}) == 1


def test_a_run_pauses_the_cyclic_garbage_collector(
    run_cli: Callable[..., Any], in_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import gc

    from jsoncontract.suites.runner import SuiteRunner

    seen: list[bool] = []
    run_files = SuiteRunner.run_files

    def spy(self: SuiteRunner, *args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return run_files(self, *args, **kwargs)

    monkeypatch.setattr(SuiteRunner, "run_files", spy)
    assert gc.isenabled()
    assert run_cli("test", "--no-config", *EXAMPLE).code == 0
    assert seen == [False]
    assert gc.isenabled()  # restored when the command ends


def test_junit_report(
    run_cli: Callable[..., Any], in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    result = run_cli("test", "--no-config", "--format", "junit", *WEAK)
    assert result.code == 1
    root = ET.fromstring(result.stdout_bytes)  # well-formed XML
    assert root.tag == "testsuites"
    assert root.attrib["tests"] == "19" and root.attrib["failures"] == "3"
    suite = root.find("testsuite")
    assert suite is not None and suite.attrib["name"] == "create_ticket"
    failures = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert [c.attrib["name"] for c in failures] == [
        "extra-field",
        "extra-field:/metadata",
        "priority outside the closed set",
    ]
    first = failures[0].find("failure")
    assert first is not None and first.attrib["type"] == "accepted"
    assert first.text is not None and "hint: close the root object" in first.text
    golden("suites-test-weak.junit.xml", _no_times(result.stdout))


def test_junit_escapes_what_xml_cannot_carry(
    tmp_path: Path, run_cli: Callable[..., Any], in_repo: Path
) -> None:
    suite = {
        "version": 1,
        "tool": "create_ticket",
        "cases": [
            {
                "name": '<"odd" & \u0001 name>',
                "expect": {"stage": "parse", "code": "parse.truncated"},
                "text": '{"title": "\u0000"}',
            }
        ],
    }
    path = tmp_path / "odd.suite.json"
    path.write_text(json.dumps(suite))
    result = run_cli(
        "test",
        "--no-config",
        "-f",
        "junit",
        "--tools",
        "fixtures/suites/weak/tools.json",
        str(path),
    )
    assert result.code == 1
    root = ET.fromstring(result.stdout_bytes)
    case = next(root.iter("testcase"))
    assert case.attrib["name"] == '<"odd" & \\x01 name>'


def test_github_annotations(
    run_cli: Callable[..., Any], in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    result = run_cli("test", "--no-config", "--format", "github", *WEAK)
    assert result.code == 1
    *annotations, totals = result.stdout.splitlines()
    assert len(annotations) == 3 and all(a.startswith("::error file=") for a in annotations)
    assert "%0Ahint: " in annotations[0]
    # the totals as check writes them: a plain line, plurals right
    assert totals == "jsoncontract test: 19 cases in 1 suite, 16 passed, 3 weaknesses"
    one = run_cli("test", "--no-config", "-f", "github", "-k", "valid.mcp", *WEAK)
    assert one.code == 0 and one.stdout == "jsoncontract test: 1 case in 1 suite, 1 passed\n"
    golden("suites-test-weak.github.txt", result.stdout)


def test_json_report(run_cli: Callable[..., Any], in_repo: Path) -> None:
    result = run_cli("test", "--no-config", "--format", "json", *WEAK)
    assert result.code == 1
    report = json.loads(result.stdout)
    assert report["version"] == 1
    assert report["summary"]["cases"] == 19 and report["summary"]["weaknesses"] == 3
    assert report["summary"]["by_mismatch"] == {"accepted": 3}
    assert report["summary"]["by_tool"] == {
        "create_ticket": {"cases": 19, "passed": 16, "failed": 0, "weaknesses": 3, "skipped": 0,
                          "errors": 0},
    }  # fmt: skip
    passed = report["results"][0]
    assert (passed["ok"], passed["code"], passed["severity"]) == (True, None, None)
    weak = [r for r in report["results"] if r["status"] == "weakness"]
    assert weak[0] == {
        "ok": False,
        "tool": "create_ticket",
        "case": "extra-field",
        "status": "weakness",
        "mismatch": "accepted",
        "code": "suite.accepted",
        "severity": "error",
        "message": "should fail at schema (schema.additionalProperties at /unexpected_field), "
        "but the contract accepts it",
        "source": {"file": "fixtures/suites/weak/create_ticket.suite.json",
                   "line": weak[0]["source"]["line"]},
        "tags": ["generated", "extra-field"],
        "expected": {"stage": "schema", "keyword": "additionalProperties",
                     "path": "/unexpected_field"},
        "actual": {"stage": None, "tool": "create_ticket", "hop": "model", "findings": [],
                   "fields": ["customer_email", "metadata", "priority", "title",
                              "unexpected_field"]},
        "hint": 'close the root object with "additionalProperties": false; or, if the input is '
        "acceptable, make the case expect ok (--update)",
    }  # fmt: skip


def test_select_and_fail_on(run_cli: Callable[..., Any], in_repo: Path) -> None:
    result = run_cli("test", "--no-config", "-q", "-k", "missing-field", *WEAK)
    assert result.code == 0
    assert result.stdout.endswith("2 cases in 1 suite: 2 passed\n")
    assert run_cli("test", "--no-config", "-q", "--fail-on", "never", *WEAK).code == 0
    bad = run_cli("test", "--no-config", "-k", "a and", *WEAK)
    assert bad.code == 2
    assert bad.stderr == "jsoncontract: error: -k: 'a and' ends too early\n"


def test_a_run_that_tests_nothing_is_exit_2(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    result = run_cli("test", "--no-config", "-k", "nomatch", *EXAMPLE)
    assert result.code == 2 and result.stdout == ""
    assert result.stderr == (
        "jsoncontract: error: -k 'nomatch' selects no case in 4 suite files; nothing was tested\n"
    )
    (tmp_path / "t.suite.json").write_text('{"version": 1, "tool": "get_weather", "cases": []}')
    empty = run_cli("test", "--no-config", "--tools", "fixtures/tools", str(tmp_path))
    assert empty.code == 2
    assert empty.stderr == (
        "jsoncontract: error: the suite file holds no case; nothing was tested\n"
    )


def test_update_rewrites_and_shows_what_changed(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    shutil.copytree("fixtures/suites/weak", tmp_path / "weak")
    args = ["--tools", str(tmp_path / "weak" / "tools.json"), str(tmp_path / "weak")]
    result = run_cli("test", "--no-config", "--update", *args)
    assert result.code == 0
    assert (
        "updated create_ticket priority outside the closed set: fail at schema (schema.enum "
        "at /priority) -> pass"
    ) in result.stdout
    assert "3 expectations rewritten in 1 suite file" in result.stdout
    # the report shows the state after the rewrite, not the weaknesses it started from
    assert "WEAK" not in result.stdout
    assert result.stdout.startswith(f"create_ticket  {tmp_path / 'weak'}/create_ticket.suite.json")
    assert result.stdout.splitlines()[0].endswith("  19 passed")
    assert result.stdout.endswith("19 cases in 1 suite: 19 passed\n")
    again = run_cli("test", "--no-config", "-q", *args)
    assert again.code == 0 and again.stdout.endswith("19 cases in 1 suite: 19 passed\n")


def test_a_suite_for_a_tool_that_is_gone(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    shutil.copy("fixtures/suites/weak/create_ticket.suite.json", tmp_path)
    result = run_cli("test", "--no-config", "--tools", "fixtures/tools", str(tmp_path))
    assert result.code == 1
    assert (
        "the suite is for tool 'create_ticket', which is not in the tool list; its 19 cases "
        "did not run"
    ) in result.stdout
    assert "known tools: get_weather, update_shipment, searchInvoices, read_file" in result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["test", "fixtures/suites/weak"], "no tool definitions: pass --tools PATH"),
        (["test", "--tools", "fixtures/tools", "nowhere"], "nowhere: no such file or directory"),
        (["fixtures", "--tools", "missing.json", "out"], "missing.json: no such file or directory"),
    ],
)
def test_bad_usage_is_exit_2(
    run_cli: Callable[..., Any], in_repo: Path, args: list[str], message: str
) -> None:
    result = run_cli(*args[:1], "--no-config", *args[1:])
    assert result.code == 2
    assert message in result.stderr and result.stderr.count("\n") == 1


def test_fixtures_needs_a_suite_directory(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = str(in_repo / "fixtures" / "tools")
    monkeypatch.chdir(tmp_path)
    result = run_cli("fixtures", "--no-config", "--tools", tools)
    assert result.code == 2 and list(tmp_path.iterdir()) == []
    assert result.stderr == (
        "jsoncontract: error: no suite directory given: name it (jsoncontract fixtures --tools "
        "PATH SUITE_DIR), or set suite_dir under [fixtures] in jsoncontract.toml\n"
    )
    (tmp_path / "taken").write_text("data\n")
    file = run_cli("fixtures", "--no-config", "--tools", tools, "taken")
    assert file.code == 2 and (tmp_path / "taken").read_text() == "data\n"
    assert file.stderr == (
        "jsoncontract: error: taken is not a directory: the suites are written into one, a "
        "<tool>.suite.json file per tool\n"
    )
    under = run_cli("fixtures", "--no-config", "--tools", tools, "taken/suites")
    assert under.code == 2
    assert under.stderr == (
        "jsoncontract: error: cannot create taken/suites: taken is not a directory\n"
    )


def test_an_invalid_suite_file_is_exit_2_with_its_location(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    path = tmp_path / "bad.suite.json"
    path.write_text('{"version": 1, "tool": "t",\n "cases": [{"name": "x", "expect": "ok"}]}\n')
    result = run_cli("test", "--no-config", "--tools", "fixtures/tools", str(path))
    assert result.code == 2
    assert result.stderr == (
        f"jsoncontract: error: {path}:2:12: case 1 needs exactly one input: arguments, text, "
        "capture or capture_file (it has: none)\n"
    )


def test_fixtures_report_and_check(
    run_cli: Callable[..., Any], in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    result = run_cli(
        "fixtures", "--no-config", "--check", "--tools", "fixtures/tools", "fixtures/suites/example"
    )
    assert result.code == 0, result.stdout
    golden("suites-fixtures-example.txt", result.stdout)
    as_json = run_cli("fixtures", "--no-config", "--check", "-f", "json", *EXAMPLE)
    assert as_json.code == 0
    golden("suites-fixtures-example.json", json.dumps(json.loads(as_json.stdout), indent=2) + "\n")


def test_fixtures_generate_then_test(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    out = tmp_path / "suites"
    result = run_cli("fixtures", "--no-config", "-f", "json", "--tools", "fixtures/tools", str(out))
    assert result.code == 0
    report = json.loads(result.stdout)
    assert report["summary"]["suites_changed"] == 4 and report["summary"]["errors"] == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "get_weather.suite.json",
        "read_file.suite.json",
        "searchInvoices.suite.json",
        "update_shipment.suite.json",
    ]
    check = run_cli("fixtures", "--no-config", "--check", "--tools", "fixtures/tools", str(out))
    assert check.code == 0
    assert run_cli("test", "--no-config", "-q", "--tools", "fixtures/tools", str(out)).code == 0
    (out / "read_file.suite.json").unlink()
    stale = run_cli("fixtures", "--no-config", "--check", "--tools", "fixtures/tools", str(out))
    assert stale.code == 1 and "1 would change" in stale.stdout


def test_fixtures_for_a_schema_without_instances(
    run_cli: Callable[..., Any], write: Callable[..., Path], tmp_path: Path
) -> None:
    tools = write("tools.json", [{"name": "never", "input_schema": {"type": "object", "not": {}}}])
    result = run_cli("fixtures", "--no-config", "--tools", str(tools), str(tmp_path / "s"))
    assert result.code == 1
    assert (
        "never  no suite: no valid instance: `not: {}` forbids every value (at #)" in result.stdout
    )


def test_fixtures_names_capture_calls_it_cannot_record_by_line(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    args = ["--tools", "fixtures/tools", "--kind", "valid", str(tmp_path / "s")]
    capture = ["--capture", "fixtures/captures/trace.jsonl"]
    result = run_cli("fixtures", "--no-config", *args, *capture)
    assert result.code == 1
    errors = [line for line in result.stdout.splitlines() if line.startswith(("error", "  hint"))]
    assert errors == [
        "error: fixtures/captures/trace.jsonl:6: line 6 is not JSON: the text is not JSON at all "
        "(it starts with '2025-10-31T10:21:07.512Z WARN  gateway.p'); no regression case was "
        "written",
        "  hint: this is not a payload; check what was captured here",
        "error: fixtures/captures/trace.jsonl:13: tool 'update_shipmnt' is not in the tool list; "
        "no regression case was written",
        "  hint: did you mean 'update_shipment'?",
    ]
    assert "None" not in result.stdout
    report = json.loads(run_cli("fixtures", "--no-config", "-f", "json", *args, *capture).stdout)
    assert [(f["code"], f["severity"], f["source"]) for f in report["findings"]] == [
        ("parse.invalid_json", "error", {"file": "fixtures/captures/trace.jsonl", "line": 6}),
        ("envelope.unknown_tool", "error", {"file": "fixtures/captures/trace.jsonl", "line": 13}),
    ]
    assert report["findings"][1]["tool"] == "update_shipmnt"
    assert report["summary"]["errors"] == 2 and "notes" not in report


def test_fixtures_json_problems_are_findings(
    run_cli: Callable[..., Any], write: Callable[..., Path], tmp_path: Path
) -> None:
    tools = write(
        "tools.json",
        [
            {"name": "never", "input_schema": {"type": "object", "not": {}}},
            {
                "name": "fine",
                "input_schema": {"type": "object", "properties": {"a": {"enum": [1]}}},
            },
        ],
    )
    out = str(tmp_path / "s")
    check = run_cli("fixtures", "--no-config", "--check", "-f", "json", "-t", str(tools), out)
    assert check.code == 1
    findings = json.loads(check.stdout)["findings"]
    assert findings == [
        {
            "code": "fixtures.cannot_generate",
            "severity": "error",
            "message": "no valid instance: `not: {}` forbids every value (at #)",
            "path": "",
            "tool": "never",
            "source": {"file": str(tools), "line": 2},
            "hint": "no call can pass this schema: fix the contract",
        },
        {
            "code": "fixtures.out_of_date",
            "severity": "error",
            "message": "the suite file does not exist yet (8 cases to write)",
            "path": "",
            "tool": "fine",
            "source": {"file": str(tmp_path / "s" / "fine.suite.json")},
            "hint": "run jsoncontract fixtures without --check, and commit the suite",
        },
    ]
    assert run_cli("fixtures", "--no-config", "-q", "-t", str(tools), out).code == 1
    (tmp_path / "s" / "fine.suite.json").write_text(
        '{"version": 1, "tool": "fine", "cases": [{"name": "valid", "expect": "ok", '
        '"arguments": {}, "generated": "000000000000"}]}'
    )
    again = run_cli("fixtures", "--no-config", "--check", "-f", "json", "-t", str(tools), out)
    assert json.loads(again.stdout)["findings"][1]["message"] == (
        "the suite would change: 5 added, 1 kept as edited"
    )


def test_config_section(
    run_cli: Callable[..., Any],
    write: Callable[..., Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shutil.copy(
        Path(__file__).resolve().parents[2] / "fixtures" / "tools" / "anthropic.json", tmp_path
    )
    write(
        "jsoncontract.toml",
        'tools = ["anthropic.json"]\n[fixtures]\nsuite_dir = "suites"\nseed = 3\n'
        'kinds = ["valid", "missing-field"]\n[test]\nformat = "json"\n',
    )
    monkeypatch.chdir(tmp_path)
    assert run_cli("fixtures").code == 0
    suite = json.loads((tmp_path / "suites" / "get_weather.suite.json").read_text())
    assert suite["seed"] == 3
    assert {c["tags"][1] for c in suite["cases"]} == {"valid", "missing-field"}
    result = run_cli("test")
    assert result.code == 0 and json.loads(result.stdout)["summary"]["failed"] == 0
    assert result.stderr == ""
    # the old name of [test] format still works, with a warning; both at once is an error
    write("jsoncontract.toml", 'tools = ["anthropic.json"]\n[fixtures]\nsuite_dir = "suites"\n'
          'test_format = "json"\n')  # fmt: skip
    old = run_cli("test")
    assert old.code == 0 and json.loads(old.stdout)["summary"]["failed"] == 0
    assert old.stderr == (
        f"jsoncontract: warning: {tmp_path / 'jsoncontract.toml'}: [fixtures] test_format is "
        "the old name of [test] format; it still works, but move it\n"
    )
    write("jsoncontract.toml", '[fixtures]\ntest_format = "json"\n[test]\nformat = "text"\n')
    both = run_cli("test")
    assert both.code == 2 and "sets both [test] format and [fixtures] test_format" in both.stderr
    write("jsoncontract.toml", '[fixtures]\nsuit_dir = "x"\n')
    bad = run_cli("test")
    assert bad.code == 2 and "did you mean 'suite_dir'?" in bad.stderr


def _business_suite(tmp_path: Path) -> Path:
    first = {
        "order_id": "ORD-330914",
        "priority": "overnight",
        "idempotency_key": "shp-330914-ovn-01",
    }
    second = {**first, "notify_customer": True}
    frame = {"jsonrpc": "2.0", "method": "tools/call"}
    suite = {
        "version": 1,
        "tool": "searchInvoices",
        "cases": [
            {
                "name": "dates reversed",
                "expect": {"stage": "business", "code": "business.date-order", "path": "/endDate"},
                "arguments": {"startDate": "2025-03-01", "endDate": "2025-02-01"},
            }
        ],
    }
    retry = {
        "version": 1,
        "tool": "update_shipment",
        "cases": [
            {  # the same key with other arguments, within one capture: a conflict
                "name": "key reused with other arguments",
                "call": 1,
                "expect": {
                    "stage": "business",
                    "code": "business.idempotency.conflict",
                    "path": "/idempotency_key",
                },
                "capture": [
                    {**frame, "id": 1, "params": {"name": "update_shipment", "arguments": first}},
                    {**frame, "id": 2, "params": {"name": "update_shipment", "arguments": second}},
                ],
            },
            {  # the same key again in another case: each case starts with fresh trace state
                "name": "the key alone",
                "hop": "mcp",
                "expect": "ok",
                "arguments": second,
            },
        ],
    }
    (tmp_path / "searchInvoices.suite.json").write_text(json.dumps(suite))
    (tmp_path / "update_shipment.suite.json").write_text(json.dumps(retry))
    return tmp_path


def test_business_rules_and_fresh_trace_state_per_case(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    suites = str(_business_suite(tmp_path))
    with_rules = run_cli(
        "test", "--no-config", "-q", "--tools", "fixtures/tools",
        "--rules", "fixtures/rules/shipping.toml", "-k", "not alone", suites,
    )  # fmt: skip
    assert with_rules.code == 0, with_rules.stdout
    # without the rules file, the date rule cannot fire: a weakness, and the hint says why
    without = run_cli("test", "--no-config", "--tools", "fixtures/tools", suites)
    assert without.code == 1
    assert "WEAK  dates reversed" in without.stdout
    assert "hint: the business rule did not fire" in without.stdout
    assert "the key alone" not in without.stdout  # passed: no state leaked from the other case


def test_business_rules_contribute_generated_cases(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path
) -> None:
    rules = ["--rules", "fixtures/rules/shipping.toml"]
    args = ["--no-config", "--tools", "fixtures/tools", *rules]
    out = tmp_path / "suites"
    assert run_cli("fixtures", *args, "--kind", "valid", "--kind", "business", str(out)).code == 0
    search = json.loads((out / "searchInvoices.suite.json").read_text())
    cases = {c["name"]: c for c in search["cases"]}
    assert cases["business:date-order"]["expect"] == {
        "stage": "business",
        "code": "business.date-order",
        "path": "/endDate",
    }
    assert cases["business:date-order"]["arguments"]["endDate"] == "2024-01-14"  # a day early
    # and the rule silent, on the other side of its line: a day late
    assert cases["business-ok:date-order"]["expect"] == "ok"
    assert cases["business-ok:date-order"]["arguments"]["endDate"] == "2024-01-16"
    names = [c["name"] for c in search["cases"]]
    assert names.index("business-ok:date-order") == names.index("business:date-order") + 1
    assert "business:date-range-max-31-days" in cases
    assert "business-ok:date-range-max-31-days" in cases
    # the generated order does not exist, so the rules about orders cannot be broken from
    # it: edit the valid case to a real, open order, and regenerate
    path = out / "update_shipment.suite.json"
    shipment = json.loads(path.read_text())
    assert "business:order-exists" not in {c["name"] for c in shipment["cases"]}
    shipment["cases"][0]["arguments"]["order_id"] = "ORD-120775"
    shipment["cases"][0]["arguments"]["declared_value"]["currency"] = "EUR"
    path.write_text(json.dumps(shipment))
    assert run_cli("fixtures", *args, "--kind", "valid", "--kind", "business", str(out)).code == 0
    names = [c["name"] for c in json.loads(path.read_text())["cases"]]
    assert "business:order-exists" in names
    # a shipped order would break order-still-open, but finding one takes the reference
    # data, not one change of the valid instance: that case stays for a person to write
    assert "business:order-still-open" not in names
    # every rule holds somewhere: on a change at its field, or on the valid instance
    rules = ("order-exists", "order-still-open", "expedited-needs-ops", "declared-amount-positive",
             "declared-currency-known", "postal-code-format")  # fmt: skip
    assert {f"business-ok:{r}" for r in rules} <= set(names)
    result = run_cli("test", *args, str(out))
    assert result.code == 0, result.stdout


def test_sarif_report(
    run_cli: Callable[..., Any], in_repo: Path, golden: Callable[[str, str], None]
) -> None:
    import jsonschema

    result = run_cli("test", "--no-config", "--format", "sarif", *WEAK)
    assert result.code == 1
    log = json.loads(result.stdout)
    schema = json.loads((Path("tests") / "reporters" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.validators.validator_for(schema)(schema).validate(log)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["suite.accepted"] * 3
    location = results[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "fixtures/suites/weak/create_ticket.suite.json"
    assert location["region"]["startLine"] == 152
    rules = {r["id"] for r in log["runs"][0]["tool"]["driver"]["rules"]}
    assert {"suite.accepted", "suite.wrong_reason", "suite.tool_missing"} <= rules
    log["runs"][0]["tool"]["driver"]["version"] = "X"
    log["runs"][0]["tool"]["driver"]["semanticVersion"] = "X"
    golden("suites-test-weak.sarif.json", json.dumps(log, indent=2) + "\n")


@pytest.mark.parametrize("where", ["/etc/passwd", "../../../../../../../../etc/passwd"])
def test_a_capture_file_outside_the_project_is_refused(
    run_cli: Callable[..., Any], in_repo: Path, tmp_path: Path, where: str
) -> None:
    suite = tmp_path / "project" / "suites" / "t.suite.json"
    suite.parent.mkdir(parents=True)
    (tmp_path / "project" / "pyproject.toml").write_text("")
    suite.write_text(
        json.dumps(
            {
                "version": 1,
                "tool": "get_weather",
                "cases": [{"name": "x", "expect": "ok", "capture_file": where}],
            }
        )
    )
    result = run_cli("test", "--no-config", "--tools", "fixtures/tools", str(suite))
    assert result.code == 2
    assert "is outside the suite's project" in result.stderr
    assert "root:" not in result.stdout + result.stderr
