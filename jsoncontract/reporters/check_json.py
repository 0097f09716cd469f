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


def encode_result(result: CallResult) -> bytes:
    """One result's report entry: ``result.to_dict()`` serialised."""
    entry = result.to_dict()
    try:
        return orjson.dumps(entry)
    except orjson.JSONEncodeError:  # text UTF-8 cannot hold, from the capture
        return dumps_report(entry)


class PassedEntries:
    """The report entry of a passing call, ``CallResult.to_dict()`` serialised, put
    together from bytes kept per tool, dialect and file: only the call id and the line
    change from one call to the next."""

    __slots__ = ("_heads", "_middles")

    def __init__(self) -> None:
        self._heads: dict[str, tuple[str, bytes]] = {}
        self._middles: dict[str, tuple[str, bytes]] = {}

    def entry(self, passed: PassedCall) -> bytes:
        """The entry (no separator, no line break)."""
        tool, hop, dialect, file = passed.tool, passed.hop, passed.dialect, passed.file
        head = self._heads.get(tool)
        if head is None or head[0] is not hop:
            head = self._heads[tool] = (
                hop,
                b'{"ok":true,"tool":' + orjson.dumps(tool)
                + b',"hop":' + orjson.dumps(hop._value_) + b',"call_id":',
            )  # fmt: skip
        middle = self._middles.get(file)
        if middle is None or middle[0] != dialect:
            middle = self._middles[file] = (
                dialect,
                b',"dialect":' + orjson.dumps(str(dialect))
                + b',"stage":null,"source":{"file":' + dumps_report(file) + b',"line":',
            )  # fmt: skip
        return b'%s%s%s%d},"findings":[]}' % (
            head[1],
            orjson.dumps(passed.call_id),
            middle[1],
            passed.line,
        )


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
