"""The support agent's run of ``fixtures/results/conversations/openai-chat.jsonl``, recorded
as OpenTelemetry GenAI spans by the real SDK, with its OTLP/JSON file exporter.

    python -m tests.acceptance.agent_run fixtures/results/otel.jsonl

writes the bundled export again (its trace and span ids are new each time; what the spans
say, and when, is the same: the run starts at 2025-12-01 09:30:00 UTC and each tool takes
the time :data:`TAKES` says).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Final

from opentelemetry import trace
from opentelemetry.exporter.otlp.json.file import FileSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.trace import Status, StatusCode

REPO = Path(__file__).resolve().parents[2]
#: When the run starts (nanoseconds since the epoch: 2025-12-01T09:30:00Z).
START: Final = 1_764_581_400_000_000_000
#: How long the model thinks per turn and each tool takes, in milliseconds.
THINKS: Final = 900
TAKES: Final = {"lookup_order": 84, "refund_payment": 212, "send_email": 1_240}
_MS: Final = 1_000_000
CONVERSATION = REPO / "fixtures" / "results" / "conversations" / "openai-chat.jsonl"


def _turns() -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The assistant turns of the conversation and each tool message's content, by call id."""
    request = json.loads(CONVERSATION.read_text().splitlines()[1])
    turns = [m for m in request["messages"] if m["role"] == "assistant"]
    results = {m["tool_call_id"]: m["content"] for m in request["messages"] if m["role"] == "tool"}
    return turns, results


def record(provider: TracerProvider) -> None:
    """The run: per assistant turn a chat span (its tool calls in gen_ai.output.messages),
    then an execute_tool span per call, with its arguments and result (a tool that failed
    is marked as GenAI instrumentations mark it: error.type and an error status)."""
    tracer = provider.get_tracer("acme-support-agent", "2.3.0")
    turns, results = _turns()
    now = START
    agent = tracer.start_span(
        "invoke_agent support", attributes={"gen_ai.operation.name": "invoke_agent"}, start_time=now
    )
    context = trace.set_span_in_context(agent)
    for turn in turns:
        parts = [
            {
                "type": "tool_call",
                "id": call["id"],
                "name": call["function"]["name"],
                "arguments": json.loads(call["function"]["arguments"]),
            }
            for call in turn["tool_calls"]
        ]
        output = [{"role": "assistant", "parts": parts, "finish_reason": "tool_call"}]
        chat = tracer.start_span(
            "chat gpt-4.1",
            context=context,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4.1",
                "gen_ai.output.messages": json.dumps(output),
            },
            start_time=now,
        )
        now += THINKS * _MS
        chat.end(end_time=now)
        for call in turn["tool_calls"]:
            name = call["function"]["name"]
            result = results[call["id"]]
            failed = result.startswith("Traceback")
            attributes = {
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": call["id"],
                "gen_ai.tool.call.arguments": call["function"]["arguments"],
                "gen_ai.tool.call.result": result,
            }
            if failed:
                attributes["error.type"] = "SMTPAuthenticationError"
            span = tracer.start_span(
                f"execute_tool {name}", context=context, attributes=attributes, start_time=now
            )
            if failed:
                span.set_status(Status(StatusCode.ERROR, "the mail server refused"))
            now += TAKES[name] * _MS
            span.end(end_time=now)
    agent.end(end_time=now)


def write(path: Path) -> None:
    """Record the run into ``path`` (OTLP/JSON lines)."""
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path)))
    record(provider)
    provider.shutdown()


if __name__ == "__main__":
    write(Path(sys.argv[1]))
