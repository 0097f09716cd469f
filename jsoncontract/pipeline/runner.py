"""One runner for a check: the plan of parts, the check of a part from an assumed start, and
the join of the parts' states in input order, whatever executes them.

An executor is the only difference between the ways a check runs: in this process
(:func:`jsoncontract.api.iter_results`: the reader and the checker over the whole input,
with nothing to join), in forked worker processes (:mod:`jsoncontract.pipeline.parallel`),
or in Spark tasks (:mod:`jsoncontract.spark`). Each checks parts with a :class:`Worker`
(or, in Spark, the same steps over rows of lines) and hands back an :class:`Outcome` per
part; the parent joins the outcomes in order with :class:`Join`, which takes a part whose
start was the run's and reads any other again itself. What the results are counted,
marked against a baseline and encoded with (:func:`counted`, :func:`marked`,
:func:`encoded_runs`) is the same for every executor, and so are the results: exactly
those of one process.

The work is cut into *parts* (:func:`plan`): each capture file, and a plain (uncompressed)
JSONL file larger than a few megabytes in byte ranges cut at line boundaries, whose first
line numbers the parent counts while it cuts. The executor checks the parts; the parent
takes them back in input order, so reports and line numbers are those of a run in one
process.

**Staying exact.** What a call's result depends on besides the call is the run's state when
the call is read: the ledger that pairs calls with their results (:mod:`jsoncontract.capture.
ledger`), the dialects' memory of the file (open streams, MCP sessions, histories read), the
checks over the run (:mod:`jsoncontract.pipeline.contracts`) and the idempotency index. A
worker checks a part from an assumed start, and reports what the parent needs to tell
whether that start was the run's:

- the run's first part starts where the run does (a fresh ledger); every later part starts
  as after a first result window in which no hop carried a result (every call passes the
  ledger at once: :meth:`Ledger.assume_alone
  <jsoncontract.capture.ledger.Ledger.assume_alone>`), with a fresh memory of its file that
  notes what the reading asks of it (:meth:`_FileState.watch
  <jsoncontract.capture.reader._FileState.watch>`), and fresh checks over the run;
- the worker logs what its ledger did with call keys (:class:`~jsoncontract.capture.ledger.
  StepLog`, one flat list), whether a result or a trace event came in (then it stops: such
  a part is read by the parent), whether anything was still held at its end, its file's
  memory at its end with what the reading asked of it, and the state its checks over the
  run ended in;
- the parent keeps the run's real state. A later part is taken when the run's ledger held
  nothing and had taken every hop for calls alone where the part began, the part's key steps
  replay on the run's ledger with the same answers (a call seen before is merged the same
  way), the run's memory of the file would have answered the part's reading the same (it
  was fresh, or each dialect's memory :meth:`joins
  <jsoncontract.capture.interface.JoinableState.joins>` the part's: the Responses items
  produced and the MCP requests unanswered, which a file never forgets, would otherwise
  make every later part of it read again), and each check over the run :meth:`follows
  <jsoncontract.pipeline.contracts.SessionContracts.follows>` the part; the run then
  continues after it (:meth:`absorb
  <jsoncontract.pipeline.contracts.SessionContracts.absorb>`, and the file's memory absorbs
  the part's). The first part is taken whole when nothing was held at its end. Any other
  part is read again by the parent, from its start, with the run's state: what it gives is
  then the one-process result by construction;
- **idempotency**: workers run each call's rules but not the checks across calls; for each
  write call they send a compact :class:`KeyRecord
  <jsoncontract.business.idempotency.KeyRecord>` (hashes, the key, where the call is) and
  the parent's one tracker applies the records in input order and adds what they reveal to
  the call's result.

A trace that carries results (conversations, MCP sessions, OpenTelemetry spans) cannot be
split this way past its first result: from the part where the run's ledger starts expecting
results, the parent reads the rest itself and the workers stop.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract._files import Found, compression_in, find, is_stream
from jsoncontract.capture.ledger import Ledger, StepLog
from jsoncontract.capture.reader import CAPTURE_SUFFIXES, JSONL_SUFFIXES
from jsoncontract.errors import InputError
from jsoncontract.model import (
    CallResult,
    Finding,
    PassedCall,
    ResultRun,
    Severity,
    Summary,
    ToolCall,
)
from jsoncontract.pipeline.entries import PassedEntries, encode_result

if TYPE_CHECKING:
    from jsoncontract.baseline import BaselineMatcher
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.business.idempotency import KeyRecord
    from jsoncontract.capture.ledger import Released
    from jsoncontract.capture.reader import CaptureReader, Lane
    from jsoncontract.pipeline.checker import Checker


#: The size of the byte ranges a large JSONL file is cut into.
PART_BYTES: Final = 4 * 1024 * 1024
#: The smallest range an input of a few megabytes is cut into, so that every worker has
#: parts to check (below it, a part costs more to hand over than a worker saves on it).
MIN_PART_BYTES: Final = 512 * 1024
#: Parts per worker an input smaller than that many :data:`PART_BYTES` is cut into.
PARTS_PER_WORKER: Final = 3


def part_bytes_for(total: int, jobs: int) -> int:
    """The size of the parts of an input of ``total`` bytes of JSONL files that can be cut,
    checked by ``jobs`` workers: :data:`PART_BYTES`, or less, down to
    :data:`MIN_PART_BYTES`, so that each worker gets :data:`PARTS_PER_WORKER` parts."""
    share = total // max(1, jobs * PARTS_PER_WORKER)
    return min(PART_BYTES, max(MIN_PART_BYTES, share))


def splits(checker: Checker) -> bool:
    """Whether ``checker``'s gates can be split between workers exactly: no business gate,
    or the built-in one (whose only state across calls, idempotency, the parent keeps); and
    no gate over the run, or the built-in one (whose checks say how parts join). A gate of
    another kind may keep state of its own, so it sees every call in one process."""
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.pipeline.contracts import SessionContracts

    session = checker.session
    return (checker.business is None or isinstance(checker.business, BusinessRules)) and (
        session is None or type(session) is SessionContracts
    )


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of work: a whole file (``end`` is ``None``), or the lines of a JSONL file
    from byte ``start`` (line ``first_line``) to byte ``end``; ``last``: the part ends its
    file; ``named``: the file was named, not found in a directory (see
    :meth:`~jsoncontract.capture.reader.CaptureReader.read_trace`)."""

    file: str
    start: int = 0
    end: int | None = None
    first_line: int = 1
    last: bool = True
    named: bool = True

    def describe(self) -> str:
        if self.end is None:
            return self.file
        return f"{self.file} (bytes {self.start:,}-{self.end:,}, from line {self.first_line:,})"


def plan(
    files: Iterable[Found | str | Path], part_bytes: int | None = None, *, jobs: int = 0
) -> list[Part]:
    """The parts of ``files`` (as :meth:`CaptureReader.find
    <jsoncontract.capture.reader.CaptureReader.find>` lists them, or paths to search), in
    input order (``part_bytes``: default :data:`PART_BYTES`, or with ``jobs`` workers, what
    :func:`part_bytes_for` gives for the input)."""
    given = list(files)
    entries = [entry for entry in given if isinstance(entry, Found)]
    if len(entries) < len(given):  # paths: searched
        paths = [entry.path if isinstance(entry, Found) else entry for entry in given]
        entries = find(paths, CAPTURE_SUFFIXES, what="capture")
    sizes: list[tuple[str, bool, int]] = []
    for entry in entries:
        name = str(entry.path)
        splittable = (
            Path(name).suffix.lower() in JSONL_SUFFIXES
            and not is_stream(name)
            and compression_in(name) is None
        )
        sizes.append((name, entry.named, Path(name).stat().st_size if splittable else 0))
    if not part_bytes:
        total = sum(size for _, _, size in sizes)
        part_bytes = part_bytes_for(total, jobs) if jobs > 1 else PART_BYTES
    parts: list[Part] = []
    for name, named, size in sizes:
        if size < 2 * part_bytes:
            parts.append(Part(name, named=named))
            continue
        parts.extend(_cut(name, size, part_bytes, named))
    return parts


def _cut(name: str, size: int, part_bytes: int, named: bool) -> list[Part]:
    """Byte ranges of about ``part_bytes`` cut after a line break, with their first line."""
    parts: list[Part] = []
    start, line = 0, 1
    with Path(name).open("rb") as stream:
        while start < size:
            target = start + part_bytes
            if target >= size - part_bytes // 2:
                parts.append(Part(name, start, size, line, last=True, named=named))
                break
            stream.seek(start)
            data = stream.read(part_bytes)
            tail = 0  # the rest of the line the target falls in (measured, never held)
            while True:
                chunk = stream.readline(1 << 20)
                tail += len(chunk)
                if not chunk or chunk.endswith(b"\n"):
                    break
            end = start + len(data) + tail
            if end >= size:
                parts.append(Part(name, start, size, line, last=True, named=named))
                break
            parts.append(Part(name, start, end, line, last=False, named=named))
            line += data.count(b"\n") + 1  # the tail ends with the line break
            start = end
    return parts


def checked(
    checker: Checker, source: Iterable[Any], ledger: StepLog | None = None
) -> Iterator[CallResult | PassedCall]:
    """What a reader gives (calls, checked ones from the fast lane, trace events), checked:
    trace events go to the checks over the run. With ``ledger`` (a part read on its own),
    nothing more once a result or a trace event came in: the part is then read in the run."""
    check, event = checker.check, checker.event
    for item in source:
        kind = type(item)
        if kind is PassedCall or kind is CallResult:
            yield item
        elif kind is ToolCall:
            yield check(item)
        else:
            checker.findings.extend(event(item))
        if ledger is not None and not ledger.clean:
            return


def with_keys(result: CallResult, found: list[Any]) -> CallResult:
    """``result`` with what the parent's idempotency tracker ``found`` for its call: the
    business gate's findings, placed before what the result gate found (as one process
    places them)."""
    from jsoncontract.model import Stage, locate
    from jsoncontract.pipeline.checker import first_failure

    ahead = result.findings
    cut = next((i for i, f in enumerate(ahead) if f.stage is Stage.RESULT), len(ahead))
    findings = ahead[:cut] + locate(found, result.call) + ahead[cut:]
    return CallResult(result.call, findings, first_failure(findings), result.arguments)


class DeferredTrace:
    """The business gate in a worker: a call's rules run here; what the trace-level checks
    need of it is kept as a record for the parent."""

    #: :attr:`record` is the last checked call's, read as its result comes out (so the fast
    #: lane hands no line of several calls this gate checks).
    records_last: Final = True

    def __init__(self, gate: BusinessRules) -> None:
        self.gate = gate
        self.record: KeyRecord | None = None

    def wants(self, tool: Any) -> bool:
        return self.gate.wants(tool)

    def check(self, call: ToolCall, arguments: Any, tool: Any) -> list[Any]:
        findings = self.gate.check_rules(call, arguments, tool)
        tracker = self.gate.tracker
        if tracker is not None:
            self.record = tracker.prepare(call, arguments, tool)
        return findings


@dataclass(slots=True)
class Outcome:
    """What a worker hands back for a part.

    ``items``: the part's results (see :func:`check_part`); ``clean``: no result and no
    trace event came in (a part that is not is abandoned half-way); ``idle``: its ledger held
    nothing at the end; ``pristine``: its file's dialect memory was fresh at the end (or the
    part ended its file); ``docs``: documents read; ``steps``: its ledger's key steps;
    ``ledger``: the whole ledger (the run's first part only); ``session``: the snapshot of
    its checks over the run (``None`` without any); ``memory``: its file's dialect memory,
    pickled, when that was not fresh at the end (``None`` when it does not pickle), or, with
    ``watched``, whatever it was: the memory of a part read from a fresh one that noted what
    the reading asked of it (:meth:`_FileState.watch
    <jsoncontract.capture.reader._FileState.watch>`), which the run's memory of the file
    may join; ``last``: the part ended its file.
    """

    items: list[Any]
    clean: bool
    idle: bool
    pristine: bool
    docs: int
    steps: list[Any]
    ledger: StepLog | None
    session: Any
    memory: bytes | None = None
    watched: bool = False
    last: bool = False


class Worker:
    """What a worker process checks parts with (set up in the parent before forking)."""

    def __init__(
        self,
        checker: Checker,
        reader: CaptureReader,
        lane: Lane | None,
        deferred: DeferredTrace | None,
        *,
        runs: bool,
        keep: str,
    ) -> None:
        self.checker = checker
        self.reader = reader
        self.lane = lane
        self.deferred = deferred
        self.runs = runs
        self.keep = keep

    def part(self, part: Part, first: bool) -> Outcome:
        """Check one part: the run's ``first``, from the run's start, else from the
        assumed one (see the module)."""
        reader = self.reader
        ledger = StepLog(window=reader.window)
        if not first:
            ledger.assume_alone()
        released: list[Released] = []
        state = reader.new_state(ledger, released)
        if not first:
            state.watch(True)
        session = self.checker.session
        if session is not None:
            session.reset()  # type: ignore[attr-defined]
        if self.deferred is not None:
            self.deferred.record = None
        source = reader.read_part(
            part.file,
            state,
            self.lane,
            start=part.start,
            end=part.end,
            first=part.first_line,
            last=part.last,
        )
        items = list(self._items(source, ledger, stop=not first))
        pristine = part.last or state.pristine(reader.dialects)
        return Outcome(
            items,
            ledger.clean,
            ledger.idle,
            pristine,
            ledger.doc,
            ledger.steps,
            ledger if first else None,
            session.snapshot() if session is not None else None,  # type: ignore[attr-defined]
            None if pristine and first else state.memory(),
            not first,
            part.last,
        )

    def _items(self, source: Iterator[Any], ledger: StepLog, *, stop: bool) -> Iterator[Any]:
        """The part's results: passing calls as tuples, others as they are; with ``runs`` (a
        JSON report), consecutive results as ``(calls, entries)``, encoded, and, last, the
        summary that counts them all (``(summary, None)``: counts do not depend on order,
        and one summary a part pickles at a fraction of the cost of one a run). A result
        with a key record comes alone, with its record, for the parent to complete; so does
        (in runs) a call with its result, whose latency the parent sums in order. ``keep``
        chooses the results a run's entries list."""
        deferred, keep, runs = self.deferred, self.keep, self.runs
        entries: list[bytes] = []
        counted = Summary()
        calls = 0  # those of the run of entries being made
        if runs:
            from jsoncontract.pipeline.entries import PassedEntries, encode_result

            entry = PassedEntries().entry
        for result in checked(self.checker, source, ledger if stop else None):
            if type(result) is PassedCall:
                if not runs:
                    yield (
                        result.tool,
                        result.hop._value_,
                        result.call_id,
                        result.dialect,
                        result.line,
                    )
                else:
                    if keep == "all":
                        entries.append(entry(result))
                    counted.add_passed(result.tool)
                    calls += 1
                continue
            assert type(result) is CallResult
            record = deferred.record if deferred is not None else None
            if record is not None or (runs and result.call.result is not None):
                # alone: the parent completes it (idempotency), or counts what came back
                # for it into the run's summary in input order, as one process does
                if calls:
                    yield (calls, b"\n".join(entries))
                    entries, calls = [], 0
                yield (result, record)
                if deferred is not None:
                    deferred.record = None
            elif runs:
                if keep == "all" or (
                    result.stage is not None if keep == "failed" else result.findings
                ):
                    entries.append(encode_result(result))
                counted.add(result)
                calls += 1
            else:
                yield result
        if calls:
            yield (calls, b"\n".join(entries))
        if counted.calls:
            yield (counted, None)


class Join:
    """The run's real state in the parent, and the reading of parts here."""

    def __init__(self, checker: Checker, reader: CaptureReader, lane: Lane | None) -> None:
        self.checker = checker
        self.reader = reader
        self.lane = lane
        self.ledger: Ledger = reader.new_ledger()
        self.released: list[Released] = []
        self.state: Any = None  # the memory of the file a part of which was read here
        self.started = False  # a part has been taken or read
        self.abandoned: set[str] = set()  # files found in a directory that failed to read

    def takes(self, files: frozenset[str], outcome: Outcome, first: bool) -> bool:
        """Whether the worker's ``outcome`` for a part of ``files`` is what the run would
        give; if so, the run continues after it."""
        if not outcome.idle or (not outcome.pristine and outcome.memory is None):
            return False
        session = self.checker.session
        if first:
            if self.started:
                return False
            assert outcome.ledger is not None
            self.ledger = outcome.ledger.plain()
            if session is not None:
                session.adopt(outcome.session)  # type: ignore[attr-defined]
            self._remember(outcome)
            return True
        if not outcome.clean or not self.ledger.settled:
            return False
        state = self.state
        if state is not None and (not outcome.watched or outcome.memory is None):
            return False
        if session is not None and not session.follows(outcome.session, files):  # type: ignore[attr-defined]
            return False
        theirs = None
        if state is not None:  # the file's memory here must join the part's
            assert outcome.memory is not None
            theirs = state.joins(outcome.memory, self.reader.dialects)
            if theirs is None:
                return False
        if not self.ledger.replay(outcome.steps):  # changes nothing when it fails
            return False
        self.ledger.doc += outcome.docs
        if session is not None:
            session.absorb(outcome.session)  # type: ignore[attr-defined]
        if state is None:
            self._remember(outcome)
        else:
            assert theirs is not None
            state.absorb(theirs, self.reader.dialects)
            if outcome.last or state.pristine(self.reader.dialects):
                self.state = None  # the file ended, or what follows reads the same afresh
        return True

    def _remember(self, outcome: Outcome) -> None:
        """Keep the memory of the file a taken part left unfinished: the rest of the file
        is read here, from it."""
        if outcome.memory is not None and not outcome.pristine:
            self.state = self.reader.new_state(self.ledger, self.released)
            self.state.restore(outcome.memory)

    def read(self, part: Part) -> Iterator[CallResult | PassedCall]:
        """Read ``part`` here, from the run's state, as one process reads it."""
        reader, lane = self.reader, self.lane
        return self._read(
            lambda state: reader.read_part(
                part.file,
                state,
                lane,
                start=part.start,
                end=part.end,
                first=part.first_line,
                last=part.last,
            ),
            part.last,
            part,
        )

    def read_lines(
        self, name: str, lines: Iterable[tuple[int, bytes]], *, last: bool
    ) -> Iterator[CallResult | PassedCall]:
        """Read numbered lines of the file ``name`` here (``last``: they end it)."""
        reader, lane = self.reader, self.lane
        return self._read(
            lambda state: reader.read_lines(name, lines, state, lane, last=last), last
        )

    def _read(
        self, source: Any, last: bool, part: Part | None = None
    ) -> Iterator[CallResult | PassedCall]:
        if self.state is None:
            self.state = self.reader.new_state(self.ledger, self.released)
        try:
            yield from checked(self.checker, source(self.state))
        except InputError as exc:
            if part is None or part.named:  # what came before is handed on first
                self.ledger.flush(self.released)
                yield from checked(self.checker, self._drain())
                raise
            # a file found in a directory: skipped, or an unreadable call, and the run
            # goes on with the next file, as one process does
            found = Found(Path(part.file), named=False)
            yield from checked(self.checker, self.reader.lenient(found, exc, self.state))
            self.abandoned.add(part.file)
            self.state = None
            return
        if last or self.state.pristine(self.reader.dialects):
            self.state = None  # what follows reads the same from a fresh memory

    def finish(self) -> Iterator[CallResult | PassedCall]:
        """The end of the run: what the ledger still holds, then the checks over the run
        close."""
        self.ledger.flush(self.released)
        yield from checked(self.checker, self._drain())
        session = self.checker.session
        if session is not None:
            self.checker.findings.extend(session.close())

    def _drain(self) -> Iterator[Any]:
        released = self.released
        items = list(released)
        released.clear()
        yield from items


def counted(
    results: Iterable[CallResult | PassedCall], summary: Summary
) -> Iterator[CallResult | PassedCall]:
    """``results``, each counted into ``summary`` as it passes (in input order: latencies
    are summed as one run sums them)."""
    add, add_passed = summary.add, summary.add_passed  # a fast trace: a result every µs
    for result in results:
        if type(result) is PassedCall:
            add_passed(result.tool)
        else:
            add(result)  # type: ignore[arg-type]
        yield result


def marked(
    results: Iterable[CallResult | PassedCall], matcher: BaselineMatcher
) -> Iterator[CallResult | PassedCall]:
    """``results``, the findings of each marked ``new`` or ``unchanged`` against a
    baseline, in input order (a passed call has none)."""
    for result in results:
        if type(result) is CallResult and result.findings:
            result.findings = matcher.mark(result.findings)
        yield result


#: Results per run when a run in one process encodes them for a JSON report.
_RUN: Final = 4096


def encoded_runs(
    checked: Iterable[CallResult | PassedCall], summary: Summary | None, keep: str
) -> Iterator[ResultRun]:
    """Results counted and encoded for a JSON report, a run of them at a time, as the
    workers of a parallel run hand them back (less work per call than one result at a
    time through the summary and the reporter)."""

    entry = PassedEntries().entry
    entries: list[bytes] = []
    add = entries.append
    every, failed = keep == "all", keep == "failed"
    counted = Summary()
    add_passed, count = counted.add_passed, counted.count
    time = summary.time if summary is not None else None
    left = _RUN  # results before this run is handed on
    for result in checked:
        if type(result) is PassedCall:
            if every:
                add(entry(result))
            add_passed(result.tool)
        else:
            assert type(result) is CallResult
            if every or (result.stage is not None if failed else result.findings):
                add(encode_result(result))
            count(result)
            if time is not None and result.call.result is not None:
                time(result.call)  # in order, into the run's summary
        left -= 1
        if not left:
            if summary is not None:
                summary.merge(counted)
            yield ResultRun(counted, b"\n".join(entries))
            entries, counted, left = [], Summary(), _RUN
            add = entries.append
            add_passed, count = counted.add_passed, counted.count
    if counted.calls:
        if summary is not None:
            summary.merge(counted)
        yield ResultRun(counted, b"\n".join(entries))


def close_run(
    summary: Summary,
    files: int,
    findings: Iterable[Finding],
    matcher: BaselineMatcher | None = None,
    *,
    allow_empty: bool = False,
) -> None:
    """Complete the summary of a run whose results were all counted: its files, then the
    findings over the run (marked against a baseline in order, with ``matcher``), ending
    with ``input.no_calls`` when the run read no call, unless ``allow_empty``."""
    summary.files = files
    found = list(findings)
    if not allow_empty:
        empty = no_calls(summary)
        if empty is not None:
            found.append(empty)
    for finding in matcher.mark(found) if matcher is not None else found:
        summary.add_finding(finding)


def no_calls(summary: Summary) -> Finding | None:
    """The ``input.no_calls`` finding of a run that read no tool call (every result it
    counted stands for a document that could not be read, or there is none), else ``None``.
    Every executor adds it the same way, unless the caller allows an empty run."""
    if summary.calls > summary.unread:
        return None
    return empty_run(summary.files, summary.unread)


def empty_run(files: int, unread: int) -> Finding:
    """The ``input.no_calls`` finding of a run of ``files`` files that read no call, with
    ``unread`` documents it could not read as one (each reported on its own)."""
    named = f"{files} file" + ("" if files == 1 else "s")
    message = f"no tool call was read from the {named} of the run"
    if unread == 1:
        message += " (1 document held none: see its finding)"
    elif unread:
        message += f" ({unread} documents held none: see their findings)"
    return Finding(
        code=codes.INPUT_NO_CALLS,
        severity=Severity.ERROR,
        message=message,
        hint="check that these are the captures you meant; --allow-empty accepts a run "
        "without calls",
    )
