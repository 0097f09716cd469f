"""``mcp probe``: does a live server keep the contract it advertises?

For every tool it may call, the probe sends the cases ``jsoncontract fixtures`` derives from
the tool's own input schema (a valid call, then one broken in one place: a required member
missing, a wrong type, a value outside the enum, an undeclared member, a string where a
number belongs) and compares what the server did with what its schema says:

- a call the schema rejects but the server **accepts** is the finding that matters
  (``probe.accepted_invalid``; ``probe.coerced`` when it took ``"20"`` for a number);
- a rejection is checked for the kind the negotiated version asks for, results for
  ``structuredContent`` against ``outputSchema`` (see :mod:`jsoncontract.pipeline.answers`);
- a call that times out, crashes the server, or gets an unreadable answer is a finding;
  a crash restarts the server and the run goes on.

Beyond the tools, the protocol: ``initialize`` and ``tools/list`` in time, an unknown
method answered -32601, a malformed request -32600, an unknown tool as the version says,
well-formed error objects, nothing but JSON-RPC on stdout, and, for an HTTP server said to
require credentials, a request without them refused with 401.

**Safety.** Only tools annotated ``readOnlyHint: true`` are called, unless named with
``allow`` (or ``allow_writes``); ``dry_run`` plans every request and sends none of the calls.
Nothing is sent anywhere but the named server, and every request has a timeout.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.errors import SchemaLoadError, ServerError
from jsoncontract.model import Finding, Severity, Source
from jsoncontract.pipeline.answers import (
    AnswerKind,
    error_findings,
    invalid_arguments_findings,
    result_envelope_findings,
    structured_content_findings,
    unknown_tool_findings,
)
from jsoncontract.redact import masked_value

if TYPE_CHECKING:
    from jsoncontract.live.client import Connection, ConnectOptions, Negotiated, Reply
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.tools import ToolListing
    from jsoncontract.model import ToolContract
    from jsoncontract.validation import CompiledSchema

#: A tool name no server has (the unknown-tool check calls it).
UNKNOWN_TOOL: Final = "jsoncontract_probe_no_such_tool"
UNKNOWN_METHOD: Final = "jsoncontract/probe-unknown-method"
#: Seconds the protocol checks wait for an answer at most (a server that ignores a
#: malformed request must not hold the run for the whole call timeout).
PROTOCOL_WAIT: Final = 1.0


class CaseKind(StrEnum):
    """The kinds of probe case, in the order they are sent."""

    VALID = "valid"
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
    annotated read-only (``allow_writes``: every tool); ``kinds`` are the case kinds sent;
    ``max_cases`` caps the cases per tool (0: all).
    """

    tools: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()
    allow_writes: bool = False
    dry_run: bool = False
    kinds: tuple[CaseKind, ...] = DEFAULT_KINDS
    max_cases: int = 0
    concurrency: int = 4
    protocol_checks: bool = True


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

    @property
    def label(self) -> str:
        """What reports call the server (see :func:`~jsoncontract.live.client.display_name`)."""
        from jsoncontract.live.client import display_name

        return display_name(self.server, self.negotiated)

    def all_findings(self) -> list[Finding]:
        """Every finding: the server's, the protocol checks', then the tools'."""
        out = list(self.findings)
        for check in self.protocol:
            out.extend(check.findings)
        for tool in self.tools:
            out.extend(tool.all_findings())
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
        out["tools"] = [t.to_dict() for t in self.tools]
        return out


@dataclass(slots=True)
class ProbeReport:
    """What :func:`probe` returns: one scorecard per server."""

    servers: list[ServerProbe]

    def all_findings(self) -> list[Finding]:
        """Every finding of every server."""
        return [f for s in self.servers for f in s.all_findings()]

    def worst(self) -> Severity | None:
        """The most severe finding, or ``None``."""
        ranks = [f.severity for f in self.all_findings()]
        return max(ranks, key=lambda s: s.rank) if ranks else None

    @property
    def failed(self) -> bool:
        """A server could not be probed."""
        return any(s.error is not None for s in self.servers)

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


# -- planning ------------------------------------------------------------------------------


def is_read_only(tool: dict[str, Any] | ToolContract) -> bool:
    """Whether a tool is annotated ``readOnlyHint: true`` (the only tools called unasked)."""
    annotations = tool.get("annotations") if isinstance(tool, dict) else tool.annotations
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


def may_call(name: str, read_only: bool, settings: ProbeSettings, spec: ServerSpec) -> str | None:
    """Why a tool must not be called (``None`` when it may be)."""
    if read_only or settings.allow_writes or name in settings.allow or name in spec.allow:
        return None
    return (
        f"not annotated readOnlyHint: true, so it may change something; "
        f"--allow {name} calls it anyway"
    )


def plan_cases(
    tool: ToolContract, compiled: CompiledSchema, kinds: Sequence[CaseKind], max_cases: int = 0
) -> tuple[list[ProbeCase], str | None]:
    """The cases for one tool, derived from its input schema as ``fixtures`` derives
    them; ``(cases, None)``, or ``([], why)`` when no valid call can be built."""
    from jsoncontract.suites.generate import generate_cases
    from jsoncontract.suites.kinds import CaseKind as SuiteKind
    from jsoncontract.suites.model import InputKind

    wanted = {k.value for k in kinds}
    if CaseKind.STRING_FOR_NUMBER.value in wanted:
        wanted_suite = wanted | {SuiteKind.WRONG_TYPE.value}
    else:
        wanted_suite = wanted
    suite_kinds = [SuiteKind.VALID] + [
        k
        for k in (
            SuiteKind.MISSING_FIELD,
            SuiteKind.WRONG_TYPE,
            SuiteKind.WRONG_ENUM,
            SuiteKind.EXTRA_FIELD,
            SuiteKind.OUT_OF_RANGE,
            SuiteKind.STRING_ARGUMENTS,
        )
        if k.value in wanted_suite
    ]
    drafts, _, error = generate_cases(tool, compiled, kinds=suite_kinds)
    if error is not None:
        return [], error
    cases: list[ProbeCase] = []
    seen: set[str] = set()
    for draft in drafts:
        if draft.input_kind is not InputKind.ARGUMENTS:
            continue
        kind = _kind_of(draft)
        if kind.value not in wanted:
            continue
        name = "valid" if kind is CaseKind.VALID else str(draft.name)
        if kind is CaseKind.STRING_FOR_NUMBER:
            name = name.replace(SuiteKind.WRONG_TYPE.value, kind.value, 1)
        if name in seen:
            continue
        seen.add(name)
        accepts = isinstance(draft.input, dict) and compiled.is_valid(draft.input)
        expect = draft.expect
        because = ""
        if not accepts:
            reason = expect.keyword or expect.code or (expect.stage.value if expect.stage else "")
            because = f"{reason} at {expect.path or '/'}" if reason else ""
        cases.append(
            ProbeCase(
                tool.name,
                name,
                kind,
                draft.input,
                accepts,
                because,
                expect.path or "",
            )
        )
    if max_cases and len(cases) > max_cases:
        cases = cases[:max_cases]
    return cases, None


def _kind_of(draft: Any) -> CaseKind:
    from jsoncontract.suites.kinds import CaseKind as SuiteKind

    if draft.kind is SuiteKind.WRONG_TYPE and _is_number_as_text(draft):
        return CaseKind.STRING_FOR_NUMBER
    return CaseKind(draft.kind.value)


def _is_number_as_text(draft: Any) -> bool:
    """A wrong-type case that sends a number (or boolean) as its JSON text: ``"20"``."""
    from jsoncontract.pointer import pointer_tokens

    value: Any = draft.input
    for token in pointer_tokens(draft.expect.path or ""):
        if isinstance(value, dict):
            value = value.get(token)
        elif isinstance(value, list) and token.isdigit() and int(token) < len(value):
            value = value[int(token)]
        else:
            return False
    if not isinstance(value, str):
        return False
    import orjson

    try:
        parsed = orjson.loads(value)
    except orjson.JSONDecodeError:
        return False
    return isinstance(parsed, int | float) and not isinstance(parsed, bool)


# -- judging -------------------------------------------------------------------------------


def answer_of(reply: Reply) -> tuple[AnswerKind, int | None, str]:
    """What a reply amounts to: its kind, its error code, and the server's words."""
    from jsoncontract.live.client import ReplyKind

    if reply.kind is ReplyKind.RESULT:
        result = reply.result or {}
        if result.get("isError") is True:
            return AnswerKind.TOOL_ERROR, None, _said(result)
        return AnswerKind.ACCEPTED, None, ""
    if reply.kind is ReplyKind.ERROR:
        error = reply.error or {}
        return AnswerKind.PROTOCOL_ERROR, reply.code, _short(str(error.get("message", "")))
    if reply.kind is ReplyKind.TIMEOUT:
        return AnswerKind.TIMEOUT, None, reply.detail
    if reply.kind is ReplyKind.CLOSED:
        return AnswerKind.CRASHED, None, reply.detail
    return AnswerKind.INVALID, None, reply.detail


def _said(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                return _short(block["text"])
    return ""


def _short(text: str, limit: int = 160) -> str:
    """The server's words for a report: on one line, cut short, and every secret in them
    replaced by its kind and hash (reports never repeat a credential a server leaks)."""
    from jsoncontract.redact import masked

    text = " ".join(masked(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def judge(
    case: ProbeCase,
    reply: Reply,
    *,
    version: str,
    output_schema: Any,
    label: str,
) -> CaseResult:
    """Compare what the server did with what the tool's schema says."""
    kind, code, said = answer_of(reply)
    out = CaseResult(case, kind, code, reply.seconds, said)
    findings = out.findings
    tool = case.tool
    where = Source(label)

    def add(code_: str, severity: Severity, message: str, hint: str | None = None) -> None:
        findings.append(
            Finding(
                code_,
                severity,
                f"{case.name}: {message}",
                path=case.path,
                tool=tool,
                source=where,
                hint=hint,
            )
        )

    if kind is AnswerKind.TIMEOUT:
        add(
            codes.PROBE_TIMEOUT,
            Severity.ERROR,
            f"no answer to tools/call {said.removeprefix('no answer ') or 'in time'}",
            "every call needs an answer in bounded time; a host times out and the agent "
            "retries or gives up",
        )
        return out
    if kind is AnswerKind.CRASHED:
        add(
            codes.PROBE_CRASHED,
            Severity.ERROR,
            f"the server crashed during the call: {said}",
            "a tool must answer bad input with an error, not exit",
        )
        return out
    if kind is AnswerKind.INVALID:
        add(
            codes.PROBE_INVALID_ANSWER,
            Severity.ERROR,
            f"the answer is not a JSON-RPC response: {said}",
            'answer with {"jsonrpc": "2.0", "id": <the request id>, "result" | "error"}',
        )
        return out
    if kind is AnswerKind.PROTOCOL_ERROR:
        for finding in error_findings(reply.error, tool=tool):
            findings.append(_located(finding, case, where))
    if kind is AnswerKind.ACCEPTED or kind is AnswerKind.TOOL_ERROR:
        for finding in result_envelope_findings(reply.result, version, tool=tool):
            findings.append(_located(finding, case, where))
    if case.schema_accepts:
        if kind.rejected:
            how = kind.phrase(code) + (f": {said}" if said else "")
            add(
                codes.PROBE_REJECTED_VALID,
                Severity.WARNING,
                f"arguments the input schema accepts were {how}",
                "if the server needs more than the schema says (an id that exists, a field "
                "that depends on another), say it in the schema, or give examples the "
                "generator uses",
            )
        if kind is AnswerKind.ACCEPTED:
            for finding in structured_content_findings(
                reply.result, output_schema, version, tool=tool
            ):
                findings.append(_located(finding, case, where))
        return out
    if kind is AnswerKind.ACCEPTED:
        if case.kind is CaseKind.STRING_FOR_NUMBER:
            add(
                codes.PROBE_COERCED,
                Severity.ERROR,
                f"accepted a string where the input schema says a number ({case.because}): "
                "the server coerces (or ignores) it",
                "validate the arguments against the input schema before converting them; a "
                'model that learns "20" works will keep sending strings',
            )
        else:
            add(
                codes.PROBE_ACCEPTED_INVALID,
                Severity.ERROR,
                f"accepted arguments its input schema rejects ({case.because})",
                "validate arguments against the advertised inputSchema (or change the schema "
                "to say what the server really accepts)",
            )
        return out
    if case.kind is not CaseKind.STRING_ARGUMENTS:
        for finding in invalid_arguments_findings(kind, code, version, tool=tool):
            findings.append(_located(finding, case, where))
    return out


def _located(finding: Finding, case: ProbeCase, where: Source) -> Finding:
    from dataclasses import replace

    return replace(finding, message=f"{case.name}: {finding.message}", source=where)


# -- running ------------------------------------------------------------------------------


async def probe_server(
    spec: ServerSpec,
    settings: ProbeSettings,
    options: ConnectOptions,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> ServerProbe:
    """Probe one server. A server that cannot be started or spoken to gives a scorecard
    whose ``error`` says why (the caller decides the exit code)."""
    from time import perf_counter

    from jsoncontract.live.client import connect
    from jsoncontract.live.tools import list_tools

    card = ServerProbe(spec, dry_run=settings.dry_run)
    start = perf_counter()
    try:
        async with connect(spec, options) as conn:
            card.negotiated = conn.negotiated
            listing = await list_tools(conn)
            card.tools_listed = len(listing.tools)
            card.pages = listing.pages
            card.findings.extend(listing.problems)
            card.protocol.append(_negotiation_check(conn))
            card.protocol.append(
                ProtocolCheck(
                    "tools/list",
                    True,
                    f"{len(listing.tools)} tools in {listing.pages} "
                    f"page{'s' if listing.pages != 1 else ''}",
                    listing.seconds,
                )
            )
            plan = _plan(listing, settings, card)
            if settings.protocol_checks:
                card.protocol.extend(await _protocol_checks(conn, settings))
            cases = [c for tool_cases in plan.values() for c in tool_cases]
            if settings.dry_run:
                for tool in card.tools:
                    tool.results = [
                        CaseResult(c, not_sent="dry run") for c in plan.get(tool.name, [])
                    ]
            else:
                results = await _run_cases(
                    conn, spec, options, listing, cases, settings, card, progress
                )
                for tool in card.tools:
                    tool.results = [results[id(c)] for c in plan.get(tool.name, [])]
                # A server writes in order: once a ping is answered, whatever it sent after
                # its last answer (a list_changed notification, stray output) has been read.
                await conn.request("ping", timeout=min(PROTOCOL_WAIT, conn.options.timeout))
            card.protocol.append(_stdout_check(conn, spec))
            card.findings.extend(_noise_after(conn, listing))
            card.findings.extend(_notification_findings(conn, card.label))
        if spec.requires_auth and not settings.dry_run:
            card.protocol.append(await _auth_check(spec, options, card.label))
    except ServerError as exc:
        card.error = str(exc)
    card.seconds = perf_counter() - start
    return card


def _negotiation_check(conn: Connection) -> ProtocolCheck:
    """The negotiation, as a check: how, which version, how long (it passed, or the
    connection would have failed)."""
    negotiated = conn.negotiated
    assert negotiated is not None
    text = negotiated.describe()
    if negotiated.fallback:
        text += f"; {negotiated.fallback}"
    return ProtocolCheck(negotiated.method, True, text, negotiated.seconds)


def _plan(
    listing: ToolListing, settings: ProbeSettings, card: ServerProbe
) -> dict[str, list[ProbeCase]]:
    """The cases of every tool that will be called; a :class:`ToolProbe` per tool."""
    from jsoncontract.validation import CompiledSchema

    label = listing.label
    contracts = {c.name: c for c in listing.contracts()}
    unknown = [n for n in settings.tools if n not in contracts]
    if unknown:
        from jsoncontract._spelling import did_you_mean

        names = list(contracts)
        guesses = [did_you_mean(n, names) for n in unknown]
        hint = "; ".join(f"did you mean {g!r}?" for g in guesses if g)
        raise ServerError(
            f"{label}: no tool named {', '.join(map(repr, unknown))}"
            + (f" ({hint})" if hint else f"; it lists {', '.join(names[:10]) or 'none'}")
        )
    plan: dict[str, list[ProbeCase]] = {}
    for contract in contracts.values():
        if settings.tools and contract.name not in settings.tools:
            continue
        read_only = is_read_only(contract)
        tool = ToolProbe(
            contract.name,
            read_only,
            contract.annotations,
            has_output_schema=contract.output_schema is not None,
        )
        card.tools.append(tool)
        refusal = may_call(contract.name, read_only, settings, card.server)
        if refusal is not None:
            tool.skipped = refusal
            continue
        try:
            compiled = CompiledSchema(contract.input_schema, label=f"tool {contract.name!r}")
        except SchemaLoadError as exc:
            tool.skipped = "its inputSchema is not a valid JSON Schema"
            tool.findings.append(
                Finding(
                    codes.PROBE_SCHEMA_INVALID,
                    Severity.ERROR,
                    f"cannot derive calls: the inputSchema is not a valid JSON Schema: "
                    f"{exc.message}",
                    tool=contract.name,
                    source=Source(label),
                    hint="jsoncontract mcp lint shows where the schema is broken",
                )
            )
            continue
        cases, why = plan_cases(contract, compiled, settings.kinds, settings.max_cases)
        if why is not None:
            tool.skipped = "no valid call can be derived from its inputSchema"
            tool.findings.append(
                Finding(
                    codes.PROBE_NO_CASES,
                    Severity.WARNING,
                    f"cannot derive calls: {why}",
                    tool=contract.name,
                    source=Source(label),
                    hint="give the schema examples, or check that it admits any value",
                )
            )
            continue
        plan[contract.name] = cases
    return plan


async def _run_cases(
    conn: Connection,
    spec: ServerSpec,
    options: ConnectOptions,
    listing: ToolListing,
    cases: list[ProbeCase],
    settings: ProbeSettings,
    card: ServerProbe,
    progress: Callable[[int, int], None] | None,
) -> dict[int, CaseResult]:
    """Send every case (see :func:`~jsoncontract.live.calls.send_calls`) and judge each
    answer."""
    from jsoncontract.live.calls import Call, send_calls

    version = conn.version
    usable = listing.usable()
    outputs = {t["name"]: t.get("outputSchema") for t in usable}
    run = await send_calls(
        conn,
        spec,
        options,
        [Call(id(case), case.tool, case.arguments) for case in cases],
        concurrency=settings.concurrency,
        tools=usable,
        progress=progress,
    )
    card.restarts = run.restarts
    results: dict[int, CaseResult] = {}
    for case in cases:
        outcome = run.outcomes[id(case)]
        if outcome.reply is None:
            results[id(case)] = CaseResult(case, not_sent=outcome.not_sent)
            continue
        results[id(case)] = judge(
            case,
            outcome.reply,
            version=version,
            output_schema=outputs.get(case.tool),
            label=card.label,
        )
    return results


async def _protocol_checks(conn: Connection, settings: ProbeSettings) -> list[ProtocolCheck]:
    """The unknown-method, malformed-request and unknown-tool checks (planned only, in a
    dry run)."""
    from jsoncontract.live.client import ReplyKind

    checks: list[ProtocolCheck] = []
    label = conn.label
    version = conn.version
    wait = min(PROTOCOL_WAIT, conn.options.timeout)
    if settings.dry_run:
        return [
            ProtocolCheck("unknown method", None, f"would send {UNKNOWN_METHOD} (expects -32601)"),
            ProtocolCheck(
                "malformed request",
                None,
                "would send a request whose method is a number (expects -32600)",
            ),
            ProtocolCheck(
                "unknown tool", None, f"would call {UNKNOWN_TOOL} (expects a JSON-RPC error)"
            ),
        ]

    def finding(code: str, severity: Severity, message: str, hint: str) -> Finding:
        return Finding(code, severity, message, source=Source(label), hint=hint)

    reply = await conn.request(UNKNOWN_METHOD, {}, timeout=wait)
    check = ProtocolCheck("unknown method", reply.code == -32601, reply.describe(), reply.seconds)
    if reply.kind is ReplyKind.ERROR:
        check.findings.extend(error_findings(reply.error))
    if not check.ok:
        check.findings.append(
            finding(
                codes.PROBE_UNKNOWN_METHOD,
                Severity.WARNING,
                f"an unknown method ({UNKNOWN_METHOD}) {reply.answered()}; "
                "JSON-RPC says -32601 (Method not found)",
                'answer {"code": -32601, "message": "Method not found"}',
            )
        )
    checks.append(check)

    request_id = conn.allocate_id()
    text = f'{{"jsonrpc":"2.0","id":{request_id},"method":1,"params":"malformed"}}'
    reply = await conn.send_verbatim(text, request_id, timeout=wait)
    check = ProtocolCheck(
        "malformed request", reply.code == -32600, reply.describe(), reply.seconds
    )
    if reply.kind is ReplyKind.ERROR:
        check.findings.extend(error_findings(reply.error))
    if not check.ok:
        check.findings.append(
            finding(
                codes.PROBE_MALFORMED_REQUEST,
                Severity.WARNING,
                f"a malformed request (method 1, params a string) {reply.answered()}; "
                "JSON-RPC says -32600 (Invalid Request), with a null id when the id cannot be "
                "read",
                "answer every request that cannot be read with an error: a host waiting for "
                "an answer hangs until its timeout",
            )
        )
    checks.append(check)

    reply = await conn.call_tool(UNKNOWN_TOOL, {}, timeout=wait)
    kind, code, said = answer_of(reply)
    problems = unknown_tool_findings(kind, code, version)
    if kind is AnswerKind.PROTOCOL_ERROR:
        problems.extend(error_findings(reply.error))
    check = ProtocolCheck(
        "unknown tool",
        not problems,
        kind.phrase(code) + (f": {said}" if said else ""),
        reply.seconds,
        [_at_server(f, label) for f in problems],
    )
    checks.append(check)
    return checks


def _at_server(finding: Finding, label: str) -> Finding:
    """The finding, located at the server."""
    from dataclasses import replace

    return replace(finding, source=Source(label))


def _stdout_check(conn: Connection, spec: ServerSpec) -> ProtocolCheck:
    if spec.transport != "stdio":
        return ProtocolCheck("stdout", None, "not a stdio server")
    if not conn.noise:
        return ProtocolCheck("stdout", True, "JSON-RPC messages only")
    return ProtocolCheck(
        "stdout",
        False,
        f"{conn.noise_count} line(s) that are not JSON-RPC, first: {conn.noise[0].text!r}",
    )


def _notification_findings(conn: Connection, label: str) -> list[Finding]:
    """A ``tools/list_changed`` notification from a server that did not declare
    ``capabilities.tools.listChanged`` (hosts that trust the capability never re-list)."""
    sent = conn.notifications.get("notifications/tools/list_changed", 0)
    negotiated = conn.negotiated
    tools = negotiated.capabilities.get("tools") if negotiated is not None else None
    declared = isinstance(tools, dict) and tools.get("listChanged") is True
    if not sent or declared:
        return []
    return [
        Finding(
            codes.PROBE_LIST_CHANGED_UNDECLARED,
            Severity.WARNING,
            f"the server sent notifications/tools/list_changed ({sent} time"
            f"{'s' if sent != 1 else ''}) without declaring capabilities.tools.listChanged",
            source=Source(label),
            hint="declare tools.listChanged: true, or do not send the notification: a host "
            "that reads the capability never lists the tools again",
        )
    ]


def _noise_after(conn: Connection, listing: ToolListing) -> list[Finding]:
    """Stray output that came after the tool listing was reported."""
    from jsoncontract.live.tools import _noise_findings

    if any(f.code == codes.MCP_STDOUT_NOISE for f in listing.problems):
        return []
    return _noise_findings(conn)


async def _auth_check(spec: ServerSpec, options: ConnectOptions, label: str) -> ProtocolCheck:
    """An ``initialize`` POST without the credential headers must be refused with 401."""
    from time import perf_counter

    import httpx2

    from jsoncontract._version import __version__

    assert spec.url is not None
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "jsoncontract", "version": __version__},
        },
    }
    start = perf_counter()
    headers = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
    try:
        async with httpx2.AsyncClient(timeout=options.timeout, follow_redirects=False) as client:
            response = await client.post(spec.url, json=body, headers=headers)
            status = response.status_code
    except httpx2.HTTPError as exc:
        return ProtocolCheck(
            "authentication", False, f"the request failed: {exc}", perf_counter() - start
        )
    seconds = perf_counter() - start
    if status == 401:
        return ProtocolCheck("authentication", True, "a request without credentials: 401", seconds)
    severity = Severity.WARNING if status == 403 else Severity.ERROR
    return ProtocolCheck(
        "authentication",
        False,
        f"a request without credentials: HTTP {status}",
        seconds,
        [
            Finding(
                codes.PROBE_AUTH_NOT_ENFORCED,
                severity,
                f"initialize without the credential headers was answered with HTTP {status}; a "
                "server that requires credentials answers 401"
                + (" (403 means authenticated but forbidden)" if status == 403 else ""),
                source=Source(label),
                hint="refuse unauthenticated requests with 401 and a WWW-Authenticate header "
                "(MCP authorization, RFC 9110)",
            )
        ],
    )


async def probe_servers(
    specs: Sequence[ServerSpec],
    settings: ProbeSettings,
    options: ConnectOptions,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> ProbeReport:
    """Probe several servers, one after another."""
    return ProbeReport([await probe_server(s, settings, options, progress=progress) for s in specs])


def probe(
    spec: ServerSpec | Sequence[ServerSpec],
    settings: ProbeSettings | None = None,
    options: ConnectOptions | None = None,
) -> ProbeReport:
    """Probe one server or several (the synchronous entry point; see :func:`probe_server`)."""
    import anyio

    from jsoncontract.live.client import ConnectOptions as Options

    specs = [spec] if not isinstance(spec, Sequence) else list(spec)
    chosen = settings or ProbeSettings()
    connect_options = options or Options()

    async def main() -> ProbeReport:
        return await probe_servers(specs, chosen, connect_options)

    return anyio.run(main)


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
