"""``jsoncontract test``: every case through the same pipeline as ``check``, then judged.

A case's input becomes a :class:`~jsoncontract.model.ToolCall` the way a capture would make
one (arguments as a value, arguments as text, or a whole capture read by
:class:`~jsoncontract.capture.CaptureReader`), goes through
:class:`~jsoncontract.pipeline.Checker` (envelope, parse, schema, business; and result, for
a call whose capture holds its result or a case that gives one), and the outcome is
compared with the expectation in stage, code or keyword, and path. Cases are independent:
the checks over a run (turns, sessions, retries) do not run. A negative case
failing for another reason fails and shows both reasons. A negative case that passes every
gate is a *contract weakness*: the contract is weaker than the case says it should be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.errors import InputError, UsageError
from jsoncontract.model import (
    ArgumentsForm,
    Dialect,
    Hop,
    Severity,
    Source,
    Stage,
    ToolCall,
    ToolContract,
    ToolResult,
)
from jsoncontract.pipeline.checker import BusinessGate, Checker
from jsoncontract.suites.kinds import DERIVED_KINDS, CaseKind
from jsoncontract.suites.model import (
    NO_RESULT,
    Case,
    CaseOutcome,
    Expectation,
    InputKind,
    Mismatch,
    Status,
    Suite,
    TestReport,
    TestSummary,
    actual_of,
    json_bytes,
)

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, Finding
    from jsoncontract.suites.select import Selector
    from jsoncontract.tools.toolset import ToolSet

#: A fresh business gate per case, so trace-level rules (idempotency) see one case only
#: (:meth:`BusinessRules.fresh <jsoncontract.business.BusinessRules.fresh>` of a loaded gate).
BusinessFactory = Callable[[], BusinessGate]

_ERROR: Final = Severity.ERROR
#: The tags of the generated cases derived from the schema alone (business-rule cases come
#: from the rules, regression cases from captures).
_DERIVED_TAGS: Final = frozenset(
    k.value for k in DERIVED_KINDS if k not in (CaseKind.BUSINESS, CaseKind.REGRESSION)
)
_DIALECT_OF_HOP: Final = {Hop.MODEL: None, Hop.MCP: Dialect.MCP, Hop.DOWNSTREAM: Dialect.DOWNSTREAM}
_WEAKNESS_HINTS: Final = {
    "additionalProperties": 'close {object} with "additionalProperties": false',
    "unevaluatedProperties": 'close {object} with "unevaluatedProperties": false',
    "required": "list the property in the required array of {object}",
    "enum": "restrict the value to a closed set with enum (or const)",
    "const": "pin the value with const",
    "type": "declare the value's type",
    "minimum": "bound the value with minimum",
    "maximum": "bound the value with maximum",
    "exclusiveMinimum": "bound the value with exclusiveMinimum",
    "exclusiveMaximum": "bound the value with exclusiveMaximum",
    "minLength": "bound the length with minLength",
    "maxLength": "bound the length with maxLength",
    "minItems": "bound the array with minItems",
    "maxItems": "bound the array with maxItems",
    "pattern": "constrain the string with a pattern",
    "format": "constrain the string with a format",
}


class SuiteRunner:
    """Runs suites against one tool set.

    A generated case that fails while never edited is compared with what regenerating
    its suite would write: when the two differ, the case is out of date with the schema,
    and its hint says to regenerate rather than to change the input.

    Arguments:
        tools: the tool contracts.
        business: makes the business gate, fresh for each case; ``None`` stops after the
            schema gate (as ``check`` does without business rules).
        show_values: quote sensitive-looking values in messages instead of hashing them.
        max_depth: the generator's ``max_depth`` the suites were written with (to tell
            whether a generated case is out of date).
    """

    def __init__(
        self,
        tools: ToolSet,
        *,
        business: BusinessFactory | None = None,
        show_values: bool = False,
        max_depth: int | None = None,
    ) -> None:
        self.tools = tools
        self.business = business
        self.show_values = show_values
        self.max_depth = max_depth
        # cases are independent: no checks over a run (turns, sessions, retries)
        self._checker = Checker(tools, session=None, show_values=show_values)
        self._last_suite: Suite | None = None
        self._last_source = Source("<memory>")
        self._regenerated: tuple[Suite, dict[str, dict[str, Any]] | None] | None = None

    def run(self, suites: Iterable[Suite], *, select: Selector | None = None) -> TestReport:
        """Every selected case of every suite, in order, with the totals."""
        return _report(list(self.run_suite(suite, select=select)) for suite in suites)

    def run_files(
        self,
        paths: Iterable[str | Path],
        *,
        select: Selector | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> TestReport:
        """Read and run every suite file under ``paths``, one file at a time.

        Arguments:
            progress: called with ``(files done, files)`` after each file.

        Raises:
            SuiteError: a suite file is not a valid suite (with its location).
        """
        from jsoncontract.suites.format import find_suite_files, read_suite

        files = find_suite_files(paths)
        total = len(files)

        def each() -> Iterator[list[CaseOutcome]]:
            for done, path in enumerate(files, start=1):
                yield list(self.run_suite(read_suite(path), select=select))
                if progress is not None:
                    progress(done, total)

        return _report(each())

    def run_suite(self, suite: Suite, *, select: Selector | None = None) -> Iterator[CaseOutcome]:
        """The outcome of each selected case; one error outcome when the tool is gone."""
        cases = [c for c in suite.cases if select is None or select.matches(_words(suite, c))]
        if not cases:
            return
        if suite.tool not in self.tools:
            yield self.missing_tool(suite, len(cases))
            return
        for case in cases:
            yield self.run_case(suite, case)

    def missing_tool(self, suite: Suite, cases: int) -> CaseOutcome:
        """The outcome of a suite whose tool is not in the tool list."""
        guess = self.tools.suggest(suite.tool)
        if guess is not None:
            hint = f"did you mean {guess!r}? rename the suite's tool, or regenerate it"
        else:
            names = self.tools.names()
            listed = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
            hint = (
                f"known tools: {listed}; delete the suite if the tool was removed"
                if names
                else "no tools are loaded"
            )
        noun = "case" if cases == 1 else "cases"
        return CaseOutcome(
            suite,
            None,
            Status.ERROR,
            Mismatch.TOOL_MISSING,
            f"the suite is for tool {suite.tool!r}, which is not in the tool list; its "
            f"{cases} {noun} did not run",
            hint=hint,
        )

    def run_case(self, suite: Suite, case: Case) -> CaseOutcome:
        """Run one case and judge it."""
        if case.skip is not None:
            return CaseOutcome(suite, case, Status.SKIPPED, message=case.skip)
        start = perf_counter()
        checker = self._checker
        if self.business is not None:
            checker.business = _FreshGate(self.business)
        kind = case.input_kind
        if kind is InputKind.ARGUMENTS or kind is InputKind.TEXT:
            hop = case.hop or Hop.MODEL
            call = ToolCall(
                hop=hop,
                dialect=_DIALECT_OF_HOP[hop],
                tool=suite.tool,
                call_id=None,
                arguments=case.input,
                form=ArgumentsForm.VALUE if kind is InputKind.ARGUMENTS else ArgumentsForm.TEXT,
                source=self._source(suite),
                anomalies=case.anomalies,
            )
            result = case.result
            if result is not NO_RESULT:
                call.result = _structured_result(result, call.source)
            outcome = judge(suite, case, checker.check(call))
            if outcome.status is Status.FAILED and case.generated is not None:
                stale = self._out_of_date(suite, case)
                if stale is not None:
                    outcome.hint = stale
        else:
            outcome = self._capture_case(suite, case, checker)
        outcome.seconds = perf_counter() - start
        return outcome

    def _out_of_date(self, suite: Suite, case: Case) -> str | None:
        """The hint for a generated, never edited case that regenerating would change or
        drop (``None`` when it is what the generator still writes, or was edited)."""
        if not _DERIVED_TAGS.intersection(case.tags) or case.edited:
            return None
        if self._regenerated is None or self._regenerated[0] is not suite:
            from jsoncontract.suites.generate import regenerated
            from jsoncontract.suites.instance import DEFAULT_MAX_DEPTH

            tool = self.tools.get(suite.tool)
            assert tool is not None  # the suite ran: its tool is known
            now = regenerated(
                suite,
                tool,
                self.tools.schema(suite.tool),
                max_depth=self.max_depth or DEFAULT_MAX_DEPTH,
            )
            self._regenerated = (suite, now)
        produced = self._regenerated[1]
        if produced is None:
            return None
        fresh = produced.get(case.name)
        if fresh is None:
            return (
                "the generator no longer writes this case for the tool's schema (it changed "
                "since): jsoncontract fixtures --prune removes it"
            )
        if fresh != case.data:
            return (
                "the case was generated from an earlier version of the tool's schema: "
                "regenerate the suite with jsoncontract fixtures (it refreshes generated "
                "cases never edited)"
            )
        return None

    def _source(self, suite: Suite) -> Source:
        if self._last_suite is not suite:
            self._last_suite = suite
            self._last_source = Source(suite.file)
        return self._last_source

    def _capture_case(self, suite: Suite, case: Case, checker: Checker) -> CaseOutcome:
        from jsoncontract.capture.reader import CaptureReader

        reader = CaptureReader(tool=suite.tool if case.hop is Hop.DOWNSTREAM else None)
        try:
            if case.input_kind is InputKind.CAPTURE:
                name = f"{suite.file}#/cases/{case.index}/capture"
                calls = list(reader.read_document(json_bytes(case.input), name=name))
            else:
                base = suite.path.parent if suite.path is not None else Path()
                calls = list(reader.read_file(base / str(case.input)))
        except InputError as exc:
            return CaseOutcome(
                suite, case, Status.FAILED, Mismatch.NO_CALL, f"cannot read the capture: {exc}"
            )
        count = len(calls)
        index = case.call if case.call is not None else (0 if count == 1 else None)
        if count == 0 or index is None or index >= count:
            if count == 0:
                message = "the capture holds no tool call"
            elif index is None:
                message = (
                    f"the capture holds {count} calls; say which one the case is about with "
                    f'"call": 0..{count - 1}'
                )
            else:
                message = f"the capture holds {count} calls; there is no call {index}"
            return CaseOutcome(suite, case, Status.FAILED, Mismatch.NO_CALL, message)
        results = [checker.check(call) for call in calls[: index + 1]]  # earlier calls feed
        result = results[index]  # trace-level business rules
        call = result.call
        if call.tool is None and result.stage is None:
            reasons = "; ".join(f.message for f in result.findings) or "no call was found"
            return CaseOutcome(
                suite,
                case,
                Status.FAILED,
                Mismatch.NO_CALL,
                f"the capture holds no tool call ({reasons})",
            )
        if call.tool is not None and call.tool != suite.tool:
            return CaseOutcome(
                suite,
                case,
                Status.FAILED,
                Mismatch.WRONG_TOOL,
                f"expected a call to {suite.tool!r}; the capture calls {call.tool!r}",
                result,
                hint="the model chose another tool: check the prompt and the tool descriptions",
            )
        if case.hop is not None and call.hop is not None and call.hop is not case.hop:
            return CaseOutcome(
                suite,
                case,
                Status.FAILED,
                Mismatch.WRONG_HOP,
                f"expected a call at the {case.hop.value} hop; the capture's call is at "
                f"{call.hop.value}",
                result,
            )
        return judge(suite, case, result)


def _structured_result(value: Any, source: Source) -> ToolResult:
    """The MCP result a result case gives: ``value`` as structured content, mirrored as
    JSON in a text block, as a server keeping the contract answers."""
    import orjson

    try:
        text = orjson.dumps(value).decode()
    except TypeError:  # what orjson will not write (a lone surrogate): Python's JSON
        text = json_bytes(value).decode("utf-8", "surrogatepass")
    content = [{"type": "text", "text": text}]
    body = {"content": content, "structuredContent": value}
    message = {"jsonrpc": "2.0", "id": 1, "result": body}
    return ToolResult(
        Hop.MCP,
        Dialect.MCP,
        None,
        source,
        content,
        value,
        True,
        False,
        message=message,
    )


class _FreshGate:
    """One case's business gate, made when a call of the case first reaches the gate (most
    negative cases stop at an earlier gate and never need one)."""

    __slots__ = ("_gate", "_make")

    def __init__(self, make: BusinessFactory) -> None:
        self._make = make
        self._gate: BusinessGate | None = None

    def check(self, call: ToolCall, arguments: Any, tool: ToolContract) -> Iterable[Finding]:
        """The fresh gate's findings."""
        if self._gate is None:
            self._gate = self._make()
        return self._gate.check(call, arguments, tool)


def _report(groups: Iterable[list[CaseOutcome]]) -> TestReport:
    summary = TestSummary()
    outcomes: list[CaseOutcome] = []
    for group in groups:
        if group:
            summary.suites += 1
        for outcome in group:
            summary.add(outcome)
        outcomes.extend(group)
    return TestReport(summary, outcomes)


def _words(suite: Suite, case: Case) -> list[str]:
    return [case.name, suite.tool, *case.tags]


def _reason(finding: Finding) -> str:
    return f"{finding.code} at {finding.path or '/'}: {finding.message}"


def judge(suite: Suite, case: Case, result: CallResult) -> CaseOutcome:
    """Compare a checked call with the case's expectation."""
    expect = case.expect
    stage = result.stage
    if expect.stage is None:
        if stage is not None:
            actual = actual_of(result)
            first = actual.errors[0] if actual.errors else None
            return CaseOutcome(
                suite,
                case,
                Status.FAILED,
                Mismatch.UNEXPECTED_FAILURE,
                f"should pass, but {actual.describe()}",
                result,
                hint=first.hint if first is not None else None,
            )
        return _fields(suite, case, expect, result)
    if stage is None:
        return CaseOutcome(
            suite,
            case,
            Status.WEAKNESS,
            Mismatch.ACCEPTED,
            f"should {expect.describe()}, but the contract accepts it",
            result,
            hint=weakness_hint(expect),
        )
    if stage is not expect.stage:
        return CaseOutcome(
            suite,
            case,
            Status.FAILED,
            Mismatch.WRONG_STAGE,
            f"should {expect.describe()}, but {actual_of(result).describe()}",
            result,
        )
    code, keyword, path = expect.code, expect.keyword, expect.path
    errors = [f for f in result.findings if f.severity is _ERROR and f.stage is stage]
    candidates = [
        f
        for f in errors
        if (code is None or f.code == code) and (keyword is None or f.keyword == keyword)
    ]
    if not candidates:
        others = len(errors) - 1
        more = f" (and {others} other error{'s' if others != 1 else ''})" if others > 0 else ""
        return CaseOutcome(
            suite,
            case,
            Status.FAILED,
            Mismatch.WRONG_REASON,
            f"should {expect.describe()}, but fails for another reason: "
            f"{_reason(errors[0]) if errors else 'unknown'}{more}",
            result,
        )
    if path is not None:
        for finding in candidates:
            if finding.path == path:
                break
        else:
            where = ", ".join(sorted({f.path or "/" for f in candidates}))
            return CaseOutcome(
                suite,
                case,
                Status.FAILED,
                Mismatch.WRONG_PATH,
                f"should {expect.describe()}, but fails with {candidates[0].code} at {where}: "
                f"{candidates[0].message}",
                result,
            )
    return _fields(suite, case, expect, result)


def _fields(suite: Suite, case: Case, expect: Expectation, result: CallResult) -> CaseOutcome:
    arguments = result.arguments
    if expect.fields is not None:
        got = set(arguments) if isinstance(arguments, dict) else None
        wanted = set(expect.fields)
        if got != wanted:
            parts = []
            if got is None:
                parts.append("the call has no arguments object (its arguments could not be read)")
            else:
                if wanted - got:
                    parts.append(f"missing {', '.join(sorted(wanted - got))}")
                if got - wanted:
                    parts.append(f"unexpected {', '.join(sorted(got - wanted))}")
            return CaseOutcome(
                suite,
                case,
                Status.FAILED,
                Mismatch.WRONG_FIELDS,
                f"the call's argument fields differ from the recorded ones: {'; '.join(parts)}",
                result,
                hint="a prompt or model change moved fields; if that is intended, --update "
                "records it",
            )
    return CaseOutcome(suite, case, Status.PASSED)  # the result is not kept: nothing to show


def weakness_hint(expect: Expectation) -> str:
    """What to change in the contract so that an accepted negative case fails."""
    keyword = expect.keyword or (
        expect.code.split(".", 1)[1] if expect.code and expect.code.startswith("schema.") else None
    )
    if expect.stage is Stage.BUSINESS:
        text = (
            "the business rule did not fire: check its condition, and that the rules are "
            "loaded (config)"
        )
    elif keyword in _WEAKNESS_HINTS:
        text = _WEAKNESS_HINTS[keyword].format(object=_object_of(expect.path))
    elif expect.stage is Stage.SCHEMA:
        text = "tighten the schema so that this input fails"
    else:
        stage = expect.stage.value if expect.stage is not None else "?"
        text = f"the {stage} gate accepted the input: check the case's input and hop"
    return text + "; or, if the input is acceptable, make the case expect ok (--update)"


def _object_of(path: str | None) -> str:
    if path is None:
        return "the object"
    parent = path.rsplit("/", 1)[0] if "/" in path else ""
    return f"the object at {parent}" if parent else "the root object"


def load_suites(paths: Iterable[str | Path]) -> list[Suite]:
    """Read every suite file under ``paths`` (see :func:`.format.read_suite`)."""
    from jsoncontract.suites.format import find_suite_files, read_suite

    return [read_suite(p) for p in find_suite_files(paths)]


def run_suites(
    suites: Iterable[Suite] | Iterable[str | Path],
    *,
    tools: ToolSet,
    business: BusinessFactory | None = None,
    select: Selector | str | None = None,
    show_values: bool = False,
) -> TestReport:
    """Run suites (loaded ones, or suite files and directories) and return the report.

    Arguments:
        business: makes a fresh business gate per case (see :class:`SuiteRunner`).
        select: a ``-k`` expression, or a compiled :class:`Selector`.

    Raises:
        SuiteError: a suite file is not a valid suite (with its location).
        UsageError: ``select`` is not a valid ``-k`` expression.
    """
    from jsoncontract.suites.select import Selector

    chooser = Selector(select) if isinstance(select, str) else select
    runner = SuiteRunner(tools, business=business, show_values=show_values)
    items: list[Any] = list(suites)
    paths = [p for p in items if not isinstance(p, Suite)]
    if not paths:
        return runner.run(items, select=chooser)
    if len(paths) != len(items):
        raise UsageError("run_suites takes loaded suites or suite paths, not both at once")
    return runner.run_files(paths, select=chooser)
