"""The registry of dialects: the one table the reader, the tool loader and lint consult.

Order matters twice. A document is read by the first dialect that takes it as a whole
message (:meth:`~jsoncontract.capture.interface.CaptureDialect.whole`), else by the first
that reads it as a part (:meth:`~jsoncontract.capture.interface.CaptureDialect.part`); a
tool definition is read by the first dialect whose
:attr:`~jsoncontract.capture.interface.ToolLayout.recognises` says it is one of its own.
Registries are immutable: :meth:`Registry.adding` returns a new one, so a caller (a test,
an embedding program) can read one more dialect without changing what others read.

The built-in dialects are the table :data:`BUILT_IN`: each one's name, module and hop,
written where the command line and the config schema read them without importing a
dialect (``--help`` stays light). :data:`DIALECTS`, their registry, is built from the table
on first use, and refuses a module whose dialect is not what its line says.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Final, NamedTuple

from jsoncontract.errors import UsageError

if TYPE_CHECKING:
    from jsoncontract.capture.interface import CaptureDialect

#: The hops, in the order a call passes them (that of :class:`jsoncontract.model.Hop`).
HOP_ORDER: Final = ("model", "mcp", "downstream")


class BuiltIn(NamedTuple):
    """One line of :data:`BUILT_IN`: the dialect's name, its module under
    ``jsoncontract.capture`` (which defines ``DIALECT``), and the value of its hop."""

    name: str
    module: str
    hop: str


#: The dialects jsoncontract reads, in the order they are asked (MCP frames first: a tool
#: definition with ``inputSchema`` is MCP's whatever else it holds; then the formats that
#: wrap or mimic OpenAI Chat's, which it would misread); the last is the fallback for bare
#: bodies. Adding a line here (and its module) is all the reader, the tool
#: loader, lint, ``--dialect`` and the config schema need.
BUILT_IN: Final = (
    BuiltIn("mcp", "mcp", "mcp"),
    BuiltIn("mcp-trace", "mcp_trace", "mcp"),
    BuiltIn("litellm", "litellm", "model"),
    BuiltIn("langchain", "langchain", "model"),
    BuiltIn("mistral", "mistral", "model"),
    BuiltIn("bedrock-converse", "bedrock", "model"),
    BuiltIn("openai-chat", "openai_chat", "model"),
    BuiltIn("openai-responses", "openai_responses", "model"),
    BuiltIn("anthropic", "anthropic", "model"),
    BuiltIn("gemini", "gemini", "model"),
    BuiltIn("ollama", "ollama", "model"),
    BuiltIn("cohere", "cohere", "model"),
    BuiltIn("otlp", "otlp", "model"),
    BuiltIn("downstream", "downstream", "downstream"),
)


def built_in_names() -> list[str]:
    """The names of the built-in dialects in the order to list them (:meth:`Registry.names`),
    read from :data:`BUILT_IN` without importing any dialect."""
    lines = sorted(BUILT_IN, key=lambda line: HOP_ORDER.index(line.hop))
    return [line.name for line in lines]


class Registry:
    """Capture dialects by name, in the order they are asked.

    Arguments:
        dialects: the detected dialects, in the order they are asked.
        fallback: the dialect of bare bodies, which no member gives away: read when the
            caller names the tool, when forced, and for trace records at its hop. Its
            :meth:`~jsoncontract.capture.interface.CaptureDialect.part` reads any JSON
            value.
    """

    __slots__ = ("_by_name", "dialects", "fallback")

    def __init__(self, dialects: Iterable[CaptureDialect], *, fallback: CaptureDialect) -> None:
        self.dialects: tuple[CaptureDialect, ...] = tuple(dialects)
        self.fallback = fallback
        self._by_name: dict[str, CaptureDialect] = {}
        for dialect in (*self.dialects, fallback):
            if dialect.name in self._by_name:
                raise ValueError(f"two capture dialects are called {str(dialect.name)!r}")
            self._by_name[dialect.name] = dialect

    def __iter__(self) -> Iterator[CaptureDialect]:
        """Every dialect: the detected ones in order, then the fallback."""
        yield from self.dialects
        yield self.fallback

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def names(self) -> list[str]:
        """Every dialect's name, in the order a call passes their hops (model, MCP,
        downstream), then in registry order: the order to list them in."""
        return [d.name for d in sorted(self, key=lambda d: HOP_ORDER.index(d.hop))]

    def get(self, name: str) -> CaptureDialect | None:
        """The dialect called ``name``, or ``None``."""
        return self._by_name.get(name)

    def find(self, name: str) -> CaptureDialect:
        """The dialect called ``name``.

        Raises:
            UsageError: no dialect is called that.
        """
        dialect = self._by_name.get(name)
        if dialect is None:
            known = ", ".join(self.names())
            raise UsageError(f"unknown capture dialect {str(name)!r}; use one of: {known}")
        return dialect

    def adding(self, dialect: CaptureDialect, *, before: str | None = None) -> Registry:
        """A new registry that also reads ``dialect``: asked last, or just ``before`` the
        dialect of that name (to take precedence over it for the shapes both read)."""
        dialects = list(self.dialects)
        position = len(dialects)
        if before is not None:
            position = dialects.index(self.find(before))
        dialects.insert(position, dialect)
        return Registry(dialects, fallback=self.fallback)


def _load(line: BuiltIn) -> CaptureDialect:
    dialect: CaptureDialect = import_module(f"jsoncontract.capture.{line.module}").DIALECT
    if (dialect.name, dialect.hop) != (line.name, line.hop):
        raise ValueError(
            f"jsoncontract.capture.{line.module} defines the dialect {str(dialect.name)!r} at "
            f"hop {str(dialect.hop)!r}; BUILT_IN says {line.name!r} at {line.hop!r}"
        )
    return dialect


@cache
def built_in() -> Registry:
    """The registry of the built-in dialects (:data:`BUILT_IN`), built on first use."""
    *detected, fallback = (_load(line) for line in BUILT_IN)
    return Registry(detected, fallback=fallback)


if TYPE_CHECKING:
    #: The registry of the built-in dialects: the one the reader, the tool loader and lint
    #: use unless given another.
    DIALECTS: Registry


def __getattr__(name: str) -> Registry:
    if name == "DIALECTS":
        return built_in()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
