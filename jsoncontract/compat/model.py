"""What ``compat`` reports: a change between two versions of a tool set, and its class.

A change is classed by who it can break. Arguments flow from the caller to the tool, so a
change that makes an input schema refuse a value it accepted breaks callers; results flow
back, so a change that lets an output schema accept a value it refused breaks consumers.
What a change does to the set of valid values is its :class:`Effect`; the class follows
from the effect and the direction (:func:`class_of`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from enum import IntFlag, StrEnum
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # imported on use: --help reads the classes and nothing else
    from jsoncontract.model import Severity, Source


class CompatClass(StrEnum):
    """Who a change can break, from the worst."""

    BREAKING = "breaking"
    RISKY = "risky"
    COMPATIBLE = "compatible"
    COSMETIC = "cosmetic"

    @property
    def rank(self) -> int:
        """3 for breaking down to 0 for cosmetic."""
        return _RANK[self]

    @property
    def severity(self) -> Severity:
        """The severity of its findings in the CI formats."""
        from jsoncontract.model import Severity

        if self is CompatClass.BREAKING:
            return Severity.ERROR
        if self is CompatClass.RISKY:
            return Severity.WARNING
        return Severity.INFO


_RANK: Final = {
    CompatClass.BREAKING: 3,
    CompatClass.RISKY: 2,
    CompatClass.COMPATIBLE: 1,
    CompatClass.COSMETIC: 0,
}
#: The classes, from the worst.
CLASSES: Final = tuple(CompatClass)


class Direction(StrEnum):
    """Which way the values a schema describes flow."""

    INPUT = "input"  # arguments: caller -> tool
    OUTPUT = "output"  # results: tool -> caller


class Effect(IntFlag):
    """What a change does to the set of values a schema accepts.

    ``NARROWS``: some value accepted before is refused; ``WIDENS``: some value refused
    before is accepted; ``UNKNOWN``: may do either, not classified; ``UNDECLARED``: narrows,
    but only for members the old schema did not declare. No flag: the same values.
    """

    NONE = 0
    NARROWS = 1
    WIDENS = 2
    UNKNOWN = 4
    UNDECLARED = 8

    def flipped(self) -> Effect:
        """The effect seen through a ``not``: narrowing widens and the reverse."""
        out = self & (Effect.UNKNOWN | Effect.UNDECLARED)
        if self & Effect.NARROWS:
            out |= Effect.WIDENS
        if self & Effect.WIDENS:
            out |= Effect.NARROWS
        if self & Effect.UNDECLARED:  # what narrowed undeclared members widens them
            out = (out & ~Effect.UNDECLARED) | Effect.WIDENS
        return out


def class_of(effect: Effect, direction: Direction) -> CompatClass:
    """The class of a change to an ``direction`` schema with this effect.

    >>> class_of(Effect.NARROWS, Direction.INPUT), class_of(Effect.NARROWS, Direction.OUTPUT)
    (<CompatClass.BREAKING: 'breaking'>, <CompatClass.COMPATIBLE: 'compatible'>)
    >>> class_of(Effect.WIDENS | Effect.UNKNOWN, Direction.INPUT)
    <CompatClass.RISKY: 'risky'>
    """
    breaks = Effect.NARROWS if direction is Direction.INPUT else Effect.WIDENS
    if effect & breaks:
        return CompatClass.BREAKING
    if effect & Effect.UNKNOWN:
        return CompatClass.RISKY
    if effect & Effect.UNDECLARED and direction is Direction.INPUT:
        return CompatClass.RISKY
    if effect:
        return CompatClass.COMPATIBLE
    return CompatClass.COSMETIC


#: ``old`` or ``new`` of a change where the value is absent on that side.
ABSENT: Final[Any] = None


@dataclass(frozen=True, slots=True)
class Change:
    """One change between the old and the new version of a tool.

    ``pointer`` is rooted at the tool definition as MCP writes it
    (``/inputSchema/properties/files/minItems``, ``/annotations/readOnlyHint``,
    ``/description``; empty for the tool as a whole). ``old`` and ``new`` are the values
    there (``None`` when absent). ``direction`` says which schema the change is in
    (``None`` for the tool's other parts). ``note`` says why the class is not the check's
    own (``[compat.severity]``, ``--usage``); ``source`` is where the change is in the new
    version's file (or the old one's, for a removal), when it is a file.
    """

    tool: str
    pointer: str
    cls: CompatClass
    code: str
    message: str
    old: Any = None
    new: Any = None
    direction: Direction | None = None
    effect: Effect = Effect.NONE
    note: str | None = None
    source: Source | None = field(default=None, compare=False)

    def reclassed(self, cls: CompatClass, note: str) -> Change:
        """The change with another class, and the reason."""
        return replace(self, cls=cls, note=note)

    def to_dict(self) -> dict[str, Any]:
        """The change in the JSON report."""
        from jsoncontract.masking import masked_value

        out: dict[str, Any] = {
            "tool": self.tool,
            "pointer": self.pointer,
            "class": self.cls.value,
            "code": self.code,
            "message": self.message,
            "old": masked_value(self.old),
            "new": masked_value(self.new),
        }
        if self.direction is not None:
            out["direction"] = self.direction.value
        if self.note is not None:
            out["note"] = self.note
        if self.source is not None:
            out["source"] = self.source.to_dict()
        return out


@dataclass(frozen=True, slots=True)
class CompatReport:
    """Every change between two tool sets, the worst first, and what was compared."""

    old: str
    new: str
    changes: list[Change]
    tools_old: int = 0
    tools_new: int = 0
    #: what ``--usage`` read: captured calls per tool (empty without ``--usage``)
    usage: dict[str, int] = field(default_factory=dict)
    #: the tools of both versions that did not change
    unchanged: tuple[str, ...] = ()

    def counts(self) -> dict[str, int]:
        """Changes per class, every class named."""
        out = {c.value: 0 for c in CLASSES}
        for change in self.changes:
            out[change.cls.value] += 1
        return out

    def worst(self) -> CompatClass | None:
        """The class of the worst change, or ``None`` when nothing changed."""
        return max((c.cls for c in self.changes), key=lambda c: c.rank, default=None)

    def to_dict(self) -> dict[str, Any]:
        """The JSON report."""
        summary: dict[str, Any] = self.counts()
        summary.update(old=self.old, new=self.new, tools_old=self.tools_old)
        summary["tools_new"] = self.tools_new
        out: dict[str, Any] = {
            "version": 1,
            "summary": summary,
            "changes": [c.to_dict() for c in self.changes],
        }
        if self.usage:
            out["usage"] = dict(sorted(self.usage.items()))
        return out


#: ``--fail-on`` values: a class, or ``any`` (any change at all, cosmetic included).
FAIL_ON: Final = ("breaking", "risky", "any")


def classes_fail(classes: Iterable[str], fail_on: str) -> bool:
    """Whether changes of these classes (``pin --check``'s findings) fail ``fail_on``."""
    worst = max((CompatClass(c) for c in classes), key=lambda c: c.rank, default=None)
    return fails(worst, fail_on)


def fails(worst: CompatClass | None, fail_on: str) -> bool:
    """Whether a report whose worst change is ``worst`` fails at ``fail_on``.

    >>> fails(CompatClass.RISKY, "breaking"), fails(CompatClass.COSMETIC, "any")
    (False, True)
    """
    if worst is None:
        return False
    if fail_on == "any":
        return True
    return worst.rank >= CompatClass(fail_on).rank
