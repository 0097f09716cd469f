"""Checking on every core: the input split between worker processes, the results joined in
input order.

The work is cut into *parts*: each capture file, and a plain (uncompressed) JSONL file larger
than a few megabytes in byte ranges cut at line boundaries, whose first line numbers the
parent counts while it cuts. Worker processes (forked, so they share the loaded tools, rules
and reader) check the parts; the parent takes their results back in input order, so reports
and line numbers are those of a run in one process. At most a few parts per worker are in
flight, so memory stays flat.

Staying exact across workers:

- **Lines that depend on lines before them** (a streamed call whose chunks cross a cut, a
  call that waits for what follows): a worker reports that its part ended with something
  still open. Everything up to that part was exact (nothing was open where it started), so
  the parent discards that part and the rest of its file and reads the file from the start
  of that part on itself, as a run in one process would.
- **Idempotency** (a trace-level check): workers run each call's rules but not the checks
  across calls; for each write call they send a compact :class:`KeyRecord
  <jsoncontract.business.idempotency.KeyRecord>` (hashes, the key, where the call is) and
  the parent's one tracker applies the records in input order and adds what they reveal to
  the call's result.

A worker that dies stops the run with an error naming the part it was checking; Ctrl-C stops
every worker.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._files import compression_of, expand, is_stream
from jsoncontract.capture.reader import CAPTURE_SUFFIXES, JSONL_SUFFIXES
from jsoncontract.errors import JsoncontractError
from jsoncontract.model import CallResult, Hop, PassedCall, ResultRun, Summary, ToolCall
from jsoncontract.pipeline.checker import first_failure, locate

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.business.idempotency import KeyRecord
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.pipeline.checker import Checker
    from jsoncontract.pipeline.fast import Lane

#: The size of the byte ranges a large JSONL file is cut into.
PART_BYTES: Final = 4 * 1024 * 1024
#: Parts in flight per worker.
_AHEAD: Final = 3
_HOPS: Final = {h._value_: h for h in Hop}


class WorkerError(JsoncontractError):
    """A worker process of a parallel run failed."""


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not on every platform
        return os.cpu_count() or 1


def splits(checker: Checker) -> bool:
    """Whether ``checker``'s gates can be split between workers exactly: no business gate,
    or the built-in one (whose only state across calls, idempotency, the parent keeps). A
    gate of another kind may keep state of its own, so it sees every call in one process."""
    from jsoncontract.business.gate import BusinessRules

    return checker.business is None or isinstance(checker.business, BusinessRules)


def can_fork() -> bool:
    """Whether workers can be forked safely here (a POSIX system, one thread running)."""
    return hasattr(os, "fork") and sys.platform != "darwin" and threading.active_count() == 1


@dataclass(frozen=True, slots=True)
class Part:
    """One piece of work: a whole file (``end`` is ``None``), or the lines of a JSONL file
    from byte ``start`` (line ``first_line``) to byte ``end``."""

    file: str
    start: int = 0
    end: int | None = None
    first_line: int = 1
    last: bool = True

    def describe(self) -> str:
        if self.end is None:
            return self.file
        return f"{self.file} (bytes {self.start:,}-{self.end:,}, from line {self.first_line:,})"


def plan(paths: Iterable[str | Path], part_bytes: int | None = None) -> list[Part]:
    """The parts of ``paths``, in input order (``part_bytes``: default :data:`PART_BYTES`)."""
    part_bytes = part_bytes or PART_BYTES
    parts: list[Part] = []
    for path in expand(paths, CAPTURE_SUFFIXES, what="capture"):
        name = str(path)
        splittable = (
            Path(name).suffix.lower() in JSONL_SUFFIXES
            and compression_of(name) is None
            and not is_stream(name)
        )
        size = Path(name).stat().st_size if splittable else 0
        if size < 2 * part_bytes:
            parts.append(Part(name))
            continue
        parts.extend(_cut(name, size, part_bytes))
    return parts


def _cut(name: str, size: int, part_bytes: int) -> list[Part]:
    """Byte ranges of about ``part_bytes`` cut after a line break, with their first line."""
    parts: list[Part] = []
    start, line = 0, 1
    with Path(name).open("rb") as stream:
        while start < size:
            target = start + part_bytes
            if target >= size - part_bytes // 2:
                parts.append(Part(name, start, size, line, last=True))
                break
            stream.seek(start)
            data = stream.read(part_bytes)
            tail = b""
            while True:  # the rest of the line the target falls in
                chunk = stream.readline(1 << 20)
                tail += chunk
                if not chunk or chunk.endswith(b"\n"):
                    break
            end = start + len(data) + len(tail)
            if end >= size:
                parts.append(Part(name, start, size, line, last=True))
                break
            parts.append(Part(name, start, end, line, last=False))
            line += data.count(b"\n") + tail.count(b"\n")
            start = end
    return parts


# -- the worker side --------------------------------------------------------------------------

_WORKER: dict[str, Any] = {}


class _DeferredTrace:
    """The business gate in a worker: a call's rules run here; what the trace-level checks
    need of it is kept as a record for the parent."""

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


def _check_part(part: Part) -> tuple[list[Any], bool]:
    """Check one part in a worker (with what the parent left in ``_WORKER``)."""
    return _run_part(
        part,
        _WORKER["checker"],
        _WORKER["reader"],
        _WORKER["lane"],
        _WORKER["deferred"],
        _WORKER["encoder"],
        _WORKER["keep"],
    )


def _run_part(
    part: Part,
    checker: Checker,
    reader: CaptureReader,
    lane: Lane,
    deferred: _DeferredTrace | None,
    encoder: Any = None,
    keep: str = "all",
) -> tuple[list[Any], bool]:
    """One part's items and whether something was open at its end.

    Without an ``encoder``, passing calls come as tuples and other results as they are.
    With one (a JSON report), consecutive results come as runs, counted and encoded:
    ``(summary, entries)``. A result with a key record comes alone, with its record, for
    the parent to complete. ``keep`` chooses the results a run's entries list (as the
    report's ``results`` option does); its summary counts them all."""
    if part.end is None:
        source: Iterator[Any] = reader.read_file(part.file, lane)
    else:
        source = reader.read_range(
            part.file, part.start, part.end, part.first_line, lane, last=part.last
        )
    items: list[Any] = []
    append = items.append
    check = checker.check
    entries: list[bytes] = []
    counted = Summary()
    if encoder is not None:
        from jsoncontract.reporters.check_json import encode_result

        entry = encoder.entry
    for item in source:
        kind = type(item)
        if kind is PassedCall:
            if encoder is None:
                append((item.tool, item.hop._value_, item.call_id, item.dialect, item.line))
            else:
                if keep == "all":
                    entries.append(entry(item))
                counted.add_passed(item.tool)
            continue
        result = check(item) if kind is ToolCall else item
        if deferred is not None and deferred.record is not None:
            if counted.calls:
                append((counted, b"\n".join(entries)))
                entries, counted = [], Summary()
            append((result, deferred.record))
            deferred.record = None
        elif encoder is not None:
            if keep == "all" or (result.stage is not None if keep == "failed" else result.findings):
                entries.append(encode_result(result))
            counted.add(result)
        else:
            append(result)
    if counted.calls:
        append((counted, b"\n".join(entries)))
    return items, reader.carried if part.end is not None else False


def _start_worker() -> None:
    # the parent stops the workers on Ctrl-C; a worker does not take the signal itself
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# -- the parent side --------------------------------------------------------------------------


def iter_parallel(
    parts: list[Part],
    *,
    checker: Checker,
    reader: CaptureReader,
    jobs: int,
    summary: Summary | None,
    runs: bool = False,
    keep: str = "all",
) -> Iterator[CallResult | PassedCall | ResultRun]:
    """Every result of ``parts``, in input order, checked by ``jobs`` worker processes;
    with ``runs`` (a JSON report), results come as :class:`~jsoncontract.model.ResultRun`
    values, counted and encoded by the workers."""
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.pipeline.checker import Checker as CheckerClass

    business = checker.business
    tracker = business.tracker if isinstance(business, BusinessRules) else None
    worker_checker = checker
    deferred = None
    if isinstance(business, BusinessRules) and tracker is not None:
        deferred = _DeferredTrace(business)
        worker_checker = CheckerClass(
            checker.tools, business=deferred, show_values=checker.show_values
        )
    from jsoncontract.pipeline.fast import build_lane

    worker_lane = build_lane(worker_checker, reader) or _no_lane
    encoder = None
    if runs:
        from jsoncontract.reporters.check_json import PassedEntries

        encoder = PassedEntries()
    _WORKER.update(
        checker=worker_checker,
        reader=reader,
        lane=worker_lane,
        deferred=deferred,
        encoder=encoder,
        keep=keep,
    )
    tools = checker.tools
    add = summary.add if summary is not None else None
    add_passed = summary.add_passed if summary is not None else None
    files_seen: set[str] = set()
    import multiprocessing  # here: --help and a one-call check do not pay for them
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_start_worker)
    pending: deque[tuple[Part, Future[tuple[list[Any], bool]]]] = deque()
    queue = iter(parts)
    skip_file: str | None = None
    try:
        unsent: list[Part] = []  # a part the pool refused: a worker died meanwhile

        def refill() -> None:
            while len(pending) < jobs * _AHEAD and not unsent:
                part = next(queue, None)
                if part is None:
                    return
                try:
                    pending.append((part, pool.submit(_check_part, part)))
                except BrokenProcessPool:
                    unsent.append(part)

        refill()
        while pending:
            part, future = pending.popleft()
            if part.file == skip_file:
                future.cancel()
                refill()
                continue
            try:
                items, carried = future.result()
            except BrokenProcessPool:
                raise WorkerError(
                    f"a worker process died while checking {part.describe()}; nothing was "
                    "written (run with --jobs 1 to check in one process)"
                ) from None
            refill()
            files_seen.add(part.file)
            # what a progress bar follows: the bytes of the parts done (workers read them)
            end = part.end if part.end is not None else Path(part.file).stat().st_size
            reader.bytes_read += end - part.start
            if carried:
                # something was open at the end of this part: read the file from the start
                # of this part on, here, as one process would
                skip_file = part.file
                size = Path(part.file).stat().st_size
                rest = Part(part.file, part.start, size, part.first_line, last=True)
                items, _ = _run_part(rest, worker_checker, reader, worker_lane, deferred, encoder)
            for item in items:
                kind = type(item)
                if kind is tuple and len(item) == 5:
                    tool, hop, call_id, dialect, line = item
                    if add_passed is not None:
                        add_passed(tool)
                    yield PassedCall(tool, _HOPS[hop], call_id, dialect, part.file, line, "", None)
                    continue
                if kind is tuple and type(item[0]) is Summary:
                    if summary is not None:
                        summary.merge(item[0])
                    yield ResultRun(item[0], item[1])
                    continue
                if kind is tuple:
                    result, record = item
                    contract = tools.get(result.call.tool or "")
                    found = (
                        tracker.apply(record, contract)
                        if tracker is not None and contract is not None
                        else []
                    )
                    if found:
                        findings = result.findings + locate(found, result.call)
                        result = CallResult(
                            result.call, findings, first_failure(findings), result.arguments
                        )
                else:
                    result = item
                if add is not None:
                    add(result)
                yield result
        if unsent:
            raise WorkerError(
                f"a worker process died before {unsent[0].describe()} was checked; nothing "
                "was written (run with --jobs 1 to check in one process)"
            )
    except BaseException:  # an error, Ctrl-C, or the reader of the results stopping
        _stop(pool)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        _WORKER.clear()
    reader.files = len(files_seen)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop every worker now (Ctrl-C, an error): pending parts are dropped."""
    processes = list(getattr(pool, "_processes", None) or {})
    for process in (getattr(pool, "_processes", None) or {}).values():
        if process.is_alive():
            process.terminate()
    # the pool's own thread sees its workers gone and ends; waiting for it leaves nothing
    # behind for the interpreter's exit
    pool.shutdown(wait=True, cancel_futures=True)
    del processes


def _no_lane(file: str, number: int, line: bytes) -> None:
    return None
