"""The contract from the capture: each call checked against the tools offered with it.

A capture often records what the model was offered (a request's ``tools``, a span's tool
definitions, an MCP session's ``tools/list``: :class:`~jsoncontract.model.OfferedTools`,
given to each call by its dialect, see :mod:`jsoncontract.capture.interface`). Where a call's
contract comes from (:meth:`Contracts.contract`):

- **without** ``--tools`` (an empty :class:`~jsoncontract.tools.toolset.ToolSet`), from the
  tools offered with the call: a tool they do not hold is ``envelope.tool_not_offered``, a
  call whose capture records none is ``envelope.no_contract``, and an offered definition
  that is no contract (a schema that does not compile) is ``envelope.offered_tool_invalid``;
- **with** ``--tools``, from ``--tools``, which wins: a model call to a tool its request
  did not offer is still ``envelope.tool_not_offered`` (an MCP call's is the session's
  ``session.unlisted_tool``), and an offered input schema other than the one ``--tools``
  defines is the warning ``envelope.offered_schema_differs``.

Each distinct offered list is read into contracts once (its definitions in whatever dialect
they are written, as the tool loader reads a file) and its schemas compiled on first use; a
bounded number of lists is kept, the least used forgotten first. What a list says of a tool
is decided once per list and tool, so a trace of a million calls costs a dictionary lookup a
call. Every path (the fast lane, workers, Spark) asks the same methods, so verdicts do not
depend on the path.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract._spelling import did_you_mean
from jsoncontract.capture.registry import DIALECTS, Registry
from jsoncontract.errors import JsoncontractError
from jsoncontract.model import Finding, Hop, OfferedTools, Severity, Stage
from jsoncontract.validation import CompiledSchema

if TYPE_CHECKING:
    from jsoncontract.model import ToolContract
    from jsoncontract.tools.toolset import ToolSet

#: How many offered lists are kept read at once.
LISTS: Final = 256
#: What the contracts read from an offered list are said to come from.
LABEL: Final = "the tools offered with the call"
_MCP: Final = Hop.MCP
_DOWNSTREAM: Final = Hop.DOWNSTREAM


class Offer:
    """One offered list, read: its contracts by name, the names whose definition is no
    contract (and why), and the compiled schemas asked for so far."""

    __slots__ = ("broken", "schemas", "tools")

    def __init__(self, offered: OfferedTools, dialects: Registry) -> None:
        from jsoncontract.tools.loader import load_tool_file

        self.tools: dict[str, ToolContract] = {}
        self.broken: dict[str, str] = {}
        self.schemas: dict[str, CompiledSchema] = {}
        for definition in offered.definitions:
            try:
                data = orjson.dumps(definition)
                found = load_tool_file(LABEL, data=data, dialects=dialects)
            except (JsoncontractError, TypeError) as exc:
                name = _name_of(definition)
                if name is not None and not _no_tool(exc):
                    self.broken.setdefault(name, _why(exc))
                continue
            for tool in found:
                known = self.tools.get(tool.name)
                if known is None:
                    self.tools[tool.name] = tool
                elif known.input_schema != tool.input_schema:
                    self.broken[tool.name] = "the list defines it twice with different schemas"
        for name in self.broken:
            self.tools.pop(name, None)

    def schema(self, name: str) -> CompiledSchema | None:
        """The compiled input schema of an offered tool (``None``: it does not compile, and
        is broken from now on)."""
        compiled = self.schemas.get(name)
        if compiled is None:
            tool = self.tools[name]
            try:
                compiled = CompiledSchema(
                    tool.input_schema, label=f"the offered tool {name!r}", source=tool.source
                )
            except JsoncontractError as exc:
                self.broken[name] = _why(exc)
                del self.tools[name]
                return None
            self.schemas[name] = compiled
        return compiled


class Contracts:
    """Where each call's contract comes from (see the module).

    Arguments:
        tools: the tools of ``--tools`` and the config; empty: the contract is the
            capture's.
        dialects: the dialects offered definitions are read in.
    """

    def __init__(self, tools: ToolSet, dialects: Registry = DIALECTS) -> None:
        self.tools = tools
        self.capture = len(tools) == 0
        self.dialects = dialects
        self._offers: OrderedDict[bytes, Offer] = OrderedDict()
        self._decided: dict[tuple[str, Hop | None, bytes], tuple[Any, Finding | None]] = {}

    def offer(self, offered: OfferedTools) -> Offer:
        """The list ``offered``, read (kept among the :data:`LISTS` last used)."""
        key = offered.key
        found = self._offers.get(key)
        if found is not None:
            self._offers.move_to_end(key)
            return found
        found = self._offers[key] = Offer(offered, self.dialects)
        if len(self._offers) > LISTS:
            forgotten, _ = self._offers.popitem(last=False)
            self._decided = {k: v for k, v in self._decided.items() if k[2] != forgotten}
        return found

    def contract(
        self, name: str, hop: Hop | None, offered: OfferedTools | None
    ) -> tuple[ToolContract | None, Finding | None]:
        """The contract of a call of ``name`` at ``hop`` offered ``offered``, and what the
        envelope gate says of where it came from: an error (then there is no contract), a
        warning, or ``None``."""
        if offered is None:
            if not self.capture:
                tool = self.tools.get(name, hop)
                return tool, None if tool is not None else _unknown(name, self.tools)
            return None, _no_contract(name, hop)
        decided_key = (name, hop, offered.key)
        decided = self._decided.get(decided_key)
        if decided is None:
            decided = self._decide(name, hop, offered)
            if len(self._decided) > 64 * LISTS:
                self._decided.clear()
            self._decided[decided_key] = decided
        return decided

    def _decide(
        self, name: str, hop: Hop | None, offered: OfferedTools
    ) -> tuple[ToolContract | None, Finding | None]:
        offer = self.offer(offered)
        if not self.capture:
            tool = self.tools.get(name, hop)
            if tool is None:
                return None, _unknown(name, self.tools)
            if hop is _DOWNSTREAM:
                return tool, None
            if name in offer.tools and offer.schema(name) is not None:
                mine = offer.tools[name]
                if _canonical(mine.input_schema) != _canonical(tool.input_schema):
                    return tool, _differs(name, tool)
                return tool, None
            if name in offer.broken or hop is _MCP:  # an MCP session's listing says it
                return tool, None
            return None, _not_offered(name, offer)
        if name in offer.tools and offer.schema(name) is not None:
            return offer.tools[name], None
        why = offer.broken.get(name)
        if why is not None:
            return None, _invalid(name, why)
        return None, _not_offered(name, offer)

    def schema(self, tool: ToolContract, hop: Hop | None, offered: OfferedTools | None) -> Any:
        """The compiled input schema of ``tool``, the contract :meth:`contract` gave."""
        if not self.capture or offered is None:
            return self.tools.schema(tool.name, hop)
        compiled = self.offer(offered).schema(tool.name)
        assert compiled is not None  # the contract was given: it compiled
        return compiled


def _canonical(schema: Any) -> bytes:
    try:
        return orjson.dumps(schema, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # deeper than orjson writes: compared as its repr
        return repr(schema).encode("utf-8", "surrogatepass")


def _name_of(definition: Any) -> str | None:
    """The name a broken definition gives its tool, where it says one."""
    if type(definition) is not dict:
        return None
    for body in (definition, definition.get("function"), definition.get("toolSpec")):
        if type(body) is dict and type(body.get("name")) is str:
            return str(body["name"])
    return None


def _no_tool(error: Exception) -> bool:
    """Whether a definition failed to load because it defines no function (a hosted tool)."""
    from jsoncontract.errors import NoToolDefinitions

    return isinstance(error, NoToolDefinitions)


def _why(error: Exception) -> str:
    message = getattr(error, "message", None) or str(error)
    return message.splitlines()[0] if message else type(error).__name__


def _error(code: str, message: str, hint: str, severity: Severity = Severity.ERROR) -> Finding:
    return Finding(code, severity, message, stage=Stage.ENVELOPE, hint=hint)


def _unknown(name: str, tools: ToolSet) -> Finding:
    from jsoncontract.pipeline.envelope import unknown_tool

    return unknown_tool(name, tools)


def _not_offered(name: str, offer: Offer) -> Finding:
    names = list(offer.tools) + list(offer.broken)
    guess = did_you_mean(name, names)
    if guess is not None:
        hint = f"did you mean {guess!r}?"
    elif names:
        listed = ", ".join(names[:8]) + (", ..." if len(names) > 8 else "")
        hint = f"offered: {listed}"
    else:
        hint = "the request offered no tool at all"
    return _error(
        codes.ENVELOPE_TOOL_NOT_OFFERED, f"tool {name!r} is not among the tools offered", hint
    )


def _differs(name: str, tool: ToolContract) -> Finding:
    return _error(
        codes.ENVELOPE_OFFERED_SCHEMA_DIFFERS,
        f"the tools offered with this call define {name!r} with another input schema than "
        f"--tools ({tool.source}); the call is checked against --tools",
        "update the definitions given to --tools, or check without --tools to take each "
        "call's contract from its own request",
        Severity.WARNING,
    )


def _invalid(name: str, why: str) -> Finding:
    return _error(
        codes.ENVELOPE_OFFERED_TOOL_INVALID,
        f"the offered definition of {name!r} is no contract: {why}",
        "fix the tool definition the agent sends; a provider rejects it",
    )


def _no_contract(name: str, hop: Hop | None) -> Finding:
    where = "an MCP tools/list before it" if hop is _MCP else "its request"
    return _error(
        codes.ENVELOPE_NO_CONTRACT,
        f"no tool definition for {name!r}: no --tools was given, and the capture does not "
        f"record the tools offered with this call ({where})",
        'log each request with its response ({"request": ..., "response": ...}), or pass '
        "--tools PATH",
    )
