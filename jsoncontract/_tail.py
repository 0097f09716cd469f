"""The lines of a growing file, followed as ``tail -F`` follows it, until told to stop.

A :class:`Tail` follows a path by name: it reads the file from its start, then each line as
its line break is written (what follows the last line break waits for the rest). When the
file at the path is replaced (a rotation: renamed away, and created again), what the old
file still holds is read to its end first, then the new file from its start; when the file
is cut shorter than what was read (a truncation: ``> file``, ``copytruncate``), it is read
again from its start. Either way the lines of the new file are numbered from 1. The
iteration gives a ``None`` where each file starts, before its lines. A path that does not
exist yet is waited for. Standard input (``-``) and a named pipe are read until they end.

Nothing here blocks longer than :attr:`Follow.poll`: between two looks at an idle file,
:attr:`Follow.stop` is checked. Once it is set (the command line sets it on Ctrl-C and on
``SIGTERM``), what was written by then is read, the last line even without its line break,
and the iteration ends, so that the run can end as it ends at the end of a file.
"""

from __future__ import annotations

import os
import select
import stat
import sys
import threading
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from jsoncontract.errors import InputError

#: Bytes read at a time.
_CHUNK: Final = 1 << 20
#: What a pipe is read at most once stopped (a writer faster than the reader never ends).
_STOP_READ: Final = 64 << 20


@dataclass(frozen=True, slots=True)
class Follow:
    """How a growing capture is followed.

    ``stop``: set it to end the run (what was written by then is read first); ``poll``: the
    seconds between two looks at an idle file (the longest a written line waits to be
    read); ``idle``: called whenever the input goes quiet after a line; ``notify``: told, in
    a sentence, when the file is waited for, replaced or truncated.
    """

    stop: threading.Event = field(default_factory=threading.Event)
    poll: float = 0.1
    idle: Callable[[], None] | None = None
    notify: Callable[[str], None] | None = None

    def said(self, message: str) -> None:
        if self.notify is not None:
            self.notify(message)


#: One item of a :class:`Tail`: a numbered line (``None`` for a line longer than the
#: limit, which is skipped unread), or ``None`` where a file starts.
Item = tuple[int, bytes | None] | None


class Tail:
    """The lines of the file ``path`` (``-``: standard input) as they are written.

    Raises (when iterated):
        InputError: the path is a directory, or cannot be read.
    """

    def __init__(self, path: str, follow: Follow, *, max_line_bytes: int) -> None:
        self.path = path
        self.follow = follow
        self.max_line_bytes = max_line_bytes

    def __iter__(self) -> Iterator[Item]:
        if self.path == "-":
            try:
                fd = sys.stdin.buffer.fileno()
            except (AttributeError, OSError, ValueError):  # closed, or no file (embedded)
                closed = sys.stdin is None or getattr(sys.stdin, "closed", False)
                why = "it is closed" if closed else "it is no file or pipe"
                raise InputError(f"cannot follow: {why}", file="-") from None
            yield None
            yield from self._pipe(fd)
            return
        first = True
        while True:
            fd = self._open(first)
            if fd is None:  # stopped before the file appeared
                return
            first = False
            try:
                yield None
                if stat.S_ISFIFO(os.fstat(fd).st_mode):
                    yield from self._pipe(fd)
                    return
                if not (yield from self._file(fd)):
                    return
            finally:
                os.close(fd)

    def _open(self, first: bool) -> int | None:
        """The file at the path, opened, once it exists (``None``: stopped first)."""
        follow, said = self.follow, False
        while True:
            try:
                fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            except FileNotFoundError:
                if follow.stop.is_set():
                    return None
                if first and not said:
                    follow.said(f"waiting for {self.path} to appear")
                    said = True
                follow.stop.wait(follow.poll)
                continue
            except OSError as exc:
                raise InputError(f"cannot read: {exc.strerror or exc}", file=self.path) from None
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                os.close(fd)
                raise InputError("is a directory; --follow follows one file", file=self.path)
            if not stat.S_ISFIFO(mode):
                os.set_blocking(fd, True)
            return fd

    def _file(self, fd: int) -> Generator[Item, None, bool]:
        """One file's lines, until it is replaced or truncated (returns ``True``: follow the
        next file) or the run stops (``False``)."""
        follow = self.follow
        lines = _Lines(self.max_line_bytes)
        own = os.fstat(fd)
        read = 0
        limit: int | None = None  # once stopped: the size to read up to
        quiet = True  # the last look found nothing new
        while True:
            if limit is None and follow.stop.is_set():
                limit = os.fstat(fd).st_size  # read what was written by then, and no more
            size = _CHUNK if limit is None else min(_CHUNK, limit - read)
            chunk = os.read(fd, size) if size > 0 else b""
            if chunk:
                read += len(chunk)
                quiet = False
                yield from lines.feed(chunk)
                continue
            if limit is not None:
                yield from lines.end()
                return False
            if os.fstat(fd).st_size < read:
                yield from lines.end()
                follow.said(f"{self.path} was truncated: reading it from its start")
                return True
            try:
                now = Path(self.path).stat()
            except FileNotFoundError:
                now = None  # renamed away, and not created again yet: the old file is read
            if now is not None and (now.st_ino, now.st_dev) != (own.st_ino, own.st_dev):
                chunk = os.read(fd, _CHUNK)  # what was written before the replacement
                if chunk:
                    read += len(chunk)
                    yield from lines.feed(chunk)
                    continue
                yield from lines.end()
                follow.said(f"{self.path} was replaced: following the new file")
                return True
            if not quiet:
                quiet = True
                if follow.idle is not None:
                    follow.idle()
            follow.stop.wait(follow.poll)

    def _pipe(self, fd: int) -> Iterator[Item]:
        """A pipe's lines until it ends, or, once stopped, until what it holds is read."""
        follow = self.follow
        lines = _Lines(self.max_line_bytes)
        quiet = True
        left: int | None = None  # once stopped: what may still be read
        while True:
            stopped = follow.stop.is_set()
            if stopped and left is None:
                left = _STOP_READ
            try:
                ready, _, _ = select.select([fd], [], [], 0 if stopped else follow.poll)
            except InterruptedError:  # pragma: no cover - retried by Python since 3.5
                continue
            if not ready:
                if stopped:
                    yield from lines.end()
                    return
                if not quiet:
                    quiet = True
                    if follow.idle is not None:
                        follow.idle()
                continue
            try:
                chunk = os.read(fd, _CHUNK)
            except BlockingIOError:
                continue
            if not chunk:  # the writer closed it
                yield from lines.end()
                return
            quiet = False
            yield from lines.feed(chunk)
            if left is not None:
                left -= len(chunk)
                if left <= 0:
                    yield from lines.end()
                    return


class _Lines:
    """Cuts bytes into numbered lines (without their line breaks); a line longer than
    ``limit`` is skipped, never held, and given as ``None``."""

    __slots__ = ("held", "limit", "number", "pending", "skipping")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.number = 0
        self.pending: list[bytes] = []
        self.held = 0
        self.skipping = False

    def feed(self, chunk: bytes) -> Iterator[Item]:
        start = 0
        while True:
            cut = chunk.find(b"\n", start)
            if cut < 0:
                break
            piece = chunk[start:cut]
            start = cut + 1
            self.number += 1
            if self.skipping or self.held + len(piece) > self.limit:
                yield self.number, None
            else:
                yield self.number, b"".join(self.pending) + piece if self.pending else piece
            self.pending, self.held, self.skipping = [], 0, False
        rest = chunk[start:]
        if rest and not self.skipping:
            self.held += len(rest)
            if self.held > self.limit:
                self.pending, self.held, self.skipping = [], 0, True
            else:
                self.pending.append(rest)

    def end(self) -> Iterator[Item]:
        """The last line, without its line break, if there is one."""
        if self.skipping or self.pending:
            self.number += 1
            yield self.number, None if self.skipping else b"".join(self.pending)
        self.pending, self.held, self.skipping = [], 0, False
