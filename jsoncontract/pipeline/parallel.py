"""Checking on every core: the forked-workers executor of the runner
(:mod:`jsoncontract.pipeline.runner`).

The parts the runner planned are checked by worker processes, forked so that they share the
loaded tools, rules and reader; the parent joins their outcomes in input order, so reports
and line numbers are those of a run in one process. At most a few parts per worker are in
flight, so memory stays flat. A trace that carries results cannot be split past its first
result: from the part where the run's ledger starts expecting results, the parent reads the
rest itself and the workers stop.

A worker that dies stops the run with an error naming the part it was checking; Ctrl-C stops
every worker.
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.errors import JsoncontractError
from jsoncontract.model import CallResult, Hop, PassedCall, ResultRun, Summary
from jsoncontract.pipeline.runner import (
    DeferredTrace,
    Join,
    Outcome,
    Part,
    Worker,
    close_run,
    counted,
    encoded_runs,
    marked,
    with_keys,
)

if TYPE_CHECKING:
    from concurrent.futures import Future, ProcessPoolExecutor

    from jsoncontract.baseline import BaselineMatcher
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.pipeline.checker import Checker

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


def can_fork() -> bool:
    """Whether workers can be forked safely here (a POSIX system, one thread running)."""
    return hasattr(os, "fork") and sys.platform != "darwin" and threading.active_count() == 1


# -- the worker side --------------------------------------------------------------------------


_WORKER: dict[str, Worker] = {}


def _check_part(part: Part, first: bool) -> Outcome:
    """Check one part in a worker process (with what the parent left in ``_WORKER``)."""
    return _WORKER["worker"].part(part, first)


#: Signals held while the workers are forked (see :func:`_signals_held`).
_HELD: Final = frozenset(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextmanager
def _signals_held() -> Iterator[None]:
    """While workers may be forked, Ctrl-C (and SIGTERM, SIGHUP) wait until the block
    ends, then take effect.

    Python runs its own callbacks around a fork (logging's locks, the random module's
    reseeding), and an exception a signal handler raises in one of them is printed and
    dropped: Ctrl-C there was lost and the run went on to the end (exit 1 instead of 130),
    and a worker stopped there printed a traceback. Held, a signal is taken here after the
    fork; a worker inherits it held, and lets it through once its own handlers are set.
    """
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - not on POSIX
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, _HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _start_worker() -> None:
    # the parent stops the workers on Ctrl-C; a worker does not take the signal itself
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # and terminates them: a worker forked while the report was being written must not
    # keep the handlers that clean that output up (jsoncontract._files.output_file)
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # forked with them held (_signals_held)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _HELD)


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
    matcher: BaselineMatcher | None = None,
    allow_empty: bool = False,
) -> Iterator[CallResult | PassedCall | ResultRun]:
    """Every result of ``parts``, in input order, checked by ``jobs`` worker processes and
    joined as the module says; with ``runs`` (a JSON report), results come as
    :class:`~jsoncontract.model.ResultRun` values, counted and encoded by the workers.
    ``matcher`` (not with ``runs``) marks findings against a baseline, in input order.
    ``summary`` is completed at the end (files, and the findings over the run, with
    ``input.no_calls`` for a run that read no call unless ``allow_empty``)."""
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.pipeline.checker import Checker as CheckerClass
    from jsoncontract.pipeline.contracts import SessionContracts
    from jsoncontract.pipeline.fast import build_lane

    business = checker.business
    tracker = business.tracker if isinstance(business, BusinessRules) else None
    deferred = DeferredTrace(business) if isinstance(business, BusinessRules) else None
    session = checker.session
    worker_checker = CheckerClass(
        checker.tools,
        business=deferred if deferred is not None and tracker is not None else business,
        results=checker.results,
        session=SessionContracts(session.tools, session.settings)
        if isinstance(session, SessionContracts)
        else None,
        show_values=checker.show_values,
    )
    if tracker is None:
        deferred = None
    worker = Worker(
        worker_checker,
        reader,
        build_lane(worker_checker, reader),
        deferred,
        runs=runs,
        keep=keep,
    )
    run = Join(checker, reader, build_lane(checker, reader))
    tools = checker.tools
    add = summary.add if summary is not None else None
    add_passed = summary.add_passed if summary is not None else None
    files = sum(1 for part in parts if part.start == 0)

    def here(results: Iterator[CallResult | PassedCall]) -> Iterator[Any]:
        """What the parent read itself, marked, counted and encoded as the report wants."""
        if matcher is not None:
            results = marked(results, matcher)
        if runs:
            yield from encoded_runs(results, summary, keep)
        elif summary is not None:
            yield from counted(results, summary)
        else:
            yield from results

    _WORKER["worker"] = worker
    import multiprocessing  # here: --help and a one-call check do not pay for them
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("fork")
    pool: ProcessPoolExecutor | None = ProcessPoolExecutor(
        jobs, mp_context=context, initializer=_start_worker
    )
    pending: deque[tuple[Part, Future[Outcome] | None]] = deque()
    queue: Iterator[tuple[int, Part]] = iter(enumerate(parts))
    sequential = False
    try:
        unsent: list[Part] = []  # a part the pool refused: a worker died meanwhile

        def refill() -> None:
            with _signals_held():  # a submit may fork the workers
                while pool is not None and len(pending) < jobs * _AHEAD and not unsent:
                    nxt = next(queue, None)
                    if nxt is None:
                        return
                    index, part = nxt
                    try:
                        pending.append((part, pool.submit(_check_part, part, index == 0)))
                    except BrokenProcessPool:
                        unsent.append(part)

        refill()
        index = -1
        while pending or sequential:
            if pending:
                part, future = pending.popleft()
            else:
                nxt = next(queue, None)
                if nxt is None:
                    break
                part, future = nxt[1], None
            index += 1
            outcome: Outcome | None = None
            if future is not None:
                try:
                    outcome = future.result()
                except BrokenProcessPool:
                    raise WorkerError(
                        f"a worker process died while checking {part.describe()}; nothing was "
                        "written (run with --jobs 1 to check in one process)"
                    ) from None
                except JsoncontractError:  # bad input: read here, it fails where it should
                    outcome = None
                refill()
            # what a progress bar follows: the bytes of the parts done
            end = part.end if part.end is not None else Path(part.file).stat().st_size
            if part.file in run.abandoned:  # the rest of a file that failed to read
                reader.bytes_read += end - part.start
                continue
            if outcome is None or not run.takes(frozenset((part.file,)), outcome, index == 0):
                yield from here(run.read(part))
                run.started = True
                if run.ledger.expects_results and pool is not None:
                    # results cannot be split: the rest is read here
                    sequential = True
                    _stop(pool)
                    pool = None
                    queue = itertools.chain([(-1, left) for left, _ in pending], queue)
                    pending.clear()
                reader.bytes_read += end - part.start
                continue
            run.started = True
            reader.bytes_read += end - part.start
            for item in outcome.items:
                kind = type(item)
                if kind is tuple and len(item) == 5:
                    tool, hop, call_id, dialect, line = item
                    if add_passed is not None:
                        add_passed(tool)
                    yield PassedCall(tool, _HOPS[hop], call_id, dialect, part.file, line, "", None)
                    continue
                if kind is tuple and type(item[0]) is int:  # a run of entries: its count
                    yield ResultRun(Summary(calls=item[0]), item[1])
                    continue
                if kind is tuple and type(item[0]) is Summary:  # the part's runs, counted
                    if summary is not None:
                        summary.merge(item[0])
                    continue
                if kind is tuple:
                    result, record = item
                    contract = tools.get(result.call.tool or "", result.call.hop)
                    found = (
                        tracker.apply(record, contract)
                        if record is not None and tracker is not None and contract is not None
                        else []
                    )
                    if found:
                        result = with_keys(result, found)
                else:
                    result = item
                if matcher is not None and result.findings:
                    result.findings = matcher.mark(result.findings)
                if add is not None:
                    add(result)
                yield result
        if unsent:
            raise WorkerError(
                f"a worker process died before {unsent[0].describe()} was checked; nothing "
                "was written (run with --jobs 1 to check in one process)"
            )
        yield from here(run.finish())
    except BaseException:  # an error, Ctrl-C, or the reader of the results stopping
        if pool is not None:
            _stop(pool)
        raise
    else:
        if pool is not None:
            pool.shutdown(wait=True)
    finally:
        _WORKER.clear()
    if summary is not None:
        close_run(summary, files, checker.findings, matcher, allow_empty=allow_empty)


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop every worker now (Ctrl-C, an error): pending parts are dropped."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:  # one busy in a C call may not take SIGTERM at once
        process.join(2)
        if process.is_alive():
            process.kill()
            process.join()
    # A worker stopped while it sent a result leaves part of it in the pipe, and the pool's
    # thread waits for the rest. With every worker gone, this process holds the pipe's last
    # writing end: closing it ends the pipe, and the thread reads the end and stops.
    writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    if writer is not None:
        writer.close()
    # the pool's own thread sees its workers gone and ends; waiting for it leaves nothing
    # behind for the interpreter's exit
    pool.shutdown(wait=True, cancel_futures=True)
