"""The differential test of ``compat``: over real schemas with seeded mutations, no pair in
which a call valid under the old schema fails the new one is classed compatible or
cosmetic (in either direction), and pure widenings are seldom called breaking.

Each pair is judged twice: as an input schema going from the original to the mutant
(a call drawn valid under the original that the mutant refuses breaks a caller), and as an
output schema going from the mutant back to the original (the same value is then a result
the new schema allows and the old did not: it breaks a consumer). The draws come from the
original schema in both cases, so each schema is drawn from once.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import HypothesisException
from hypothesis_jsonschema import from_schema

from jsoncontract.compat import CompatClass, compare
from jsoncontract.compat.tools import Side
from jsoncontract.pin import Lock, PinnedTool, digest
from jsoncontract.validation import CompiledSchema
from tests.compat.corpus import NARROWING, WIDENING, mutants, schemas

#: Values drawn from each original schema.
DRAWS = 8
#: The corpus is judged in this many parts (tests of their own, run in parallel).
PARTS = 4
#: Mutants made of each schema.
PER_SCHEMA = 3
SEED = 33


def side(schema: dict[str, Any], *, output: bool) -> Side:
    parts = {
        "name": "t",
        "description": None,
        "input_schema": {} if output else schema,
        "output_schema": schema if output else None,
        "annotations": None,
    }
    lock = Lock()
    lock.files["tools.json"] = {"t": PinnedTool(parts, digest(parts))}
    return Side("tools.json", lock)


def verdict(old: dict[str, Any], new: dict[str, Any], *, output: bool) -> CompatClass:
    report = compare(side(old, output=output), side(new, output=output))
    return report.worst() or CompatClass.COSMETIC


def draws(schema: dict[str, Any]) -> list[Any]:
    """Values hypothesis-jsonschema draws from the schema (deterministically), which
    jsoncontract's validator accepts."""
    plain = {k: v for k, v in schema.items() if k != "$schema"}
    found: list[Any] = []

    @settings(
        max_examples=DRAWS,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(from_schema(plain))
    def collect(value: Any) -> None:
        found.append(value)

    try:
        collect()
    except (HypothesisException, ValueError, TypeError, RecursionError):
        return []
    valid = CompiledSchema(schema)
    return [v for v in found if valid.is_valid(v)]


@pytest.mark.parametrize("part", range(PARTS))
def test_no_call_the_new_schema_refuses_is_ever_classed_compatible(part: int) -> None:
    rng = random.Random(SEED + part)
    tally: Counter[str] = Counter()
    widening_breaks: list[str] = []
    widenings = 0
    for label, schema in schemas()[part::PARTS]:
        values = draws(schema)
        if not values:
            tally["schemas without draws"] += 1
            continue
        tally["schemas"] += 1
        for mutant in mutants(schema, rng, PER_SCHEMA):
            refused = [v for v in values if not CompiledSchema(mutant.schema).is_valid(v)]
            forward = verdict(schema, mutant.schema, output=False)
            backward = verdict(mutant.schema, schema, output=True)
            tally["pairs"] += 1
            where = f"{label} {mutant.operator} at {mutant.pointer or '/'}"
            if refused:
                tally["pairs with a refused call"] += 1
                assert forward in (CompatClass.BREAKING, CompatClass.RISKY), (where, refused[0])
                assert backward in (CompatClass.BREAKING, CompatClass.RISKY), (where, refused[0])
            if mutant.kind == WIDENING:
                assert not refused, f"{where}: a widening refused {refused[0]!r}"
                widenings += 1
                if forward is CompatClass.BREAKING or backward is CompatClass.BREAKING:
                    widening_breaks.append(where)
            tally[f"{mutant.kind} {forward.value}"] += 1
    # each part of the corpus exercises what it claims to
    assert tally["schemas"] >= 45, tally
    assert tally["pairs with a refused call"] >= 12, tally
    assert widenings >= 35, tally
    assert tally[f"{NARROWING} {CompatClass.BREAKING.value}"] >= 35, tally
    assert len(widening_breaks) <= 0.05 * widenings, widening_breaks
