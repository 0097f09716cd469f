"""Reading input files safely (existence, size limits, directories, stdin, compression), and
writing output files without clobbering what is at the path (:func:`output_file`).

Files ending in ``.gz`` or ``.zst``, and files, stdin or pipes that start with the gzip or
Zstandard magic bytes, are decompressed while they are read, never unpacked to disk. A
corrupt or truncated compressed stream stops the job with an :class:`InputError` naming
the file, the last whole line read and the compressed byte offset reached.
"""

from __future__ import annotations

import contextlib
import fnmatch
import io
import os
import signal
import stat
import sys
import tempfile
import threading
import zlib
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
#: Compression suffixes read transparently, and the name of each format.
COMPRESSIONS: Final = {".gz": "gzip", ".zst": "zstd"}
_MAGIC: Final = ((b"\x1f\x8b", "gzip"), (b"\x28\xb5\x2f\xfd", "zstd"))
_READ_CHUNK: Final = 1 << 20
_FEED: Final = 1 << 16
#: Decompressed bytes one step aims at: a step stops feeding once it has this much, so a
#: bomb (gzip reaches about 1,000:1) is unpacked a little at a time, never whole.
_OUT_STEP: Final = 1 << 20
#: Zstandard input fed per call when the decompressor cannot bound its output (the
#: ``zstandard`` package): a 4-byte run-length block unpacks to 128 KiB, so 256 bytes of
#: input give at most 8 MiB.
_ZSTD_FEED: Final = 1 << 8


def compressed_suffixes(suffixes: tuple[str, ...]) -> tuple[str, ...]:
    """``suffixes`` and each of them followed by a compression suffix (``.jsonl.gz``).

    >>> compressed_suffixes((".jsonl",))
    ('.jsonl', '.jsonl.gz', '.jsonl.zst')
    """
    return suffixes + tuple(s + c for s in suffixes for c in COMPRESSIONS)


def compression_of(path: Path | str) -> str | None:
    """The compression a file name says (``gzip``, ``zstd``) or ``None``.

    >>> compression_of("trace.jsonl.gz"), compression_of("trace.jsonl")
    ('gzip', None)
    """
    return COMPRESSIONS.get(Path(path).suffix.lower())


def compression_in(path: Path | str) -> str | None:
    """The compression of a file: the one its name says, else the one whose magic bytes it
    starts with (a ``.jsonl`` that holds gzip data); ``None`` for stdin and pipes, which
    cannot be looked into without reading them (:func:`open_stream` does, as it reads)."""
    kind = compression_of(path)
    if kind is not None or is_stream(path):
        return kind
    try:
        with Path(path).open("rb") as stream:
            head = stream.read(4)
    except OSError:
        return None  # reading it says what is wrong
    return next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)


def plain_suffix(path: Path | str) -> str:
    """The suffix of a file name once a compression suffix is taken off.

    >>> plain_suffix("day.JSONL.gz"), plain_suffix("day.json"), plain_suffix("day.gz")
    ('.jsonl', '.json', '')
    """
    name = Path(path)
    if name.suffix.lower() in COMPRESSIONS:
        name = name.with_suffix("")
    return name.suffix.lower()


#: Files that mark a project's root: what a suite or a rules file names stays inside it.
PROJECT_MARKS: Final = (".git", "jsoncontract.toml", "pyproject.toml")


def inside_project(base: Path, relative: str) -> bool:
    """Whether ``relative`` (a path a suite or a rules file names, relative to ``base``,
    the directory of that file) stays inside the project: not absolute, and neither ``..``
    nor a symbolic link leading out of the nearest directory at or above ``base`` that holds
    ``.git``, ``jsoncontract.toml`` or ``pyproject.toml`` (when there is none: the directory
    above ``base``), or out of the working directory, where the command was run."""
    if not relative or Path(relative).is_absolute():
        return False
    try:
        here = base.resolve()
        root = next(
            (d for d in (here, *here.parents) if any((d / m).exists() for m in PROJECT_MARKS)),
            here.parent,
        )
        target = (base / relative).resolve()
        return target.is_relative_to(root) or target.is_relative_to(Path.cwd().resolve())
    except (OSError, RuntimeError):  # a link loop
        return False


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
            plain = [s for s in suffixes if not s.endswith(tuple(COMPRESSIONS))]
            also = ", each also .gz or .zst" if len(plain) < len(suffixes) else ""
            left = " once --exclude is applied" if found else ""
            raise InputError(
                f"directory has no {what} files ({', '.join('*' + s for s in plain)}{also})" + left,
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
    if name != STDIN and compression_in(name) is not None:
        return _read_limited(name, open_stream(name), max_bytes)
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


def _read_limited(name: str, stream: IO[bytes], max_bytes: int) -> bytes:
    """The content of an open (decompressing) stream, refusing empty and oversized input."""
    try:
        data = stream.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None
    except DecompressionError as exc:
        raise exc.input_error(name, None) from None
    finally:
        if not is_stdin(stream):
            stream.close()
    if len(data) > max_bytes:
        raise InputError(
            f"input is over the {max_bytes / 1e6:.0f} MB limit once decompressed", file=name
        )
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
    return lines_of(open_stream(path), max_line_bytes, name=str(path))


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
    """A binary stream for stdin (``-``) or a named file or pipe, decompressed when its
    name ends in ``.gz`` or ``.zst``, or when it starts with their magic bytes."""
    name = str(path)
    if name == STDIN:
        raw: IO[bytes] = stdin_buffer()
    else:
        try:
            raw = Path(path).open("rb")  # noqa: SIM115 - the caller closes it
        except OSError as exc:
            raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None
    kind = compression_of(name)
    if kind is None:
        kind = _sniff(raw)
    if kind is None:
        return raw
    return _decompressing(raw, kind)


def _sniff(stream: IO[bytes]) -> str | None:
    """The compression whose magic bytes ``stream`` starts with, without consuming them."""
    peek = getattr(stream, "peek", None)
    try:
        if peek is not None:
            head = peek(4)[:4]
        elif stream.seekable():  # an in-memory stream (a library caller's stdin)
            at = stream.tell()
            head = stream.read(4)
            stream.seek(at)
        else:
            return None
    except OSError:
        return None
    return next((kind for magic, kind in _MAGIC if head.startswith(magic)), None)


class DecompressionError(Exception):
    """A compressed stream that cannot be decompressed, and where that was found."""

    def __init__(self, kind: str, why: str, offset: int | None) -> None:
        super().__init__(why)
        self.kind = kind
        self.why = why
        self.offset = offset

    def input_error(self, name: str, line: int | None) -> InputError:
        where = f"after line {line:,}" if line else "at the start"
        if self.offset is not None:
            where += f", compressed byte {self.offset:,}"
        return InputError(
            f"corrupt {self.kind} data ({where}): {self.why}; the calls before it were read, "
            "the rest of the file was not",
            file=name,
        )


class _Decompressor(io.RawIOBase):
    """A raw stream decompressing gzip (every member) or Zstandard (every frame) from
    ``source``, read in chunks; a buffered reader on top gives C-speed ``readline``. Each
    step unpacks about :data:`_OUT_STEP` bytes, whatever the compression ratio."""

    def __init__(self, source: IO[bytes], kind: str) -> None:
        super().__init__()
        self._source = source
        self._kind = kind
        self._consumed = 0  # compressed bytes taken by the decompressor
        self._input = b""  # compressed bytes read from the source
        self._in_at = 0  # how much of ``_input`` the decompressor took
        self._pending = b""
        self._at = 0  # how much of ``_pending`` was handed out
        self._done = False
        self._error: DecompressionError | None = None
        self._engine: Any = self._new_engine()
        self._started = False  # whether the current member or frame has had any input

    def _new_engine(self) -> Any:
        if self._kind == "gzip":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)
        return _zstd_decompressobj()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        while self._at >= len(self._pending):
            if self._error is not None:  # raised once what came before it was read
                raise self._error
            if self._done:
                return 0
            self._pending, self._at = self._step(), 0
        at = self._at
        size = min(len(view), len(self._pending) - at)
        view[:size] = memoryview(self._pending)[at : at + size]
        self._at = at + size
        return size

    def _step(self) -> bytes:
        """The next piece of decompressed data (empty at the end or at a fault)."""
        out = bytearray()
        gzip = self._kind == "gzip"
        feed = _FEED if gzip else _ZSTD_FEED
        while len(out) < _OUT_STEP:
            if self._in_at >= len(self._input):
                chunk = self._source.read(_READ_CHUNK)
                if not chunk:
                    self._done = True
                    if self._started and not self._engine.eof:
                        self._error = DecompressionError(
                            self._kind,
                            "the compressed stream ends early (the file is truncated)",
                            self._consumed,
                        )
                    break
                self._input, self._in_at = chunk, 0
            # fed in slices, so that a fault is placed near where it is and the data before
            # it is still read
            data = self._input[self._in_at : self._in_at + feed]
            engine = self._engine
            try:
                if gzip:
                    out += engine.decompress(data, _OUT_STEP - len(out))
                else:
                    out += engine.decompress(data)
            except Exception as exc:  # zlib.error, zstd errors: corrupt data
                why = str(exc) or type(exc).__name__
                self._error = DecompressionError(self._kind, why, self._consumed)
                self._done = True
                break
            self._started = True
            left = len(engine.unused_data) if engine.eof else 0
            if gzip:
                left += len(engine.unconsumed_tail)
            taken = len(data) - left
            self._in_at += taken
            self._consumed += taken
            if engine.eof:  # the end of a member or frame: another may follow
                rest = self._input[self._in_at : self._in_at + feed]
                if rest and not rest.strip(b"\0"):  # zero padding after the last member
                    self._in_at += len(rest)
                    self._consumed += len(rest)
                self._engine = self._new_engine()
                self._started = False
        return bytes(out)

    def close(self) -> None:
        if not self.closed and not is_stdin(self._source):
            self._source.close()
        super().close()


def _zstd_decompressobj() -> Any:
    try:  # Python 3.14 has Zstandard in the standard library
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]

        return zstd.ZstdDecompressor()
    except ImportError:
        import zstandard

        return _ZstdEngine(zstandard.ZstdDecompressor().decompressobj())


class _ZstdEngine:
    """The ``zstandard`` package's decompressor, with the standard library's ``eof`` and
    ``unused_data``."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    def decompress(self, data: bytes) -> bytes:
        return bytes(self._engine.decompress(data))

    @property
    def eof(self) -> bool:
        return bool(self._engine.eof)

    @property
    def unused_data(self) -> bytes:
        return bytes(self._engine.unused_data)


def _decompressing(raw: IO[bytes], kind: str) -> IO[bytes]:
    return io.BufferedReader(_Decompressor(raw, kind), _READ_CHUNK)


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
    stream: IO[bytes], max_line_bytes: int, *, first: int = 1, name: str = STDIN
) -> Iterator[tuple[int, bytes | None]]:
    """Numbered lines of an open binary stream (closed at the end unless it is stdin).

    Raises:
        InputError: a compressed stream is corrupt or cut off (named as ``name``).
    """
    number = first - 1
    try:
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
    except DecompressionError as exc:
        raise exc.input_error(name, number) from None
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
