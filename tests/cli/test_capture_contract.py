"""``check`` without ``--tools``: each call is checked against the tools offered with it.

A call to a tool its request did not offer is ``envelope.tool_not_offered``; with ``--tools``,
``--tools`` wins and an offered schema that differs is a warning; a capture that records no
tools at all is exit 2 with one line saying where tools come from; and the verdicts are the
same through one process, workers and compressed files.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

Run = Callable[..., Any]
WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
    },
}


def _exchange(tools: list[Any], *calls: tuple[str, str, str]) -> dict[str, Any]:
    message = {
        "role": "assistant",
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": a}}
            for i, n, a in calls
        ],
    }
    return {
        "request": {
            "model": "gpt-4o",
            "messages": [{"role": "user", "content": "?"}],
            "tools": tools,
        },
        "response": {"id": "r", "object": "chat.completion", "choices": [{"message": message}]},
    }


def _write(path: Path, *documents: Any) -> Path:
    path.write_bytes(b"".join(orjson.dumps(d) + b"\n" for d in documents))
    return path


def _codes(report: dict[str, Any]) -> list[list[str]]:
    return [[f["code"] for f in r["findings"]] for r in report["results"]]


def test_each_call_is_checked_against_its_own_requests_tools(run_cli: Run, tmp_path: Path) -> None:
    path = _write(
        tmp_path / "trace.jsonl",
        _exchange([WEATHER], ("c1", "get_weather", '{"city": "Oslo"}')),
        _exchange([WEATHER], ("c2", "get_weather", '{"city": 5}'), ("c3", "get_time", "{}")),
    )
    result = run_cli("check", "--no-config", "-f", "json", str(path))
    assert result.code == 1
    report = json.loads(result.stdout)
    assert _codes(report) == [[], ["schema.type"], ["envelope.tool_not_offered"]]
    assert report["results"][2]["findings"][0]["hint"] == "offered: get_weather"


def test_tools_capture_takes_the_capture_over_the_config(run_cli: Run, tmp_path: Path) -> None:
    (tmp_path / "jsoncontract.toml").write_text('tools = ["tools.json"]\n')
    (tmp_path / "tools.json").write_text(json.dumps([WEATHER]))
    path = _write(tmp_path / "trace.jsonl", _exchange([], ("c1", "get_weather", "{}")))
    result = run_cli("check", "--config", str(tmp_path / "jsoncontract.toml"), "--tools",
                     "capture", "-f", "json", str(path))  # fmt: skip
    assert result.code == 2
    assert result.stderr.count("\n") == 1 and "no tool definitions" in result.stderr


def test_with_tools_an_offered_schema_that_differs_is_a_warning(
    run_cli: Run, tmp_path: Path
) -> None:
    offered = json.loads(json.dumps(WEATHER))
    offered["function"]["parameters"]["properties"]["units"] = {"type": "string"}
    (tmp_path / "tools.json").write_text(json.dumps([WEATHER]))
    path = _write(
        tmp_path / "trace.jsonl",
        _exchange([offered], ("c1", "get_weather", '{"city": "Oslo"}')),
        _exchange([WEATHER], ("c2", "get_weather", '{"city": "Oslo"}'), ("c3", "other", "{}")),
    )
    result = run_cli("check", "--no-config", "--tools", str(tmp_path / "tools.json"), "-f",
                     "json", str(path))  # fmt: skip
    report = json.loads(result.stdout)
    assert _codes(report) == [["envelope.offered_schema_differs"], [], ["envelope.unknown_tool"]]
    assert report["results"][0]["ok"] is True and result.code == 1


def test_a_capture_that_records_no_tools_is_exit_2_in_one_line(
    run_cli: Run, tmp_path: Path
) -> None:
    response = _exchange([], ("c1", "get_weather", "{}"))["response"]
    path = _write(tmp_path / "responses.jsonl", response, response)
    result = run_cli("check", "--no-config", str(path))
    assert result.code == 2 and result.stdout == ""
    assert result.stderr == (
        "jsoncontract: error: no tool definitions: pass --tools PATH, list them under "
        "tools = [...] in jsoncontract.toml, or check captures that record the tools offered "
        "to the model (a request logged with its response, a request body's tools, an MCP "
        "tools/list)\n"
    )


def test_a_call_whose_capture_records_no_tools_has_no_contract(
    run_cli: Run, tmp_path: Path
) -> None:
    exchange = _exchange([WEATHER], ("c1", "get_weather", '{"city": "Oslo"}'))
    alone = _exchange([WEATHER], ("c2", "get_weather", '{"city": "Rome"}'))["response"]
    path = _write(tmp_path / "trace.jsonl", exchange, alone)
    report = json.loads(run_cli("check", "--no-config", "-f", "json", str(path)).stdout)
    assert _codes(report) == [[], ["envelope.no_contract"]]


def test_workers_and_gzip_give_the_same_report(run_cli: Run, tmp_path: Path) -> None:
    lines = [
        _exchange([WEATHER], (f"c{i}", "get_weather", f'{{"city": {i}}}' if i % 3 else "{}"))
        for i in range(3000)
    ]
    path = _write(tmp_path / "big.jsonl", *lines)
    packed = tmp_path / "big.jsonl.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    reports = []
    for target, jobs in ((path, "1"), (path, "2"), (packed, "2")):
        result = run_cli("check", "--no-config", "-f", "json", "--jobs", jobs, str(target))
        reports.append(json.loads(result.stdout.replace(str(target), "TRACE")))
    assert reports[0] == reports[1] == reports[2]
    assert reports[0]["summary"]["by_code"] == {"schema.required": 1000, "schema.type": 2000}


def test_business_rules_run_on_the_offered_contracts(run_cli: Run, tmp_path: Path) -> None:
    rules = tmp_path / "rules.toml"
    rules.write_text(
        'version = 1\n\n[[tools.get_weather]]\nid = "no-oslo"\nrule = "self.city != \'Oslo\'"\n'
        'message = "not Oslo"\n'
    )
    path = _write(
        tmp_path / "trace.jsonl", _exchange([WEATHER], ("c1", "get_weather", '{"city": "Oslo"}'))
    )
    result = run_cli("check", "--no-config", "-r", str(rules), "-f", "json", str(path))
    assert _codes(json.loads(result.stdout)) == [["business.no-oslo"]]
    assert result.stderr == ""  # no rule is said never to run: the capture brings the tool
