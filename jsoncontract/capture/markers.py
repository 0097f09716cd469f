"""What LLM traffic looks like, for the documents no dialect read: one table of markers.

A document (a JSON file, a trace line, a span, a log record) that no capture dialect reads
is no reason to stop when it is clearly not LLM traffic (a ``package.json`` in a directory,
a log line), and is reported as ``envelope.unknown_dialect`` in a trace. One that carries
the mark of an LLM convention is another matter: its tool calls were not checked, and a
run must not pass on them. :data:`MARKERS` lists those marks, each with the name of the
convention it gives away; the reader asks :func:`look` about a document no dialect read, and
reports one that is marked as ``envelope.not_read``, naming the convention and the members
found (:func:`not_read`). It does the same for a document a dialect took whose tool calls it
could not read (:func:`calls_in` finds them), so that a call in a shape a dialect does not
know is never skipped in silence.

Adding a convention is a line in :data:`MARKERS`. Its order is precedence: a document that
carries the marks of several conventions is said to look like the first (the specific
instrumentations come before the generic GenAI attributes they also write).

Two other places say that input was not understood: a run that read no call at all fails
with ``input.no_calls`` (:func:`jsoncontract.pipeline.runner.no_calls`), and a message a live
MCP server sends that the SDK cannot read is described by :mod:`jsoncontract.live.unreadable`
(a server's wire, not a capture).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import orjson

from jsoncontract import codes
from jsoncontract.capture.base import envelope

if TYPE_CHECKING:
    from jsoncontract.model import Finding


class Marker(NamedTuple):
    """One mark of an LLM convention on an object.

    ``convention`` is what an object that has the mark looks like, as a finding says it
    ("an Anthropic Message", "OpenInference spans"). ``member`` is a member of the object
    (``a/b``: the member ``b`` of its member ``a``), or an attribute of a span or log record
    (an OTLP ``attributes`` list or a console exporter's ``attributes`` object counts as
    members of the span). ``value`` is what it must be (a text ending in ``*``: what it
    must start with; ``None``: any value); ``also`` the other members the object must have.
    """

    convention: str
    member: str
    value: str | None = None
    also: tuple[str, ...] = ()


#: The marks of LLM traffic, in order of precedence (see the module).
MARKERS: Final = (
    # OpenTelemetry instrumentations: attributes of spans and log records
    Marker("OpenInference spans", "openinference.span.kind"),
    Marker("OpenLLMetry spans", "traceloop.span.kind"),
    Marker("OpenLLMetry spans", "llm.request.type"),
    Marker("Vercel AI SDK spans", "ai.operationId"),
    Marker("Vercel AI SDK spans", "operation.name", "ai.*"),
    Marker("OpenTelemetry GenAI events", "event.name", "gen_ai.*"),
    Marker("OpenTelemetry GenAI events", "eventName", "gen_ai.*"),
    Marker("OpenTelemetry GenAI spans", "gen_ai.operation.name"),
    Marker("OpenTelemetry GenAI spans", "gen_ai.provider.name"),
    Marker("OpenTelemetry GenAI spans", "gen_ai.system"),
    # provider responses and framework messages, as their SDKs serialise them
    Marker("an OpenAI Chat Completions response", "object", "chat.completion"),
    Marker("an OpenAI Chat Completions response", "object", "chat.completion.chunk"),
    Marker("an OpenAI Responses response", "object", "response"),
    Marker("an Anthropic Message", "type", "message", ("role",)),
    Marker("a Bedrock Converse response", "output/message"),
    Marker("a Bedrock Converse response", "ResponseMetadata", None, ("output",)),
    Marker("an Ollama chat response", "done", None, ("message", "model")),
    Marker("a Cohere chat response", "message/tool_plan"),
    Marker("a Cohere chat response", "finish_reason", None, ("message", "id")),
    Marker("a LangChain object (dumpd)", "lc", None, ("type", "id")),
    Marker("a LangChain message (model_dump_json)", "type", "ai"),
    Marker("a LangChain message (model_dump_json)", "type", "AIMessageChunk"),
    Marker("a LiteLLM logging payload", "call_type", None, ("response",)),
    Marker("a Gemini response", "candidates"),
    Marker("an MCP message", "jsonrpc"),
)

#: Members that hold tool calls, in the conventions known (an object, or a list of them).
CALL_MEMBERS: Final = frozenset(
    {
        "tool_calls",
        "toolCalls",
        "tool_call",
        "toolCall",
        "tool_use",
        "toolUse",
        "function_call",
        "functionCall",
        "invalid_tool_calls",
    }
)
#: What a part whose type says it is a tool call is typed.
CALL_TYPES: Final = frozenset({"tool_call", "tool_use", "function_call", "tool-call", "toolCall"})
#: Members that name the tool of a call: a tool call holds one.
NAME_MEMBERS: Final = ("name", "toolName", "function")

#: Objects looked at in one document, at most (a large export is judged by its start).
MAX_OBJECTS: Final = 4096
#: How deep objects are looked for.
MAX_DEPTH: Final = 12
#: Members a finding names, at most.
MAX_NAMED: Final = 6
#: A text longer than this is not read as the JSON it may hold.
MAX_TEXT: Final = 1 << 20


@dataclass(frozen=True, slots=True)
class Sighting:
    """What :func:`look` found: the convention the document looks like, the members that
    say so (``object = "chat.completion"``), and how many objects carried a mark."""

    convention: str
    found: tuple[str, ...]
    objects: int

    def describe(self) -> str:
        """``OpenLLMetry spans (llm.request.type, gen_ai.system on 3 objects)``."""
        named = ", ".join(self.found[:MAX_NAMED])
        if len(self.found) > MAX_NAMED:
            named += f" and {len(self.found) - MAX_NAMED} more"
        where = f" on {self.objects} objects" if self.objects > 1 else ""
        return f"{self.convention} ({named}{where})"


def _view(node: dict[str, Any]) -> dict[str, Any]:
    """An object's members, with a span's or log record's attributes among them (OTLP's
    ``[{"key", "value": {"stringValue": ...}}]``, or a console exporter's object)."""
    entries = node.get("attributes")
    if isinstance(entries, dict):
        return {**node, **entries}
    if not isinstance(entries, list):
        return node
    view = dict(node)
    for entry in entries:
        if isinstance(entry, dict):
            name = entry.get("key")
            if isinstance(name, str):
                value = entry.get("value")
                # an AnyValue holds one member, its kind: its value is what a mark reads
                view[name] = next(iter(value.values()), None) if isinstance(value, dict) else value
    return view


def _objects(value: Any) -> list[dict[str, Any]]:
    """The objects of a document, outermost first, at most :data:`MAX_OBJECTS` of them and
    :data:`MAX_DEPTH` deep."""
    found: list[dict[str, Any]] = []
    level = [value]
    for _ in range(MAX_DEPTH):
        below: list[Any] = []
        for node in level:
            if isinstance(node, dict):
                found.append(node)
                if len(found) >= MAX_OBJECTS:
                    return found
                below.extend(  # a span's attributes are seen as its members (_view)
                    v for k, v in node.items() if isinstance(v, dict | list) and k != "attributes"
                )
            elif isinstance(node, list):
                below.extend(v for v in node if isinstance(v, dict | list))
        if not below:
            break
        level = below
    return found


def _member(view: dict[str, Any], path: str) -> Any:
    """The member at ``path`` (``a/b``), or a mark that it is not there."""
    if path in view:
        return view[path]
    if "/" not in path:
        return _ABSENT
    node: Any = view
    for step in path.split("/"):
        if not isinstance(node, dict) or step not in node:
            return _ABSENT
        node = node[step]
    return node


_ABSENT: Final[Any] = object()


def _matches(marker: Marker, view: dict[str, Any]) -> str | None:
    """How ``marker`` shows on the object (its member, with the value it was asked to
    have), or ``None``."""
    found = _member(view, marker.member)
    if found is _ABSENT or found is None:
        return None
    wanted = marker.value
    if wanted is not None:
        if not isinstance(found, str):
            return None
        if wanted.endswith("*"):
            if not found.startswith(wanted[:-1]):
                return None
        elif found != wanted:
            return None
    if any(_member(view, other) is _ABSENT for other in marker.also):
        return None
    shown = marker.member.replace("/", ".")
    return shown if wanted is None else f'{shown} = "{found}"'


def look(value: Any, markers: tuple[Marker, ...] = MARKERS) -> Sighting | None:
    """The convention a document looks like, or ``None`` when it carries no mark of one."""
    first: int | None = None
    found: dict[str, None] = {}  # in the order seen
    objects = 0
    for node in _objects(value):
        view = _view(node)
        marked = False
        for i, marker in enumerate(markers):
            shown = _matches(marker, view)
            if shown is None:
                continue
            marked = True
            found[shown] = None
            if first is None or i < first:
                first = i
        objects += marked
    if first is None:
        return None
    return Sighting(markers[first].convention, tuple(found), objects)


def calls_in(value: Any) -> str | None:
    """Where a document holds tool calls, in any of the shapes the conventions write them
    (a member of :data:`CALL_MEMBERS` holding a call, a part typed as one, a flattened
    attribute such as ``gen_ai.completion.0.tool_calls.0.name``, or any of these inside a
    text that holds JSON); ``None`` when it holds none. A call names its tool."""
    budget = [MAX_OBJECTS]
    return _calls(value, budget, 0)


def _calls(value: Any, budget: list[int], depth: int) -> str | None:
    if depth > MAX_DEPTH or budget[0] <= 0:
        return None
    if isinstance(value, list):
        for item in value:
            found = _calls(item, budget, depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(value, str):
        parsed = _json_in(value)
        return None if parsed is _ABSENT else _calls(parsed, budget, depth + 1)
    if not isinstance(value, dict):
        return None
    budget[0] -= 1
    view = _view(value)
    kind = view.get("type")
    if isinstance(kind, str) and kind in CALL_TYPES and _named(view):
        return f'type = "{kind}"'
    for name, member in view.items():
        # a member, or an attribute whose last part names one (ai.response.toolCalls)
        if name.rpartition(".")[2] in CALL_MEMBERS and _holds_call(member):
            return name
        if "." in name and member not in (None, "", [], {}) and _flattened_call(name):
            return name
    for member in view.values():
        if isinstance(member, dict | list | str):
            found = _calls(member, budget, depth + 1)
            if found is not None:
                return found
    return None


def _json_in(text: str) -> Any:
    """The object or array a text holds as JSON (an attribute's value), else a mark that
    it holds none."""
    text = text.lstrip()
    if text[:1] not in ("{", "[") or len(text) > MAX_TEXT:
        return _ABSENT
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return _ABSENT


def _named(node: dict[str, Any]) -> bool:
    return any(node.get(name) not in (None, "") for name in NAME_MEMBERS)


def _holds_call(member: Any) -> bool:
    """Whether a member of :data:`CALL_MEMBERS` holds a call (an object that names a tool,
    or a list with one; a text holding such JSON)."""
    if isinstance(member, str):
        member = _json_in(member)
    if isinstance(member, dict):
        return _named(member)
    return isinstance(member, list) and any(isinstance(m, dict) and _named(m) for m in member)


def _flattened_call(name: str) -> bool:
    """Whether a flattened attribute names a call's tool: a segment of
    :data:`CALL_MEMBERS`, then (at any depth below it) ``name``."""
    steps = name.split(".")
    for i, step in enumerate(steps):
        if step in CALL_MEMBERS:
            return "name" in steps[i + 1 :]
    return False


def not_read(
    sighting: Sighting | None,
    *,
    calls: str | None = None,
    read_as: str | None = None,
    forced: str | None = None,
) -> Finding:
    """The ``envelope.not_read`` finding of a document that looks like ``sighting``: no
    dialect read it (``forced``: the dialect every document was to be read as did not), or
    (``calls``: where it holds them) the dialect ``read_as`` took it and could not read its
    calls."""
    if sighting is not None:
        looks = f"looks like {sighting.describe()}"
    else:
        looks = f"was taken for {read_as or 'a known dialect'}"
    if calls is None:
        which = f"--dialect {forced} does not read" if forced else "no capture dialect reads"
        message = f"the document {looks}, which {which}: no call was checked"
    else:
        message = (
            f"the document {looks} and holds tool calls ({calls}) that no capture dialect "
            "could read: they were not checked"
        )
    return envelope(
        codes.ENVELOPE_NOT_READ,
        message,
        "jsoncontract check --help lists the dialects it reads; convert the capture to one, "
        "force one with --dialect, or leave the file out with --exclude",
    )
