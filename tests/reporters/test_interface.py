"""The reporter interface: results in order, then close; whole-report reporters take no
results one by one."""

from __future__ import annotations

import io
from typing import IO, Never

import pytest

from jsoncontract.reporters import Reporter, ReportOptions, reporter_class


class Recorder(Reporter[int, str]):
    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self.seen: list[object] = []

    def add(self, result: int) -> None:
        self.seen.append(result)

    def close(self, end: str) -> None:
        self.seen.append(end)
        self.stream.write(repr(self.seen).encode())


def test_write_hands_over_every_result_then_closes() -> None:
    stream = io.BytesIO()
    reporter = Recorder(stream, ReportOptions())
    reporter.write("summary", iter([1, 2, 3]))
    assert reporter.seen == [1, 2, 3, "summary"]
    assert stream.getvalue() == b"[1, 2, 3, 'summary']"


def test_a_whole_report_reporter_takes_no_results_one_by_one() -> None:
    class Whole(Reporter[Never, str]):
        def close(self, end: str) -> None:
            self.stream.write(end.encode())

    stream = io.BytesIO()
    Whole(stream, ReportOptions()).write("all of it")
    assert stream.getvalue() == b"all of it"
    with pytest.raises(TypeError, match="takes its whole report at close"):
        Whole(stream, ReportOptions()).add(1)  # type: ignore[arg-type]


def test_close_is_required() -> None:
    class Incomplete(Reporter[int, str]):
        pass

    with pytest.raises(TypeError):
        Incomplete(io.BytesIO(), ReportOptions())  # type: ignore[abstract]


def test_an_unknown_format_is_a_key_error() -> None:
    with pytest.raises(KeyError):
        reporter_class("check", "pdf")
