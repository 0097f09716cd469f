"""Reading input files: the size limit holds for pipes and devices that report no size."""

from __future__ import annotations

import gzip
import os
import re
import threading
from pathlib import Path

import pytest

from jsoncontract._files import read_bytes
from jsoncontract.errors import InputError


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_pipe_is_read_no_further_than_the_limit(tmp_path: Path) -> None:
    fifo = tmp_path / "endless.json"
    os.mkfifo(fifo)
    written = 0

    def writer() -> None:  # far more than the limit; stops when the reader goes away
        nonlocal written
        chunk = b" " * 65536
        try:
            with fifo.open("wb") as out:
                for _ in range(160):  # 10 MB
                    out.write(chunk)
                    written += len(chunk)
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        with pytest.raises(InputError, match="over the"):
            read_bytes(fifo, max_bytes=1000)
    finally:
        thread.join(timeout=30)
    assert written < 1_000_000  # the reader stopped at the limit, not at the end


def test_a_regular_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "doc.json"
    path.write_bytes(b'{"a": 1}\n')
    assert read_bytes(path) == b'{"a": 1}\n'
    assert read_bytes(path, max_bytes=9) == b'{"a": 1}\n'
    with pytest.raises(InputError, match="over the"):
        read_bytes(path, max_bytes=8)


# -- compressed input ----------------------------------------------------------------------

LINES = b"".join(b'{"n": %d, "text": "line %d of the trace"}\n' % (i, i) for i in range(20_000))


def _zstd(data: bytes) -> bytes:
    try:
        from compression import zstd  # type: ignore[import-not-found,unused-ignore]

        return bytes(zstd.compress(data))
    except ImportError:
        import zstandard

        return bytes(zstandard.ZstdCompressor().compress(data))


def _read_lines(path: Path) -> list[tuple[int, bytes | None]]:
    from jsoncontract._files import iter_lines

    return list(iter_lines(path, max_line_bytes=1 << 20))


@pytest.mark.parametrize("suffix", [".jsonl.gz", ".jsonl.zst"])
def test_compressed_lines_read_as_the_plain_ones(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / ("trace" + suffix)
    path.write_bytes(gzip.compress(LINES) if suffix.endswith(".gz") else _zstd(LINES))
    plain = tmp_path / "trace.jsonl"
    plain.write_bytes(LINES)
    assert _read_lines(path) == _read_lines(plain)
    assert read_bytes(path) == LINES


def test_every_gzip_member_and_zstd_frame_is_read(tmp_path: Path) -> None:
    half = len(LINES) // 2
    gz = tmp_path / "two.jsonl.gz"
    gz.write_bytes(gzip.compress(LINES[:half]) + gzip.compress(LINES[half:]) + b"\0" * 8)
    zst = tmp_path / "two.jsonl.zst"
    zst.write_bytes(_zstd(LINES[:half]) + _zstd(LINES[half:]))
    assert read_bytes(gz) == read_bytes(zst) == LINES


def test_a_truncated_gzip_names_the_file_and_the_last_line(tmp_path: Path) -> None:
    whole = gzip.compress(LINES)
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(whole[: len(whole) * 3 // 4])
    with pytest.raises(InputError) as caught:
        _read_lines(path)
    error = caught.value
    assert error.file == str(path)
    assert "truncated" in error.message
    found = re.search(r"after line ([\d,]+)", error.message)
    assert found is not None
    line = int(found.group(1).replace(",", ""))
    assert 10_000 < line < 20_000  # most of the file was read before the fault


def test_a_corrupt_gzip_member_is_an_input_error_not_a_traceback(tmp_path: Path) -> None:
    data = bytearray(gzip.compress(LINES, compresslevel=1))
    data[len(data) // 2] ^= 0xFF
    path = tmp_path / "bad.jsonl.gz"
    path.write_bytes(bytes(data))
    with pytest.raises(InputError, match=r"corrupt gzip data \(after line [\d,]+, compressed byte"):
        _read_lines(path)
    not_gzip = tmp_path / "not.jsonl.gz"
    not_gzip.write_bytes(LINES[:100])
    with pytest.raises(InputError, match="corrupt gzip data"):
        read_bytes(not_gzip)


def test_compression_is_read_from_the_magic_of_a_pipe(tmp_path: Path) -> None:
    from jsoncontract._files import open_stream

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    thread = threading.Thread(target=lambda: fifo.write_bytes(gzip.compress(LINES)))
    thread.start()
    try:
        stream = open_stream(fifo)
        assert stream.read() == LINES
        stream.close()
    finally:
        thread.join(timeout=30)


def test_directories_hold_compressed_captures(tmp_path: Path) -> None:
    from jsoncontract._files import expand
    from jsoncontract.capture.reader import CAPTURE_SUFFIXES

    for name in ("a.jsonl.gz", "b.json.zst", "c.jsonl", "d.txt.gz", "e.gz"):
        (tmp_path / name).write_bytes(b"{}")
    found = [p.name for p in expand([tmp_path], CAPTURE_SUFFIXES, what="capture")]
    assert found == ["a.jsonl.gz", "b.json.zst", "c.jsonl"]
