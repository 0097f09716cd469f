"""The tools the guard enforces: what the server lists, read through the lock and ``--closed``.

A :class:`ToolBook` is built from a complete ``tools/list`` (every page), or from the tools
a library caller hands the guard. For each tool it holds:

- the contract calls are checked against: the server's ``inputSchema``, or the one in the
  lock when the tool is pinned there (the reviewed definition: its input and output schema
  and annotations), with every object schema closed under ``--closed``
  (:func:`closed_schema`);
- its drift from the lock (the ``pin.*`` findings ``pin --check`` reports), and whether
  that hides it (``--on-drift hide``) or marks it (``flag``);
- why it cannot be used at all, for a tool too broken to check anything against (no name,
  an ``inputSchema`` that is not a JSON Schema).

:meth:`ToolBook.definitions` is the ``tools/list`` the guard enforces (hidden tools left
out, schemas as enforced): the trace carries it, so ``check`` reads the calls against the
same contracts.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract.errors import InputError, SchemaLoadError, ToolLoadError, UsageError
from jsoncontract.lint.walk import LISTS, MAPS, SINGLE
from jsoncontract.live.guard.settings import OnDrift
from jsoncontract.model import Dialect, Source

if TYPE_CHECKING:
    from jsoncontract.model import Finding, ToolContract
    from jsoncontract.pin import PinnedTool
    from jsoncontract.tools.toolset import ToolSet

#: Keywords through which other subschemas add members to an object: such an object is
#: closed with ``unevaluatedProperties`` (which sees them), not ``additionalProperties``.
_COMPOSING: Final = ("allOf", "anyOf", "oneOf", "$ref", "if", "then", "else", "dependentSchemas")
#: Where a flagged tool's drift is written in its ``_meta``.
DRIFT_META: Final = "jsoncontract/drift"
_OLD_DRAFTS: Final = ("draft-04", "draft-06", "draft-07", "draft-03")


def closed_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``schema`` in which every object schema that does not say what to do with
    undeclared members refuses them: ``additionalProperties: false``, or
    ``unevaluatedProperties: false`` where members may come from ``allOf``, ``$ref`` and
    the like (drafts before 2019-09 have no such keyword: those objects stay open). An
    object that sets either keyword itself (``true``, a schema of a map) keeps it.

    >>> closed = closed_schema({"properties": {"a": {"type": "object"}, "b": {"allOf": []}}})
    >>> closed["additionalProperties"], closed["properties"]["a"]["additionalProperties"]
    (False, False)
    >>> closed["properties"]["b"]
    {'allOf': []}
    """
    out = copy.deepcopy(schema)
    old = any(d in str(out.get("$schema", "")) for d in _OLD_DRAFTS)
    stack: list[Any] = [out]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        if _is_object(node) and not {"additionalProperties", "unevaluatedProperties"} & node.keys():
            if not any(k in node for k in _COMPOSING):
                node["additionalProperties"] = False
            elif not old:
                node["unevaluatedProperties"] = False
        for key, sub in node.items():
            if key in SINGLE and isinstance(sub, dict):
                stack.append(sub)
            elif key in MAPS and isinstance(sub, dict):
                stack.extend(v for v in sub.values() if isinstance(v, dict))
            elif key in LISTS and isinstance(sub, list):
                stack.extend(v for v in sub if isinstance(v, dict))
    return out


def _is_object(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    if kind == "object" or (isinstance(kind, list) and "object" in kind):
        return True
    return kind is None and ("properties" in node or "required" in node)


@dataclass(slots=True)
class ToolBook:
    """The tools as the guard enforces them (see the module).

    ``listed``: each tool object as the server listed it, by name; ``contracts``: the
    contracts calls are checked against; ``drift``: the ``pin.*`` findings of each tool
    that differs from the lock (``removed`` holds those of pinned tools the server no
    longer lists); ``hidden``: the drifted tools ``--on-drift hide`` keeps from the model;
    ``unusable``: why a tool cannot be checked, by name.
    """

    listed: dict[str, dict[str, Any]] = field(default_factory=dict)
    contracts: dict[str, ToolContract] = field(default_factory=dict)
    toolset: ToolSet | None = None
    drift: dict[str, list[Finding]] = field(default_factory=dict)
    removed: list[Finding] = field(default_factory=list)
    hidden: frozenset[str] = frozenset()
    unusable: dict[str, str] = field(default_factory=dict)

    def definitions(self) -> list[dict[str, Any]]:
        """The ``tools/list`` the guard enforces: each visible tool with its enforced input
        and output schema and annotations (a tool without a contract as it was listed)."""
        out = []
        for name, tool in self.listed.items():
            if name in self.hidden:
                continue
            contract = self.contracts.get(name)
            if contract is None:
                out.append(tool)
                continue
            entry = {k: v for k, v in tool.items() if k != "_meta"}
            entry["inputSchema"] = contract.input_schema
            if contract.output_schema is not None:
                entry["outputSchema"] = contract.output_schema
            if contract.annotations is not None:
                entry["annotations"] = contract.annotations
            out.append(entry)
        return out

    def shown(self, tools: list[Any], on_drift: OnDrift) -> list[Any]:
        """A page of ``tools/list`` as the model gets it: hidden tools left out, flagged
        ones marked in their ``_meta`` with what changed."""
        if not self.drift or on_drift is OnDrift.PASS:
            return tools
        out: list[Any] = []
        for tool in tools:
            name = tool.get("name") if isinstance(tool, dict) else None
            found = self.drift.get(name) if isinstance(name, str) else None
            if not found:
                out.append(tool)
            elif on_drift is OnDrift.FLAG:
                meta = dict(tool.get("_meta") or {})
                meta[DRIFT_META] = [f.message for f in found]
                out.append({**tool, "_meta": meta})
        return out


def lock_entry(path: Path, server: str | None, own_name: str | None) -> dict[str, PinnedTool]:
    """The tools pinned for one server in a lock that ``mcp pin`` wrote: its entry
    ``mcp:NAME`` by ``server`` (``--name`` or the config name), else by the name the server
    gives itself, else the lock's only ``mcp:`` entry.

    Raises:
        InputError: the lock cannot be read, or holds no entry for the server.
    """
    from jsoncontract.live.linting import LOCK_PREFIX
    from jsoncontract.pin import read_lock

    lock = read_lock(path)
    servers = {key: tools for key, tools in lock.files.items() if key.startswith(LOCK_PREFIX)}
    for name in (server, own_name):
        if name is not None and LOCK_PREFIX + name in servers:
            return dict(servers[LOCK_PREFIX + name])
    if len(servers) == 1 and server is None:
        return dict(next(iter(servers.values())))
    wanted = server or own_name or "this server"
    known = ", ".join(sorted(k.removeprefix(LOCK_PREFIX) for k in servers)) or "none"
    raise InputError(
        f"the lock has no entry for {wanted} (servers pinned: {known}); pin it with "
        f"jsoncontract mcp pin SERVER --lock {path}, or name it with --name",
        file=str(path),
    )


def build_book(
    tools: list[Any],
    *,
    label: str,
    lock: dict[str, PinnedTool] | None = None,
    closed: bool = False,
    on_drift: OnDrift = OnDrift.HIDE,
) -> ToolBook:
    """The book of a complete listing (see the module)."""
    from jsoncontract.live.tools import screen
    from jsoncontract.tools.toolset import ToolSet
    from jsoncontract.validation import CompiledSchema

    problems: list[Finding] = []
    unusable_at = screen(tools, label, problems)
    book = ToolBook()
    for index, tool in enumerate(tools):
        name = tool.get("name") if isinstance(tool, dict) else None
        if not isinstance(name, str) or not name:
            continue
        if index in unusable_at:
            book.unusable.setdefault(name, unusable_at[index])
            continue
        book.listed.setdefault(name, tool)
    loaded = _contracts(list(book.listed.values()), label, book.unusable)
    if lock is not None:
        book.drift, book.removed = _drift(loaded, lock, label)
        if on_drift is OnDrift.HIDE:
            book.hidden = frozenset(book.drift)
    usable: list[ToolContract] = []
    for contract in loaded:
        enforced = _enforced(contract, lock.get(contract.name) if lock else None, closed)
        try:
            CompiledSchema(enforced.input_schema, label=f"tool {contract.name!r} input schema")
        except SchemaLoadError as exc:
            book.unusable[contract.name] = f"its inputSchema cannot check anything: {exc.message}"
            continue
        book.contracts[contract.name] = enforced
        usable.append(enforced)
    book.toolset = ToolSet(usable)
    return book


def _contracts(tools: list[dict[str, Any]], label: str, unusable: dict[str, str]) -> list[Any]:
    """The contracts of tools that passed the screen (one by one when the whole list
    does not load, so that one broken tool does not stop the others)."""
    from dataclasses import replace

    from jsoncontract.tools.loader import load_tool_file

    def load(batch: list[dict[str, Any]]) -> list[ToolContract]:
        document = orjson.dumps({"tools": batch})
        return load_tool_file(label, data=document, dialect=Dialect.MCP)

    try:
        loaded = load(tools)
    except (ToolLoadError, InputError, UsageError):
        loaded = []
        for tool in tools:
            try:
                loaded.extend(load([tool]))
            except (ToolLoadError, InputError, UsageError) as exc:
                unusable[str(tool.get("name"))] = exc.message
    return [replace(c, source=Source(label, pointer=f"/tools/{c.name}")) for c in loaded]


def _enforced(contract: ToolContract, pinned: PinnedTool | None, closed: bool) -> ToolContract:
    """The contract with the lock's reviewed parts, and closed objects under ``--closed``."""
    from dataclasses import replace

    if pinned is not None:
        parts = pinned.parts
        schema = parts.get("input_schema")
        if isinstance(schema, dict):
            contract = replace(
                contract,
                input_schema=schema,
                output_schema=parts.get("output_schema"),
                annotations=parts.get("annotations"),
            )
    if closed:
        contract = replace(contract, input_schema=closed_schema(contract.input_schema))
    return contract


def _drift(
    loaded: list[ToolContract], pinned: dict[str, PinnedTool], label: str
) -> tuple[dict[str, list[Finding]], list[Finding]]:
    """The ``pin.*`` findings of each listed tool that differs from the lock (added,
    changed), and those of pinned tools the server no longer lists."""
    from jsoncontract.pin import Lock, PinnedTool, digest, drift, parts_of

    key = label
    current, locked = Lock(), Lock()
    current.files[key] = {}
    current.shown[key] = label
    for contract in loaded:
        parts = parts_of(contract)
        current.files[key][contract.name] = PinnedTool(parts, digest(parts), contract.source)
    locked.files[key] = pinned
    by_tool: dict[str, list[Finding]] = {}
    removed: list[Finding] = []
    for finding in drift(locked, current, base=Path()):
        name = finding.tool or ""
        if name in current.files[key]:
            by_tool.setdefault(name, []).append(finding)
        else:
            removed.append(finding)
    return by_tool, removed
