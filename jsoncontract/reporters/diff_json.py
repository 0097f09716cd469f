"""``diff --format json`` and ``--format patch``.

``json`` is one object, ``{"version": 1, "summary": {...}, "findings": [...], "results":
[...]}``: the summary first, then the findings about the run (mapping warnings), then one
result per call. Results are spooled to a temporary file while the run goes on, so memory
stays flat however long the trace is.

``patch`` writes one line per pair of consecutive hops compared:
``{"tool": .., "call_id": .., "from": "model", "to": "mcp", "patch": [...]}``, where
``patch`` is an RFC 6902 JSON Patch turning the earlier hop's arguments into the later's
(``jq -c .patch`` extracts it).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from typing import IO, TYPE_CHECKING, Any, Final

import orjson

from jsoncontract.reporters.interface import Reporter

if TYPE_CHECKING:
    from jsoncontract.diff.model import CallDiff, DiffSummary
    from jsoncontract.settings import ReportOptions

_SPOOL_BYTES: Final = 32 * 1024 * 1024
REPORT_VERSION: Final = 1
_OPTIONS: Final = orjson.OPT_NON_STR_KEYS


def dumps(value: Any, option: int = _OPTIONS) -> bytes:
    """JSON of a report value, whatever the payloads held.

    Values are compared exactly as received, so a result can carry what orjson refuses to
    write: integers beyond 64 bits, lone surrogates, nesting deeper than 255 levels. Those
    results go through the standard library instead (same JSON; surrogates as ``\\u``
    escapes).
    """
    try:
        return orjson.dumps(value, option=option)
    except (orjson.JSONEncodeError, TypeError):
        pass
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))  # input nests at most 1,024 levels
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    finally:
        sys.setrecursionlimit(limit)
    if option & orjson.OPT_APPEND_NEWLINE:
        text += "\n"
    return text.encode("utf-8", "backslashreplace")


class JsonDiffReporter(Reporter["CallDiff", "DiffSummary"]):
    """The single-object JSON report."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)  # noqa: SIM115
        self._count = 0

    def add(self, result: CallDiff) -> None:
        """Spool one call."""
        if self._count:
            self._spool.write(b",")
        self._spool.write(dumps(result.to_dict()))
        self._count += 1

    def abort(self) -> None:
        """Drop the spooled results."""
        self._spool.close()

    def close(self, summary: DiffSummary) -> None:
        """Write the summary and run findings, then every spooled call."""
        head = dumps(
            {
                "version": REPORT_VERSION,
                "summary": summary.to_dict(),
                "findings": [f.to_dict() for f in summary.findings],
            }
        )
        self.stream.write(head[:-1] + b',"results":[')
        self._spool.seek(0)
        shutil.copyfileobj(self._spool, self.stream, 1 << 20)
        self._spool.close()
        self.stream.write(b"]}\n")


class PatchDiffReporter(Reporter["CallDiff", "DiffSummary"]):
    """One RFC 6902 patch per pair of consecutive hops, one JSON line each."""

    def add(self, result: CallDiff) -> None:
        """Write the patches of one call."""
        from jsoncontract.diff.model import DiffCode
        from jsoncontract.diff.patch import make_patch

        for ia, ib in result.pairs:
            a, b = result.hops[ia], result.hops[ib]
            moves = [
                (d.from_path, d.to_path)
                for d in result.differences
                if d.code in (DiffCode.RENAMED, DiffCode.MOVED)
                and d.from_hop is a.hop
                and d.to_hop is b.hop
                and d.from_path is not None
                and d.to_path is not None
            ]
            line = {
                "tool": result.tool,
                "call_id": result.call_id,
                "from": a.hop.value,
                "to": b.hop.value,
                "patch": make_patch(a.value, b.value, moves=moves, show_values=result.show_values),
            }
            self.stream.write(dumps(line, _OPTIONS | orjson.OPT_APPEND_NEWLINE))

    def close(self, summary: DiffSummary) -> None:
        """Nothing to add: every line is a patch."""


__all__ = ["JsonDiffReporter", "PatchDiffReporter"]
