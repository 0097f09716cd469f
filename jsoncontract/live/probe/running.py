"""A probe's run: connect, list the tools, plan, run the protocol checks, send every case
and judge each answer, then the checks that need the whole session (stdout, notifications,
authentication). Every stage is a module of its own; this one only puts them in order."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from jsoncontract.errors import ServerError
from jsoncontract.live.probe.auth import auth_checks
from jsoncontract.live.probe.extras import probe_extras
from jsoncontract.live.probe.judging import judge
from jsoncontract.live.probe.model import (
    CaseResult,
    ProbeCase,
    ProbeReport,
    ProbeSettings,
    ProtocolCheck,
    ServerProbe,
)
from jsoncontract.live.probe.planning import plan_tools, rederive
from jsoncontract.live.probe.protocol import (
    PROTOCOL_WAIT,
    capability_findings,
    negotiation_check,
    noise_after,
    notification_findings,
    protocol_checks,
    stdout_check,
)
from jsoncontract.pipeline.answers import AnswerKind

if TYPE_CHECKING:
    from jsoncontract.live.client import Connection
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.tools import ToolListing
    from jsoncontract.live.wire import ConnectOptions


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
            card.protocol.append(negotiation_check(conn))
            card.protocol.append(
                ProtocolCheck(
                    "tools/list",
                    True,
                    f"{len(listing.tools)} tools in {listing.pages} "
                    f"page{'s' if listing.pages != 1 else ''}",
                    listing.seconds,
                )
            )
            plan = plan_tools(listing, settings, card, roots=options.client.roots)
            if settings.protocol_checks:
                card.protocol.extend(await protocol_checks(conn, settings))
            if settings.dry_run:
                for tool in card.tools:
                    tool.results = [
                        CaseResult(c, not_sent="dry run: nothing was sent")
                        for c in plan.get(tool.name, [])
                    ]
            else:
                await _run_plan(conn, spec, options, listing, plan, settings, card, progress)
            if settings.resources:
                await probe_extras(conn, card, settings)
                # A server writes in order: once a ping is answered, whatever it sent after
                # its last answer (a list_changed notification, stray output) has been read.
                await conn.request("ping", timeout=min(PROTOCOL_WAIT, conn.options.timeout))
            card.protocol.append(stdout_check(conn, spec))
            card.client = conn.answers.report()
            card.findings.extend(capability_findings(conn, card.label))
            card.findings.extend(noise_after(conn, listing))
            card.findings.extend(notification_findings(conn, card.label))
        if spec.requires_auth and not settings.dry_run:
            card.protocol.extend(
                await auth_checks(spec, options, card.label, settings.foreign_token)
            )
    except ServerError as exc:
        card.error = str(exc)
    card.seconds = perf_counter() - start
    return card


async def _run_plan(
    conn: Connection,
    spec: ServerSpec,
    options: ConnectOptions,
    listing: ToolListing,
    plan: dict[str, list[ProbeCase]],
    settings: ProbeSettings,
    card: ServerProbe,
    progress: Callable[[int, int], None] | None,
) -> None:
    """Send the valid calls first; then the negative cases, derived from the valid call
    the server accepted (judged inconclusive when it accepted none)."""
    valid = [c for cases in plan.values() for c in cases if c.schema_accepts and not c.base]
    results = await _run_cases(conn, spec, options, listing, valid, settings, card, progress)
    negatives: dict[str, list[ProbeCase]] = {}
    conclusive: dict[str, bool] = {}
    for name, cases in plan.items():
        accepted = next(
            (c for c in cases if id(c) in results and results[id(c)].answer is AnswerKind.ACCEPTED),
            None,
        )
        planned = [c for c in cases if c.base or not c.schema_accepts]
        conclusive[name] = accepted is not None
        answers = [results[id(c)].answer for c in cases if id(c) in results]
        if answers and all(a is AnswerKind.CRASHED for a in answers):
            for case in planned:  # each would crash it again, and prove nothing
                results[id(case)] = CaseResult(
                    case, not_sent="the server crashed on every valid call of this tool"
                )
            negatives[name] = planned
            continue
        if accepted is not None and accepted.name != "valid":
            planned = rederive(listing, name, accepted, settings, len(cases) - len(planned))
        negatives[name] = planned
    todo = [c for cases in negatives.values() for c in cases if id(c) not in results]
    more = await _run_cases(
        conn, spec, options, listing, todo, settings, card, progress, conclusive=conclusive
    )
    results.update(more)
    for tool in card.tools:
        sent = [c for c in plan.get(tool.name, []) if id(c) in results and not c.base]
        sent += negatives.get(tool.name, [])
        tool.results = [results[id(c)] for c in sent if id(c) in results]
        if tool.results and not conclusive.get(tool.name, True):
            tool.inconclusive = True


async def _run_cases(
    conn: Connection,
    spec: ServerSpec,
    options: ConnectOptions,
    listing: ToolListing,
    cases: list[ProbeCase],
    settings: ProbeSettings,
    card: ServerProbe,
    progress: Callable[[int, int], None] | None,
    *,
    conclusive: dict[str, bool] | None = None,
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
    card.restarts += run.restarts
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
            conclusive=True if conclusive is None else conclusive.get(case.tool, True),
        )
    return results


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

    from jsoncontract.live.wire import ConnectOptions as Options

    specs = [spec] if not isinstance(spec, Sequence) else list(spec)
    chosen = settings or ProbeSettings()
    connect_options = options or Options()

    async def main() -> ProbeReport:
        return await probe_servers(specs, chosen, connect_options)

    return anyio.run(main)
