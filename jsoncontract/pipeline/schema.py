"""The schema gate: does the payload satisfy its JSON Schema?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from jsoncontract.codes import SCHEMA
from jsoncontract.model import Finding, Severity, Stage

if TYPE_CHECKING:
    from jsoncontract.model import ToolCall
    from jsoncontract.validation import CompiledSchema

#: :func:`~jsoncontract.codes.schema_code` without the call: ``schema.`` and the keyword.
_PREFIX: Final = SCHEMA.prefix


def schema_findings(
    schema: CompiledSchema,
    instance: Any,
    *,
    show_values: bool,
    call: ToolCall | None = None,
    invalid: bool = False,
) -> list[Finding]:
    """One finding per violation, the most relevant first; empty when the instance is valid.

    With ``call``, the findings are placed at the call (its hop, tool, id and source), as
    :func:`~jsoncontract.model.locate` would place them. ``invalid``: the caller found the
    instance invalid with this schema already (it is not asked again).
    """
    if not invalid and schema.is_valid(instance):
        return []
    hop = tool = call_id = source = None
    if call is not None:
        hop, tool, call_id, source = call.hop, call.tool, call.call_id, call.source
    error, stage, prefix = Severity.ERROR, Stage.SCHEMA, _PREFIX
    return [
        Finding(
            prefix + v.keyword,  # its schema_code
            error,
            v.message,
            v.path,
            stage,
            hop,
            tool,
            call_id,
            v.keyword,
            v.schema_path,
            source,
            v.hint,
        )
        for v in schema.violations(instance, show_values=show_values)
    ]
