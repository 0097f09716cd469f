"""``jsoncontract diff`` end to end: golden outputs, exit codes, options and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.diff.patch import apply_patch

Run = Callable[..., Any]
Golden = Callable[[str, str], None]
Write = Callable[[str, object], Path]

D = "fixtures/diff"
TOOLS = ("--tools", "fixtures/tools")
OPERATION = "#/paths/~1invoices~1search/post"
OPENAPI = f"--downstream-schema={D}/billing-openapi.json{OPERATION}"


def hops(case: str) -> list[str]:
    names = {"clean": ("model.json", "mcp.json", "downstream.har")}
    files = names.get(case, ("model.json", "mcp.json", "downstream.json"))
    return [f"{D}/{case}/{name}" for name in files]


# -- the bundled example, side by side -------------------------------------------------------


@pytest.mark.parametrize(
    ("case", "extra", "code"),
    [
        ("clean", (OPENAPI,), 0),
        ("string-arguments", (), 1),
        ("renamed-dates", (), 1),
        ("coerced", (OPENAPI,), 1),
    ],
)
def test_bundled_example_text(
    run_cli: Run, golden: Golden, in_repo: Path, case: str, extra: tuple[str, ...], code: int
) -> None:
    result = run_cli("diff", *TOOLS, *extra, *hops(case))
    assert result.stderr == ""
    golden(f"diff/{case}.txt", result.stdout)
    assert result.code == code


def test_the_mapping_makes_the_rename_expected(run_cli: Run, golden: Golden, in_repo: Path) -> None:
    result = run_cli("diff", *TOOLS, "--mapping", f"{D}/mapping.json", *hops("renamed-dates"))
    golden("diff/renamed-dates-mapped.txt", result.stdout)
    assert "✓ renamed (expected)" in result.stdout
    assert result.code == 1  # status was still dropped
    declared_drop = ("--ignore", "/status")
    quiet = run_cli(
        "diff", "--mapping", f"{D}/mapping.json", *declared_drop, *hops("renamed-dates")
    )
    assert quiet.code == 0


def test_narrow_terminal_stacks_each_row(
    run_cli: Run, golden: Golden, in_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "56")
    result = run_cli("diff", "--mapping", f"{D}/mapping.json", *hops("renamed-dates"))
    golden("diff/renamed-dates-narrow.txt", result.stdout)
    table = [
        line for line in result.stdout.splitlines() if line.startswith(("    m", "    d", "  /"))
    ]
    assert len(table) == 14 and max(len(line) for line in table) <= 56


def test_trace_text_json_and_patch(run_cli: Run, golden: Golden, in_repo: Path) -> None:
    text = run_cli("diff", *TOOLS, "--trace", f"{D}/trace.jsonl", "-v")
    golden("diff/trace.txt", text.stdout)
    assert text.code == 1
    report = run_cli("diff", *TOOLS, "--trace", f"{D}/trace.jsonl", "-f", "json", OPENAPI)
    golden(
        "diff/trace.json",
        json.dumps(json.loads(report.stdout), indent=2, ensure_ascii=False) + "\n",
    )
    assert report.code == 1
    patch = run_cli("diff", "--trace", f"{D}/trace.jsonl", "-f", "patch")
    golden("diff/trace.patch.jsonl", patch.stdout)


def test_json_report_shape(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("diff", *TOOLS, OPENAPI, "-f", "json", *hops("coerced"))
    report = json.loads(result.stdout)
    assert report["version"] == 1
    assert set(report) == {"version", "summary", "findings", "results"}
    summary = report["summary"]
    assert summary["calls"] == 1 and summary["failed"] == 1
    assert summary["differences"]["unexpected_by_code"] == {"coerced": 1}
    assert summary["by_status"]["differ"] == 1
    (call,) = report["results"]
    assert [h["hop"] for h in call["hops"]] == ["model", "mcp", "downstream"]
    assert [h["valid"] for h in call["hops"]] == [True, True, False]
    (difference,) = call["differences"]
    for field in (
        "code",
        "severity",
        "message",
        "path",
        "hop",
        "tool",
        "call_id",
        "source",
        "hint",
    ):
        assert field in difference, field
    assert difference["code"] == "coerced" and difference["before"] == 50
    assert difference["after"] == "50" and difference["severity"] == "error"
    (finding,) = call["findings"]
    assert finding["code"] == "schema.type" and finding["hop"] == "downstream"
    assert finding["source"]["file"] == f"{D}/coerced/downstream.json"


def test_patch_output_applies(run_cli: Run, golden: Golden, in_repo: Path) -> None:
    result = run_cli("diff", "-f", "patch", *hops("renamed-dates"))
    golden("diff/renamed-dates.patch.jsonl", result.stdout)
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [(p["from"], p["to"]) for p in lines] == [("model", "mcp"), ("mcp", "downstream")]
    mcp = json.loads(Path(f"{D}/renamed-dates/mcp.json").read_text())["params"]["arguments"]
    body = json.loads(Path(f"{D}/renamed-dates/downstream.json").read_text())["payload"]
    assert apply_patch(mcp, lines[1]["patch"]) == body
    assert lines[0]["patch"] == []


# -- exit codes and findings -------------------------------------------------------------------


def test_two_hops_in_any_order(run_cli: Run, in_repo: Path) -> None:
    result = run_cli(
        "diff", "-f", "json", f"{D}/coerced/downstream.json", f"{D}/coerced/model.json"
    )
    call = json.loads(result.stdout)["results"][0]
    assert [h["hop"] for h in call["hops"]] == ["model", "downstream"]
    assert [d["code"] for d in call["differences"]] == ["coerced"]
    assert call["differences"][0]["from_hop"] == "model"


def test_a_bare_body_takes_the_tool_of_the_other_hops(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("diff", "-f", "json", *hops("string-arguments"))
    hops_ = json.loads(result.stdout)["results"][0]["hops"]
    assert hops_[2]["tool"] == "searchInvoices"


def test_tools_that_differ_are_a_finding(run_cli: Run, write: Write, in_repo: Path) -> None:
    frame = json.loads(Path(f"{D}/clean/mcp.json").read_text())
    frame["params"]["name"] = "search_invoices"
    other = write("mcp.json", frame)
    result = run_cli("diff", "-f", "json", f"{D}/clean/model.json", str(other))
    assert result.code == 1
    (finding,) = json.loads(result.stdout)["results"][0]["findings"]
    assert finding["code"] == "diff.tool_mismatch"
    assert "'search_invoices'" in finding["message"]


def test_an_unparsable_hop_is_named_and_the_rest_compared(
    run_cli: Run, write: Write, in_repo: Path
) -> None:
    model = json.loads(Path(f"{D}/coerced/model.json").read_text())
    model["output"][1]["arguments"] = model["output"][1]["arguments"][:-9]  # cut off
    cut = write("model.json", model)
    result = run_cli("diff", str(cut), *hops("coerced")[1:])
    assert result.code == 1
    assert "not parsed (parse.truncated), not compared" in result.stdout
    assert 'mcp is "50" in downstream' in result.stdout
    assert "  ?  " in result.stdout or " ? " in result.stdout


def test_unpaired_calls_are_warnings(run_cli: Run, write: Write, in_repo: Path) -> None:
    trace = write("t.jsonl", Path(f"{D}/trace.jsonl").read_text().splitlines()[9] + "\n")
    result = run_cli("diff", "--trace", str(trace), "-f", "json")
    assert result.code == 0
    call = json.loads(result.stdout)["results"][0]
    assert call["status"] == "unpaired"
    assert [f["code"] for f in call["findings"]] == ["diff.unpaired"]
    assert run_cli("diff", "--trace", str(trace), "--fail-on", "warning").code == 1


def test_a_bad_trace_line_is_reported_and_the_rest_diffed(
    run_cli: Run, write: Write, in_repo: Path
) -> None:
    lines = Path(f"{D}/trace.jsonl").read_text().splitlines()
    trace = write("t.jsonl", "\n".join([lines[0], "{not json", *lines[2:]]) + "\n")
    result = run_cli("diff", "--trace", str(trace), "-f", "json")
    report = json.loads(result.stdout)
    unreadable = [r for r in report["results"] if r["status"] == "unreadable"]
    assert len(unreadable) == 1
    assert "line 2 is not JSON" in unreadable[0]["findings"][0]["message"]
    assert report["summary"]["calls"] == 6  # the call of the broken line lost its model hop
    by_id = {r["call_id"]: r for r in report["results"]}
    assert [h["hop"] for h in by_id["32"]["hops"]] == ["mcp", "downstream"]


def test_call_id_picks_one_call(run_cli: Run, in_repo: Path) -> None:
    result = run_cli("diff", "--trace", f"{D}/trace.jsonl", "--call-id", "r8k2mq4z", "-f", "json")
    report = json.loads(result.stdout)
    assert [r["call_id"] for r in report["results"]] == ["r8k2mq4z"]
    # any hop's id finds the call: here the MCP request id
    by_rpc = run_cli("diff", "--trace", f"{D}/trace.jsonl", "--call-id", "34", "-f", "json")
    assert json.loads(by_rpc.stdout)["results"][0]["tool"] == "searchInvoices"


def test_mapping_warnings_at_load_and_after_the_run(
    run_cli: Run, write: Write, in_repo: Path
) -> None:
    mapping = write(
        "m.json",
        {
            "mappings": [
                {"tool": "searchInvoices", "transforms": [{"op": "drop", "path": "/statuss"}]}
            ]
        },
    )
    result = run_cli("diff", *TOOLS, "-m", str(mapping), "-f", "json", *hops("clean"))
    report = json.loads(result.stdout)
    assert [f["code"] for f in report["findings"]] == [
        "diff.mapping_unknown_path",
        "diff.mapping_unused",
    ]
    assert report["findings"][0]["hint"] == "did you mean 'status'?"
    assert result.code == 0
    text = run_cli("diff", *TOOLS, "-m", str(mapping), *hops("clean")).stdout
    assert sum(line.startswith("warning diff.mapping_") for line in text.splitlines()) == 2


@pytest.mark.parametrize(
    ("options", "code"),
    [
        ((), 1),
        (("--ignore", "/limit"), 0),
        (("--ignore", "limit"), 0),
        (("--ignore", "/**/lim*"), 1),
        (("--fail-on", "never"), 0),
    ],
)
def test_ignore_and_fail_on(
    run_cli: Run, in_repo: Path, options: tuple[str, ...], code: int
) -> None:
    assert run_cli("diff", *options, *hops("coerced")).code == code


def test_tolerance_set_and_key(run_cli: Run, write: Write) -> None:
    def pair(a: Any, b: Any) -> list[str]:
        model = write("a.json", {"type": "tool_use", "id": "t1", "name": "x", "input": a})
        mcp = write(
            "b.json",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "x", "arguments": b},
            },
        )
        return [str(model), str(mcp)]

    numbers = pair({"amount": 10.0000001}, {"amount": 10.0})
    assert run_cli("diff", *numbers).code == 1
    assert run_cli("diff", "--tolerance", "0.001", *numbers).code == 0
    tags = pair({"tags": ["a", "b"]}, {"tags": ["b", "a"]})
    assert run_cli("diff", *tags).code == 1
    assert run_cli("diff", "--set", "/tags", *tags).code == 0
    assert run_cli("diff", "--multiset", "/tags", *tags).code == 0
    lines = pair(
        {"lines": [{"sku": "A", "q": 1}, {"sku": "B", "q": 2}]},
        {"lines": [{"sku": "B", "q": 2}, {"sku": "A", "q": 1}]},
    )
    assert run_cli("diff", "--key", "/lines=sku", *lines).code == 0
    shown = run_cli("diff", "--key", "/lines=sku", "-f", "json", *lines)
    difference = json.loads(shown.stdout)["results"][0]["differences"][0]
    assert difference["expected"] and difference["rule"] == "--key /lines=sku"


def test_values_orjson_cannot_write_are_reported_exactly(run_cli: Run, write: Write) -> None:
    # integers beyond 64 bits, lone surrogates and 400 levels of nesting are payload
    # problems (findings), never a crash of the json or patch report
    depth = 400
    nested = "{" + '"a":{' * depth + '"b":1' + "}" * depth + "}"
    model = write(
        "a.json",
        '{"type": "tool_use", "id": "t1", "name": "x", "input": '
        '{"n": 123456789012345678901234567890, "s": "a\\ud800", "d": ' + nested + "}}",
    )
    mcp = write(
        "b.json",
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x", '
        '"arguments": {"n": 123456789012345678901234567891, "s": "a\\ud800", "d": '
        + nested.replace('"b":1', '"b":2')
        + "}}}",
    )
    report = run_cli("diff", str(model), str(mcp), "--format", "json", "--show-values")
    assert report.code == 1, report.stderr
    result = json.loads(report.stdout)["results"][0]
    changed = {d["from_path"]: d for d in result["differences"]}
    assert changed["/n"]["before"] == 123456789012345678901234567890
    assert changed["/n"]["after"] == 123456789012345678901234567891
    assert any(path.startswith("/d/a/a") for path in changed)
    patch = run_cli("diff", str(model), str(mcp), "--format", "patch", "--show-values")
    assert patch.code == 1, patch.stderr
    operations = json.loads(patch.stdout)["patch"]
    assert {"op": "replace", "path": "/n", "value": 123456789012345678901234567891} in operations


def test_sensitive_values_are_hashed_unless_shown(run_cli: Run, write: Write) -> None:
    model = write(
        "a.json",
        {
            "type": "tool_use",
            "id": "t1",
            "name": "x",
            "input": {"email": "ann@example.com", "n": 1},
        },
    )
    mcp = write(
        "b.json",
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "x", "arguments": {"email": "bob@example.com", "n": 1}},
        },
    )
    hidden = run_cli("diff", str(model), str(mcp))
    assert "example.com" not in hidden.stdout and "<redacted sha256:" in hidden.stdout
    as_json = run_cli("diff", "-f", "json", str(model), str(mcp))
    assert "example.com" not in as_json.stdout
    as_patch = run_cli("diff", "-f", "patch", str(model), str(mcp))
    assert "example.com" not in as_patch.stdout
    shown = run_cli("diff", "--show-values", str(model), str(mcp))
    assert "bob@example.com" in shown.stdout


def test_config_section(
    run_cli: Run, write: Write, in_repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = Path.cwd()
    config = write(
        "jsoncontract.toml",
        f'tools = ["{root}/fixtures/tools"]\n\n[diff]\nmappings = ["{root}/{D}/mapping.json"]\n'
        f'ignore = ["/status"]\ncorrelation_field = "tool_call_id"\n'
        f'[diff.downstream_schemas]\n"*" = "{root}/{D}/billing-openapi.json{OPERATION}"\n',
    )
    result = run_cli("diff", "--config", str(config), *hops("renamed-dates"))
    assert "✓ renamed (expected)" in result.stdout
    # the v3 body breaks the v2 contract named in the config
    assert "schema.additionalProperties" in result.stdout
    bad = write("bad.toml", "[diff]\nmapping = []\n")
    refused = run_cli("diff", "--config", str(bad), *hops("clean"))
    assert refused.code == 2 and "did you mean 'mappings'?" in refused.stderr


# -- bad input: one line on stderr, exit 2 -------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((f"{D}/clean/model.json",), "two or three hop files"),
        ((*hops("clean"), f"{D}/coerced/mcp.json"), "two or three hop files"),
        (("--trace", f"{D}/trace.jsonl", f"{D}/clean/model.json"), "not both"),
        ((), "nothing to diff"),
        (
            ("--trace", f"{D}/trace.jsonl", "--call-id", "nope"),
            "no call has an id that is or starts with 'nope'",
        ),
        ((f"{D}/clean/model.json", "missing.json"), "missing.json: no such file or directory"),
        ((f"{D}/clean/model.json", f"{D}"), "is a directory"),
        (("--key", "/lines", *hops("clean")), "PATH=FIELD"),
        (("--downstream-schema", f"{D}/billing-openapi.json", *hops("clean")), "OpenAPI document"),
    ],
)
def test_bad_usage_and_input(
    run_cli: Run, in_repo: Path, args: tuple[str, ...], message: str
) -> None:
    result = run_cli("diff", *args)
    assert result.code == 2, result.stdout
    assert message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_files_that_are_not_hops(run_cli: Run, write: Write, in_repo: Path) -> None:
    not_json = write("notes.json", "model said: {oops")
    result = run_cli("diff", f"{D}/clean/model.json", str(not_json))
    assert result.code == 2 and f"{not_json}:1:1: not JSON" in result.stderr
    body_a = write("a.json", {"x": 1})
    body_b = write("b.json", {"x": 2})
    result = run_cli("diff", str(body_a), str(body_b))
    assert result.code == 2 and "not a capture in any known dialect" in result.stderr
    assert "--tool" in result.stderr
    assert run_cli("diff", "--tool", "x", str(body_a), f"{D}/clean/mcp.json").code == 1
    text_only = write(
        "text.json",
        {"type": "message", "role": "assistant", "content": [{"type": "text", "text": "Hi"}]},
    )
    result = run_cli("diff", str(text_only), f"{D}/clean/mcp.json")
    assert result.code == 2 and "holds no tool call" in result.stderr
    bad_mapping = write("m.json", {"mappings": [{"tool": "t", "transforms": [{"op": "nope"}]}]})
    result = run_cli("diff", "-m", str(bad_mapping), *hops("clean"))
    assert (
        result.code == 2
        and f"{bad_mapping}:7: mapping file /mappings/0/transforms/0" in result.stderr
    )
    assert '"nope" is not one of: rename, move, drop, default, convert' in result.stderr


def test_help_and_start_up_stay_light(run_cli: Run) -> None:
    assert "diff" in run_cli("--help").stdout
    assert run_cli("diff", "--help").code == 0
    probe = (
        "import sys; from jsoncontract.cli.app import build; build(); "
        "print(sorted(m for m in sys.modules if m.startswith(('deepdiff', 'jsoncontract.diff'))))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert loaded == "[]"


def test_the_readme_shows_real_output(run_cli: Run, in_repo: Path) -> None:
    """Every ``$ jsoncontract diff ...`` block of the diff command's page is what it prints."""
    import glob
    import shlex

    section = Path("docs/commands/diff.md").read_text(encoding="utf-8")
    blocks = section.split("```text\n")[1:]
    assert len(blocks) == 2
    for block in blocks:
        command, _, shown = block.split("```", 1)[0].partition("\n")
        words = shlex.split(command.removeprefix("$ "))
        args = [match for word in words[1:] for match in (sorted(glob.glob(word)) or [word])]
        assert run_cli(*args).stdout == shown


def test_call_id_takes_a_prefix(run_cli: Callable[..., Any], in_repo: Path) -> None:
    base = ["diff", "--no-config", "--tools", "fixtures/tools", "--trace", f"{D}/trace.jsonl"]
    short = run_cli(*base, "--call-id", "call_Q7mV", "-f", "json")
    assert short.code == 0, short.stderr
    (only,) = json.loads(short.stdout)["results"]
    assert only["call_id"] == "call_Q7mVt2LxKc9RfA0sWbN3pYdE"
    every = json.loads(run_cli(*base, "--call-id", "call_", "-f", "json").stdout)["results"]
    assert {r["call_id"] for r in every} == {
        "call_Q7mVt2LxKc9RfA0sWbN3pYdE",
        "call_HmT4qZx9Lw2VbKc8RyNs5JfA",
    }
    full = json.loads(run_cli(*base, "--call-id", "31", "-f", "json").stdout)["results"]
    assert len(full) == 1  # an id given in full is that call, not every id starting with it
