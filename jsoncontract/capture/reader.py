"""Reading capture files and sending each document to the dialect that can read it.

File kinds: one JSON document (``.json``), JSON Lines (``.jsonl`` / ``.ndjson``, streamed
line by line, never loaded whole), Server-Sent Events (``.sse`` or text starting with
``data:``), HTTP Archives (``.har``), and stdin (``-``). A ``.json`` file that turns out to
hold one JSON value per line is read as JSON Lines.

In a whole file, a document in no known dialect stops the job (exit 2: wrong file). In a
JSONL trace it becomes a finding on its line and the rest of the trace is still read.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, Final

from jsoncontract._files import (
    MAX_DOCUMENT_BYTES,
    expand,
    is_stream,
    iter_lines,
    lines_of,
    open_stream,
    read_bytes,
)
from jsoncontract._json import NotJSON, diagnose, json_type, load
from jsoncontract._locate import PositionIndex
from jsoncontract.capture import anthropic, downstream, gemini, mcp, openai
from jsoncontract.capture.base import (
    DocContext,
    envelope,
    envelope_anomaly,
    id_text,
    problem_call,
)
from jsoncontract.errors import InputError
from jsoncontract.model import Dialect, Finding, Hop, Severity, Stage, ToolCall

JSONL_SUFFIXES: Final = (".jsonl", ".ndjson", ".jsonlines")
CAPTURE_SUFFIXES: Final = (".json", *JSONL_SUFFIXES, ".sse", ".har")
MAX_LINE_BYTES: Final = 64 * 1024 * 1024
#: How deep calls may sit in lists and trace records (each level is a step of the pointer
#: of the document being read); deeper is no capture, and would exhaust the stack.
MAX_NESTING: Final = 64
_BOM: Final = b"\xef\xbb\xbf"
_HOPS: Final = {h.value: h for h in Hop}


class _FileState:
    """What one file's documents share: open streams and unanswered MCP requests."""

    __slots__ = ("anthropic", "chat", "mcp", "responses")

    def __init__(self) -> None:
        self.chat = openai.ChatStream()
        self.responses = openai.ResponsesStream()
        self.anthropic = anthropic.AnthropicStream()
        self.mcp = mcp.McpState()

    def flush(self) -> list[ToolCall]:
        out: list[ToolCall] = []
        self.chat.flush(out)
        self.responses.flush(out)
        self.anthropic.flush(out)
        return out


class UnknownShape(Exception):
    """A document no dialect recognises."""


class CaptureReader:
    """Turns capture files into :class:`~jsoncontract.model.ToolCall` values, streaming.

    Arguments:
        dialect: read every document as this dialect instead of detecting it.
        tool: the tool that bare downstream bodies belong to.
        max_line_bytes: longer JSONL lines are reported and skipped, never held in memory.
    """

    def __init__(
        self,
        *,
        dialect: Dialect | None = None,
        tool: str | None = None,
        max_line_bytes: int = MAX_LINE_BYTES,
    ) -> None:
        self.dialect = dialect
        self.tool = tool
        self.max_line_bytes = max_line_bytes
        self.files = 0
        self.bytes_read = 0

    def read(self, paths: Iterable[str | Path]) -> Iterator[ToolCall]:
        """Every call in the named files and directories, in file order.

        Raises:
            InputError: a path is missing, a file is unreadable or not JSON, or a whole
                file is in no known dialect. Raised when that file is reached.
        """
        for path in expand(paths, CAPTURE_SUFFIXES, what="capture"):
            yield from self.read_file(path)

    def read_file(self, path: str | Path) -> Iterator[ToolCall]:
        """Every call in one file (``-`` for stdin)."""
        self.files += 1
        name = str(path)
        suffix = Path(name).suffix.lower()
        state = _FileState()
        if is_stream(name):
            yield from self._stream(name, open_stream(name), state)
        elif suffix in JSONL_SUFFIXES:
            lines = iter_lines(name, max_line_bytes=self.max_line_bytes)
            yield from self._jsonl(name, lines, state)
        else:
            data = read_bytes(name)
            self.bytes_read += len(data)
            yield from self._whole(name, data, state, suffix)
        yield from state.flush()

    def documents(self, value: Any, ctx: DocContext) -> list[ToolCall]:
        """The calls in one already-parsed document (for embedding the reader elsewhere)."""
        out: list[ToolCall] = []
        state = _FileState()
        self._dispatch(value, ctx, state, out)
        out.extend(state.flush())
        return out

    def read_document(self, data: bytes, *, name: str) -> Iterator[ToolCall]:
        """Every call in one in-memory JSON document, read exactly as a ``.json`` file
        called ``name`` would be (fixture suites hold captures inline)."""
        self.files += 1
        self.bytes_read += len(data)
        state = _FileState()
        yield from self._whole(name, data, state, ".json")
        yield from state.flush()

    # -- file kinds ----------------------------------------------------------------------

    def _stream(self, name: str, stream: IO[bytes], state: _FileState) -> Iterator[ToolCall]:
        """stdin or a pipe: streamed as JSON Lines when the first line is a whole document,
        read whole otherwise."""
        skipped = 0
        first = stream.readline(self.max_line_bytes + 1).removeprefix(_BOM)
        while first and not first.strip():
            skipped += 1
            first = stream.readline(self.max_line_bytes + 1)
        if not first:
            raise InputError("the input is empty", file=name)
        if first.lstrip()[:1] in (b"{", b"[") and _parses_alone(first):
            rest = lines_of(stream, self.max_line_bytes, first=skipped + 2)
            yield from self._jsonl(name, itertools.chain([(skipped + 1, first)], rest), state)
            return
        # the skipped blank lines are put back, so that line numbers stay right
        data = b"\n" * skipped + first + stream.read(MAX_DOCUMENT_BYTES + 1 - len(first))
        if stream is not sys.stdin.buffer:
            stream.close()
        if len(data) > MAX_DOCUMENT_BYTES:
            raise InputError(
                f"the input is over the {MAX_DOCUMENT_BYTES // 1_000_000} MB limit for one JSON "
                "document; send JSON Lines (one event per line), which stream without a limit",
                file=name,
            )
        self.bytes_read += len(data)
        yield from self._whole(name, data, state, Path(name).suffix.lower())

    def _whole(self, name: str, data: bytes, state: _FileState, suffix: str) -> Iterator[ToolCall]:
        data = data.removeprefix(_BOM)  # ignorable (RFC 8259); it would hide a leading "data:"
        head = data.lstrip()[:6]
        if suffix == ".sse" or head.startswith((b"data:", b"event:")):
            yield from self._sse(name, data, state)
            return
        try:
            value, anomalies = load(data)
        except NotJSON as exc:
            if _looks_like_jsonl(data):
                numbered = ((n, line) for n, line in enumerate(data.splitlines(True), start=1))
                yield from self._jsonl(name, numbered, state)
                return
            d = exc.diagnosis
            raise InputError(
                f"not JSON ({d.code.replace('_', ' ')}): {d.message}",
                file=name,
                line=d.line,
                column=d.column,
            ) from None
        index: PositionIndex | None = None

        def line_of(pointer: str) -> int | None:
            nonlocal index
            if not pointer:  # the whole document: where it starts, no index needed
                return data.count(b"\n", 0, len(data) - len(data.lstrip())) + 1
            if index is None:
                index = PositionIndex(data.decode("utf-8", "replace").removeprefix("\ufeff"))
            pos = index.position(pointer)
            return pos[0] if pos else None

        ctx = DocContext(name, line_of=line_of, anomalies=anomalies, tool=self.tool)
        out: list[ToolCall] = []
        try:
            if suffix == ".har" or (isinstance(value, dict) and isinstance(value.get("log"), dict)):
                downstream.har(value, ctx, lambda v, c, o: self._dispatch(v, c, state, o), out)
            else:
                self._dispatch(value, ctx, state, out)
        except UnknownShape as exc:
            raise InputError(
                f"not a capture in any known dialect ({exc}); for a bare request body use "
                "--tool NAME (and --dialect downstream)",
                file=name,
            ) from None
        out.extend(state.flush())
        if not out:
            out.append(
                problem_call(
                    ctx,
                    envelope(
                        "envelope.no_tool_call",
                        "the capture holds no tool call",
                        "check that this is the response in which the model called a tool",
                        severity=Severity.WARNING,
                    ),
                )
            )
        yield from out

    def _sse(self, name: str, data: bytes, state: _FileState) -> Iterator[ToolCall]:
        text = data.decode("utf-8", "surrogateescape")
        numbered = (
            (n, payload.encode("utf-8", "surrogateescape"))
            for n, payload in downstream.sse_events(text)
        )
        yield from self._jsonl(name, numbered, state)

    def _jsonl(
        self, name: str, lines: Iterable[tuple[int, bytes | None]], state: _FileState
    ) -> Iterator[ToolCall]:
        dispatch = self._dispatch
        tool = self.tool
        out: list[ToolCall] = []
        for number, line in lines:
            if line is None:
                yield problem_call(
                    DocContext(name, line=number, tool=tool),
                    _parse_problem(
                        "too_large",
                        f"the line is longer than {self.max_line_bytes:,} bytes and was skipped",
                        "split the event into smaller lines",
                    ),
                )
                continue
            self.bytes_read += len(line)
            try:
                value, anomalies = load(line)
            except NotJSON as exc:
                if not line.strip():
                    continue
                d = exc.diagnosis
                if d.code != "too_deep":  # the line without its break (a newline is no fault)
                    d = diagnose(line.rstrip(b"\r\n"))
                yield problem_call(
                    DocContext(name, line=number, tool=tool),
                    _parse_problem(d.code, f"line {number} is not JSON: {d.message}", d.hint),
                )
                continue
            ctx = DocContext(name, number, None, anomalies, tool)
            try:
                dispatch(value, ctx, state, out)
            except UnknownShape as exc:
                out.append(
                    problem_call(
                        ctx,
                        envelope(
                            "envelope.unknown_dialect",
                            f"line {number} is JSON but no known capture dialect ({exc})",
                            'wrap bare bodies as {"hop": "downstream", "tool": ..., '
                            '"payload": ...}',
                        ),
                    )
                )
            if len(out) == 1:
                yield out.pop()
            elif out:
                yield from out
                out.clear()

    # -- dialect detection ---------------------------------------------------------------

    def _dispatch(
        self,
        value: Any,
        ctx: DocContext,
        state: _FileState,
        out: list[ToolCall],
    ) -> None:
        if type(value) is dict:
            if "payload" in value:
                hop = value.get("hop")
                if (type(hop) is str and hop in _HOPS) or "dialect" in value:
                    self._record(value, ctx, state, out)
                    return
            if self.dialect is not Dialect.DOWNSTREAM:
                handler = self._handler(value, state)
                if handler is not None:
                    handler(value, ctx, out)
                    return
            if self.dialect is Dialect.DOWNSTREAM or (ctx.tool and self.dialect is None):
                downstream.body(value, ctx, out)
                return
            keys = ", ".join(sorted(value)[:6])
            raise UnknownShape(f"an object with members {keys}" if keys else "an empty object")
        if isinstance(value, list):
            if self.dialect is Dialect.DOWNSTREAM:  # a body that is an array is one body
                downstream.body(value, ctx, out)
                return
            _check_nesting(ctx)
            # a list holds calls among other things (text parts, reasoning items, results):
            # it is a capture when at least one of its items is
            unknown: UnknownShape | None = None
            known = not value
            for i, item in enumerate(value):
                try:
                    self._dispatch(item, ctx.child(f"/{i}"), state, out)
                    known = True
                except UnknownShape as exc:
                    unknown = exc
            if unknown is not None and not known:
                raise unknown
            return
        if self.dialect is Dialect.DOWNSTREAM or (ctx.tool and self.dialect is None):
            downstream.body(value, ctx, out)
            return
        raise UnknownShape(f"a JSON {json_type(value)} holds no call")

    def _record(
        self, record: dict[str, Any], ctx: DocContext, state: _FileState, out: list[ToolCall]
    ) -> None:
        _check_nesting(ctx)
        named = record.get("hop")
        hop = _HOPS.get(named) if type(named) is str else None
        context = record.get("context")
        call_id = record.get("call_id")
        tool = record.get("tool")
        child = ctx.child(
            "/payload",
            hop=hop,
            tool=tool if isinstance(tool, str) else ctx.tool,
            call_id=id_text(call_id) if call_id is not None else None,
            context=context if isinstance(context, dict) else ctx.context,
        )
        payload = record["payload"]
        start = len(out)
        forced = record.get("dialect")
        if hop is Hop.DOWNSTREAM:
            downstream.body(payload, child, out)
        elif isinstance(forced, str) and forced in _DIALECTS:
            saved = self.dialect
            self.dialect = _DIALECTS[forced]
            try:
                self._dispatch(payload, child, state, out)
            finally:
                self.dialect = saved
        else:
            self._dispatch(payload, child, state, out)
        if ctx.anomalies and len(out) > start:
            _record_anomalies(ctx, out[start:])

    def _handler(self, value: dict[str, Any], state: _FileState) -> Handler | None:
        forced = self.dialect
        if forced is None:
            # the common shapes first, by one distinctive member each
            if "choices" in value:
                kind = value.get("object")
                if kind == "chat.completion.chunk" or (kind is None and _is_chunk(value)):
                    return state.chat.feed
                if isinstance(value["choices"], list):
                    return openai.chat_response
            if "jsonrpc" in value:
                return lambda v, c, o: mcp.message(v, c, state.mcp, o)
            kind = value.get("type")
            if kind == "message" and isinstance(value.get("content"), list):
                return anthropic.message
            if "candidates" in value and isinstance(value["candidates"], list):
                return gemini.response
        for dialect, match in _MATCHERS:
            if forced is not None and dialect is not forced:
                continue
            handler = match(value, state)
            if handler is not None:
                return handler
        return None


Handler = Callable[[dict[str, Any], DocContext, list[ToolCall]], None]
_DIALECTS: Final = {d.value: d for d in Dialect}


def _match_mcp(value: dict[str, Any], state: _FileState) -> Handler | None:
    if "jsonrpc" in value or ("method" in value and "params" in value):
        return lambda v, c, o: mcp.message(v, c, state.mcp, o)
    return None


def _is_chunk(value: dict[str, Any]) -> bool:
    """A ``chat.completion.chunk`` (also when a log dropped ``object``: its choices have deltas)."""
    kind: object = value.get("object")
    if kind is not None:
        return kind == "chat.completion.chunk"
    choices = value.get("choices")
    return (
        isinstance(choices, list)
        and bool(choices)
        and isinstance(choices[0], dict)
        and "delta" in choices[0]
    )


def _match_chat(value: dict[str, Any], state: _FileState) -> Handler | None:
    if _is_chunk(value):
        return state.chat.feed
    if value.get("object") == "chat.completion" or isinstance(value.get("choices"), list):
        return openai.chat_response
    legacy = value.get("function_call")
    if "tool_calls" in value or (
        isinstance(legacy, dict) and ("arguments" in legacy or value.get("role") == "assistant")
    ):
        return lambda v, c, o: openai.chat_message(v, c, "", o)
    if value.get("type") == "function" and isinstance(value.get("function"), dict):
        return lambda v, c, o: openai.chat_tool_call(v, c, "", o)
    return None


def _match_responses(value: dict[str, Any], state: _FileState) -> Handler | None:
    kind = value.get("type")
    if isinstance(kind, str) and kind.startswith("response."):
        if kind in ("response.completed", "response.done", "response.incomplete"):
            inner = value.get("response")
            if isinstance(inner, dict):
                return lambda v, c, o: openai.responses_response(
                    inner, c.child("/response"), state.responses, o
                )
            return _nothing
        return state.responses.feed
    if value.get("object") == "response" or (
        isinstance(value.get("output"), list) and "choices" not in value
    ):
        return lambda v, c, o: openai.responses_response(v, c, state.responses, o)
    if kind == "function_call":
        return lambda v, c, o: openai.responses_item(v, c, "", o)
    return None


def _match_anthropic(value: dict[str, Any], state: _FileState) -> Handler | None:
    kind = value.get("type")
    if type(kind) is str and kind in anthropic.STREAM_EVENTS:
        return state.anthropic.feed
    if kind in anthropic.TOOL_BLOCKS:
        return lambda v, c, o: anthropic.tool_use(v, c, "", o)
    if (kind == "message" or value.get("role") == "assistant") and isinstance(
        value.get("content"), list
    ):
        return anthropic.message
    return None


def _match_gemini(value: dict[str, Any], state: _FileState) -> Handler | None:
    if isinstance(value.get("candidates"), list):
        return gemini.response
    if isinstance(value.get("parts"), list):
        return gemini.content
    # the SDK's function_call (no "arguments": that is OpenAI's legacy member)
    if isinstance(value.get("functionCall"), dict) or (
        isinstance(value.get("function_call"), dict) and "arguments" not in value["function_call"]
    ):
        return lambda v, c, o: gemini.part(v, c, "", o)
    if isinstance(value.get("name"), str) and "args" in value:
        return lambda v, c, o: gemini.function_call(v, c, "", o)
    return None


def _nothing(value: dict[str, Any], ctx: DocContext, out: list[ToolCall]) -> None:
    return None


_MATCHERS: Final = (
    (Dialect.MCP, _match_mcp),
    (Dialect.OPENAI_CHAT, _match_chat),
    (Dialect.OPENAI_RESPONSES, _match_responses),
    (Dialect.ANTHROPIC, _match_anthropic),
    (Dialect.GEMINI, _match_gemini),
)


def _check_nesting(ctx: DocContext) -> None:
    if ctx.base.count("/") >= MAX_NESTING:
        raise UnknownShape(f"calls nested more than {MAX_NESTING} levels deep")


def _parse_problem(code: str, message: str, hint: str | None) -> Finding:
    return Finding(
        code="parse." + code,
        severity=Severity.ERROR,
        message=message,
        stage=Stage.PARSE,
        hint=hint,
    )


def _parses_alone(line: bytes) -> bool:
    try:
        load(line)
    except NotJSON:
        return False
    return True


def _looks_like_jsonl(data: bytes) -> bool:
    lines = [line for line in data.splitlines()[:3] if line.strip()]
    return len(lines) >= 2 and _parses_alone(lines[0])


def _record_anomalies(ctx: DocContext, calls: list[ToolCall]) -> None:
    """A duplicate key (or the like) in a trace record's own members (``tool``, ``call_id``,
    ``hop``...) makes every call the record produced ambiguous."""
    base = ctx.base
    payload = base + "/payload"
    own = [
        a
        for a in ctx.anomalies
        if a.pointer.startswith(base + "/")
        and a.pointer != payload
        and not a.pointer.startswith(payload + "/")
    ]
    for call in calls:
        call.load_findings.extend(envelope_anomaly(a, "in the trace record") for a in own)
