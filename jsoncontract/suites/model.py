"""The values of fixture suites: suites, cases, expectations, and what running them found.

A suite belongs to one tool and holds cases. A case is an input (raw arguments, raw
arguments text, or a capture in any dialect ``check`` reads) at a hop, and an
:class:`Expectation`: ``ok``, or the stage it must fail at, with the code or keyword and the
JSON Pointer. Running a case gives a :class:`CaseOutcome`: passed, failed (with the kind of
:class:`Mismatch`), a contract weakness (a negative case the contract accepted), or
skipped.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract.model import BaselineState, Finding, Hop, Severity, Source, Stage

if TYPE_CHECKING:
    from jsoncontract.baseline import Baseline
    from jsoncontract.model import Anomaly, CallResult

#: The suite format version this release reads and writes.
SUITE_VERSION: Final = 1
#: Suite files are recognised by this ending (``<tool>.suite.json``).
SUITE_SUFFIX: Final = ".suite.json"


class InputKind(StrEnum):
    """How a case gives its input."""

    ARGUMENTS = "arguments"  # the arguments value as the hop delivers it
    TEXT = "text"  # the raw arguments text (a model's JSON string), possibly malformed
    CAPTURE = "capture"  # a whole capture document, inline
    CAPTURE_FILE = "capture_file"  # a capture file, relative to the suite file


@dataclass(frozen=True, slots=True)
class Expectation:
    """What a case must do.

    ``stage`` ``None`` means the call must pass every gate. Otherwise it must fail first at
    ``stage`` with a finding whose ``code`` (or, for the schema stage, ``keyword``) and
    ``path`` match those given (``None`` matches anything). ``fields``, when given, is
    the exact set of top-level argument names the call must carry.
    """

    stage: Stage | None = None
    code: str | None = None
    keyword: str | None = None
    path: str | None = None
    fields: tuple[str, ...] | None = None

    @property
    def ok(self) -> bool:
        """True when the case must pass."""
        return self.stage is None

    @classmethod
    def from_json(cls, value: Any) -> Expectation:
        """Read the ``expect`` member (already checked against the suite schema)."""
        if value == "ok":
            return _PASS
        stage = value.get("stage")
        fields = value.get("fields")
        return cls(
            stage=_STAGES[stage] if stage is not None else None,
            code=value.get("code"),
            keyword=value.get("keyword"),
            path=value.get("path"),
            fields=tuple(sorted(fields)) if fields is not None else None,
        )

    def to_json(self) -> Any:
        """The ``expect`` member: ``"ok"`` or an object."""
        if self.stage is None and self.fields is None:
            return "ok"
        out: dict[str, Any] = {}
        if self.stage is not None:
            out["stage"] = self.stage.value
        if self.code is not None:
            out["code"] = self.code
        if self.keyword is not None:
            out["keyword"] = self.keyword
        if self.path is not None:
            out["path"] = self.path
        if self.fields is not None:
            out["fields"] = list(self.fields)
        return out

    def describe(self) -> str:
        """A verb phrase: ``pass``, or ``fail at schema (schema.required at /order_id)``."""
        if self.stage is None:
            text = "pass"
        else:
            reason = self.code or (codes.schema_code(self.keyword) if self.keyword else "")
            if self.path is not None:
                reason += f"{' at ' if reason else 'at '}{self.path or '/'}"
            text = f"fail at {self.stage.value}" + (f" ({reason})" if reason else "")
        if self.fields is not None:
            text += f" with fields {', '.join(self.fields) or '(none)'}"
        return text


_PASS: Final = Expectation()
#: What :attr:`Case.result` is for a case without a result.
NO_RESULT: Final[Any] = object()


def json_bytes(value: Any, *, sort_keys: bool = False) -> bytes:
    """JSON of a value read from a suite file, which may hold what orjson will not write:
    a lone surrogate (a case can test one) or nesting deeper than 255 levels."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else None)
    except TypeError:
        return json_line(value, sort_keys=sort_keys).encode()


def json_scalar(value: Any) -> str:
    """A string, number, boolean or null as JSON (a lone surrogate escaped)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return json.dumps(value)


class _Text(str):
    """Literal JSON text queued by :func:`json_line` (brackets, separators, keys)."""

    __slots__ = ()


def json_line(value: Any, *, sort_keys: bool = False) -> str:
    """``value`` on one line, with a space after each ``,`` and ``:``; written without
    recursion, so any depth a parser accepts can be written back."""
    parts: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if type(item) is _Text:
            parts.append(item)
        elif isinstance(item, dict):
            parts.append("{")
            stack.append(_Text("}"))
            members = sorted(item.items()) if sort_keys else list(item.items())
            for at in range(len(members) - 1, -1, -1):
                key, member = members[at]
                stack.append(member)
                stack.append(_Text((", " if at else "") + json_scalar(key) + ": "))
        elif isinstance(item, list):
            parts.append("[")
            stack.append(_Text("]"))
            for at in range(len(item) - 1, -1, -1):
                stack.append(item[at])
                if at:
                    stack.append(_Text(", "))
        else:
            parts.append(json_scalar(item))
    return "".join(parts)


def case_digest(data: dict[str, Any]) -> str:
    """A short fingerprint of a case as written, without its ``generated`` member.

    The generator stores it in ``generated``; a case whose content no longer matches was
    edited by hand, and regenerating leaves it alone.
    """
    body = {k: v for k, v in data.items() if k != "generated"}
    return hashlib.sha256(json_bytes(body, sort_keys=True)).hexdigest()[:12]


_STAGES: Final = {s.value: s for s in Stage}
_HOPS: Final = {h.value: h for h in Hop}
_INPUT_KINDS: Final = tuple((k.value, k) for k in InputKind)
_CAPTURES: Final = frozenset({InputKind.CAPTURE, InputKind.CAPTURE_FILE})

#: The order members are written in (reviewers see the name and the assertion first).
CASE_KEYS: Final = (
    "name",
    "description",
    "tags",
    "skip",
    "hop",
    "expect",
    "arguments",
    "result",
    "text",
    "capture",
    "capture_file",
    "call",
    "generated",
)


@dataclass(slots=True)
class Case:
    """One case of a suite.

    ``data`` is the case object as written in the file (members in :data:`CASE_KEYS`
    order); the other attributes are read from it. A case with a ``result`` (the structured
    content the tool returned, next to its ``arguments``) is checked through the result
    stage too: :attr:`result` holds it, :data:`NO_RESULT` when the case has none.
    ``anomalies`` are the lone surrogates of an ``arguments`` value (pointers relative to
    it), which its call carries as a capture's would.
    """

    name: str
    expect: Expectation
    input_kind: InputKind
    input: Any
    hop: Hop | None = None
    call: int | None = None
    tags: tuple[str, ...] = ()
    description: str | None = None
    skip: str | None = None
    generated: str | None = None
    data: dict[str, Any] = field(default_factory=dict)
    index: int = 0
    anomalies: tuple[Anomaly, ...] = ()

    @property
    def result(self) -> Any:
        """The result the case gives (MCP ``structuredContent``), or :data:`NO_RESULT`."""
        return self.data.get("result", NO_RESULT)

    @classmethod
    def from_json(cls, data: dict[str, Any], index: int = 0) -> Case:
        """A case from its (schema-checked) object; ``data`` is kept as it is."""
        if "arguments" in data:
            key, kind = "arguments", InputKind.ARGUMENTS
        elif "text" in data:
            key, kind = "text", InputKind.TEXT
        else:
            key, kind = next((k, v) for k, v in _INPUT_KINDS if k in data)
        get = data.get
        hop = get("hop")
        tags = get("tags")
        return cls(
            data["name"],
            Expectation.from_json(data["expect"]),
            kind,
            data[key],
            _HOPS[hop] if hop is not None else (None if kind in _CAPTURES else Hop.MODEL),
            get("call"),
            tuple(tags) if tags else (),
            get("description"),
            get("skip"),
            get("generated"),
            data,
            index,
        )

    @property
    def edited(self) -> bool:
        """Generated, then changed by hand (or by ``test --update``)."""
        return self.generated is not None and case_digest(self.data) != self.generated

    def with_expectation(self, expect: Expectation) -> Case:
        """A copy expecting ``expect`` instead (its fingerprint left as it was)."""
        data = dict(self.data)
        data["expect"] = expect.to_json()
        case = Case.from_json(data, self.index)
        case.anomalies = self.anomalies
        return case


def ordered_case(data: dict[str, Any]) -> dict[str, Any]:
    """The members of a case in the canonical order (unknown ones last)."""
    out: dict[str, Any] = {k: data[k] for k in CASE_KEYS if k in data}
    for key, value in data.items():
        if key not in out:
            out[key] = value
    return out


@dataclass(slots=True)
class Suite:
    """The cases of one tool, usually read from ``<tool>.suite.json``.

    ``text`` is the file's text when it was read from one (positions of cases are found
    in it on demand).
    """

    tool: str
    cases: list[Case]
    path: Path | None = None
    seed: int | None = None
    description: str | None = None
    text: str | None = field(default=None, repr=False)
    _lines: list[int] | None = field(default=None, repr=False)

    @property
    def file(self) -> str:
        """The suite file as given (``"<memory>"`` when it has none)."""
        return str(self.path) if self.path is not None else "<memory>"

    def line_of(self, case: Case) -> int | None:
        """The 1-based line where a case starts in the file, when known."""
        if self.text is None:
            return None
        if self._lines is None:
            self._lines = case_lines(self.text)
        lines = self._lines
        return lines[case.index] if case.index < len(lines) else None

    def to_json(self) -> dict[str, Any]:
        """The suite file's object."""
        out: dict[str, Any] = {"version": SUITE_VERSION, "tool": self.tool}
        if self.description is not None:
            out["description"] = self.description
        if self.seed is not None:
            out["seed"] = self.seed
        out["cases"] = [ordered_case(c.data) for c in self.cases]
        return out


def case_lines(text: str) -> list[int]:
    """The 1-based line where each case of a suite text starts.

    Reports ask for the line of every case. The top-level members are stepped over, and the
    cases read one by one, with the standard library's C scanner, counting newlines in
    between: no position is kept for anything inside a case. A text this cannot read (not
    a suite document) falls back to the full :class:`~jsoncontract._locate.PositionIndex`.
    """
    decode = _DECODER.raw_decode
    try:
        at = _skip(text, 0)
        if text[at] != "{":
            raise ValueError("not an object")
        at = _skip(text, at + 1)
        while text[at] == '"':
            key, at = decode(text, at)
            at = _skip(text, _skip(text, at) + 1)  # past the colon
            if key == "cases" and text[at] == "[":
                lines: list[int] = []
                line, counted = 1, 0
                at = _skip(text, at + 1)
                while text[at] != "]":
                    line += text.count("\n", counted, at)
                    counted = at
                    lines.append(line)
                    at = _skip(text, decode(text, at)[1])
                    if text[at] == ",":
                        at = _skip(text, at + 1)
                return lines
            at = _skip(text, decode(text, at)[1])
            if text[at] == ",":
                at = _skip(text, at + 1)
    except (ValueError, IndexError, RecursionError):  # RecursionError: a case nested ~1,000 deep
        pass
    from jsoncontract._locate import PositionIndex

    index = PositionIndex(text)
    found: list[int] = []
    while (offset := index.offset(f"/cases/{len(found)}")) is not None:
        found.append(index.line_col(offset)[0])
    return found


def _skip(text: str, at: int) -> int:
    """The first position from ``at`` that is not JSON whitespace (``IndexError`` past the
    end)."""
    while text[at] in " \t\n\r":
        at += 1
    return at


_DECODER: Final = json.JSONDecoder()


class Status(StrEnum):
    """How a case came out."""

    PASSED = "passed"
    FAILED = "failed"
    WEAKNESS = "weakness"  # a negative case the contract accepted
    SKIPPED = "skipped"
    ERROR = "error"  # the suite could not run (its tool no longer exists)


class Mismatch(StrEnum):
    """Why a case did not pass."""

    ACCEPTED = "accepted"  # expected to fail, passed every gate: a contract weakness
    UNEXPECTED_FAILURE = "unexpected_failure"  # expected ok, failed
    WRONG_STAGE = "wrong_stage"  # failed, at another stage
    WRONG_REASON = "wrong_reason"  # right stage, another code or keyword
    WRONG_PATH = "wrong_path"  # right stage and reason, another place
    WRONG_FIELDS = "wrong_fields"  # the call carries another set of argument fields
    WRONG_TOOL = "wrong_tool"  # the captured call goes to another tool
    WRONG_HOP = "wrong_hop"  # the captured call is at another hop
    NO_CALL = "no_call"  # the capture holds no call, or not the one asked for
    TOOL_MISSING = "tool_missing"  # the suite's tool is not in the tool list
    # ``mcp test``: the live server disagrees with the case
    SERVER_ACCEPTED = "server_accepted"  # the contract rejects the call; the server took it
    SERVER_REJECTED = "server_rejected"  # the contract accepts the call; the server refused it
    SERVER_FAILED = "server_failed"  # no answer in time, a crash, or an unreadable answer
    SERVER_RESULT = "server_result"  # the result breaks the tool's output schema


@dataclass(frozen=True, slots=True)
class Actual:
    """What the pipeline did with a case's call."""

    stage: Stage | None
    errors: tuple[Finding, ...] = ()
    tool: str | None = None
    hop: Hop | None = None
    fields: tuple[str, ...] | None = None

    def describe(self) -> str:
        """A verb phrase: ``passes every gate``, or ``fails at schema: schema.enum at
        /priority: ...``."""
        if self.stage is None:
            return "passes every gate"
        first = self.errors[0] if self.errors else None
        if first is None:
            return f"fails at {self.stage.value}"
        return f"fails at {self.stage.value}: {first.code} at {first.path or '/'}: {first.message}"

    def expectation(self) -> Expectation:
        """The expectation this outcome would meet (what ``test --update`` writes)."""
        if self.stage is None:
            return Expectation()
        first = self.errors[0] if self.errors else None
        if first is None:
            return Expectation(self.stage)
        if self.stage is Stage.SCHEMA and first.keyword:
            return Expectation(self.stage, keyword=first.keyword, path=first.path)
        return Expectation(self.stage, code=first.code, path=first.path)


def actual_of(result: CallResult) -> Actual:
    """What a checked call amounts to, for comparing with an expectation."""
    call = result.call
    stage = result.stage
    errors = tuple(
        f
        for f in result.findings
        if f.severity is Severity.ERROR and (stage is None or f.stage is None or f.stage is stage)
    )
    arguments = result.arguments
    fields = tuple(sorted(arguments)) if isinstance(arguments, dict) else None
    return Actual(stage, errors, call.tool, call.hop, fields)


@dataclass(frozen=True, slots=True)
class ServerAnswer:
    """What a live server did with a case's call (``mcp test``).

    ``answer`` is ``accepted``, ``tool-error``, ``protocol-error``, ``timeout``, ``crashed``
    or ``invalid``, and ``None`` when the call was not sent (``text`` says why).
    """

    answer: str | None
    text: str
    code: int | None = None
    ms: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``server`` member of a result in the JSON report."""
        out: dict[str, Any] = {"sent": self.answer is not None, "answer": self.answer}
        if self.code is not None:
            out["code"] = self.code
        if self.ms is not None:
            out["ms"] = self.ms
        out["text"] = self.text
        return out


@dataclass(slots=True)
class CaseOutcome:
    """The result of one case (or, for a suite that could not run, of the suite)."""

    suite: Suite
    case: Case | None
    status: Status
    mismatch: Mismatch | None = None
    message: str = ""
    result: CallResult | None = None
    hint: str | None = None
    seconds: float = 0.0
    #: what a live server answered (``mcp test`` only)
    server: ServerAnswer | None = None
    #: set when the run was compared with a baseline (for a case that did not pass)
    baseline: BaselineState | None = None

    @property
    def actual(self) -> Actual | None:
        """What the pipeline did with the case's call (``None`` when no call ran)."""
        return actual_of(self.result) if self.result is not None else None

    @property
    def ok(self) -> bool:
        """Passed or skipped."""
        return self.status in (Status.PASSED, Status.SKIPPED)

    @property
    def name(self) -> str:
        """The case name (``(suite)`` for a suite-level outcome)."""
        return self.case.name if self.case is not None else "(suite)"

    @property
    def code(self) -> str | None:
        """``suite.<mismatch>`` for a case that did not pass (``suite.accepted`` for a
        contract weakness), ``None`` for one that passed or was skipped."""
        if self.ok or self.mismatch is None:  # every case that did not pass has a mismatch
            return None
        return codes.SUITE_CODES[self.mismatch.value]

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``results`` in the ``test`` JSON report."""
        suite, case = self.suite, self.case
        source: dict[str, Any] = {"file": suite.file}
        if case is not None:
            line = suite.line_of(case)
            if line is not None:
                source["line"] = line
        code = self.code
        out: dict[str, Any] = {
            "ok": code is None,
            "tool": suite.tool,
            "case": case.name if case is not None else None,
            "status": self.status.value,
            "mismatch": self.mismatch.value if self.mismatch is not None else None,
            "code": code,
            "severity": Severity.ERROR.value if code is not None else None,
            "message": self.message,
            "source": source,
        }
        if case is not None:
            out["tags"] = list(case.tags)
            out["expected"] = case.expect.to_json()
        actual = self.actual
        if actual is not None:
            out["actual"] = {
                "stage": actual.stage.value if actual.stage is not None else None,
                "tool": actual.tool,
                "hop": actual.hop.value if actual.hop is not None else None,
                "findings": [_finding_dict(f) for f in actual.errors],
            }
            if actual.fields is not None:
                out["actual"]["fields"] = list(actual.fields)
        if self.hint is not None:
            out["hint"] = self.hint
        if self.server is not None:
            out["server"] = self.server.to_dict()
        if self.baseline is not None:
            out["baseline"] = self.baseline.value
        return out


def _finding_dict(finding: Finding) -> dict[str, Any]:
    out = finding.to_dict()
    out.pop("source", None)  # the case's source says where it is
    return out


def group_by_suite(outcomes: Sequence[CaseOutcome]) -> list[tuple[Suite, list[CaseOutcome]]]:
    """Outcomes in runs of the same suite, in report order."""
    groups: list[tuple[Suite, list[CaseOutcome]]] = []
    for outcome in outcomes:
        if not groups or groups[-1][0] is not outcome.suite:
            groups.append((outcome.suite, []))
        groups[-1][1].append(outcome)
    return groups


@dataclass(slots=True)
class TestSummary:
    """Totals over a test run, overall and per tool."""

    suites: int = 0
    cases: int = 0
    passed: int = 0
    failed: int = 0
    weaknesses: int = 0
    skipped: int = 0
    errors: int = 0
    by_tool: dict[str, Counter[str]] = field(default_factory=dict)
    by_mismatch: Counter[str] = field(default_factory=Counter)

    __test__ = False  # not a pytest test class, despite the name

    def add(self, outcome: CaseOutcome) -> None:
        """Count one outcome."""
        name = outcome.suite.tool
        tool = self.by_tool.get(name)
        if tool is None:
            tool = self.by_tool[name] = Counter()
        status = outcome.status
        if status is Status.PASSED:
            self.cases += 1
            self.passed += 1
            tool["cases"] += 1
            tool["passed"] += 1
            return
        if status is Status.ERROR:
            self.errors += 1
            tool["errors"] += 1
        else:
            self.cases += 1
            tool["cases"] += 1
            if status is Status.FAILED:
                self.failed += 1
            elif status is Status.WEAKNESS:
                self.weaknesses += 1
            else:
                self.skipped += 1
            tool[status.value] += 1
        if outcome.mismatch is not None:
            self.by_mismatch[outcome.mismatch.value] += 1

    @property
    def ok(self) -> bool:
        """No failure, weakness or suite error."""
        return not (self.failed or self.weaknesses or self.errors)

    def to_dict(self) -> dict[str, Any]:
        """The ``summary`` object of the ``test`` JSON report."""
        return {
            "suites": self.suites,
            "cases": self.cases,
            "passed": self.passed,
            "failed": self.failed,
            "weaknesses": self.weaknesses,
            "skipped": self.skipped,
            "errors": self.errors,
            "by_tool": {
                name: {
                    "cases": counts.get("cases", 0),
                    "passed": counts.get("passed", 0),
                    "failed": counts.get("failed", 0),
                    "weaknesses": counts.get(Status.WEAKNESS.value, 0),
                    "skipped": counts.get("skipped", 0),
                    "errors": counts.get("errors", 0),
                }
                for name, counts in sorted(self.by_tool.items())
            },
            "by_mismatch": dict(sorted(self.by_mismatch.items())),
        }


@dataclass(slots=True)
class TestReport:
    """What :func:`jsoncontract.suites.run_suites` returns."""

    summary: TestSummary
    outcomes: list[CaseOutcome]
    updates: list[Update] = field(default_factory=list)

    __test__ = False  # not a pytest test class, despite the name

    @property
    def ok(self) -> bool:
        """Every case passed or was skipped, and every suite ran."""
        return self.summary.ok

    @property
    def new_failures(self) -> int:
        """Cases (and suites) that did not pass, except those a baseline holds."""
        return sum(
            1
            for outcome in self.outcomes
            if not outcome.ok and outcome.baseline is not BaselineState.UNCHANGED
        )

    def mark_baseline(self, baseline: Baseline) -> None:
        """Mark every case that did not pass with whether ``baseline`` holds it."""
        matcher = baseline.matcher()
        for outcome in self.outcomes:
            if not outcome.ok:
                outcome.baseline = matcher.state(as_finding(outcome))

    def to_dict(self) -> dict[str, Any]:
        """The whole ``test`` JSON report."""
        out: dict[str, Any] = {
            "version": 1,
            "summary": self.summary.to_dict(),
            "results": [o.to_dict() for o in self.outcomes],
        }
        if self.updates:
            out["updates"] = [u.to_dict() for u in self.updates]
        return out


@dataclass(frozen=True, slots=True)
class Update:
    """One expectation ``test --update`` rewrote."""

    file: str
    tool: str
    case: str
    before: Expectation
    after: Expectation

    def to_dict(self) -> dict[str, Any]:
        """The entry in the JSON report's ``updates``."""
        return {
            "file": self.file,
            "tool": self.tool,
            "case": self.case,
            "before": self.before.to_json(),
            "after": self.after.to_json(),
        }


def case_line(suite: Suite, case: Case | None) -> int:
    """The line a case is written on; for what concerns the whole suite (its tool is
    gone), the line naming the tool (line 1 when the text is not known)."""
    if case is not None:
        line = suite.line_of(case)
        if line is not None:
            return line
    if suite.text is None:
        return 1
    from jsoncontract._locate import PositionIndex

    position = PositionIndex(suite.text).position("/tool")
    return position[0] if position is not None else 1


def as_finding(outcome: CaseOutcome) -> Finding:
    """A case that did not pass, as a finding on its line of the suite file."""
    suite, case = outcome.suite, outcome.case
    expect = case.expect if case is not None else None
    code = outcome.code
    assert code is not None, "a case that did not pass has a code"
    return Finding(
        code=code,
        severity=Severity.ERROR,
        message=f"{suite.tool} › {outcome.name}: {outcome.message}",
        path=(expect.path or "") if expect is not None else "",
        tool=suite.tool,
        keyword=expect.keyword if expect is not None else None,
        source=Source(suite.file, case_line(suite, case)),
        hint=outcome.hint,
        baseline=outcome.baseline,
    )
