"""Running every gate over calls: envelope -> parse -> schema -> business.

Each gate produces findings; the first gate with an error stops the call and names the
failure (``CallResult.stage``). The gates never raise for bad data. The business gate is a
slot: anything with the :class:`BusinessGate` shape can fill it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, Final, Protocol, runtime_checkable

from jsoncontract.model import CallResult, Finding, Severity, Stage, ToolCall, ToolContract
from jsoncontract.pipeline.envelope import unknown_tool
from jsoncontract.pipeline.parse import parse_arguments
from jsoncontract.pipeline.schema import schema_findings

if TYPE_CHECKING:
    from jsoncontract.tools.toolset import ToolSet

_ERROR: Final = Severity.ERROR
_STAGE_RANK: Final = {Stage.ENVELOPE: 0, Stage.PARSE: 1, Stage.SCHEMA: 2, Stage.BUSINESS: 3}


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


class Checker:
    """Runs the gates over calls, against one :class:`~jsoncontract.tools.ToolSet`.

    Arguments:
        tools: the tool contracts, schemas compiled.
        business: the business gate, or ``None`` to stop after the schema gate.
        show_values: quote sensitive-looking values in messages instead of hashing them.
    """

    def __init__(
        self,
        tools: ToolSet,
        *,
        business: BusinessGate | None = None,
        show_values: bool = False,
    ) -> None:
        self.tools = tools
        self.business = business
        self.show_values = show_values

    def run(self, calls: Iterable[ToolCall]) -> Iterator[CallResult]:
        """Check calls one by one, streaming results."""
        check = self.check
        for call in calls:
            yield check(call)

    def check(self, call: ToolCall) -> CallResult:
        """Run one call through every gate."""
        findings: list[Finding] = []
        if call.load_findings:
            findings.extend(call.load_findings)
            if any(f.severity is _ERROR for f in findings):
                return self._result(call, findings)
        name = call.tool
        tool = self.tools.get(name, call.hop) if name is not None else None
        if tool is None:
            if name is not None:
                findings.append(unknown_tool(name, self.tools))
            return self._result(call, findings)
        parsed = parse_arguments(call, show_values=self.show_values)
        if not parsed.ok:
            findings.extend(parsed.findings)
            return self._result(call, findings)
        arguments = parsed.value
        violations = schema_findings(
            self.tools.schema(tool.name, call.hop), arguments, show_values=self.show_values
        )
        if violations:
            findings.extend(violations)
            return self._result(call, findings, arguments)
        if self.business is not None:
            findings.extend(self.business.check(call, arguments, tool))
        if not findings:
            return CallResult(call, findings, None, arguments)
        return self._result(call, findings, arguments)

    def _result(self, call: ToolCall, findings: list[Finding], arguments: Any = None) -> CallResult:
        return CallResult(call, locate(findings, call), first_failure(findings), arguments)


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


def locate(findings: list[Finding], call: ToolCall) -> list[Finding]:
    """Fill each finding's hop, tool, call id and source from its call."""
    hop, tool, call_id, source = call.hop, call.tool, call.call_id, call.source
    # The constructor directly: dataclasses.replace costs three times as much, and a
    # fixture run locates tens of thousands of findings.
    return [
        Finding(
            f.code,
            f.severity,
            f.message,
            f.path,
            f.stage,
            f.hop or hop,
            f.tool or tool,
            f.call_id or call_id,
            f.keyword,
            f.schema_path,
            f.source or source,
            f.hint,
        )
        for f in findings
    ]
