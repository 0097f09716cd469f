"""``lint --fix`` under the engine profiles drops a keyword whose value has no effect
(``required: []``, ``uniqueItems: false``) wherever an engine reports it, and never a
constraint."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

TOOL = {
    "name": "find",
    "description": "Find things by filters and tags.",
    "inputSchema": {
        "type": "object",
        "properties": {
            "filters": {"type": "object", "required": [], "description": "All optional."},
            "tags": {"type": "array", "items": {"type": "string"}, "uniqueItems": False},
            "ids": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
        },
        "required": ["filters"],
        "additionalProperties": False,
    },
}


@pytest.mark.parametrize(
    ("profile", "removed"),
    [
        ("outlines", {"filters/required", "tags/uniqueItems"}),
        ("llguidance", {"tags/uniqueItems"}),
        ("xgrammar", {"tags/uniqueItems"}),
        ("llama-cpp", {"tags/uniqueItems"}),
    ],
)
def test_fix_drops_what_has_no_effect(
    run_cli, tmp_path: Path, profile: str, removed: set[str]
) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps([TOOL], indent=2))
    result = run_cli(
        "lint", str(path), "--no-config", "-p", profile, "--select", "engines", "--fix"
    )
    assert result.code in (0, 1), result.stderr
    after = json.loads(path.read_text())[0]["inputSchema"]["properties"]
    before = TOOL["inputSchema"]["properties"]
    gone = {
        f"{name}/{key}"
        for name, schema in before.items()  # type: ignore[attr-defined]
        for key in schema
        if key not in after[name]
    }
    assert gone == removed
    assert after["ids"]["uniqueItems"] is True  # a constraint stays, whatever the engine
