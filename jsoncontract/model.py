"""The canonical data model: one set of types shared by every command.

Everything the library produces is built from these values: a :class:`ToolContract` per
tool, a :class:`ToolCall` per extracted call (with the :class:`ToolResult` that answered it,
when the capture holds one), a :class:`TraceEvent` for what a trace says besides calls (an
MCP session's ``initialize`` and ``tools/list``, a result whose call is not in the capture), a
:class:`Finding` per problem and a :class:`CallResult` per checked call. Reporters turn them
into text; nothing here prints.
"""

from __future__ import annotations

import hashlib
import weakref
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any, Final

import orjson

from jsoncontract.stats import ToolStats

# Code run once per call reads a member's value as ``_value_`` (the attribute itself):
# ``.value`` is a Python-level property, five times slower.


class Severity(StrEnum):
    """How bad a finding is. The members are declared worst first, and that order is the
    only one: iterating the enum, :attr:`rank` and :meth:`worst` follow it. ``--fail-on``
    compares ranks.

    >>> [s.value for s in Severity]
    ['error', 'warning', 'info']
    >>> Severity.worst([Severity.INFO, Severity.WARNING, Severity.INFO])
    <Severity.WARNING: 'warning'>
    >>> Severity.worst([]) is None
    True
    """

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """2 for errors, 1 for warnings, 0 for info: higher is worse."""
        return _SEVERITY_RANK[self]

    @classmethod
    def worst(cls, severities: Iterable[Severity]) -> Severity | None:
        """The most severe of ``severities``, or ``None`` when there are none (reading
        stops at the first error)."""
        worst: Severity | None = None
        for severity in severities:
            if worst is None or _SEVERITY_RANK[severity] > _SEVERITY_RANK[worst]:
                worst = severity
                if severity is cls.ERROR:
                    break
        return worst


_SEVERITY_RANK: Final = {s: len(Severity) - 1 - i for i, s in enumerate(Severity)}


class Stage(StrEnum):
    """The gates a call passes through, in order: four on the arguments going out, then
    ``result`` on what came back."""

    ENVELOPE = "envelope"
    PARSE = "parse"
    SCHEMA = "schema"
    BUSINESS = "business"
    RESULT = "result"


STAGE_ORDER: Final = (Stage.ENVELOPE, Stage.PARSE, Stage.SCHEMA, Stage.BUSINESS, Stage.RESULT)


class Hop(StrEnum):
    """Where on its way from the model to the business system a payload was captured."""

    MODEL = "model"
    MCP = "mcp"
    DOWNSTREAM = "downstream"


class Dialect(StrEnum):
    """The names of the wire formats jsoncontract reads built in.

    Captures and tool definitions carry their dialect's name as a string: a built-in one is
    a member of this enum, a dialect registered in
    :class:`~jsoncontract.capture.registry.Registry` may bring its own. ``json-schema`` names
    a bare JSON Schema given as a tool definition; it is no capture dialect.

    The members are the names the code refers to; which dialects are read, in which order,
    is the registry's table (:data:`~jsoncontract.capture.registry.BUILT_IN`), and a test
    keeps the two equal. ``--dialect`` and the config schema list the table.
    """

    OPENAI_CHAT = "openai-chat"
    OPENAI_RESPONSES = "openai-responses"
    ANTHROPIC = "anthropic"
    GEMINI = "gemini"
    OTLP = "otlp"
    BEDROCK_CONVERSE = "bedrock-converse"
    OLLAMA = "ollama"
    COHERE = "cohere"
    MISTRAL = "mistral"
    LANGCHAIN = "langchain"
    LITELLM = "litellm"
    MCP = "mcp"
    MCP_TRACE = "mcp-trace"  # the lines of a trace written by ``mcp record``
    DOWNSTREAM = "downstream"
    JSON_SCHEMA = "json-schema"


class BaselineState(StrEnum):
    """Where a finding stands against a baseline (a previous report): SARIF's names."""

    NEW = "new"
    UNCHANGED = "unchanged"


@dataclass(slots=True)
class Source:
    """Where something came from: a file, a 1-based line, and a JSON Pointer inside it.

    A file name that holds a secret (a key pasted into a capture's name) is kept masked
    (:func:`~jsoncontract.masking.masked`): no report shows it.
    """

    file: str
    line: int | None = None
    column: int | None = None
    pointer: str | None = None

    def __post_init__(self) -> None:
        self.file = shown_name(self.file)

    def to_dict(self) -> dict[str, Any]:
        """The ``{"file":..,"line":..}`` object of the JSON report (``None`` parts left out)."""
        out: dict[str, Any] = {"file": self.file}
        if self.line is not None:
            out["line"] = self.line
        if self.column is not None:
            out["column"] = self.column
        return out

    def __str__(self) -> str:
        if self.line is None:
            return self.file
        if self.column is None:
            return f"{self.file}:{self.line}"
        return f"{self.file}:{self.line}:{self.column}"


@lru_cache(maxsize=4096)
def shown_name(name: str) -> str:
    """A file name as reports may show it: a secret in it masked (remembered per name)."""
    from jsoncontract.masking import masked

    return masked(name)


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem, with enough context for a person to act on it.

    ``code`` is stable across releases (``parse.code_fence``, ``schema.enum``,
    ``business.<rule-id>``, a lint code); ``path`` is a JSON Pointer into the checked
    document (for calls: into the arguments); ``hint`` says what to do about it.
    ``baseline`` is set when the run was compared with a baseline: a finding already in it
    is ``unchanged`` and does not count toward the exit code.
    """

    code: str
    severity: Severity
    message: str
    path: str = ""
    stage: Stage | None = None
    hop: Hop | None = None
    tool: str | None = None
    call_id: str | None = None
    keyword: str | None = None
    schema_path: str | None = None
    source: Source | None = None
    hint: str | None = None
    baseline: BaselineState | None = None

    def to_dict(self) -> dict[str, Any]:
        """The finding as it appears in every JSON report (absent parts left out)."""
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity._value_,
            "message": self.message,
            "path": self.path,
        }
        # each member read once (a slot read is a descriptor call)
        if (stage := self.stage) is not None:
            out["stage"] = stage._value_
        if (hop := self.hop) is not None:
            out["hop"] = hop._value_
        if (tool := self.tool) is not None:
            out["tool"] = tool
        if (call_id := self.call_id) is not None:
            out["call_id"] = call_id
        if (keyword := self.keyword) is not None:
            out["keyword"] = keyword
        if (schema_path := self.schema_path) is not None:
            out["schema_path"] = schema_path
        if (source := self.source) is not None:
            out["source"] = source.to_dict()
        if (hint := self.hint) is not None:
            out["hint"] = hint
        if (baseline := self.baseline) is not None:
            out["baseline"] = baseline._value_
        return out


@dataclass(frozen=True, slots=True)
class SchemaLocation:
    """Where a tool's schema is written in its file.

    ``openapi`` is true for a schema written in the OpenAPI 3.0 subset (Gemini
    ``parameters`` and ``response``): the contract holds its JSON Schema translation.
    """

    pointer: str
    openapi: bool = False


@dataclass(frozen=True, slots=True)
class ToolContract:
    """One tool, normalised from whichever dialect defined it.

    ``input_schema`` is the canonical JSON Schema of the arguments; ``definition`` keeps the
    original definition object untouched (for linting and pinning). ``dialect`` is the name
    of the dialect that defined it (a :class:`Dialect` for the built-in ones).

    The loader records where the parts sit in the file at ``source`` (JSON Pointers):
    ``body_pointer`` is the object holding name and description (the definition itself, or
    its ``function`` member in OpenAI Chat; ``None`` means the definition itself), and
    ``input_location`` / ``output_location`` the schemas as written. A location is ``None``
    when the schema is not written in that file: made up for a function without
    ``parameters``, or taken from another copy of the tool.
    """

    name: str
    input_schema: dict[str, Any]
    dialect: str
    source: Source
    description: str | None = None
    title: str | None = None
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    strict: bool | None = None
    definition: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    body_pointer: str | None = field(default=None, compare=False)
    input_location: SchemaLocation | None = field(default=None, compare=False)
    output_location: SchemaLocation | None = field(default=None, compare=False)


class ArgumentsForm(StrEnum):
    """How the arguments of a call arrived on the wire."""

    TEXT = "text"  # a JSON document inside a string (OpenAI ``arguments``)
    VALUE = "value"  # an already-parsed JSON value (Anthropic ``input``, MCP ``arguments``)
    #: a value decoded once from the model's text by the provider, its SDK or an exporter
    #: (Bedrock ``toolUse.input``, Ollama ``arguments``, LangChain ``args``): a string in it
    #: that holds an object is the model's double encoding, as it would be on the raw text
    DECODED = "decoded"
    MISSING = "missing"  # no arguments member at all
    #: the capture does not record the arguments (an OpenTelemetry span without the opt-in
    #: ``gen_ai.tool.call.arguments``): the argument gates are skipped, the result is checked
    UNRECORDED = "unrecorded"


@dataclass(frozen=True, slots=True)
class Anomaly:
    """Something a JSON parser would hide: a duplicate key, an integer beyond 64 bits...

    Found while loading the capture document; ``pointer`` is relative to the call's
    arguments, ``kind`` is the parse code suffix (``duplicate_key``, ``big_integer``...).
    """

    kind: str
    pointer: str
    detail: str


class OfferedTools:
    """The tool definitions one request, span or MCP session offered the model, as written
    there: the contract of the calls read from it when ``--tools`` names none.

    One object stands for every equal list (:func:`offered_tools`): the calls of a million
    requests that offer the same twenty tools share one, and so do the calls a worker
    process hands back (an unpickled list is looked up again). Two lists are equal when
    their definitions serialise to the same bytes (``key``, a 128-bit digest);
    ``definitions`` are the definitions in the order written, each in whatever dialect the
    request wrote it (the tool loader tells them apart), and are never changed.
    """

    __slots__ = ("__weakref__", "definitions", "key")

    def __init__(self, key: bytes, definitions: tuple[Any, ...]) -> None:
        self.key = key
        self.definitions = definitions

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OfferedTools) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __len__(self) -> int:
        return len(self.definitions)

    def __repr__(self) -> str:
        return f"OfferedTools({len(self.definitions)} definitions, {self.key.hex()[:12]})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (_interned, (self.key, self.definitions))


#: The lists alive in this process, by key: equal lists are one object while any call holds
#: it (a weak table: nothing is kept once the calls are gone).
_OFFERED: Final[weakref.WeakValueDictionary[bytes, OfferedTools]] = weakref.WeakValueDictionary()


def offered_tools(definitions: Iterable[Any]) -> OfferedTools:
    """The one :class:`OfferedTools` for ``definitions`` (a request's ``tools`` list, an MCP
    ``tools/list``): the object already alive for an equal list, else a new one. The list
    object asked about last is answered without being read again (the reader and a
    request's handler both ask of one request's list)."""
    last = _LAST[0]
    if last is not None and last[0] is definitions:
        return last[1]
    items = tuple(definitions)
    try:
        data = orjson.dumps(items)
    except TypeError:  # deeper than orjson writes: a list of its own
        data = repr(id(items)).encode()
    found = _interned(hashlib.blake2b(data, digest_size=16).digest(), items)
    if type(definitions) is list:  # a list the caller holds (a generator is read once)
        _LAST[0] = (definitions, found)
    return found


#: The list :func:`offered_tools` was asked about last, and its answer.
_LAST: Final[list[tuple[Any, OfferedTools] | None]] = [None]


def _interned(key: bytes, definitions: tuple[Any, ...]) -> OfferedTools:
    found = _OFFERED.get(key)
    if found is None:
        found = _OFFERED[key] = OfferedTools(key, definitions)
    return found


@dataclass(frozen=True, slots=True)
class McpSession:
    """What one MCP session had said when a message of it was read: a snapshot, replaced
    (never changed) at each ``initialize``, ``tools/list`` page and ``list_changed``.

    ``id`` names the session within the run (the capture file, a counter when the file
    holds several ``initialize`` exchanges, or the ``mcp.session.id`` of a span).
    ``protocol_version`` is the version the server answered ``initialize`` with (or the
    version a 2026 stateless request names in its ``_meta``); ``None`` when the capture does
    not say. ``tools`` is the latest complete ``tools/list`` by name (``None``: none was
    seen), ``listings`` how many complete lists were seen, and ``list_changed`` whether the
    server announced ``notifications/tools/list_changed`` after the latest list.
    ``offered`` is the latest list as the tools the session offers its calls (see
    :class:`OfferedTools`).
    """

    id: str
    protocol_version: str | None = None
    tools: dict[str, Any] | None = field(default=None, compare=False)
    listings: int = 0
    list_changed: bool = False
    capabilities: dict[str, Any] | None = field(default=None, compare=False)
    offered: OfferedTools | None = field(default=None, compare=False, repr=False)


@dataclass(slots=True)
class ToolResult:
    """What came back for one call at one hop, as the capture holds it.

    Results are read like calls, by the dialect of the message that carries them, and
    attached to their :class:`ToolCall` (``ToolCall.result``) by call id, in whatever order
    they arrive (see :mod:`jsoncontract.capture.ledger`).

    Arguments:
        hop: the hop of the call it answers.
        dialect: the dialect it was read in.
        call_id: the id of the call it answers, as the wire says it (an MCP JSON-RPC id as
            text, ``tool_call_id``, ``tool_use_id``, ``call_id``, a ``functionResponse`` id,
            ``gen_ai.tool.call.id``); ``None`` when it was paired by position.
        source: where it was read.
        content: the content as on the wire: MCP ``result.content`` (a list of content
            blocks), an OpenAI tool message's ``content`` (a string or text parts), a
            Responses ``output``, an Anthropic ``tool_result.content``, a Gemini
            ``functionResponse.response``, an HTTP response body (parsed when it is JSON,
            else its text), an OpenTelemetry ``gen_ai.tool.call.result`` or
            ``tool_call_response`` part. ``None`` when there is none.
        structured_content: MCP ``structuredContent`` (``present_structured`` says whether
            the member was there at all, since ``null`` is a value).
        is_error: whether the answer says the tool failed: MCP ``isError``, Anthropic
            ``is_error``, a JSON-RPC ``error``, an HTTP status of 400 or more, a span's
            ``error.type`` or error status. ``None`` when the wire does not say.
        error: the JSON-RPC ``error`` object as on the wire.
        status: the HTTP status, or an OpenTelemetry ``rpc.response.status_code``.
        tool: the tool the result names, when it names one (Gemini ``functionResponse``,
            a span's ``gen_ai.tool.name``).
        started: when the call was sent, in seconds since the epoch, where the capture
            says (a span's start, a HAR entry's ``startedDateTime``, a trace record's time).
        ended: when the answer arrived, likewise.
        message: the whole object the result was read from (the JSON-RPC response, the
            tool message, the ``tool_result`` block...), for checks that need more.
        in_history: read from a conversation history (a request body), where a result
            must answer a call of the same history.
        session: the MCP session it belongs to, for MCP results.
        load_findings: what was already wrong with the result's envelope when it was read
            (stage ``result``).
        sighting: at the MCP and downstream hops, the key its dialect pairs it by, when the
            id's text alone would not do (a JSON-RPC id with its type: ``1`` and ``"1"`` are
            two ids); the call it answers has the same. Never reported.
    """

    hop: Hop | None
    dialect: str | None
    call_id: str | None
    source: Source
    content: Any = None
    structured_content: Any = None
    present_structured: bool = False
    is_error: bool | None = None
    error: dict[str, Any] | None = None
    status: int | None = None
    tool: str | None = None
    started: float | None = None
    ended: float | None = None
    message: Any = field(default=None, repr=False)
    in_history: bool = False
    session: McpSession | None = field(default=None, repr=False)
    load_findings: list[Finding] = field(default_factory=list)
    sighting: str | None = field(default=None, repr=False)

    @property
    def duration_ms(self) -> float | None:
        """How long the call took, when the capture says when it started and ended."""
        if self.started is None or self.ended is None:
            return None
        return round((self.ended - self.started) * 1000, 3)

    def to_dict(self) -> dict[str, Any]:
        """The ``result`` object of a call in the ``check`` JSON report.

        It says what came back without quoting it (the report never echoes payloads):
        where it was read, whether it reports an error, the JSON-RPC error code, the HTTP
        status, whether it holds structured content, and the time it took.
        """
        out: dict[str, Any] = {
            "hop": self.hop._value_ if self.hop is not None else None,
            "dialect": str(self.dialect) if self.dialect is not None else None,
            "source": self.source.to_dict(),
            "is_error": self.is_error,
        }
        error = self.error
        if error is not None:
            code = error.get("code")
            out["error_code"] = code if type(code) is int else None
        if self.status is not None:
            out["status"] = self.status
        if self.present_structured:
            out["structured_content"] = True
        duration = self.duration_ms
        if duration is not None:
            out["duration_ms"] = duration
        return out


@dataclass(slots=True)
class ToolCall:
    """One tool call pulled out of a capture, at one hop, before any gate has run.

    ``load_findings`` holds what was already wrong while the call was being extracted (a
    malformed envelope, or a trace line that is not JSON at all, in which case ``tool`` and
    ``hop`` are ``None``). ``dialect`` is the name of the dialect it was read in (a
    :class:`Dialect` for the built-in ones).

    What the reader adds for the checks over the return leg and the whole run:

    - ``result``: the :class:`ToolResult` that answered it, when the capture holds one;
    - ``turn``: a key shared by the calls one assistant turn emitted (one response, one
      assistant message, one chat span), ``None`` where the capture has no turns (MCP);
      the calls of one turn are read, and handed on, one after the other;
    - ``session``: for an MCP call, what its session had said when the call was made;
    - ``time``: when the call was made (seconds since the epoch), where the capture says;
    - ``sighting``: for a call without an id, a key its dialect gives every sighting of one
      call (a Gemini call in a response, then in the next request's history; an
      OpenTelemetry ``tool_call`` part, its execute-tool span, the next span's history), by
      which the reader's ledger tells them to be one call; at the MCP hop, the JSON-RPC id
      with its type (its result has the same); never reported;
    - ``offered``: the tools the request, span or session the call was read from offered
      the model (:class:`OfferedTools`, shared by every call of an equal list), ``None``
      where the capture does not record them; an MCP call's are its session's
      (:func:`offered_to`).
    """

    hop: Hop | None
    dialect: str | None
    tool: str | None
    call_id: str | None
    arguments: Any
    form: ArgumentsForm
    source: Source
    anomalies: tuple[Anomaly, ...] = ()
    load_findings: list[Finding] = field(default_factory=list)
    context: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    result: ToolResult | None = None
    turn: str | None = None
    session: McpSession | None = field(default=None, repr=False)
    time: float | None = None
    sighting: str | None = field(default=None, repr=False)
    offered: OfferedTools | None = field(default=None, repr=False)

    @property
    def response(self) -> Any:
        """The JSON-RPC response that answered an MCP call (``result.message``), or
        ``None``."""
        result = self.result
        return result.message if result is not None and self.hop is Hop.MCP else None


def offered_to(call: ToolCall | PassedCall) -> OfferedTools | None:
    """The tools offered to ``call``: its own, else its MCP session's latest list."""
    offered = call.offered if type(call) is ToolCall else None
    if offered is None:
        session = call.session
        if session is not None:
            return session.offered
    return offered


def locate(findings: list[Finding], call: ToolCall) -> list[Finding]:
    """Fill each finding's hop, tool, call id and source from its call."""
    hop, tool, call_id, source = call.hop, call.tool, call.call_id, call.source
    # The constructor directly: dataclasses.replace costs three times as much, and a
    # fixture run locates tens of thousands of findings.
    return [
        Finding(
            f.code,
            f.severity,
            f.message,
            f.path,
            f.stage,
            f.hop or hop,
            f.tool or tool,
            f.call_id or call_id,
            f.keyword,
            f.schema_path,
            f.source or source,
            f.hint,
        )
        for f in findings
    ]


class EventKind(StrEnum):
    """What a :class:`TraceEvent` reports."""

    #: an MCP ``initialize`` answered: ``session.protocol_version`` is the negotiated one
    INITIALIZE = "initialize"
    #: a complete MCP ``tools/list`` (every page): ``session.tools`` is the new list
    TOOLS_LIST = "tools_list"
    #: ``notifications/tools/list_changed`` from the server
    LIST_CHANGED = "list_changed"
    #: a result whose call is not in the capture (``result`` holds it)
    ORPHAN_RESULT = "orphan_result"
    #: a result that arrived after its call had been handed on unanswered, further from it
    #: than the reader waits (``result`` holds it)
    LATE_RESULT = "late_result"
    #: a second result for one call that says something else than the first (``result``
    #: holds it)
    CONFLICTING_RESULT = "conflicting_result"
    #: a model-hop call id given to another call (another tool, other arguments) than the
    #: one that had it (``call`` is the new call, ``earlier`` where the first was read)
    REUSED_CALL_ID = "reused_call_id"


@dataclass(slots=True)
class TraceEvent:
    """Something a capture says besides calls, in capture order among them.

    :meth:`~jsoncontract.capture.reader.CaptureReader.read_trace` yields these between the
    calls; ``session`` is the MCP session after the event, ``result`` the result of an
    orphan, late or conflicting result, ``message`` the message the event was read from;
    ``call`` and ``earlier``, for a reused call id, the new call and where the call that
    had the id first was read.
    """

    kind: EventKind
    source: Source
    session: McpSession | None = None
    result: ToolResult | None = None
    message: Any = field(default=None, repr=False)
    call: ToolCall | None = field(default=None, repr=False)
    earlier: Source | None = None


@dataclass(slots=True)
class CallResult:
    """The outcome of running one call through the gates.

    ``stage`` is the first gate that produced an error (``None`` when the call passed);
    ``arguments`` holds the parsed arguments when the parse gate passed.
    """

    call: ToolCall
    findings: list[Finding]
    stage: Stage | None
    arguments: Any = None

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return self.stage is None

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``results`` in the ``check`` JSON report (``result`` only when the
        capture holds the call's result)."""
        call = self.call
        hop, dialect, stage = call.hop, call.dialect, self.stage
        out = {
            "ok": stage is None,
            "tool": call.tool,
            "hop": hop._value_ if hop is not None else None,
            "call_id": call.call_id,
            "dialect": str(dialect) if dialect is not None else None,
            "stage": stage._value_ if stage is not None else None,
            "source": call.source.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
        }
        if call.result is not None:
            out["result"] = call.result.to_dict()
        return out


class PassedCall:
    """A call that passed every gate, as the fast lane leaves it: only what a report says
    of a passing call, so that the common case builds no :class:`ToolCall`, no
    :class:`Source` and no :class:`CallResult`. :meth:`result` builds them when a reader
    wants them; the report entry is the same either way.

    ``text`` is the arguments as the capture sent them (a JSON string when ``form`` is
    text, else the value), ``arguments`` their parsed value; ``turn`` the assistant turn
    the dialect put the call in; ``session`` and ``sighting`` an MCP call's (see
    :class:`ToolCall`).
    """

    __slots__ = (
        "arguments",
        "call_id",
        "dialect",
        "file",
        "form",
        "hop",
        "line",
        "session",
        "sighting",
        "text",
        "tool",
        "turn",
    )

    def __init__(
        self,
        tool: str,
        hop: Hop,
        call_id: str | None,
        dialect: str,
        file: str,
        line: int,
        text: Any,
        arguments: Any,
        turn: str | None = None,
        form: ArgumentsForm = ArgumentsForm.TEXT,
        session: McpSession | None = None,
        sighting: str | None = None,
    ) -> None:
        self.tool = tool
        self.hop = hop
        self.call_id = call_id
        self.dialect = dialect
        self.file = file
        self.line = line
        self.text = text
        self.arguments = arguments
        self.turn = turn
        self.form = form
        self.session = session
        self.sighting = sighting

    def call(self) -> ToolCall:
        """The call, as the full path builds it."""
        call = ToolCall(
            self.hop,
            self.dialect,
            self.tool,
            self.call_id,
            self.text,
            self.form,
            Source(self.file, self.line),
            turn=self.turn,
            session=self.session,
        )
        call.sighting = self.sighting
        return call

    def result(self) -> CallResult:
        """The result, as the full path builds it."""
        return CallResult(self.call(), [], None, self.arguments)


class ResultRun:
    """Consecutive results as a worker of a parallel run hands them back for a JSON report:
    already counted (``summary``, a summary of these results alone: from a worker, their
    number alone, as the worker counts a part's results once for all its runs) and encoded
    (``entries``: each ``CallResult.to_dict()`` serialised, one per line), so that the
    parent only adds counts and copies bytes."""

    __slots__ = ("entries", "summary")

    def __init__(self, summary: Summary, entries: bytes) -> None:
        self.summary = summary
        self.entries = entries


@dataclass(slots=True)
class Summary:
    """Running totals over a check: by stage, by tool, by code and by severity.

    ``findings`` holds the run-level findings: those about the run rather than one call (a
    result whose call is not in the capture, a turn or a session breaking a contract). They
    count in ``by_code`` and ``by_severity`` like the findings of calls. ``by_result`` counts
    each tool's results, error results and latencies (:class:`~jsoncontract.stats.ToolStats`).
    ``baseline`` counts, by state, the findings of a run compared with a baseline (empty
    otherwise). ``unread`` counts the results among ``calls`` that stand for a document
    the reader could not read as a call (not JSON, no known dialect, LLM traffic no dialect
    reads): they carry its finding, and are no call that was read.
    """

    calls: int = 0
    ok: int = 0
    failed: int = 0
    files: int = 0
    by_stage: Counter[str] = field(default_factory=Counter)
    by_tool: dict[str, list[int]] = field(default_factory=dict)
    by_code: Counter[str] = field(default_factory=Counter)
    by_severity: Counter[str] = field(default_factory=Counter)
    findings: list[Finding] = field(default_factory=list)
    by_result: dict[str, ToolStats] = field(default_factory=dict)
    baseline: Counter[str] = field(default_factory=Counter)
    unread: int = 0
    #: severities of the findings the baseline holds
    _held: Counter[str] = field(default_factory=Counter)

    def add(self, result: CallResult) -> None:
        """Count one result."""
        if result.call.result is not None:
            self.time(result.call)
        self.count(result)

    def time(self, call: ToolCall) -> None:
        """Count what came back for one call (its tool's results, errors and latency).
        Latencies are summed in the order the calls come, so that a run counted in pieces
        reports the same mean as one counted whole."""
        answer = call.result
        if answer is None:
            return
        tool = call.tool or "(unknown)"
        stats = self.by_result.get(tool)
        if stats is None:
            stats = self.by_result[tool] = ToolStats()
        duration = answer.duration_ms
        if duration is None and answer.ended is not None and call.time is not None:
            duration = round((answer.ended - call.time) * 1000, 3)
        stats.add(duration, answer.is_error is True)

    def count(self, result: CallResult) -> None:
        """Count one result, but for what came back (:meth:`time`)."""
        self.calls += 1
        call = result.call
        if call.dialect is None:  # a document that was no call (capture.base.problem_call)
            self.unread += 1
        tool = call.tool or "(unknown)"
        counts = self.by_tool.get(tool)
        if counts is None:
            counts = self.by_tool[tool] = [0, 0]
        counts[0] += 1
        stage = result.stage
        if stage is None:
            self.ok += 1
        else:
            self.failed += 1
            counts[1] += 1
            self.by_stage[stage._value_] += 1
        findings = result.findings
        if findings:
            by_code, by_severity = self.by_code, self.by_severity
            for finding in findings:
                by_code[finding.code] += 1
                by_severity[finding.severity._value_] += 1
                if finding.baseline is not None:
                    self._count_baseline(finding)

    def add_finding(self, finding: Finding) -> None:
        """Keep and count one run-level finding."""
        self.findings.append(finding)
        self.by_code[finding.code] += 1
        self.by_severity[finding.severity._value_] += 1
        self._count_baseline(finding)

    def add_passed(self, tool: str) -> None:
        """Count one call of ``tool`` that passed with no finding."""
        self.calls += 1
        self.ok += 1
        counts = self.by_tool.get(tool)
        if counts is None:
            self.by_tool[tool] = [1, 0]
        else:
            counts[0] += 1

    def merge(self, other: Summary) -> None:
        """Add the counts of ``other`` (a summary of other results of the same run)."""
        self.calls += other.calls
        self.unread += other.unread
        self.ok += other.ok
        self.failed += other.failed
        by_tool = self.by_tool
        for tool, (calls, failed) in other.by_tool.items():
            counts = by_tool.get(tool)
            if counts is None:
                by_tool[tool] = [calls, failed]
            else:
                counts[0] += calls
                counts[1] += failed
        self.by_stage.update(other.by_stage)
        self.by_code.update(other.by_code)
        self.by_severity.update(other.by_severity)
        self.findings.extend(other.findings)
        by_result = self.by_result
        for tool, stats in other.by_result.items():
            mine = by_result.get(tool)
            if mine is None:
                by_result[tool] = mine = ToolStats()
            mine.merge(stats)
        self.baseline.update(other.baseline)
        self._held.update(other._held)

    def count_baseline(self, findings: Iterable[Finding]) -> None:
        """Count the baseline states of findings marked after they were counted (the
        results of a run counted elsewhere: on Spark)."""
        for finding in findings:
            self._count_baseline(finding)

    def _count_baseline(self, finding: Finding) -> None:
        state = finding.baseline
        if state is not None:
            self.baseline[state._value_] += 1
            if state is BaselineState.UNCHANGED:
                self._held[finding.severity._value_] += 1

    def worst(self, *, new: bool = False) -> Severity | None:
        """The most severe finding seen (``new``: not counting those the baseline holds),
        or ``None`` when there were none."""
        held = self._held if new else {}
        return Severity.worst(
            s for s in Severity if self.by_severity.get(s._value_, 0) > held.get(s._value_, 0)
        )

    def to_dict(self) -> dict[str, Any]:
        """The ``summary`` object of the ``check`` JSON report."""
        return {
            "calls": self.calls,
            "ok": self.ok,
            "failed": self.failed,
            "files": self.files,
            "by_stage": {s.value: self.by_stage.get(s.value, 0) for s in STAGE_ORDER},
            "by_tool": {name: self._tool_dict(name, c) for name, c in sorted(self.by_tool.items())},
            "by_code": dict(sorted(self.by_code.items())),
            "by_severity": {s.value: self.by_severity.get(s.value, 0) for s in Severity},
            **(
                {"baseline": {s.value: self.baseline.get(s.value, 0) for s in BaselineState}}
                if self.baseline
                else {}
            ),
        }

    def _tool_dict(self, name: str, counts: list[int]) -> dict[str, Any]:
        """One tool's entry of ``by_tool``: calls and failed calls; with its results (how
        many, how many errors, and the latency in milliseconds where the capture has
        times) when the capture holds any."""
        out: dict[str, Any] = {"calls": counts[0], "failed": counts[1]}
        stats = self.by_result.get(name)
        if stats is not None:
            out["results"] = stats.results
            out["errors"] = stats.errors
            latency = stats.latency()
            if latency is not None:
                out["latency_ms"] = latency
        return out


@dataclass(slots=True)
class CheckReport:
    """What :func:`jsoncontract.check` returns: the summary, every result, and the run-level
    findings (``summary.findings``)."""

    summary: Summary
    results: list[CallResult]

    @property
    def ok(self) -> bool:
        """True when every call passed and no run-level finding is an error."""
        return self.summary.failed == 0 and not any(
            f.severity is Severity.ERROR for f in self.summary.findings
        )

    @property
    def findings(self) -> list[Finding]:
        """The run-level findings."""
        return self.summary.findings

    def to_dict(self) -> dict[str, Any]:
        """The whole ``check`` JSON report."""
        return {
            "version": 1,
            "summary": self.summary.to_dict(),
            "results": [r.to_dict() for r in self.results],
            "findings": [f.to_dict() for f in self.summary.findings],
        }


Captured = ToolCall | ToolResult | TraceEvent
"""What reading a capture produces, in capture order: calls, results, and trace events."""
