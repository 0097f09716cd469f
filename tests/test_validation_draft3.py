"""Draft 3 schemas, read by python-jsonschema, keep the default engine's rules: a ``$ref``
resolves inside the document or the schema is refused (nothing is fetched or read), and
regular expressions match in bounded time."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.errors import SchemaLoadError
from jsoncontract.validation import CompiledSchema

DRAFT3 = "http://json-schema.org/draft-03/schema#"
Run = Callable[..., Any]


@pytest.fixture
def server() -> Iterator[tuple[str, list[str]]]:
    """A loopback HTTP server serving a schema, and the paths it was asked for."""
    asked: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"type": "string"}')

        def log_message(self, *args: Any) -> None:
            pass

    httpd = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", asked
    finally:
        httpd.shutdown()
        httpd.server_close()


def _schema(ref: str) -> dict[str, Any]:
    return {
        "$schema": DRAFT3,
        "type": "object",
        "definitions": {"name": {"type": "string"}},
        "properties": {"x": {"$ref": ref}},
    }


def test_a_remote_ref_is_refused_without_a_request(server: tuple[str, list[str]]) -> None:
    base, asked = server
    with pytest.raises(SchemaLoadError, match="never fetches"):
        CompiledSchema(_schema(f"{base}/x.json")).violations({"x": 1})
    assert asked == []


def test_a_file_ref_is_refused_without_reading(tmp_path: Path) -> None:
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "string", "description": "s3cr3t-content"}')
    with pytest.raises(SchemaLoadError) as caught:
        CompiledSchema(_schema(secret.as_uri())).violations({"x": 1})
    assert "s3cr3t-content" not in str(caught.value)


def test_a_missing_local_ref_is_refused_at_load() -> None:
    with pytest.raises(SchemaLoadError, match="unresolvable"):
        CompiledSchema(_schema("#/definitions/missing"))


def test_local_refs_still_resolve() -> None:
    compiled = CompiledSchema(_schema("#/definitions/name"))
    assert [v.keyword for v in compiled.violations({"x": 1})] == ["type"]
    assert compiled.is_valid({"x": "a"})


def test_an_id_fragment_ref_resolves() -> None:
    schema = {
        "$schema": DRAFT3,
        "properties": {"n": {"id": "#n", "type": "integer"}, "m": {"$ref": "#n"}},
    }
    assert not CompiledSchema(schema).is_valid({"m": "x"})


@pytest.mark.parametrize(
    "schema",
    [
        {"$schema": DRAFT3, "properties": {"x": {"type": "string", "pattern": "^(a+)+$"}}},
        {"$schema": DRAFT3, "patternProperties": {"^(a+)+$": {"type": "integer"}}},
        {
            "$schema": DRAFT3,
            "patternProperties": {"^(a+)+$": {"type": "integer"}},
            "additionalProperties": False,
        },
    ],
)
def test_draft3_regexes_are_bounded(schema: dict[str, Any]) -> None:
    hostile = "a" * 40 + "!"
    compiled = CompiledSchema(schema)
    start = time.perf_counter()
    compiled.violations({"x": hostile, hostile: 1})
    compiled.is_valid({"x": hostile, hostile: 1})
    assert time.perf_counter() - start < 2.0


def test_draft3_patterns_still_match() -> None:
    schema = {
        "$schema": DRAFT3,
        "properties": {"x": {"type": "string", "pattern": "^[a-z]+$"}},
        "patternProperties": {"^n_": {"type": "integer"}},
        "additionalProperties": False,
    }
    compiled = CompiledSchema(schema)
    assert compiled.is_valid({"x": "abc", "n_1": 2})
    assert sorted(v.keyword for v in compiled.violations({"x": "A", "n_1": "2", "y": 1})) == [
        "additionalProperties",
        "pattern",
        "type",
    ]


def test_an_invalid_draft3_pattern_is_refused_at_load() -> None:
    with pytest.raises(SchemaLoadError, match="invalid regular expression"):
        # a Python-only anchor, which ECMA-262 (and so JSON Schema) lacks
        CompiledSchema({"$schema": DRAFT3, "properties": {"x": {"pattern": "a\\Z"}}})


def test_check_with_a_remote_draft3_ref_is_one_line_exit_2(
    run_cli: Run, tmp_path: Path, server: tuple[str, list[str]]
) -> None:
    base, asked = server
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps(
            [
                {
                    "type": "function",
                    "function": {
                        "name": "lookup",
                        "parameters": _schema(f"{base}/x.json"),
                    },
                }
            ]
        )
    )
    capture = tmp_path / "call.json"
    capture.write_text(
        json.dumps(
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "lookup", "arguments": '{"x": 1}'},
                    }
                ],
            }
        )
    )
    result = run_cli("check", "--no-config", "--tools", str(tools), str(capture))
    assert result.code == 2
    assert result.stderr.count("\n") == 1 and "internal error" not in result.stderr
    assert "never fetches" in result.stderr
    assert asked == []


def test_suites_generation_with_a_hostile_pattern_is_bounded() -> None:
    from jsoncontract._regex_sample import PatternUnsupported, sample

    start = time.perf_counter()
    with pytest.raises(PatternUnsupported):
        sample("^(a+)+$b", min_length=2000)
    assert time.perf_counter() - start < 2.0
