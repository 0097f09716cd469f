"""A set of tool contracts, looked up by name, with schemas compiled once."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from jsoncontract._spelling import did_you_mean
from jsoncontract.capture.registry import DIALECTS, Registry
from jsoncontract.errors import ToolLoadError
from jsoncontract.model import Hop
from jsoncontract.tools.loader import load_tool_files
from jsoncontract.validation import CompiledSchema

if TYPE_CHECKING:
    from jsoncontract.model import ToolContract


def _one_operation(a: ToolContract, b: ToolContract) -> ToolContract | None:
    """The OpenAPI operation when exactly one of two contracts is one."""
    from jsoncontract.tools.openapi import OPENAPI

    if (a.dialect == OPENAPI) == (b.dialect == OPENAPI):
        return None
    return a if a.dialect == OPENAPI else b


def _merged(known: ToolContract, other: ToolContract) -> ToolContract:
    """The first definition, completed with what only a later copy says.

    Dialects carry different parts of a tool: an MCP copy has annotations and an output
    schema, an OpenAI copy has neither. The first definition stays the source of truth;
    parts it lacks are taken from the copy that has them.
    """
    changes = {
        name: getattr(other, name)
        for name in ("description", "title", "output_schema", "annotations", "strict")
        if getattr(known, name) is None and getattr(other, name) is not None
    }
    return replace(known, **changes) if changes else known


class ToolSet:
    """Tool contracts by name; every input schema compiled when the set is built.

    A tool defined in several files (say, for two providers) is accepted when every copy
    has the same input schema; otherwise the set refuses to guess which one is meant. The
    copies are merged: parts only a later copy has (MCP annotations, an output schema) are
    kept.

    An OpenAPI operation (dialect ``openapi``) is the contract of the body a tool finally
    sends downstream. When a tool of the same name is also defined for the model and MCP
    hops with another schema, both are kept: calls at the downstream hop are checked
    against the operation, the others against the tool (see :meth:`get`).

    Raises:
        ToolLoadError: a tool is defined twice with different input schemas.
        SchemaLoadError: a tool's input schema is not a valid JSON Schema.
    """

    def __init__(self, tools: Iterable[ToolContract], *, compile_schemas: bool = True) -> None:
        self._tools: dict[str, ToolContract] = {}
        self._downstream: dict[str, ToolContract] = {}
        self._compiled: dict[str, CompiledSchema] = {}
        for tool in tools:
            known = self._tools.get(tool.name)
            if known is not None and known.input_schema != tool.input_schema:
                api = _one_operation(known, tool)
                if api is not None and tool.name not in self._downstream:
                    self._downstream[tool.name] = api
                    self._tools[tool.name] = tool if api is known else known
                    self._compiled.pop(tool.name, None)
                    if compile_schemas:  # both, so that a broken schema stops the load
                        self.schema(tool.name)
                        self.schema(tool.name, Hop.DOWNSTREAM)
                    continue
            if known is not None:
                if known.input_schema != tool.input_schema:
                    raise ToolLoadError(
                        f"tool {tool.name!r} is defined again with a different input schema "
                        f"(first at {known.source}); load one definition per tool",
                        file=tool.source.file,
                        line=tool.source.line,
                    )
                self._tools[tool.name] = _merged(known, tool)
                continue
            self._tools[tool.name] = tool
            if compile_schemas:
                self._compiled[tool.name] = CompiledSchema(
                    tool.input_schema, label=f"tool {tool.name!r} input schema", source=tool.source
                )

    @classmethod
    def from_paths(
        cls,
        paths: Iterable[str | Path],
        *,
        tool_name: str | None = None,
        dialect: str | None = None,
        dialects: Registry = DIALECTS,
        exclude: Sequence[str] = (),
        skipped: list[tuple[str, str]] | None = None,
    ) -> ToolSet:
        """Load and compile every tool in the named files and directories (in ``dialects``;
        ``exclude`` and ``skipped`` as :func:`~jsoncontract.tools.loader.load_tool_files`
        takes them)."""
        return cls(
            load_tool_files(
                paths,
                tool_name=tool_name,
                dialect=dialect,
                dialects=dialects,
                exclude=exclude,
                skipped=skipped,
            )
        )

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[ToolContract]:
        return iter(self._tools.values())

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def get(self, name: str, hop: Hop | None = None) -> ToolContract | None:
        """The tool called ``name``, or ``None``; at the downstream ``hop``, the OpenAPI
        operation of that name when one is loaded besides the tool."""
        if hop is Hop.DOWNSTREAM:
            downstream = self._downstream.get(name)
            if downstream is not None:
                return downstream
        return self._tools.get(name)

    def names(self) -> list[str]:
        """Tool names in load order."""
        return list(self._tools)

    def schema(self, name: str, hop: Hop | None = None) -> CompiledSchema:
        """The compiled input schema of a known tool (compiled on first use if needed); at
        the downstream ``hop``, the operation's request body (see :meth:`get`)."""
        if hop is Hop.DOWNSTREAM and name in self._downstream:
            key = name + "\x00downstream"
            compiled = self._compiled.get(key)
            if compiled is None:
                api = self._downstream[name]
                compiled = self._compiled[key] = CompiledSchema(
                    api.input_schema,
                    label=f"operation {name!r} request body schema",
                    source=api.source,
                )
            return compiled
        compiled = self._compiled.get(name)
        if compiled is None:
            tool = self._tools[name]
            compiled = self._compiled[name] = CompiledSchema(
                tool.input_schema, label=f"tool {name!r} input schema", source=tool.source
            )
        return compiled

    def downstream(self) -> list[ToolContract]:
        """The OpenAPI operations kept besides a tool of the same name."""
        return list(self._downstream.values())

    def suggest(self, name: str) -> str | None:
        """The known tool name closest to ``name`` (case, separators, then spelling)."""
        return did_you_mean(name, self._tools)
