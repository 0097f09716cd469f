"""The business gate: rules per call, and idempotency across the run.

:class:`BusinessRules` fills the pipeline's business slot
(:class:`~jsoncontract.pipeline.checker.BusinessGate`). For each schema-valid call it runs
the rules of the call's tool, then the trace-level idempotency checks. A rule that is false
gives a finding ``business.<rule-id>``; a rule that cannot be evaluated on this payload
(a missing key, a wrong type at run time, a Python rule that raises) gives the same code
with the error, and the run goes on: a rule is never silently skipped, except where its
``scope`` points at nothing (absent or null), which is how an optional field says "no
value, nothing to check".
"""

from __future__ import annotations

import copy
import datetime
from collections.abc import Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.business.context import merge, parse_now
from jsoncontract.business.idempotency import IdempotencySettings, IdempotencyTracker
from jsoncontract.masking import redacted_text
from jsoncontract.model import Finding, Severity, Stage
from jsoncontract.pointer import ABSENT, get_in, join_pointer

if TYPE_CHECKING:
    from jsoncontract.business.rules import Rule, RuleSet
    from jsoncontract.model import ToolCall, ToolContract

_MISSING_HINT: Final = (
    "the rule read a field this payload does not have: guard the read with has(self.{key}) "
    '(on the right parent), or scope the rule to the optional field (scope = "/.../{key}") '
    "so that it only runs when the field is there"
)


class BusinessRules:
    """The business gate for one run (stateful: idempotency is tracked across calls).

    Arguments:
        rules: the loaded rules (``None`` for idempotency checks only).
        context: the base context (config, then ``--context``); a call's own context
            overrides its keys.
        idempotency: trace-level settings (``None`` turns the checks off).
        show_values: quote sensitive-looking values in messages instead of hashing them.
        now: the run's ``now`` when the context gives none (default: the current time).
        warnings: load-time warnings of the configuration (a deprecated key...).
    """

    def __init__(
        self,
        rules: RuleSet | None = None,
        *,
        context: Mapping[str, Any] | None = None,
        idempotency: IdempotencySettings | None = None,
        show_values: bool = False,
        now: datetime.datetime | None = None,
        warnings: Iterable[str] = (),
    ) -> None:
        self.rules = rules
        self._warnings = list(warnings)
        self.context = dict(context or {})
        self.show_values = show_values
        self.tracker = (
            IdempotencyTracker(idempotency)
            if idempotency is not None and idempotency.enabled
            else None
        )
        base_now = parse_now(self.context.get("now")) if "now" in self.context else None
        self.now = base_now or now or datetime.datetime.now(datetime.UTC)
        self._environment = rules.environment if rules is not None else None
        self._data = rules.environment.dataset_values() if rules is not None else {}

    def fresh(self) -> BusinessRules:
        """A gate with the same rules, reference data, context and ``now``, and empty trace
        state: for checking calls that must not count against this gate's (one fixture
        case, one capture file)."""
        gate = copy.copy(self)
        if self.tracker is not None:
            gate.tracker = IdempotencyTracker(self.tracker.settings)
        return gate

    @property
    def warnings(self) -> list[str]:
        """Load-time warnings of the configuration and the rules (rules for unknown
        tools...)."""
        return [*self._warnings, *(self.rules.warnings if self.rules is not None else ())]

    def close(self) -> None:
        """Release the Python rules' worker threads and the idempotency index."""
        if self.rules is not None:
            self.rules.close()
        if self.tracker is not None:
            self.tracker.close()

    def wants(self, tool: ToolContract) -> bool:
        """Whether calls of ``tool`` can give findings here: it has rules, or it writes and
        the idempotency checks are on. Calls of other tools need not be shown to the gate
        (the fast lane skips it for them)."""
        if self.rules is not None and self.rules.for_tool(tool.name):
            return True
        return self.tracker is not None and self.tracker.classify(tool).writes

    def check(self, call: ToolCall, arguments: Any, tool: ToolContract) -> list[Finding]:
        """Findings for one call (it passed the schema gate)."""
        findings = self.check_rules(call, arguments, tool)
        if self.tracker is not None:
            findings.extend(self.tracker.observe(call, arguments, tool))
        return findings

    def check_rules(self, call: ToolCall, arguments: Any, tool: ToolContract) -> list[Finding]:
        """The per-call part of :meth:`check`: the rules of the call's tool, without the
        trace-level checks."""
        findings: list[Finding] = []
        if self.rules is not None:
            rules = self.rules.for_tool(tool.name)
            if rules:
                findings.extend(self._run_rules(rules, call, arguments))
        return findings

    # -- per-call rules ---------------------------------------------------------------------

    def _context_of(self, call: ToolCall) -> tuple[dict[str, Any], datetime.datetime]:
        own = call.context
        if not own:
            return self.context, self.now
        context = merge(self.context, own)
        now = parse_now(own.get("now")) if "now" in own else None
        return context, now or self.now

    def _run_rules(self, rules: list[Rule], call: ToolCall, arguments: Any) -> list[Finding]:
        environment = self._environment
        assert environment is not None
        context, now = self._context_of(call)
        base = dict(self._data)
        base["args"] = arguments
        base["self"] = arguments
        base["context"] = context
        base["now"] = now
        base["call"] = {
            "tool": call.tool,
            "hop": call.hop.value if call.hop is not None else None,
            "call_id": call.call_id,
            "dialect": str(call.dialect) if call.dialect is not None else None,
        }
        returned = returned_value(call)
        if returned is not ABSENT:
            base["result"] = returned
        root: Any = None
        activations: dict[str, Any] = {}
        findings: list[Finding] = []
        hop = call.hop
        evaluate = environment.evaluate
        for rule in rules:
            if rule.hops is not None and hop not in rule.hops:
                continue
            if rule.reads_result and returned is ABSENT:
                continue  # no result to read: the rule says nothing about this call
            if rule.runner is not None:
                findings.extend(self._run_python(rule, arguments, context))
                continue
            expression = rule.expression
            assert expression is not None
            if not rule.scope_tokens:
                targets: Any = (("", arguments),)
            elif rule.bound:
                targets = _plain_target(arguments, rule.scope_tokens)
            else:
                targets = scoped(arguments, rule.scope_tokens)
            for pointer, value in targets:
                if rule.bound or not pointer:
                    if root is None:
                        root = environment.activation(base)
                    activation = root
                else:
                    activation = activations.get(pointer)
                    if activation is None:
                        variables = dict(base)
                        variables["self"] = value
                        activation = activations[pointer] = environment.activation(variables)
                result, error = evaluate(expression, activation)
                if result is True:
                    continue
                if error is not None:
                    findings.append(self._error_finding(rule, pointer, error, arguments))
                elif result is False:
                    findings.append(self._false_finding(rule, pointer, activation, arguments))
                else:
                    findings.append(
                        self._error_finding(
                            rule,
                            pointer,
                            f"the rule gave {_kind(result)} {_short(result)}, not true or false",
                            arguments,
                        )
                    )
        return findings

    def _false_finding(self, rule: Rule, pointer: str, activation: Any, arguments: Any) -> Finding:
        message = rule.message
        dynamic = rule.message_expression is not None
        if rule.message_expression is not None:
            environment = self._environment
            assert environment is not None
            text, error = environment.evaluate(rule.message_expression, activation)
            if error is None and isinstance(text, str):
                message = text
            else:
                problem = error or f"gave {_kind(text)}, not a string"
                message = f"{message or _default_message(rule)} (messageExpression: {problem})"
        return Finding(
            code=rule.code,
            severity=rule.severity,
            message=(
                self._redact(message, arguments)
                if dynamic and message
                else message or _default_message(rule)
            ),
            path=pointer + rule.field_path,
            stage=Stage.BUSINESS,
            keyword=rule.reason or "rule",
            schema_path=str(rule.source),
            hint=rule.hint,
        )

    def _error_finding(self, rule: Rule, pointer: str, error: str, arguments: Any) -> Finding:
        hint = rule.hint
        if error.startswith("no such key: "):
            key = error.removeprefix("no such key: ").strip('"')
            hint = _MISSING_HINT.format(key=key if key.isidentifier() else "field")
        return Finding(
            code=rule.code,
            severity=rule.severity,
            message=self._redact(f"rule could not be evaluated: {error}", arguments),
            path=pointer + rule.field_path,
            stage=Stage.BUSINESS,
            keyword="evaluation_error",
            schema_path=str(rule.source),
            hint=hint,
        )

    def _run_python(self, rule: Rule, arguments: Any, context: dict[str, Any]) -> Iterator[Finding]:
        runner = rule.runner
        assert runner is not None
        outcome = runner.run(arguments, context)
        if outcome.problem is not None:
            yield Finding(
                code=rule.code,
                severity=rule.severity,
                message=self._redact(f"python rule {runner.label}: {outcome.problem}", arguments),
                path=rule.field_path,
                stage=Stage.BUSINESS,
                keyword="evaluation_error",
                schema_path=str(rule.source),
                hint=rule.hint,
            )
            return
        for message, path, severity, hint in outcome.failures:
            yield Finding(
                code=rule.code,
                severity=Severity(severity) if severity else rule.severity,
                message=self._redact(message or rule.message or _default_message(rule), arguments),
                path=path or rule.field_path,
                stage=Stage.BUSINESS,
                keyword=rule.reason or "rule",
                schema_path=str(rule.source),
                hint=hint or rule.hint,
            )

    def _redact(self, message: str, arguments: Any) -> str:
        """Replace values of sensitive-looking fields quoted in a message by their hash."""
        return message if self.show_values else redacted_text(message, arguments)


def returned_value(call: ToolCall) -> Any:
    """What a rule reads as ``result``: the JSON value the call's successful result holds
    (:func:`~jsoncontract.payload.payload`), or ``ABSENT`` when the capture holds
    no result, an error result, or a result without a JSON value."""
    answer = call.result
    if answer is None or answer.is_error is True:
        return ABSENT
    from jsoncontract.payload import payload

    found = payload(answer)
    return found.value if found is not None else ABSENT


def _plain_target(value: Any, tokens: tuple[str, ...]) -> tuple[tuple[str, Any], ...]:
    """:func:`scoped` for a scope of plain member names, without a generator."""
    value = get_in(value, tokens)
    if value is None or value is ABSENT:
        return ()
    return (("/" + "/".join(tokens), value),)


def scoped(value: Any, tokens: tuple[str, ...], prefix: str = "") -> Iterator[tuple[str, Any]]:
    """The ``(pointer, value)`` pairs a scope selects; ``*`` matches every item or member.

    Absent and null values are not selected: a rule scoped to them is not evaluated.
    """
    if not tokens:
        if value is not None:
            yield prefix, value
        return
    head, rest = tokens[0], tokens[1:]
    if head == "*":
        if isinstance(value, list):
            for index, item in enumerate(value):
                yield from scoped(item, rest, f"{prefix}/{index}")
        elif isinstance(value, dict):
            for name, item in value.items():
                yield from scoped(item, rest, join_pointer(prefix, name))
        return
    if isinstance(value, dict):
        if head in value:
            yield from scoped(value[head], rest, join_pointer(prefix, head))
    elif isinstance(value, list) and head.isdigit() and (head == "0" or head[0] != "0"):
        index = int(head)
        if index < len(value):
            yield from scoped(value[index], rest, f"{prefix}/{index}")


def _default_message(rule: Rule) -> str:
    return f"rule {rule.id!r} does not hold: {rule.text}"


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a bool", int: "an int", float: "a double", str: "a string"}.get(
        type(value), f"a {type(value).__name__}"
    )


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
