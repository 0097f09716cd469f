"""Reading input files safely: existence, size limits, directories, stdin."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, TYPE_CHECKING, Final

from jsoncontract._json import NotJSON, load
from jsoncontract.errors import InputError

if TYPE_CHECKING:
    from typing import Protocol

    from jsoncontract._yaml import YamlDocument
    from jsoncontract.model import Anomaly

    class Positions(Protocol):
        """Positions of a document's nodes (:class:`~jsoncontract._locate.PositionIndex`
        for JSON, :class:`~jsoncontract._yaml.YamlPositions` for YAML)."""

        @property
        def repeated_keys(self) -> int: ...

        def knows(self, pointer: str) -> bool: ...

        def position(self, pointer: str) -> tuple[int, int] | None: ...


#: A single JSON document larger than this is refused (JSONL traces stream and have no limit).
MAX_DOCUMENT_BYTES: Final = 256 * 1024 * 1024
STDIN: Final = "-"


@dataclass(frozen=True, slots=True)
class Found:
    """A file to read: ``named`` on the command line, or found under a named directory
    (where a file that is not what the command reads is skipped, not an error)."""

    path: Path
    named: bool


def excluded(path: Path, patterns: Sequence[str], base: Path | None = None) -> bool:
    """Whether ``path`` matches one of the glob ``patterns``: its name, its path relative
    to ``base`` (the directory it was found in) or its path as given. ``**`` crosses
    directories; a pattern ending in ``/`` matches a directory and everything in it."""
    if not patterns:
        return False
    names = {path.as_posix(), path.name}
    if base is not None:
        with contextlib.suppress(ValueError):  # not below it
            names.add(path.relative_to(base).as_posix())
    for pattern in patterns:
        folder = pattern.rstrip("/")
        for name in names:
            if fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(name, folder):
                return True
            parts = PurePosixPath(name).parts
            if any(
                fnmatch.fnmatchcase("/".join(parts[: i + 1]), folder) for i in range(len(parts) - 1)
            ):
                return True
    return False


def find(
    paths: Iterable[str | Path],
    suffixes: tuple[str, ...],
    *,
    what: str,
    exclude: Sequence[str] = (),
) -> list[Found]:
    """Files named directly, plus every file with one of ``suffixes`` under named
    directories (hidden ones left out), less those ``exclude`` matches (see
    :func:`excluded`).

    A suffix may hold several dots (``.suite.json``): it is matched against the name's end.

    Raises:
        InputError: a path does not exist, or a directory holds no matching file.
    """
    out: list[Found] = []
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
            kept = [p for p in found if not excluded(p, exclude, path)]
            if not kept:
                left = " once --exclude is applied" if found else ""
                raise InputError(
                    f"directory has no {what} files ({', '.join('*' + s for s in suffixes)})"
                    + left,
                    file=str(path),
                )
            out.extend(Found(p, named=False) for p in kept)
        elif path.exists() or str(raw) == STDIN:  # files, pipes, /dev/fd/N, stdin
            if not excluded(path, exclude):
                out.append(Found(path, named=True))
        else:
            raise InputError("no such file or directory", file=str(path))
    return out


def expand(
    paths: Iterable[str | Path],
    suffixes: tuple[str, ...],
    *,
    what: str,
    exclude: Sequence[str] = (),
) -> list[Path]:
    """The paths of :func:`find`.

    Raises:
        InputError: a path does not exist, or a directory holds no matching file.
    """
    return [item.path for item in find(paths, suffixes, what=what, exclude=exclude)]


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
    """Read and parse one JSON document file (a YAML one when its name ends in ``.yaml``
    or ``.yml``, see :mod:`jsoncontract._yaml`).

    Raises:
        InputError: unreadable, empty, too large, or not JSON (with line, column and why);
            a YAML file that is not YAML or holds more than one document.
    """
    if data is None:
        data = read_bytes(path)
    from jsoncontract._yaml import is_yaml

    if is_yaml(str(path)):
        document = yaml_document(path, data)
        return document.value, document.anomalies
    if data.startswith(GZIP_MAGIC):
        raise InputError(GZIP_MESSAGE, file=str(path))
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


GZIP_MAGIC: Final = b"\x1f\x8b"
GZIP_MESSAGE: Final = (
    "the file is gzip-compressed; decompress it first (gunzip -k FILE), or pipe it in: "
    "gunzip -c FILE | jsoncontract ... -"
)


def refuse_gzip(path: Path | str) -> None:
    """Refuse a gzip-compressed file by name, rather than reading it as broken JSON.

    Raises:
        InputError: the file starts with gzip's magic bytes.
    """
    try:
        with Path(path).open("rb") as stream:
            head = stream.read(2)
    except OSError:
        return  # reading it properly says what is wrong
    if head == GZIP_MAGIC:
        raise InputError(GZIP_MESSAGE, file=str(path))


def yaml_document(path: Path | str, data: bytes) -> YamlDocument:
    """The one document of a YAML file.

    Raises:
        InputError: not YAML, or a stream of several documents.
    """
    from jsoncontract._yaml import load_yaml

    documents = load_yaml(data, name=str(path))
    if len(documents) != 1:
        raise InputError(f"holds {len(documents)} YAML documents; one was expected", file=str(path))
    return documents[0]


def positions_of(path: Path | str, data: bytes) -> Positions:
    """Where each node of a JSON or YAML file is (built lazily for JSON)."""
    from jsoncontract._yaml import is_yaml

    if is_yaml(str(path)):
        return yaml_document(path, data).positions
    from jsoncontract._locate import PositionIndex

    return PositionIndex(data.decode("utf-8", "replace").removeprefix("\ufeff"))


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
