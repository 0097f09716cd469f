"""Fault injection for ``mcp record`` and ``mcp replay``: rehearse what a tool does wrong.

A rule is ``[TOOL:]KIND[=VALUE][@RATE]``; ``TOOL`` is a tool name or ``*`` (every tool, the
default), ``RATE`` the share of matching answers it applies to (default 1). Kinds:

==================  =======================================================================
``delay=DURATION``  the answer to ``tools/call`` arrives late (``500ms``, ``2s``)
``timeout``         the answer never arrives (the host's timeout fires)
``is-error[=TEXT]`` the answer is an ``isError`` result
``error=CODE``      the answer is a JSON-RPC error with that code (``-32603``)
``bad-output``      the result's ``structuredContent`` breaks the tool's ``outputSchema``
``malformed``       the answer frame is not valid JSON (a trailing comma)
``truncate``        the answer frame is cut in half
``drop``            the tool is left out of ``tools/list`` answers
``list-changed``    a ``notifications/tools/list_changed`` follows the answer
==================  =======================================================================

Decisions are deterministic: each rule draws from its own generator seeded with the run's
seed and the rule's text, so the same traffic with the same seed gets the same faults.
Each fault is marked in the trace with the rule that caused it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from random import Random
from typing import Any, Final

import orjson

from jsoncontract.errors import UsageError

KINDS: Final = (
    "delay",
    "timeout",
    "is-error",
    "error",
    "bad-output",
    "malformed",
    "truncate",
    "drop",
    "list-changed",
)
#: Kinds that take a value, and kinds that must have one.
_VALUED: Final = frozenset({"delay", "is-error", "error"})
_NEEDS_VALUE: Final = frozenset({"delay", "error"})
_DURATION: Final = re.compile(r"^([0-9]+(?:\.[0-9]+)?)(ms|s)$")
_RATE: Final = re.compile(r"@([0-9]*\.?[0-9]+)$")
LIST_CHANGED: Final = b'{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'
#: How long a "timeout" fault holds a delivery (for ever, as far as a host can tell).
NEVER: Final = -1.0


@dataclass(frozen=True, slots=True)
class FaultRule:
    """One ``--inject`` rule."""

    text: str
    tool: str
    kind: str
    value: str | None = None
    rate: float = 1.0

    def matches(self, tool: str | None) -> bool:
        """Whether the rule is about ``tool``."""
        return self.tool == "*" or self.tool == tool


def parse_rule(text: str) -> FaultRule:
    """A rule from its text.

    Raises:
        UsageError: an unknown kind, a missing or bad value, a rate outside 0..1.
    """
    body = text.strip()
    rate = 1.0
    found = _RATE.search(body)
    if found:
        rate = float(found.group(1))
        body = body[: found.start()]
        if not 0 < rate <= 1:
            raise UsageError(f"--inject {text!r}: the rate after @ is a share between 0 and 1")
    head, has_value, value = body.partition("=")
    tool, _, kind = head.rpartition(":")
    tool = tool or "*"
    if kind not in KINDS:
        raise UsageError(
            f"--inject {text!r}: unknown fault {kind!r}; write [TOOL:]KIND[=VALUE][@RATE] "
            f"with KIND one of {', '.join(KINDS)}"
        )
    if kind == "drop" and tool == "*":
        raise UsageError(f"--inject {text!r}: name the tool to drop: TOOL:drop")
    if has_value and kind not in _VALUED:
        raise UsageError(f"--inject {text!r}: {kind} takes no value")
    if kind in _NEEDS_VALUE and not value:
        example = "delay=2s" if kind == "delay" else "error=-32603"
        raise UsageError(f"--inject {text!r}: {kind} needs a value, e.g. {example}")
    if kind == "delay" and not _DURATION.match(value):
        raise UsageError(f"--inject {text!r}: a delay is a number with ms or s, e.g. 500ms, 2s")
    if kind == "error":
        try:
            int(value)
        except ValueError:
            raise UsageError(
                f"--inject {text!r}: the error code is an integer, e.g. -32603"
            ) from None
    return FaultRule(text.strip(), tool, kind, value if has_value else None, rate)


def seconds_of(value: str) -> float:
    """``500ms`` -> 0.5, ``2s`` -> 2.0."""
    found = _DURATION.match(value)
    assert found is not None
    number = float(found.group(1))
    return number / 1000 if found.group(2) == "ms" else number


@dataclass(slots=True)
class Delivery:
    """What to do with one server frame.

    ``data`` is the frame to deliver (``None``: withhold it), after ``delay`` seconds;
    ``fault`` names the rule that changed it (``original`` is then the server's frame);
    ``then`` are frames to deliver after it (a ``list_changed`` notification).
    """

    data: bytes | None
    delay: float = 0.0
    fault: str | None = None
    original: bytes | None = None
    then: list[bytes] = field(default_factory=list)


class Injector:
    """Decides, frame by frame, which faults to inject.

    Arguments:
        rules: the parsed ``--inject`` rules.
        seed: the seed of every rule's generator.
    """

    def __init__(self, rules: Sequence[FaultRule], seed: int = 0) -> None:
        self.rules = list(rules)
        self._random = {rule.text: Random(f"{seed}:{rule.text}") for rule in self.rules}
        #: request id -> tool name, for the tools/call requests not answered yet
        self._calls: dict[Any, str] = {}
        self._lists: set[Any] = set()
        #: tool name -> output schema, learnt from tools/list answers
        self.outputs: dict[str, Any] = {}
        #: the client speaks 2026-07-28 (its requests carry the _meta envelope)
        self.enveloped = False

    @property
    def active(self) -> bool:
        """Whether any rule is given (without rules, frames pass untouched)."""
        return bool(self.rules)

    def client_frame(self, message: Any) -> None:
        """Remember a request, to know which tool a later answer belongs to."""
        if not isinstance(message, dict) or "id" not in message:
            return
        key = _key(message.get("id"))
        method = message.get("method")
        raw = message.get("params")
        params: dict[str, Any] = raw if isinstance(raw, dict) else {}
        meta = params.get("_meta")
        if isinstance(meta, dict) and "io.modelcontextprotocol/protocolVersion" in meta:
            self.enveloped = True  # 2026-07-28: results carry resultType
        if method == "tools/call" and isinstance(params.get("name"), str):
            self._calls[key] = params["name"]
        elif method == "tools/list":
            self._lists.add(key)

    def server_frame(self, data: bytes, message: Any) -> Delivery:
        """What to deliver for one server frame (``data``, parsed as ``message``)."""
        if not isinstance(message, dict) or "id" not in message or "method" in message:
            return Delivery(data)
        key = _key(message.get("id"))
        if key in self._lists:
            self._lists.discard(key)
            return self._listing(data, message)
        tool = self._calls.pop(key, None)
        if tool is None:
            return Delivery(data)
        delivery = Delivery(data)
        for rule in self.rules:
            if rule.kind == "drop" or not rule.matches(tool) or not self._draw(rule):
                continue
            self._apply(rule, delivery, message, tool)
        return delivery

    def _draw(self, rule: FaultRule) -> bool:
        return rule.rate >= 1 or self._random[rule.text].random() < rule.rate

    def _listing(self, data: bytes, message: dict[str, Any]) -> Delivery:
        result = message.get("result")
        if not isinstance(result, dict) or not isinstance(result.get("tools"), list):
            return Delivery(data)
        for tool in result["tools"]:
            if isinstance(tool, dict) and isinstance(tool.get("name"), str):
                self.outputs[tool["name"]] = tool.get("outputSchema")
        drops = [r for r in self.rules if r.kind == "drop"]
        kept = [
            t
            for t in result["tools"]
            if not (isinstance(t, dict) and any(r.tool == t.get("name") for r in drops))
        ]
        if len(kept) == len(result["tools"]):
            return Delivery(data)
        dropped = [r.text for r in drops if any(isinstance(t, dict) and t.get("name") == r.tool
                                                for t in result["tools"])]  # fmt: skip
        changed = {**message, "result": {**result, "tools": kept}}
        return Delivery(orjson.dumps(changed), fault=", ".join(dropped), original=data)

    def _apply(
        self, rule: FaultRule, delivery: Delivery, message: dict[str, Any], tool: str
    ) -> None:
        original = delivery.original or delivery.data
        kind = rule.kind
        if kind == "delay":
            assert rule.value is not None
            delivery.delay = (
                max(delivery.delay, seconds_of(rule.value)) if delivery.delay >= 0 else NEVER
            )
        elif kind == "timeout":
            delivery.delay = NEVER
        elif kind == "list-changed":
            delivery.then.append(LIST_CHANGED)
        elif kind == "is-error":
            text = rule.value or f"injected failure of {tool} (jsoncontract)"
            found = message.get("result")
            before: dict[str, Any] = found if isinstance(found, dict) else {}
            kept: dict[str, Any] = {k: before[k] for k in ("resultType", "_meta") if k in before}
            if self.enveloped:
                kept.setdefault("resultType", "complete")
            result: dict[str, Any] = {
                **kept,
                "content": [{"type": "text", "text": text}],
                "isError": True,
            }
            delivery.data = _answer(message, result=result)
        elif kind == "error":
            assert rule.value is not None
            error = {
                "code": int(rule.value),
                "message": f"injected error (jsoncontract {rule.text})",
            }
            delivery.data = _answer(message, error=error)
        elif kind == "bad-output":
            delivery.data = self._bad_output(message, tool)
        elif kind == "malformed":
            current = delivery.data or b"{}"
            delivery.data = (
                current.rstrip()[:-1] + b",}" if current.rstrip().endswith(b"}") else current + b","
            )
        elif kind == "truncate":
            current = delivery.data or b"{}"
            delivery.data = current[: max(1, len(current) // 2)]
        delivery.fault = rule.text if delivery.fault is None else f"{delivery.fault}, {rule.text}"
        delivery.original = original

    def _bad_output(self, message: dict[str, Any], tool: str) -> bytes:
        result = message.get("result")
        if not isinstance(result, dict):
            return orjson.dumps(message)
        content = break_output(self.outputs.get(tool), result.get("structuredContent"))
        return _answer(message, result={**result, "structuredContent": content})


def _answer(message: dict[str, Any], *, result: Any = None, error: Any = None) -> bytes:
    out: dict[str, Any] = {"jsonrpc": "2.0", "id": message.get("id")}
    if error is not None:
        out["error"] = error
    else:
        out["result"] = result
    return orjson.dumps(out)


def _key(value: Any) -> Any:
    return (type(value).__name__, value) if isinstance(value, str | int) else None


def break_output(schema: Any, value: Any) -> Any:
    """A value that breaks ``schema`` and looks like ``value``: a required member dropped,
    a member of the wrong type, or a value of the wrong type altogether."""
    from jsoncontract.errors import SchemaLoadError
    from jsoncontract.validation import CompiledSchema

    candidates: list[Any] = []
    if isinstance(schema, dict):
        listed = schema.get("required")
        required: list[Any] = listed if isinstance(listed, list) else []
        if isinstance(value, dict):
            candidates.extend(
                {k: v for k, v in value.items() if k != name} for name in required if name in value
            )
            candidates.extend({**value, name: _other_type(m)} for name, m in value.items())
        candidates.append(_other_type(value))
    candidates.append("jsoncontract: injected output that matches no schema")
    try:
        compiled = (
            CompiledSchema(schema, label="outputSchema") if isinstance(schema, dict) else None
        )
    except SchemaLoadError:
        compiled = None
    if compiled is None:
        return candidates[0]
    for candidate in candidates:
        if not compiled.is_valid(candidate):
            return candidate
    return candidates[-1]


def _other_type(value: Any) -> Any:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return 0
    if isinstance(value, list):
        return {"items": value}
    if isinstance(value, dict):
        return [value]
    return "null"
