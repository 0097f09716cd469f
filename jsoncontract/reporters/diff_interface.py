"""The ``diff`` reporter interface: call diffs in, bytes out.

Like ``check``, a diff over a trace streams: a reporter receives one
:class:`~jsoncontract.diff.model.CallDiff` at a time and the summary at the end. Reporters
never decide the exit code, never read input, and see only the diff's own data types.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from jsoncontract.diff.model import CallDiff, DiffSummary


@dataclass(frozen=True, slots=True)
class DiffReportOptions:
    """How a person wants to see a diff.

    ``rows``: ``auto`` (every member when a call has few, else only the changed ones),
    ``all`` or ``changed``. ``verbose``: show calls whose hops agree too (a diff of hop
    files always shows its call). ``max_shown``: calls shown in full (0 = all).
    ``width``: the terminal width to lay the table out for (``None``: detect).
    """

    color: bool | None = None
    rows: str = "auto"
    verbose: bool = False
    quiet: bool = False
    max_shown: int = 50
    width: int | None = None
    show_values: bool = False


class DiffReporter(ABC):
    """Streams a ``diff`` report.

    Arguments:
        stream: where to write (binary).
        options: presentation choices.
    """

    def __init__(self, stream: IO[bytes], options: DiffReportOptions) -> None:
        self.stream = stream
        self.options = options

    @abstractmethod
    def add(self, result: CallDiff) -> None:
        """Take one call (in trace order)."""

    @abstractmethod
    def close(self, summary: DiffSummary) -> None:
        """Write whatever is left, ending with the summary where the format has one."""
