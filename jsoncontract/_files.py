"""Reading input files safely (existence, size limits, directories, stdin), and writing
output files without clobbering what is at the path (:func:`output_file`)."""

from __future__ import annotations

import contextlib
import fnmatch
import os
import signal
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import FrameType
from typing import IO, TYPE_CHECKING, Any, Final

from jsoncontract._json import NotJSON, load
from jsoncontract.errors import InputError, JsoncontractError

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
        try:
            out.extend(_find_one(raw, suffixes, what, exclude))
        except OSError as exc:  # a directory on the way that cannot be read
            raise InputError(f"cannot read: {exc.strerror or exc}", file=str(raw)) from None
    return out


def _find_one(
    raw: str | Path, suffixes: tuple[str, ...], what: str, exclude: Sequence[str]
) -> list[Found]:
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
                f"directory has no {what} files ({', '.join('*' + s for s in suffixes)})" + left,
                file=str(path),
            )
        return [Found(p, named=False) for p in kept]
    if path.exists() or str(raw) == STDIN:  # files, pipes, /dev/fd/N, stdin
        return [] if excluded(path, exclude) else [Found(path, named=True)]
    raise InputError("no such file or directory", file=str(path))


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
            data = stdin_buffer().read(max_bytes + 1)
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


def refuse_anomalies(
    name: str,
    anomalies: Iterable[Anomaly],
    kinds: Iterable[str],
    index: Positions,
    why: str,
    *,
    error: type[JsoncontractError] = InputError,
) -> None:
    """Raise ``error`` for the first anomaly of one of ``kinds``, at its line and column,
    saying what it is and ``why`` the file may not hold it (a file of definitions must be
    JSON that every parser reads the same).

    Raises:
        JsoncontractError: ``error``, when such an anomaly is there.
    """
    wanted = frozenset(kinds)
    for anomaly in anomalies:
        if anomaly.kind in wanted:
            where = index.position(anomaly.pointer)
            line, column = where if where is not None else (None, None)
            raise error(
                f"{anomaly.detail.split('; ')[0]} (at {anomaly.pointer or '/'}); {why}",
                file=name,
                line=line,
                column=column,
            )


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


def has_content(path: Path | str) -> bool:
    """Whether a regular file holds anything but whitespace (read up to its first other
    byte). An unreadable file counts as having content: reading it says why.
    """
    try:
        with Path(path).open("rb") as stream:
            while chunk := stream.read(1 << 16):
                if chunk.strip():
                    return True
    except OSError:
        return True
    return False


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
        return stdin_buffer()
    try:
        return Path(path).open("rb")
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None


def stdin_buffer() -> IO[bytes]:
    """Standard input as bytes.

    Raises:
        InputError: standard input is closed (``<&-``).
    """
    if sys.stdin is None or getattr(sys.stdin, "closed", False):
        raise InputError("standard input is closed; name the input file instead of -")
    return sys.stdin.buffer


def is_stdin(stream: IO[bytes]) -> bool:
    """Whether ``stream`` is standard input (which is never closed by a reader)."""
    return sys.stdin is not None and stream is getattr(sys.stdin, "buffer", None)


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
        if not is_stdin(stream):
            stream.close()


# -- writing --------------------------------------------------------------------------------

#: Signals that end a write cleanly: the partial file is removed, then the process ends.
_STOP_SIGNALS: Final = tuple(
    getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)
)


@contextmanager
def output_file(path: Path | str, *, verb: str = "write") -> Iterator[IO[bytes]]:
    """A binary stream whose content reaches ``path`` whole or not at all.

    What is at ``path`` decides how:

    - nothing, or a regular file: the content goes to a hidden temporary file beside it
      (``.NAME.XXXX``), renamed over ``path`` when the block ends without an error; a file
      that was there keeps its permission bits, a new one gets ``0666`` less the umask;
    - a symbolic link: the file it leads to is replaced that way, and the link stays;
    - a device, a FIFO or a socket (``/dev/null``, ``/dev/stdout``, a named pipe): written
      to directly, never replaced by a file;
    - a directory, or an empty name: refused.

    An error, ``KeyboardInterrupt``, ``SIGTERM`` or ``SIGHUP`` in the block removes the
    temporary file (a signal then ends the process with code 128 + its number), so no
    partial file is ever left behind.

    Raises:
        InputError: the path is empty or a directory, or the file cannot be written.
    """
    name = str(path)
    if not name:
        raise InputError(f"cannot {verb} to an empty file name")
    target = Path(path)
    try:
        target = target.resolve(strict=False) if target.is_symlink() else target
        info = target.stat()
    except FileNotFoundError:
        info = None
    except RuntimeError:  # a symlink loop
        raise InputError(f"cannot {verb}: symbolic link loop", file=name) from None
    except OSError as exc:
        raise InputError(f"cannot {verb}: {exc.strerror or exc}", file=name) from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise InputError(f"cannot {verb}: is a directory", file=name)
    if info is not None and not stat.S_ISREG(info.st_mode):
        try:
            stream = target.open("wb")
        except OSError as exc:
            raise InputError(f"cannot {verb}: {exc.strerror or exc}", file=name) from None
        with stream:
            yield stream
        return
    try:
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as exc:
        raise InputError(f"cannot {verb}: {exc.strerror or exc}", file=name) from None
    try:
        with _stopping_cleanly(), os.fdopen(fd, "wb") as stream:
            yield stream
        if info is not None:
            mode = stat.S_IMODE(info.st_mode)
        else:
            umask = os.umask(0)  # read it: a temporary file is private (0600), output is not
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(temp, mode)  # noqa: PTH101 (a str path from mkstemp)
        os.replace(temp, target)  # noqa: PTH105
    except OSError as exc:
        Path(temp).unlink(missing_ok=True)
        raise InputError(f"cannot {verb}: {exc.strerror or exc}", file=name) from None
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def write_output(path: Path | str, data: bytes, *, verb: str = "write") -> None:
    """Write ``data`` to ``path`` through :func:`output_file`.

    Raises:
        InputError: the file cannot be written.
    """
    with output_file(path, verb=verb) as stream:
        stream.write(data)


class _Stopped(BaseException):
    """Raised in the main thread when a stop signal arrives during a write."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextmanager
def _stopping_cleanly() -> Iterator[None]:
    """While the block runs, a stop signal raises :class:`_Stopped` (so ``finally`` and
    ``except`` clauses clean up), then ends the process by exit code 128 + the signal."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def stop(signum: int, frame: FrameType | None) -> None:
        raise _Stopped(signum)

    previous: list[tuple[int, Callable[[int, FrameType | None], Any] | int | None]] = []
    for signum in _STOP_SIGNALS:
        with contextlib.suppress(OSError, ValueError):
            previous.append((signum, signal.signal(signum, stop)))
    try:
        yield
    except _Stopped as exc:
        raise SystemExit(128 + exc.signum) from None
    finally:
        for signum, handler in previous:
            signal.signal(signum, handler)
