"""A generated day of production traffic, with results: for the tests that a run split
between workers, or between Spark partitions, reports what one process reports.

:func:`write_day` writes two JSONL captures and the tools they call:

- ``calls.jsonl``: model responses and the bodies a gateway sent downstream, calls alone:
  OpenAI Chat and Anthropic calls, valid and not, two writes in one response (a turn with
  two side effects), call ids seen again far apart, writes whose idempotency keys come back
  with the same or other arguments, and key-less writes sent twice;
- ``sessions.jsonl``: calls alone at first, then MCP sessions (``initialize``,
  ``tools/list``, ``list_changed``) whose calls get results with times: structured content
  that breaks the output schema or is missing, error results with and without a code,
  stack traces and secrets, retries after an error, requests never answered, answers to
  requests never made, answers later than the result window; and OpenAI Chat conversation
  histories whose ``role: tool`` messages answer earlier calls.

Every check that spans the trace (pairing, turns, listings, retries, idempotency, late and
orphan results, latencies) thus crosses many cuts when the files are cut into small parts.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from tests.pipeline import traffic

#: The result window the tests use: short, so that late results happen within the trace.
WINDOW = 16


def _chat(rid: str, calls: list[tuple[str, str, str]]) -> dict[str, Any]:
    """An OpenAI Chat completion holding ``calls`` (id, tool, arguments as text)."""
    tool_calls = [
        {"id": cid, "type": "function", "function": {"name": name, "arguments": text}}
        for cid, name, text in calls
    ]
    message = {"role": "assistant", "content": None, "tool_calls": tool_calls}
    return {
        "id": rid,
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}],
    }


def _anthropic(mid: str, cid: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    block = {"type": "tool_use", "id": cid, "name": name, "input": arguments}
    return {"id": mid, "type": "message", "role": "assistant", "content": [block]}


def _refund(rng: random.Random, i: int) -> dict[str, Any]:
    """Refund arguments: keys reused with the same or other arguments, and some without."""
    args: dict[str, Any] = {
        "payment_id": f"pay_{i % 37}",
        "amount": float(10 + i % 7),
        "idempotency_key": f"rf-{i % 53}",
    }
    if rng.random() < 0.15:
        del args["idempotency_key"]
    return args


#: The OpenTelemetry export of the bundled example: a chat span's calls, then the
#: execute-tool spans that ran them, with their results and durations.
_SPANS = (Path(__file__).resolve().parents[2] / "fixtures" / "results" / "otel.jsonl").read_text()
_SPAN_IDS = ("call_Lk3v8QwZ1", "call_Rf9x2MbT4", "call_Em5s7NcY8")


def _spans(copy: int) -> list[dict[str, Any]]:
    """The export again, its call ids those of ``copy`` (one copy's spans are one run)."""
    text = _SPANS
    for call_id in _SPAN_IDS:
        text = text.replace(call_id, f"{call_id}x{copy}")
    return [json.loads(line) for line in text.splitlines()]


def _calls(rng: random.Random, count: int, tag: str, *, spans: bool = True) -> list[dict[str, Any]]:
    """``count`` lines of calls alone (with ``spans``, some lines hold a call with its
    result: spans)."""
    lines: list[dict[str, Any]] = []
    pairs: list[dict[str, Any]] = []
    for i in range(count):
        roll = rng.random()
        if spans and roll < 0.02 and i > count * 0.8:
            # a span export; now and then one seen before. Its dialect counts spans to the
            # end of the file, so the rest of a file is read in order from the first one:
            # they come last
            lines += _spans(rng.randrange(i) if rng.random() < 0.3 else i)
            continue
        if roll < 0.04 and pairs:  # a response logged again (its calls seen before)
            lines.append(rng.choice(pairs))
            continue
        if roll < 0.1:  # one response over two lines: two side effects in one turn
            refund = json.dumps(_refund(rng, i))
            email = json.dumps({"to": "a@example.com", "body": "refunded"})
            lines.append(
                _chat(f"chatcmpl-{tag}t{i}", [(f"call_{tag}tr{i}", "refund_payment", refund)])
            )
            lines.append(_chat(f"chatcmpl-{tag}t{i}", [(f"call_{tag}te{i}", "send_email", email)]))
            continue
        if roll < 0.35:
            city = "Oslo" if rng.random() < 0.9 else 7  # some break the schema
            text = json.dumps({"city": city})
            if rng.random() < 0.03:
                text = text[:-1]  # not JSON
            cid = f"call_{tag}{i % 400}"  # ids seen again far apart
            lines.append(_chat(f"chatcmpl-{tag}{i}", [(cid, "get_weather", text)]))
        elif roll < 0.5:
            arguments = {"order_id": f"ORD-{i}"} if rng.random() < 0.9 else {}
            lines.append(_anthropic(f"msg_{tag}{i}", f"toolu_{tag}{i}", "lookup_order", arguments))
        elif roll < 0.75:
            record = {"hop": "downstream", "tool": "refund_payment", "payload": _refund(rng, i)}
            lines.append(record)
        elif roll < 0.8:  # two side effects in one turn
            refund = json.dumps(_refund(rng, i))
            email = json.dumps({"to": "a@example.com", "body": "refunded"})
            pair = [(f"call_{tag}r{i}", "refund_payment", refund)]
            pair.append((f"call_{tag}e{i}", "send_email", email))
            lines.append(_chat(f"chatcmpl-{tag}p{i}", pair))
            pairs.append(lines[-1])
        else:
            cid = f"call_{tag}n{i}"
            text = json.dumps({"order_id": f"ORD-{i % 50}"})
            lines.append(_chat(f"chatcmpl-{tag}n{i}", [(cid, "lookup_order", text)]))
    return lines


def _stamped(frame: dict[str, Any], moment: float) -> dict[str, Any]:
    """An MCP frame as a trace record with its time (so that latencies are measured)."""
    return {"hop": "mcp", "time": round(moment, 3), "payload": frame}


def _session(rng: random.Random, s: int, clock: list[float]) -> list[dict[str, Any]]:
    """One MCP session, its frames stamped with times."""

    def at() -> float:
        clock[0] += rng.uniform(0.001, 0.4)
        return clock[0]

    frames: list[dict[str, Any]] = []
    frames += traffic.initialize(list_changed=True)
    frames += traffic.listing(1)
    late: list[dict[str, Any]] = []
    for n in range(2, 2 + rng.randint(6, 14)):
        roll = rng.random()
        if roll < 0.3:
            structured = {"temp_c": 21.5} if rng.random() < 0.7 else {"temp_c": "warm"}
            frames += traffic.exchange(n, "get_weather", {"city": "Oslo"}, structured=structured)
        elif roll < 0.4:  # no structured content though the tool declares an output schema
            frames += traffic.exchange(n, "get_weather", {"city": "Bergen"})
        elif roll < 0.55:
            args = _refund(rng, s * 31 + n)
            if rng.random() < 0.5:
                body = {"refund_id": f"rf_{n}", "amount": args["amount"]}
                frames += traffic.exchange(n, "refund_payment", args, structured=body)
            else:  # an error, then the same call again
                trace = 'Traceback (most recent call last):\n  File "app.py", line 3, in pay\n'
                text = trace + "KeyError: 'amount'" if rng.random() < 0.5 else "payment failed"
                frames += traffic.exchange(n, "refund_payment", args, text=text, error=True)
                frames += traffic.exchange(n + 100, "refund_payment", args, text="ok")
        elif roll < 0.65:
            body = {"to": "a@example.com", "body": "your refund is on its way"}
            leak = "sent with key sk-proj-" + "a1B2c3D4" * 6  # a secret in the result
            frames += traffic.exchange(n, "send_email", body, text=leak)
        elif roll < 0.72:  # never answered
            frames.append(traffic.request(n, "close_ticket", {"ticket": f"T{n}"}))
        elif roll < 0.78:  # an answer to a request never made
            frames.append(traffic.answer(n + 500, text="stray"))
        elif roll < 0.85:  # answered after the window
            frames.append(traffic.request(n, "lookup_order", {"order_id": f"ORD-{n}"}))
            late.append(traffic.answer(n, text="found"))
        elif roll < 0.9:
            frames.append({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            if rng.random() < 0.5:
                frames += traffic.listing(n + 200)
            frames += traffic.exchange(n, "lookup_order", {"order_id": "ORD-1"}, text="found")
        else:
            frames += traffic.exchange(n, "close_ticket", {"ticket": 7}, text="closed")
    out = [_stamped(frame, at()) for frame in frames]
    filler = _calls(rng, traffic_window_past(), f"s{s}f")
    return out + filler + [_stamped(frame, at()) for frame in late]


def traffic_window_past() -> int:
    """Lines that put a late answer past the result window."""
    return WINDOW + 2


def _conversation(c: int) -> list[dict[str, Any]]:
    """A response with a call, then the next request, whose history answers it."""
    cid = f"call_conv{c}"
    arguments = json.dumps({"order_id": f"ORD-{c}"})
    response = _chat(f"chatcmpl-conv{c}", [(cid, "lookup_order", arguments)])
    call = response["choices"][0]["message"]
    answer = {"order_id": f"ORD-{c}", "status": "delivered"}
    if c % 4 == 0:
        answer = {"error": "order service unavailable"}
    history = [
        {"role": "user", "content": f"Where is ORD-{c}?"},
        call,
        {"role": "tool", "tool_call_id": cid, "content": json.dumps(answer)},
    ]
    if c % 9 == 0:  # a result naming a call the history does not hold
        history.append({"role": "tool", "tool_call_id": f"call_ghost{c}", "content": "{}"})
    return [response, {"model": "gpt-4.1", "messages": history}]


def write_day(where: Path, *, seed: int = 7, scale: int = 1) -> tuple[Path, list[Path]]:
    """Write the tools and the two captures under ``where``; ``scale`` multiplies the
    traffic. Returns the tools file and the captures."""
    rng = random.Random(seed)
    tools = traffic.tools_file(where)
    calls = where / "calls.jsonl"
    _write(calls, _calls(rng, 900 * scale, "a"))
    lines = _calls(rng, 300 * scale, "b")
    clock = [1_764_581_400.0]
    for s in range(25 * scale):
        lines += _session(rng, s, clock)
        for c in range(3):
            lines += _conversation(s * 3 + c)
    sessions = where / "sessions.jsonl"
    _write(sessions, lines)
    return tools, [calls, sessions]


def write_calls(path: Path, *, seed: int = 7, count: int = 900) -> None:
    """Write ``count`` lines of calls alone, without spans (no call with its result) to
    ``path``: the tools of :func:`write_day` (``traffic.tools_file``)."""
    _write(path, _calls(random.Random(seed), count, "c", spans=False))


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
