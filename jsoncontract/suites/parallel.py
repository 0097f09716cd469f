"""Spreading suite work over processes: ``--jobs`` for ``fixtures`` and ``test``.

Generating and running suites is the same work repeated per tool, so it splits cleanly:
the items (tools, suite files) are dealt into one batch per worker, each worker handles its
batch, and the results come back in the original order, so a report does not depend on the
number of jobs. Workers are forked, so they share the tool set already loaded and compiled
(and any business rules) without reloading anything; where the platform cannot fork, the
work runs in this process. An error raised in a worker (an invalid suite file) is raised
again here, with its location.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from typing import Any, Final, TypeVar

from jsoncontract import errors

T = TypeVar("T")
R = TypeVar("R")

#: Below this many items, ``jobs=0`` (automatic) stays in one process: forking costs more.
AUTO_THRESHOLD: Final = 64

_task: Callable[[Any], Any] | None = None  # the function workers apply (set before forking)


def can_fork() -> bool:
    """Whether worker processes can be forked here."""
    return "fork" in multiprocessing.get_all_start_methods()


def worker_count(jobs: int, items: int) -> int:
    """How many processes to use: ``jobs`` (0 = one per CPU when there is enough work),
    never more than there are items, and 1 where forking is not available."""
    if jobs == 1 or items < 2 or not can_fork():
        return 1
    if jobs <= 0:
        if items < AUTO_THRESHOLD:
            return 1
        jobs = os.cpu_count() or 1
    return max(1, min(jobs, items))


def map_in_workers(function: Callable[[T], R], items: Sequence[T], *, jobs: int = 1) -> list[R]:
    """``[function(item) for item in items]``, spread over worker processes.

    ``function`` and its results must be picklable for the results to come back; the
    function itself is inherited by the forked workers, never pickled.

    Raises:
        JsoncontractError: as raised by ``function`` in a worker.
    """
    count = worker_count(jobs, len(items))
    if count == 1:
        return [function(item) for item in items]
    global _task
    _task = function
    batches: list[list[tuple[int, T]]] = [[] for _ in range(count)]
    for index, item in enumerate(items):
        batches[index % count].append((index, item))
    try:
        with multiprocessing.get_context("fork").Pool(count) as pool:
            parts = pool.map(_run_batch, batches)
    finally:
        _task = None
    results: list[Any] = [None] * len(items)
    for part in parts:
        for index, outcome in part:
            if isinstance(outcome, _Failure):
                outcome.reraise()
            results[index] = outcome
    return results


class _Failure:
    """A :class:`~jsoncontract.errors.JsoncontractError` carried back from a worker."""

    def __init__(self, exc: errors.JsoncontractError) -> None:
        self.kind = type(exc).__name__
        self.module = type(exc).__module__
        self.message = exc.message
        self.where = (exc.file, exc.line, exc.column)

    def reraise(self) -> None:
        import importlib

        cls = getattr(importlib.import_module(self.module), self.kind, errors.JsoncontractError)
        file, line, column = self.where
        raise cls(self.message, file=file, line=line, column=column)


def _run_batch(batch: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    assert _task is not None
    out: list[tuple[int, Any]] = []
    for index, item in batch:
        try:
            out.append((index, _task(item)))
        except errors.JsoncontractError as exc:
            out.append((index, _Failure(exc)))
            break
    return out
