"""The provider dialects on what the real SDKs write, against loopback stubs (never the
network): boto3's Converse and ConverseStream, ollama, cohere, mistralai, LangChain's
messages (``model_dump_json`` and ``dumpd``, from langchain-openai) and LiteLLM's standard
logging payload (from a callback).

For each SDK, ``check --tools T`` reports the same calls, failures, codes and pointers as
``check --tools T`` on the equivalent raw Chat Completions response, for every call its
wire can carry; and without ``--tools``, the request the SDK sent, logged with its response,
gives the same verdicts, a call to a tool it did not offer being ``envelope.tool_not_offered``.
The pinned examples of the docs (``fixtures/providers``) read as what the SDKs
write now.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.capture import sdk_captures as sdk

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
PINNED = REPO / "fixtures" / "providers"
Run = Callable[..., Any]
#: What each capture's wire carries of the scenario, and its dialect.
CARRIED = {
    "bedrock": ("object+double", "bedrock-converse"),
    "bedrock-stream": ("text", "bedrock-converse"),
    "ollama": ("object", "ollama"),
    "cohere": ("text", "cohere"),
    "mistral": ("text", "mistral"),
    "langchain": ("text-once", "langchain"),
    "langchain-run": ("text-once", "langchain"),
    "litellm": ("text", "litellm"),
}
Verdict = tuple[str | None, str | None, list[tuple[str, str]]]


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every SDK's captures, each written by its own process (its imports and warnings
    stay there), and the tools and the raw response."""
    folder = tmp_path_factory.mktemp("sdk")
    for provider in sdk.WRITERS:
        subprocess.run(
            [sys.executable, str(Path(sdk.__file__)), provider, str(folder)],
            check=True, cwd=REPO, timeout=300, capture_output=True,
        )  # fmt: skip
    (folder / "tools.json").write_text(json.dumps(sdk.TOOLS))
    (folder / "raw.jsonl").write_text(json.dumps(sdk.chat_completion()) + "\n")
    return folder


def verdicts(run_cli: Run, path: Path, *tools: str) -> list[Verdict]:
    """(tool, stage, [(code, pointer)]) of every call, in order."""
    result = run_cli("check", "--no-config", *tools, "-f", "json", str(path))
    assert result.code in (0, 1), result.stderr
    return [
        (r["tool"], r["stage"], [(f["code"], f["path"]) for f in r["findings"]])
        for r in json.loads(result.stdout)["results"]
    ]


def _dialects(run_cli: Run, path: Path, *tools: str) -> set[str]:
    result = run_cli("check", "--no-config", *tools, "-f", "json", str(path))
    return {r["dialect"] for r in json.loads(result.stdout)["results"]}


def expected(run_cli: Run, written: Path, kind: str) -> list[Verdict]:
    """The raw response's verdicts of the calls a wire of ``kind`` carries."""
    carried = {call_id for call_id, _, _ in sdk.calls(kind)}
    raw = verdicts(run_cli, written / "raw.jsonl", "-t", str(written / "tools.json"))
    return [v for (call_id, *_), v in zip(sdk.CALLS, raw, strict=True) if call_id in carried]


def _mistral(found: list[Verdict]) -> list[Verdict]:
    """Mistral's verdicts less the warning on the one id that breaks its rule (``c6``)."""
    return [(t, s, [f for f in fs if f[0] != "envelope.call_id_format"]) for t, s, fs in found]


@pytest.mark.parametrize("capture", sorted(CARRIED))
def test_an_sdks_output_checks_as_the_raw_response(
    run_cli: Run, in_repo: Path, written: Path, capture: str
) -> None:
    kind, dialect = CARRIED[capture]
    tools = ("-t", str(written / "tools.json"))
    found = verdicts(run_cli, written / f"{capture}.jsonl", *tools)
    if capture == "mistral":
        assert found[5][2] == [("envelope.call_id_format", "")]  # the id "call_6"
        found = _mistral(found)
    assert found == expected(run_cli, written, kind)
    assert _dialects(run_cli, written / f"{capture}.jsonl", *tools) == {dialect}


@pytest.mark.parametrize("capture", ["bedrock", "cohere", "mistral", "langchain", "ollama"])
def test_the_request_the_sdk_sent_is_the_contract(
    run_cli: Run, in_repo: Path, written: Path, capture: str
) -> None:
    kind = CARRIED[capture][0]
    found = verdicts(run_cli, written / f"{capture}-exchange.jsonl")
    if capture == "mistral":
        found = _mistral(found)
    want = [
        (t, s, [("envelope.tool_not_offered", p) if c == "envelope.unknown_tool" else (c, p)
                for c, p in fs])
        for t, s, fs in expected(run_cli, written, kind)
    ]  # fmt: skip
    if capture == "ollama":
        # the ollama SDK sends its own copy of each schema, without additionalProperties:
        # the call with an extra member passes the contract the model was given...
        assert want[3] == ("get_weather", "schema", [("schema.additionalProperties", "/units")])
        want[3] = ("get_weather", None, [])
        # ... and with --tools, the copy is said to differ
        differs = verdicts(run_cli, written / "ollama-exchange.jsonl", "-t",
                           str(written / "tools.json"))  # fmt: skip
        assert ("envelope.offered_schema_differs", "") in differs[0][2]
    assert found == want


@pytest.mark.parametrize(("capture", "kind"), [("litellm", "text"), ("langchain-run", "text-once")])
def test_a_capture_that_records_its_tools_is_checked_without_tools(
    run_cli: Run, in_repo: Path, written: Path, capture: str, kind: str
) -> None:
    found = verdicts(run_cli, written / f"{capture}.jsonl")
    want = expected(run_cli, written, kind)
    assert [f[2] for f in found if f[0] == "get_wether"] == [[("envelope.tool_not_offered", "")]]
    assert [v for v in found if v[0] != "get_wether"] == [v for v in want if v[0] != "get_wether"]


@pytest.mark.parametrize("pinned", sorted(p.name for p in PINNED.glob("*.jsonl")))
def test_the_docs_examples_are_what_the_sdks_write(
    run_cli: Run, in_repo: Path, written: Path, pinned: str
) -> None:
    tools = ("-t", str(written / "tools.json"))
    assert verdicts(run_cli, PINNED / pinned, *tools) == verdicts(run_cli, written / pinned, *tools)
    assert _dialects(run_cli, PINNED / pinned, *tools) == _dialects(
        run_cli, written / pinned, *tools
    )
