"""Running every gate over calls: envelope -> parse -> schema -> business, then result.

Each gate on the arguments produces findings; the first gate with an error stops the
arguments and names the failure (``CallResult.stage``). The result gate then looks at what
came back, whether the arguments passed or not (an invalid call answered the wrong way is
one of its findings). The gates never raise for bad data.

Three gates are slots, filled by anything with their shape: :class:`BusinessGate`,
:class:`ResultGate` (a call's result), and :class:`SessionGate` (what spans calls: turns,
MCP sessions, results without calls), which sees every call after its gates and every
trace event, and adds run-level findings (:attr:`Checker.findings`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from jsoncontract.model import (
    STAGE_ORDER,
    ArgumentsForm,
    CallResult,
    EventKind,
    Finding,
    Hop,
    PassedCall,
    Severity,
    Source,
    Stage,
    ToolCall,
    ToolContract,
    ToolResult,
    TraceEvent,
    locate,
    offered_to,
)
from jsoncontract.pipeline.contracts import SessionContracts
from jsoncontract.pipeline.offered import Contracts
from jsoncontract.pipeline.parse import parse_arguments
from jsoncontract.pipeline.result import ResultChecks
from jsoncontract.pipeline.schema import schema_findings

if TYPE_CHECKING:
    from jsoncontract.tools.toolset import ToolSet

_ERROR: Final = Severity.ERROR
_SCHEMA: Final = Stage.SCHEMA
_STAGE_RANK: Final = {stage: rank for rank, stage in enumerate(STAGE_ORDER)}
_UNRECORDED: Final = ArgumentsForm.UNRECORDED
#: The events whose result is checked alone (its call was checked without it, or is not in
#: the capture).
_ALONE: Final = frozenset(
    (EventKind.LATE_RESULT, EventKind.ORPHAN_RESULT, EventKind.CONFLICTING_RESULT)
)


@runtime_checkable
class BusinessGate(Protocol):
    """The business-rules gate: what a schema cannot say.

    ``check`` sees every call that passed the schema gate, in order, with its parsed
    arguments; it may keep state across calls (trace-level rules such as idempotency).
    It returns findings with ``stage=business`` and must not raise for bad data.
    """

    def check(self, call: ToolCall, arguments: Any, tool: ToolContract) -> Iterable[Finding]:
        """Findings for one call."""
        ...  # pragma: no cover


class Default:
    """The type of :data:`DEFAULT`: "the default gate", where ``None`` means none."""


DEFAULT: Final = Default()


@runtime_checkable
class ResultGate(Protocol):
    """The result gate: what came back for a call (``call.result``).

    ``check`` sees every call that has a result, after the argument gates, in order, with
    the tool's contract (``None`` when the tool is unknown) and the outcome of those gates
    (``checked.stage`` is where the arguments failed, if they did; ``checked.arguments``
    the parsed arguments). It returns findings with ``stage=result`` and must not raise for
    bad data. Findings without a ``source`` are placed at the result's.
    """

    def check(
        self, call: ToolCall, tool: ToolContract | None, checked: CallResult
    ) -> Iterable[Finding]:
        """Findings for one call's result."""
        ...  # pragma: no cover


@runtime_checkable
class SessionGate(Protocol):
    """The contracts over a whole run: turns, MCP sessions, results without calls.

    It sees every call once all its other gates have run (:meth:`call`: findings on that
    call) and every trace event in capture order between them (:meth:`event`), and ends
    the run (:meth:`close`); the findings of those two are run-level. It may keep state
    across calls and must not raise for bad data. A gate with nothing to say about single
    calls sets a class attribute ``per_call = False`` and is not asked (a check of a
    million calls is the faster for it).
    """

    def call(self, checked: CallResult) -> Iterable[Finding]:
        """Findings on one checked call."""
        ...  # pragma: no cover

    def event(self, event: TraceEvent) -> Iterable[Finding]:
        """Run-level findings for one trace event."""
        ...  # pragma: no cover

    def close(self) -> Iterable[Finding]:
        """Run-level findings once every call and event has been seen."""
        ...  # pragma: no cover


class Checker:
    """Runs the gates over calls, against one :class:`~jsoncontract.tools.ToolSet`.

    Arguments:
        tools: the tool contracts, schemas compiled; empty, each call's contract is the
            tools offered with it (:mod:`jsoncontract.pipeline.offered`).
        business: the business gate, or ``None`` to stop after the schema gate.
        results: the result gate (default: :class:`~jsoncontract.pipeline.result.ResultChecks`
            with default settings); ``None`` to check no result.
        session: the gate over the run (default:
            :class:`~jsoncontract.pipeline.contracts.SessionContracts`, every turn and
            session contract with default settings); ``None`` for none.
        show_values: quote sensitive-looking values in messages instead of hashing them.

    Run-level findings gather in :attr:`findings` as :meth:`run` goes.
    """

    def __init__(
        self,
        tools: ToolSet,
        *,
        business: BusinessGate | None = None,
        results: ResultGate | Default | None = DEFAULT,
        session: SessionGate | Default | None = DEFAULT,
        show_values: bool = False,
    ) -> None:
        self.tools = tools
        self.contracts = Contracts(tools)
        self.business = business
        self.results: ResultGate | None = (
            ResultChecks() if isinstance(results, Default) else results
        )
        self.session: SessionGate | None = (
            SessionContracts(tools) if isinstance(session, Default) else session
        )
        self.show_values = show_values
        self.findings: list[Finding] = []
        # a gate that says nothing per call (``per_call = False``) is not asked
        self._per_call = self.session is not None and getattr(self.session, "per_call", True)

    def run(self, trace: Iterable[ToolCall | TraceEvent]) -> Iterator[CallResult]:
        """Check calls one by one, streaming results; trace events among them go to the
        session gate, and so do the calls once checked. The gate's closing findings are
        added to :attr:`findings` when ``trace`` is exhausted."""
        check = self.check
        arguments = self._arguments
        session = self.session
        per_call = self._per_call
        for item in trace:
            if type(item) is ToolCall:
                # a call without a result, which no gate looks at alone, has the argument
                # gates only
                if item.result is None and not per_call:
                    yield arguments(item)
                else:
                    yield check(item)
            else:
                self.findings.extend(self.event(item))  # type: ignore[arg-type]
        if session is not None:
            self.findings.extend(session.close())

    def stream(self, items: Iterable[Any]) -> Iterator[CallResult | PassedCall]:
        """:meth:`run` over what :meth:`CaptureReader.read_checked
        <jsoncontract.capture.reader.CaptureReader.read_checked>` yields: calls the fast
        lane checked (a :class:`~jsoncontract.model.PassedCall`, or a result) come as they
        are, the other calls are checked here."""
        check = self.check
        arguments = self._arguments
        session = self.session
        per_call = self._per_call
        findings = self.findings
        for item in items:
            kind = type(item)
            if kind is PassedCall or kind is CallResult:
                yield item
            elif kind is ToolCall:
                if item.result is None and not per_call:
                    yield arguments(item)
                else:
                    yield check(item)
            else:
                findings.extend(self.event(item))
        if session is not None:
            findings.extend(session.close())

    def event(self, event: TraceEvent) -> list[Finding]:
        """Run-level findings for one trace event: the gate over the run's, and, for a
        result that came without its call (late, orphan, or a second one that differs),
        the result gate's over that result alone (its call's arguments are not at hand,
        so the business rules over results do not run)."""
        found: list[Finding] = []
        session = self.session
        if session is not None:
            found.extend(session.event(event))
        result = event.result
        if result is not None and event.kind in _ALONE:
            alone = self.result_alone(result)
            hold = getattr(session, "hold", None)
            if hold is not None:  # the gate holds findings in capture order: these too
                hold(alone)
            else:
                found.extend(alone)
        return found

    def result_alone(self, result: ToolResult) -> list[Finding]:
        """The result gate over a result whose call is not at hand."""
        tool = self.tools.get(result.tool, result.hop) if result.tool is not None else None
        call = ToolCall(
            result.hop,
            result.dialect,
            result.tool,
            result.call_id,
            None,
            _UNRECORDED,
            result.source,
            result=result,
            session=result.session,
        )
        found = list(result.load_findings)
        if self.results is not None:
            found.extend(self.results.check(call, tool, CallResult(call, [], None)))
        return locate(_placed(found, result.source), call) if found else found

    def check(self, call: ToolCall) -> CallResult:
        """Run one call through every gate."""
        return self.finish(call, self._arguments(call))

    def finish(self, call: ToolCall, checked: CallResult) -> CallResult:
        """The result gate and the gate over the run, after the argument gates gave
        ``checked``."""
        result = call.result
        if (
            result is not None
            and not result.load_findings
            and self.results is None
            and not self._per_call
        ):
            return checked  # a result with nothing to check it against
        if result is not None or self._per_call:
            extra: list[Finding] = []
            if result is not None:
                found = list(result.load_findings)
                if self.results is not None:
                    found.extend(self.results.check(call, self.contract(call), checked))
                if found:
                    extra.extend(_placed(found, result.source))
            if self._per_call and self.session is not None:
                extra.extend(self.session.call(checked))
            if extra:
                findings = checked.findings + locate(extra, call)
                return CallResult(call, findings, first_failure(findings), checked.arguments)
        return checked

    def _arguments(self, call: ToolCall) -> CallResult:
        """The argument gates: envelope, parse, schema, business."""
        findings: list[Finding] = []
        if call.load_findings:
            findings.extend(call.load_findings)
            if any(f.severity is _ERROR for f in findings):
                return self._result(call, findings)
        name = call.tool
        if name is None:
            return self._result(call, findings)
        tool, said = self.contracts.contract(name, call.hop, offered_to(call))
        if said is not None:
            findings.append(said)
        if tool is None:
            return self._result(call, findings)
        if call.form is _UNRECORDED:  # nothing to check but the result
            return self._result(call, findings)
        # a downstream body is whatever its contract says (an array schema takes an array)
        parsed = parse_arguments(
            call,
            show_values=self.show_values,
            require_object=call.hop is not Hop.DOWNSTREAM
            or tool.input_schema.get("type", "object") == "object",
        )
        if not parsed.ok:
            findings.extend(parsed.findings)
            return self._result(call, findings)
        return self.check_parsed(call, tool, parsed.value, findings)

    def check_parsed(
        self,
        call: ToolCall,
        tool: ToolContract,
        arguments: Any,
        findings: list[Finding] | None = None,
        *,
        invalid: bool = False,
    ) -> CallResult:
        """:meth:`check` from the schema gate on, for a call of ``tool`` whose arguments
        passed the parse gate as ``arguments``; ``findings``: the call's findings so far
        (warnings of its envelope); ``invalid``: the caller found the arguments invalid
        with the tool's compiled schema already."""
        if findings is None:
            findings = []
        violations = schema_findings(
            self.contracts.schema(tool, call.hop, offered_to(call)),
            arguments,
            show_values=self.show_values,
            call=call,
            invalid=invalid,
        )
        if violations:  # placed at the call already: only the findings before them are
            if not findings:  # every violation is an error of the schema gate
                return CallResult(call, violations, _SCHEMA, arguments)
            findings = locate(findings, call) + violations
            return CallResult(call, findings, first_failure(findings), arguments)
        if self.business is not None:
            findings.extend(self.business.check(call, arguments, tool))
        if not findings:
            return CallResult(call, findings, None, arguments)
        return self._result(call, findings, arguments)

    def contract(self, call: ToolCall) -> ToolContract | None:
        """The contract the result gate checks ``call``'s result with: the tool of that name
        among ``--tools``, else the tool offered with the call (``None``: neither)."""
        if not self.contracts.capture or call.tool is None:
            return self.tools.get(call.tool or "")
        return self.contracts.contract(call.tool, call.hop, offered_to(call))[0]

    def _result(self, call: ToolCall, findings: list[Finding], arguments: Any = None) -> CallResult:
        return CallResult(call, locate(findings, call), first_failure(findings), arguments)


def _placed(findings: list[Finding], source: Source) -> list[Finding]:
    """Findings about a result, placed at the result unless they say where they are."""
    return [f if f.source is not None else replace(f, source=source) for f in findings]


def first_failure(findings: Iterable[Finding]) -> Stage | None:
    """The earliest gate with an error finding, or ``None``."""
    stage: Stage | None = None
    for finding in findings:
        if (
            finding.severity is _ERROR
            and finding.stage is not None
            and (stage is None or _STAGE_RANK[finding.stage] < _STAGE_RANK[stage])
        ):
            stage = finding.stage
    return stage
