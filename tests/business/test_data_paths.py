"""A rules file's reference data stays inside its project, as a suite's captures do: an
absolute path, or one that climbs out with ``..``, is refused at load time (exit 2), and no
byte of the file outside is read."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import CliResult

Run = Callable[..., CliResult]


def _rules(where: Path, source: str) -> Path:
    rules = where / "rules.toml"
    rules.write_text(
        "version = 1\n"
        "[data.users]\n"
        f'csv = "{source}"\n'
        'column = "root:x:0:0:root:/root:/bin/bash"\n'
        "[[tools.lookup]]\n"
        'id = "leak"\n'
        'rule = "size(data.users) == 0"\n'
        "messageExpression = \"'read ' + string(size(data.users)) + ' lines'\"\n"
    )
    return rules


@pytest.mark.parametrize("source", ["/etc/passwd", "../../../../../../etc/passwd"])
def test_a_dataset_outside_the_project_is_refused(
    run_cli: Run, tmp_path: Path, source: str
) -> None:
    """Defect 8: the file was read, and a messageExpression printed its lines."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "jsoncontract.toml").write_text("")
    rules = _rules(project, source)
    tools = project / "tools.json"
    tools.write_text(json.dumps({"tools": [{"name": "lookup", "inputSchema": {"type": "object"}}]}))
    body = project / "body.json"
    body.write_text("{}")
    result = run_cli(
        "check", "--no-config", "-t", str(tools), "-r", str(rules), "--tool", "lookup", str(body)
    )
    assert result.code == 2, result.stdout
    assert "outside" in result.stderr, result.stderr
    assert "root:" not in result.stdout + result.stderr and "lines" not in result.stdout


def test_a_dataset_beside_its_rules_file_is_read(run_cli: Run, tmp_path: Path) -> None:
    (tmp_path / "jsoncontract.toml").write_text("")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "users.csv").write_text("id\nbob\n")
    rules = tmp_path / "rules.toml"
    rules.write_text(
        'version = 1\n[data.users]\ncsv = "data/users.csv"\ncolumn = "id"\n'
        '[[tools.lookup]]\nid = "known"\nrule = "self.id in data.users"\n'
        'message = "unknown user"\n'
    )
    tools = tmp_path / "tools.json"
    tools.write_text(json.dumps({"tools": [{"name": "lookup", "inputSchema": {"type": "object"}}]}))
    body = tmp_path / "body.json"
    body.write_text('{"id": "alice"}')
    result = run_cli(
        "check", "--no-config", "-t", str(tools), "-r", str(rules), "--tool", "lookup", str(body)
    )
    assert result.code == 1 and "unknown user" in result.stdout, result.stderr
