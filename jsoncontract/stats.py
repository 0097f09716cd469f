"""Per-tool result counts and latency over a run, in bounded memory and mergeable.

:class:`ToolStats` counts a tool's results and error results, and keeps its latencies in a
histogram of logarithmic buckets, each 1% wider than the one before: any number of calls
fit in a few hundred integers, the quantiles it reports are within 1% of the exact ones,
and two histograms (of two halves of a run checked apart) merge into exactly the histogram
of the whole run (:meth:`ToolStats.merge`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Final

#: Each bucket is this much wider than the one before it: the quantiles' relative error.
GROWTH: Final = 1.01
_LOG_GROWTH: Final = math.log(GROWTH)
#: Latencies at or below this many milliseconds share the first bucket.
FLOOR_MS: Final = 0.001


def _bucket(ms: float) -> int:
    if ms <= FLOOR_MS:
        return 0
    return 1 + math.ceil(math.log(ms / FLOOR_MS) / _LOG_GROWTH)


def _upper(bucket: int) -> float:
    """The upper bound of a bucket, in milliseconds."""
    if bucket == 0:
        return FLOOR_MS
    return FLOOR_MS * GROWTH ** (bucket - 1)


@dataclass(slots=True)
class ToolStats:
    """What came back for one tool: how many results, how many errors, how long calls took.

    ``results`` counts the calls whose result the capture holds, ``errors`` those whose
    result says the tool failed, ``timed`` those whose capture says when the call was made
    and answered; ``buckets`` is the latency histogram (bucket -> count).
    """

    results: int = 0
    errors: int = 0
    timed: int = 0
    total_ms: float = 0.0
    max_ms: float = 0.0
    buckets: dict[int, int] = field(default_factory=dict)

    def add(self, duration_ms: float | None, is_error: bool) -> None:
        """Count one result."""
        self.results += 1
        if is_error:
            self.errors += 1
        if duration_ms is not None and duration_ms >= 0:
            self.timed += 1
            self.total_ms += duration_ms
            if duration_ms > self.max_ms:
                self.max_ms = duration_ms
            bucket = _bucket(duration_ms)
            self.buckets[bucket] = self.buckets.get(bucket, 0) + 1

    def merge(self, other: ToolStats) -> None:
        """Add ``other`` (the same tool, another part of the run) to these counts."""
        self.results += other.results
        self.errors += other.errors
        self.timed += other.timed
        self.total_ms += other.total_ms
        self.max_ms = max(self.max_ms, other.max_ms)
        for bucket, count in other.buckets.items():
            self.buckets[bucket] = self.buckets.get(bucket, 0) + count

    def quantile(self, q: float) -> float | None:
        """The ``q`` quantile of the latencies in milliseconds (within 1%, never above the
        maximum), or ``None`` when no call was timed."""
        if not self.timed:
            return None
        rank = max(1, math.ceil(q * self.timed))
        seen = 0
        for bucket in sorted(self.buckets):
            seen += self.buckets[bucket]
            if seen >= rank:
                return min(_upper(bucket), self.max_ms)
        return self.max_ms  # pragma: no cover - the counts add up to timed

    def latency(self) -> dict[str, Any] | None:
        """``{"count", "mean", "p50", "p95", "max"}`` in milliseconds, rounded to the
        microsecond, or ``None`` when no call was timed."""
        if not self.timed:
            return None
        return {
            "count": self.timed,
            "mean": round(self.total_ms / self.timed, 3),
            "p50": round(self.quantile(0.5) or 0.0, 3),
            "p95": round(self.quantile(0.95) or 0.0, 3),
            "max": round(self.max_ms, 3),
        }
