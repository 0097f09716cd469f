"""Per-tool latency histograms: quantiles within 1% of the exact ones, and exact merges."""

from __future__ import annotations

import math
import random

from jsoncontract.stats import GROWTH, ToolStats


def _exact(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(1, math.ceil(q * len(ordered))) - 1]


def test_quantiles_are_within_one_percent() -> None:
    rng = random.Random(7)
    values = [rng.lognormvariate(3, 1.2) for _ in range(20_000)]
    stats = ToolStats()
    for value in values:
        stats.add(value, False)
    for q in (0.5, 0.9, 0.95, 0.99):
        got, exact = stats.quantile(q), _exact(values, q)
        assert got is not None and exact <= got <= exact * GROWTH
    latency = stats.latency()
    assert latency is not None and latency["max"] == round(max(values), 3)
    assert latency["count"] == len(values)
    assert len(stats.buckets) < 2_000  # bounded, whatever the number of calls


def test_two_halves_merge_into_the_whole() -> None:
    rng = random.Random(3)
    values = [rng.uniform(0.1, 900) for _ in range(5_000)]
    whole, first, second = ToolStats(), ToolStats(), ToolStats()
    for index, value in enumerate(values):
        error = index % 7 == 0
        whole.add(value, error)
        (first if index < 2_000 else second).add(value, error)
    first.merge(second)
    assert first.buckets == whole.buckets
    assert (first.results, first.errors, first.timed) == (whole.results, whole.errors, 5_000)
    assert first.latency() == whole.latency()


def test_results_without_times() -> None:
    stats = ToolStats()
    stats.add(None, True)
    stats.add(0.0, False)
    assert (stats.results, stats.errors, stats.timed) == (2, 1, 1)
    assert stats.quantile(0.5) == 0.0
    assert ToolStats().latency() is None and ToolStats().quantile(0.5) is None
