"""The result gate: what came back for a call, checked after the gates on its arguments.

:class:`ResultChecks` fills the checker's :class:`~jsoncontract.pipeline.checker.ResultGate`
slot. For each call whose result the capture holds it reports, with stage ``result``:

- **structured content** (MCP): ``structuredContent`` against the tool's ``outputSchema``
  (``result.structured_content``); an output schema declared but no structured content
  (``result.structured_content_missing``); neither when ``isError`` is true. A text block
  that mirrors the structured content as JSON is expected (``result.text_mirror``: info
  when there is none, a warning when the JSON there says something else);
- **the MCP envelope**: the ``CallToolResult`` schema of the session's protocol version
  (``result.envelope``), the JSON-RPC ``error`` object (``result.malformed_error``,
  ``result.reserved_error_code``);
- **the answer to invalid arguments** for the negotiated version: a call whose arguments
  failed the parse or schema gate answered with ``isError`` before 2025-11-25 or with
  JSON-RPC ``-32602`` from it on (``result.invalid_arguments_answer``), and a call of a tool
  the session never listed answered other than with a JSON-RPC error
  (``result.unknown_tool_answer``); both from :mod:`jsoncontract.pipeline.answers`, which
  ``mcp probe`` uses too;
- **the result contract** (:class:`ResultContract`, every hop): a result shaped as an
  ``ok`` / ``error`` / ``data`` envelope must be consistent (``result.contract``), and an
  error result must carry a stable, machine-readable code (``result.error_without_code``);
- **leaks** (every hop, :mod:`jsoncontract.pipeline.leaks`): stack traces
  (``result.stack_trace``), HTML error pages (``result.html_error_page``) and secrets
  (``result.secret``, by kind and hash, never the secret).

Paths are JSON Pointers into the object the result was read from (the JSON-RPC response,
the tool message...; see :mod:`jsoncontract.payload`). The gate keeps no state
across calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract.model import Finding, Hop, Severity, Stage
from jsoncontract.payload import (
    Payload,
    content_pointer,
    decode,
    payload,
    structured_pointer,
    text_blocks,
    texts,
    wire_code,
)
from jsoncontract.pipeline import answers, leaks
from jsoncontract.pointer import join_pointer

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, ToolCall, ToolContract, ToolResult
    from jsoncontract.settings import Config

_STAGE: Final = Stage.RESULT
_INVALID_ARGUMENTS: Final = frozenset({Stage.PARSE, Stage.SCHEMA})
#: A code is stable when it reads as an identifier (``ORDER_NOT_FOUND``, ``E1042``,
#: ``order.not_found``) or is an integer: something code can branch on, not prose.
_STABLE_CODE: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,99}")
#: The codes of this gate that a result's reader may also report (their summaries live in
#: :mod:`jsoncontract.pipeline.codes`).
CODES: Final = (
    codes.RESULT_STRUCTURED_CONTENT,
    codes.RESULT_STRUCTURED_CONTENT_MISSING,
    codes.RESULT_OUTPUT_SCHEMA_INVALID,
    codes.RESULT_TEXT_MIRROR,
    codes.RESULT_ENVELOPE,
    codes.RESULT_MALFORMED_ERROR,
    codes.RESULT_RESERVED_ERROR_CODE,
    codes.RESULT_INVALID_ARGUMENTS_ANSWER,
    codes.RESULT_UNKNOWN_TOOL_ANSWER,
    codes.RESULT_CONTRACT,
    codes.RESULT_ERROR_WITHOUT_CODE,
    codes.RESULT_STACK_TRACE,
    codes.RESULT_HTML_ERROR_PAGE,
    codes.RESULT_SECRET,
)


@dataclass(frozen=True, slots=True)
class ResultContract:
    """The shape a tool's results keep: an envelope that says whether the call worked
    (``ok``), what went wrong (``error``, with a machine-readable ``code``) and what it
    returned (``data``). Each part may go by several names; the first present is used.

    A result is taken to be such an envelope when its payload is an object holding an
    ``ok`` or an ``error`` member; ``required`` makes every result with a JSON payload an
    envelope, so one without is a finding.
    """

    ok: tuple[str, ...] = ("ok",)
    error: tuple[str, ...] = ("error",)
    data: tuple[str, ...] = ("data",)
    code: tuple[str, ...] = ("code",)
    required: bool = False

    def member(self, value: dict[str, Any], names: tuple[str, ...]) -> str | None:
        """The first of ``names`` that ``value`` holds."""
        return next((n for n in names if n in value), None)


@dataclass(frozen=True, slots=True)
class ResultSettings:
    """How the result gate behaves.

    ``contract`` is the result contract (``None``: not checked); ``leaks`` whether stack
    traces, HTML pages and secrets are looked for; ``protocol_version`` the MCP version
    assumed for a session whose capture does not say (``None``: the version-dependent
    checks are skipped there); ``severity`` changes the severity of a code, or turns it off
    (``None``).
    """

    contract: ResultContract | None = field(default_factory=ResultContract)
    leaks: bool = True
    protocol_version: str | None = None
    severity: Mapping[str, Severity | None] = field(default_factory=dict)

    @classmethod
    def from_config(cls, table: Mapping[str, Any]) -> ResultSettings:
        """Settings from the ``[results]`` config table (validated by its schema)."""
        contract_table = table.get("contract", {})
        contract: ResultContract | None = None
        if contract_table.get("enabled", True):
            defaults = ResultContract()
            contract = ResultContract(
                ok=tuple(contract_table.get("ok", defaults.ok)),
                error=tuple(contract_table.get("error", defaults.error)),
                data=tuple(contract_table.get("data", defaults.data)),
                code=tuple(contract_table.get("code", defaults.code)),
                required=bool(contract_table.get("required", False)),
            )
        return cls(
            contract=contract,
            leaks=bool(table.get("leaks", True)),
            protocol_version=table.get("protocol_version"),
            severity=severities(table.get("severity", {})),
        )


def severities(table: Mapping[str, str]) -> dict[str, Severity | None]:
    """A ``severity`` config table: code -> ``error`` / ``warning`` / ``info`` / ``off``."""
    return {code: None if level == "off" else Severity(level) for code, level in table.items()}


def adjusted(findings: list[Finding], table: Mapping[str, Severity | None]) -> list[Finding]:
    """``findings`` with the severities of ``table`` (a code set to ``None`` dropped)."""
    if not table:
        return findings
    out = []
    for finding in findings:
        if finding.code not in table:
            out.append(finding)
            continue
        level = table[finding.code]
        if level is not None:
            out.append(replace(finding, severity=level))
    return out


class ResultChecks:
    """The result gate (see the module). Stateless: one instance serves any number of runs.

    Arguments:
        settings: what to check and how severely.
    """

    def __init__(self, settings: ResultSettings | None = None) -> None:
        self.settings = settings or ResultSettings()

    @classmethod
    def from_config(cls, config: Config) -> ResultChecks:
        """The gate the ``[results]`` section of a loaded configuration asks for."""
        return cls(ResultSettings.from_config(config.section("results")))

    def check(
        self, call: ToolCall, tool: ToolContract | None, checked: CallResult
    ) -> list[Finding]:
        """Findings for one call's result (``call.result``)."""
        result = call.result
        if result is None:
            return []
        findings: list[Finding] = []
        if result.hop is Hop.MCP or call.hop is Hop.MCP:
            findings.extend(self._mcp(call, result, tool, checked))
        found = payload(result)
        contract = self.settings.contract
        if contract is not None:
            findings.extend(contract_findings(result, found, contract))
        if self.settings.leaks:
            findings.extend(leak_findings(result))
        return adjusted([_masked_names(f) for f in findings], self.settings.severity)

    # -- MCP -------------------------------------------------------------------------------

    def _version(self, call: ToolCall, result: ToolResult) -> str | None:
        for session in (result.session, call.session):
            if session is not None and session.protocol_version is not None:
                return session.protocol_version
        return self.settings.protocol_version

    def _mcp(
        self, call: ToolCall, result: ToolResult, tool: ToolContract | None, checked: CallResult
    ) -> list[Finding]:
        message = result.message
        if not isinstance(message, dict):
            return []
        name = call.tool
        version = self._version(call, result)
        findings: list[Finding] = []
        body = message.get("result")
        if "error" in message:
            findings.extend(
                f
                for f in answers.error_findings(message["error"], tool=name)
                if f.code != codes.RESULT_MALFORMED_ERROR or not result.load_findings
            )
        elif isinstance(body, dict) and not result.load_findings:
            findings.extend(
                _under(f, "/result")
                for f in answers.result_envelope_findings(
                    body, version or answers.HANDSHAKE_VERSIONS[-1], tool=name
                )
            )
        if isinstance(body, dict) and body.get("isError") is not True:
            output = _output_schema(call, tool)
            if output is not None:
                findings.extend(
                    _under(f, "/result")
                    for f in answers.structured_content_findings(
                        body, output, version or answers.HANDSHAKE_VERSIONS[-1], tool=name
                    )
                )
            if "structuredContent" in body:
                findings.extend(mirror_findings(result))
        if version is not None:
            kind = answers.classify(message)
            error = message.get("error")
            code = error.get("code") if isinstance(error, dict) else None
            code = code if type(code) is int else None
            session = call.session
            listed = session.tools if session is not None else None
            if listed is not None and name is not None and name not in listed:
                findings.extend(answers.unknown_tool_findings(kind, code, version, tool=name))
            elif checked.stage in _INVALID_ARGUMENTS:
                findings.extend(answers.invalid_arguments_findings(kind, code, version, tool=name))
        return findings


def _masked_names(finding: Finding) -> Finding:
    """A finding whose path and message hide secrets held in a result's member names."""
    from jsoncontract.masking import masked_names

    path, message = masked_names(finding.path, finding.message)
    if path is finding.path:
        return finding
    return replace(finding, path=path or "", message=message or "")


def _under(finding: Finding, prefix: str) -> Finding:
    """A finding of :mod:`~jsoncontract.pipeline.answers` (paths relative to the JSON-RPC
    ``result``) with its path made relative to the whole response."""
    if finding.path.startswith("/error"):
        return finding
    return replace(finding, path=prefix + finding.path)


def _output_schema(call: ToolCall, tool: ToolContract | None) -> Any:
    """The tool's output schema: its contract's, else the one its session listed."""
    if tool is not None:
        return tool.output_schema
    session = call.session
    listed = session.tools if session is not None and session.tools is not None else {}
    entry = listed.get(call.tool or "")
    return entry.get("outputSchema") if isinstance(entry, dict) else None


def mirror_findings(result: ToolResult) -> list[Finding]:
    """Whether the structured content is mirrored by a text block holding the same JSON
    (MCP asks for one, for clients that do not read structured content; the JSON need not
    be byte for byte the same)."""
    structured = result.structured_content
    blocks = text_blocks(result.content, content_pointer(result))
    differing: str | None = None
    for pointer, text in blocks:
        value, ok = decode(text)
        if not ok:
            continue
        if value == structured:
            return []
        differing = differing or pointer
    if differing is not None:
        return [
            Finding(
                codes.RESULT_TEXT_MIRROR,
                Severity.WARNING,
                "the JSON in the text content says something other than structuredContent: "
                "a client that reads the text sees other data than one that reads the "
                "structured content",
                path=differing,
                stage=_STAGE,
                hint="serialise structuredContent itself into the text block",
            )
        ]
    return [
        Finding(
            codes.RESULT_TEXT_MIRROR,
            Severity.INFO,
            "structuredContent has no text block mirroring it as JSON: clients that do not "
            "read structured content see no data",
            path=content_pointer(result) or structured_pointer(result),
            stage=_STAGE,
            hint='add {"type": "text", "text": <structuredContent as JSON>} to content '
            "(MCP: a tool returning structured content SHOULD also return it serialised)",
        )
    ]


# -- the result contract -------------------------------------------------------------------


def _failed(result: ToolResult) -> bool:
    return result.is_error is True or (result.status is not None and result.status >= 400)


def failed(result: ToolResult, contract: ResultContract | None = None) -> bool:
    """Whether a result says the call failed: its wire says so (``isError``, ``is_error``, a
    JSON-RPC error, an HTTP error status, a failed span), or, where the wire has no such
    flag (an OpenAI tool message), its payload says so by the result contract (``ok:
    false``, or an ``error`` without ``ok: true``)."""
    if _failed(result):
        return True
    contract = contract if contract is not None else ResultContract()
    found = payload(result)
    value = found.value if found is not None else None
    if not isinstance(value, dict):
        return False
    ok_name = contract.member(value, contract.ok)
    if ok_name is not None:
        return value[ok_name] is False
    error_name = contract.member(value, contract.error)
    return error_name is not None and value[error_name] not in (None, False, "", {}, [])


def contract_findings(
    result: ToolResult, found: Payload | None, contract: ResultContract
) -> list[Finding]:
    """Whether the result keeps the result contract, and an error result carries a code."""
    if result.error is not None:  # a JSON-RPC error: its code is an integer, checked above
        return []
    failed = _failed(result)
    # an error the envelope already names by a code (a span's error.type) needs none inside
    uncoded = failed and wire_code(result) is None
    value = found.value if found is not None else None
    where = found.pointer if found is not None else content_pointer(result)
    if not isinstance(value, dict):
        out = []
        if contract.required and found is not None:
            out.append(
                _contract(
                    f"the result is {_kind(value)}, not an object with "
                    f"{_names(contract.ok)}, {_names(contract.error)} or {_names(contract.data)}",
                    where,
                    contract,
                )
            )
        if uncoded:
            out.append(_no_code(result, "the error result carries no code at all", where))
        return out
    ok_name = contract.member(value, contract.ok)
    error_name = contract.member(value, contract.error)
    if ok_name is None and error_name is None:
        out = []
        if contract.required:
            out.append(
                _contract(
                    f"the result has neither {_names(contract.ok)} nor {_names(contract.error)}",
                    where,
                    contract,
                )
            )
        if uncoded:
            code = _code_of(value, contract)
            if code is None:
                out.append(_no_code(result, "the error result has no code member", where))
        return out
    out = []
    ok = value.get(ok_name) if ok_name is not None else None
    error = value.get(error_name) if error_name is not None else None
    if ok_name is not None and type(ok) is not bool:
        out.append(
            _contract(
                f"{ok_name!r} must be true or false, not {_kind(ok)}",
                _at(found, where, ok_name),
                contract,
            )
        )
    says_ok = ok is True or (ok_name is None and error is None)
    if says_ok and error is not None:
        out.append(
            _contract(
                f"the result says {ok_name}: true and carries {error_name!r}",
                _at(found, where, error_name or ""),
                contract,
            )
        )
    if ok is False and error is None:
        out.append(
            _contract(
                f"the result says {ok_name}: false without "
                f"{_names(contract.error)} saying what went wrong",
                where,
                contract,
            )
        )
    if failed and ok is True:
        out.append(
            _contract(
                f"the {_flag(result)} says the call failed, the result says {ok_name}: true",
                _at(found, where, ok_name or ""),
                contract,
            )
        )
    if error is not None or ok is False or uncoded:
        code = _code_of(error if isinstance(error, dict) else value, contract)
        if code is None and isinstance(error, dict):
            code = _code_of(value, contract)
        if code is None:
            why = (
                f"{error_name!r} is a bare string"
                if isinstance(error, str)
                else f"{error_name!r} has no {_names(contract.code)}"
                if isinstance(error, dict)
                else "the error result has no code member"
            )
            out.append(_no_code(result, why, _at(found, where, error_name or "")))
        elif code is not True:
            out.append(_no_code(result, f"its code {code} is prose", where))
    return out


def _code_of(value: dict[str, Any], contract: ResultContract) -> Any:
    """``True`` when ``value`` holds a stable code, ``None`` when none, else a description
    of the unstable code it holds."""
    name = contract.member(value, contract.code)
    if name is None:
        return None
    code = value[name]
    if type(code) is int or (isinstance(code, str) and _STABLE_CODE.fullmatch(code)):
        return True
    if isinstance(code, str):
        return f"(a string of {len(code)} characters with spaces)"
    return f"({_kind(code)})"


def _at(found: Payload | None, base: str, member: str) -> str:
    """The pointer of ``member`` of the payload (the payload's own when it was decoded
    from a text, which has no pointers inside)."""
    if found is None or found.from_text or not member:
        return base
    return join_pointer(base, member)


def _contract(message: str, path: str, contract: ResultContract) -> Finding:
    return Finding(
        codes.RESULT_CONTRACT,
        Severity.WARNING,
        message,
        path=path,
        stage=_STAGE,
        hint=(
            f"return {{{_quoted(contract.ok)}: true, {_quoted(contract.data)}: ...}} or "
            f"{{{_quoted(contract.ok)}: false, {_quoted(contract.error)}: "
            f'{{{_quoted(contract.code)}: ..., "message": ...}}}}'
        ),
    )


def _no_code(result: ToolResult, why: str, path: str) -> Finding:
    return Finding(
        codes.RESULT_ERROR_WITHOUT_CODE,
        Severity.WARNING,
        f"an error result without a stable machine-readable code: {why}",
        path=path,
        stage=_STAGE,
        hint='give every error a code the agent can branch on ({"code": "ORDER_NOT_FOUND", '
        '"message": ...}); prose alone makes it guess',
    )


def _flag(result: ToolResult) -> str:
    if result.is_error is True:
        return "isError flag" if result.hop is Hop.MCP else "error flag"
    return f"HTTP status {result.status}"


def _quoted(names: tuple[str, ...]) -> str:
    """The first of ``names`` as a JSON string (what a result should use)."""
    return json.dumps(names[0])


def _names(names: tuple[str, ...], joiner: str = "nor") -> str:
    quoted = [repr(n) for n in names]
    if len(quoted) == 1:
        return quoted[0]
    return ", ".join(quoted[:-1]) + f" {joiner} " + quoted[-1]


def _kind(value: Any) -> str:
    from jsoncontract._json import json_type

    kind = json_type(value)
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


# -- leaks ---------------------------------------------------------------------------------


def leak_findings(result: ToolResult) -> list[Finding]:
    """Stack traces, HTML error pages and secrets in a result: one finding per language,
    one per page, one per distinct secret."""
    from jsoncontract.masking import find_secrets, json_may_hold_secret, may_hold_secret

    findings: list[Finding] = []
    traces: list[leaks.StackTrace] = []
    page: leaks.HtmlPage | None = None
    roots: list[tuple[Any, str]] = []
    if result.content is not None:
        roots.append((result.content, content_pointer(result)))
    if result.present_structured:
        roots.append((result.structured_content, structured_pointer(result)))
    if result.error is not None:
        roots.append((result.error, "/error"))
    # each container's JSON text, to tell at once that nothing in it can be found (the
    # markers hold no character JSON escapes; None: a value orjson does not write)
    written = [_json_text(value) if isinstance(value, dict | list) else None for value, _ in roots]
    if any(
        (
            leaks.may_leak(value)
            if isinstance(value, str)
            else json_text is None or leaks.json_may_leak(json_text)
        )
        for (value, _), json_text in zip(roots, written, strict=True)
        if isinstance(value, str | dict | list)
    ):
        failed = _failed(result)
        for pointer, text in texts(result, shortest=20, wanted=leaks.may_leak):
            traces.extend(leaks.stack_traces(text, pointer))
            if page is None:
                page = leaks.html_error_page(text, pointer, failed=failed)
    if traces:
        findings.extend(_trace_findings(traces))
    if page is not None:
        title = f" (title {page.title!r})" if page.title else ""
        findings.append(
            Finding(
                codes.RESULT_HTML_ERROR_PAGE,
                Severity.ERROR,
                f"the result is an HTML error page{title}, not data: a proxy or web server "
                "answered in the tool's place",
                path=page.pointer,
                stage=_STAGE,
                hint="turn upstream HTTP errors into a JSON error with a code before they "
                "reach the model",
            )
        )
    seen: dict[tuple[str, str], int] = {}
    places: list[Any] = []
    for (value, pointer), json_text in zip(roots, written, strict=True):
        if isinstance(value, str) and not may_hold_secret(value):
            continue  # the common case, told apart without a walk
        if json_text is not None and not json_may_hold_secret(json_text, pointer):
            continue  # a container with nothing to find, told apart by its text
        for secret in find_secrets(value, pointer, by_name=False):
            key = (secret.kind, secret.digest)
            if key in seen:
                seen[key] += 1
                continue
            seen[key] = 1
            places.append(secret)
    for secret in places:
        more = seen[(secret.kind, secret.digest)] - 1
        also = f", and {more} more place{'s' if more > 1 else ''}" if more else ""
        findings.append(
            Finding(
                codes.RESULT_SECRET,
                Severity.ERROR,
                f"the result holds a secret: {secret.describe()}{also}",
                path=secret.pointer,
                stage=_STAGE,
                keyword=secret.kind,
                hint="never hand credentials to the model: drop the value, or return a "
                "reference to it; rotate this one, it is in the transcript",
            )
        )
    return findings


def _json_text(value: Any) -> str | None:
    """``value`` as JSON text (``None``: a value orjson does not write: a big integer, deep
    nesting)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:
        return None


def _trace_findings(traces: list[leaks.StackTrace]) -> list[Finding]:
    return [
        Finding(
            codes.RESULT_STACK_TRACE,
            Severity.ERROR,
            f"the result holds a {trace.label} stack trace ({trace.frames} "
            f"frame{'s' if trace.frames != 1 else ''}): the model reads the server's "
            "code paths, and whatever the frames hold",
            path=trace.pointer,
            stage=_STAGE,
            keyword=trace.language,
            hint="catch the exception in the tool: return a short error with a code, and "
            "log the trace on the server",
        )
        for trace in leaks.first_per_language(traces)
    ]
