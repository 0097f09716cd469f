"""Which tools a probe calls, and the cases it sends each: derived from the tool's own
input schema as ``jsoncontract fixtures`` derives them.

Only tools annotated ``readOnlyHint: true`` are called unless ``allow`` (or
``allow_writes``) names them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from jsoncontract import codes
from jsoncontract.errors import SchemaLoadError, ServerError
from jsoncontract.live.probe.model import CaseKind, ProbeCase, ProbeSettings, ServerProbe, ToolProbe
from jsoncontract.model import Finding, Severity, Source

if TYPE_CHECKING:
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.tools import ToolListing
    from jsoncontract.model import ToolContract
    from jsoncontract.validation import CompiledSchema


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


def plan_tools(
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
