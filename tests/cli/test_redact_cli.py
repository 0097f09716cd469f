"""``jsoncontract redact``: captures rewritten with every secret replaced by a stand-in of
the same length and kind, so that check, diff and test give the same verdicts on them; and
``--check``, which exits 1 while a capture still holds a secret."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

Run = Callable[..., Any]

KEY = "sk-" + "proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8t"
AWS = "AKIA" + "IOSFODNN7EXAMPLE"
SCHEMA = {
    "type": "object",
    "properties": {
        "api_key": {"type": "string", "pattern": "^sk-[A-Za-z0-9_-]{20,}$", "maxLength": 60},
        "email": {"type": "string", "format": "email"},
        "pin": {"type": "integer", "minimum": 1000, "maximum": 9999},
        "note": {"type": "string", "maxLength": 40},
        "mode": {"type": "string", "enum": ["fast", "slow"]},
    },
    "required": ["api_key", "mode"],
    "additionalProperties": False,
}
TOOLS = [{"type": "function", "function": {"name": "connect", "parameters": SCHEMA}}]
CALLS = [
    {"api_key": KEY, "email": "ops@example.com", "pin": 4321, "mode": "fast"},
    {"api_key": "sk-short", "mode": "fast"},  # fails the pattern
    {"api_key": KEY, "email": "not-an-email", "mode": "slow"},  # fails the format
    {"api_key": KEY, "pin": 123456, "mode": "fast"},  # fails the maximum
    {"api_key": KEY, "note": f"rotate {AWS} soon", "mode": "slow"},
    {"api_key": KEY, "note": f"rotate {AWS} soon, the old one is leaking", "mode": "fast"},
    {"api_key": KEY, "mode": "medium"},  # fails the enum
]


def _line(index: int, arguments: dict[str, Any]) -> str:
    call = {"id": f"c{index}", "type": "function",
            "function": {"name": "connect", "arguments": json.dumps(arguments)}}  # fmt: skip
    headers = [{"name": "Authorization", "value": f"Bearer {KEY}"}]
    return json.dumps({"role": "assistant", "tool_calls": [call], "headers": headers})


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "tools.json").write_text(json.dumps(TOOLS))
    lines = [_line(i, a) for i, a in enumerate(CALLS)]
    (tmp_path / "trace.jsonl").write_text("\n".join(lines) + "\n")
    whole = {"role": "assistant", "tool_calls": [json.loads(_line(9, CALLS[0]))["tool_calls"][0]]}
    (tmp_path / "call.json").write_text(json.dumps(whole, indent=2) + "\n")
    return tmp_path


def _verdicts(run_cli: Run, tools: Path, *captures: Path) -> list[Any]:
    result = run_cli(
        "check", "--no-config", "--tools", str(tools), "-f", "json", *map(str, captures)
    )
    assert result.code in (0, 1), result.stderr
    report = json.loads(result.stdout)
    return [
        (
            Path(r["source"]["file"]).name,
            r["source"].get("line"),
            r["ok"],
            r["stage"],
            sorted((f["code"], f.get("path"), f.get("keyword")) for f in r["findings"]),
        )
        for r in report["results"]
    ]


def test_check_gives_the_same_verdicts_on_the_redacted_trace(run_cli: Run, project: Path) -> None:
    out = project / "shared"
    result = run_cli(
        "redact", str(project / "trace.jsonl"), str(project / "call.json"), "-o", str(out)
    )
    assert result.code == 0, result.stderr
    before = _verdicts(
        run_cli, project / "tools.json", project / "trace.jsonl", project / "call.json"
    )
    after = _verdicts(run_cli, project / "tools.json", out / "trace.jsonl", out / "call.json")
    assert after == before
    assert [v[2] for v in before] == [True, False, False, False, True, False, False, True]
    text = (out / "trace.jsonl").read_text() + (out / "call.json").read_text()
    assert KEY not in text and AWS not in text and "ops@example.com" not in text
    # lines, members and their order are kept
    assert (out / "call.json").read_text().count("\n") == (project / "call.json").read_text().count(
        "\n"
    )


def test_the_report_names_secrets_by_kind_hash_and_place_only(run_cli: Run, project: Path) -> None:
    result = run_cli("redact", str(project / "trace.jsonl"), "-o", str(project / "out.jsonl"))
    assert result.code == 0
    assert KEY not in result.stdout and AWS not in result.stdout
    assert f"{project / 'trace.jsonl'}:5: aws-access-key-id sha256:" in result.stdout
    assert "at /tool_calls/0/function/arguments/note[7:27]" in result.stdout
    as_json = run_cli(
        "redact", str(project / "trace.jsonl"), "-o", str(project / "o.jsonl"), "-f", "json"
    )
    report = json.loads(as_json.stdout)
    assert list(report)[:2] == ["version", "summary"]
    assert report["summary"]["secrets"] == len(report["files"][0]["secrets"]) > 0


def test_check_mode_exits_1_until_the_trace_is_redacted(run_cli: Run, project: Path) -> None:
    trace = project / "trace.jsonl"
    before = trace.read_bytes()
    dirty = run_cli("redact", "--check", str(trace))
    assert dirty.code == 1
    assert trace.read_bytes() == before  # --check writes nothing
    assert KEY not in dirty.stdout
    assert run_cli("redact", str(trace), "-o", str(trace)).code == 0  # in place
    clean = run_cli("redact", "--check", str(trace))
    assert clean.code == 0 and clean.stdout == "no secret in 1 file\n"
    again = trace.read_bytes()
    assert run_cli("redact", str(trace), "-o", str(trace)).code == 0
    assert trace.read_bytes() == again  # a stand-in is its own stand-in


def test_stand_ins_are_stable_across_files_and_runs(run_cli: Run, project: Path) -> None:
    one, two = project / "a.jsonl", project / "b.jsonl"
    assert run_cli("redact", str(project / "trace.jsonl"), "-o", str(one)).code == 0
    assert run_cli("redact", str(project / "trace.jsonl"), "-o", str(two)).code == 0
    assert one.read_bytes() == two.read_bytes()


def test_diff_gives_the_same_verdicts_on_redacted_traces(
    run_cli: Run, in_repo: Path, tmp_path: Path
) -> None:
    shutil.copy("fixtures/diff/trace.jsonl", tmp_path / "trace.jsonl")
    assert (
        run_cli("redact", str(tmp_path / "trace.jsonl"), "-o", str(tmp_path / "r.jsonl")).code == 0
    )
    args = ["diff", "--no-config", "--tools", "fixtures/tools", "-f", "json", "--trace"]
    before = json.loads(run_cli(*args, str(tmp_path / "trace.jsonl")).stdout)
    after = json.loads(run_cli(*args, str(tmp_path / "r.jsonl")).stdout)
    assert after["summary"] == before["summary"]


def test_test_gives_the_same_verdicts_on_redacted_suites(run_cli: Run, project: Path) -> None:
    suite = {
        "version": 1,
        "tool": "connect",
        "cases": [
            {"name": "ok", "expect": "ok", "arguments": CALLS[0]},
            {"name": "short key", "expect": {"stage": "schema", "keyword": "pattern"},
             "arguments": CALLS[1]},
            {"name": "bad email", "expect": {"stage": "schema", "keyword": "format"},
             "arguments": CALLS[2]},
            {"name": "capture", "expect": "ok", "capture_file": "../call.json"},
        ],
    }  # fmt: skip
    suites = project / "suites"
    suites.mkdir()
    (suites / "connect.suite.json").write_text(json.dumps(suite, indent=2))
    out = project / "redacted"
    assert run_cli("redact", str(suites), "-o", str(out)).code == 0
    assert run_cli("redact", str(project / "call.json"), "-o", str(out / "call.json")).code == 0
    run = ["test", "--no-config", "--tools", str(project / "tools.json"), "-f", "json"]
    before = json.loads(run_cli(*run, str(suites)).stdout)
    after = json.loads(run_cli(*run, str(out / "suites")).stdout)
    assert after["summary"] == before["summary"]
    assert KEY not in (out / "suites" / "connect.suite.json").read_text()


def test_redact_needs_an_output_unless_checking(run_cli: Run, project: Path) -> None:
    result = run_cli("redact", str(project / "trace.jsonl"))
    assert result.code == 2 and "-o FILE" in result.stderr


def test_the_readme_commands_run_as_written(
    run_cli: Run, in_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import re
    import shlex

    section = (in_repo / "docs" / "commands" / "redact.md").read_text()
    commands = re.search(r"```sh\n(.*?)```", section, re.DOTALL)
    shown = re.search(r"```text\n(.*?)```", section, re.DOTALL)
    assert commands is not None and shown is not None
    shutil.copytree(in_repo / "fixtures" / "redact", tmp_path / "fixtures" / "redact")
    monkeypatch.chdir(tmp_path)
    outputs = []
    for line in commands.group(1).strip().splitlines():
        command, _, comment = line.partition("#")
        words = shlex.split(command)
        assert words[0] == "jsoncontract"
        result = run_cli(*words[1:])
        expected = 1 if "exit 1" in comment else 0
        assert result.code == expected, (line, result.stderr)
        outputs.append(result.stdout)
    assert outputs[0] == shown.group(1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fixtures", "shared.jsonl"]


def test_one_output_file_in_a_missing_directory_creates_nothing(
    run_cli: Run, project: Path
) -> None:
    target = project / "missing" / "deeper" / "out.jsonl"
    result = run_cli("redact", str(project / "trace.jsonl"), "-o", str(target))
    assert result.code == 2 and result.stderr.count("\n") == 1, result.stderr
    assert not (project / "missing").exists()


def test_an_output_directory_for_several_captures_is_created(run_cli: Run, project: Path) -> None:
    out = project / "new" / "dir"
    args = ["redact", str(project / "trace.jsonl"), str(project / "call.json"), "-o", str(out)]
    assert run_cli(*args).code == 0
    assert sorted(p.name for p in out.iterdir()) == ["call.json", "trace.jsonl"]


@pytest.mark.parametrize("check", [True, False])
def test_a_line_too_long_to_read_is_refused_not_passed(
    run_cli: Run, project: Path, check: bool
) -> None:
    from jsoncontract.capture.reader import MAX_LINE_BYTES

    trace = project / "long.jsonl"
    with trace.open("wb") as out:
        out.write(b'{"note": "' + b"x" * MAX_LINE_BYTES + f' {KEY}"}}\n'.encode())
        out.write(json.dumps({"api_key": KEY}).encode() + b"\n")
    target = project / "out.jsonl"
    args = ["--check"] if check else ["-o", str(target)]
    result = run_cli("redact", str(trace), *args)
    assert result.code == 2, result.stderr
    assert "line 1 is over the 64 MiB limit" in result.stderr and KEY not in result.stderr
    assert (
        not target.exists()
        and sorted(p.name for p in project.iterdir() if p.name.startswith(".")) == []
    )


def test_a_credential_scheme_keeps_the_key_prefix_behind_it(run_cli: Run, project: Path) -> None:
    target = project / "out.jsonl"
    assert run_cli("redact", str(project / "trace.jsonl"), "-o", str(target)).code == 0
    headers = json.loads(target.read_text().splitlines()[0])["headers"]
    value = headers[0]["value"]
    assert value.startswith("Bearer sk-proj-") and value != f"Bearer {KEY}"
    assert len(value) == len(f"Bearer {KEY}")
