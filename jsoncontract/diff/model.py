"""The values a three-hop diff produces: differences, hop views, call diffs and the summary.

A :class:`Difference` is one classified change between two hops of the same call, with the
JSON Pointer on each side; a :class:`CallDiff` holds the hops of one call (as each hop
parsed and checked them), the differences between consecutive hops, and the findings that
are not differences (a hop that does not parse or breaks its schema, hops that disagree on
the tool, a call with no partner hop). Reporters render these; they never see the comparer.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.model import Finding, Hop, Severity
from jsoncontract.pointer import ABSENT

if TYPE_CHECKING:
    from jsoncontract.model import ToolCall


#: Hops in the order a payload travels: the model's call, the MCP request, the HTTP body.
HOP_RANK: Final = {Hop.MODEL: 0, Hop.MCP: 1, Hop.DOWNSTREAM: 2}


class DiffCode(StrEnum):
    """What kind of difference: the stable codes of the ``diff`` report (declared, with
    their documentation, in :mod:`jsoncontract.codes`)."""

    DROPPED = codes.DIFFERENCE_DROPPED
    ADDED = codes.DIFFERENCE_ADDED
    RENAMED = codes.DIFFERENCE_RENAMED
    MOVED = codes.DIFFERENCE_MOVED
    COERCED = codes.DIFFERENCE_COERCED
    RE_ENCODED = codes.DIFFERENCE_RE_ENCODED
    VALUE_CHANGED = codes.DIFFERENCE_VALUE_CHANGED
    REORDERED = codes.DIFFERENCE_REORDERED
    TRUNCATED = codes.DIFFERENCE_TRUNCATED  # the return leg: a text cut short on its way back


#: What to do about an unexpected difference of each kind.
HINTS: Final = {
    DiffCode.DROPPED: "the adapter lost this member; forward it, or declare "
    '{"op": "drop"} in a mapping file if dropping it is intended',
    DiffCode.ADDED: "the adapter added this member; if that is intended, declare "
    '{"op": "default"} in a mapping file',
    DiffCode.RENAMED: "if the new name is intended, declare "
    '{"op": "rename"} in a mapping file; otherwise keep the name',
    DiffCode.MOVED: 'if the new place is intended, declare {"op": "move"} in a mapping file',
    DiffCode.COERCED: "send the JSON type the next hop expects, or declare "
    '{"op": "convert"} in a mapping file if the conversion is intended',
    DiffCode.RE_ENCODED: "the value was sent as JSON text: parse the text once, where it "
    "enters (JSON.parse / json.loads), and pass the value itself on",
    DiffCode.VALUE_CHANGED: "the adapter changed the value; if that is a declared "
    'conversion (a date format, a unit), add {"op": "convert"} to a mapping file',
    DiffCode.REORDERED: "if the order carries no meaning here, say so: --set PATH, "
    '--multiset PATH or --key PATH=FIELD (or "arrays" in a mapping file)',
    DiffCode.TRUNCATED: "the host cut the result short: the model reads a part and cannot "
    "tell; return less (a page, a summary) or say in the result that it was cut",
}

#: What to do about a difference on the return leg (the result), where it differs.
RESULT_HINTS: Final = {
    DiffCode.DROPPED: "the result lost this member on its way back to the model: forward it, "
    "or leave it out of the output schema if the model is not meant to see it",
    DiffCode.ADDED: "a hop added this member to the result on its way back",
    DiffCode.RE_ENCODED: "the result was serialised twice: put the object itself in the "
    "text (or structuredContent), not a string of its JSON",
    DiffCode.COERCED: "a hop changed the result's JSON types on the way back: pass the values "
    "as they are",
    DiffCode.VALUE_CHANGED: "a hop changed the result on its way back to the model",
}


_DECODED_HINT: Final = (
    "this hop decoded JSON text the previous hop sent as a string; the fault is upstream, "
    "where the value was serialised (this hop's leniency hides it)"
)


@dataclass(slots=True)
class Difference:
    """One classified change between two hops of a call.

    ``from_path`` is the JSON Pointer in the earlier hop (``None`` for ``added``) and
    ``to_path`` that in the later hop (``None`` for ``dropped``); ``before`` and ``after``
    are the values there (:data:`ABSENT` when missing, a fingerprint for sensitive fields
    unless values are shown). ``expected`` is true when a declared mapping or array rule
    accounts for it; ``rule`` then says which one.
    """

    code: DiffCode
    from_hop: Hop
    to_hop: Hop
    from_path: str | None
    to_path: str | None
    before: Any = ABSENT
    after: Any = ABSENT
    expected: bool = False
    rule: str | None = None
    detail: str | None = None
    message: str = ""
    tool: str | None = None
    call_id: str | None = None
    source: Any = None
    leg: str = "arguments"  # or "result": the return leg, from the downstream answer back

    @property
    def path(self) -> str:
        """The pointer a person looks for first: in the earlier hop, else the later."""
        return self.from_path if self.from_path is not None else self.to_path or ""

    @property
    def severity(self) -> Severity:
        """``info`` for an expected transform, ``error`` for an unexpected difference."""
        return Severity.INFO if self.expected else Severity.ERROR

    @property
    def hint(self) -> str | None:
        """What to do about it (``None`` when it is expected)."""
        if self.expected:
            return None
        if self.leg == "result" and self.code in RESULT_HINTS:
            return RESULT_HINTS[self.code]
        if self.code is DiffCode.RE_ENCODED and not isinstance(self.after, str):
            return _DECODED_HINT
        return HINTS[self.code]

    def to_dict(self) -> dict[str, Any]:
        """The difference as it appears in the JSON report."""
        out: dict[str, Any] = {
            "code": self.code.value,
            **({"leg": self.leg} if self.leg != "arguments" else {}),
            "severity": "info" if self.expected else "error",
            "expected": self.expected,
            "message": self.message,
            "path": self.path,
            "hop": self.to_hop.value,
            "from_hop": self.from_hop.value,
            "to_hop": self.to_hop.value,
            "from_path": self.from_path,
            "to_path": self.to_path,
        }
        if self.before is not ABSENT:
            out["before"] = self.before
        if self.after is not ABSENT:
            out["after"] = self.after
        if self.detail is not None:
            out["detail"] = self.detail
        if self.rule is not None:
            out["rule"] = self.rule
        if self.tool is not None:
            out["tool"] = self.tool
        if self.call_id is not None:
            out["call_id"] = self.call_id
        if self.source is not None:
            out["source"] = self.source.to_dict()
        hint = self.hint
        if hint is not None:
            out["hint"] = hint
        return out


@dataclass(slots=True)
class HopView:
    """One hop of a call, as that hop parsed and checked it.

    ``value`` is what the comparison used: the parsed arguments, or, when the parse gate
    failed, whatever could still be compared (the string MCP received instead of an
    object, the value behind a duplicate key); :data:`ABSENT` when nothing could.
    ``matched_by`` says how the hop was paired with the others: ``given`` (named on the
    command line), ``first`` (the hop that opened the group), ``id`` or ``order``.
    """

    hop: Hop
    call: ToolCall
    matched_by: str = "given"
    match_key: str | None = None
    value: Any = ABSENT
    parsed: bool = False
    schema: str | None = None
    valid: bool | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def available(self) -> bool:
        """Whether this hop could be compared at all."""
        return self.value is not ABSENT

    @property
    def ok(self) -> bool:
        """True when no finding on this hop is an error."""
        return not any(f.severity is Severity.ERROR for f in self.findings)

    def to_dict(self) -> dict[str, Any]:
        """The hop as it appears in the JSON report."""
        call = self.call
        out: dict[str, Any] = {
            "hop": self.hop.value,
            "dialect": str(call.dialect) if call.dialect is not None else None,
            "tool": call.tool,
            "call_id": call.call_id,
            "source": call.source.to_dict(),
            "matched_by": self.matched_by,
            "parsed": self.parsed,
            "compared": self.value is not ABSENT,
            "schema": self.schema,
            "valid": self.valid,
        }
        if self.match_key is not None:
            out["match_key"] = self.match_key
        return out


class CallStatus(StrEnum):
    """How the hops of one call compare."""

    AGREE = "agree"  # no unexpected difference (declared transforms allowed)
    DIFFER = "differ"  # at least one unexpected difference
    UNPAIRED = "unpaired"  # only one hop of this call was found
    UNREADABLE = "unreadable"  # no hop could be identified (a broken trace line)


class Row:
    """One line of the side-by-side view: the same member followed across the hops.

    ``values`` has one entry per hop of the call, in hop order: ``None`` where the member
    is absent, else ``(pointer in that hop, value)``. ``cells`` shows them as compact JSON,
    sensitive values hashed unless ``show_values`` (computed when first asked for: a large
    document has many rows, and a report may show only the changed ones).
    ``differences`` are those the row shows.
    """

    __slots__ = ("_cells", "differences", "path", "show_values", "values")

    def __init__(
        self,
        path: str,
        values: list[tuple[str, Any] | None],
        differences: list[Difference] | None = None,
        *,
        show_values: bool = False,
    ) -> None:
        self.path = path
        self.values = values
        self.differences: list[Difference] = differences if differences is not None else []
        self.show_values = show_values
        self._cells: list[tuple[str, str] | None] | None = None

    @property
    def cells(self) -> list[tuple[str, str] | None]:
        """``(pointer, compact JSON)`` per hop, ``None`` where the member is absent."""
        if self._cells is None:
            from jsoncontract.diff.values import redact_value, shown

            out: list[tuple[str, str] | None] = []
            for item in self.values:
                if item is None:
                    out.append(None)
                    continue
                path, value = item
                if not self.show_values:
                    value = redact_value(value, path)
                out.append((path, shown(value)))
            self._cells = out
        return self._cells

    def __repr__(self) -> str:
        return f"Row({self.path!r}, {self.values!r}, {[d.code.value for d in self.differences]})"


@dataclass(slots=True)
class CallDiff:
    """The hops of one call, side by side, with every difference classified.

    ``pairs`` lists the hops compared, as index pairs into ``hops`` (consecutive hops
    that could be compared: a hop whose payload cannot be read at all is skipped).
    ``result_hops`` are the hops' results, in the order a result travels (downstream, MCP,
    model); their differences are in ``differences`` with ``leg`` ``"result"``.
    """

    tool: str | None
    call_id: str | None
    hops: list[HopView]
    differences: list[Difference] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    pairing: str | None = None
    show_values: bool = False
    pairs: list[tuple[int, int]] = field(default_factory=list)
    result_hops: list[HopView] = field(default_factory=list)
    _rows: Callable[[bool], list[Row]] | None = field(default=None, repr=False)
    _result_rows: Callable[[], list[Row]] | None = field(default=None, repr=False)

    @property
    def status(self) -> CallStatus:
        """``agree``, ``differ``, ``unpaired`` or ``unreadable``."""
        if not self.hops:
            return CallStatus.UNREADABLE
        if any(not d.expected for d in self.differences):
            return CallStatus.DIFFER
        if len(self.hops) == 1:
            return CallStatus.UNPAIRED
        return CallStatus.AGREE

    @property
    def ok(self) -> bool:
        """True when nothing is an error: no unexpected difference, every hop passed."""
        return not any(not d.expected for d in self.differences) and not any(
            f.severity is Severity.ERROR for f in self.findings
        )

    @property
    def unexpected(self) -> list[Difference]:
        """The differences no mapping or rule accounts for."""
        return [d for d in self.differences if not d.expected]

    def rows(self, *, changed_only: bool = False) -> list[Row]:
        """The side-by-side rows, computed when asked for (only the text report needs them).

        ``changed_only`` builds only the rows of members that changed somewhere, with their
        value at every hop: much cheaper on large documents.
        """
        return self._rows(changed_only) if self._rows is not None else []

    def result_rows(self) -> list[Row]:
        """The side-by-side rows of the results (``result_hops``), computed when asked for."""
        return self._result_rows() if self._result_rows is not None else []

    def worst(self) -> Severity | None:
        """The most severe difference or finding, or ``None``."""
        return Severity.worst(
            [*(d.severity for d in self.differences), *(f.severity for f in self.findings)]
        )

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``results`` in the ``diff`` JSON report."""
        return {
            "ok": self.ok,
            "status": self.status.value,
            "tool": self.tool,
            "call_id": self.call_id,
            "pairing": self.pairing,
            "hops": [h.to_dict() for h in self.hops],
            **(
                {"result_hops": [_result_hop(h) for h in self.result_hops]}
                if self.result_hops
                else {}
            ),
            "differences": [d.to_dict() for d in self.differences],
            "findings": [f.to_dict() for f in self.findings],
        }


def _result_hop(view: HopView) -> dict[str, Any]:
    """One hop's result as the JSON report lists it."""
    result = view.call.result
    out: dict[str, Any] = {"hop": view.hop.value, "compared": view.available, "parsed": view.parsed}
    if result is not None:
        out["dialect"] = str(result.dialect) if result.dialect is not None else None
        out["source"] = result.source.to_dict()
        out["is_error"] = result.is_error
    return out


@dataclass(slots=True)
class DiffSummary:
    """Running totals over a diff run: calls by status, differences and findings by code."""

    calls: int = 0
    ok: int = 0
    failed: int = 0
    files: int = 0
    by_status: Counter[str] = field(default_factory=Counter)
    unexpected: Counter[str] = field(default_factory=Counter)
    expected: Counter[str] = field(default_factory=Counter)
    finding_codes: Counter[str] = field(default_factory=Counter)
    finding_severity: Counter[str] = field(default_factory=Counter)
    by_tool: dict[str, list[int]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def add(self, result: CallDiff) -> None:
        """Count one call."""
        self.calls += 1
        ok = result.ok
        if ok:
            self.ok += 1
        else:
            self.failed += 1
        self.by_status[result.status.value] += 1
        tool = result.tool or "(unknown)"
        counts = self.by_tool.get(tool)
        if counts is None:
            counts = self.by_tool[tool] = [0, 0]
        counts[0] += 1
        counts[1] += not ok
        for difference in result.differences:
            if difference.expected:
                self.expected[difference.code.value] += 1
            else:
                self.unexpected[difference.code.value] += 1
        for finding in result.findings:
            self.finding_codes[finding.code] += 1
            self.finding_severity[finding.severity.value] += 1

    def note(self, finding: Finding) -> None:
        """Record a finding about the run rather than one call (a mapping warning)."""
        self.findings.append(finding)
        self.finding_codes[finding.code] += 1
        self.finding_severity[finding.severity.value] += 1

    @property
    def by_severity(self) -> dict[str, int]:
        """Differences and findings by severity (unexpected differences are errors)."""
        sev = self.finding_severity
        return {
            "error": sev.get("error", 0) + sum(self.unexpected.values()),
            "warning": sev.get("warning", 0),
            "info": sev.get("info", 0) + sum(self.expected.values()),
        }

    def worst(self) -> Severity | None:
        """The most severe difference or finding seen, or ``None``."""
        return Severity.worst(s for s in Severity if self.by_severity[s._value_])

    def to_dict(self) -> dict[str, Any]:
        """The ``summary`` object of the ``diff`` JSON report."""
        by_code = Counter(self.finding_codes)
        by_code.update(self.unexpected)
        by_code.update(self.expected)
        return {
            "calls": self.calls,
            "ok": self.ok,
            "failed": self.failed,
            "files": self.files,
            "by_status": {s.value: self.by_status.get(s.value, 0) for s in CallStatus},
            "differences": {
                "unexpected": sum(self.unexpected.values()),
                "expected": sum(self.expected.values()),
                "unexpected_by_code": dict(sorted(self.unexpected.items())),
                "expected_by_code": dict(sorted(self.expected.items())),
            },
            "by_code": dict(sorted(by_code.items())),
            "by_severity": self.by_severity,
            "by_tool": {
                name: {"calls": c[0], "failed": c[1]} for name, c in sorted(self.by_tool.items())
            },
        }


@dataclass(slots=True)
class DiffReport:
    """What :func:`jsoncontract.diff.diff` returns: the summary, run findings and every call."""

    summary: DiffSummary
    results: list[CallDiff]

    @property
    def ok(self) -> bool:
        """True when every call passed."""
        return self.summary.failed == 0 and not any(
            f.severity is Severity.ERROR for f in self.summary.findings
        )

    def to_dict(self) -> dict[str, Any]:
        """The whole ``diff`` JSON report."""
        return {
            "version": 1,
            "summary": self.summary.to_dict(),
            "findings": [f.to_dict() for f in self.summary.findings],
            "results": [r.to_dict() for r in self.results],
        }
