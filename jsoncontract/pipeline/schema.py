"""The schema gate: does the payload satisfy its JSON Schema?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jsoncontract.codes import schema_code
from jsoncontract.model import Finding, Severity, Stage

if TYPE_CHECKING:
    from jsoncontract.validation import CompiledSchema


def schema_findings(schema: CompiledSchema, instance: Any, *, show_values: bool) -> list[Finding]:
    """One finding per violation, the most relevant first; empty when the instance is valid."""
    if schema.is_valid(instance):
        return []
    return [
        Finding(
            code=schema_code(v.keyword),
            severity=Severity.ERROR,
            message=v.message,
            path=v.path,
            stage=Stage.SCHEMA,
            keyword=v.keyword,
            schema_path=v.schema_path,
            hint=v.hint,
        )
        for v in schema.violations(instance, show_values=show_values)
    ]
