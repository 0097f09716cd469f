"""The one place that tunes Python's garbage collector.

A run of jsoncontract allocates millions of short-lived objects (JSON nodes, findings,
schema walks) and holds few reference cycles; reference counting frees what each call,
case or tool leaves behind as soon as it is done. The cyclic collector, triggered every
700 allocations, would only walk the growing set of live objects again and again: with
it running, ``lint --profile all`` on 2,000 tools takes a third more CPU time, ``pin`` on
them a tenth more, and ``test`` on 1,500 suites (51,000 cases) two fifths more. Memory does
not grow without it: ``check`` over 500,000 calls peaks at 74 MB with the collector running
and paused, ``test`` on those suites at 310 MB.

:func:`collector_paused` pauses it for the length of a run. The command line pauses it
once, for every command (:func:`jsoncontract.cli.run`); a library entry point that does
bulk work on its own (:meth:`jsoncontract.lint.engine.Linter.lint_sources`) pauses it too.
Pausing nests: the state found is the state restored.
"""

from __future__ import annotations

import gc
from types import TracebackType


class collector_paused:  # named as a function: ``with collector_paused():``
    """Pause the cyclic garbage collector for a ``with`` block (reference counting still
    frees memory); restore the state it was in.

    A class rather than a generator: leaving the block allocates nothing, so the collection
    the paused allocations are owed is paid by the caller's next allocation, as it would be
    without the block, not inside it.
    """

    __slots__ = ("_running",)

    def __enter__(self) -> None:
        self._running = gc.isenabled()
        gc.disable()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self._running:
            gc.enable()
