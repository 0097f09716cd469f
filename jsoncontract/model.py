"""The canonical data model: one set of types shared by every command.

Everything the library produces is built from these frozen values: a :class:`ToolContract`
per tool, a :class:`ToolCall` per extracted call, a :class:`Finding` per problem and a
:class:`CallResult` per checked call. Reporters turn them into text; nothing here prints.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final

# The JSON Pointer helpers live in jsoncontract.pointer; they stay importable from here.
from jsoncontract.pointer import escape_pointer_token as escape_pointer_token
from jsoncontract.pointer import join_pointer as join_pointer
from jsoncontract.pointer import pointer_tokens as pointer_tokens

# Code run once per call reads a member's value as ``_value_`` (the attribute itself):
# ``.value`` is a Python-level property, five times slower.


class Severity(StrEnum):
    """How bad a finding is. The members are declared worst first, and that order is the
    only one: iterating the enum, :attr:`rank` and :meth:`worst` follow it. ``--fail-on``
    compares ranks.

    >>> [s.value for s in Severity]
    ['error', 'warning', 'info']
    >>> Severity.worst([Severity.INFO, Severity.WARNING, Severity.INFO])
    <Severity.WARNING: 'warning'>
    >>> Severity.worst([]) is None
    True
    """

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"

    @property
    def rank(self) -> int:
        """2 for errors, 1 for warnings, 0 for info: higher is worse."""
        return _SEVERITY_RANK[self]

    @classmethod
    def worst(cls, severities: Iterable[Severity]) -> Severity | None:
        """The most severe of ``severities``, or ``None`` when there are none (reading
        stops at the first error)."""
        worst: Severity | None = None
        for severity in severities:
            if worst is None or _SEVERITY_RANK[severity] > _SEVERITY_RANK[worst]:
                worst = severity
                if severity is cls.ERROR:
                    break
        return worst


_SEVERITY_RANK: Final = {s: len(Severity) - 1 - i for i, s in enumerate(Severity)}


class Stage(StrEnum):
    """The gates a call passes through, in order."""

    ENVELOPE = "envelope"
    PARSE = "parse"
    SCHEMA = "schema"
    BUSINESS = "business"


STAGE_ORDER: Final = (Stage.ENVELOPE, Stage.PARSE, Stage.SCHEMA, Stage.BUSINESS)


class Hop(StrEnum):
    """Where on its way from the model to the business system a payload was captured."""

    MODEL = "model"
    MCP = "mcp"
    DOWNSTREAM = "downstream"


class Dialect(StrEnum):
    """The names of the wire formats jsoncontract reads built in.

    Captures and tool definitions carry their dialect's name as a string: a built-in one is
    a member of this enum, a dialect registered in
    :class:`~jsoncontract.capture.registry.Registry` may bring its own. ``json-schema`` names
    a bare JSON Schema given as a tool definition; it is no capture dialect.
    """

    OPENAI_CHAT = "openai-chat"
    OPENAI_RESPONSES = "openai-responses"
    ANTHROPIC = "anthropic"
    GEMINI = "gemini"
    MCP = "mcp"
    MCP_TRACE = "mcp-trace"  # the lines of a trace written by ``mcp record``
    DOWNSTREAM = "downstream"
    JSON_SCHEMA = "json-schema"


@dataclass(slots=True)
class Source:
    """Where something came from: a file, a 1-based line, and a JSON Pointer inside it."""

    file: str
    line: int | None = None
    column: int | None = None
    pointer: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The ``{"file":..,"line":..}`` object of the JSON report (``None`` parts left out)."""
        out: dict[str, Any] = {"file": self.file}
        if self.line is not None:
            out["line"] = self.line
        if self.column is not None:
            out["column"] = self.column
        return out

    def __str__(self) -> str:
        if self.line is None:
            return self.file
        if self.column is None:
            return f"{self.file}:{self.line}"
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem, with enough context for a person to act on it.

    ``code`` is stable across releases (``parse.code_fence``, ``schema.enum``,
    ``business.<rule-id>``, a lint code); ``path`` is a JSON Pointer into the checked
    document (for calls: into the arguments); ``hint`` says what to do about it.
    """

    code: str
    severity: Severity
    message: str
    path: str = ""
    stage: Stage | None = None
    hop: Hop | None = None
    tool: str | None = None
    call_id: str | None = None
    keyword: str | None = None
    schema_path: str | None = None
    source: Source | None = None
    hint: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The finding as it appears in every JSON report (absent parts left out)."""
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity._value_,
            "message": self.message,
            "path": self.path,
        }
        if self.stage is not None:
            out["stage"] = self.stage._value_
        if self.hop is not None:
            out["hop"] = self.hop._value_
        if self.tool is not None:
            out["tool"] = self.tool
        if self.call_id is not None:
            out["call_id"] = self.call_id
        if self.keyword is not None:
            out["keyword"] = self.keyword
        if self.schema_path is not None:
            out["schema_path"] = self.schema_path
        if self.source is not None:
            out["source"] = self.source.to_dict()
        if self.hint is not None:
            out["hint"] = self.hint
        return out


@dataclass(frozen=True, slots=True)
class SchemaLocation:
    """Where a tool's schema is written in its file.

    ``openapi`` is true for a schema written in the OpenAPI 3.0 subset (Gemini
    ``parameters`` and ``response``): the contract holds its JSON Schema translation.
    """

    pointer: str
    openapi: bool = False


@dataclass(frozen=True, slots=True)
class ToolContract:
    """One tool, normalised from whichever dialect defined it.

    ``input_schema`` is the canonical JSON Schema of the arguments; ``definition`` keeps the
    original definition object untouched (for linting and pinning). ``dialect`` is the name
    of the dialect that defined it (a :class:`Dialect` for the built-in ones).

    The loader records where the parts sit in the file at ``source`` (JSON Pointers):
    ``body_pointer`` is the object holding name and description (the definition itself, or
    its ``function`` member in OpenAI Chat; ``None`` means the definition itself), and
    ``input_location`` / ``output_location`` the schemas as written. A location is ``None``
    when the schema is not written in that file: made up for a function without
    ``parameters``, or taken from another copy of the tool.
    """

    name: str
    input_schema: dict[str, Any]
    dialect: str
    source: Source
    description: str | None = None
    title: str | None = None
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    strict: bool | None = None
    definition: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    body_pointer: str | None = field(default=None, compare=False)
    input_location: SchemaLocation | None = field(default=None, compare=False)
    output_location: SchemaLocation | None = field(default=None, compare=False)


class ArgumentsForm(StrEnum):
    """How the arguments of a call arrived on the wire."""

    TEXT = "text"  # a JSON document inside a string (OpenAI ``arguments``)
    VALUE = "value"  # an already-parsed JSON value (Anthropic ``input``, MCP ``arguments``)
    MISSING = "missing"  # no arguments member at all


@dataclass(frozen=True, slots=True)
class Anomaly:
    """Something a JSON parser would hide: a duplicate key, an integer beyond 64 bits...

    Found while loading the capture document; ``pointer`` is relative to the call's
    arguments, ``kind`` is the parse code suffix (``duplicate_key``, ``big_integer``...).
    """

    kind: str
    pointer: str
    detail: str


@dataclass(slots=True)
class ToolCall:
    """One tool call pulled out of a capture, at one hop, before any gate has run.

    ``load_findings`` holds what was already wrong while the call was being extracted (a
    malformed envelope, or a trace line that is not JSON at all, in which case ``tool`` and
    ``hop`` are ``None``). ``dialect`` is the name of the dialect it was read in (a
    :class:`Dialect` for the built-in ones). ``response`` is the MCP response with the same
    id, when the capture holds it and it came before the call was handed on.
    """

    hop: Hop | None
    dialect: str | None
    tool: str | None
    call_id: str | None
    arguments: Any
    form: ArgumentsForm
    source: Source
    anomalies: tuple[Anomaly, ...] = ()
    load_findings: list[Finding] = field(default_factory=list)
    context: dict[str, Any] | None = None
    meta: dict[str, Any] | None = None
    response: Any = None


@dataclass(slots=True)
class CallResult:
    """The outcome of running one call through the gates.

    ``stage`` is the first gate that produced an error (``None`` when the call passed);
    ``arguments`` holds the parsed arguments when the parse gate passed.
    """

    call: ToolCall
    findings: list[Finding]
    stage: Stage | None
    arguments: Any = None

    @property
    def ok(self) -> bool:
        """True when no finding is an error."""
        return self.stage is None

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``results`` in the ``check`` JSON report."""
        call = self.call
        return {
            "ok": self.stage is None,
            "tool": call.tool,
            "hop": call.hop._value_ if call.hop is not None else None,
            "call_id": call.call_id,
            "dialect": str(call.dialect) if call.dialect is not None else None,
            "stage": self.stage._value_ if self.stage is not None else None,
            "source": call.source.to_dict(),
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass(slots=True)
class Summary:
    """Running totals over a check: by stage, by tool, by code and by severity."""

    calls: int = 0
    ok: int = 0
    failed: int = 0
    files: int = 0
    by_stage: Counter[str] = field(default_factory=Counter)
    by_tool: dict[str, list[int]] = field(default_factory=dict)
    by_code: Counter[str] = field(default_factory=Counter)
    by_severity: Counter[str] = field(default_factory=Counter)

    def add(self, result: CallResult) -> None:
        """Count one result."""
        self.calls += 1
        tool = result.call.tool or "(unknown)"
        counts = self.by_tool.get(tool)
        if counts is None:
            counts = self.by_tool[tool] = [0, 0]
        counts[0] += 1
        if result.stage is None:
            self.ok += 1
        else:
            self.failed += 1
            counts[1] += 1
            self.by_stage[result.stage._value_] += 1
        for finding in result.findings:
            self.by_code[finding.code] += 1
            self.by_severity[finding.severity._value_] += 1

    def worst(self) -> Severity | None:
        """The most severe finding seen, or ``None`` when there were none."""
        return Severity.worst(s for s in Severity if self.by_severity.get(s._value_))

    def to_dict(self) -> dict[str, Any]:
        """The ``summary`` object of the ``check`` JSON report."""
        return {
            "calls": self.calls,
            "ok": self.ok,
            "failed": self.failed,
            "files": self.files,
            "by_stage": {s.value: self.by_stage.get(s.value, 0) for s in STAGE_ORDER},
            "by_tool": {
                name: {"calls": c[0], "failed": c[1]} for name, c in sorted(self.by_tool.items())
            },
            "by_code": dict(sorted(self.by_code.items())),
            "by_severity": {s.value: self.by_severity.get(s.value, 0) for s in Severity},
        }


@dataclass(slots=True)
class CheckReport:
    """What :func:`jsoncontract.check` returns: the summary and every result."""

    summary: Summary
    results: list[CallResult]

    @property
    def ok(self) -> bool:
        """True when every call passed."""
        return self.summary.failed == 0

    def to_dict(self) -> dict[str, Any]:
        """The whole ``check`` JSON report."""
        return {
            "version": 1,
            "summary": self.summary.to_dict(),
            "results": [r.to_dict() for r in self.results],
        }
