"""What a probe sends and what it found: the case kinds, the settings, and the scorecards
(a case's result, a tool's, a protocol check's, a server's, the whole report).

Plain data: every other module of the probe fills these in, and the reporters read them.
"""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.masking import masked_value
from jsoncontract.model import Finding, Severity
from jsoncontract.pipeline.answers import AnswerKind

if TYPE_CHECKING:
    from jsoncontract.baseline import Baseline
    from jsoncontract.live.probe.arguments import Seed
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.wire import Negotiated

#: Seconds the malformed-request check waits for an answer by default (the SDKs' servers
#: drop a message they cannot read without answering, so the wait is usually spent whole).
MALFORMED_WAIT: Final = 0.25


class CaseKind(StrEnum):
    """The kinds of probe case, in the order they are sent."""

    VALID = "valid"
    VALID_REQUIRED = "valid-required"
    MISSING_FIELD = "missing-field"
    WRONG_TYPE = "wrong-type"
    WRONG_ENUM = "wrong-enum"
    EXTRA_FIELD = "extra-field"
    STRING_FOR_NUMBER = "string-for-number"
    OUT_OF_RANGE = "out-of-range"
    STRING_ARGUMENTS = "string-arguments"


#: What a probe sends unless told otherwise.
DEFAULT_KINDS: Final = (
    CaseKind.VALID,
    CaseKind.VALID_REQUIRED,
    CaseKind.MISSING_FIELD,
    CaseKind.WRONG_TYPE,
    CaseKind.WRONG_ENUM,
    CaseKind.EXTRA_FIELD,
    CaseKind.STRING_FOR_NUMBER,
)


@dataclass(frozen=True, slots=True)
class ProbeSettings:
    """What to probe and how.

    ``tools`` limits the probe to those tools; ``allow`` lets it call tools that are not
    annotated read-only (``allow_writes``: every tool) or that may reach the outside world
    (``allow_open_world``: every such tool); ``kinds`` are the case kinds sent;
    ``max_cases`` caps the cases per tool (0: all). ``seeds`` give values for the valid
    calls (:mod:`~jsoncontract.live.probe.arguments`); ``malformed_wait`` is how long the
    malformed-request check waits for its answer.
    """

    tools: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    allow_writes: bool = False
    allow_open_world: bool = False
    dry_run: bool = False
    kinds: tuple[CaseKind, ...] = DEFAULT_KINDS
    max_cases: int = 0
    concurrency: int = 4
    protocol_checks: bool = True
    seeds: tuple[Seed, ...] = ()
    malformed_wait: float = MALFORMED_WAIT
    #: probe resources/read and prompts/get too
    resources: bool = True
    #: a bearer token issued for another resource, which the server must refuse
    foreign_token: str | None = field(default=None, repr=False)


@dataclass(frozen=True, slots=True)
class ProbeCase:
    """One call the probe makes: a tool, arguments, and what the tool's schema says."""

    tool: str
    name: str
    kind: CaseKind
    arguments: Any
    #: the tool's own input schema accepts these arguments
    schema_accepts: bool
    #: why the schema rejects them (``required at /order_id``), empty when it accepts
    because: str = ""
    path: str = ""
    #: where each value of a valid call came from, by JSON Pointer
    sources: dict[str, str] = field(default_factory=dict)
    #: the valid case a negative one derives from
    base: str = ""

    def request(self) -> dict[str, Any]:
        """The JSON-RPC params of the call."""
        return {"name": self.tool, "arguments": self.arguments}


@dataclass(slots=True)
class CaseResult:
    """What the server did with one case."""

    case: ProbeCase
    answer: AnswerKind | None = None
    code: int | None = None
    seconds: float | None = None
    #: the server's words: the error message, or the text of an isError result
    said: str = ""
    findings: list[Finding] = field(default_factory=list)
    #: why the case was not sent (dry run, the server crashed too often...)
    not_sent: str | None = None
    #: a rejection that proves nothing: no valid call was accepted, so the server may have
    #: refused the call for the reason it refused the valid one
    inconclusive: bool = False

    @property
    def ok(self) -> bool:
        """Sent, and no finding at warning level or above."""
        return self.not_sent is None and not any(
            f.severity is not Severity.INFO for f in self.findings
        )

    def to_dict(self) -> dict[str, Any]:
        """The case in the JSON report."""
        case = self.case
        out: dict[str, Any] = {
            "case": case.name,
            "kind": case.kind.value,
            # a schema's default or examples may hold a secret: shown by kind and hash
            "arguments": masked_value(case.arguments),
            "schema": "accepts" if case.schema_accepts else "rejects",
        }
        if case.because:
            out["because"] = case.because
        if case.sources:
            out["sources"] = case.sources
        if case.base:
            out["derived_from"] = case.base
        if self.not_sent is not None:
            out["sent"] = False
            out["reason"] = self.not_sent
            return out
        out["sent"] = True
        out["answer"] = self.answer.value if self.answer is not None else None
        if self.code is not None:
            out["code"] = self.code
        if self.said:
            out["said"] = self.said
        if self.seconds is not None:
            out["ms"] = round(self.seconds * 1000, 1)
        if self.inconclusive:
            out["verdict"] = "inconclusive"
        out["ok"] = self.ok
        out["findings"] = [f.to_dict() for f in self.findings]
        return out


@dataclass(slots=True)
class ToolProbe:
    """One tool: whether it was called, and what each case came to."""

    name: str
    read_only: bool
    annotations: dict[str, Any] | None
    skipped: str | None = None
    results: list[CaseResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    has_output_schema: bool = False
    #: no valid call was accepted: the negative cases' rejections prove nothing
    inconclusive: bool = False

    @property
    def sent(self) -> list[CaseResult]:
        """The cases that were sent."""
        return [r for r in self.results if r.not_sent is None]

    def latency(self) -> dict[str, float] | None:
        """Median, 95th percentile and slowest answer time in ms (answered calls only)."""
        times = sorted(
            r.seconds * 1000
            for r in self.sent
            if r.seconds is not None and r.answer not in (AnswerKind.TIMEOUT, AnswerKind.CRASHED)
        )
        if not times:
            return None
        p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
        return {
            "p50": round(statistics.median(times), 1),
            "p95": round(p95, 1),
            "max": round(times[-1], 1),
        }

    def counts(self) -> Counter[str]:
        """Answers by kind (``accepted``, ``tool-error``...)."""
        return Counter(r.answer.value for r in self.sent if r.answer is not None)

    def all_findings(self) -> list[Finding]:
        """The tool's own findings, then its cases'."""
        return [*self.findings, *(f for r in self.results for f in r.findings)]

    def to_dict(self) -> dict[str, Any]:
        """The tool in the JSON report."""
        out: dict[str, Any] = {
            "tool": self.name,
            "read_only": self.read_only,
            "called": self.skipped is None,
        }
        if self.skipped is not None:
            out["skipped"] = self.skipped
        out["annotations"] = self.annotations
        if self.inconclusive:
            out["verdict"] = "inconclusive"
        out["answers"] = dict(sorted(self.counts().items()))
        out["latency_ms"] = self.latency()
        out["findings"] = [f.to_dict() for f in self.findings]
        out["cases"] = [r.to_dict() for r in self.results]
        return out


@dataclass(slots=True)
class ProtocolCheck:
    """One check of the protocol beyond the tools.

    ``ok`` is ``None`` when the check did not apply (authentication over stdio) or was not
    run (a dry run).
    """

    name: str
    ok: bool | None
    detail: str
    seconds: float | None = None
    findings: list[Finding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The check in the JSON report."""
        out: dict[str, Any] = {"check": self.name, "ok": self.ok, "detail": self.detail}
        if self.seconds is not None:
            out["ms"] = round(self.seconds * 1000, 1)
        out["findings"] = [f.to_dict() for f in self.findings]
        return out


@dataclass(slots=True)
class ExtraCheck:
    """One ``resources/read`` or ``prompts/get`` the probe sent (or would send)."""

    method: str
    target: str
    ok: bool | None
    detail: str
    seconds: float | None = None
    #: where the arguments came from (prompts), by argument name
    sources: dict[str, str] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """The check in the JSON report."""
        out: dict[str, Any] = {
            "method": self.method,
            "target": self.target,
            "ok": self.ok,
            "detail": self.detail,
        }
        if self.seconds is not None:
            out["ms"] = round(self.seconds * 1000, 1)
        if self.sources:
            out["sources"] = self.sources
        out["findings"] = [f.to_dict() for f in self.findings]
        return out


@dataclass(slots=True)
class ServerProbe:
    """The scorecard of one server."""

    server: ServerSpec
    negotiated: Negotiated | None = None
    tools_listed: int = 0
    pages: int = 0
    tools: list[ToolProbe] = field(default_factory=list)
    protocol: list[ProtocolCheck] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    restarts: int = 0
    seconds: float = 0.0
    dry_run: bool = False
    #: the server could not be probed at all (it did not start, or never answered)
    error: str | None = None
    #: what the client declared and served (:meth:`ClientAnswers.report`)
    client: dict[str, Any] | None = None
    #: the checks of resources/read and prompts/get (:mod:`.extras`)
    extras: list[ExtraCheck] = field(default_factory=list)

    @property
    def label(self) -> str:
        """What reports call the server (see :func:`~jsoncontract.live.wire.display_name`)."""
        from jsoncontract.live.wire import display_name

        return display_name(self.server, self.negotiated)

    def all_findings(self) -> list[Finding]:
        """Every finding: the server's, the protocol checks', then the tools'."""
        out = list(self.findings)
        for check in self.protocol:
            out.extend(check.findings)
        for tool in self.tools:
            out.extend(tool.all_findings())
        for extra in self.extras:
            out.extend(extra.findings)
        return out

    def summary(self) -> dict[str, Any]:
        """The scorecard's totals."""
        findings = self.all_findings()
        sent = [r for t in self.tools for r in t.sent]
        answers = Counter(r.answer.value for r in sent if r.answer is not None)
        by_code = Counter(f.code for f in findings)
        return {
            "tools": self.tools_listed,
            "tools_called": sum(1 for t in self.tools if t.skipped is None),
            "tools_skipped": sum(1 for t in self.tools if t.skipped is not None),
            "tools_inconclusive": sum(1 for t in self.tools if t.inconclusive),
            "calls": len(sent),
            "answers": {k.value: answers.get(k.value, 0) for k in AnswerKind},
            "accepted_invalid": by_code.get(codes.PROBE_ACCEPTED_INVALID, 0),
            "coerced": by_code.get(codes.PROBE_COERCED, 0),
            "protocol_checks": {
                "passed": sum(1 for c in self.protocol if c.ok is True),
                "failed": sum(1 for c in self.protocol if c.ok is False),
            },
            "by_severity": {
                s.value: sum(1 for f in findings if f.severity is s)
                for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
            },
            "by_code": dict(sorted(by_code.items())),
        }

    def to_dict(self) -> dict[str, Any]:
        """The server in the JSON report."""
        out: dict[str, Any] = {"server": self.label, "transport": self.server.transport}
        negotiated = self.negotiated
        if negotiated is not None:
            out["protocol_version"] = negotiated.version
            out["negotiated_with"] = negotiated.method
            if negotiated.server_info:
                out["server_info"] = {
                    k: v for k, v in negotiated.server_info.items() if k in ("name", "version")
                }
        if self.error is not None:
            out["error"] = self.error
            return out
        out["dry_run"] = self.dry_run
        out["summary"] = self.summary()
        out["restarts"] = self.restarts
        out["seconds"] = round(self.seconds, 3)
        out["findings"] = [f.to_dict() for f in self.findings]
        out["protocol"] = [c.to_dict() for c in self.protocol]
        if self.client is not None:
            out["client"] = self.client
        out["tools"] = [t.to_dict() for t in self.tools]
        out["extras"] = [e.to_dict() for e in self.extras]
        return out


@dataclass(slots=True)
class ProbeReport:
    """What :func:`probe` returns: one scorecard per server."""

    servers: list[ServerProbe]

    def all_findings(self) -> list[Finding]:
        """Every finding of every server."""
        return [f for s in self.servers for f in s.all_findings()]

    def worst(self) -> Severity | None:
        """The most severe finding a baseline does not hold, or ``None``."""
        ranks = [f.severity for f in self.counting()]
        return max(ranks, key=lambda s: s.rank) if ranks else None

    @property
    def failed(self) -> bool:
        """A server could not be probed."""
        return any(s.error is not None for s in self.servers)

    def mark(self, baseline: Baseline) -> None:
        """Mark every finding new or unchanged against a previous report's findings."""
        matcher = baseline.matcher()
        for card in self.servers:
            card.findings = matcher.mark(card.findings)
            for check in card.protocol:
                check.findings = matcher.mark(check.findings)
            for tool in card.tools:
                tool.findings = matcher.mark(tool.findings)
                for result in tool.results:
                    result.findings = matcher.mark(result.findings)
            for extra in card.extras:
                extra.findings = matcher.mark(extra.findings)

    def counting(self) -> list[Finding]:
        """The findings that decide the exit code (those a baseline does not hold)."""
        from jsoncontract.baseline import counts

        return [f for f in self.all_findings() if counts(f)]

    def to_dict(self) -> dict[str, Any]:
        """The whole JSON report."""
        findings = self.all_findings()
        return {
            "version": 1,
            "summary": {
                "servers": len(self.servers),
                "unreachable": sum(1 for s in self.servers if s.error is not None),
                "findings": len(findings),
                "by_severity": {
                    s.value: sum(1 for f in findings if f.severity is s)
                    for s in (Severity.ERROR, Severity.WARNING, Severity.INFO)
                },
            },
            "servers": [s.to_dict() for s in self.servers],
        }


def parse_kinds(text: str) -> tuple[CaseKind, ...]:
    """``valid,missing-field`` -> the case kinds, in the order they are sent.

    Raises:
        UsageError: an unknown kind (with the known ones).
    """
    from jsoncontract.errors import UsageError

    known = {k.value: k for k in CaseKind}
    chosen = []
    for word in (w.strip() for w in text.split(",")):
        if not word:
            continue
        if word not in known:
            raise UsageError(f"--cases: unknown case kind {word!r}; known: {', '.join(known)}")
        chosen.append(known[word])
    if not chosen:
        raise UsageError(f"--cases names no case kind; known: {', '.join(known)}")
    return tuple(k for k in CaseKind if k in chosen)
