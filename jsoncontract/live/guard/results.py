"""The result stage in line: what a server answered to a call, made fit for the model.

The findings are the result gate's (:class:`~jsoncontract.pipeline.result.ResultChecks`,
the stage ``check`` runs over recorded answers); the guard acts on them before the answer
reaches the client:

- a stack trace or an HTML error page (``result.stack_trace``, ``result.html_error_page``),
  and an answer that breaks the ``CallToolResult`` schema (``result.envelope``,
  ``result.malformed``), are replaced by an error result whose text is the JSON error
  ``{"ok": false, "error": {"code": ..., "message": ...}}``, the code the finding's;
- ``structuredContent`` that breaks the tool's ``outputSchema`` is delivered as it is
  (``--on-bad-result pass``), without its structured content (``mask``: the text content
  stays), or replaced by such an error (``error``);
- every secret a string of the answer holds (the value patterns of
  :mod:`jsoncontract.masking`: provider keys, tokens, private key blocks...) is replaced by
  ``<redacted KIND sha256:...>``, as reports show them.

The model never sees what was taken out. The trace keeps the server's answer with each
secret replaced by a stand-in of the same kind and length (:func:`scrubbed`, the stand-ins
``jsoncontract redact`` writes), so ``check`` on the trace still finds it, and never the
secret.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.live.guard import answers
from jsoncontract.live.guard.settings import GuardSettings, OnBadResult
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, Finding, McpSession, ToolCall, ToolContract
    from jsoncontract.pipeline.result import ResultChecks

#: Findings that replace the whole answer.
_REPLACING: Final = (
    codes.RESULT_STACK_TRACE,
    codes.RESULT_HTML_ERROR_PAGE,
    codes.RESULT_ENVELOPE,
    codes.RESULT_MALFORMED,
)
_BAD_OUTPUT: Final = (codes.RESULT_STRUCTURED_CONTENT, codes.RESULT_STRUCTURED_CONTENT_MISSING)
#: How deep an answer is walked for strings to mask (deeper values are no JSON a reader
#: of this process parsed).
_DEPTH: Final = 4096


@dataclass(slots=True)
class ResultDecision:
    """What becomes of one answer: ``action`` is ``pass`` (delivered as it came),
    ``mask`` (secrets or structured content taken out), or ``replace`` (an error result in
    its place); ``answer`` is what the client gets (``None``: the server's, unchanged);
    ``failed`` whether the answer says the call failed (for the retry budget); ``would``,
    in shadow mode, what enforcing would have done."""

    action: str
    findings: list[Finding]
    failed: bool
    answer: dict[str, Any] | None = None
    masked: list[str] = field(default_factory=list)
    would: str | None = None  # with ``observe``: what enforcing would have done


def map_strings(value: Any, change: Callable[[str], str], depth: int = _DEPTH) -> Any:
    """A copy of ``value`` with ``change`` applied to every string in it, member names
    included (a secret used as a name is hidden like a value), walked without recursion
    (containers deeper than ``depth`` are kept as they are)."""
    if isinstance(value, str):
        return change(value)
    if not isinstance(value, dict | list):
        return value
    out: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any, int]] = [(value, out, 0)]
    while stack:
        source, target, level = stack.pop()
        items = source.items() if isinstance(source, dict) else enumerate(source)
        for key, item in items:
            new: Any
            if isinstance(item, str):
                new = change(item)
            elif level < depth and isinstance(item, dict | list):
                new = {} if isinstance(item, dict) else []
                stack.append((item, new, level + 1))
            else:
                new = item
            if isinstance(target, dict):
                target[change(key) if isinstance(key, str) else key] = new
            else:
                target.append(new)
    return out


def mask_secrets(value: Any) -> tuple[Any, list[str]]:
    """``value`` with every value-pattern secret in its strings replaced by its label, and
    the labels used."""
    from jsoncontract.masking import masked, may_hold_secret

    labels: list[str] = []

    def change(text: str) -> str:
        if not may_hold_secret(text):
            return text
        new = masked(text)
        if new != text:
            labels.append(new)
        return new

    return map_strings(value, change), labels


def scrubbed(value: Any) -> Any:
    """``value`` with every value-pattern secret in its strings replaced by a stand-in of
    the same kind and length (what ``jsoncontract redact`` writes): for the trace."""
    from jsoncontract.masking import may_hold_secret, secret_spans
    from jsoncontract.redact import stand_in

    def change(text: str) -> str:
        if not may_hold_secret(text):
            return text
        parts: list[str] = []
        last = 0
        for _kind, start, end in secret_spans(text):
            if start < last:
                continue
            parts.append(text[last:start])
            parts.append(stand_in(text[start:end]))
            last = end
        if not parts:
            return text
        parts.append(text[last:])
        return "".join(parts)

    return map_strings(value, change)


def quiet(raw: bytes) -> bool:
    """Whether an answer, as the bytes of its frame, can hold no stack trace, HTML page or
    secret: once the escapes JSON puts in a string are undone, none of their markers is in
    it (:func:`~jsoncontract.pipeline.leaks.may_leak`,
    :func:`~jsoncontract.masking.may_hold_secret`). The result stage then skips its leak
    checks, which would find nothing (a quarter of its time on a small answer); a ``\\u``
    escape, which may spell a marker, is never quiet."""
    from jsoncontract.masking import may_hold_secret
    from jsoncontract.pipeline.leaks import may_leak

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if "\\u" in text:
        return False
    for escaped, plain in _ESCAPES:
        text = text.replace(escaped, plain)
    return not may_leak(text) and not may_hold_secret(text)


#: The escapes of a JSON string undone before the markers are looked for (any other
#: escape leaves its backslash, which :func:`~jsoncontract.pipeline.leaks.may_leak` counts).
_ESCAPES: Final = (('\\"', '"'), ("\\n", "\n"), ("\\t", "\t"), ("\\/", "/"))


def judge_result(
    call: ToolCall,
    checked: CallResult,
    message: dict[str, Any],
    *,
    tool: ToolContract | None,
    session: McpSession,
    checks: ResultChecks,
    settings: GuardSettings,
    version: str | None,
    raw: bytes | None = None,
) -> ResultDecision:
    """Run the result stage over a server's answer to ``call`` and decide what the client
    gets (see the module). ``checked`` is the outcome of the call's argument gates; ``raw``
    the answer's frame, when the caller has it (a :func:`quiet` one skips the leak checks)."""
    from jsoncontract.capture.interface import DocContext
    from jsoncontract.capture.mcp import result as read_result
    from jsoncontract.pipeline.result import failed as says_failed

    ctx = DocContext(call.source.file, call.source.line)
    result = read_result(message, ctx, session, call.call_id)
    call.result = result
    silent = raw is not None and quiet(raw)
    if silent and checks.settings.leaks:
        checks = _without_leaks(checks)
    findings = list(result.load_findings) + list(checks.check(call, tool, checked))
    failed = result.is_error is True or says_failed(result)
    # the leak checks find secrets in values; one used as a member name is masked too
    scan = checks.settings.leaks and not silent
    decision = _decide(message, call, findings, failed, settings, version, scan=scan)
    if settings.observe:
        would = decision.action if decision.action != "pass" else None
        return ResultDecision("pass", findings, failed, would=would)
    return decision


def _decide(
    message: dict[str, Any],
    call: ToolCall,
    findings: list[Finding],
    failed: bool,
    settings: GuardSettings,
    version: str | None,
    *,
    scan: bool = False,
) -> ResultDecision:
    """What enforcing makes of an answer with these findings (``scan``: its strings are
    searched for secrets even without a ``result.secret`` finding)."""
    request_id = message.get("id")
    name = call.tool or "the tool"
    replacing = [f for f in findings if f.code in _REPLACING and f.severity is Severity.ERROR]
    if replacing:
        return ResultDecision(
            "replace", findings, True, _replacement(request_id, name, replacing, version)
        )
    bad = [f for f in findings if f.code in _BAD_OUTPUT]
    if bad and settings.on_bad_result is OnBadResult.ERROR:
        error = answers.error_object(
            name,
            bad,
            code=bad[0].code,
            message=f"{name} answered, but its structured content breaks its output schema",
            next_step=f"tell the user that {name} returned malformed data; do not rely on it",
        )
        return ResultDecision(
            "replace", findings, True, answers.tool_error(request_id, error, version)
        )
    answer = message
    action = "pass"
    if bad and settings.on_bad_result is OnBadResult.MASK:
        body = answer.get("result")
        if isinstance(body, dict) and "structuredContent" in body:
            answer = {
                **answer,
                "result": {k: v for k, v in body.items() if k != "structuredContent"},
            }
            action = "mask"
    labels: list[str] = []
    if scan or any(f.code == codes.RESULT_SECRET for f in findings):
        for member in ("result", "error"):
            if member in answer:
                changed, found = mask_secrets(answer[member])
                if found:
                    answer = {**answer, member: changed}
                    labels.extend(found)
        if labels:
            action = "mask"
    if action == "pass":
        return ResultDecision("pass", findings, failed)
    return ResultDecision(action, findings, failed, answer, labels)


_WITHOUT_LEAKS: dict[int, ResultChecks] = {}


def _without_leaks(checks: ResultChecks) -> ResultChecks:
    """The result gate with the same settings but its leak checks (kept per gate)."""
    from dataclasses import replace

    from jsoncontract.pipeline.result import ResultChecks

    found = _WITHOUT_LEAKS.get(id(checks))
    if found is None or found.settings != replace(checks.settings, leaks=False):
        found = _WITHOUT_LEAKS[id(checks)] = ResultChecks(replace(checks.settings, leaks=False))
    return found


def _replacement(
    request_id: Any, tool: str, findings: list[Finding], version: str | None
) -> dict[str, Any]:
    first = findings[0]
    what = {
        codes.RESULT_STACK_TRACE: "a stack trace",
        codes.RESULT_HTML_ERROR_PAGE: "an HTML error page",
    }.get(first.code, "an answer that is not a valid tool result")
    error = {
        "code": first.code,
        "message": f"{tool} failed; what it returned ({what}) was withheld",
        "next": f"tell the user that {tool} failed; do not retry it unchanged",
    }
    return answers.tool_error(request_id, error, version)
