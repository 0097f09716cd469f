"""The reporter interface: results in, bytes out.

``check`` results stream (a trace can hold millions of calls), so a check reporter receives
results one at a time and the summary at the end, writing to a binary stream as it goes.
Reporters never decide the exit code and never read input.
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, Summary


@dataclass(frozen=True, slots=True)
class ReportOptions:
    """How a person wants to see the report.

    ``color``: ``None`` decides from the stream (a terminal, and ``NO_COLOR`` unset).
    ``max_shown``: failing calls shown in full by the text reporter (0 = all).
    ``verbose``: show passing calls too. ``quiet``: show only the summary.
    """

    color: bool | None = None
    max_shown: int = 50
    verbose: bool = False
    quiet: bool = False
    width: int | None = None


def wants_color(stream: IO[bytes], option: bool | None) -> bool:
    """Whether to style output: an explicit choice wins, then ``NO_COLOR``, then a TTY."""
    if option is not None:
        return option
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


class CheckReporter(ABC):
    """Streams a ``check`` report.

    Arguments:
        stream: where to write (binary).
        options: presentation choices.
    """

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        self.stream = stream
        self.options = options

    @abstractmethod
    def add(self, result: CallResult) -> None:
        """Take one result (in capture order)."""

    @abstractmethod
    def close(self, summary: Summary) -> None:
        """Write whatever is left, ending with the summary."""
