"""A generated corpus of traces for the differential test of call identity.

A trace is a list of :class:`Step` values, each one JSONL line of some capture dialect, spread
over one to three files. The steps are drawn (by Hypothesis, :func:`traces`) from a small
pool of call ids, tools, arguments and results, so that what the ledger must get right
comes up often:

- **reused ids**: one id given to calls of other tools or other arguments, in one file or
  across files and dialects;
- **the same call seen again**: a response, then the next request's history (with or
  without the call's result, in any later line, past the result window or not); an
  OpenTelemetry chat span's ``tool_call`` part, then the execute-tool span (a retry span:
  another span id, the same ``gen_ai.tool.call.id``);
- **edited histories** (a call's arguments or result changed in a later request), **results
  before their calls**, **duplicate and conflicting results** (two tool messages for one
  id);
- **MCP frames** whose JSON-RPC ids are integers and strings (``1`` and ``"1"``: two ids);
- **every dialect**: OpenAI Chat (responses with one or more choices, and requests),
  OpenAI Responses, Anthropic, Gemini, OpenTelemetry spans and MCP frames, each through
  its own builder in :data:`SHAPES`; a dialect added to the lane later needs no change
  here;
- **filler**: runs of distinct valid calls that push earlier calls past the window and
  open the fast lane (a trace of calls alone past the first window);
- **runs that a dialect remembers**: Responses responses, among which one is written again
  (its items, produced before, are skipped) or a request's history repeats an earlier
  item; MCP requests, among which an id is used again, and perhaps an answer to an earlier
  one. Cut into parts, each part after the first joins the memory its file's earlier parts
  left, or is read again when it would have read otherwise (see
  :mod:`jsoncontract.pipeline.runner`);
- **traces with results the fast lane reads for the ledger**: MCP sessions whose requests
  are answered (at once, later, twice or never; tool errors, structured content, JSON-RPC
  errors, ids used again), and Chat conversations logged as a proxy logs them (each
  request repeating every earlier turn with its results, now and then edited or repeated).

:func:`expected_calls` says how many calls the contract counts in a trace: one per distinct
(id, tool, arguments as a JSON value) among the model-hop sightings, plus one per MCP
request. The test then checks every path against it and against each other.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from hypothesis import strategies as st

#: The tools of the corpus: a read with an output schema, and a write with a business rule.
TOOLS: Final = {
    "tools": [
        {
            "name": "lookup",
            "description": "Look an order up by its number.",
            "inputSchema": {
                "type": "object",
                "properties": {"id": {"type": "integer", "minimum": 1}},
                "required": ["id"],
                "additionalProperties": False,
            },
            "outputSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
            "annotations": {"readOnlyHint": True},
        },
        {
            "name": "pay",
            "description": "Pay an amount, once per idempotency key.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "amount": {"type": "integer"},
                    "idempotency_key": {"type": "string"},
                },
                "required": ["amount", "idempotency_key"],
                "additionalProperties": False,
            },
        },
    ]
}
#: A business rule on ``pay`` (so the lane sends its calls to the full gates).
RULES: Final = """version = 1

[[tools.pay]]
id = "positive-amount"
rule = "self.amount > 0"
message = "the amount must be positive"
"""

IDS: Final = ("call_1", "call_2", "call_3", "toolu_1")
#: Arguments per tool: valid, and invalid by schema (and, for pay, by its rule).
ARGUMENTS: Final = {
    "lookup": ({"id": 1}, {"id": 2}, {"id": -1}, {"id": "x"}),
    "pay": (
        {"amount": 5, "idempotency_key": "k1"},
        {"amount": -999, "idempotency_key": "k1"},
        {"amount": 7, "idempotency_key": "k2"},
    ),
}
_STRIPE: Final = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
#: Results: a plain answer, an error, and a stack trace that leaks a key.
RESULTS: Final = (
    '{"ok": true}',
    '{"ok": false, "error": {"code": "DECLINED"}}',
    "Traceback (most recent call last):\n"
    '  File "/srv/pay.py", line 12, in charge\n'
    "    stripe.Charge.create(api_key=key)\n"
    f"stripe.error.AuthenticationError: Invalid API Key provided: {_STRIPE}",
)


@dataclass(frozen=True)
class Call:
    """One sighting of a model-hop call: its id, tool, arguments and result (an index into
    :data:`RESULTS`, or ``None``)."""

    call_id: str
    tool: str
    arguments: dict[str, Any]
    result: int | None = None


def _tool(name: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    found = next(t for t in TOOLS["tools"] if t["name"] == name)
    return {"name": name, "description": found["description"],
            "schema": schema or found["inputSchema"]}  # fmt: skip


#: The tools a request may offer: none named, both as ``--tools`` defines them, ``lookup``
#: alone (``pay`` is not offered), and ``lookup`` with another schema (``--tools`` wins, and
#: says the offered one differs; without ``--tools``, ``{"id": "x"}`` passes it).
OFFERED: Final = (
    None,
    [_tool("lookup"), _tool("pay")],
    [_tool("lookup")],
    [_tool("lookup", {"type": "object", "properties": {"id": {}}}), _tool("pay")],
)


def _offered(step: Step, form: str) -> dict[str, Any]:
    """The ``tools`` member of a request of dialect ``form`` offering ``step.offered``."""
    tools = OFFERED[step.offered]
    if tools is None:
        return {}
    written = []
    for t in tools:
        name, about, schema = t["name"], t["description"], t["schema"]
        if form == "chat":
            function = {"name": name, "description": about, "parameters": schema}
            written.append({"type": "function", "function": function})
        elif form == "anthropic":
            written.append({"name": name, "description": about, "input_schema": schema})
        elif form == "responses":
            written.append(
                {"type": "function", "name": name, "description": about, "parameters": schema}
            )
        else:
            written.append({"name": name, "description": about, "parametersJsonSchema": schema})
    return {"tools": [{"functionDeclarations": written}] if form == "gemini" else written}


@dataclass(frozen=True)
class Step:
    """One line: ``shape`` names its builder in :data:`SHAPES`; ``file`` is which file of
    the trace it goes to."""

    shape: str
    calls: tuple[Call, ...] = ()
    file: int = 0
    extra: Any = None
    #: the tools a request offers: an index into :data:`OFFERED`
    offered: int = 0


# -- the builders, one per shape --------------------------------------------------------------


def _text(result: int | None) -> str:
    return RESULTS[result] if result is not None else ""


def chat_response(step: Step) -> dict[str, Any]:
    """An OpenAI Chat completion: one choice per call."""
    return {
        "id": f"chatcmpl-{step.extra}",
        "object": "chat.completion",
        "model": "gpt-4.1",
        "choices": [
            {
                "index": i,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [_chat_call(c)],
                },
            }
            for i, c in enumerate(step.calls)
        ],
    }


def _chat_call(call: Call) -> dict[str, Any]:
    return {
        "id": call.call_id,
        "type": "function",
        "function": {"name": call.tool, "arguments": json.dumps(call.arguments)},
    }


def chat_request(step: Step) -> dict[str, Any]:
    """An OpenAI Chat request: a history of the calls, each followed by its result."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Go on."}]
    for c in step.calls:
        messages.append({"role": "assistant", "content": None, "tool_calls": [_chat_call(c)]})
        if c.result is not None:
            messages.append({"role": "tool", "tool_call_id": c.call_id, "content": _text(c.result)})
    return {"model": "gpt-4.1", "messages": messages, **_offered(step, "chat")}


def chat_exchange(step: Step) -> dict[str, Any]:
    """A Chat request and its completion logged together (as a proxy logs them): the
    completion's calls are offered the request's tools."""
    request = {"model": "gpt-4.1", "messages": [{"role": "user", "content": "Go."}]}
    return {"request": request | _offered(step, "chat"), "response": chat_response(step)}


def chat_result(step: Step) -> dict[str, Any]:
    """A lone OpenAI Chat tool message (a result on its own line)."""
    (c,) = step.calls
    return {"role": "tool", "tool_call_id": c.call_id, "content": _text(c.result)}


def anthropic_response(step: Step) -> dict[str, Any]:
    """An Anthropic message with the calls as ``tool_use`` blocks."""
    return {
        "id": f"msg_{step.extra}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4-5",
        "content": [
            {"type": "tool_use", "id": c.call_id, "name": c.tool, "input": c.arguments}
            for c in step.calls
        ],
        "stop_reason": "tool_use",
    }


def anthropic_request(step: Step) -> dict[str, Any]:
    """An Anthropic request: each call, then its ``tool_result``."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Go on."}]
    for c in step.calls:
        messages.append(
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": c.call_id, "name": c.tool, "input": c.arguments}
                ],
            }
        )
        if c.result is not None:
            block = {"type": "tool_result", "tool_use_id": c.call_id, "content": _text(c.result)}
            messages.append({"role": "user", "content": [block]})
    return {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": messages,
        **_offered(step, "anthropic"),
    }


def responses_response(step: Step) -> dict[str, Any]:
    """An OpenAI Responses response with ``function_call`` items."""
    return {
        "id": f"resp_{step.extra}",
        "object": "response",
        "model": "gpt-5-mini",
        "output": [
            {
                "type": "function_call",
                "id": f"fc_{step.extra}_{i}",
                "call_id": c.call_id,
                "name": c.tool,
                "arguments": json.dumps(c.arguments),
            }
            for i, c in enumerate(step.calls)
        ],
    }


def responses_request(step: Step) -> dict[str, Any]:
    """An OpenAI Responses request whose input holds the calls and their outputs."""
    items: list[dict[str, Any]] = [{"role": "user", "content": "Go on."}]
    for i, c in enumerate(step.calls):
        items.append(
            {
                "type": "function_call",
                "id": f"fc_h{i}",
                "call_id": c.call_id,
                "name": c.tool,
                "arguments": json.dumps(c.arguments),
            }
        )
        if c.result is not None:
            items.append(
                {"type": "function_call_output", "call_id": c.call_id, "output": _text(c.result)}
            )
    return {"model": "gpt-5-mini", "input": items, **_offered(step, "responses")}


def gemini_response(step: Step) -> dict[str, Any]:
    """A Gemini response whose ``functionCall`` parts carry ids."""
    parts = [
        {"functionCall": {"id": c.call_id, "name": c.tool, "args": c.arguments}} for c in step.calls
    ]
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "index": 0}]}


def gemini_request(step: Step) -> dict[str, Any]:
    """A Gemini request: each call, then its ``functionResponse``."""
    contents: list[dict[str, Any]] = [{"role": "user", "parts": [{"text": "Go on."}]}]
    for c in step.calls:
        call = {"functionCall": {"id": c.call_id, "name": c.tool, "args": c.arguments}}
        contents.append({"role": "model", "parts": [call]})
        if c.result is not None:
            answer = {"id": c.call_id, "name": c.tool, "response": {"output": _text(c.result)}}
            contents.append({"role": "user", "parts": [{"functionResponse": answer}]})
    return {"contents": contents, **_offered(step, "gemini")}


def bedrock_response(step: Step) -> dict[str, Any]:
    """A Bedrock Converse response, as boto3 returns it: ``toolUse`` blocks."""
    blocks = [{"toolUse": {"toolUseId": c.call_id, "name": c.tool, "input": c.arguments}}
              for c in step.calls]  # fmt: skip
    return {
        "ResponseMetadata": {"RequestId": f"r{step.extra}", "HTTPStatusCode": 200},
        "output": {"message": {"role": "assistant", "content": blocks}},
        "stopReason": "tool_use",
    }


def cohere_response(step: Step) -> dict[str, Any]:
    """A Cohere v2 chat response, as its SDK dumps it."""
    message = {"role": "assistant", "tool_plan": "Looking it up.",
               "tool_calls": [_chat_call(c) for c in step.calls]}  # fmt: skip
    return {"id": f"co{step.extra}", "finish_reason": "TOOL_CALL", "message": message}


def mistral_response(step: Step) -> dict[str, Any]:
    """A Mistral completion (its messages say ``prefix``)."""
    found = chat_response(step)
    for choice in found["choices"]:
        choice["message"]["prefix"] = False
    found["model"] = "mistral-large-latest"
    return found


def langchain_message(step: Step) -> dict[str, Any]:
    """A LangChain ``AIMessage`` as ``model_dump_json`` writes it."""
    calls = [{"name": c.tool, "args": c.arguments, "id": c.call_id, "type": "tool_call"}
             for c in step.calls]  # fmt: skip
    return {"type": "ai", "content": "", "id": f"run-{step.extra}", "tool_calls": calls,
            "invalid_tool_calls": []}  # fmt: skip


def litellm_payload(step: Step) -> dict[str, Any]:
    """A LiteLLM standard logging payload: the completion, and the tools offered."""
    tools = _offered(step, "chat").get("tools")
    return {"id": f"l{step.extra}", "call_type": "completion", "status": "success",
            "response": chat_response(step), "model_parameters": {"tools": tools} if tools else {},
            "messages": [{"role": "user", "content": "Go."}]}  # fmt: skip


def _span(name: str, span_id: str, attributes: dict[str, str]) -> dict[str, Any]:
    return {
        "resourceSpans": [
            {
                "scopeSpans": [
                    {
                        "scope": {"name": "agent"},
                        "spans": [
                            {
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "spanId": span_id,
                                "name": name,
                                "kind": 1,
                                "startTimeUnixNano": "1764581400000000000",
                                "endTimeUnixNano": "1764581400100000000",
                                "attributes": [
                                    {"key": k, "value": {"stringValue": v}}
                                    for k, v in attributes.items()
                                ],
                                "status": {},
                            }
                        ],
                    }
                ]
            }
        ]
    }


def span_chat(step: Step) -> dict[str, Any]:
    """An OpenTelemetry chat span whose output holds the calls as ``tool_call`` parts."""
    parts = [
        {"type": "tool_call", "id": c.call_id, "name": c.tool, "arguments": c.arguments}
        for c in step.calls
    ]
    output = [{"role": "assistant", "parts": parts, "finish_reason": "tool_call"}]
    return _span(
        "chat gpt-4.1",
        f"{step.extra:016x}",
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.output.messages": json.dumps(output),
        },
    )


def span_execute(step: Step) -> dict[str, Any]:
    """An OpenTelemetry execute-tool span (a retry is another span of the same call id)."""
    (c,) = step.calls
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": c.tool,
        "gen_ai.tool.call.id": c.call_id,
        "gen_ai.tool.call.arguments": json.dumps(c.arguments),
    }
    if c.result is not None:
        attributes["gen_ai.tool.call.result"] = _text(c.result)
    return _span(f"execute_tool {c.tool}", f"{step.extra:016x}", attributes)


def mcp_request(step: Step) -> dict[str, Any]:
    """An MCP ``tools/call`` request; ``extra`` is its JSON-RPC id (an int or a string)."""
    (c,) = step.calls
    return {
        "jsonrpc": "2.0",
        "id": step.extra,
        "method": "tools/call",
        "params": {"name": c.tool, "arguments": c.arguments},
    }


def mcp_tools(step: Step) -> dict[str, Any]:
    """A ``tools/list`` answer (its request not logged): the tools the session offers its
    calls from then on (every tool, where ``offered`` names none)."""
    tools = OFFERED[step.offered] or OFFERED[1]
    assert tools is not None
    listed = [{"name": t["name"], "description": t["description"], "inputSchema": t["schema"]}
              for t in tools]  # fmt: skip
    return {"jsonrpc": "2.0", "id": f"list{step.extra}", "result": {"tools": listed}}


def mcp_response(step: Step) -> dict[str, Any]:
    """The answer to the MCP request of JSON-RPC id ``extra``."""
    (c,) = step.calls
    text = _text(c.result)
    return {
        "jsonrpc": "2.0",
        "id": step.extra,
        "result": {"content": [{"type": "text", "text": text}], "isError": c.result != 0},
    }


def mcp_structured(step: Step) -> dict[str, Any]:
    """:func:`mcp_response` with ``structuredContent`` (``lookup`` declares an output schema:
    an answer that is no tool error matches it, an error's does not) and its text."""
    (c,) = step.calls
    found = mcp_response(step)
    structured = {"ok": True} if c.result == 0 else {"ok": "no", "detail": _text(c.result)}
    found["result"]["structuredContent"] = structured
    found["result"]["content"] = [{"type": "text", "text": json.dumps(structured)}]
    return found


def mcp_error(step: Step) -> dict[str, Any]:
    """A JSON-RPC error answering the MCP request of id ``extra``."""
    return {"jsonrpc": "2.0", "id": step.extra, "error": {"code": -32602, "message": "bad"}}


#: Every shape: its builder, and whether its calls are model-hop sightings.
SHAPES: Final = {
    "chat_response": (chat_response, True),
    "chat_request": (chat_request, True),
    "chat_result": (chat_result, False),
    "chat_exchange": (chat_exchange, True),
    "bedrock_response": (bedrock_response, True),
    "cohere_response": (cohere_response, True),
    "mistral_response": (mistral_response, True),
    "langchain_message": (langchain_message, True),
    "litellm_payload": (litellm_payload, True),
    "anthropic_response": (anthropic_response, True),
    "anthropic_request": (anthropic_request, True),
    "responses_response": (responses_response, True),
    "responses_request": (responses_request, True),
    "gemini_response": (gemini_response, True),
    "gemini_request": (gemini_request, True),
    "span_chat": (span_chat, True),
    "span_execute": (span_execute, True),
    "mcp_request": (mcp_request, False),
    "mcp_tools": (mcp_tools, False),
    "mcp_response": (mcp_response, False),
    "mcp_structured": (mcp_structured, False),
    "mcp_error": (mcp_error, False),
}
#: The shapes that may carry several calls, and those that carry results.
_MANY: Final = (
    "chat_response",
    "anthropic_response",
    "responses_response",
    "gemini_response",
    "chat_exchange",
    "bedrock_response",
    "cohere_response",
    "mistral_response",
    "langchain_message",
    "litellm_payload",
)
_HISTORIES: Final = ("chat_request", "anthropic_request", "responses_request", "gemini_request")


def line(step: Step) -> str:
    """The JSONL line of one step."""
    build, _ = SHAPES[step.shape]
    return json.dumps(build(step), separators=(",", ":"))


def _canonical(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, sort_keys=True)


def expected_calls(steps: list[Step]) -> int:
    """How many calls the contract counts: one per distinct (id, tool, arguments) among the
    model-hop sightings, one per MCP request."""
    seen: set[tuple[str, str, str]] = set()
    mcp = 0
    for step in steps:
        if step.shape == "mcp_request":
            mcp += 1
        elif SHAPES[step.shape][1]:
            seen.update((c.call_id, c.tool, _canonical(c.arguments)) for c in step.calls)
    return len(seen) + mcp


@dataclass
class Trace:
    """A generated trace: its steps, in order, and the result window to check it with."""

    steps: list[Step]
    window: int
    files: int = 1
    written: list[Path] = field(default_factory=list)
    #: checked without ``--tools``: each call against the tools offered with it
    capture: bool = False

    def write(self, where: Path, compression: str = "") -> list[Path]:
        """Write the trace's files into ``where`` (``.gz`` or ``.zst`` with
        ``compression``); returns their paths, in order (a file no step went to is not
        written)."""
        texts = ["" for _ in range(self.files)]
        for step in self.steps:
            texts[step.file] += line(step) + "\n"
        paths = []
        for i, text in enumerate(texts):
            if not text:  # an empty capture is refused: no file
                continue
            path = where / f"part{i}.jsonl{compression}"
            data = text.encode()
            if compression == ".gz":
                data = gzip.compress(data)
            elif compression == ".zst":
                import zstandard

                data = zstandard.ZstdCompressor().compress(data)
            path.write_bytes(data)
            paths.append(path)
        return paths


def write_tools(where: Path) -> tuple[Path, Path]:
    """The corpus's tools file and rules file, written into ``where``."""
    tools, rules = where / "tools.json", where / "rules.toml"
    tools.write_text(json.dumps(TOOLS))
    rules.write_text(RULES)
    return tools, rules


# -- the strategies ---------------------------------------------------------------------------


@st.composite
def calls(draw: st.DrawFn, *, results: bool) -> Call:
    """One sighting, from the small pools."""
    tool = draw(st.sampled_from(sorted(ARGUMENTS)))
    return Call(
        draw(st.sampled_from(IDS)),
        tool,
        draw(st.sampled_from(ARGUMENTS[tool])),
        draw(st.none() | st.integers(0, len(RESULTS) - 1)) if results else None,
    )


@st.composite
def steps(draw: st.DrawFn, files: int, shape: str | None = None) -> list[Step]:
    """One or a few lines of one shape (``shape``, else any; a run of filler is many)."""
    file = draw(st.integers(0, files - 1))
    serial = draw(st.integers(0, 2**32))
    if shape is None:
        shape = draw(st.sampled_from([*SHAPES, *GROUPS]))
    if shape == "responses_run":
        return _responses_run(draw, file, serial)
    if shape == "mcp_run":
        return _mcp_run(draw, file, serial)
    if shape == "mcp_session":
        return _mcp_session(draw, file, serial)
    if shape == "conversation":
        return _conversation(draw, file, serial)
    if shape == "filler":  # distinct valid calls, alone: past the window, the lane opens
        count = draw(st.integers(1, 40))
        return [
            Step(
                "chat_response",
                (Call(f"call_f{serial}_{n}", "lookup", {"id": 1 + n % 7}),),
                file,
                f"f{serial}_{n}",
            )
            for n in range(count)
        ]
    if shape in _HISTORIES:
        found = tuple(draw(st.lists(calls(results=True), min_size=1, max_size=3)))
    elif shape in _MANY:
        found = tuple(draw(st.lists(calls(results=False), min_size=1, max_size=2)))
    elif shape in ("chat_result", "span_execute", "mcp_response", "mcp_structured", "mcp_error"):
        one = draw(calls(results=True))
        if one.result is None and shape != "span_execute":
            one = Call(one.call_id, one.tool, one.arguments, 0)
        found = (one,)
    else:
        found = (draw(calls(results=False)),)
    if shape == "mcp_error":  # its answer says no result
        found = (Call(found[0].call_id, found[0].tool, found[0].arguments),)
    extra: Any = serial
    if shape in ("mcp_request", "mcp_response", "mcp_structured", "mcp_error"):
        number = draw(st.integers(1, 3))
        extra = draw(st.sampled_from([number, str(number)]))  # 1 and "1" are two ids
    offered = draw(st.integers(0, len(OFFERED) - 1)) if shape in _OFFERING else 0
    return [Step(shape, found, file, extra, offered)]


#: The shapes whose requests may offer tools.
_OFFERING: Final = (*_HISTORIES, "chat_exchange", "litellm_payload", "mcp_tools")


def _responses_run(draw: st.DrawFn, file: int, serial: int) -> list[Step]:
    """Responses of distinct valid calls; now and then one written again (its items were
    produced: skipped) or a request whose history repeats an earlier one's call."""
    made: list[Step] = []
    found: list[Step] = []
    for n in range(draw(st.integers(2, 30))):
        if made and draw(st.integers(0, 5)) == 0:
            earlier = draw(st.sampled_from(made))
            if draw(st.booleans()):
                found.append(earlier)
            else:
                found.append(Step("responses_request", earlier.calls, file, earlier.extra))
            continue
        call = Call(f"call_r{serial}_{n}", "lookup", {"id": 1 + n % 7})
        made.append(Step("responses_response", (call,), file, f"r{serial}_{n}"))
        found.append(made[-1])
    return found


def _mcp_run(draw: st.DrawFn, file: int, serial: int) -> list[Step]:
    """MCP requests of distinct ids; now and then an id used again; perhaps an answer to
    an earlier request at the end."""
    ids: list[str] = []
    found: list[Step] = []
    if draw(st.booleans()):  # listed first: the lane checks each call against the list
        found.append(Step("mcp_tools", (), file, serial, draw(st.integers(0, len(OFFERED) - 1))))
    for n in range(draw(st.integers(2, 30))):
        if ids and draw(st.integers(0, 7)) == 0:
            request_id = draw(st.sampled_from(ids))
        else:
            request_id = f"m{serial}_{n}"
            ids.append(request_id)
        call = Call("call_m", "lookup", {"id": 1 + n % 7})
        found.append(Step("mcp_request", (call,), file, request_id))
    if draw(st.booleans()):
        answer = Call("call_m", "lookup", {"id": 1}, draw(st.integers(0, len(RESULTS) - 1)))
        found.append(Step("mcp_response", (answer,), file, draw(st.sampled_from(ids))))
    return found


def _mcp_session(draw: st.DrawFn, file: int, serial: int) -> list[Step]:
    """MCP requests each followed by its answer, as a host logs a session: valid and
    invalid arguments, answers that are tool errors, leak a key or carry structured
    content (matching the output schema or not), a JSON-RPC error; now and then an answer
    that comes later (after other requests, perhaps past the window), none at all, twice,
    or for no request; ids used again once answered (and while unanswered)."""
    found: list[Step] = []
    waiting: list[Step] = []  # requests whose answer comes later
    answered: list[str] = []
    if draw(st.booleans()):  # the session lists its tools first
        listing = draw(st.integers(0, len(OFFERED) - 1))
        found.append(Step("mcp_tools", (), file, serial, listing))
    for n in range(draw(st.integers(2, 24))):
        if answered and draw(st.integers(0, 5)) == 0:
            request_id: Any = draw(st.sampled_from(answered))
        elif waiting and draw(st.integers(0, 9)) == 0:
            request_id = waiting[0].extra
        else:
            request_id = f"s{serial}_{n}" if n % 3 else n + 1
        tool = draw(st.sampled_from(sorted(ARGUMENTS)))
        call = Call("call_s", tool, draw(st.sampled_from(ARGUMENTS[tool])))
        found.append(Step("mcp_request", (call,), file, request_id))
        shape = draw(st.sampled_from(["mcp_response", "mcp_structured", "mcp_error"]))
        result = None if shape == "mcp_error" else draw(st.integers(0, len(RESULTS) - 1))
        answer = Call("call_s", tool, call.arguments, result)
        step = Step(shape, (answer,), file, request_id)
        when = draw(st.integers(0, 9))
        if when < 6:  # the next line
            found.append(step)
            answered.append(request_id)
        elif when < 8:  # later
            waiting.append(step)
        elif when == 8:  # twice
            found += [step, step]
            answered.append(request_id)
        # else never answered
        if waiting and draw(st.integers(0, 3)) == 0:
            found.append(waiting.pop(0))
    if draw(st.booleans()):  # an answer to no request
        found.append(Step("mcp_response", (Call("call_s", "lookup", {"id": 1}, 0),), file, -1))
    return found + waiting


def _conversation(draw: st.DrawFn, file: int, serial: int) -> list[Step]:
    """A Chat conversation as a proxy logs it: each completion, then the next request,
    which repeats every earlier turn's calls, each with its result (or not yet), and adds
    the last turn's. Now and then a request edits an earlier turn (other arguments, or
    another result) or repeats the one before it unchanged, and an id is used again."""
    found: list[Step] = []
    history: list[Call] = []
    for n in range(draw(st.integers(1, 5))):
        turn = []
        for i in range(draw(st.integers(1, 3))):
            tool = draw(st.sampled_from(sorted(ARGUMENTS)))
            call_id = draw(st.sampled_from(IDS)) if draw(st.integers(0, 7)) == 0 else None
            arguments = draw(st.sampled_from(ARGUMENTS[tool]))
            turn.append(Call(call_id or f"call_c{serial}_{n}_{i}", tool, arguments))
        found.append(Step("chat_response", tuple(turn), file, f"c{serial}_{n}"))
        answered = [
            Call(c.call_id, c.tool, c.arguments, draw(st.none() | st.integers(0, 2))) for c in turn
        ]
        history += answered
        change = draw(st.integers(0, 9))
        if change == 0 and len(history) > 1:  # an earlier turn edited
            old = history[0]
            edited = 0 if old.result is None else (old.result + 1) % len(RESULTS)
            history[0] = Call(old.call_id, old.tool, old.arguments, edited)
        found.append(Step("chat_request", tuple(history), file))
        if change == 1:  # the same request again
            found.append(Step("chat_request", tuple(history), file))
    return found


#: Runs of lines drawn as a group besides the shapes (see :func:`steps`).
GROUPS: Final = ("filler", "responses_run", "mcp_run", "mcp_session", "conversation")


@st.composite
def traces(draw: st.DrawFn, max_steps: int = 12, shape: str | None = None) -> Trace:
    """A trace: a few steps of any shape over one to three files (one of ``shape`` among
    them, when given), and a result window (0, the live-tail setting; a few lines; or the
    default)."""
    files = draw(st.integers(1, 3))
    found: list[Step] = []
    groups = draw(st.lists(steps(files), min_size=0 if shape else 1, max_size=max_steps))
    if shape is not None:
        groups.insert(draw(st.integers(0, len(groups))), draw(steps(files, shape)))
    for group in groups:
        found.extend(group)
    window = draw(st.sampled_from([0, 1, 3, 1024]))
    return Trace(found, window, files, capture=draw(st.integers(0, 3)) == 0)
