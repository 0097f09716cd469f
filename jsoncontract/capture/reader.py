"""Reading capture files and sending each document to the dialect that can read it.

File kinds: one JSON document (``.json``), JSON Lines (``.jsonl`` / ``.ndjson``, streamed
line by line, never loaded whole), Server-Sent Events (``.sse`` or text starting with
``data:``), HTTP Archives (``.har``), YAML (``.yaml`` / ``.yml``, one document or a stream
of them, each read as a JSON document would be) and stdin (``-``). A ``.json`` file that
turns out to hold one JSON value per line is read as JSON Lines. Any of them may be
compressed with gzip or Zstandard (named ``.gz`` / ``.zst``, or starting with the format's
magic bytes): it is decompressed as it is read (:mod:`jsoncontract._files`).

In a whole file named on the command line, a document in no known dialect stops the job
(exit 2: wrong file). In a JSONL trace it becomes a finding on its line and the rest of the
trace is still read. A file found in a named directory is read leniently: one that holds
no capture (a ``package.json``, the tools file itself) is skipped and recorded in
:attr:`CaptureReader.skipped`, and one that cannot be read (not JSON, too large) becomes a
call with an ``input.unreadable`` finding, while the other files are still read.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract._files import (
    MAX_DOCUMENT_BYTES,
    DecompressionError,
    Found,
    compressed_suffixes,
    compression_in,
    find,
    has_content,
    is_stdin,
    is_stream,
    iter_lines,
    lines_of,
    open_stream,
    plain_suffix,
    read_bytes,
)
from jsoncontract._json import NotJSON, diagnose, json_type, load
from jsoncontract._locate import PositionIndex
from jsoncontract._yaml import YAML_SUFFIXES, YamlPositions, load_yaml
from jsoncontract.capture import containers, markers
from jsoncontract.capture.base import envelope, envelope_anomaly, id_text, problem_call
from jsoncontract.capture.interface import DocContext, JoinableState
from jsoncontract.capture.ledger import WINDOW, Ledger, Released
from jsoncontract.capture.registry import DIALECTS, Registry
from jsoncontract.errors import InputError, NotThisKind
from jsoncontract.model import (
    Anomaly,
    CallResult,
    Captured,
    Finding,
    Hop,
    OfferedTools,
    PassedCall,
    Severity,
    Stage,
    ToolCall,
    TraceEvent,
)

if TYPE_CHECKING:
    from jsoncontract._tail import Follow
    from jsoncontract.capture.interface import CaptureDialect, DialectState, Handler, Shortcut

JSONL_SUFFIXES: Final = (".jsonl", ".ndjson", ".jsonlines")
#: What a directory is searched for: each kind of capture, plain or compressed.
CAPTURE_SUFFIXES: Final = compressed_suffixes(
    (".json", *JSONL_SUFFIXES, ".sse", ".har", ".yaml", ".yml")
)
MAX_LINE_BYTES: Final = 64 * 1024 * 1024
#: What :meth:`CaptureReader.read_checked` offers a line to first (the fast lane of
#: :mod:`jsoncontract.pipeline.fast`), with the file, the line number and the file's state
#: (the ledger, the dialects' memory): it gives the line's checked calls in order, nothing
#: (an empty list) when it handed what the line holds to the ledger itself, or ``None`` when
#: the full path must read the line.
Lane = Callable[[str, int, bytes, "_FileState"], "list[PassedCall | CallResult] | None"]
#: How deep calls may sit in lists and trace records (each level is a step of the pointer
#: of the document being read); deeper is no capture, and would exhaust the stack.
MAX_NESTING: Final = 64
_BOM: Final = b"\xef\xbb\xbf"
#: How much of a JSONL file the fast lane's reader takes at a time.
_BLOCK: Final = 1 << 20
_HOPS: Final = {h.value: h for h in Hop}


class _FileState:
    """What one file's documents share: each dialect's memory (open streams, MCP
    sessions), in registry order, the fallback's last; and the run's ledger, which each
    document's calls and results are handed to (``released`` is what leaves it)."""

    __slots__ = ("ledger", "released", "states")

    def __init__(self, dialects: Registry, ledger: Ledger, released: list[Released]) -> None:
        self.states: list[DialectState | None] = [d.new_state() for d in dialects]
        self.ledger = ledger
        self.released = released

    def hand(self, out: list[Captured]) -> Iterator[Released]:
        """Hand one document's items to the ledger; yield what leaves it."""
        released = self.released
        self.ledger.add(out, released)
        out.clear()
        if released:
            yield from released
            released.clear()

    def flush(self) -> list[Captured]:
        out: list[Captured] = []
        for state in self.states:
            if state is not None:
                state.flush(out)
        return out

    def memory(self) -> bytes | None:
        """The dialects' memory, pickled (``None`` when it does not pickle)."""
        import pickle

        try:
            return pickle.dumps(self.states, pickle.HIGHEST_PROTOCOL)
        except Exception:  # a memory that does not pickle
            return None

    def restore(self, memory: bytes) -> None:
        """Take up the dialects' memory :meth:`memory` gave (nothing noted from now on)."""
        import pickle

        self.states = pickle.loads(memory)
        self.watch(False)

    def watch(self, on: bool) -> None:
        """Each joinable memory notes (or stops noting) what the reading asks of the memory
        it began with (see :class:`~jsoncontract.capture.interface.JoinableState`)."""
        for state in self.states:
            if isinstance(state, JoinableState):
                state.watch(on)

    def pristine(self, dialects: Registry) -> bool:
        """Whether every dialect's memory is as a fresh file's (then what follows reads the
        same without what came before)."""
        return all(
            _fresh(state, dialect) for state, dialect in zip(self.states, dialects, strict=True)
        )

    def joins(self, memory: bytes, dialects: Registry) -> list[Any] | None:
        """Whether a part of this file read from a fresh, watched memory (``memory``, as
        :meth:`memory` gave it at the part's end) would have read the same from this
        memory: each dialect's memory here is fresh, or joins the part's. Returns the
        part's memories to :meth:`absorb`, or ``None`` (nothing changes)."""
        import pickle

        theirs: list[Any] = pickle.loads(memory)
        if len(theirs) != len(self.states):
            return None
        for mine, part, dialect in zip(self.states, theirs, dialects, strict=True):
            if not _fresh(mine, dialect) and not (
                isinstance(mine, JoinableState) and mine.joins(part)
            ):
                return None
        return theirs

    def absorb(self, theirs: list[Any], dialects: Registry) -> None:
        """Continue after the part whose memories :meth:`joins` returned: a fresh memory
        here becomes the part's, any other absorbs it."""
        states = self.states
        for i, (mine, part, dialect) in enumerate(zip(states, theirs, dialects, strict=True)):
            if _fresh(mine, dialect):
                states[i] = part
                if isinstance(part, JoinableState):
                    part.watch(False)
            else:
                assert isinstance(mine, JoinableState)
                mine.absorb(part)


def _fresh(state: DialectState | None, dialect: CaptureDialect) -> bool:
    """Whether one dialect's memory is as a fresh file's."""
    if state is None:
        return True
    if isinstance(state, JoinableState):
        return state.fresh()
    import pickle

    try:
        return pickle.dumps(state) == pickle.dumps(dialect.new_state())
    except Exception:  # a memory that does not pickle: taken as not fresh
        return False


class UnknownShape(Exception):
    """A document no dialect recognises."""


class CaptureReader:
    """Turns capture files into :class:`~jsoncontract.model.ToolCall` values, streaming.

    Arguments:
        dialect: read every document as the dialect of this name instead of detecting it.
        tool: the tool that bare downstream bodies belong to.
        max_line_bytes: longer JSONL lines are reported and skipped, never held in memory.
        dialects: the dialects to detect (default: every built-in one).
        window: how many documents (lines, events, files) a call waits for its result,
            and a result for its call (:mod:`jsoncontract.capture.ledger`).
        exclude: glob patterns of files to leave out (see :func:`jsoncontract._files.excluded`).

    ``skipped`` lists ``(file, why)`` for each file of a directory that holds no capture.

    Raises:
        UsageError: no dialect of ``dialects`` is called ``dialect``.
    """

    def __init__(
        self,
        *,
        dialect: str | None = None,
        tool: str | None = None,
        max_line_bytes: int = MAX_LINE_BYTES,
        dialects: Registry = DIALECTS,
        window: int = WINDOW,
        exclude: Sequence[str] = (),
    ) -> None:
        self.dialect = dialect
        self.window = window
        self.exclude = tuple(exclude)
        self.skipped: list[tuple[str, str]] = []
        self.tool = tool
        self.max_line_bytes = max_line_bytes
        self.files = 0
        self.bytes_read = 0
        self._following: Ledger | None = None
        self.dialects = dialects
        self._fallback = dialects.fallback
        self._forced: CaptureDialect | None = dialects.find(dialect) if dialect else None
        # detection runs for every document: the dialects' methods are looked up once
        detected = dialects.dialects
        self._wholes = tuple(
            (d.mark, d.whole, i) for i, d in enumerate(detected) if d.mark is not None
        )
        self._parts = tuple((d.part, i) for i, d in enumerate(detected))
        self._index = {d.name: i for i, d in enumerate(dialects)}
        # the module of each dialect: the one whose handler took a document it read nothing of
        self._modules = {type(d).__module__: str(d.name) for d in dialects}
        # the members some dialect reads an object by (its mark, and what its part needs):
        # an object with none of them is no dialect's (None: a dialect does not say)
        claimed: set[str] | None = set()
        for d in detected:
            claims = getattr(d, "claims", None)
            if claimed is None or claims is None:
                claimed = None
                continue
            claimed.update(claims)
            if d.mark is not None:
                claimed.add(d.mark)
        self._claims = frozenset(claimed) if claimed is not None else None
        # where the dialects that read requests find the tools a request offers
        self._offers: tuple[Callable[[dict[str, Any]], OfferedTools | None], ...] = tuple(
            offers for d in detected if (offers := getattr(d, "offered", None)) is not None
        )
        # the fast lane's readings of ordinary documents, by the function of their handler
        self._shortcuts: dict[Any, tuple[Shortcut, CaptureDialect]] = {
            function: (shortcut, d)
            for d in (*detected, self._fallback)
            for function, shortcut in getattr(d, "shortcuts", {}).items()
        }

    @property
    def _forced_name(self) -> str | None:
        """The name of the dialect documents are being read as (``None``: detected)."""
        return str(self._forced.name) if self._forced is not None else None

    @property
    def forced(self) -> CaptureDialect | None:
        """The dialect every document is read as (``None``: detected per document)."""
        return self._forced

    def read(self, paths: Iterable[str | Path]) -> Iterator[ToolCall]:
        """Every call in the named files and directories, in file order, each with its
        result attached when the capture holds it (see :meth:`read_trace`).

        Raises:
            InputError: a path is missing, a file is unreadable or not JSON, or a whole
                file is in no known dialect. Raised when that file is reached.
        """
        for item in self.read_trace(paths):
            if type(item) is ToolCall:
                yield item

    def read_trace(self, paths: Iterable[str | Path]) -> Iterator[ToolCall | TraceEvent]:
        """Every call and trace event in the named files and directories, in capture order.

        Results are attached to their calls across the whole run: a call waits for its
        result a bounded number of documents (:mod:`jsoncontract.capture.ledger`), and a
        call seen in several places (a response, then the next request's history) is handed
        on once. Trace events are what the capture says besides calls: an MCP session's
        ``initialize``, complete ``tools/list`` and ``list_changed``, and results whose
        call is not in the capture.

        A file found in a directory (not named) is read leniently: one that holds no
        capture is skipped (:attr:`skipped`), one that cannot be read becomes a call with an
        ``input.unreadable`` finding, and the other files are still read.
        """
        return self._trace(self.find(paths))

    def read_checked(self, paths: Iterable[str | Path], lane: Lane) -> Iterator[Any]:
        """:meth:`read_trace`, with the fast lane: each JSONL line is offered to ``lane``
        first. What it returns comes in place of the line's calls, in order: checked calls
        (a :class:`~jsoncontract.model.PassedCall` or a
        :class:`~jsoncontract.model.CallResult`), while the ledger would hand a lone
        model-hop call straight on (:attr:`Ledger.passing
        <jsoncontract.capture.ledger.Ledger.passing>`); or nothing (an empty list), when
        the lane read the line and handed what it holds to the ledger itself (calls that
        wait for their results, and the results). A line it returns ``None`` for is read
        as usual."""
        return self._trace(self.find(paths), lane)

    def follow(self, path: str, follow: Follow, lane: Lane | None = None) -> Iterator[Any]:
        """:meth:`read_checked` (``lane``: ``None`` for :meth:`read_trace`'s items) over the
        file ``path`` (``-``: standard input) as it grows, read as JSON Lines, until
        ``follow.stop`` is set or the input ends (:mod:`jsoncontract._tail`): each line is
        read as it is written, and what it gives comes at once. A call still waits for its
        result as in a file (``window`` lines); when the run stops, the calls still waiting
        come out as at the end of a file. A file that replaces the one followed (a rotation,
        a truncation) is read as the next file of the run, from line 1.

        Raises:
            InputError: the path is a directory, or cannot be read.
        """
        from jsoncontract._tail import Tail

        ledger = self._following = self.new_ledger()
        released: list[Released] = []
        source = iter(Tail(path, follow, max_line_bytes=self.max_line_bytes))
        more = next(source, _ENDED) is None  # a file starts
        while more:
            self.files += 1
            state = _FileState(self.dialects, ledger, released)
            ended = [True]
            yield from self._lines(path, _one_file(source, ended), state, lane, counted=False)
            yield from state.hand(state.flush())
            more = not ended[0]
        ledger.flush(released)
        yield from released

    @property
    def waiting(self) -> int:
        """How many calls (and events behind them) the run being followed holds, waiting
        for results (see :meth:`follow`)."""
        ledger = self._following
        return ledger.waiting if ledger is not None else 0

    def find(self, paths: Iterable[str | Path]) -> list[Found]:
        """The capture files of ``paths``, in reading order (directories searched, the
        excluded left out).

        Raises:
            InputError: a path does not exist, or a directory holds no capture file.
        """
        return find(paths, CAPTURE_SUFFIXES, what="capture", exclude=self.exclude)

    def _trace(
        self, files: Iterable[Found | str | Path], lane: Lane | None = None
    ) -> Iterator[Any]:
        ledger = self.new_ledger()
        released: list[Released] = []
        for entry in files:
            found = entry if isinstance(entry, Found) else Found(Path(entry), named=True)
            state = _FileState(self.dialects, ledger, released)
            try:
                yield from self._file(found.path, state, lane)
            except InputError as exc:
                if found.named:  # what the files before it held is handed on first
                    ledger.flush(released)
                    yield from released
                    raise
                yield from self.lenient(found, exc, state)
        ledger.flush(released)
        yield from released

    def lenient(self, found: Found, error: InputError, state: _FileState) -> Iterator[Any]:
        """What a file found in a directory gives when it cannot be read as a capture:
        nothing when it holds none (noted in :attr:`skipped`), else a call with an
        ``input.unreadable`` finding."""
        if isinstance(error, NotThisKind):
            self.skipped.append((str(found.path), error.message))
        else:
            yield from state.hand([self._unreadable(found.path, error)])

    def _unreadable(self, path: Path, error: InputError) -> ToolCall:
        """A file found in a directory that cannot be read, as a call with a finding."""
        return problem_call(
            DocContext(str(path), line=error.line, tool=self.tool),
            Finding(
                code=codes.INPUT_UNREADABLE,
                severity=Severity.ERROR,
                message=error.message,
                stage=Stage.ENVELOPE,
                hint="fix the file, or leave it out with --exclude; the other files were checked",
            ),
        )

    def read_file(self, path: str | Path) -> Iterator[ToolCall]:
        """Every call in one file (``-`` for stdin), results attached within the file."""
        for item in self._trace([path]):
            if type(item) is ToolCall:
                yield item

    def new_ledger(self) -> Ledger:
        """The ledger a run pairs results with calls in (bounded by ``window``)."""
        return Ledger(window=self.window)

    def new_state(self, ledger: Ledger, released: list[Released]) -> _FileState:
        """What the documents of one file share, handing to ``ledger`` (for
        :meth:`read_part`)."""
        return _FileState(self.dialects, ledger, released)

    def read_part(
        self,
        name: str,
        state: _FileState,
        lane: Lane | None = None,
        *,
        start: int = 0,
        end: int | None = None,
        first: int = 1,
        last: bool = True,
    ) -> Iterator[Any]:
        """One part of a run, read through ``state`` (its ledger is not flushed: more may
        follow): the file ``name`` whole (``end`` is ``None``), or the lines of a plain JSONL
        file from byte ``start`` (where line ``first`` starts) to byte ``end`` (a line
        boundary). ``last``: the part ends its file, whose dialects' open streams are then
        flushed as the end of a file does. Items are those of :meth:`read_checked`."""
        if end is None:
            yield from self._file(name, state, lane)
            return
        if start == 0:
            self.files += 1
        yield from self._jsonl_lane(name, state, lane, start=start, end=end, first=first)
        if last:
            yield from state.hand(state.flush())

    def read_lines(
        self,
        name: str,
        lines: Iterable[tuple[int, bytes]],
        state: _FileState,
        lane: Lane | None = None,
        *,
        last: bool,
    ) -> Iterator[Any]:
        """:meth:`read_part` for numbered lines of the JSONL file ``name`` held elsewhere
        (without their line breaks: a Spark partition's); ``last``: they end the file."""
        yield from self._lines(name, lines, state, lane, counted=False)
        if last:
            yield from state.hand(state.flush())

    def _file(self, path: str | Path, state: _FileState, lane: Lane | None = None) -> Iterator[Any]:
        """Read one file, document by document, through the run's ledger."""
        self.files += 1
        name = str(path)
        suffix = plain_suffix(name)
        if is_stream(name) or (
            compression_in(name) and suffix not in (*JSONL_SUFFIXES, ".json", *YAML_SUFFIXES)
        ):
            # a pipe, or a compressed file whose name does not say what it holds
            yield from self._stream(name, open_stream(name), state)
            yield from state.hand(state.flush())
            return
        if suffix in YAML_SUFFIXES:
            data = read_bytes(name)
            self.bytes_read += len(data)
            yield from self._yaml(name, data, state)
        elif suffix in JSONL_SUFFIXES:
            if not has_content(name):  # nothing but blank lines: no silent "0 calls"
                raise InputError("file is empty", file=name)
            if lane is not None:
                yield from self._jsonl_lane(name, state, lane)
            else:
                lines = iter_lines(name, max_line_bytes=self.max_line_bytes)
                yield from self._jsonl(name, lines, state)
        else:
            data = read_bytes(name)
            self.bytes_read += len(data)
            yield from self._whole(name, data, state, suffix)
        yield from state.hand(state.flush())

    def documents(self, value: Any, ctx: DocContext) -> list[ToolCall]:
        """The calls in one already-parsed document (for embedding the reader elsewhere),
        with the results the document holds attached."""
        out: list[Captured] = []
        ledger = self.new_ledger()
        released: list[Released] = []
        state = _FileState(self.dialects, ledger, released)
        self._dispatch(value, ctx, state, out)
        out.extend(state.flush())
        ledger.add(out, released)
        ledger.flush(released)
        return [item for item in released if type(item) is ToolCall]

    def read_document(self, data: bytes, *, name: str) -> Iterator[ToolCall]:
        """Every call in one in-memory JSON document, read exactly as a ``.json`` file
        called ``name`` would be (fixture suites hold captures inline)."""
        self.files += 1
        self.bytes_read += len(data)
        ledger = self.new_ledger()
        released: list[Released] = []
        state = _FileState(self.dialects, ledger, released)
        calls: list[Released] = [
            *self._whole(name, data, state, ".json"),
            *state.hand(state.flush()),
        ]
        ledger.flush(released)
        calls.extend(released)
        yield from (item for item in calls if type(item) is ToolCall)

    # -- file kinds ----------------------------------------------------------------------

    def _stream(self, name: str, stream: IO[bytes], state: _FileState) -> Iterator[Released]:
        """stdin, a pipe or a compressed file: streamed as JSON Lines when the first line is
        a whole document, read whole otherwise."""
        try:
            yield from self._stream_read(name, stream, state)
        except DecompressionError as exc:  # before the lines are numbered
            raise exc.input_error(name, None) from None

    def _stream_read(self, name: str, stream: IO[bytes], state: _FileState) -> Iterator[Released]:
        skipped = 0
        first = stream.readline(self.max_line_bytes + 1).removeprefix(_BOM)
        while first and not first.strip():
            skipped += 1
            first = stream.readline(self.max_line_bytes + 1)
        if not first:
            raise InputError("the input is empty", file=name)
        if first.lstrip()[:1] in (b"{", b"[") and _parses_alone(first):
            rest = lines_of(stream, self.max_line_bytes, first=skipped + 2, name=name)
            yield from self._jsonl(name, itertools.chain([(skipped + 1, first)], rest), state)
            return
        # the skipped blank lines are put back, so that line numbers stay right
        data = b"\n" * skipped + first + stream.read(MAX_DOCUMENT_BYTES + 1 - len(first))
        if not is_stdin(stream):
            stream.close()
        if len(data) > MAX_DOCUMENT_BYTES:
            raise InputError(
                f"the input is over the {MAX_DOCUMENT_BYTES // 1_000_000} MB limit for one JSON "
                "document; send JSON Lines (one event per line), which stream without a limit",
                file=name,
            )
        self.bytes_read += len(data)
        yield from self._whole(name, data, state, plain_suffix(name))

    def _whole(self, name: str, data: bytes, state: _FileState, suffix: str) -> Iterator[Released]:
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
            documents = _json_sequence(data)
            if documents is not None:  # JSON values one after another (a console exporter)
                yield from self._jsonl(name, documents, state)
                return
            d = exc.diagnosis
            raise InputError(
                f"not JSON ({d.fault}): {d.message}",
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
        out: list[Captured] = []
        try:
            if suffix == ".har" or (isinstance(value, dict) and isinstance(value.get("log"), dict)):
                containers.har(
                    value,
                    ctx,
                    out,
                    dispatch=lambda v, c, o: self._dispatch(v, c, state, o),
                    message=lambda v: self._message(v, state),
                    body=lambda v, c, o: self._body(v, c, state, o),
                    offered=self.offered,
                )
            else:
                self._dispatch(value, ctx, state, out)
        except UnknownShape as exc:
            out.append(self._unknown_document(value, ctx, exc, name))
        out.extend(state.flush())
        if not any(type(item) is not TraceEvent for item in out):
            out.append(_no_tool_call(ctx))
        yield from state.hand(out)

    def _yaml(self, name: str, data: bytes, state: _FileState) -> Iterator[Released]:
        """A YAML file: each of its documents read as a whole JSON document would be."""
        out: list[Captured] = []
        for document in load_yaml(data, name=name):
            positions = document.positions

            def line_of(pointer: str, positions: YamlPositions = positions) -> int | None:
                found = positions.position(pointer)
                return found[0] if found else None

            ctx = DocContext(name, line_of=line_of, anomalies=document.anomalies, tool=self.tool)
            if document.value is None:
                continue
            try:
                self._dispatch(document.value, ctx, state, out)
            except UnknownShape as exc:
                out.append(self._unknown_document(document.value, ctx, exc, name, document.line))
        out.extend(state.flush())
        if not any(type(item) is not TraceEvent for item in out):
            out.append(_no_tool_call(DocContext(name, line=1, tool=self.tool)))
        yield from state.hand(out)

    def _unknown_document(
        self,
        value: Any,
        ctx: DocContext,
        exc: UnknownShape,
        name: str,
        line: int | None = None,
    ) -> ToolCall:
        """A whole document no dialect reads: ``envelope.not_read`` when it looks like LLM
        traffic (its calls must not pass unchecked).

        Raises:
            NotThisKind: it carries no mark of LLM traffic (the wrong file: named, the run
                stops; found in a directory, it is skipped).
        """
        sighting = markers.look(value)
        if sighting is None:
            raise NotThisKind(
                f"not a capture in any known dialect ({exc}); for a bare request body use "
                "--tool NAME (and --dialect downstream)",
                file=name,
                line=line,
            ) from None
        return problem_call(ctx, markers.not_read(sighting, forced=self._forced_name))

    def _sse(self, name: str, data: bytes, state: _FileState) -> Iterator[Released]:
        text = data.decode("utf-8", "surrogateescape")
        seen = [False]
        numbered = _noting_content(
            (
                (n, payload.encode("utf-8", "surrogateescape"))
                for n, payload in containers.sse_events(text)
            ),
            seen,
        )
        yield from self._jsonl(name, numbered, state)
        if seen[0]:
            return
        if not _SSE_DATA.search(text):  # random bytes, or some other text named .sse
            raise InputError(
                "not a Server-Sent Events stream: no 'data:' line; a stream holds lines such "
                "as 'data: {...}'",
                file=name,
            )
        empty = problem_call(  # only [DONE] or empty events: a stream that carried no call
            DocContext(name, line=1, tool=self.tool),
            envelope(
                codes.ENVELOPE_NO_TOOL_CALL,
                "the stream holds no event but [DONE]: no tool call",
                "capture the whole stream, from the first data: line to [DONE]",
                severity=Severity.WARNING,
            ),
        )
        yield from state.hand([empty])

    def _jsonl_lane(
        self,
        name: str,
        state: _FileState,
        lane: Lane | None,
        *,
        start: int = 0,
        end: int | None = None,
        first: int = 1,
    ) -> Iterator[Any]:
        """A JSONL file (or its bytes from ``start`` to ``end``) read in large blocks. While
        the ledger would hand a lone model-hop call straight on, each line is offered to
        ``lane`` first; the others are read as :meth:`_jsonl` reads them (the same lines,
        numbers and results as :func:`~jsoncontract._files.lines_of` gives, with less work
        per line)."""
        stream = open_stream(name)
        if start:
            stream.seek(start)
        # at most one read of the file (or one step of a decompressor) a block: what came
        # before a corrupt part of a compressed file is read before its error is raised
        read = getattr(stream, "read1", stream.read)
        left = end - start if end is not None else -1
        limit = self.max_line_bytes
        number = first - 1
        pending: list[bytes] = []  # the start of a line that goes on in the next block
        held = 0  # its length
        skipping = False  # inside a line longer than the limit: dropped up to its end
        try:
            while True:
                block = read(_BLOCK if left < 0 else min(_BLOCK, left)) if left else b""
                if left > 0:
                    left -= len(block)
                if not block:  # the end: the last line, if it has no line break
                    if skipping:
                        lines: list[bytes | None] = [None]
                    elif pending:
                        lines = [b"".join(pending)]
                    else:
                        break
                    pending, skipping = [], False
                else:
                    self.bytes_read += len(block)
                    lines = []
                    if skipping:
                        cut = block.find(b"\n")
                        if cut < 0:
                            continue
                        lines.append(None)  # the line too long to hold ends here
                        block = block[cut + 1 :]
                        skipping = False
                    parts = block.split(b"\n")
                    tail = parts.pop()
                    if pending and parts:
                        parts[0] = b"".join(pending) + parts[0]
                        pending, held = [], 0
                    lines += parts
                    if tail:
                        pending.append(tail)
                        held += len(tail)
                        if held > limit:  # skipped, never held whole, as lines_of does
                            pending, held, skipping = [], 0, True
                yield from self._lines(name, enumerate(lines, number + 1), state, lane)
                number += len(lines)
        except DecompressionError as exc:
            raise exc.input_error(name, number) from None
        finally:
            if not is_stdin(stream):
                stream.close()

    def _lines(
        self,
        name: str,
        numbered: Iterable[tuple[int, bytes | None]],
        state: _FileState,
        lane: Lane | None,
        *,
        counted: bool = True,
    ) -> Iterator[Any]:
        """Numbered JSONL lines (``None``, or longer than the limit: a line too long to hold)
        read through ``state``, each offered to ``lane`` first (see :meth:`read_checked`).
        ``counted``: their bytes were counted as read already."""
        limit = self.max_line_bytes
        document = self._document
        ledger = state.ledger
        released = state.released
        for number, line in numbered:
            if line is None or len(line) > limit:
                document(name, number, None, state)
            else:
                done = lane(name, number, line, state) if lane is not None else None
                if done is None:
                    document(name, number, line, state, counted=counted)
                elif done:  # the line's calls, checked
                    ledger.doc += 1
                    if len(done) == 1:
                        yield done[0]
                    else:
                        yield from done
                    continue
                elif not counted:  # the lane read it, and handed what it holds to the ledger
                    self.bytes_read += len(line)
            if released:
                if len(released) == 1:
                    yield released.pop()
                else:
                    yield from released
                    released.clear()

    def _jsonl(
        self, name: str, lines: Iterable[tuple[int, bytes | None]], state: _FileState
    ) -> Iterator[Released]:
        document = self._document
        released = state.released
        for number, line in lines:
            document(name, number, line, state)
            if released:
                if len(released) == 1:
                    yield released.pop()
                else:
                    yield from released
                    released.clear()

    def _document(
        self,
        name: str,
        number: int,
        line: bytes | None,
        state: _FileState,
        *,
        counted: bool = False,
    ) -> None:
        """Read one JSONL document (``None``: a line too long to hold) and hand what it holds
        to the ledger; what leaves the ledger is in ``state.released``."""
        tool = self.tool
        out: list[Captured] = []
        if line is None:
            out.append(
                problem_call(
                    DocContext(name, line=number, tool=tool),
                    _parse_problem(
                        codes.PARSE_TOO_LARGE,
                        f"the line is longer than {self.max_line_bytes:,} bytes and was skipped",
                        "split the event into smaller lines",
                    ),
                )
            )
            state.ledger.add(out, state.released)
            return
        if not counted:
            self.bytes_read += len(line)
        try:
            value, anomalies = load(line)
        except NotJSON as exc:
            if not line.strip():
                return
            d = exc.diagnosis
            # the line without its break (a newline is no fault)
            if d.code != codes.PARSE_TOO_DEEP:
                d = diagnose(line.rstrip(b"\r\n"))
            out.append(
                problem_call(
                    DocContext(name, line=number, tool=tool),
                    _parse_problem(d.code, f"line {number} is not JSON: {d.message}", d.hint),
                )
            )
            state.ledger.add(out, state.released)
            return
        self.read_value(name, number, value, anomalies, state)

    def read_value(
        self,
        name: str,
        number: int,
        value: Any,
        anomalies: tuple[Anomaly, ...],
        state: _FileState,
        handler: Handler | None = None,
    ) -> None:
        """Read one JSONL document parsed as ``value`` (with the ``anomalies`` its parse
        found) and hand what it holds to the ledger, as :meth:`_document` does; ``handler``:
        the one :meth:`handler_of` found for it, when it found one."""
        out: list[Captured] = []
        ctx = DocContext(name, number, None, anomalies, self.tool)
        try:
            if handler is not None:
                self._read_by(handler, value, ctx, out)
            else:
                self._dispatch(value, ctx, state, out)
        except UnknownShape as exc:
            sighting = markers.look(value)
            if sighting is not None:
                finding = markers.not_read(sighting, forced=self._forced_name)
            else:
                finding = envelope(
                    codes.ENVELOPE_UNKNOWN_DIALECT,
                    f"line {number} is JSON but no known capture dialect ({exc})",
                    'wrap bare bodies as {"hop": "downstream", "tool": ..., "payload": ...}',
                )
            out.append(problem_call(ctx, finding))
        state.ledger.add(out, state.released)

    # -- dialect detection ---------------------------------------------------------------

    def _dispatch(
        self,
        value: Any,
        ctx: DocContext,
        state: _FileState,
        out: list[Captured],
    ) -> None:
        if type(value) is dict:
            if "payload" in value:
                hop = value.get("hop")
                if (type(hop) is str and hop in _HOPS) or "dialect" in value:
                    self._record(value, ctx, state, out)
                    return
            if _is_exchange(value):
                self._exchange(value, ctx, state, out)
                return
            handler = self._handler(value, state)
            if handler is not None:
                self._read_by(handler, value, ctx, out)
                return
            if "custom_id" in value and containers.batch(
                value, ctx, out, lambda v, c, o: self._dispatch(v, c, state, o)
            ):
                return
            if ctx.tool and self._forced is None:
                self._body(value, ctx, state, out)
                return
            keys = ", ".join(sorted(value)[:6])
            raise UnknownShape(f"an object with members {keys}" if keys else "an empty object")
        if isinstance(value, list):
            if self._forced is self._fallback or (
                # a whole document that is an array no dialect reads any item of, given
                # with --tool: one body that is an array (not one body per item)
                ctx.tool
                and self._forced is None
                and not ctx.base
                and not any(self._claimed(item, state) for item in value)
            ):
                self._body(value, ctx, state, out)
                return
            _check_nesting(ctx)
            # a list holds calls among other things (text parts, reasoning items, results):
            # it is a capture when at least one of its items is
            unknown: UnknownShape | None = None
            known = not value
            unread: list[Captured] = []  # items that look like LLM traffic no dialect reads
            for i, item in enumerate(value):
                try:
                    self._dispatch(item, ctx.child(f"/{i}"), state, out)
                    known = True
                except UnknownShape as exc:
                    unknown = exc
                    sighting = markers.look(item)
                    if sighting is not None:
                        finding = markers.not_read(sighting, forced=self._forced_name)
                        unread.append(problem_call(ctx, finding, pointer=f"/{i}"))
            if unknown is not None and not known:
                raise unknown
            out.extend(unread)
            return
        if self._forced is self._fallback or (ctx.tool and self._forced is None):
            self._body(value, ctx, state, out)
            return
        raise UnknownShape(f"a JSON {json_type(value)} holds no call")

    def _read_by(
        self, handler: Handler, value: dict[str, Any], ctx: DocContext, out: list[Captured]
    ) -> None:
        """Read ``value`` with the handler a dialect took it with. A handler that reads a
        document alone (not a stream event or a history its dialect's memory of the file
        takes in) and finds nothing in it, although it holds tool calls, could not read
        them: the document is reported (``envelope.not_read``), never passed in silence."""
        start = len(out)
        handler(value, ctx, out)
        if len(out) > start or hasattr(getattr(handler, "__self__", None), "flush"):
            return
        calls = markers.calls_in(value)
        if calls is not None:
            dialect = self._modules.get(getattr(handler, "__module__", ""))
            finding = markers.not_read(markers.look(value), calls=calls, read_as=dialect)
            out.append(problem_call(ctx, finding))

    def _record(
        self, record: dict[str, Any], ctx: DocContext, state: _FileState, out: list[Captured]
    ) -> None:
        _check_nesting(ctx)
        named = record.get("hop")
        hop = _HOPS.get(named) if type(named) is str else None
        context = record.get("context")
        call_id = record.get("call_id")
        tool = record.get("tool")
        moment = record.get("time")
        child = ctx.child(
            "/payload",
            hop=hop,
            tool=tool if isinstance(tool, str) else ctx.tool,
            call_id=id_text(call_id) if call_id is not None else None,
            context=context if isinstance(context, dict) else ctx.context,
            time=containers.epoch(moment) if moment is not None else ctx.time,
        )
        payload = record["payload"]
        start = len(out)
        named_dialect = record.get("dialect")
        forced = self.dialects.get(named_dialect) if isinstance(named_dialect, str) else None
        if hop is not None and hop is self._fallback.hop:
            self._body(payload, child, state, out)
        elif forced is not None:
            saved = self._forced
            self._forced = forced
            try:
                self._dispatch(payload, child, state, out)
            finally:
                self._forced = saved
        else:
            self._dispatch(payload, child, state, out)
        if ctx.anomalies and len(out) > start:
            _record_anomalies(ctx, out[start:])

    def offered(self, request: Any) -> OfferedTools | None:
        """The tools a request body offers the model, as the first dialect that reads
        requests of its kind finds them (``None``: no dialect's request, or none named)."""
        if type(request) is not dict:
            return None
        for offers in self._offers:
            found = offers(request)
            if found is not None:
                return found
        return None

    def _exchange(
        self, record: dict[str, Any], ctx: DocContext, state: _FileState, out: list[Captured]
    ) -> None:
        """A request and its response logged together (``{"request": .., "response":
        ..}``, each the body itself or an object with a ``body``), as a proxy logs an
        exchange: the request's history is read, and the calls of both are given the tools
        the request offered. A request no dialect reads holds nothing; the response is read
        as any document is."""
        _check_nesting(ctx)
        request, sent = _body_of(record["request"], "/request")
        offered = self.offered(request)
        if type(request) is dict:
            handler = self._handler(request, state)
            if handler is not None:
                handler(request, ctx.child(sent, offered=offered), out)
        response, answered = _body_of(record["response"], "/response")
        self._dispatch(response, ctx.child(answered, offered=offered), state, out)

    def _claimed(self, item: Any, state: _FileState) -> bool:
        """Whether an item of a list is read by a dialect (or is a list, which may hold
        such items), rather than as a bare body."""
        if isinstance(item, list):
            return True
        if not isinstance(item, dict):
            return False
        if "payload" in item or "custom_id" in item or _is_exchange(item):
            return True
        return self._handler(item, state) is not None

    def _handler(self, value: dict[str, Any], state: _FileState) -> Handler | None:
        """The handler of the first dialect that takes ``value`` as a whole message, else of
        the first that reads it as a part (only the forced dialect's, when one is)."""
        states = state.states
        forced = self._forced
        if forced is not None:
            own = states[self._index[forced.name]]
            mark = forced.mark
            if mark is not None and mark in value:
                handler = forced.whole(value, own)
                if handler is not None:
                    return handler
            return forced.part(value, own)
        for mark, whole, i in self._wholes:
            if mark in value:
                handler = whole(value, states[i])
                if handler is not None:
                    return handler
        for part, i in self._parts:
            handler = part(value, states[i])
            if handler is not None:
                return handler
        return None

    def handler_of(self, value: dict[str, Any], state: _FileState) -> Handler | None:
        """The handler that reads the object ``value`` (a JSONL line's document), as
        :meth:`_dispatch` finds it; ``None`` for a trace record, and for an object no
        dialect takes as a whole message or a part (read as :meth:`_dispatch` reads it)."""
        if "payload" in value or _is_exchange(value):
            return None
        return self._handler(value, state)

    def reading(self, handler: Handler) -> Shortcut | None:
        """The shortcut of ``handler`` (its memory of the file is the handler's
        ``__self__``), if it has one."""
        found = self._shortcuts.get(getattr(handler, "__func__", handler))
        return None if found is None else found[0]

    def shortcut(
        self, value: dict[str, Any], state: _FileState
    ) -> tuple[Shortcut, Any, CaptureDialect] | None:
        """How the fast lane may read the object ``value`` (a JSONL line's document): the
        :class:`~jsoncontract.capture.interface.Shortcut` of the handler that would read it,
        the dialect's memory of the file that handler belongs to (``None`` for a function of
        the module; for a bare body, the tool named), and its dialect; ``None`` when its
        handler has none (or a trace record or an exchange would be read)."""
        if "payload" in value or _is_exchange(value):
            return None
        tool = self.tool
        claims = self._claims
        if claims is not None and tool and self._forced is None and value.keys().isdisjoint(claims):
            handler = None  # no dialect reads an object by any of its members
        else:
            handler = self._handler(value, state)
        if handler is None:
            # no dialect reads it: a bare body of the tool the caller named (a line with a
            # custom_id may be a batch request's, read on the full path)
            if not tool or "custom_id" in value or self._forced is not None:
                return None
            found = self._shortcuts.get(self._fallback.part(value, state.states[-1]))
            return None if found is None else (found[0], tool, found[1])
        found = self._shortcuts.get(getattr(handler, "__func__", handler))
        if found is None:
            return None
        if found[1] is self._fallback:  # forced: every object is a body of the tool named
            return (found[0], tool, found[1]) if tool else None
        return found[0], getattr(handler, "__self__", None), found[1]

    def _message(self, value: dict[str, Any], state: _FileState) -> bool:
        """Whether a dialect takes ``value`` as a whole message of its own."""
        states = state.states
        return any(
            mark in value and whole(value, states[i]) is not None for mark, whole, i in self._wholes
        )

    def _body(self, value: Any, ctx: DocContext, state: _FileState, out: list[Captured]) -> None:
        """Read ``value`` as a bare body (the registry's fallback dialect)."""
        handler = self._fallback.part(value, state.states[-1])
        if handler is None:
            raise UnknownShape(f"a JSON {json_type(value)} is no {self._fallback.name} body")
        handler(value, ctx, out)


def _is_exchange(value: dict[str, Any]) -> bool:
    """Whether an object is a request and its response logged together."""
    return "response" in value and type(value.get("request")) is dict


def _body_of(value: Any, pointer: str) -> tuple[Any, str]:
    """The body a logged request or response holds (its ``body`` member, when it has one
    that is an object or a list, as proxies wrap bodies with their headers), with its
    pointer."""
    if type(value) is dict:
        inner = value.get("body")
        if type(inner) is dict or type(inner) is list:
            return inner, pointer + "/body"
    return value, pointer


def _one_file(source: Iterator[Any], ended: list[bool]) -> Iterator[tuple[int, bytes | None]]:
    """The lines of one file of a :class:`~jsoncontract._tail.Tail`, up to the mark that
    the next starts (``ended[0]`` is then cleared: the tail goes on)."""
    for item in source:
        if item is None:
            ended[0] = False
            return
        yield item


#: What an iterator that ended gives :func:`next`.
_ENDED: Final[Any] = object()


def _no_tool_call(ctx: DocContext) -> ToolCall:
    """What a whole capture that holds no call is reported as."""
    return problem_call(
        ctx,
        envelope(
            codes.ENVELOPE_NO_TOOL_CALL,
            "the capture holds no tool call",
            "check that this is the response in which the model called a tool",
            severity=Severity.WARNING,
        ),
    )


def _check_nesting(ctx: DocContext) -> None:
    if ctx.base.count("/") >= MAX_NESTING:
        raise UnknownShape(f"calls nested more than {MAX_NESTING} levels deep")


#: A ``data:`` field at the start of a line (of an SSE stream).
_SSE_DATA: Final = re.compile(r"(?m)^data:")


def _noting_content(
    lines: Iterable[tuple[int, bytes | None]], seen: list[bool]
) -> Iterator[tuple[int, bytes | None]]:
    """``lines`` as they are, setting ``seen[0]`` at the first that is not blank."""
    for number, line in lines:
        if not seen[0] and (line is None or line.strip()):
            seen[0] = True
        yield number, line


def _parse_problem(code: str, message: str, hint: str | None) -> Finding:
    return Finding(
        code=code,
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


def _json_sequence(data: bytes) -> list[tuple[int, bytes | None]] | None:
    """Several JSON objects one after another, each over several lines (what
    OpenTelemetry's console exporter writes), as (first line, text) pairs; ``None`` when
    ``data`` is not such a sequence."""
    text = data.decode("utf-8", "surrogateescape")
    if not text.lstrip().startswith("{"):
        return None
    decoder = json.JSONDecoder()
    documents: list[tuple[int, bytes | None]] = []
    position, line = 0, 1
    while True:
        start = len(text) - len(text[position:].lstrip())
        line += text.count("\n", position, start)
        if start >= len(text):
            break
        try:
            _, end = decoder.raw_decode(text, start)
        except ValueError:
            return None
        documents.append((line, text[start:end].encode("utf-8", "surrogateescape")))
        line += text.count("\n", start, end)
        position = end
    return documents if len(documents) > 1 else None


def _looks_like_jsonl(data: bytes) -> bool:
    lines = [line for line in data.splitlines()[:3] if line.strip()]
    return len(lines) >= 2 and _parses_alone(lines[0])


def _record_anomalies(ctx: DocContext, calls: list[Captured]) -> None:
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
        if type(call) is ToolCall:
            call.load_findings.extend(envelope_anomaly(a, "in the trace record") for a in own)
