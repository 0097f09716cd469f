"""What a lint rule is: a code, a name, a family, severities per profile, and a check.

A rule is a class whose docstring is its documentation (``## What it does``,
``## Why is this bad?``, ``## Example``, ``## Use instead``, ``## References``); ``jsoncontract
rules CODE`` prints it and ``docs/rules/CODE.md`` is generated from it. Its ``check`` yields
:class:`Issue` values and never raises for bad input: a schema that makes no sense is
itself a finding.

Rules come in four scopes, by what they look at:

- :class:`NodeRule`: one schema node at a time (dispatched only to nodes holding one of its
  ``triggers``, so a catalog of thousands of tools stays fast);
- :class:`ToolRule`: one tool (its name, description, annotations, whole schemas);
- :class:`FileRule`: one tool list (one file: what a request or a server sends together);
- :class:`RunRule`: every tool of the run (references between servers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, Final, Literal

from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import FileCtx, Node, RunCtx, ToolCtx

#: The profile key meaning "every profile".
ALL: Final = "*"


def by_profile(table: Mapping[str, Severity | None]) -> Mapping[str, Severity | None]:
    """A rule's ``profiles`` table, read-only."""
    return MappingProxyType(dict(table))


class Family(StrEnum):
    """Rule families (``--select closure`` selects one)."""

    HYGIENE = "hygiene"
    NAMES = "names"
    CLOSURE = "closure"
    CLOSED_SETS = "closed-sets"
    IDEMPOTENCY = "idempotency"
    BOUNDS = "bounds"
    REQUIRED = "required"
    DESCRIPTIONS = "descriptions"
    OPENAI = "openai"
    ANTHROPIC = "anthropic"
    GEMINI = "gemini"
    MCP = "mcp"
    ENGINES = "engines"
    #: The project's own rules (``[[lint.rules]]`` and ``--ruleset``).
    USER = "user"


class Scope(StrEnum):
    """What one call of a rule's ``check`` looks at."""

    NODE = "node"
    TOOL = "tool"
    FILE = "file"
    RUN = "run"


@dataclass(frozen=True, slots=True)
class Edit:
    """One change to a tool file, addressed by a JSON Pointer into the file.

    ``set`` replaces the value at ``pointer``, or adds the member when it is missing;
    ``append`` adds ``value`` at the end of the array at ``pointer``; ``remove`` deletes the
    member or element at ``pointer``.
    """

    kind: Literal["set", "append", "remove"]
    pointer: str
    value: Any = None


class Fix:
    """A mechanical change that removes a finding without changing what the schema means.

    ``edits`` may be given, or built on first use by ``build`` (most findings of a large
    run are reported, not fixed, so their edits are never needed).
    """

    __slots__ = ("_build", "_edits", "title")

    def __init__(
        self,
        title: str,
        edits: tuple[Edit, ...] | None = None,
        *,
        build: Callable[[], tuple[Edit, ...]] | None = None,
    ) -> None:
        if edits is None and build is None:
            raise ValueError("a fix needs edits or a way to build them")
        self.title = title
        self._edits = edits
        self._build = build

    @property
    def edits(self) -> tuple[Edit, ...]:
        """The edits, in order."""
        if self._edits is None:
            assert self._build is not None
            self._edits = self._build()
        return self._edits

    def __repr__(self) -> str:
        return f"Fix({self.title!r})"


@dataclass(slots=True)
class Issue:
    """What a rule reports; the engine turns it into a located finding.

    ``pointer`` is a JSON Pointer into the tool file. ``profiles`` narrows the finding to
    some of the rule's active profiles (its severity follows them). ``refused`` explains why
    a fixable rule offers no fix here (the change would alter what the schema accepts).
    """

    message: str
    pointer: str
    keyword: str | None = None
    hint: str | None = None
    fix: Fix | None = None
    refused: str | None = None
    severity: Severity | None = None
    profiles: tuple[str, ...] | None = None
    schema_path: str | None = None
    #: For file and run rules: the tool the finding is about (it also gives the file).
    tool: ToolCtx | None = None


class Rule:
    """Base of every rule. Subclasses set the class attributes and implement ``check``.

    ``profiles`` maps a profile name (or :data:`ALL`) to the severity the rule has there, or
    ``None`` to switch it off there. ``mcp_versions`` limits the ``mcp`` profile to those
    protocol versions. ``fixable`` says whether ``--fix`` can repair some findings.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    family: ClassVar[Family]
    summary: ClassVar[str]
    scope: ClassVar[Scope]
    profiles: ClassVar[Mapping[str, Severity | None]]
    mcp_versions: ClassVar[frozenset[str] | None] = None
    fixable: ClassVar[bool] = False
    #: 0-10 for rules that find security problems (shown to code-scanning dashboards).
    security_severity: ClassVar[float | None] = None
    #: Release that added the rule; ``status`` is ``stable`` or ``preview``.
    added: ClassVar[str] = "0.1.0"
    status: ClassVar[str] = "stable"

    def severity_for(
        self, profiles: Iterable[str], mcp_version: str | None
    ) -> tuple[Severity | None, tuple[str, ...]]:
        """The highest severity over ``profiles`` and the profiles that run the rule."""
        found: list[Severity] = []
        active: list[str] = []
        table = self.profiles
        default = table.get(ALL)
        for profile in profiles:
            severity = table.get(profile, default)
            if severity is None:
                continue
            if (
                profile == "mcp"
                and self.mcp_versions is not None
                and mcp_version not in self.mcp_versions
            ):
                continue
            active.append(profile)
            found.append(severity)
        return Severity.worst(found), tuple(active)

    @property
    def default_severity(self) -> Severity:
        """The severity listings show: the rule's severity everywhere, else its highest."""
        if self.profiles.get(ALL) is not None:
            value = self.profiles[ALL]
            assert value is not None
            return value
        worst = Severity.worst(s for s in self.profiles.values() if s is not None)
        assert worst is not None, f"{self.code} runs in no profile"
        return worst

    @classmethod
    def doc(cls) -> str:
        """The rule's documentation (its docstring, dedented)."""
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")


class NodeRule(Rule):
    """A rule over single schema nodes.

    ``triggers`` are keywords (``"pattern"``) or node kinds: ``@object``, ``@array``,
    ``@property`` (the schema of a named property), ``@string`` and ``@number`` (a named
    property of that type), ``@bool`` (a boolean subschema) and ``@any``. ``sites``
    restricts the rule to input or output schemas; ``openapi`` to Gemini OpenAPI-subset
    schemas (True) or to JSON Schemas (False).
    """

    scope: ClassVar[Scope] = Scope.NODE
    triggers: ClassVar[frozenset[str]]
    sites: ClassVar[frozenset[str]] = frozenset({"input", "output"})
    openapi: ClassVar[bool | None] = None

    def check(self, node: Node, active: frozenset[str]) -> Iterable[Issue]:
        """Issues for one node; ``active`` holds the profiles running the rule for it."""
        raise NotImplementedError


class ToolRule(Rule):
    """A rule over one whole tool."""

    scope: ClassVar[Scope] = Scope.TOOL

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterable[Issue]:
        """Issues for one tool."""
        raise NotImplementedError


class FileRule(Rule):
    """A rule over one tool list (one file)."""

    scope: ClassVar[Scope] = Scope.FILE

    def check(self, file: FileCtx, active: frozenset[str]) -> Iterable[Issue]:
        """Issues for one file."""
        raise NotImplementedError


class RunRule(Rule):
    """A rule over every tool of the run."""

    scope: ClassVar[Scope] = Scope.RUN

    def check(self, run: RunCtx, active: frozenset[str]) -> Iterable[Issue]:
        """Issues for the whole run."""
        raise NotImplementedError
