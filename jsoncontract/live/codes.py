"""The finding codes of ``jsoncontract mcp``, with one line on each.

``mcp.*`` codes are about what a server lists, ``probe.*`` about how it answered the
probe's calls and protocol checks, and ``result.*`` about a ``tools/call`` result or
error (the checks of :mod:`jsoncontract.pipeline.answers`, shared with ``check``, whose
code table gives their summaries). The docs' code table and the SARIF
rule metadata are built from, and tested against, this table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from jsoncontract.model import Severity
from jsoncontract.pipeline.codes import RESULT_CODES

if TYPE_CHECKING:
    from jsoncontract.reporters.findings import RuleMeta

#: code -> (kebab-case name, summary, default severity)
CODES: Final[dict[str, tuple[str, str, Severity]]] = {
    "mcp.tool_unusable": (
        "tool-unusable",
        "a listed tool has no name, a repeated name, or no inputSchema object",
        Severity.ERROR,
    ),
    "mcp.cursor_invalid": (
        "cursor-invalid",
        "tools/list returned a nextCursor that is not a string",
        Severity.ERROR,
    ),
    "mcp.cursor_loop": (
        "cursor-loop",
        "tools/list pagination never ends (a cursor came back)",
        Severity.ERROR,
    ),
    "mcp.stdout_noise": (
        "stdout-noise",
        "a stdio server wrote something that is not a JSON-RPC message to stdout",
        Severity.ERROR,
    ),
    "probe.accepted_invalid": (
        "accepted-invalid-arguments",
        "the server accepted arguments its own input schema rejects",
        Severity.ERROR,
    ),
    "probe.coerced": (
        "coerced-string-to-number",
        "the server accepted a string where its input schema says a number",
        Severity.ERROR,
    ),
    "probe.rejected_valid": (
        "rejected-valid-arguments",
        "the server rejected arguments its input schema accepts",
        Severity.WARNING,
    ),
    "probe.timeout": ("call-timed-out", "a call got no answer within the timeout", Severity.ERROR),
    "probe.crashed": (
        "server-crashed",
        "the server process ended (or hung up) during a call",
        Severity.ERROR,
    ),
    "probe.invalid_answer": (
        "invalid-answer",
        "the answer to a call is not a JSON-RPC response",
        Severity.ERROR,
    ),
    "probe.schema_invalid": (
        "input-schema-invalid",
        "a tool's inputSchema is not a valid JSON Schema, so no call can be derived",
        Severity.ERROR,
    ),
    "probe.no_cases": (
        "no-valid-call",
        "no valid call can be derived from a tool's inputSchema",
        Severity.WARNING,
    ),
    "probe.unknown_method": (
        "unknown-method-answer",
        "an unknown method was not answered with -32601",
        Severity.WARNING,
    ),
    "probe.malformed_request": (
        "malformed-request-answer",
        "a malformed request was not answered with -32600",
        Severity.WARNING,
    ),
    "probe.list_changed_undeclared": (
        "list-changed-undeclared",
        "the server sent tools/list_changed without declaring capabilities.tools.listChanged",
        Severity.WARNING,
    ),
    "probe.auth_not_enforced": (
        "auth-not-enforced",
        "a request without the credential headers was not refused with 401",
        Severity.ERROR,
    ),
    "result.envelope": (
        "result-envelope",
        RESULT_CODES["result.envelope"],
        Severity.ERROR,
    ),
    "result.structured_content": (
        "structured-content-invalid",
        RESULT_CODES["result.structured_content"],
        Severity.ERROR,
    ),
    "result.structured_content_missing": (
        "structured-content-missing",
        RESULT_CODES["result.structured_content_missing"],
        Severity.ERROR,
    ),
    "result.output_schema_invalid": (
        "output-schema-invalid",
        RESULT_CODES["result.output_schema_invalid"],
        Severity.ERROR,
    ),
    "result.invalid_arguments_answer": (
        "invalid-arguments-answer",
        RESULT_CODES["result.invalid_arguments_answer"],
        Severity.WARNING,
    ),
    "result.unknown_tool_answer": (
        "unknown-tool-answer",
        RESULT_CODES["result.unknown_tool_answer"],
        Severity.WARNING,
    ),
    "result.malformed_error": (
        "malformed-error-object",
        RESULT_CODES["result.malformed_error"],
        Severity.ERROR,
    ),
    "result.reserved_error_code": (
        "reserved-error-code",
        RESULT_CODES["result.reserved_error_code"],
        Severity.WARNING,
    ),
}

HELP_URI: Final = "https://github.com/jsoncontract/jsoncontract/blob/main/docs/mcp.md#finding-codes"


def rule_metas() -> dict[str, RuleMeta]:
    """SARIF rule metadata for every code."""
    from jsoncontract.reporters.findings import RuleMeta

    return {
        code: RuleMeta(code, name, summary, severity, help_uri=HELP_URI)
        for code, (name, summary, severity) in CODES.items()
    }
