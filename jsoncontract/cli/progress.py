"""A transient progress bar on stderr for long ``fixtures`` and ``test`` runs."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

#: Fewer items than this finish before a bar helps.
MIN_ITEMS = 200

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
