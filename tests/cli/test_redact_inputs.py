"""``redact`` reads every input as ``check`` does: a compressed JSON Lines file and standard
input are parsed line by line like a plain file (secrets by member name too), the output is
compressed as its name says, and a key split across streamed fragments is found once they
are joined."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard

from tests.conftest import CliResult

Run = Callable[..., CliResult]
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
#: Secrets found by their member's name only (no value pattern knows them), and one
#: written with an escape.
BY_NAME = {
    "password": "hunter2hunter2",
    "card_number": "4111111111111111",
    "cvv": "737",
    "ssn": "078-05-1120",
    "headers": {"X-Api-Key": "a8f5f167f44f4964e6c998dee827110c"},
}
LINES = (
    json.dumps({"hop": "model", "tool": "pay", "payload": BY_NAME})
    + "\n"
    + '{"note": "\\u0073k_live_4eC39HqLyjWDarjtT1zdp7dc"}\n'
)
SHOWN = ["hunter2hunter2", "4111111111111111", "078-05-1120", "a8f5f167f44f4964", "4eC39HqLyjW"]


def _pack(kind: str, data: bytes) -> bytes:
    return gzip.compress(data) if kind == ".gz" else zstandard.ZstdCompressor().compress(data)


def _unpack(kind: str, data: bytes) -> bytes:
    if kind == ".gz":
        return gzip.decompress(data)
    return zstandard.ZstdDecompressor().decompressobj().decompress(data)


@pytest.mark.parametrize("kind", [".gz", ".zst"])
def test_a_compressed_capture_is_read_as_its_lines(run_cli: Run, tmp_path: Path, kind: str) -> None:
    """Defect 5: a .jsonl.gz or .jsonl.zst was one plain text; only value patterns ran, so
    secrets found by name survived, and --check said clean."""
    capture = tmp_path / f"day.jsonl{kind}"
    capture.write_bytes(_pack(kind, LINES.encode()))
    checked = run_cli("redact", "--check", str(capture), "-f", "json")
    assert checked.code == 1
    kinds = [s["kind"] for f in json.loads(checked.stdout)["files"] for s in f["secrets"]]
    assert kinds.count("sensitive-name") >= 4 and "stripe-key" in kinds
    out = tmp_path / f"clean.jsonl{kind}"
    assert run_cli("redact", str(capture), "-o", str(out)).code == 0
    text = _unpack(kind, out.read_bytes()).decode()  # written compressed, as named
    assert len(text.splitlines()) == 2
    assert not any(secret in text for secret in SHOWN)
    assert run_cli("redact", "--check", str(out)).code == 0


def test_standard_input_is_read_as_its_lines(run_cli: Run, tmp_path: Path) -> None:
    """Defect 5: standard input was one plain text."""
    checked = run_cli("redact", "--check", "-", stdin=LINES.encode())
    assert checked.code == 1
    out = tmp_path / "clean.jsonl"
    assert run_cli("redact", "-", "-o", str(out), stdin=gzip.compress(LINES.encode())).code == 0
    text = out.read_text()
    assert not any(secret in text for secret in SHOWN)
    document = json.dumps({"payload": BY_NAME}, indent=2).encode()  # one document, many lines
    assert run_cli("redact", "-", "-o", str(tmp_path / "one.json"), stdin=document).code == 0
    assert json.loads((tmp_path / "one.json").read_text())["payload"]["cvv"] != "737"


def _chunk(fragment: str) -> str:
    delta = {"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]}
    return json.dumps(
        {
            "id": "chatcmpl-1",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }
    )


def test_a_key_split_across_fragments_is_replaced(run_cli: Run, tmp_path: Path) -> None:
    """Defect 6: a key split across streamed fragments survived: joining them gave it
    back."""
    arguments = json.dumps({"api_key": STRIPE, "note": "ok"})
    cut = arguments.index("4eC39") + 3
    pieces = [arguments[:cut], arguments[cut : cut + 9], arguments[cut + 9 :]]
    capture = tmp_path / "stream.jsonl"
    capture.write_text("".join(_chunk(p) + "\n" for p in pieces))
    assert run_cli("redact", "--check", str(capture)).code == 1
    out = tmp_path / "clean.jsonl"
    assert run_cli("redact", str(capture), "-o", str(out)).code == 0
    joined = "".join(
        json.loads(line)["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"]
        for line in out.read_text().splitlines()
    )
    assert STRIPE not in joined and "4eC39HqLyjW" not in joined
    assert json.loads(joined)["note"] == "ok"  # still the same JSON, each part in its place
    assert run_cli("redact", "--check", str(out)).code == 0


def test_redact_never_changes_a_verdict(run_cli: Run, tmp_path: Path) -> None:
    """Defect 13: ``%2F`` became ``%2U`` (a ``format: uri`` that passed then failed);
    ``client_secret=...&3horse`` was cut at the ``&``; ``X-Amz-Signature`` was no secret."""
    schema = {
        "type": "object",
        "properties": {"callback": {"type": "string", "format": "uri"}},
        "required": ["callback"],
    }
    tools = tmp_path / "schema.json"
    tools.write_text(json.dumps(schema))
    body = {
        "callback": "https://bob:p%2Fss%2fword99@example.com/hook",
        "form": "grant_type=x&client_secret=abcd1234XYZ&3horse",
        "url": "https://s3.amazonaws.com/b/k?X-Amz-Signature=0a1b2c3d4e5f60718293a4b5c6d7e8f9",
    }
    capture = tmp_path / "body.json"
    capture.write_text(json.dumps(body))
    clean = tmp_path / "clean.json"
    assert run_cli("redact", str(capture), "-o", str(clean)).code == 0
    args = ["check", "--no-config", "-t", str(tools), "--tool", "hook", "-f", "json"]
    before, after = run_cli(*args, str(capture)), run_cli(*args, str(clean))
    assert before.code == after.code == 0, after.stdout
    text = clean.read_text()
    assert "3horse" not in text and "abcd1234XYZ" not in text
    assert "0a1b2c3d4e5f6071" not in text and "X-Amz-Signature=" in text


@pytest.mark.parametrize("name", ["call.yaml", "call.yml.gz"])
def test_a_yaml_capture_is_refused_not_passed(run_cli: Run, tmp_path: Path, name: str) -> None:
    text = b"hop: model\ntool: pay\narguments:\n  card_number: '4111111111111111'\n"
    capture = tmp_path / name
    capture.write_bytes(gzip.compress(text) if name.endswith(".gz") else text)
    for args in (["--check"], ["-o", str(tmp_path / "out.yaml")]):
        result = run_cli("redact", str(capture), *args)
        assert result.code == 2, result.stdout
        assert "convert this YAML capture to JSON" in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
        assert "4111111111111111" not in result.stdout + result.stderr
    assert not (tmp_path / "out.yaml").exists()
    folder = tmp_path / "captures"
    folder.mkdir()
    (folder / "ok.jsonl").write_text(LINES)
    capture.rename(folder / name)
    assert run_cli("redact", str(folder), "-o", str(tmp_path / "out")).code == 2
