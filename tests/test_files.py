"""Reading input files: the size limit holds for pipes and devices that report no size."""

from __future__ import annotations

import os
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
