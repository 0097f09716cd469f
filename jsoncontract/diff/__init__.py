"""``jsoncontract diff``: the hops of one call side by side, every difference classified.

    >>> from jsoncontract.diff import diff
    >>> report = diff(["fixtures/diff/coerced/model.json", "fixtures/diff/coerced/mcp.json",
    ...                "fixtures/diff/coerced/downstream.json"])
    >>> [(d.code.value, d.path) for d in report.results[0].differences]
    [('coerced', '/limit')]

Layout: :mod:`.hops` reads hop files and runs each hop's own gates; :mod:`.correlate`
pairs hops in a trace; :mod:`.compare` compares two values and classifies what differs;
:mod:`.mapping` loads mapping files; :mod:`.explain` turns the transforms they declare
into expected differences; :mod:`.downstream` loads downstream schemas (JSON Schema or OpenAPI);
:mod:`.rows` and :mod:`.patch` shape the result for the side-by-side view and RFC 6902;
:mod:`.differ` puts it together. Everything returns data; nothing prints.
"""

from jsoncontract.diff.compare import ArrayRule, CompareOptions, Comparer
from jsoncontract.diff.correlate import Correlator
from jsoncontract.diff.differ import Differ, DiffOptions, diff, iter_diff
from jsoncontract.diff.downstream import DownstreamSchemas, load_downstream_schema
from jsoncontract.diff.mapping import MappingSet, load_mappings
from jsoncontract.diff.model import (
    CallDiff,
    CallStatus,
    DiffCode,
    Difference,
    DiffReport,
    DiffSummary,
    HopView,
    Row,
)
from jsoncontract.diff.patch import apply_patch, make_patch
from jsoncontract.pointer import ABSENT

__all__ = [
    "ABSENT",
    "ArrayRule",
    "CallDiff",
    "CallStatus",
    "CompareOptions",
    "Comparer",
    "Correlator",
    "DiffCode",
    "DiffOptions",
    "DiffReport",
    "DiffSummary",
    "Differ",
    "Difference",
    "DownstreamSchemas",
    "HopView",
    "MappingSet",
    "Row",
    "apply_patch",
    "diff",
    "iter_diff",
    "load_downstream_schema",
    "load_mappings",
    "make_patch",
]
