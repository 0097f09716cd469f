"""A progress bar for long streamed runs (``check``), on stderr, that the report does not
collide with.

The bar follows the bytes read out of the total (how far the run is), and says the calls
checked so far and the rate (``184,320 calls · 41,000 calls/s``), with the time left. It is
transient: it disappears when the run ends. While it is shown, a text report going to the
same terminal is printed above it, line by line, through the bar's console (rich's live
display keeps the bar at the bottom), instead of being written under the bar's feet.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable, Iterable, Iterator
from typing import IO, TYPE_CHECKING, Any, Final, TypeVar, cast

if TYPE_CHECKING:
    from types import TracebackType

T = TypeVar("T")
#: Results between two updates of the bar (and the rate).
EVERY: Final = 2048


class CallProgress:
    """A transient bar on stderr: ``checking ━━━━━━╸━━━ 43% 184,320 calls · 41,000 calls/s
    0:00:05``.

    Arguments:
        total: bytes the run will read.
        done: how many bytes have been read so far.
        label: the word before the bar.
    """

    def __init__(self, total: int, done: Callable[[], int], *, label: str = "checking") -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TaskProgressColumn,
            TextColumn,
            TimeRemainingColumn,
        )

        self.console = Console(stderr=True)
        self._done = done
        self._bar = Progress(
            TextColumn(label),
            BarColumn(),
            TaskProgressColumn(),
            TextColumn("{task.fields[calls]}"),
            TimeRemainingColumn(),
            console=self.console,
            transient=True,
        )
        self._task = self._bar.add_task(label, total=total, calls="")
        self.calls = 0
        self._started = 0.0
        self._above: list[_AboveBar] = []

    def __enter__(self) -> CallProgress:
        self._started = time.perf_counter()
        self._bar.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for stream in self._above:
            stream.flush()
        self._bar.stop()

    def track(self, results: Iterable[T]) -> Iterator[T]:
        """Pass results through, counting them."""
        for result in results:
            self.calls += 1
            if self.calls % EVERY == 0:
                self.update()
            yield result
        self.update()

    def update(self) -> None:
        """Redraw with the bytes read, the calls and the rate."""
        elapsed = time.perf_counter() - self._started
        rate = f" · {self.calls / elapsed:,.0f} calls/s" if elapsed > 0.2 else ""
        self._bar.update(self._task, completed=self._done(), calls=f"{self.calls:,} calls{rate}")

    def above(self, stream: IO[bytes]) -> IO[bytes]:
        """``stream`` itself, or, when it is the terminal the bar is on, a stream whose
        lines are printed above the bar."""
        import os

        from jsoncontract.reporters.text import is_terminal

        if not (is_terminal(stream) and self.console.is_terminal):
            return stream
        try:  # the same terminal: stdout and stderr on one device
            same = os.fstat(stream.fileno()).st_rdev == os.fstat(self.console.file.fileno()).st_rdev
        except (OSError, ValueError, io.UnsupportedOperation):
            same = False
        if not same:
            return stream
        above = _AboveBar(self.console, stream)
        self._above.append(above)
        return cast("IO[bytes]", above)


class _AboveBar(io.RawIOBase):
    """A binary stream that prints whole lines through a live console."""

    def __init__(self, console: Any, stream: IO[bytes]) -> None:
        super().__init__()
        self._console = console
        self._stream = stream
        self._pending = b""

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._stream.fileno()

    def write(self, data: Any) -> int:
        from rich.text import Text

        chunk = bytes(data)
        text = self._pending + chunk
        lines = text.split(b"\n")
        self._pending = lines.pop()
        for line in lines:
            self._console.print(
                Text.from_ansi(line.decode("utf-8", "replace")), soft_wrap=True, highlight=False
            )
        return len(chunk)

    def flush(self) -> None:
        if self._pending:
            self.write(b"\n")


__all__ = ["CallProgress"]
