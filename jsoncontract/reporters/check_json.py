"""``check --format json`` and ``--format jsonl``.

``json`` is one object, ``{"version": 1, "summary": {...}, "results": [...],
"findings": [...]}``, with the summary first and the run-level findings (results without
a call, turns, sessions) last. Results are spooled to a temporary file while the run goes
on, so memory stays flat however long the trace is, and then written after the summary.

``jsonl`` writes one result per line as soon as it is known, then one last line
``{"version": 1, "summary": {...}, "findings": [...]}``: for pipes (``| jq``, ``| grep``)
and huge traces.
"""

from __future__ import annotations

import shutil
import tempfile
from typing import IO, TYPE_CHECKING, Final

import orjson

from jsoncontract._json import dumps_report
from jsoncontract.pipeline.entries import PassedEntries, encode_result
from jsoncontract.reporters.interface import Reporter

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, PassedCall, ResultRun, Summary
    from jsoncontract.settings import ReportOptions

#: Results kept in memory before the spool moves to disk.
_SPOOL_BYTES: Final = 32 * 1024 * 1024
#: Results are gathered into chunks of this size before they go to the spool: a spool
#: write costs about a microsecond, as much as serialising a result.
_CHUNK_BYTES: Final = 256 * 1024
REPORT_VERSION: Final = 1


class JsonCheckReporter(Reporter["CallResult", "Summary"]):
    """The single-object JSON report."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)  # noqa: SIM115
        self._chunk = bytearray()
        self._separator = b""  # a comma once the first result is in
        self._dumps = orjson.dumps
        self._passed = PassedEntries()

    def add(self, result: CallResult) -> None:
        """Spool one result."""
        data = encode_result(result)
        chunk = self._chunk
        chunk += self._separator
        chunk += data
        self._separator = b","
        if len(chunk) >= _CHUNK_BYTES:
            self._spool.write(chunk)
            chunk.clear()

    def add_passed(self, passed: PassedCall) -> None:
        """Spool one passing call's entry, made from its parts (as ``add`` would write it)."""
        chunk = self._chunk
        chunk += self._separator
        chunk += self._passed.entry(passed)
        self._separator = b","
        if len(chunk) >= _CHUNK_BYTES:
            self._spool.write(chunk)
            chunk.clear()

    takes_result_runs = True

    def add_result_run(self, run: ResultRun) -> None:
        """Spool a run of encoded results (one entry per line) as array items."""
        if not run.entries:
            return
        chunk = self._chunk
        chunk += self._separator
        chunk += run.entries.replace(b"\n", b",")  # entries hold no raw line break
        self._separator = b","
        if len(chunk) >= _CHUNK_BYTES:
            self._spool.write(chunk)
            chunk.clear()

    def abort(self) -> None:
        """Drop the spooled results."""
        self._spool.close()

    def close(self, summary: Summary) -> None:
        """Write the summary, then every spooled result."""
        head = dumps_report({"version": REPORT_VERSION, "summary": summary.to_dict()})
        self.stream.write(head[:-1] + b',"results":[')
        self._spool.write(self._chunk)
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, self.stream, 1 << 20)
        self._spool.close()
        findings = dumps_report([f.to_dict() for f in summary.findings])
        self.stream.write(b'],"findings":' + findings + b"}\n")


class JsonlCheckReporter(Reporter["CallResult", "Summary"]):
    """One JSON result per line, then the summary line."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._passed = PassedEntries()

    def add(self, result: CallResult) -> None:
        """Write one result line."""
        self.stream.write(dumps_report(result.to_dict(), orjson.OPT_APPEND_NEWLINE))

    takes_result_runs = True

    def add_result_run(self, run: ResultRun) -> None:
        """Write a run of encoded results' lines."""
        if run.entries:
            self.stream.write(run.entries + b"\n")

    def add_passed(self, passed: PassedCall) -> None:
        """Write one passing call's line, made from its parts."""
        self.stream.write(self._passed.entry(passed) + b"\n")

    def close(self, summary: Summary) -> None:
        """Write the summary line."""
        self.stream.write(
            dumps_report(
                {
                    "version": REPORT_VERSION,
                    "summary": summary.to_dict(),
                    "findings": [f.to_dict() for f in summary.findings],
                },
                orjson.OPT_APPEND_NEWLINE,
            )
        )


__all__ = ["JsonCheckReporter", "JsonlCheckReporter"]
