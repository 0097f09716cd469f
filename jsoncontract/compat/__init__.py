"""``jsoncontract compat``: which change between two versions of a tool set breaks whom.

Both sides are read into locks (:mod:`.sides`; a live server's listing by the command
line), compared tool by tool (:mod:`.tools`) and schema by schema (:mod:`.schema`), each
change classed by its direction (:mod:`.model`). :func:`compare` then gives configured
checks their class and, with usage traces, downgrades the breaks no captured call hits
(:mod:`.usage`). :mod:`.checks` is the table of every check, with an example of each.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from jsoncontract._lazy import lazy_attributes

if TYPE_CHECKING:
    from jsoncontract.compat.model import CompatClass, CompatReport
    from jsoncontract.compat.tools import Side
    from jsoncontract.compat.usage import Usage

# the command line reads the classes for its choices without loading the comparison
__getattr__ = lazy_attributes(
    __name__,
    {
        "Change": ".model",
        "CompatClass": ".model",
        "CompatReport": ".model",
        "Direction": ".model",
        "classes_fail": ".model",
        "fails": ".model",
        "Side": ".tools",
        "drift_classes": ".tools",
    },
)


def compare(
    old: Side,
    new: Side,
    *,
    severity: Mapping[str, CompatClass] | None = None,
    usage: Usage | None = None,
) -> CompatReport:
    """Every change from ``old`` to ``new``, the worst first.

    >>> from jsoncontract.compat.sides import file_side
    >>> report = compare(
    ...     file_side("fixtures/compat/mcp-server-git-2025.9.25.json"),
    ...     file_side("fixtures/compat/mcp-server-git-2026.10.19.json"),
    ... )
    >>> report.counts()
    {'breaking': 1, 'risky': 1, 'compatible': 39, 'cosmetic': 21}
    >>> first = report.changes[0]
    >>> first.cls.value, first.tool, first.pointer
    ('breaking', 'git_add', '/inputSchema/properties/files/minItems')

    Arguments:
        severity: the class of a check by its code, in place of the check's own
            (``[compat.severity]``).
        usage: the calls of usage traces: a break none of them hits is risky.

    Raises:
        InputError: a side defines a tool twice, differently.
        SchemaLoadError: a schema of either side is not a valid JSON Schema.
    """
    from jsoncontract.compat.model import CompatReport
    from jsoncontract.compat.tools import compare_sides

    changes = compare_sides(old, new)
    if severity:
        changes = [
            c.reclassed(severity[c.code], f"[compat.severity] {c.code} = {severity[c.code]}")
            if c.code in severity and severity[c.code] is not c.cls
            else c
            for c in changes
        ]
    if usage is not None:
        from jsoncontract.compat.usage import apply_usage

        changes = apply_usage(changes, usage, old, new)
    changes.sort(key=lambda c: (-c.cls.rank, c.tool, c.pointer, c.code))
    return CompatReport(
        old.label,
        new.label,
        changes,
        tools_old=len(old.tools()),
        tools_new=len(new.tools()),
        usage=usage.counts if usage is not None else {},
        unchanged=tuple(sorted(set(old.tools()) & set(new.tools()) - {c.tool for c in changes})),
    )


__all__ = [
    "Change",
    "CompatClass",
    "CompatReport",
    "Direction",
    "Side",
    "classes_fail",
    "compare",
    "drift_classes",
    "fails",
]
