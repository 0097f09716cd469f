"""Write what the real provider SDKs write: each SDK is driven against a loopback stub that
answers with one response holding the calls of :data:`CALLS` (those its wire can carry), and
the response is serialised as its users serialise it. Run as a script (``python
sdk_captures.py PROVIDER FOLDER``) so that the SDKs' imports and warnings stay out of the
test process; it writes ``PROVIDER.jsonl`` (the serialised responses) and
``PROVIDER-exchange.jsonl`` (each with the request body the SDK sent: ``{"request",
"response"}``).

The SDKs never reach the network: every client is given the stub's address, and LiteLLM
reads its model map from the package.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

#: The tools offered (OpenAI's shape; the Bedrock stub writes them as ``toolSpec``).
WEATHER = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
    "additionalProperties": False,
}
TOOLS = [
    {"type": "function", "function": {"name": "get_weather", "description": "The weather.",
                                      "parameters": WEATHER}},
    {"type": "function", "function": {"name": "get_time", "description": "The time.",
                                      "parameters": {"type": "object", "properties": {}}}},
]  # fmt: skip
#: The calls of the scenario: (id, tool, arguments as the model wrote them, the kinds of
#: wire that can carry it: "object" for decoded arguments, "text" for the model's text).
CALLS = [
    ("c1", "get_weather", '{"city": "Oslo"}', ("object", "text")),
    ("c2", "get_weather", '{"city": 5}', ("object", "text")),
    ("c3", "get_weather", "{}", ("object", "text")),
    ("c4", "get_weather", '{"city": "Oslo", "units": "C"}', ("object", "text")),
    ("c5", "get_wether", '{"city": "Oslo"}', ("object", "text")),
    ("c6", "get_time", "{}", ("object", "text")),
    ("c7", "get_weather", '```json\n{"city": "Oslo"}\n```', ("text",)),
    ("c8", "get_weather", '{"city": "Os', ("text",)),
    ("c9", "get_weather", json.dumps('{"city": "Oslo"}'), ("text", "double")),
]
#: The Mistral ids of the calls (nine letters and digits), but one that breaks the rule.
MISTRAL_IDS = {c[0]: f"Abcdefgh{c[0][1]}" for c in CALLS} | {"c6": "call_6"}


#: Which calls a wire carries, by the kinds each call names.
WIRES = {
    "text": lambda kinds: "text" in kinds,
    "text-once": lambda kinds: "text" in kinds and "double" not in kinds,  # an SDK refuses it
    "object": lambda kinds: "object" in kinds,
    "object+double": lambda kinds: "object" in kinds or "double" in kinds,
}


def calls(kind: str) -> list[tuple[str, str, Any]]:
    """The calls a wire of ``kind`` carries: (id, tool, arguments), the text as the model
    wrote it, decoded for an ``object`` wire (a double encoding decodes to a string)."""
    carries = WIRES[kind]
    return [
        (call_id, tool, text if kind.startswith("text") else json.loads(text))
        for call_id, tool, text, kinds in CALLS
        if carries(kinds)
    ]


def chat_completion(
    call_ids: dict[str, str] | None = None, model: str = "gpt-4o"
) -> dict[str, Any]:
    """The scenario as a raw Chat Completions response (every call)."""
    ids = call_ids or {}
    tool_calls = [
        {"id": ids.get(i, i), "type": "function", "function": {"name": n, "arguments": a}}
        for i, n, a in calls("text")
    ]
    return {
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": model,
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": None, "tool_calls": tool_calls}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }  # fmt: skip


class _Stub(BaseHTTPRequestHandler):
    answer: Any = None
    stream: bytes | None = None
    requests: ClassVar[list[Any]] = []

    def do_POST(self) -> None:
        size = int(self.headers.get("content-length", 0))
        self.requests.append(json.loads(self.rfile.read(size) or b"null"))
        if self.stream is not None:
            data, kind = self.stream, "application/vnd.amazon.eventstream"
        else:
            data, kind = json.dumps(self.answer).encode(), "application/json"
        self.send_response(200)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: Any) -> None:
        """Quiet."""


@contextmanager
def stub(answer: Any = None, stream: bytes | None = None) -> Iterator[tuple[str, list[Any]]]:
    """A loopback server answering every POST with ``answer`` (or the event ``stream``);
    yields its address and the request bodies it received."""
    handler = type("Stub", (_Stub,), {"answer": answer, "stream": stream, "requests": []})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}", handler.requests
    finally:
        server.shutdown()
        server.server_close()


def event(kind: str, payload: dict[str, Any]) -> bytes:
    """One message of AWS's event stream encoding (what ConverseStream answers with)."""
    headers = b""
    for name, value in ((":event-type", kind), (":content-type", "application/json"),
                        (":message-type", "event")):  # fmt: skip
        raw = value.encode()
        headers += bytes([len(name)]) + name.encode() + b"\x07" + struct.pack(">H", len(raw)) + raw
    body = json.dumps(payload).encode()
    total = 12 + len(headers) + len(body) + 4
    prelude = struct.pack(">II", total, len(headers))
    prelude += struct.pack(">I", zlib.crc32(prelude))
    message = prelude + headers + body
    return message + struct.pack(">I", zlib.crc32(message))


def _lines(*documents: Any) -> str:
    return "".join(json.dumps(d, default=str) + "\n" for d in documents)


def bedrock(folder: Path) -> None:
    import boto3

    content: list[Any] = [{"text": "Let me look."}]
    content += [{"toolUse": {"toolUseId": i, "name": n, "input": a}}
                for i, n, a in calls("object+double")]  # fmt: skip
    answer = {"output": {"message": {"role": "assistant", "content": content}},
              "stopReason": "tool_use", "usage": {"inputTokens": 1, "outputTokens": 1,
              "totalTokens": 2}, "metrics": {"latencyMs": 9}}  # fmt: skip
    specs = [
        {"toolSpec": {"name": f["name"], "description": f["description"],
                      "inputSchema": {"json": f["parameters"]}}}
        for f in (t["function"] for t in TOOLS)
    ]  # fmt: skip
    messages = [{"role": "user", "content": [{"text": "Weather?"}]}]
    with stub(answer) as (url, sent):
        client = boto3.client("bedrock-runtime", region_name="us-east-1", endpoint_url=url,
                              aws_access_key_id="test", aws_secret_access_key="test")  # fmt: skip
        found = client.converse(modelId="m", messages=messages, toolConfig={"tools": specs})
        bare = {k: v for k, v in found.items() if k != "ResponseMetadata"}
    (folder / "bedrock.jsonl").write_text(_lines(found, bare))
    (folder / "bedrock-exchange.jsonl").write_text(_lines({"request": sent[0], "response": found}))
    frames = event("messageStart", {"role": "assistant"})
    for n, (call_id, name, text) in enumerate(calls("text"), start=1):
        frames += event("contentBlockStart", {"contentBlockIndex": n,
                        "start": {"toolUse": {"toolUseId": call_id, "name": name}}})  # fmt: skip
        for piece in (text[: len(text) // 2], text[len(text) // 2 :]):
            frames += event("contentBlockDelta", {"contentBlockIndex": n,
                            "delta": {"toolUse": {"input": piece}}})  # fmt: skip
        frames += event("contentBlockStop", {"contentBlockIndex": n})
    frames += event("messageStop", {"stopReason": "tool_use"})
    with stub(stream=frames) as (url, _):
        client = boto3.client("bedrock-runtime", region_name="us-east-1", endpoint_url=url,
                              aws_access_key_id="test", aws_secret_access_key="test")  # fmt: skip
        found = client.converse_stream(modelId="m", messages=messages, toolConfig={"tools": specs})
        events = list(found["stream"])
    (folder / "bedrock-stream.jsonl").write_text(_lines(*events))


def ollama(folder: Path) -> None:
    import ollama as sdk

    tool_calls = [{"function": {"name": n, "arguments": a}} for _, n, a in calls("object")]
    answer = {"model": "llama3.2", "created_at": "2026-12-01T00:00:00Z", "done": True,
              "done_reason": "stop", "message": {"role": "assistant", "content": "",
              "tool_calls": tool_calls}}  # fmt: skip
    with stub(answer) as (url, sent):
        found = sdk.Client(host=url).chat(
            model="llama3.2", messages=[{"role": "user", "content": "Weather?"}], tools=TOOLS
        )
    dumped = json.loads(found.model_dump_json())
    (folder / "ollama.jsonl").write_text(_lines(dumped))
    (folder / "ollama-exchange.jsonl").write_text(_lines({"request": sent[0], "response": dumped}))


def cohere(folder: Path) -> None:
    import cohere as sdk

    tool_calls = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                  for i, n, a in calls("text")]  # fmt: skip
    answer = {"id": "c-1", "finish_reason": "TOOL_CALL", "message": {"role": "assistant",
              "tool_plan": "I will look the weather up.", "tool_calls": tool_calls},
              "usage": {"tokens": {"input_tokens": 1, "output_tokens": 1}}}  # fmt: skip
    with stub(answer) as (url, sent):
        found = sdk.ClientV2(api_key="test", base_url=url).chat(
            model="command-a", messages=[{"role": "user", "content": "Weather?"}], tools=TOOLS
        )
    dumped = json.loads(found.model_dump_json())
    (folder / "cohere.jsonl").write_text(_lines(dumped))
    (folder / "cohere-exchange.jsonl").write_text(_lines({"request": sent[0], "response": dumped}))


def mistral(folder: Path) -> None:
    from mistralai.client import Mistral

    with stub(chat_completion(MISTRAL_IDS, "mistral-large-latest")) as (url, sent):
        found = Mistral(api_key="test", server_url=url).chat.complete(
            model="mistral-large-latest", messages=[{"role": "user", "content": "Weather?"}],
            tools=TOOLS,
        )  # fmt: skip
    dumped = json.loads(found.model_dump_json())
    (folder / "mistral.jsonl").write_text(_lines(dumped))
    (folder / "mistral-exchange.jsonl").write_text(_lines({"request": sent[0], "response": dumped}))


def langchain(folder: Path) -> None:
    from langchain_core.load import dumpd
    from langchain_core.tracers.run_collector import RunCollectorCallbackHandler
    from langchain_openai import ChatOpenAI

    answer = chat_completion()
    doubled = next(c for c in answer["choices"][0]["message"]["tool_calls"] if c["id"] == "c9")
    answer["choices"][0]["message"]["tool_calls"].remove(doubled)  # the SDK refuses it
    runs = RunCollectorCallbackHandler()  # what LangChain's tracers record, LangSmith exports
    with stub(answer) as (url, sent):
        model = ChatOpenAI(model="gpt-4o", api_key="test", base_url=url + "/v1")
        found = model.bind_tools(TOOLS).invoke("Weather?", config={"callbacks": [runs]})
    as_json = json.loads(found.model_dump_json())
    (folder / "langchain.jsonl").write_text(_lines(as_json, dumpd(found)))
    (folder / "langchain-exchange.jsonl").write_text(
        _lines({"request": sent[0], "response": dumpd(found)})
    )
    (folder / "langchain-run.jsonl").write_text(runs.traced_runs[0].model_dump_json() + "\n")


def litellm(folder: Path) -> None:
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    import litellm as sdk
    from litellm.integrations.custom_logger import CustomLogger

    logged: list[Any] = []

    class Keep(CustomLogger):
        def log_success_event(  # the names LiteLLM passes them by
            self, kwargs: Any, response_obj: Any, start_time: Any, end_time: Any
        ) -> None:
            logged.append(kwargs["standard_logging_object"])

    sdk.callbacks = [Keep()]
    with stub(chat_completion()) as (url, _):
        sdk.completion(model="openai/gpt-4o", api_base=url + "/v1", api_key="test",
                       messages=[{"role": "user", "content": "Weather?"}], tools=TOOLS)  # fmt: skip
    for _ in range(200):  # the callback runs on a thread of LiteLLM's
        if logged:
            break
        threading.Event().wait(0.05)
    (folder / "litellm.jsonl").write_text(_lines(*logged))


WRITERS = {f.__name__: f for f in (bedrock, ollama, cohere, mistral, langchain, litellm)}

if __name__ == "__main__":
    WRITERS[sys.argv[1]](Path(sys.argv[2]))
