"""Property-based tests (Hypothesis) over every loader and over check, diff and lint.

Inputs are random (JSON values, text, bytes) and mutated (the bundled captures, tool files,
suites, rules and mapping files with bytes flipped, cut, repeated or spliced). Whatever they
are, every loader either returns or raises one of jsoncontract's own errors (never another
exception), and every command ends with exit 0, 1 or 2, at most one line on stderr, no
"internal error", and no secret it was given in its output.

Every run uses the ``ci`` profile unless told otherwise: 60 examples a property,
derandomised, so that it takes seconds and fails the same way twice;
``HYPOTHESIS_PROFILE=long pytest tests/fuzz`` runs 5,000 a property by hand.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jsoncontract.errors import JsoncontractError

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "fixtures"

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.register_profile(
    "long",
    max_examples=5000,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

Run = Callable[..., Any]

# -- strategies --------------------------------------------------------------------------

KEYS = st.sampled_from(
    ["city", "days", "unit", "type", "function", "name", "arguments", "input", "tool_calls",
     "role", "content", "id", "params", "jsonrpc", "method", "result", "data", "$ref",
     "properties", "required", "additionalProperties", "enum", "pattern", "items", "headers",
     "value", "token", "password", "\u00e9", "", "a/b", "~0"]
)  # fmt: skip
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(KEYS | st.text(max_size=8),
                                                                 inner, max_size=6),
    max_leaves=40,
)  # fmt: skip


def _seeds(folder: str, suffixes: tuple[str, ...]) -> list[bytes]:
    root = FIXTURES / folder
    return [p.read_bytes() for p in sorted(root.rglob("*")) if p.name.endswith(suffixes)][:40]


#: A trace as ``jsoncontract mcp record`` writes it (the ``mcp-trace`` dialect).
MCP_TRACE = b"""\
{"trace": "mcp", "event": "start", "version": 1, "server": "s", "transport": "stdio"}
{"trace": "mcp", "seq": 1, "from": "client", "frame": {"jsonrpc": "2.0", "id": 7, \
"method": "tools/call", "params": {"name": "get_order", "arguments": {"order_id": "O-1"}}}}
{"trace": "mcp", "seq": 2, "from": "server", "frame": {"jsonrpc": "2.0", "id": 7, \
"result": {"content": [], "isError": false}}}
{"trace": "mcp", "event": "exit", "code": 0}
"""
#: Captures of every dialect: the provider fixtures, conversations and batch files,
#: OpenTelemetry exports, HTTP Archives, and a recorded MCP trace.
CAPTURES = (
    _seeds("captures", (".json", ".jsonl", ".sse", ".har"))
    + _seeds("results", (".json", ".jsonl", ".har"))
    + _seeds("downstream", (".har",))
    + [MCP_TRACE]
)
#: YAML tool definitions, OpenAPI documents and captures.
YAML = _seeds("yaml", (".yaml", ".yml"))
TOOLS = _seeds("tools", (".json",)) + _seeds("lint", (".json",))
SUITES = _seeds("suites", (".suite.json",))
RULES = _seeds("rules", (".toml",))
MAPPINGS = _seeds("diff", ("mapping.json",))


SPLICES = [b"{", b"}", b"[", b"]", b'"', b",", b"\\u", b"\x00", b"\xff", b"\n", b"1e999", b"NaN"]


@st.composite
def mutated(draw: st.DrawFn, seeds: list[bytes]) -> bytes:
    """A seed with a few random edits: bytes flipped, removed, repeated or inserted."""
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        edit = draw(st.integers(0, 4))
        if edit == 0:
            data[at] = draw(st.integers(0, 255))
        elif edit == 1:
            del data[at : at + draw(st.integers(1, 16))]
        elif edit == 2:
            piece = data[at : at + draw(st.integers(1, 64))]
            data[at:at] = piece * draw(st.integers(1, 8))
        elif edit == 3:
            data[at:at] = draw(st.sampled_from(SPLICES))
        else:
            del data[at:]
    return bytes(data)


def documents(seeds: list[bytes]) -> st.SearchStrategy[bytes]:
    """Random JSON, random bytes, or a mutated seed."""
    return JSON.map(lambda v: json.dumps(v).encode()) | st.binary(max_size=200) | mutated(seeds)


def _only_our_errors(load: Callable[[], Any]) -> None:
    with contextlib.suppress(JsoncontractError):
        load()


# -- loaders -----------------------------------------------------------------------------


@given(
    data=documents(CAPTURES) | mutated(YAML),
    suffix=st.sampled_from([".json", ".jsonl", ".sse", ".har", ".yaml"]),
)
def test_the_capture_reader_reads_anything(data: bytes, suffix: str, tmp_path: Path) -> None:
    from jsoncontract.capture.reader import CaptureReader

    path = tmp_path / f"capture{suffix}"
    path.write_bytes(data)
    _only_our_errors(lambda: list(CaptureReader().read([path])))


def _compress(data: bytes, kind: str, members: int) -> bytes:
    """``data`` as gzip members or Zstandard frames (cut in ``members`` pieces)."""
    import gzip

    import zstandard

    step = max(1, len(data) // members)
    pieces = [data[at : at + step] for at in range(0, len(data), step)] or [b""]
    if kind == "gzip":
        return b"".join(gzip.compress(piece) for piece in pieces)
    packer = zstandard.ZstdCompressor()
    return b"".join(packer.compress(piece) for piece in pieces)


@given(
    data=mutated(CAPTURES),
    kind=st.sampled_from(["gzip", "zstd"]),
    members=st.integers(1, 4),
    cut=st.integers(0, 3),
    flip=st.integers(0, 1_000_000),
)
def test_compressed_captures_read_as_plain_or_fail_cleanly(
    data: bytes, kind: str, members: int, cut: int, flip: int, tmp_path: Path
) -> None:
    """Intact: the same calls as the plain file. Truncated or with a byte flipped: the calls
    read, then an input error, never another exception."""
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.errors import InputError

    plain = tmp_path / "capture.jsonl"
    plain.write_bytes(data)
    packed = bytearray(_compress(data, kind, members))
    if cut == 1:
        del packed[len(packed) * 2 // 3 :]
    elif cut == 2 and packed:
        packed[flip % len(packed)] ^= 0x5A
    path = tmp_path / ("capture.jsonl" + (".gz" if kind == "gzip" else ".zst"))
    path.write_bytes(bytes(packed))

    def calls(source: Path) -> list[Any]:
        return [
            (c.tool, c.call_id, c.source.line, c.source.pointer)
            for c in CaptureReader().read([source])
        ]

    try:
        expected = calls(plain)
    except JsoncontractError:
        return
    if cut in (0, 3):
        assert calls(path) == expected
    else:
        try:
            got = calls(path)
        except InputError:
            return
        assert len(got) <= len(expected) or cut == 2  # a flip may still decode


@given(data=documents(TOOLS) | mutated(YAML), suffix=st.sampled_from([".json", ".yaml"]))
def test_the_tool_loader_reads_anything(data: bytes, suffix: str, tmp_path: Path) -> None:
    from jsoncontract.tools import load_tool_file

    path = tmp_path / f"tools{suffix}"
    path.write_bytes(data)
    _only_our_errors(lambda: load_tool_file(path))
    _only_our_errors(lambda: load_tool_file(path, duplicates=True))


@given(data=documents(SUITES))
def test_the_suite_loader_reads_anything(data: bytes, tmp_path: Path) -> None:
    from jsoncontract.suites.format import parse_suite

    _only_our_errors(lambda: parse_suite(data, path=tmp_path / "t.suite.json"))


@given(data=mutated(RULES) | st.text(max_size=300).map(str.encode))
def test_the_rules_loader_reads_anything(data: bytes, tmp_path: Path) -> None:
    from jsoncontract.business.rules import load_rules

    path = tmp_path / "rules.toml"
    path.write_bytes(data)
    _only_our_errors(lambda: load_rules([path]))


CONFIG = b'tools = ["fixtures/tools"]\n[check]\nformat = "json"\nfail_on = "warning"\n'


@given(data=mutated([CONFIG]) | st.text(max_size=200).map(str.encode))
def test_the_config_loader_reads_anything(data: bytes, tmp_path: Path) -> None:
    from jsoncontract.config import load_config

    path = tmp_path / "jsoncontract.toml"
    path.write_bytes(data)
    _only_our_errors(lambda: load_config(path))


@given(data=documents(MAPPINGS))
def test_the_mapping_loader_reads_anything(data: bytes, tmp_path: Path) -> None:
    from jsoncontract.diff.mapping import load_mappings

    path = tmp_path / "mapping.json"
    path.write_bytes(data)
    _only_our_errors(lambda: load_mappings([path]))


BASELINES = [
    b'{"version": 1, "summary": {"calls": 1}, "results": [{"ok": false, "findings": '
    b'[{"code": "schema.enum", "severity": "error", "path": "/a"}], '
    b'"source": {"file": "c.json"}}]}',
    b'{"version": "2.1.0", "runs": [{"tool": {"driver": {"name": "jsoncontract"}}, '
    b'"automationDetails": {"id": "jsoncontract/check/"}, "results": [{"ruleId": '
    b'"schema.enum", "level": "error", "message": {"text": "x"}, "partialFingerprints": '
    b'{"jsoncontract/v1": "8cfb7ae94c67522b14107c2481869e79"}}]}]}',
]


@given(data=documents(BASELINES), command=st.sampled_from(["check", "lint", "test"]))
def test_the_baseline_reader_reads_anything(data: bytes, command: str, tmp_path: Path) -> None:
    from jsoncontract.baseline import Baseline

    path = tmp_path / "baseline.json"
    path.write_bytes(data)
    _only_our_errors(lambda: Baseline.load(path, command=command, root=tmp_path))


@given(data=documents([b'{"version": 1, "files": {}}']))
def test_the_lock_reader_reads_anything(data: bytes, tmp_path: Path) -> None:
    from jsoncontract.pin import read_lock

    path = tmp_path / "jsoncontract.lock"
    path.write_bytes(data)
    _only_our_errors(lambda: read_lock(path))


# -- commands ----------------------------------------------------------------------------

SECRET = "sk-" + "proj-" + "Qq1Ww2Ee3Rr4Tt5Yy6Uu7Ii8"


def _sound(result: Any) -> None:
    assert result.code in (0, 1, 2), result.stderr
    assert result.stderr.count("\n") <= 1, result.stderr[:1000]
    assert "internal error" not in result.stderr


@given(data=documents(CAPTURES), suffix=st.sampled_from([".json", ".jsonl", ".sse"]),
       fmt=st.sampled_from(["text", "json", "sarif"]))  # fmt: skip
def test_check_on_anything(run_cli: Run, data: bytes, suffix: str, fmt: str,
                           tmp_path: Path) -> None:  # fmt: skip
    path = tmp_path / f"capture{suffix}"
    path.write_bytes(data)
    _sound(run_cli("check", "--no-config", "--tools", str(FIXTURES / "tools"), "-f", fmt,
                   str(path)))  # fmt: skip


@given(data=documents(CAPTURES))
def test_diff_on_anything(run_cli: Run, data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(data)
    _sound(run_cli("diff", "--no-config", "--tools", str(FIXTURES / "tools"), "--trace",
                   str(path)))  # fmt: skip


@given(data=documents(TOOLS), fmt=st.sampled_from(["text", "json", "sarif"]))
def test_lint_on_anything(run_cli: Run, data: bytes, fmt: str, tmp_path: Path) -> None:
    path = tmp_path / "tools.json"
    path.write_bytes(data)
    _sound(run_cli("lint", "--no-config", "-f", fmt, str(path)))


@given(name=KEYS | st.text(min_size=1, max_size=12), where=st.sampled_from(["arg", "note"]),
       fmt=st.sampled_from(["text", "json", "jsonl", "github", "sarif", "junit"]))  # fmt: skip
def test_check_never_echoes_a_key(run_cli: Run, name: str, where: str, fmt: str,
                                  tmp_path: Path) -> None:  # fmt: skip
    arguments = {name: SECRET} if where == "arg" else {"city": f"key {SECRET} here", name: 1}
    call = {
        "id": "c",
        "type": "function",
        "function": {"name": "get_weather", "arguments": json.dumps(arguments)},
    }
    path = tmp_path / "trace.jsonl"
    path.write_text(json.dumps({"role": "assistant", "tool_calls": [call]}) + "\n")
    result = run_cli("check", "--no-config", "--tools", str(FIXTURES / "tools"), "-f", fmt,
                     str(path))  # fmt: skip
    _sound(result)
    assert SECRET not in result.stdout + result.stderr


def _shape(value: Any) -> Any:
    """What redact keeps of a value: members, order, types and string lengths."""
    if isinstance(value, dict):
        return [(key, _shape(item)) for key, item in value.items()]
    if isinstance(value, list):
        return [_shape(item) for item in value]
    if isinstance(value, str):
        return ("str", len(value))
    return type(value).__name__


@given(value=JSON)
def test_redact_keeps_every_value_s_shape(value: Any) -> None:
    from jsoncontract.redact import scrub_text

    text = json.dumps({"password": value, "data": value, "note": SECRET})
    new = scrub_text(text).text
    parsed = json.loads(new)
    assert SECRET not in new
    assert _shape(parsed["data"]) == _shape(value)
    assert _shape(parsed["password"]) == _shape(value)


pytestmark = pytest.mark.filterwarnings("ignore::hypothesis.errors.NonInteractiveExampleWarning")
