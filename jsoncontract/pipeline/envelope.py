"""The envelope gate: a well-formed call of its dialect, naming a tool that exists.

Envelope faults found while reading the capture arrive on the call
(``ToolCall.load_findings``); this gate adds the tool lookup, with the closest known name
when the tool does not exist.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jsoncontract import codes
from jsoncontract.model import Finding, Severity, Stage

if TYPE_CHECKING:
    from jsoncontract.tools.toolset import ToolSet


def unknown_tool(name: str, tools: ToolSet) -> Finding:
    """The finding for a call to a tool that is not in the tool list."""
    guess = tools.suggest(name)
    if guess is not None:
        hint = f"did you mean {guess!r}?"
    else:
        known = tools.names()
        listed = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        hint = f"known tools: {listed}" if known else "no tools are loaded"
    return Finding(
        code=codes.ENVELOPE_UNKNOWN_TOOL,
        severity=Severity.ERROR,
        message=f"tool {name!r} is not in the tool list",
        stage=Stage.ENVELOPE,
        hint=hint,
    )
