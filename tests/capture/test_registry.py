"""The registry of dialects, and adding one: a toy dialect, one module's worth of code below,
read end to end (tool definitions, whole messages, parts, a stream) through ``check``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import orjson
import pytest

from jsoncontract import check
from jsoncontract.capture import CaptureReader
from jsoncontract.capture.base import Assembler, envelope, make_call, text
from jsoncontract.capture.interface import DocContext, Handler, ToolLayout
from jsoncontract.capture.registry import (
    BUILT_IN,
    DIALECTS,
    HOP_ORDER,
    Registry,
    built_in_names,
)
from jsoncontract.errors import UsageError
from jsoncontract.model import ArgumentsForm, Dialect, Finding, Hop, SchemaLocation, ToolCall
from jsoncontract.tools import load_tool_file

Write = Callable[[str, object], Path]

# -- the toy dialect: "Acme" agent logs ---------------------------------------------------
#
# A whole message: {"acme": 1, "invocations": [{"ref", "tool", "input"}]}; an invocation
# may be logged on its own; streamed, {"acme_delta": {"ref", "tool"?, "chunk"}} fragments
# end with {"acme_done": {"ref"}}. Tool definitions: {"kind": "acme-tool", "spec": {name,
# description, "takes": schema, "gives": schema}}.


def invocation(
    node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = ""
) -> None:
    findings: list[Finding] = []
    name = text(node, "tool")
    if not name:
        findings.append(envelope("envelope.malformed", "the invocation names no tool"))
    out.append(
        make_call(
            ctx,
            TOY,
            tool=name,
            call_id=node.get("ref"),
            arguments=node.get("input", {}),
            form=ArgumentsForm.VALUE,
            node=pointer,
            args=pointer + "/input" if "input" in node else None,
            findings=findings,
        )
    )


def message(node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = "") -> None:
    for i, item in enumerate(node.get("invocations") or ()):
        if isinstance(item, dict):
            invocation(item, ctx, out, f"{pointer}/invocations/{i}")


class AcmeStream:
    def __init__(self) -> None:
        self.calls = Assembler(TOY, unit="invocation", unnamed="the invocation names no tool")

    def feed(self, event: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
        delta = event.get("acme_delta")
        if isinstance(delta, dict):
            pending = self.calls.open(delta.get("ref"), ctx)
            pending.call_id = delta.get("ref")
            pending.name = text(delta, "tool") or pending.name
            if isinstance(delta.get("chunk"), str):
                pending.parts.append(delta["chunk"])
        done = event.get("acme_done")
        if isinstance(done, dict):
            finished = self.calls.pop(done.get("ref"))
            if finished is not None:
                self.calls.close(finished, out)

    def flush(self, out: list[ToolCall]) -> None:
        self.calls.flush(out)


class Acme:
    name: Final = "acme"
    hop: Final = Hop.MODEL
    mark: Final = "acme"
    tools: Final = ToolLayout(
        lambda entry: entry.get("kind") == "acme-tool",
        input=("/spec/takes",),
        output=("/spec/gives",),
        body="/spec",
    )

    def new_state(self) -> AcmeStream:
        return AcmeStream()

    def whole(self, value: dict[str, Any], state: AcmeStream) -> Handler | None:
        return message if isinstance(value.get("invocations"), list) else None

    def part(self, value: dict[str, Any], state: AcmeStream) -> Handler | None:
        if "acme_delta" in value or "acme_done" in value:
            return state.feed
        if "tool" in value and "ref" in value:
            return invocation
        return None


TOY: Final = Acme()

# -- fixtures -----------------------------------------------------------------------------

SHIP = {
    "type": "object",
    "properties": {
        "order": {"type": "string"},
        "speed": {"enum": ["standard", "overnight"]},
    },
    "required": ["order", "speed"],
    "additionalProperties": False,
}
TOOLS = {
    "tools": [
        {
            "kind": "acme-tool",
            "spec": {
                "name": "ship",
                "description": "Ship an order.",
                "takes": SHIP,
                "gives": {"type": "object"},
            },
        }
    ]
}


def lines(*documents: object) -> str:
    return "".join(orjson.dumps(d).decode() + "\n" for d in documents)


CAPTURE = lines(
    {
        "acme": 1,
        "invocations": [
            {"ref": "inv-1", "tool": "ship", "input": {"order": "A1", "speed": "overnight"}},
            {"ref": "inv-2", "tool": "ship", "input": {"order": "A2", "speed": "urgent"}},
        ],
    },
    {"ref": "inv-3", "tool": "ship", "input": {"order": "A3"}},
    {"acme_delta": {"ref": "inv-4", "tool": "ship", "chunk": '{"order": "A4", '}},
    {"acme_delta": {"ref": "inv-4", "chunk": '"speed": "standard"}'}},
    {"acme_done": {"ref": "inv-4"}},
    {"acme_delta": {"ref": "inv-5", "tool": "ship", "chunk": '{"order": "A'}},
)


@pytest.fixture
def registry() -> Registry:
    return DIALECTS.adding(TOY)


def test_a_registered_dialect_is_checked_end_to_end(write: Write, registry: Registry) -> None:
    tools = write("acme-tools.json", TOOLS)
    capture = write("acme.jsonl", CAPTURE)
    report = check([capture], tools=[tools], dialects=registry)
    got = [
        (r.call.call_id, r.call.dialect, r.call.hop, r.call.source.line, r.stage)
        for r in report.results
    ]
    assert got == [
        ("inv-1", "acme", Hop.MODEL, 1, None),
        ("inv-2", "acme", Hop.MODEL, 1, "schema"),
        ("inv-3", "acme", Hop.MODEL, 2, "schema"),
        ("inv-4", "acme", Hop.MODEL, 3, None),
        ("inv-5", "acme", Hop.MODEL, 6, "parse"),
    ]
    codes = [[f.code for f in r.findings] for r in report.results]
    assert codes == [
        [],
        ["schema.enum"],
        ["schema.required"],
        [],
        ["envelope.incomplete_stream", "parse.truncated"],
    ]
    assert report.to_dict()["results"][0]["dialect"] == "acme"
    assert (report.summary.calls, report.summary.failed) == (5, 3)


def test_the_tool_contract_records_where_the_dialect_keeps_its_schemas(
    write: Write, registry: Registry
) -> None:
    (tool,) = load_tool_file(write("acme-tools.json", TOOLS), dialects=registry)
    assert (tool.name, tool.dialect, tool.description) == ("ship", "acme", "Ship an order.")
    assert (tool.input_schema, tool.output_schema) == (SHIP, {"type": "object"})
    assert tool.body_pointer == "/tools/0/spec"
    assert tool.input_location == SchemaLocation("/tools/0/spec/takes")
    assert tool.output_location == SchemaLocation("/tools/0/spec/gives")


def test_a_dialect_can_be_forced_by_its_name(write: Write, registry: Registry) -> None:
    capture = write("one.json", {"ref": "inv-9", "tool": "ship", "input": {}})
    calls = list(CaptureReader(dialect="acme", dialects=registry).read([capture]))
    assert [(c.dialect, c.call_id) for c in calls] == [("acme", "inv-9")]


def test_the_built_in_registry_is_left_unchanged(write: Write, registry: Registry) -> None:
    assert "acme" in registry and "acme" not in DIALECTS
    capture = write("acme.jsonl", CAPTURE)
    codes = {f.code for c in CaptureReader().read([capture]) for f in c.load_findings}
    assert codes == {"envelope.unknown_dialect"}
    with pytest.raises(UsageError, match=r"unknown capture dialect 'acme'"):
        CaptureReader(dialect="acme")


def test_a_dialect_added_before_another_takes_precedence(write: Write) -> None:
    class Greedy(Acme):
        """Reads a bare Gemini function call as its own."""

        name = "greedy"

        def part(self, value: dict[str, Any], state: AcmeStream) -> Handler | None:
            return self.call if "args" in value else None

        def call(
            self, node: dict[str, Any], ctx: DocContext, out: list[ToolCall], pointer: str = ""
        ) -> None:
            out.append(
                make_call(
                    ctx,
                    self,
                    tool=text(node, "name"),
                    call_id=None,
                    arguments=node["args"],
                    form=ArgumentsForm.VALUE,
                    node=pointer,
                    args=pointer + "/args",
                )
            )

    doc = write("call.json", {"name": "get_weather", "args": {}})
    first = DIALECTS.adding(Greedy(), before=Dialect.GEMINI)
    last = DIALECTS.adding(Greedy())
    assert [c.dialect for c in CaptureReader(dialects=first).read([doc])] == ["greedy"]
    assert [c.dialect for c in CaptureReader(dialects=last).read([doc])] == [Dialect.GEMINI]


# -- the built-in table --------------------------------------------------------------------


def test_every_built_in_dialect_is_registered_once() -> None:
    names = DIALECTS.names()
    assert sorted(names) == sorted(d.value for d in Dialect if d is not Dialect.JSON_SCHEMA)
    # listed in the order a call passes the hops, model providers first
    assert names == [
        "litellm",
        "langchain",
        "mistral",
        "bedrock-converse",
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
        "ollama",
        "cohere",
        "otlp",
        "mcp",
        "mcp-trace",
        "downstream",
    ]
    assert DIALECTS.fallback.name == Dialect.DOWNSTREAM
    assert DIALECTS.dialects[0].name == Dialect.MCP  # asked first


def test_two_dialects_of_one_name_are_refused() -> None:
    with pytest.raises(ValueError, match=r"two capture dialects are called 'mcp'"):
        DIALECTS.adding(DIALECTS.find(Dialect.MCP))


def test_the_table_lists_the_registered_dialects_without_importing_them() -> None:
    assert built_in_names() == DIALECTS.names()
    assert [line.name for line in BUILT_IN] == [d.name for d in DIALECTS]  # asked in order
    assert tuple(h.value for h in Hop) == HOP_ORDER


def test_a_line_that_does_not_match_its_module_is_refused() -> None:
    from jsoncontract.capture.registry import BuiltIn, _load

    assert _load(BuiltIn("gemini", "gemini", "model")) is DIALECTS.find(Dialect.GEMINI)
    with pytest.raises(ValueError, match=r"defines the dialect 'gemini' at hop 'model'"):
        _load(BuiltIn("vertex", "gemini", "model"))
