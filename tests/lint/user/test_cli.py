"""The project's own rules on the command line: ``[[lint.rules]]`` and ``--ruleset`` in
``lint`` and ``mcp lint``, their findings in every report, and the one line a broken rule
stops the run with (exit 2) before any tool file is read or any server started."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, CliResult

HOUSE = REPO / "fixtures" / "house"
TOOLS = str(HOUSE / "tools.json")
CONFIG = str(HOUSE / "jsoncontract.toml")
RULESET = str(HOUSE / "spectral.yaml")
PAGE = (REPO / "docs" / "writing-rules.md").read_text()

Run = Callable[..., CliResult]


def test_the_house_rules_of_the_config(run_cli: Run, in_repo: Path, golden: Any) -> None:
    result = run_cli("lint", "--config", "fixtures/house/jsoncontract.toml", "--select", "user")
    assert result.code == 1, result.stderr
    golden("lint/user/house-config.txt", result.stdout)
    assert result.stdout in PAGE  # what the page shows
    report = json.loads(
        run_cli("lint", "--config", CONFIG, "--select", "user", "-f", "json").stdout
    )
    found = {(f["code"], f["tool"], f["path"], f["severity"]) for f in report["findings"]}
    assert found == {
        ("write-without-idempotency-key", "create_ticket", "/0", "error"),
        ("tool-name-not-snake-case", "searchTickets", "/2", "error"),
        ("too-many-parameters", "searchTickets", "/2/function/parameters", "warning"),
        (
            "parameter-name-not-snake-case",
            "searchTickets",
            "/2/function/parameters/properties/createdAfter",
            "warning",
        ),
    }
    item = next(f for f in report["findings"] if f["code"] == "write-without-idempotency-key")
    assert item["rule"] == "write-without-idempotency-key"
    assert item["hint"].startswith("add a required idempotency_key")


def test_the_house_ruleset(run_cli: Run, in_repo: Path, golden: Any) -> None:
    args = ("lint", "fixtures/house/tools.json", "--no-config", "--select", "user")
    result = run_cli(*args, "--ruleset", "fixtures/house/spectral.yaml")
    assert result.code == 1, result.stderr
    golden("lint/user/house-ruleset.txt", result.stdout)
    assert result.stdout in PAGE


def test_user_rules_beside_the_catalog_in_every_format(run_cli: Run, in_repo: Path) -> None:
    base = ("lint", "--config", CONFIG, "--ruleset", RULESET)
    sarif = json.loads(run_cli(*base, "-f", "sarif").stdout)
    rules = {r["id"]: r for r in sarif["runs"][0]["tool"]["driver"]["rules"]}
    assert "JC141" in rules or any(k.startswith("JC") for k in rules)  # the catalog ran too
    mine = rules["write-without-idempotency-key"]
    assert mine["name"] == "write-without-idempotency-key"
    assert "user" in mine["properties"]["tags"]
    assert "fixtures/house/jsoncontract.toml" in mine["help"]["markdown"]
    assert "given = $" in mine["help"]["markdown"]
    assert rules["tool-name-snake-case"]["shortDescription"]["text"] == "Tool names are snake_case"
    github = run_cli(*base, "-f", "github").stdout
    assert "title=tool-name-snake-case tool-name-snake-case" in github
    junit = run_cli(*base, "-f", "junit").stdout
    assert "write-without-idempotency-key" in junit


def test_selected_ignored_relevelled_and_suppressed_by_code(run_cli: Run, tmp_path: Path) -> None:
    config = tmp_path / "jsoncontract.toml"
    config.write_text(
        (HOUSE / "jsoncontract.toml").read_text().replace('"tools.json"', json.dumps(TOOLS))
        + '\n[lint.severity]\n"too-many-parameters" = "error"\n'
        + '\n[[lint.suppress]]\nrules = ["tool-name-not-snake-case"]\ntool = "searchTickets"\n'
        + 'reason = "kept for the clients of version 1"\n'
    )

    def codes(*args: str) -> dict[str, str]:
        result = run_cli("lint", "--config", str(config), "-f", "json", *args)
        assert result.code in (0, 1), result.stderr
        return {f["code"]: f["severity"] for f in json.loads(result.stdout)["findings"]}

    assert set(codes("--select", "user")) == {
        "write-without-idempotency-key",
        "too-many-parameters",
        "parameter-name-not-snake-case",
    }
    assert codes("--select", "user")["too-many-parameters"] == "error"
    assert set(codes("--select", "too-many-parameters")) == {"too-many-parameters"}
    assert not any(c for c in codes("--ignore", "user") if not c.startswith("JC"))
    assert set(codes("--select", "JC020")) <= {"JC020"}


def test_a_value_the_expression_cannot_read_is_a_finding(run_cli: Run, tmp_path: Path) -> None:
    config = tmp_path / "jsoncontract.toml"
    config.write_text(
        f"tools = [{json.dumps(TOOLS)}]\n[[lint.rules]]\ncode = 'strict'\ngiven = '$.function'\n"
        "expr = 'self.strict == true'\n"
    )
    result = run_cli("lint", "--config", str(config), "--select", "user", "-f", "json")
    assert result.code == 1
    found = json.loads(result.stdout)["findings"]
    assert {f["path"] for f in found} == {"/0/function", "/1/function", "/2/function"}
    said = 'strict: the expression cannot be evaluated here: no such key: "strict"'
    assert all(f["message"] == said for f in found)
    assert all(f["hint"].startswith("guard what a value may lack with has()") for f in found)


BROKEN_RULES = {
    "CEL syntax": (
        "code = 'x'\ngiven = '$'\nexpr = 'tool.name =='",
        "[[lint.rules]] 1 ('x'): CEL syntax error at column 13",
    ),
    "CEL type": (
        "code = 'x'\ngiven = '$'\nexpr = 'tool.nme == \"a\"'",
        "[[lint.rules]] 1 ('x'): CEL type error at column 6: tool.nme: tool has no field "
        "'nme'; did you mean 'name'?",
    ),
    "not a bool": (
        "code = 'x'\ngiven = '$'\nexpr = 'size(tool.name)'",
        "[[lint.rules]] 1 ('x'): expr at column 1: it must give a bool, but it gives int",
    ),
    "undeclared": (
        "code = 'x'\ngiven = '$'\nexpr = 'slef.name == \"a\"'",
        "CEL type error at column 5: undeclared reference to 'slef.name'",
    ),
    "JSONPath": (
        "code = 'x'\ngiven = '$..properties[*'\nexpr = 'true'",
        "[[lint.rules]] 1 ('x'): given is not a JSONPath jsoncontract reads: expected , or ] "
        "at character 16 of '$..properties[*'",
    ),
    "a built-in code": (
        "code = 'JC020'\ngiven = '$'\nexpr = 'true'",
        "rule 'JC020': the code is a built-in rule's, family's or selector's",
    ),
}

BROKEN_RULESETS = {
    "unknown function": (
        "rules:\n  r:\n    given: $\n    then: {function: oasOpIdUnique}\n",
        "rule 'r': function 'oasOpIdUnique' is not a Spectral core function, and custom "
        "JavaScript functions are not run by jsoncontract",
    ),
    "custom functions": (
        "functions: [mine]\nrules: {}\n",
        "custom JavaScript functions (functions, functionsDir) are not run by jsoncontract",
    ),
    "JSONPath": (
        "rules:\n  r:\n    given: $.tools[?(@.x.foo())]\n    then: {function: truthy}\n",
        "rule 'r': given '$.tools[?(@.x.foo())]' is not a JSONPath jsoncontract reads: .foo() "
        "is not supported",
    ),
    "options": (
        "rules:\n  r:\n    given: $\n    then: {function: length, functionOptions: {mx: 3}}\n",
        'rule \'r\': functionOptions: "length" function does not support "mx" option',
    ),
    "options of a function that takes none": (
        "rules:\n  r:\n    given: $\n    then: {function: truthy, functionOptions: {a: 1}}\n",
        "rule 'r': functionOptions: \"truthy\" function does not accept any options",
    ),
    "a schema that is none": (
        "rules:\n  r:\n    given: $\n    then:\n      function: schema\n"
        "      functionOptions: {schema: {type: 12}}\n",
        "rule 'r': functionOptions: its schema is not a valid draft7 schema",
    ),
    "a URL": (
        "extends: https://example.com/ruleset.yaml\n",
        "jsoncontract never fetches a ruleset",
    ),
    "Spectral's OpenAPI ruleset": (
        "extends: [[spectral:oas, all]]\n",
        "Spectral's built-in rulesets lint OpenAPI, AsyncAPI and Arazzo documents",
    ),
    "formats": (
        "rules:\n  r:\n    given: $\n    formats: [oas3]\n    then: {function: truthy}\n",
        "rule 'r': formats selects OpenAPI, AsyncAPI or JSON Schema documents",
    ),
    "a message that runs JavaScript": (
        "rules:\n  r:\n    given: $\n    message: '#{{value.length}}'\n"
        "    then: {function: truthy}\n",
        "evaluates JavaScript",
    ),
    "an unknown severity": (
        "rules:\n  r:\n    given: $\n    severity: fatal\n    then: {function: truthy}\n",
        "rule 'r': unknown severity 'fatal'",
    ),
}


def _broken(tmp_path: Path, kind: str, body: str) -> tuple[str, ...]:
    if kind == "rules":
        config = tmp_path / "jsoncontract.toml"
        config.write_text(f"[[lint.rules]]\n{body}\n")
        return ("--config", str(config))
    ruleset = tmp_path / "ruleset.yaml"
    ruleset.write_text(body)
    return ("--no-config", "--ruleset", str(ruleset))


@pytest.mark.parametrize(
    ("kind", "body", "said"),
    [("rules", *v) for v in BROKEN_RULES.values()]
    + [("ruleset", *v) for v in BROKEN_RULESETS.values()],
    ids=[f"rules: {k}" for k in BROKEN_RULES] + [f"ruleset: {k}" for k in BROKEN_RULESETS],
)
def test_a_broken_rule_stops_lint_with_one_line(
    run_cli: Run, tmp_path: Path, kind: str, body: str, said: str
) -> None:
    result = run_cli("lint", TOOLS, *_broken(tmp_path, kind, body))
    assert result.code == 2
    assert said in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("kind", "body", "said"),
    [("rules", *BROKEN_RULES["CEL type"]), ("ruleset", *BROKEN_RULESETS["unknown function"])],
    ids=["rules", "ruleset"],
)
def test_a_broken_rule_stops_mcp_lint_before_the_server_starts(
    run_cli: Run, tmp_path: Path, kind: str, body: str, said: str
) -> None:
    started = tmp_path / "started"
    server = f"open({str(started)!r}, 'w').close()"
    result = run_cli(
        "mcp", "lint", *_broken(tmp_path, kind, body), "--", sys.executable, "-c", server
    )
    assert result.code == 2
    assert said in result.stderr
    assert not started.exists()


def test_a_ruleset_that_cannot_be_read_exits_2(run_cli: Run, tmp_path: Path) -> None:
    result = run_cli("lint", TOOLS, "--no-config", "--ruleset", str(tmp_path / "missing.yaml"))
    assert result.code == 2 and "missing.yaml" in result.stderr
    (tmp_path / "list.yaml").write_text("- a\n- b\n")
    result = run_cli("lint", TOOLS, "--no-config", "--ruleset", str(tmp_path / "list.yaml"))
    assert result.code == 2 and "a Spectral ruleset is an object" in result.stderr


def test_the_page_shows_the_rules_as_written() -> None:
    config = (HOUSE / "jsoncontract.toml").read_text()
    assert "[[lint.rules]]" + config.split("\n[[lint.rules]]", 1)[1] in PAGE
    rules = (HOUSE / "spectral.yaml").read_text().split("rules:\n", 1)[1]
    assert "rules:\n" + rules in PAGE
