"""A secret used as a member name stays secret: masked in messages and pointers by every
report format and the step summary, and replaced by ``redact`` (whose ``--check`` then finds
nothing), as a secret value is."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from jsoncontract.reporters import formats
from tests.conftest import CliResult

Run = Callable[..., CliResult]
KEY = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2AbCdEf"
TOOLS = {
    "tools": [
        {
            "name": "pay",
            "inputSchema": {
                "type": "object",
                "properties": {"amount": {"type": "integer"}},
                "required": ["amount"],
                "additionalProperties": False,
            },
        }
    ]
}


def _capture(where: Path) -> tuple[Path, Path]:
    tools = where / "tools.json"
    tools.write_text(json.dumps(TOOLS))
    arguments = json.dumps({KEY: 1, "amount": 2})
    call = {"id": "c1", "type": "function", "function": {"name": "pay", "arguments": arguments}}
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {"role": "assistant", "tool_calls": [call]},
            }
        ],
    }
    duplicate = '{"amount": 1, "%s": 1, "%s": 2}' % (KEY, KEY)  # noqa: UP031
    twice = dict(body, id="chatcmpl-2")
    twice["choices"] = [json.loads(json.dumps(body["choices"][0]))]
    twice["choices"][0]["message"]["tool_calls"][0]["id"] = "c2"
    twice["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] = duplicate
    capture = where / "calls.jsonl"
    capture.write_text(json.dumps(body) + "\n" + json.dumps(twice) + "\n")
    return tools, capture


@pytest.mark.parametrize("fmt", formats("check"))
def test_every_format_masks_a_secret_member_name(
    run_cli: Run, tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools, capture = _capture(tmp_path)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out = tmp_path / f"report.{fmt}"
    done = run_cli(
        "check", "--no-config", "-t", str(tools), str(capture), "-f", fmt, "-o", str(out)
    )
    assert done.code == 1, done.stderr
    written = out.read_text() + done.stdout + done.stderr + summary.read_text()
    assert "additionalProperties" in written or "additional" in written.lower()
    assert KEY not in written and "Zx9Yw8Vu7Ts6Rq5" not in written
    assert "<redacted" in written or "redacted" in written


def test_redact_replaces_a_secret_member_name(run_cli: Run, tmp_path: Path) -> None:
    _, capture = _capture(tmp_path)
    assert run_cli("redact", "--check", str(capture)).code == 1
    clean = tmp_path / "clean.jsonl"
    done = run_cli("redact", str(capture), "-o", str(clean))
    assert done.code == 0, done.stderr
    text = clean.read_text()
    assert KEY not in text and "Zx9Yw8Vu7Ts6Rq5" not in text
    assert run_cli("redact", "--check", str(clean)).code == 0


@pytest.mark.parametrize("fmt", formats("check"))
def test_a_key_in_a_capture_file_name_is_not_printed(
    run_cli: Run, tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defect 18: a key in a capture's file name was printed in reports."""
    tools, capture = _capture(tmp_path)
    named = tmp_path / f"calls-{KEY}.jsonl"
    capture.rename(named)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    out = tmp_path / f"report.{fmt}"
    done = run_cli("check", "--no-config", "-t", str(tools), str(named), "-f", fmt, "-o", str(out))
    assert done.code == 1, done.stderr
    written = out.read_text() + done.stdout + done.stderr + summary.read_text()
    assert KEY not in written and "Zx9Yw8Vu7Ts6Rq5" not in written
    assert "calls-" in written
