"""Which tools a probe calls, and the cases it sends each: the valid calls of
:mod:`~jsoncontract.live.probe.arguments` (realistic values, each with its source), then
the negative cases ``jsoncontract fixtures`` derives from a valid call.

A tool is called only when it is annotated ``readOnlyHint: true`` (or ``allow`` or
``allow_writes`` says otherwise) and ``openWorldHint: false`` (or ``allow`` or
``allow_open_world`` says otherwise): a tool that may reach the outside world would make
the server do so on the user's behalf.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract import codes
from jsoncontract.errors import SchemaLoadError, ServerError
from jsoncontract.live.probe.model import CaseKind, ProbeCase, ProbeSettings, ServerProbe, ToolProbe
from jsoncontract.model import Finding, Severity, Source

if TYPE_CHECKING:
    from jsoncontract.live.probe.arguments import Seeds
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.tools import ToolListing
    from jsoncontract.model import ToolContract
    from jsoncontract.validation import CompiledSchema


def is_read_only(tool: dict[str, Any] | ToolContract) -> bool:
    """Whether a tool is annotated ``readOnlyHint: true`` (the only tools called unasked)."""
    annotations = tool.get("annotations") if isinstance(tool, dict) else tool.annotations
    return isinstance(annotations, dict) and annotations.get("readOnlyHint") is True


def is_closed_world(tool: dict[str, Any] | ToolContract) -> bool:
    """Whether a tool is annotated ``openWorldHint: false`` (MCP's default is true: a tool
    without the hint may reach the outside world)."""
    annotations = tool.get("annotations") if isinstance(tool, dict) else tool.annotations
    return isinstance(annotations, dict) and annotations.get("openWorldHint") is False


def may_call(
    name: str,
    read_only: bool,
    settings: ProbeSettings,
    spec: ServerSpec,
    *,
    closed_world: bool = True,
) -> str | None:
    """Why a tool must not be called (``None`` when it may be)."""
    named = name in settings.allow or name in spec.allow
    if not (read_only or settings.allow_writes or named):
        return (
            f"not annotated readOnlyHint: true, so it may change something; "
            f"--allow {name} calls it anyway"
        )
    if not (closed_world or settings.allow_open_world or named):
        return (
            "may reach the outside world (openWorldHint is not false), and the probe would "
            f"make the server do so; --allow {name} or --allow-open-world calls it anyway"
        )
    return None


def plan_cases(
    tool: ToolContract,
    compiled: CompiledSchema,
    kinds: Sequence[CaseKind],
    max_cases: int = 0,
    *,
    seeds: Seeds | None = None,
    roots: Sequence[Path] = (),
) -> tuple[list[ProbeCase], str | None]:
    """The cases for one tool: its valid calls, then the negative cases derived from the
    first; ``(cases, None)``, or ``([], why)`` when no valid call can be built."""
    from jsoncontract.live.probe.arguments import valid_calls

    calls, error = valid_calls(tool, compiled, seeds=seeds, roots=roots)
    if error is not None:
        return [], error
    wanted = set(kinds)
    cases: list[ProbeCase] = []
    for call in calls:
        kind = CaseKind.VALID_REQUIRED if call.required_only else CaseKind.VALID
        if kind in wanted or (kind is CaseKind.VALID and not calls[1:]):
            cases.append(
                ProbeCase(tool.name, kind.value, kind, call.value, True, sources=call.sources)
            )
    # the full call is the base of the negative cases (the run derives them again from the
    # valid call the server accepts, when it is another)
    cases.extend(derive_negatives(tool, compiled, calls[0].value, kinds, base_name="valid"))
    if max_cases and len(cases) > max_cases:
        cases = cases[:max_cases]
    return cases, None


def derive_negatives(
    tool: ToolContract,
    compiled: CompiledSchema,
    base: Any,
    kinds: Sequence[CaseKind],
    *,
    base_name: str = "valid",
) -> list[ProbeCase]:
    """The negative cases of ``kinds`` derived from a valid call ``base``, as ``fixtures``
    derives them (each breaks the call in one place)."""
    from jsoncontract.suites.generate import generate_cases
    from jsoncontract.suites.kinds import CaseKind as SuiteKind
    from jsoncontract.suites.model import InputKind

    wanted = {k.value for k in kinds}
    if CaseKind.STRING_FOR_NUMBER.value in wanted:
        wanted_suite = wanted | {SuiteKind.WRONG_TYPE.value}
    else:
        wanted_suite = wanted
    suite_kinds = [
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
    if not suite_kinds:
        return []
    drafts, _, error = generate_cases(tool, compiled, kinds=suite_kinds, base=base)
    if error is not None:
        return []
    cases: list[ProbeCase] = []
    seen: set[str] = set()
    for draft in drafts:
        if draft.input_kind is not InputKind.ARGUMENTS:
            continue
        kind = _kind_of(draft)
        if kind.value not in wanted or kind in (CaseKind.VALID, CaseKind.VALID_REQUIRED):
            continue
        name = str(draft.name)
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
                base=base_name,
            )
        )
    return cases


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
    listing: ToolListing,
    settings: ProbeSettings,
    card: ServerProbe,
    roots: Sequence[Path] = (),
) -> dict[str, list[ProbeCase]]:
    """The cases of every tool that will be called; a :class:`ToolProbe` per tool. ``roots``
    are the directories the client offers (paths are taken under the first)."""
    from jsoncontract.live.probe.arguments import Seeds
    from jsoncontract.validation import CompiledSchema

    seeds = Seeds([*settings.seeds, *card.server.seeds])

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
        refusal = may_call(
            contract.name,
            read_only,
            settings,
            card.server,
            closed_world=is_closed_world(contract),
        )
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
        cases, why = plan_cases(
            contract,
            compiled,
            settings.kinds,
            settings.max_cases,
            seeds=seeds,
            roots=roots,
        )
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


def rederive(
    listing: ToolListing, name: str, accepted: ProbeCase, settings: ProbeSettings, used: int
) -> list[ProbeCase]:
    """The negative cases of tool ``name`` derived again from ``accepted``, the valid call
    the server accepted (the one planned from was refused); at most ``max_cases`` minus the
    ``used`` valid calls."""
    from jsoncontract.validation import CompiledSchema

    contract = next((c for c in listing.contracts() if c.name == name), None)
    if contract is None:  # pragma: no cover - planned from this very listing
        return []
    compiled = CompiledSchema(contract.input_schema, label=f"tool {name!r}")
    cases = derive_negatives(
        contract, compiled, accepted.arguments, settings.kinds, base_name=accepted.name
    )
    if settings.max_cases:
        cases = cases[: max(0, settings.max_cases - used)]
    return cases
