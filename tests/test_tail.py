"""Following a growing file as ``tail -F`` does: lines as their line breaks are written, a
rotation (renamed away, created again) and a truncation read as a new file from line 1, a
file waited for, a pipe read to its end, and a stop that reads what was written by then.

The tail runs in a thread that hands its items over a queue; the test writes the file and
waits for each item with a deadline (no fixed sleeps)."""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from jsoncontract._tail import Follow, Item, Tail
from jsoncontract.errors import InputError

DEADLINE = 5.0
_DONE: Any = object()


class Running:
    """A tail iterated in a thread: ``next_item`` waits for its next item."""

    def __init__(self, path: str, *, limit: int = 1 << 20, **options: Any) -> None:
        self.notes: list[str] = []
        self.idle = threading.Event()
        self.follow = Follow(poll=0.01, notify=self.notes.append, idle=self.idle.set, **options)
        self.items: queue.Queue[Any] = queue.Queue()
        self.error: BaseException | None = None
        self.thread = threading.Thread(
            target=self._run, args=(Tail(path, self.follow, max_line_bytes=limit),)
        )
        self.thread.start()

    def _run(self, tail: Tail) -> None:
        try:
            for item in tail:
                self.items.put(item)
        except BaseException as exc:  # handed to the test
            self.error = exc
        self.items.put(_DONE)

    def next_item(self) -> Item:
        item = self.items.get(timeout=DEADLINE)
        assert item is not _DONE, f"the tail ended ({self.error!r})"
        return item  # type: ignore[no-any-return]

    def take(self, count: int) -> list[Item]:
        return [self.next_item() for _ in range(count)]

    def stop(self) -> list[Item]:
        """Stop it; what it gave until it ended."""
        self.follow.stop.set()
        rest: list[Item] = []
        while (item := self.items.get(timeout=DEADLINE)) is not _DONE:
            rest.append(item)
        self.thread.join(DEADLINE)
        assert not self.thread.is_alive()
        return rest

    def nothing_pending(self) -> bool:
        return self.items.empty()


@pytest.fixture
def running() -> Iterator[list[Running]]:
    started: list[Running] = []
    yield started
    for tail in started:  # never leave a thread behind
        tail.follow.stop.set()
        tail.thread.join(DEADLINE)


def tail_of(started: list[Running], path: Path | str, **options: Any) -> Running:
    tail = Running(str(path), **options)
    started.append(tail)
    return tail


def append(path: Path, data: bytes) -> None:
    with path.open("ab") as stream:
        stream.write(data)


def test_lines_come_as_their_line_breaks_are_written(
    tmp_path: Path, running: list[Running]
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b'{"a": 1}\n')
    tail = tail_of(running, path)
    assert tail.take(2) == [None, (1, b'{"a": 1}')]
    append(path, b'{"b": ')  # half a line: held until its line break
    assert tail.idle.wait(DEADLINE)
    assert tail.nothing_pending()
    append(path, b"2}\n\n")
    assert tail.take(2) == [(2, b'{"b": 2}'), (3, b"")]
    assert tail.stop() == []


def test_a_stop_reads_what_was_written_and_the_last_line_without_its_break(
    tmp_path: Path, running: list[Running]
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b"one\n")
    tail = tail_of(running, path)
    assert tail.take(2) == [None, (1, b"one")]
    append(path, b"two\nthree")
    assert tail.stop() == [(2, b"two"), (3, b"three")]


def test_a_rotation_reads_the_old_file_to_its_end_then_the_new_from_line_1(
    tmp_path: Path, running: list[Running]
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b"old 1\n")
    tail = tail_of(running, path)
    assert tail.take(2) == [None, (1, b"old 1")]
    with path.open("ab") as writer:  # the writer holds the old file across the rename
        path.rename(tmp_path / "trace.jsonl.1")
        writer.write(b"old 2\n")
    path.write_bytes(b"new 1\nnew 2\n")
    assert tail.take(4) == [(2, b"old 2"), None, (1, b"new 1"), (2, b"new 2")]
    assert tail.notes == [f"{path} was replaced: following the new file"]
    append(path, b"new 3\n")
    assert tail.next_item() == (3, b"new 3")
    assert tail.stop() == []


def test_a_file_renamed_away_is_read_until_another_takes_its_name(
    tmp_path: Path, running: list[Running]
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b"")
    tail = tail_of(running, path)
    assert tail.next_item() is None
    moved = tmp_path / "trace.jsonl.1"
    path.rename(moved)
    append(moved, b"still read\n")
    assert tail.next_item() == (1, b"still read")
    path.write_bytes(b"fresh\n")
    assert tail.take(2) == [None, (1, b"fresh")]


def test_a_truncation_reads_the_file_again_from_line_1(
    tmp_path: Path, running: list[Running]
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b"first line, long enough\nsecond\n")
    tail = tail_of(running, path)
    assert tail.take(3) == [None, (1, b"first line, long enough"), (2, b"second")]
    with path.open("r+b") as stream:  # > trace.jsonl, then a shorter line
        stream.truncate(0)
        stream.write(b"again\n")
    assert tail.take(2) == [None, (1, b"again")]
    assert tail.notes == [f"{path} was truncated: reading it from its start"]
    assert tail.stop() == []


def test_a_file_that_does_not_exist_yet_is_waited_for(
    tmp_path: Path, running: list[Running]
) -> None:
    path = tmp_path / "later.jsonl"
    tail = tail_of(running, path)
    deadline = threading.Event()
    while not tail.notes and not deadline.wait(0.01):  # said once, before it appears
        pass
    assert tail.notes == [f"waiting for {path} to appear"]
    path.write_bytes(b"here\n")
    assert tail.take(2) == [None, (1, b"here")]


def test_stopped_before_the_file_appears_gives_nothing(
    tmp_path: Path, running: list[Running]
) -> None:
    tail = tail_of(running, tmp_path / "never.jsonl")
    assert tail.stop() == []


def test_a_line_longer_than_the_limit_is_skipped_unheld(
    tmp_path: Path, running: list[Running]
) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(b"x" * 40 + b"\nshort\n" + b"y" * 25)
    tail = tail_of(running, path, limit=16)
    assert tail.take(3) == [None, (1, None), (2, b"short")]
    append(path, b"y" * 25 + b"\nok\n")
    assert tail.take(2) == [(3, None), (4, b"ok")]
    append(path, b"z" * 30)
    assert tail.stop() == [(5, None)]


def test_a_pipe_is_read_until_its_writer_closes_it(running: list[Running]) -> None:
    read, write = os.pipe()
    fifo_path = f"/dev/fd/{read}"
    tail = tail_of(running, fifo_path)
    assert tail.next_item() is None
    os.write(write, b"one\ntw")
    assert tail.next_item() == (1, b"one")
    os.write(write, b"o")
    os.close(write)
    assert tail.stop() == [(2, b"two")]
    os.close(read)


def test_a_directory_cannot_be_followed(tmp_path: Path, running: list[Running]) -> None:
    tail = tail_of(running, tmp_path)
    assert tail.items.get(timeout=DEADLINE) is _DONE
    assert isinstance(tail.error, InputError)
    assert "is a directory" in str(tail.error)


def test_standard_input_that_is_no_file_cannot_be_followed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import io
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"{}\n")))
    with pytest.raises(InputError, match="cannot follow: it is no file or pipe"):
        list(Tail("-", Follow(), max_line_bytes=100))
    sys.stdin.close()
    with pytest.raises(InputError, match="cannot follow: it is closed"):
        list(Tail("-", Follow(), max_line_bytes=100))
