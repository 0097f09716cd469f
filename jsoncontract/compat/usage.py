"""``compat --usage TRACE...``: a break that no captured call could hit is downgraded.

The traces are read as ``check`` reads captures (every dialect, each call once). A breaking
change to a tool that no captured call calls is risky rather than breaking. For a tool that
is called, each captured arguments object the old input schema accepts is validated
against the new one: a breaking change to the input schema stays breaking when a call is
refused where the change is (a value sent outside a new bound, a member now required that
calls leave out), and is downgraded when none is. A refusal that cannot be placed at one
of the changes keeps every break of that tool. Output schemas are not judged from calls:
their breaks stay, unless the tool is never called.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from jsoncontract.compat.model import Change, CompatClass, Direction
from jsoncontract.compat.schema import related

if TYPE_CHECKING:
    from jsoncontract.compat.tools import Side


@dataclass(slots=True)
class Usage:
    """The calls the traces hold: per tool, its arguments objects, and where each is."""

    calls: dict[str, list[tuple[Any, str]]] = field(default_factory=dict)

    @property
    def counts(self) -> dict[str, int]:
        """Captured calls per tool."""
        return {tool: len(calls) for tool, calls in self.calls.items()}


def read_usage(paths: Sequence[str | Path]) -> Usage:
    """The calls of the named traces (files or directories of captures).

    Raises:
        InputError: a named file cannot be read.
    """
    from jsoncontract.capture.reader import CaptureReader
    from jsoncontract.model import ArgumentsForm

    usage = Usage()
    for call in CaptureReader().read(paths):
        if call.tool is None:
            continue
        arguments = call.arguments
        if call.form is ArgumentsForm.TEXT and isinstance(arguments, str):
            import orjson

            try:
                arguments = orjson.loads(arguments)
            except orjson.JSONDecodeError:
                arguments = None  # no schema accepts it: counted, never valid
        elif call.form in (ArgumentsForm.MISSING, ArgumentsForm.UNRECORDED):
            arguments = None if call.form is ArgumentsForm.UNRECORDED else {}
        usage.calls.setdefault(call.tool, []).append((arguments, str(call.source)))
    return usage


def apply_usage(changes: Iterable[Change], usage: Usage, old: Side, new: Side) -> list[Change]:
    """The changes, each breaking one no captured call could hit downgraded to risky."""
    changes = list(changes)
    hits = _hits(changes, usage, old, new)
    out = []
    total = sum(len(calls) for calls in usage.calls.values())
    for change in changes:
        if change.cls is not CompatClass.BREAKING:
            out.append(change)
            continue
        calls = usage.calls.get(change.tool, [])
        if not calls:
            out.append(
                change.reclassed(
                    CompatClass.RISKY,
                    f"no captured call calls {change.tool!r} ({total} calls read)",
                )
            )
            continue
        if change.direction is not Direction.INPUT:
            out.append(change)
            continue
        hit = hits.get(change.tool)
        if hit is None:  # a refusal no change explains: every break of the tool stays
            out.append(change)
            continue
        where = hit.get(change.pointer)
        if where:
            out.append(change.reclassed(CompatClass.BREAKING, f"captured calls hit it: {where}"))
        else:
            out.append(
                change.reclassed(
                    CompatClass.RISKY,
                    f"none of the {len(calls)} captured calls of {change.tool!r} hits it",
                )
            )
    return out


def _hits(changes: list[Change], usage: Usage, old: Side, new: Side) -> dict[str, dict[str, str]]:
    """Per tool whose input schema broke: the pointer of each break a captured call hits,
    with the first such call; a tool is left out when a call is refused somewhere no break
    is (its breaks then all stay)."""
    from jsoncontract.validation import CompiledSchema

    out: dict[str, dict[str, str]] = {}
    before, after = old.tools(), new.tools()
    broken = {c.tool for c in changes if c.direction is Direction.INPUT and c.cls.rank >= 3}
    for tool in sorted(broken):
        if tool not in before or tool not in after or tool not in usage.calls:
            continue
        then = CompiledSchema(before[tool][1].parts["input_schema"], label=f"tool {tool!r}")
        now = CompiledSchema(after[tool][1].parts["input_schema"], label=f"tool {tool!r}")
        pointers = [c.pointer for c in changes if c.tool == tool and c.direction is Direction.INPUT]
        found: dict[str, str] = {}
        placed = True
        for arguments, where in usage.calls[tool]:
            if arguments is None or not then.is_valid(arguments) or now.is_valid(arguments):
                continue
            for violation in now.violations(arguments):
                at = "/inputSchema" + violation.schema_path.removeprefix("#")
                matched = [p for p in pointers if related(p, at)]
                if not matched:
                    placed = False
                for pointer in matched:
                    found.setdefault(pointer, where)
        if placed:
            out[tool] = found
    return out
