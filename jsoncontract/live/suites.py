"""``mcp test``: fixture suites run against a live server.

Each case runs through the check pipeline exactly as ``jsoncontract test`` runs it (the
contract is the server's own ``tools/list``), and its arguments also go to the server as a
``tools/call``. The case then must hold on both sides: a call the contract accepts must be
accepted by the server, a call the contract rejects must be rejected by it (in either way MCP
allows), and a result must keep the tool's output schema. What the server answered is shown
with every case.

Arguments that no host could send are not sent (a model's text that is not JSON never
reaches ``tools/call``), and, as with ``probe``, only tools annotated ``readOnlyHint: true``
are called unless allowed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from jsoncontract.pipeline.answers import (
    AnswerKind,
    invalid_arguments_findings,
    structured_content_findings,
)
from jsoncontract.suites.model import (
    CaseOutcome,
    InputKind,
    Mismatch,
    ServerAnswer,
    Status,
    Suite,
    TestReport,
    TestSummary,
    json_bytes,
)

if TYPE_CHECKING:
    from jsoncontract.live.client import Connection
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.tools import ToolListing
    from jsoncontract.live.wire import ConnectOptions, Reply
    from jsoncontract.suites.model import Case
    from jsoncontract.suites.runner import BusinessFactory
    from jsoncontract.suites.select import Selector


@dataclass(frozen=True, slots=True)
class LiveTestSettings:
    """Which calls may be sent: ``allow`` tools besides read-only ones (``allow_writes``:
    all); ``dry_run`` sends none; ``concurrency`` calls are in flight at once."""

    allow: tuple[str, ...] = ()
    allow_writes: bool = False
    dry_run: bool = False
    concurrency: int = 4


def arguments_of(suite: Suite, case: Case) -> tuple[Any, str | None]:
    """What a host would send as ``params.arguments`` for a case: ``(arguments, None)``, or
    ``(None, why nothing can be sent)``."""
    kind = case.input_kind
    if "result" in case.data:
        return None, "a result case checks the result it gives; a live server answers with its own"
    if kind is InputKind.ARGUMENTS:
        return case.input, None
    if kind is InputKind.TEXT:
        return _parsed(case.input)
    return _capture_arguments(suite, case)


def _parsed(text: Any) -> tuple[Any, str | None]:
    """The object a host parses from a model's arguments text."""
    import orjson

    try:
        value = orjson.loads(text)
    except (orjson.JSONDecodeError, TypeError):
        return None, "the arguments text is not JSON; a host fails before tools/call"
    if not isinstance(value, dict):
        return None, "the arguments text is not a JSON object; a host cannot send it"
    return value, None


def _capture_arguments(suite: Suite, case: Case) -> tuple[Any, str | None]:
    from pathlib import Path

    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.errors import InputError
    from jsoncontract.model import ArgumentsForm

    reader = CaptureReader()
    try:
        if case.input_kind is InputKind.CAPTURE:
            calls = list(reader.read_document(json_bytes(case.input), name=suite.file))
        else:
            base = suite.path.parent if suite.path is not None else Path()
            calls = list(reader.read_file(base / str(case.input)))
    except InputError as exc:
        return None, f"the capture cannot be read: {exc}"
    index = case.call if case.call is not None else 0
    if index >= len(calls):
        return None, "the capture holds no such call"
    call = calls[index]
    if call.form is ArgumentsForm.TEXT:
        return _parsed(call.arguments)
    if call.form is ArgumentsForm.MISSING:
        return {}, None
    return call.arguments, None


def _answer(reply: Reply, findings_text: str = "") -> ServerAnswer:
    from jsoncontract.live.probe.judging import answer_of

    kind, code, said = answer_of(reply)
    text = kind.phrase(code)
    if said and kind is not AnswerKind.TIMEOUT:
        text += f": {said}"
    text += f" ({reply.seconds * 1000:.0f} ms)"
    if findings_text:
        text += f"; {findings_text}"
    return ServerAnswer(kind.value, text, code, round(reply.seconds * 1000, 1))


def combine(outcome: CaseOutcome, reply: Reply, *, version: str, output_schema: Any) -> CaseOutcome:
    """The case's outcome once the server's answer is known."""
    from jsoncontract.live.probe.judging import answer_of

    kind, code, said = answer_of(reply)
    case = outcome.case
    assert case is not None
    notes = ""
    if kind is AnswerKind.ACCEPTED:
        problems = structured_content_findings(reply.result, output_schema, version)
        if problems:
            notes = problems[0].message
    elif kind.rejected and not case.expect.ok:
        wrong = invalid_arguments_findings(kind, code, version)
        if wrong:
            notes = wrong[0].message
    outcome.server = _answer(reply, notes)
    if outcome.status is not Status.PASSED:
        return outcome
    server = outcome.server.text
    if kind in (AnswerKind.TIMEOUT, AnswerKind.CRASHED, AnswerKind.INVALID):
        return _failed(outcome, Mismatch.SERVER_FAILED, f"the server {kind.phrase(code)}: {said}")
    if case.expect.ok and kind.rejected:
        return _failed(
            outcome,
            Mismatch.SERVER_REJECTED,
            f"the contract accepts the call, but the server {server}",
            "the server needs more than its schema says (or rejects what it should take): "
            "say it in the input schema, or fix the server",
        )
    if not case.expect.ok and kind is AnswerKind.ACCEPTED:
        return _failed(
            outcome,
            Mismatch.SERVER_ACCEPTED,
            f"the contract rejects the call (it should {case.expect.describe()}), but the "
            "server accepted it",
            "validate arguments against the advertised inputSchema in the server",
        )
    if kind is AnswerKind.ACCEPTED and notes:
        return _failed(outcome, Mismatch.SERVER_RESULT, notes, "fix the tool's structuredContent")
    return outcome


def _failed(
    outcome: CaseOutcome, mismatch: Mismatch, message: str, hint: str | None = None
) -> CaseOutcome:
    outcome.status = Status.FAILED
    outcome.mismatch = mismatch
    outcome.message = message
    outcome.hint = hint
    return outcome


async def run_on_server(
    conn: Connection,
    listing: ToolListing,
    suites: Iterable[Suite],
    settings: LiveTestSettings,
    options: ConnectOptions,
    *,
    business: BusinessFactory | None = None,
    select: Selector | None = None,
    show_values: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> TestReport:
    """Run every selected case through the pipeline and the server; the report is
    ``test``'s, each outcome carrying the server's answer."""
    from jsoncontract.live.calls import Call, send_calls
    from jsoncontract.live.probe.planning import is_read_only
    from jsoncontract.suites.runner import SuiteRunner
    from jsoncontract.tools.toolset import ToolSet

    tools = ToolSet(listing.contracts())
    runner = SuiteRunner(tools, business=business, show_values=show_values)
    outcomes: list[CaseOutcome] = []
    summary_suites = 0
    calls: list[Call] = []
    for suite in suites:
        group = list(runner.run_suite(suite, select=select))
        if group:
            summary_suites += 1
        for outcome in group:
            outcomes.append(outcome)
            case = outcome.case
            if case is None or outcome.status is Status.SKIPPED:
                continue
            contract = tools.get(suite.tool)
            assert contract is not None
            allowed = (
                is_read_only(contract)
                or settings.allow_writes
                or suite.tool in settings.allow
                or suite.tool in listing.server.allow
            )
            if not allowed:
                outcome.server = ServerAnswer(
                    None,
                    f"not sent: {suite.tool} is not annotated readOnlyHint: true "
                    f"(--allow {suite.tool} sends it)",
                )
                continue
            arguments, why = arguments_of(suite, case)
            if why is not None:
                outcome.server = ServerAnswer(None, f"not sent: {why}")
                continue
            if settings.dry_run:
                import orjson

                shown = orjson.dumps({"name": suite.tool, "arguments": arguments}).decode()
                outcome.server = ServerAnswer(None, f"not sent (dry run): tools/call {shown}")
                continue
            calls.append(Call(len(outcomes) - 1, suite.tool, arguments))
    usable = listing.usable()
    outputs = {t["name"]: t.get("outputSchema") for t in usable}
    if calls:
        run = await send_calls(
            conn,
            listing.server,
            options,
            calls,
            concurrency=settings.concurrency,
            tools=usable,
            progress=progress,
        )
        for call in calls:
            assert isinstance(call.key, int)
            outcome = outcomes[call.key]
            result = run.outcomes[call.key]
            if result.reply is None:
                outcome.server = ServerAnswer(None, f"not sent: {result.not_sent}")
                continue
            combine(
                outcome, result.reply, version=conn.version, output_schema=outputs.get(call.tool)
            )
    summary = TestSummary()
    summary.suites = summary_suites
    for outcome in outcomes:
        summary.add(outcome)
    return TestReport(summary, outcomes)


async def run_live_suites(
    spec: ServerSpec,
    suites: Iterable[Suite],
    settings: LiveTestSettings,
    options: ConnectOptions,
    **kwargs: Any,
) -> tuple[TestReport, ToolListing]:
    """Connect, list the tools, and run the suites (see :func:`run_on_server`)."""
    from jsoncontract.live.client import connect
    from jsoncontract.live.tools import list_tools

    async with connect(spec, options) as conn:
        listing = await list_tools(conn)
        report = await run_on_server(conn, listing, suites, settings, options, **kwargs)
    return report, listing
