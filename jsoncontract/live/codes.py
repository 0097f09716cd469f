"""The finding codes of ``jsoncontract mcp``, as its reports and docs list them.

``mcp.*`` codes are about what a server lists, ``probe.*`` about how it answered the
probe's calls and protocol checks, and ``result.*`` about a ``tools/call`` result or
error (the checks of :mod:`jsoncontract.live.answers`). They are declared, with what each
means, in the catalog of every finding code (:mod:`jsoncontract.codes`); this module gives
the view of them ``mcp`` reports need. The docs' code table is tested against it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from jsoncontract import codes

if TYPE_CHECKING:
    from jsoncontract.model import Severity
    from jsoncontract.reporters.findings import RuleMeta

#: The families of the codes ``mcp`` commands report (besides the lint, pin and suite codes
#: of the commands they share).
FAMILIES: Final = (codes.MCP, codes.PROBE, codes.RESULT)

#: code -> (kebab-case name, summary, default severity)
CODES: Final[dict[str, tuple[str, str, Severity]]] = {
    entry.code: (entry.rule_name, entry.summary, entry.severity)
    for family in FAMILIES
    for entry in codes.CATALOG.of(family)
    if entry.code != codes.RESULT_MALFORMED  # a result read from a capture, by ``check``
}


def rule_metas() -> dict[str, RuleMeta]:
    """SARIF rule metadata for every code: its catalog entry, as help."""
    return {code: codes.code_rule(code) for code in CODES}
