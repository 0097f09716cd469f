"""The pytest plugin: a plain ``pytest`` collects suite files, one item per case."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[2]
WEAK = REPO / "fixtures" / "suites" / "weak"


@pytest.fixture
def weak(pytester: pytest.Pytester) -> Path:
    """The weak example (tools and suite) copied into the pytester directory."""
    target = pytester.path / "weak"
    shutil.copytree(WEAK, target)
    return target


def test_suites_are_collected_one_item_per_case(pytester: pytest.Pytester, weak: Path) -> None:
    result = pytester.runpytest(
        "--collect-only", "-q", "--jsoncontract-tools", str(weak / "tools.json")
    )
    result.stdout.fnmatch_lines(
        [
            "weak/create_ticket.suite.json::valid",
            "weak/create_ticket.suite.json::missing-field:/title",
            "*19 tests collected*",
        ]
    )


def test_weaknesses_fail_with_the_runner_message(pytester: pytest.Pytester, weak: Path) -> None:
    pytester.makeini(f"[pytest]\njsoncontract_tools = {weak / 'tools.json'}\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=16, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*create_ticket › extra-field: contract weakness",
            "should fail at schema (schema.additionalProperties at /unexpected_field), but the "
            "contract accepts it",
            'hint: close the root object with "additionalProperties": false*',
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_select_by_tag_with_k(pytester: pytest.Pytester, weak: Path) -> None:
    result = pytester.runpytest(
        "-k", "missing-field", "--jsoncontract-tools", str(weak / "tools.json")
    )
    result.assert_outcomes(passed=2)


def test_tools_from_the_project_config(pytester: pytest.Pytester, weak: Path) -> None:
    pytester.makefile(".toml", jsoncontract='tools = ["weak/tools.json"]\n')
    result = pytester.runpytest("-k", "valid")
    result.assert_outcomes(passed=2)


def test_without_tools_the_file_is_a_collection_error(
    pytester: pytest.Pytester, weak: Path
) -> None:
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*no tool definitions for the suites: pass --jsoncontract-tools*"])


def test_an_invalid_suite_is_a_collection_error_with_its_location(
    pytester: pytest.Pytester, weak: Path
) -> None:
    (weak / "bad.suite.json").write_text(
        json.dumps({"version": 1, "tool": "x", "cases": [{"name": "a"}]})
    )
    result = pytester.runpytest("--jsoncontract-tools", str(weak / "tools.json"))
    result.stdout.fnmatch_lines(["*bad.suite.json:1:*case 1: missing member 'expect'*"])
    assert result.ret == pytest.ExitCode.INTERRUPTED


def test_a_suite_whose_tool_is_gone_fails_once(pytester: pytest.Pytester, weak: Path) -> None:
    other = pytester.path / "tools.json"
    other.write_text(json.dumps([{"name": "create_tickets", "input_schema": {"type": "object"}}]))
    result = pytester.runpytest("--jsoncontract-tools", str(other))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*which is not in the tool list; its 19 cases did not run*"])


def test_collection_can_be_turned_off(pytester: pytest.Pytester, weak: Path) -> None:
    pytester.makeini("[pytest]\njsoncontract_suites = false\n")
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_other_files_are_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makefile(".json", tools="[]")
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    result = pytester.runpytest()
    result.assert_outcomes(passed=1)


@pytest.fixture
def cel_loaded() -> None:
    """The CEL engine imported by this process first: an in-process pytester run restores
    ``sys.modules`` afterwards, and the engine's native module cannot be loaded twice."""
    from jsoncontract.business._cel import CelEnvironment

    CelEnvironment({})


@pytest.mark.usefixtures("cel_loaded")
def test_business_rules_come_from_the_project_config(pytester: pytest.Pytester) -> None:
    shutil.copy(WEAK / "tools.json", pytester.path / "tools.json")
    pytester.makefile(
        ".toml",
        jsoncontract='tools = ["tools.json"]\n\n[business]\nrules = ["rules.toml"]\n',
        rules=(
            "[[tools.create_ticket]]\n"
            'id = "known-priority"\n'
            "rule = \"self.priority in ['low', 'normal', 'high']\"\n"
            'fieldPath = "/priority"\n'
        ),
    )
    cases = [
        {"name": "ok", "expect": "ok", "arguments": {"title": "t", "priority": "low"}},
        {
            "name": "urgent",
            "expect": {"stage": "business", "code": "business.known-priority", "path": "/priority"},
            "arguments": {"title": "t", "priority": "urgent"},
        },
    ]
    (pytester.path / "tickets.suite.json").write_text(
        json.dumps({"version": 1, "tool": "create_ticket", "cases": cases})
    )
    result = pytester.runpytest()
    result.assert_outcomes(passed=2)


@pytest.mark.usefixtures("cel_loaded")
def test_a_broken_rules_file_is_a_collection_error(pytester: pytest.Pytester, weak: Path) -> None:
    pytester.makefile(
        ".toml",
        jsoncontract='tools = ["weak/tools.json"]\n\n[business]\nrules = ["rules.toml"]\n',
        rules='[[tools.create_ticket]]\nid = "x"\nrule = "self.priority <"\n',
    )
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*cannot load the business rules: *rules.toml:3:*CEL syntax*"])
