"""The interface of a capture dialect: one module per wire format, behind one Protocol.

A dialect is everything jsoncontract knows about one wire format (OpenAI Chat, MCP...):

- its ``name`` (what reports print and ``--dialect`` forces) and its ``hop``;
- how it recognises a document: :meth:`CaptureDialect.whole` recognises a whole message of
  the dialect (a response, a JSON-RPC frame) by one distinctive member (its ``mark``), and
  :meth:`CaptureDialect.part` everything else it reads (stream events, and parts of
  messages logged on their own: a bare ``tool_calls`` entry, a content part); both answer
  with the :data:`Handler` that reads it;
- what it remembers while one file is read (:meth:`CaptureDialect.new_state`): the calls
  its streams are putting together (an :class:`~jsoncontract.capture.base.Assembler`),
  the requests still waiting for an answer;
- where a tool definition of the dialect keeps its name, description and schemas
  (:class:`ToolLayout`), or ``None`` when the dialect defines no tools.

The reader, the tool loader and lint ask the dialects of a
:class:`~jsoncontract.capture.registry.Registry` instead of knowing them (the loader names
two only for the document shapes that hold their tools: an MCP ``tools/list`` response,
OpenAI's legacy ``functions`` list). Adding a dialect is one module that defines a
``DIALECT`` object conforming to :class:`CaptureDialect`, one entry in the registry's
table, and its fixtures.

Every extractor of a dialect module takes its arguments in one order, ``(node, ctx, out,
pointer="")``: the object, where its document came from, the list the calls it holds are
appended to, and the object's JSON Pointer inside its document. A document that answers
calls (an MCP response, a tool message) is recognised like any other, by ``whole`` or
``part``, and read by its own handler; MCP's state already pairs each response with the
request it answers.

**Shortcuts.** A dialect may offer, for some of its handlers, a :class:`Shortcut` (its
``shortcuts`` table, keyed by the handler's function): a cheap reading of an *ordinary*
document of that kind into its calls, as :data:`LaneCall` tuples, for the fast lane of
:mod:`jsoncontract.pipeline.fast`. An ordinary document is one the handler would read into
those calls and nothing else: no finding on the envelope, no result, nothing its state would
read another way; anything else is declined (``None``) and read by the handler. A shortcut
never changes the dialect's state: what the handler would have remembered of a document the
lane took is remembered by the shortcut's ``commit``. A shortcut's ``read`` is the lane's
reading of documents whose calls wait for their results, or that hold results: it builds
what the handler would append and remembers what the handler would, in one step, or
declines with nothing changed; the lane hands what it built to the ledger.

**Claims.** A dialect may name, in ``claims``, the members without one of which its ``part``
takes no object. When every detected dialect does, an object holding none of them and no
dialect's mark is a bare body of the tool the caller named, and the fast lane reads it so
without asking each dialect (a dialect without ``claims`` is always asked).

**Offered tools.** What a request, a span or an MCP session offered the model is the
contract of the calls read from it when ``check`` is given no ``--tools``
(:mod:`jsoncontract.pipeline.offered`). A dialect hands it on in three steps:

- it finds the list where its documents keep it, and makes it one
  :class:`~jsoncontract.model.OfferedTools` with
  :func:`~jsoncontract.capture.base.request_tools` (a member of a request body) or
  :func:`~jsoncontract.model.offered_tools` (any definitions: flattened span attributes
  put back together, an MCP ``tools/list``). The definitions stay as written, in any
  dialect the tool loader reads; equal lists are one object, so a trace of a million
  requests holds one copy of their tools, and an unpickled list (a worker's results, a
  part's memory) is looked up again rather than copied;
- it sets it on the context the calls are read under (``ctx.child(..., offered=found)``:
  :attr:`DocContext.offered`), and
  :func:`~jsoncontract.capture.base.make_call` gives it to each call
  (:attr:`ToolCall.offered <jsoncontract.model.ToolCall.offered>`); a call built another
  way (a shortcut's) is given it by its builder. An MCP call's list is its session's
  (``McpSession.offered``, the latest complete ``tools/list``), read through
  :func:`~jsoncontract.model.offered_to`;
- a dialect whose requests offer tools also answers ``offered(request)`` (an optional
  member, like ``claims``): the tools a request body of its own offers, or ``None``. The
  reader asks it for the request of an exchange logged whole (``{"request": ..,
  "response": ..}``, and an HTTP Archive entry), whose response's calls are given the
  request's list.

A call read from a request's history is given that request's list (agents send the same
tools every turn); the ledger keeps, for a call seen twice, the list of the sighting it
holds, or the later one's when the first records none. ``None`` means the capture does
not say what was offered: such a call has no contract of its own.

**Joins.** A memory that a file's documents leave behind (a Responses file's produced items,
an MCP file's unanswered requests) would make every part of a file cut into parts depend on
the parts before it. A dialect whose state is a :class:`JoinableState` says instead what a
part's reading asked of the memory it began with, so that the run can tell whether the
memory the part really began with would have given the same answers, and continue after it
(see :mod:`jsoncontract.pipeline.runner`, "Staying exact").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from jsoncontract.model import Source

if TYPE_CHECKING:
    from jsoncontract.model import (
        Anomaly,
        ArgumentsForm,
        Captured,
        Hop,
        McpSession,
        OfferedTools,
    )

Handler = Callable[[dict[str, Any], "DocContext", list["Captured"]], None]
"""Reads one recognised object: appends the calls it holds to the list."""

#: One call of an ordinary document, as a :class:`Shortcut` reads it: the tool's name, the
#: call id (``None``: a bare body's), the arguments (the text as sent when their form is
#: text, else the value), their form, and the turn the handler would put the call in.
LaneCall = tuple[str, str | None, Any, "ArgumentsForm", str | None]


@dataclass(frozen=True, slots=True)
class Shortcut:
    """The fast lane's reading of one kind of document (see the module).

    ``extract(node, state, file, line)``: the calls of ``node`` (a JSONL line's document,
    ``state`` the dialect's memory of the file when the handler is one of its methods, the
    tool the caller named for the fallback dialect's bare bodies, else ``None``), or
    ``None`` when the document is not ordinary. ``commit(node, state)``: what the handler
    would remember of it, once the lane took it. ``session(state, node, file)``: for an MCP
    request, the session it is made under and its sighting.

    ``read(node, state, ctx)``: for documents whose calls wait for their results, or that
    hold results (MCP requests and answers while the hop carries results, conversation
    histories), which the lane hands to the ledger rather than checks: what the handler
    would append to its list, exactly (the same calls and results, with the same members),
    with what it would remember of the document remembered; or ``None``, with nothing
    changed, when the document is not ordinary. ``ctx`` is the context the reader would
    have made for the line (the document parsed with no anomaly).
    """

    extract: Callable[[dict[str, Any], Any, str, int], list[LaneCall] | None] | None = None
    commit: Callable[[dict[str, Any], Any], None] | None = None
    session: Callable[[Any, dict[str, Any], str], tuple[McpSession, str]] | None = None
    read: Callable[[dict[str, Any], Any, DocContext], list[Captured] | None] | None = None


class DialectState(Protocol):
    """What a dialect remembers while one file is read (open streams, pending requests)."""

    def flush(self, out: list[Captured]) -> None:
        """The end of the file: add what it leaves unfinished (calls cut off mid-stream)."""


@runtime_checkable
class JoinableState(DialectState, Protocol):
    """A dialect memory a part's reading can be joined onto (see the module, "Joins").

    A part of a file is read from a fresh memory that :meth:`watch` notes the reading's
    questions in; the run holds the memory the part really began with. :meth:`joins` says
    whether that memory would have answered every question the same, and :meth:`absorb`
    continues it as the part's reading left it. :meth:`joins` may answer ``True`` only
    where that is proven: a part that does not join is read again from the run's memory.
    """

    def fresh(self) -> bool:
        """Whether the memory is as a fresh file's (what it notes aside)."""

    def watch(self, on: bool) -> None:
        """Note (or stop noting) what the reading asks of the memory it began with."""

    def joins(self, part: Any) -> bool:
        """Whether ``part`` (a memory of the same dialect that began fresh, watched, as a
        part's reading left it) would have been read the same from this memory."""

    def absorb(self, part: Any) -> None:
        """Become the memory the part's reading would have left, from this one (only after
        :meth:`joins` said so)."""


@dataclass(frozen=True, slots=True)
class ToolLayout:
    """Where a tool definition of one dialect keeps its parts.

    Places are JSON Pointers relative to the definition object (``/function/parameters``);
    the loader records the places it found on each
    :class:`~jsoncontract.model.ToolContract`, so nothing downstream works them out again.

    Arguments:
        recognises: whether an object (with no other context) is a definition of this
            dialect.
        input: where the input schema may be, in order of preference. A member that is
            ``null`` counts as absent (SDKs dump every field); two present are an error.
        output: where the output schema may be; the first present is taken.
        body: the object holding name, description and ``strict`` (``/function`` in OpenAI
            Chat); a definition without it (a legacy ``functions`` entry) is its own body,
            and the places below it are looked for in the definition itself.
        openapi: the places whose schema is written in the OpenAPI 3.0 subset (Gemini); the
            contract holds its JSON Schema translation.
        input_required: ``False`` when a definition without an input schema takes no
            arguments (OpenAI, Gemini), ``True`` when it is broken (Anthropic, MCP).
        parts: the optional members the dialect defines: ``strict``, ``title``,
            ``annotations``.
        lists: members of an object that list several definitions of this dialect
            (Gemini ``functionDeclarations``).
        hosted: members that mark a provider-hosted tool, which has no schema to check
            (Gemini ``googleSearch``); such an object is skipped.
    """

    recognises: Callable[[dict[str, Any]], bool]
    input: tuple[str, ...]
    output: tuple[str, ...] = ()
    body: str = ""
    openapi: frozenset[str] = frozenset()
    input_required: bool = True
    parts: frozenset[str] = frozenset({"strict"})
    lists: tuple[str, ...] = ()
    hosted: frozenset[str] = frozenset()


class CaptureDialect(Protocol):
    """One wire format: how its captures are recognised and read, where its tools keep
    their schemas.

    A module conforms by defining one object with these members (see
    :mod:`jsoncontract.capture.gemini` for a dialect without streams,
    :mod:`jsoncontract.capture.anthropic` for one with).
    """

    @property
    def name(self) -> str:
        """The dialect's name, as reports print it (``openai-chat``)."""

    @property
    def hop(self) -> Hop:
        """The hop its captures are taken at, unless a trace record says otherwise."""

    @property
    def mark(self) -> str | None:
        """The member every whole message of the dialect has (``choices``, ``jsonrpc``):
        :meth:`whole` is only asked about objects that have it. ``None``: no message of the
        dialect can be told by a member (bare bodies)."""

    @property
    def tools(self) -> ToolLayout | None:
        """Where its tool definitions keep their parts; ``None``: it defines no tools."""

    def new_state(self) -> DialectState | None:
        """A fresh memory for one file (``None`` for a dialect that needs none)."""

    def whole(self, value: dict[str, Any], state: Any) -> Handler | None:
        """The handler of ``value`` when it is a whole message of this dialect (a response,
        a JSON-RPC frame), recognised by one distinctive member; ``None`` otherwise.

        Asked in registry order, before any :meth:`part`, of every dialect whose
        :attr:`mark` the object has, so it must be a member test or two. It also tells a
        provider or MCP message apart from a downstream body inside an HTTP Archive.
        ``state`` is what :meth:`new_state` made for the file being read.
        """

    def part(self, value: dict[str, Any], state: Any) -> Handler | None:
        """The handler of anything else of this dialect ``value`` is (a stream event, a part
        of a message logged on its own); ``None`` when this dialect does not read it.

        Asked, in registry order, of an object no dialect took as a whole message.
        """


class DocContext:
    """Where a document came from, and what a trace record or the caller said about it.

    ``line_of`` maps a pointer inside the document to a line of the file (whole JSON
    files); JSONL and SSE documents have one ``line`` for everything in them. One is made
    per JSONL line, so it is a plain slotted class.

    ``turn`` is the key of the assistant turn being read (calls made under it share it),
    ``time`` when the document says it was written (seconds since the epoch), and
    ``history`` whether it is a conversation history (a request body), where a result must
    answer a call of the same history. ``offered`` is the tools offered with the calls
    being read (see the module, "Offered tools"): :func:`~jsoncontract.capture.base.make_call`
    gives it to every call it builds.
    """

    __slots__ = (
        "anomalies",
        "base",
        "call_id",
        "context",
        "file",
        "history",
        "hop",
        "line",
        "line_of",
        "offered",
        "time",
        "tool",
        "turn",
    )

    def __init__(
        self,
        file: str,
        line: int | None = None,
        line_of: Callable[[str], int | None] | None = None,
        anomalies: tuple[Anomaly, ...] = (),
        tool: str | None = None,
    ) -> None:
        self.file = file
        self.line = line
        self.line_of = line_of
        self.anomalies = anomalies
        self.tool = tool
        self.base = ""
        self.call_id: str | None = None
        self.hop: Hop | None = None
        self.context: dict[str, Any] | None = None
        self.turn: str | None = None
        self.time: float | None = None
        self.history = False
        self.offered: OfferedTools | None = None

    def child(self, pointer: str, **changes: Any) -> DocContext:
        """The context of a member of this document (``changes`` override attributes)."""
        new = DocContext(self.file, self.line, self.line_of, self.anomalies, self.tool)
        new.base = self.base + pointer
        new.call_id = self.call_id
        new.hop = self.hop
        new.context = self.context
        new.turn = self.turn
        new.time = self.time
        new.history = self.history
        new.offered = self.offered
        for key, value in changes.items():
            setattr(new, key, value)
        return new

    def turn_at(self, pointer: str) -> str:
        """A turn key for the message at ``pointer``: unique in the run, stable for it."""
        if self.line is not None:
            return f"{self.file}:{self.line}:{self.base}{pointer}"
        return f"{self.file}:{self.base}{pointer}"

    def source(self, pointer: str = "") -> Source:
        """The source of the node at ``pointer`` (relative to this document)."""
        if self.line is not None:  # one line holds the whole document
            return Source(self.file, self.line)
        absolute = self.base + pointer
        line = self.line_of(absolute) if self.line_of is not None else None
        return Source(self.file, line, None, absolute or None)
