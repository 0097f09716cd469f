"""The registry of dialects: the one table the reader, the tool loader and lint consult.

Order matters twice. A document is read by the first dialect that takes it as a whole
message (:meth:`~jsoncontract.capture.interface.CaptureDialect.whole`), else by the first
that reads it as a part (:meth:`~jsoncontract.capture.interface.CaptureDialect.part`); a
tool definition is read by the first dialect whose
:attr:`~jsoncontract.capture.interface.ToolLayout.recognises` says it is one of its own.
Registries are immutable: :meth:`Registry.adding` returns a new one, so a caller (a test,
an embedding program) can read one more dialect without changing what others read.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Final

from jsoncontract.capture import (
    anthropic,
    downstream,
    gemini,
    mcp,
    mcp_trace,
    openai_chat,
    openai_responses,
    otlp,
)
from jsoncontract.errors import UsageError
from jsoncontract.model import Hop

if TYPE_CHECKING:
    from jsoncontract.capture.interface import CaptureDialect

_HOP_ORDER: Final = tuple(Hop)


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
        return [d.name for d in sorted(self, key=lambda d: _HOP_ORDER.index(d.hop))]

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


#: The dialects jsoncontract reads, in the order they are asked (MCP frames first: a tool
#: definition with ``inputSchema`` is MCP's whatever else it holds), and the fallback for
#: bare bodies. Adding one here (and its module) is all the reader, the tool loader and
#: lint need.
DIALECTS: Final = Registry(
    (
        mcp.DIALECT,
        mcp_trace.DIALECT,
        openai_chat.DIALECT,
        openai_responses.DIALECT,
        anthropic.DIALECT,
        gemini.DIALECT,
        otlp.DIALECT,
    ),
    fallback=downstream.DIALECT,
)
