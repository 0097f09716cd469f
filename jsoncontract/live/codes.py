"""The finding codes of ``jsoncontract mcp``, as its reports and docs list them.

``mcp.*`` codes are about what a server lists, ``probe.*`` about how it answered the
probe's calls and protocol checks, and ``result.*`` about a ``tools/call`` result or
error (the checks of :mod:`jsoncontract.pipeline.answers`, shared with ``check``). They are
declared, with what each means, in the catalog of every finding code
(:mod:`jsoncontract.codes`); this module gives the view of them ``mcp`` reports need. The
docs' code table is tested against it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from jsoncontract import codes

if TYPE_CHECKING:
    from jsoncontract.codes import RuleMeta
    from jsoncontract.model import Severity

#: The codes of the result family a live server's answers are checked for (the answers of
#: :mod:`jsoncontract.pipeline.answers`, shared with ``check``); the others are about results
#: read from a capture.
LIVE_RESULT_CODES: Final = (
    codes.RESULT_ENVELOPE,
    codes.RESULT_STRUCTURED_CONTENT,
    codes.RESULT_STRUCTURED_CONTENT_MISSING,
    codes.RESULT_OUTPUT_SCHEMA_INVALID,
    codes.RESULT_INVALID_ARGUMENTS_ANSWER,
    codes.RESULT_UNKNOWN_TOOL_ANSWER,
    codes.RESULT_MALFORMED_ERROR,
    codes.RESULT_RESERVED_ERROR_CODE,
)

#: code -> (kebab-case name, summary, default severity): the ``mcp.*`` and ``probe.*``
#: codes, then those of :data:`LIVE_RESULT_CODES`
CODES: Final[dict[str, tuple[str, str, Severity]]] = {
    entry.code: (entry.rule_name, entry.summary, entry.severity)
    for entry in (
        *codes.CATALOG.of(codes.MCP),
        *codes.CATALOG.of(codes.PROBE),
        *(codes.CATALOG.of(codes.RESULT)),
    )
    if entry.family is not codes.RESULT or entry.code in LIVE_RESULT_CODES
}


def rule_metas() -> dict[str, RuleMeta]:
    """SARIF rule metadata for every code: its catalog entry, as help."""
    return {code: codes.code_rule(code) for code in CODES}
