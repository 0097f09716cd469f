"""What a server did with one case, held against what the tool's schema says: a call the
schema rejects but the server accepts is the finding that matters."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jsoncontract import codes
from jsoncontract.live.probe.model import CaseKind, CaseResult, ProbeCase
from jsoncontract.model import Finding, Severity, Source
from jsoncontract.pipeline.answers import (
    AnswerKind,
    error_findings,
    invalid_arguments_findings,
    result_envelope_findings,
    structured_content_findings,
)

if TYPE_CHECKING:
    from jsoncontract.live.wire import Reply


def answer_of(reply: Reply) -> tuple[AnswerKind, int | None, str]:
    """What a reply amounts to: its kind, its error code, and the server's words."""
    from jsoncontract.live.wire import ReplyKind

    if reply.kind is ReplyKind.RESULT:
        result = reply.result or {}
        if result.get("isError") is True:
            return AnswerKind.TOOL_ERROR, None, _said(result)
        return AnswerKind.ACCEPTED, None, ""
    if reply.kind is ReplyKind.ERROR:
        error = reply.error or {}
        return AnswerKind.PROTOCOL_ERROR, reply.code, _short(str(error.get("message", "")))
    if reply.kind is ReplyKind.TIMEOUT:
        return AnswerKind.TIMEOUT, None, reply.detail
    if reply.kind is ReplyKind.CLOSED:
        return AnswerKind.CRASHED, None, reply.detail
    return AnswerKind.INVALID, None, reply.detail


def _said(result: dict[str, Any]) -> str:
    content = result.get("content")
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                return _short(block["text"])
    return ""


def _short(text: str, limit: int = 160) -> str:
    """The server's words for a report: on one line, cut short, and every secret in them
    replaced by its kind and hash (reports never repeat a credential a server leaks)."""
    from jsoncontract.masking import masked

    text = " ".join(masked(text).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def judge(
    case: ProbeCase,
    reply: Reply,
    *,
    version: str,
    output_schema: Any,
    label: str,
    conclusive: bool = True,
) -> CaseResult:
    """Compare what the server did with what the tool's schema says. ``conclusive`` is
    false when no valid call of the tool was accepted: a rejection of a negative case then
    proves nothing (it is marked inconclusive), an acceptance still does."""
    kind, code, said = answer_of(reply)
    out = CaseResult(case, kind, code, reply.seconds, said)
    findings = out.findings
    tool = case.tool
    where = Source(label)

    def add(code_: str, severity: Severity, message: str, hint: str | None = None) -> None:
        findings.append(
            Finding(
                code_,
                severity,
                f"{case.name}: {message}",
                path=case.path,
                tool=tool,
                source=where,
                hint=hint,
            )
        )

    if kind is AnswerKind.TIMEOUT:
        add(
            codes.PROBE_TIMEOUT,
            Severity.ERROR,
            f"no answer to tools/call {said.removeprefix('no answer ') or 'in time'}",
            "every call needs an answer in bounded time; a host times out and the agent "
            "retries or gives up",
        )
        return out
    if kind is AnswerKind.CRASHED:
        add(
            codes.PROBE_CRASHED,
            Severity.ERROR,
            f"the server crashed during the call: {said}",
            "a tool must answer bad input with an error, not exit",
        )
        return out
    if kind is AnswerKind.INVALID:
        add(
            codes.PROBE_INVALID_ANSWER,
            Severity.ERROR,
            f"the answer is not a JSON-RPC response: {said}",
            'answer with {"jsonrpc": "2.0", "id": <the request id>, "result" | "error"}',
        )
        return out
    if kind is AnswerKind.PROTOCOL_ERROR:
        for finding in error_findings(reply.error, tool=tool):
            findings.append(_located(finding, case, where))
    if kind is AnswerKind.ACCEPTED or kind is AnswerKind.TOOL_ERROR:
        for finding in result_envelope_findings(reply.result, version, tool=tool):
            findings.append(_located(finding, case, where))
    if not conclusive and case.base and kind.rejected:
        out.inconclusive = True
        return out
    if case.schema_accepts:
        if kind.rejected:
            how = kind.phrase(code) + (f": {said}" if said else "")
            guessed = [p for p, s in case.sources.items() if s == "placeholder"]
            names = ", ".join(guessed[:4])
            add(
                codes.PROBE_REJECTED_VALID,
                Severity.WARNING,
                f"arguments the input schema accepts were {how}"
                + (f" (placeholder values at {names})" if guessed else ""),
                (
                    f"give real values: --seed {_seed_name(guessed[0])}=VALUE (or seeds in "
                    "the server's config, or --seed-trace TRACE); "
                    if guessed
                    else ""
                )
                + "if the server needs more than the schema says (an id that exists, a field "
                "that depends on another), say it in the schema, or give examples",
            )
        if kind is AnswerKind.ACCEPTED:
            for finding in structured_content_findings(
                reply.result, output_schema, version, tool=tool
            ):
                findings.append(_located(finding, case, where))
        return out
    if kind is AnswerKind.ACCEPTED:
        if case.kind is CaseKind.STRING_FOR_NUMBER:
            add(
                codes.PROBE_COERCED,
                Severity.ERROR,
                f"accepted a string where the input schema says a number ({case.because}): "
                "the server coerces (or ignores) it",
                "validate the arguments against the input schema before converting them; a "
                'model that learns "20" works will keep sending strings',
            )
        else:
            add(
                codes.PROBE_ACCEPTED_INVALID,
                Severity.ERROR,
                f"accepted arguments its input schema rejects ({case.because})",
                "validate arguments against the advertised inputSchema (or change the schema "
                "to say what the server really accepts)",
            )
        return out
    if not conclusive:
        out.inconclusive = True
        return out
    if case.kind is not CaseKind.STRING_ARGUMENTS:
        for finding in invalid_arguments_findings(kind, code, version, tool=tool):
            findings.append(_located(finding, case, where))
    return out


def _seed_name(pointer: str) -> str:
    """``/repo_path`` -> ``repo_path`` (the last token: seeds are by property name)."""
    return pointer.rsplit("/", 1)[-1] or "NAME"


def _located(finding: Finding, case: ProbeCase, where: Source) -> Finding:
    from dataclasses import replace

    return replace(finding, message=f"{case.name}: {finding.message}", source=where)
