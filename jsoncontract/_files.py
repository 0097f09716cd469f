"""Reading input files safely: existence, size limits, directories, stdin."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Final

from jsoncontract._json import NotJSON, load
from jsoncontract.errors import InputError

if TYPE_CHECKING:
    from jsoncontract.model import Anomaly

#: A single JSON document larger than this is refused (JSONL traces stream and have no limit).
MAX_DOCUMENT_BYTES: Final = 256 * 1024 * 1024
STDIN: Final = "-"


def expand(paths: Iterable[str | Path], suffixes: tuple[str, ...], *, what: str) -> list[Path]:
    """Files named directly, plus every file with one of ``suffixes`` under named directories.

    A suffix may hold several dots (``.suite.json``): it is matched against the name's end.

    Raises:
        InputError: a path does not exist, or a directory holds no matching file.
    """
    out: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(
                p
                for p in path.rglob("*")
                if p.is_file()
                and p.name.lower().endswith(suffixes)
                and not any(part.startswith(".") for part in p.relative_to(path).parts)
            )
            if not found:
                raise InputError(
                    f"directory has no {what} files ({', '.join('*' + s for s in suffixes)})",
                    file=str(path),
                )
            out.extend(found)
        elif path.exists() or str(raw) == STDIN:  # files, pipes, /dev/fd/N, stdin
            out.append(path)
        else:
            raise InputError("no such file or directory", file=str(path))
    return out


def read_bytes(path: Path | str, *, max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The whole content of a file (or stdin for ``-``), refusing empty and oversized input.

    Raises:
        InputError: the file cannot be read, is empty, or is larger than ``max_bytes``.
    """
    name = str(path)
    try:
        if name == STDIN:
            data = sys.stdin.buffer.read(max_bytes + 1)
        else:
            with Path(path).open("rb") as stream:
                size = os.fstat(stream.fileno()).st_size
                if size > max_bytes:
                    raise InputError(
                        f"file is {size / 1e6:.1f} MB, over the {max_bytes / 1e6:.0f} MB limit "
                        "for one JSON document; write captures as JSONL (one event per line), "
                        "which is streamed without a limit",
                        file=name,
                    )
                # one byte past the size shows the end; a pipe or a device (/dev/zero) has
                # no size, and a growing file a wrong one: read on, but not past the limit
                data = stream.read(size + 1)
                if len(data) > size:
                    data += stream.read(max_bytes + 1 - len(data))
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None
    if len(data) > max_bytes:
        raise InputError(f"input is over the {max_bytes / 1e6:.0f} MB limit", file=name)
    if not data.strip():
        raise InputError("file is empty", file=name)
    return data


def load_document(
    path: Path | str, data: bytes | None = None
) -> tuple[object, tuple[Anomaly, ...]]:
    """Read and parse one JSON document file.

    Raises:
        InputError: unreadable, empty, too large, or not JSON (with line, column and why).
    """
    if data is None:
        data = read_bytes(path)
    try:
        return load(data)
    except NotJSON as exc:
        d = exc.diagnosis
        raise InputError(
            f"not JSON ({d.fault}): {d.message}",
            file=str(path),
            line=d.line,
            column=d.column,
        ) from None


def iter_lines(path: Path | str, *, max_line_bytes: int) -> Iterator[tuple[int, bytes | None]]:
    """Lines of a file (or stdin) as ``(line_number, bytes)``, streamed.

    A line longer than ``max_line_bytes`` is skipped without being held in memory and
    yielded as ``(line_number, None)``.

    Raises:
        InputError: the file cannot be opened.
    """
    return lines_of(open_stream(path), max_line_bytes)


def is_stream(path: Path | str) -> bool:
    """Whether ``path`` is stdin or a pipe (read once, front to back, size unknown)."""
    name = str(path)
    if name == STDIN:
        return True
    try:
        return stat.S_ISFIFO(Path(path).stat().st_mode)
    except OSError:
        return False


def open_stream(path: Path | str) -> IO[bytes]:
    """A binary stream for stdin (``-``) or a named file or pipe."""
    name = str(path)
    if name == STDIN:
        return sys.stdin.buffer
    try:
        return Path(path).open("rb")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None


def lines_of(
    stream: IO[bytes], max_line_bytes: int, *, first: int = 1
) -> Iterator[tuple[int, bytes | None]]:
    """Numbered lines of an open binary stream (closed at the end unless it is stdin)."""
    try:
        number = first - 1
        while True:
            line = stream.readline(max_line_bytes + 1)
            if not line:
                return
            number += 1
            if len(line) > max_line_bytes and not line.endswith(b"\n"):
                while True:  # drain the rest of the oversized line
                    chunk = stream.readline(1 << 20)
                    if not chunk or chunk.endswith(b"\n"):
                        break
                yield number, None
                continue
            yield number, line
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
