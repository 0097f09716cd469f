"""Cases for the business rules engine: per rule, one that breaks it and one where it holds.

:class:`RuleViolations` is the :class:`~jsoncontract.suites.hooks.ViolationSource` of the
bundled rules engine. For each rule of a tool it changes the valid instance at the rule's
field (``scope`` + ``fieldPath``), a few plausible ways (another listed value, a date a day or a
year away, a number far out, an unknown identifier, the member left out), keeps the first
change the schema still accepts and the rule rejects (another string of the field's pattern
counts as a change), and hands it over as the rule's case.
The rule itself decides here, by construction: the case guards the rule from then on (it
turns into a contract weakness the day the rule stops firing), it does not test it.

Rules it leaves alone: rules the valid instance already breaks (edit the ``valid`` case so
that it passes them, then regenerate), rules scoped to every item of an array, rules for
hops other than the model's, and rules none of its changes break (say, one that needs an
order id that exists in the reference data with another status): write those by hand.

The passing case of a rule (:meth:`RuleViolations.passes`) is found the same way: the first
change at the rule's field that the schema accepts, on which the rule is evaluated (its
scope is there) and the call passes every rule; failing that, the valid instance itself
when the rule is evaluated and holds on it. So the suite shows the rule on both sides of
its line (``endDate`` a day before ``startDate``, and a day after).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._regex_sample import PatternUnsupported, sample
from jsoncontract._schema_walk import Resolver
from jsoncontract.model import ArgumentsForm, Hop, Severity, Source, ToolCall
from jsoncontract.pointer import ABSENT, get, join_pointer, remove_at, set_at
from jsoncontract.suites.hooks import RulePass, RuleViolation
from jsoncontract.suites.instance import annotate

if TYPE_CHECKING:
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.business.rules import Rule
    from jsoncontract.model import ToolContract
    from jsoncontract.tools.toolset import ToolSet

_SOURCE: Final = Source("<generated>")
#: Changes tried per rule, at most.
MAX_TRIES: Final = 24
_DAYS: Final = (-1, 1, -366, 366, -3650)


class RuleViolations:
    """Writes one violating case per business rule (see the module docstring).

    Arguments:
        template: the loaded business gate (its rules and context); each attempt runs on
            a :meth:`~jsoncontract.business.BusinessRules.fresh` copy of it, so attempts
            never see each other's calls.
        tools: the tool set, to keep only changes the schema accepts.
    """

    def __init__(self, template: BusinessRules, tools: ToolSet) -> None:
        self.template = template
        self.tools = tools

    def violations(self, tool: ToolContract, valid: Any) -> Iterator[RuleViolation]:
        """One violation per rule of ``tool`` that a single change breaks."""
        ruleset = self.template.rules
        rules = ruleset.for_tool(tool.name) if ruleset is not None else []
        if not rules:
            return
        compiled = self.tools.schema(tool.name)
        broken_already = self._codes(tool, valid)
        nodes = {n.pointer: n for n in annotate(Resolver(tool.input_schema), valid)}
        for rule in rules:
            if (
                rule.severity is not Severity.ERROR
                or rule.code in broken_already
                or "*" in rule.scope_tokens
                or (rule.hops is not None and Hop.MODEL not in rule.hops)
            ):
                continue
            pointer = rule.scope + rule.field_path
            for candidate in self._changes(valid, pointer, nodes):
                if not compiled.is_valid(candidate):
                    continue
                found = self._finding(tool, candidate, rule)
                if found is not None:
                    yield RuleViolation(
                        rule.id,
                        candidate,
                        found,
                        code=rule.code,
                        description=f"Breaks the business rule {rule.id!r}.",
                    )
                    break

    def passes(self, tool: ToolContract, valid: Any) -> Iterator[RulePass]:
        """One passing case per rule of ``tool`` that can be shown holding."""
        ruleset = self.template.rules
        rules = ruleset.for_tool(tool.name) if ruleset is not None else []
        if not rules:
            return
        compiled = self.tools.schema(tool.name)
        nodes = {n.pointer: n for n in annotate(Resolver(tool.input_schema), valid)}
        for rule in rules:
            if (
                rule.severity is not Severity.ERROR
                or "*" in rule.scope_tokens
                or (rule.hops is not None and Hop.MODEL not in rule.hops)
            ):
                continue
            pointer = rule.scope + rule.field_path
            found = None
            for candidate in self._changes(valid, pointer, nodes):
                if (
                    candidate != valid
                    and compiled.is_valid(candidate)
                    and self._holds(tool, candidate, rule)
                ):
                    found = candidate
                    break
            if found is not None:
                yield RulePass(
                    rule.id,
                    found,
                    description=f"The business rule {rule.id!r} holds (a change at its field).",
                )
            elif self._holds(tool, valid, rule):
                yield RulePass(
                    rule.id,
                    valid,
                    description=f"The business rule {rule.id!r} holds on the valid instance.",
                )

    def _holds(self, tool: ToolContract, arguments: Any, rule: Rule) -> bool:
        """Whether ``rule`` is evaluated on ``arguments`` and the call passes every rule."""
        from jsoncontract.business.gate import scoped

        if rule.scope_tokens and not any(True for _ in scoped(arguments, rule.scope_tokens)):
            return False
        gate = self.template.fresh()
        return not any(
            finding.code == rule.code or finding.severity is Severity.ERROR
            for finding in gate.check(_call(tool, arguments), arguments, tool)
        )

    def _codes(self, tool: ToolContract, arguments: Any) -> set[str]:
        gate = self.template.fresh()
        return {f.code for f in gate.check(_call(tool, arguments), arguments, tool)}

    def _finding(self, tool: ToolContract, arguments: Any, rule: Rule) -> str | None:
        """The path of the rule's finding on ``arguments``, or ``None`` when it passes."""
        gate = self.template.fresh()
        for finding in gate.check(_call(tool, arguments), arguments, tool):
            if finding.code == rule.code and finding.severity is Severity.ERROR:
                return finding.path
        return None

    def _changes(self, valid: Any, pointer: str, nodes: dict[str, Any]) -> Iterator[Any]:
        """Copies of ``valid`` changed at ``pointer`` (or at its members), a few ways."""
        value = get(valid, pointer)
        targets = [pointer] if pointer and value is not None and value is not ABSENT else []
        if isinstance(value, dict):  # a rule about an object: change each of its members
            targets += [join_pointer(pointer, k) for k in value]
        tries = 0
        for target in targets:
            current = get(valid, target)
            node = nodes.get(target)
            schema = node.eff.schema if node is not None else {}
            for other in _values_for(current, schema):
                tries += 1
                if tries > MAX_TRIES:
                    return
                yield set_at(valid, target, other)
            if node is not None and target.count("/") >= 1:
                tries += 1
                yield remove_at(valid, target)


def _call(tool: ToolContract, arguments: Any) -> ToolCall:
    return ToolCall(
        hop=Hop.MODEL,
        dialect=None,
        tool=tool.name,
        call_id=None,
        arguments=arguments,
        form=ArgumentsForm.VALUE,
        source=_SOURCE,
    )


def _values_for(current: Any, schema: dict[str, Any]) -> Iterator[Any]:
    """Other values for a member: listed alternatives first, then values far off."""
    options = schema.get("enum")
    if isinstance(options, list):
        yield from (o for o in options if o != current)
    if isinstance(current, bool):
        yield not current
    elif isinstance(current, int | float):
        yield from (0, -1, current + 1, current - 1, current * 10 + 1000, 10**9)
    elif isinstance(current, str):
        shifted = list(_shifted_dates(current))
        yield from shifted
        if shifted:
            return
        pattern = schema.get("pattern")
        if isinstance(pattern, str):  # other identifiers of the same shape
            for variant in range(1, 4):
                try:
                    other = sample(pattern, variant=variant)
                except PatternUnsupported:
                    break
                if other != current:
                    yield other
        yield from (current.upper() + "-UNKNOWN", "UNKNOWN", "", current + current)


def _shifted_dates(text: str) -> Iterator[str]:
    """``text`` moved by a day and by a year each way, when it is an RFC 3339 date or time
    (shifts past year 1 or 9999 are left out)."""
    try:
        moment: datetime.date = (
            datetime.date.fromisoformat(text)
            if len(text) == 10
            else datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        )
    except ValueError:
        return
    for days in _DAYS:
        try:
            shifted = (moment + datetime.timedelta(days=days)).isoformat()
        except OverflowError:
            continue
        yield shifted.replace("+00:00", "Z") if text.endswith("Z") else shifted


def violation_sources(gate: BusinessRules, tools: ToolSet) -> tuple[RuleViolations, ...]:
    """The writers of business-rule cases for a gate: the rules engine's, when the gate
    has rules loaded."""
    if gate.rules is None:
        return ()
    return (RuleViolations(gate, tools),)
