"""Reading input files: the size limit holds for pipes and devices that report no size."""

from __future__ import annotations

import gzip
import os
import re
import stat
import threading
from pathlib import Path

import pytest

from jsoncontract._files import output_file, read_bytes, write_output
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


# -- writing: output_file never clobbers what is at the path -----------------------------


def _leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith("."))


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    umask = os.umask(0o022)
    try:
        write_output(tmp_path / "out.json", b"{}")
    finally:
        os.umask(umask)
    assert (tmp_path / "out.json").read_bytes() == b"{}"
    assert (tmp_path / "out.json").stat().st_mode & 0o777 == 0o644
    assert _leftovers(tmp_path) == []


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "suite.json"
    target.write_bytes(b"old")
    target.chmod(0o640)
    write_output(target, b"new")
    assert target.read_bytes() == b"new"
    assert target.stat().st_mode & 0o777 == 0o640


def test_a_symlink_stays_a_link_and_its_target_is_written(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_bytes(b"old")
    link = tmp_path / "link.json"
    link.symlink_to(real)
    write_output(link, b"new")
    assert link.is_symlink()
    assert real.read_bytes() == b"new"


def test_a_device_is_written_to_not_replaced(tmp_path: Path) -> None:
    if os.geteuid() == 0:  # a null device of its own: a regression cannot harm /dev/null
        device = tmp_path / "null"
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    else:  # /dev is not writable: a regression fails to replace it, and raises
        device = Path("/dev/null")
    write_output(device, b"report")
    assert stat.S_ISCHR(device.stat().st_mode)
    assert os.listdir(tmp_path) == (["null"] if os.geteuid() == 0 else [])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
def test_a_fifo_is_written_to_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    write_output(fifo, b"report")
    reader.join(timeout=30)
    assert got == [b"report"]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


@pytest.mark.parametrize("name", ["", "."])
def test_an_empty_name_or_a_directory_is_refused(name: str) -> None:
    with pytest.raises(InputError, match=r"empty file name|is a directory"):
        write_output(name, b"x")


def test_a_symlink_loop_is_refused(tmp_path: Path) -> None:
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    with pytest.raises(InputError, match="loop"):
        write_output(loop, b"x")


def test_an_error_while_writing_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_bytes(b"old")
    with pytest.raises(RuntimeError), output_file(target) as stream:
        stream.write(b"partial")
        raise RuntimeError("boom")
    assert target.read_bytes() == b"old"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGHUP"])
def test_a_stop_signal_while_writing_leaves_no_partial_file(tmp_path: Path, signame: str) -> None:
    import signal
    import subprocess
    import sys

    script = (
        "import os, signal, sys, time\n"
        "from jsoncontract._files import output_file\n"
        "with output_file(sys.argv[1]) as out:\n"
        "    out.write(b'partial'); out.flush()\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(30)\n"
    )
    target = tmp_path / "out.json"
    with subprocess.Popen(
        [sys.executable, "-c", script, str(target)], stdout=subprocess.PIPE, text=True
    ) as proc:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        proc.send_signal(getattr(signal, signame))
        code = proc.wait(timeout=30)
    assert code == 128 + getattr(signal, signame)
    assert list(tmp_path.iterdir()) == []
