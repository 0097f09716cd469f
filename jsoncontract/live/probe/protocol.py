"""The checks of the protocol beyond the tools: the negotiation, an unknown method
(-32601), a malformed request (-32600), an unknown tool, nothing but JSON-RPC on stdout,
notifications the capabilities declare, and requests for capabilities the client did not
declare (the credential checks are :mod:`~jsoncontract.live.probe.auth`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from jsoncontract import codes
from jsoncontract.live.capabilities import REQUESTS
from jsoncontract.live.probe.judging import answer_of
from jsoncontract.live.probe.model import ProbeSettings, ProtocolCheck
from jsoncontract.model import Finding, Severity, Source
from jsoncontract.pipeline.answers import AnswerKind, error_findings, unknown_tool_findings

if TYPE_CHECKING:
    from jsoncontract.live.client import Connection
    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.tools import ToolListing

#: A tool name no server has (the unknown-tool check calls it).
UNKNOWN_TOOL: Final = "jsoncontract_probe_no_such_tool"
UNKNOWN_METHOD: Final = "jsoncontract/probe-unknown-method"
#: Seconds the protocol checks wait for an answer at most (the malformed request waits
#: :data:`~jsoncontract.live.probe.model.MALFORMED_WAIT` unless told otherwise).
PROTOCOL_WAIT: Final = 1.0


def negotiation_check(conn: Connection) -> ProtocolCheck:
    """The negotiation, as a check: how, which version, how long (it passed, or the
    connection would have failed)."""
    negotiated = conn.negotiated
    assert negotiated is not None
    text = negotiated.describe()
    if negotiated.fallback:
        text += f"; {negotiated.fallback}"
    return ProtocolCheck(negotiated.method, True, text, negotiated.seconds)


async def protocol_checks(conn: Connection, settings: ProbeSettings) -> list[ProtocolCheck]:
    """The unknown-method, malformed-request and unknown-tool checks (planned only, in a
    dry run)."""
    from jsoncontract.live.wire import ReplyKind

    checks: list[ProtocolCheck] = []
    label = conn.label
    version = conn.version
    wait = min(PROTOCOL_WAIT, conn.options.timeout)
    malformed_wait = min(settings.malformed_wait, conn.options.timeout)
    if settings.dry_run:
        return [
            ProtocolCheck(
                "unknown method", None, f"would send {UNKNOWN_METHOD} (expects -32601); not sent"
            ),
            ProtocolCheck(
                "malformed request",
                None,
                "would send a request whose method is a number (expects -32600); not sent",
            ),
            ProtocolCheck(
                "unknown tool",
                None,
                f"would call {UNKNOWN_TOOL} (expects a JSON-RPC error); not sent",
            ),
        ]

    def finding(code: str, severity: Severity, message: str, hint: str) -> Finding:
        return Finding(code, severity, message, source=Source(label), hint=hint)

    reply = await conn.request(UNKNOWN_METHOD, {}, timeout=wait)
    check = ProtocolCheck("unknown method", reply.code == -32601, reply.describe(), reply.seconds)
    if reply.kind is ReplyKind.ERROR:
        check.findings.extend(error_findings(reply.error))
    if not check.ok:
        check.findings.append(
            finding(
                codes.PROBE_UNKNOWN_METHOD,
                Severity.WARNING,
                f"an unknown method ({UNKNOWN_METHOD}) {reply.answered()}; "
                "JSON-RPC says -32601 (Method not found)",
                'answer {"code": -32601, "message": "Method not found"}',
            )
        )
    checks.append(check)

    request_id = conn.allocate_id()
    text = f'{{"jsonrpc":"2.0","id":{request_id},"method":1,"params":"malformed"}}'
    reply = await conn.send_verbatim(text, request_id, timeout=malformed_wait)
    check = ProtocolCheck(
        "malformed request", reply.code == -32600, reply.describe(), reply.seconds
    )
    if reply.kind is ReplyKind.ERROR:
        check.findings.extend(error_findings(reply.error))
    if not check.ok:
        silent = reply.kind is ReplyKind.TIMEOUT
        check.findings.append(
            finding(
                codes.PROBE_MALFORMED_REQUEST,
                Severity.INFO if silent else Severity.WARNING,
                f"a malformed request (method 1, params a string) {reply.answered()}; "
                "JSON-RPC says -32600 (Invalid Request), with a null id when the id cannot be "
                "read"
                + (
                    ". The official MCP SDKs' servers do this: their transport drops a "
                    "message it cannot validate without answering, so every server built "
                    "on one inherits it (--malformed-wait sets how long the probe waits)"
                    if silent
                    else ""
                ),
                "answer every request that cannot be read with an error: a host waiting for "
                "an answer hangs until its timeout",
            )
        )
    checks.append(check)

    reply = await conn.call_tool(UNKNOWN_TOOL, {}, timeout=wait)
    kind, code, said = answer_of(reply)
    problems = unknown_tool_findings(kind, code, version)
    if kind is AnswerKind.PROTOCOL_ERROR:
        problems.extend(error_findings(reply.error))
    check = ProtocolCheck(
        "unknown tool",
        not problems,
        kind.phrase(code) + (f": {said}" if said else ""),
        reply.seconds,
        [_at_server(f, label) for f in problems],
    )
    checks.append(check)
    return checks


def _at_server(finding: Finding, label: str) -> Finding:
    """The finding, located at the server."""
    from dataclasses import replace

    return replace(finding, source=Source(label))


def stdout_check(conn: Connection, spec: ServerSpec) -> ProtocolCheck:
    if spec.transport != "stdio":
        return ProtocolCheck("stdout", None, "not a stdio server")
    if not conn.noise:
        return ProtocolCheck("stdout", True, "JSON-RPC messages only")
    return ProtocolCheck(
        "stdout",
        False,
        f"{conn.noise_count} line(s) that are not JSON-RPC, first: {conn.noise[0].text!r}",
    )


def notification_findings(conn: Connection, label: str) -> list[Finding]:
    """A ``tools/list_changed`` notification from a server that did not declare
    ``capabilities.tools.listChanged`` (hosts that trust the capability never re-list)."""
    sent = conn.notifications.get("notifications/tools/list_changed", 0)
    negotiated = conn.negotiated
    tools = negotiated.capabilities.get("tools") if negotiated is not None else None
    declared = isinstance(tools, dict) and tools.get("listChanged") is True
    if not sent or declared:
        return []
    return [
        Finding(
            codes.PROBE_LIST_CHANGED_UNDECLARED,
            Severity.WARNING,
            f"the server sent notifications/tools/list_changed ({sent} time"
            f"{'s' if sent != 1 else ''}) without declaring capabilities.tools.listChanged",
            source=Source(label),
            hint="declare tools.listChanged: true, or do not send the notification: a host "
            "that reads the capability never lists the tools again",
        )
    ]


def capability_findings(conn: Connection, label: str) -> list[Finding]:
    """A request for a capability the client did not declare (sampling from a client that
    declared no sampling): a server must check the client's capabilities first."""
    out = []
    for method, count in sorted(conn.answers.undeclared.items()):
        capability = REQUESTS[method]
        out.append(
            Finding(
                codes.PROBE_CAPABILITY_UNDECLARED,
                Severity.WARNING,
                f"the server sent {method} ({count} time{'s' if count != 1 else ''}) to a "
                f"client that did not declare the {capability} capability",
                source=Source(label),
                hint=f"check the client's capabilities before sending {method}, and offer "
                "the tool that needs it only to clients that declare it",
            )
        )
    return out


def noise_after(conn: Connection, listing: ToolListing) -> list[Finding]:
    """Stray output that came after the tool listing was reported."""
    from jsoncontract.live.tools import noise_findings

    if any(f.code == codes.MCP_STDOUT_NOISE for f in listing.problems):
        return []
    return noise_findings(conn)
