"""Long ``fixtures`` and ``test`` runs: a transient progress bar on stderr, and fewer
passes of the garbage collector over what a test run keeps."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: Fewer items than this finish before a bar helps.
MIN_ITEMS = 200
#: Allocations between two young-generation passes of the garbage collector in a long run
#: (the default is 700).
GC_THRESHOLD = 10_000

Progress = Callable[[int, int], None]


@contextmanager
def item_progress(label: str, *, enabled: bool) -> Iterator[Progress | None]:
    """A ``(done, total)`` callback drawing a bar on stderr (``None`` when disabled).

    The bar appears only once the total is known to be at least :data:`MIN_ITEMS`, and
    disappears when the run ends.
    """
    if not enabled:
        yield None
        return
    state: dict[str, Any] = {}

    def update(done: int, total: int) -> None:
        if total < MIN_ITEMS:
            return
        bar = state.get("bar")
        if bar is None:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
            bar = state["bar"] = Progress(*columns, console=Console(stderr=True), transient=True)
            bar.start()
            state["task"] = bar.add_task(label, total=total)
        bar.update(state["task"], completed=done)

    try:
        yield update
    finally:
        if "bar" in state:
            state["bar"].stop()


@contextmanager
def fewer_gc_passes() -> Iterator[None]:
    """Raise the garbage collector's first threshold for the length of a run.

    A test run keeps every suite it reads (the report points into them), and the
    collector, triggered every 700 allocations, walks that growing heap again and again:
    about a fifth of the CPU time of ``jsoncontract test`` on 2,000 suites. Reference
    counting still frees what each case leaves behind at once; only cycles wait longer.
    """
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], GC_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)
