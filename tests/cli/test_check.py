"""``jsoncontract check`` end to end: exit codes, formats, options, and every bad input."""

from __future__ import annotations

import itertools
import json
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import FIXTURES, CliResult

Run = Callable[..., CliResult]
Write = Callable[..., Path]
TOOLS = str(FIXTURES / "tools")
CAPTURES = FIXTURES / "captures"
OK_CAPTURE = str(CAPTURES / "anthropic" / "message-ok.json")
ENUM_CAPTURE = str(CAPTURES / "faults" / "schema-enum.json")


_IDS = itertools.count(1)


def chat(name: str, arguments: str) -> dict[str, Any]:
    """A completion with one call; every one made has its own call id (one call id seen
    twice is one call seen in two places)."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "id": f"call_{next(_IDS)}",
                            "type": "function",
                            "function": {"name": name, "arguments": arguments},
                        }
                    ],
                },
            }
        ],
    }


class TestExitCodes:
    def test_clean_capture_exits_0(self, run_cli: Run) -> None:
        result = run_cli("check", "--tools", TOOLS, OK_CAPTURE)
        assert result.code == 0, result.stderr
        assert "1 call in 1 file: 1 ok, 0 failed" in result.stdout

    def test_violation_exits_1(self, run_cli: Run) -> None:
        result = run_cli("check", "--tools", TOOLS, ENUM_CAPTURE)
        assert result.code == 1
        assert "schema.enum /priority" in result.stdout

    def test_fail_on_never_reports_but_exits_0(self, run_cli: Run) -> None:
        result = run_cli("check", "--tools", TOOLS, ENUM_CAPTURE, "--fail-on", "never")
        assert result.code == 0
        assert "schema.enum" in result.stdout

    def test_warnings_fail_only_when_asked(self, run_cli: Run, write: Write) -> None:
        stream = write(
            "cut.jsonl",
            '{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":'
            '{"tool_calls":[{"index":0,"id":"call_9","type":"function","function":'
            '{"name":"get_weather","arguments":"{\\"city\\":\\"Oslo\\"}"}}]},'
            '"finish_reason":null}]}\n',
        )
        assert run_cli("check", "--tools", TOOLS, str(stream)).code == 0
        warned = run_cli("check", "--tools", TOOLS, str(stream), "--fail-on", "warning")
        assert warned.code == 1
        assert "envelope.incomplete_stream" in warned.stdout

    def test_bundled_example_exits_1(self, run_cli: Run) -> None:
        result = run_cli("check", "--tools", TOOLS, str(CAPTURES))
        assert result.code == 1
        assert "62 calls in 41 files: 29 ok, 33 failed" in result.stdout


class TestFormats:
    def test_json_report_shape(self, run_cli: Run) -> None:
        result = run_cli("check", "--tools", TOOLS, ENUM_CAPTURE, OK_CAPTURE, "-f", "json")
        report = json.loads(result.stdout)
        assert list(report) == ["version", "summary", "results", "findings"]
        assert report["version"] == 1
        assert report["summary"]["calls"] == 2
        assert report["summary"]["by_stage"] == {
            "envelope": 0,
            "parse": 0,
            "schema": 1,
            "business": 0,
            "result": 0,
        }
        assert report["findings"] == []
        bad, good = report["results"]
        assert good["ok"] is True and good["findings"] == [] and good["stage"] is None
        assert bad["stage"] == "schema"
        finding = bad["findings"][0]
        assert {k: finding[k] for k in ("code", "severity", "path", "stage", "hop", "keyword")} == {
            "code": "schema.enum",
            "severity": "error",
            "path": "/priority",
            "stage": "schema",
            "hop": "model",
            "keyword": "enum",
        }
        assert finding["source"] == {"file": ENUM_CAPTURE, "line": 13}
        assert finding["schema_path"] == "#/properties/priority/enum"

    def test_jsonl_streams_results_then_the_summary(self, run_cli: Run) -> None:
        result = run_cli("check", "--tools", TOOLS, ENUM_CAPTURE, OK_CAPTURE, "-f", "jsonl")
        lines = [json.loads(line) for line in result.stdout.splitlines()]
        assert [line.get("ok") for line in lines[:2]] == [False, True]
        assert lines[-1]["version"] == 1 and lines[-1]["summary"]["failed"] == 1

    def test_output_file(self, run_cli: Run, tmp_path: Path) -> None:
        target = tmp_path / "report.json"
        result = run_cli("check", "--tools", TOOLS, ENUM_CAPTURE, "-f", "json", "-o", str(target))
        assert result.code == 1 and result.stdout == ""
        assert json.loads(target.read_text())["summary"]["failed"] == 1
        assert [p.name for p in tmp_path.iterdir()] == ["report.json"]

    @pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")
    def test_output_file_gets_the_usual_permissions(self, run_cli: Run, tmp_path: Path) -> None:
        target = tmp_path / "report.json"
        saved = os.umask(0o022)
        try:
            run_cli("check", "--tools", TOOLS, ENUM_CAPTURE, "-f", "json", "-o", str(target))
        finally:
            os.umask(saved)
        assert stat.S_IMODE(target.stat().st_mode) == 0o644  # as any new file, not 0600

    def test_output_file_in_a_missing_directory(self, run_cli: Run, tmp_path: Path) -> None:
        target = tmp_path / "nowhere" / "report.json"
        result = run_cli("check", "--tools", TOOLS, OK_CAPTURE, "-o", str(target))
        assert result.code == 2
        assert result.stderr == (
            f"jsoncontract: error: {target}: cannot write: No such file or directory\n"
        )

    def test_progress_on_a_terminal_leaves_the_report_unchanged(
        self, run_cli: Run, write: Write, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        arguments = '{"city": "Oslo", "pad": "' + "x" * 500 + '"}'
        lines = (json.dumps(chat("get_weather", arguments)) + "\n" for _ in range(10_000))
        trace = write("big.jsonl", "".join(lines))  # over the 5 MB a bar waits for
        plain = run_cli("check", "--tools", TOOLS, str(trace), "-f", "json")
        monkeypatch.setattr("jsoncontract.cli.options.stderr_is_terminal", lambda: True)
        shown = run_cli("check", "--tools", TOOLS, str(trace), "-f", "json")
        assert (shown.code, shown.stdout) == (plain.code, plain.stdout)
        assert json.loads(shown.stdout)["summary"]["calls"] == 10_000

    def test_no_partial_output_file_when_the_job_fails(
        self, run_cli: Run, tmp_path: Path, write: Write
    ) -> None:
        broken = write("broken.json", "{not json")
        target = tmp_path / "report.json"
        result = run_cli("check", "--tools", TOOLS, OK_CAPTURE, str(broken), "-o", str(target))
        assert result.code == 2
        assert not target.exists()
        assert [p.name for p in tmp_path.iterdir()] == ["broken.json"]

    def test_quiet_and_verbose(self, run_cli: Run) -> None:
        quiet = run_cli("check", "--tools", TOOLS, ENUM_CAPTURE, "-q")
        assert quiet.stdout.startswith("1 call in 1 file")
        verbose = run_cli("check", "--tools", TOOLS, OK_CAPTURE, "-v")
        assert verbose.stdout.startswith("ok   ")

    def test_max_shown_caps_the_listing(self, run_cli: Run) -> None:
        result = run_cli("check", "--tools", TOOLS, str(CAPTURES / "faults"), "--max-shown", "2")
        assert result.stdout.count("FAIL ") == 2
        assert "25 more calls with findings not shown" in result.stdout

    def test_color_is_off_when_piped_and_on_when_forced(self, run_cli: Run) -> None:
        assert "\x1b[" not in run_cli("check", "--tools", TOOLS, ENUM_CAPTURE).stdout
        assert "\x1b[" in run_cli("check", "--tools", TOOLS, ENUM_CAPTURE, "--color").stdout

    def test_show_values(self, run_cli: Run, write: Write) -> None:
        tools = write(
            "t.json",
            [
                {
                    "name": "login",
                    "input_schema": {
                        "type": "object",
                        "properties": {"password": {"type": "string", "minLength": 12}},
                    },
                }
            ],
        )
        capture = write("c.json", chat("login", '{"password": "hunter2"}'))
        hidden = run_cli("check", "--tools", str(tools), str(capture))
        assert "hunter2" not in hidden.stdout and "<redacted sha256:" in hidden.stdout
        shown = run_cli("check", "--tools", str(tools), str(capture), "--show-values")
        assert '"hunter2"' in shown.stdout


class TestInputs:
    def test_stdin(self, run_cli: Run) -> None:
        data = Path(ENUM_CAPTURE).read_bytes()
        result = run_cli("check", "--tools", TOOLS, "-", stdin=data)
        assert result.code == 1 and "schema.enum" in result.stdout

    def test_stdin_jsonl(self, run_cli: Run) -> None:
        lines = (CAPTURES / "trace.jsonl").read_bytes()
        result = run_cli("check", "--tools", TOOLS, "-", "-q", stdin=lines)
        assert "18 calls in 1 file" in result.stdout

    def test_bare_schema_and_body_with_tool(self, run_cli: Run, write: Write) -> None:
        schema = write(
            "schema.json",
            {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]},
        )
        body = write("body.json", {"q": 5})
        result = run_cli("check", "--tools", str(schema), "--tool", "search", str(body))
        assert result.code == 1
        assert "search (downstream, downstream)" in result.stdout
        assert "schema.type /q" in result.stdout

    def test_forced_dialect(self, run_cli: Run, write: Write) -> None:
        body = write("body.json", {"city": "Oslo"})
        result = run_cli(
            "check", "--tools", TOOLS, "--tool", "get_weather", "--dialect", "downstream", str(body)
        )
        assert result.code == 0

    def test_config_names_the_tools(
        self, run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (tmp_path / "jsoncontract.toml").write_text(f'tools = ["{TOOLS}"]\nfail_on = "never"\n')
        monkeypatch.chdir(tmp_path)
        result = run_cli("check", ENUM_CAPTURE)
        assert result.code == 0 and "schema.enum" in result.stdout
        assert run_cli("check", ENUM_CAPTURE, "--fail-on", "error").code == 1
        assert run_cli("check", ENUM_CAPTURE, "--no-config").code == 2

    def test_config_in_pyproject(
        self, run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        (tmp_path / "pyproject.toml").write_text(
            f'[project]\nname = "x"\n\n[tool.jsoncontract]\ntools = ["{TOOLS}"]\n'
            '[tool.jsoncontract.check]\nformat = "json"\n'
        )
        sub = tmp_path / "deeper"
        sub.mkdir()
        monkeypatch.chdir(sub)
        result = run_cli("check", ENUM_CAPTURE)
        assert json.loads(result.stdout)["summary"]["failed"] == 1


def _error_line(result: CliResult) -> str:
    assert result.code == 2, (result.code, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    return lines[-1]


class TestBadInput:
    def test_no_captures(self, run_cli: Run) -> None:
        assert "no captures given" in _error_line(run_cli("check", "--tools", TOOLS))

    def test_no_tools(self, run_cli: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.chdir(tmp_path)
        assert "no tool definitions" in _error_line(run_cli("check", OK_CAPTURE))

    def test_missing_capture_file(self, run_cli: Run) -> None:
        line = _error_line(run_cli("check", "--tools", TOOLS, "nope.json"))
        assert line == "jsoncontract: error: nope.json: no such file or directory"

    def test_missing_tools_file(self, run_cli: Run) -> None:
        line = _error_line(run_cli("check", "--tools", "missing-tools.json", OK_CAPTURE))
        assert "missing-tools.json: no such file or directory" in line

    def test_directory_without_tool_files(self, run_cli: Run, tmp_path: Path) -> None:
        (tmp_path / "notes.txt").write_text("hi")
        line = _error_line(run_cli("check", "--tools", str(tmp_path), OK_CAPTURE))
        assert "directory has no tool definition files (*.json, *.yaml, *.yml)" in line

    def test_tools_file_not_json(self, run_cli: Run, write: Write) -> None:
        tools = write("tools.json", '{"tools": [\n  {"name": "x",}\n]}')
        line = _error_line(run_cli("check", "--tools", str(tools), OK_CAPTURE))
        assert f"{tools}:2:" in line and "trailing comma" in line

    def test_tools_json_in_no_known_dialect(self, run_cli: Run, write: Write) -> None:
        tools = write("tools.json", {"hello": "world"})
        line = _error_line(run_cli("check", "--tools", str(tools), OK_CAPTURE))
        assert "not a tool definition in any known dialect" in line

    def test_tool_schema_not_a_schema(self, run_cli: Run, write: Write) -> None:
        tools = write(
            "tools.json",
            [
                {
                    "name": "x",
                    "input_schema": {"type": "object", "properties": {"a": {"type": "strng"}}},
                }
            ],
        )
        line = _error_line(run_cli("check", "--tools", str(tools), OK_CAPTURE))
        assert "tool 'x' input schema" in line and "/properties/a/type" in line
        assert "keyword 'type'" in line

    def test_unknown_dollar_schema(self, run_cli: Run, write: Write) -> None:
        tools = write(
            "tools.json",
            [
                {
                    "name": "x",
                    "input_schema": {"$schema": "https://example.com/dialect", "type": "object"},
                }
            ],
        )
        assert "unknown $schema" in _error_line(run_cli("check", "--tools", str(tools), OK_CAPTURE))

    def test_remote_ref(self, run_cli: Run, write: Write) -> None:
        tools = write(
            "tools.json",
            [
                {
                    "name": "x",
                    "input_schema": {
                        "type": "object",
                        "properties": {"a": {"$ref": "https://example.com/a.json"}},
                    },
                }
            ],
        )
        line = _error_line(run_cli("check", "--tools", str(tools), OK_CAPTURE))
        assert "never fetches" in line

    def test_empty_capture_file(self, run_cli: Run, write: Write) -> None:
        empty = write("empty.json", "")
        assert _error_line(run_cli("check", "--tools", TOOLS, str(empty))).endswith(
            "empty.json: file is empty"
        )

    def test_binary_capture_file(self, run_cli: Run, write: Write) -> None:
        blob = write("blob.json", bytes(range(256)) * 4)
        line = _error_line(run_cli("check", "--tools", TOOLS, str(blob)))
        assert "blob.json" in line and "not JSON" in line

    def test_capture_in_no_known_dialect(self, run_cli: Run, write: Write) -> None:
        other = write("other.json", {"weather": "sunny"})
        line = _error_line(run_cli("check", "--tools", TOOLS, str(other)))
        assert "not a capture in any known dialect" in line and "--tool NAME" in line

    def test_hundred_thousand_levels_deep(self, run_cli: Run, write: Write) -> None:
        deep = write("deep.json", "[" * 100_000 + "]" * 100_000)
        line = _error_line(run_cli("check", "--tools", TOOLS, str(deep)))
        assert "nested more than 1024 levels" in line

    def test_deep_arguments_are_a_finding(self, run_cli: Run, write: Write) -> None:
        capture = write("c.json", chat("get_weather", '{"city":' + "[" * 5000 + "]" * 5000 + "}"))
        result = run_cli("check", "--tools", TOOLS, str(capture))
        assert result.code == 1 and "parse.too_deep" in result.stdout

    @pytest.mark.parametrize("depth", [300, 1000])
    def test_arguments_within_the_limit_but_too_deep_to_explain(
        self, run_cli: Run, write: Write, depth: int
    ) -> None:
        deep = "[" * depth + "]" * depth
        lines = [
            chat("get_weather", '{"city":' + deep + "}"),  # schema: city is a string
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "tools/call",
                "params": {"name": "get_weather", "arguments": '{"city":' + deep + "}"},
            },
            chat("get_weather", '{"city": "Oslo"}'),
        ]
        trace = write("t.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
        result = run_cli("check", "--tools", TOOLS, str(trace), "-f", "json")
        assert result.code == 1, result.stderr
        report = json.loads(result.stdout)
        codes = [[f["code"] for f in r["findings"]] for r in report["results"]]
        assert codes == [["schema.too_deep"], ["parse.string_arguments"], []]

    def test_jsonl_garbage_line_keeps_going(self, run_cli: Run, write: Write) -> None:
        good, again = (json.dumps(chat("get_weather", '{"city": "Oslo"}')) for _ in range(2))
        trace = write("t.jsonl", f"{good}\n\x00\x01garbage\n{again}\n")
        result = run_cli("check", "--tools", TOOLS, str(trace), "-f", "json")
        assert result.code == 1
        report = json.loads(result.stdout)
        assert [r["ok"] for r in report["results"]] == [True, False, True]
        assert report["results"][1]["source"] == {"file": str(trace), "line": 2}
        assert report["results"][1]["stage"] == "parse"

    def test_unknown_config_key(self, run_cli: Run, write: Write) -> None:
        config = write("jsoncontract.toml", 'tools = ["x"]\nfail_onn = "error"\n')
        line = _error_line(run_cli("check", "--config", str(config), OK_CAPTURE))
        assert "unknown config key 'fail_onn'; did you mean 'fail_on'?" in line

    def test_config_not_toml(self, run_cli: Run, write: Write) -> None:
        config = write("jsoncontract.toml", "tools = [\n")
        assert "not valid TOML" in _error_line(run_cli("check", "--config", str(config), "x"))

    def test_bad_option_value(self, run_cli: Run) -> None:
        result = run_cli("check", "--tools", TOOLS, "--format", "yaml", OK_CAPTURE)
        assert result.code == 2 and "'yaml' is not one of" in result.stderr

    def test_unknown_command(self, run_cli: Run) -> None:
        result = run_cli("chekc")
        assert result.code == 2 and "No such command" in result.stderr

    def test_internal_errors_are_one_line(
        self, run_cli: Run, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def boom(*args: object, **kwargs: object) -> None:
            raise RuntimeError("unexpected state")

        monkeypatch.setattr("jsoncontract.tools.toolset.ToolSet.from_paths", boom)
        line = _error_line(run_cli("check", "--tools", TOOLS, OK_CAPTURE))
        assert "internal error: RuntimeError: unexpected state" in line
        assert "JSONCONTRACT_DEBUG" in line


def test_version(run_cli: Run) -> None:
    from jsoncontract import __version__

    result = run_cli("--version")
    assert (result.code, result.stdout) == (0, f"jsoncontract {__version__}\n")


def test_help_lists_the_command(run_cli: Run) -> None:
    result = run_cli("--help")
    assert result.code == 0 and "check" in result.stdout


def test_console_script_version_is_fast_path() -> None:
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "jsoncontract", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("jsoncontract ")


MCP_REQUEST = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "get_weather", "arguments": {"city": "Oslo"}},
}
MCP_ANSWER = {"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "4"}]}}
MCP_STRAY = {"jsonrpc": "2.0", "id": 99, "error": {"code": -32603, "message": "boom"}}


class TestResults:
    """Results attached to their calls, and findings about the run."""

    def test_a_late_mcp_response_is_in_the_report(self, run_cli: Run, write: Write) -> None:
        lines = [MCP_REQUEST, chat("get_weather", '{"city": "Oslo"}'), MCP_ANSWER]
        trace = write("t.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
        result = run_cli("check", "--tools", TOOLS, str(trace), "-f", "json")
        report = json.loads(result.stdout)
        first = report["results"][0]
        assert first["call_id"] == "7"
        assert first["result"] == {
            "hop": "mcp",
            "dialect": "mcp",
            "source": {"file": str(trace), "line": 3},
            "is_error": False,
        }
        assert "result" not in report["results"][1]

    def test_a_result_without_its_call_is_a_run_finding(self, run_cli: Run, write: Write) -> None:
        lines = [MCP_REQUEST, MCP_ANSWER, MCP_STRAY]
        trace = write("t.jsonl", "".join(json.dumps(line) + "\n" for line in lines))
        result = run_cli("check", "--tools", TOOLS, str(trace), "-f", "json")
        assert result.code == 0  # a warning: the trace may have started mid-session
        report = json.loads(result.stdout)
        (finding,) = report["findings"]
        assert finding["code"] == "session.orphan_result"
        assert finding["severity"] == "warning"
        assert finding["source"] == {"file": str(trace), "line": 3}
        assert report["summary"]["by_code"] == {"session.orphan_result": 1}
        assert run_cli("check", "--tools", TOOLS, str(trace), "--fail-on", "warning").code == 1
        text = run_cli("check", "--tools", TOOLS, str(trace)).stdout
        assert "RUN 1 finding over the run" in text
        assert f"at {trace}:3" in text
        jsonl_last = run_cli("check", "--tools", TOOLS, str(trace), "-f", "jsonl").stdout
        assert json.loads(jsonl_last.splitlines()[-1])["findings"][0]["code"] == (
            "session.orphan_result"
        )


def test_the_results_and_session_sections_reach_the_run(run_cli: Run, tmp_path: Path) -> None:
    capture = str(FIXTURES / "results" / "conversations" / "openai-chat.jsonl")
    tools = str(FIXTURES / "results" / "tools.json")

    def codes(config: str) -> set[str]:
        path = tmp_path / "jsoncontract.toml"
        path.write_text(config)
        result = run_cli("check", "--config", str(path), "--tools", tools, capture, "-f", "json")
        return set(json.loads(result.stdout)["summary"]["by_code"])

    found = codes("")
    assert {"result.stack_trace", "result.secret", "session.parallel_side_effects"} <= found
    quiet = codes(
        '[results]\nleaks = false\n[session.severity]\n"session.parallel_side_effects" = "off"\n'
    )
    assert found - quiet == {"result.stack_trace", "result.secret", "session.parallel_side_effects"}
