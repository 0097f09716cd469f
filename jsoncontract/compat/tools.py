"""Two tool sets compared tool by tool: what was removed, renamed or added, and for each
tool in both, every change to its parts, classed.

A tool set is read into a :class:`~jsoncontract.pin.Lock` whatever it came from (files, a
lock, a repository's history, a live server), so every side is compared through the same
canonical parts ``pin`` hashes. Besides the checks, every difference between two parts
(``pin``'s JSON differences) must be explained by a change: one that is not is reported as
``compat.unclassified``, risky, so a difference no check knows is never passed over.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.compat.model import Change, CompatClass, Direction, Effect, class_of
from jsoncontract.compat.schema import Raw, SchemaWalk, related
from jsoncontract.errors import InputError
from jsoncontract.pin import canonical, differences, locate, text_change

if TYPE_CHECKING:
    from jsoncontract._files import Positions
    from jsoncontract.model import Finding
    from jsoncontract.pin import Lock, PinnedTool

#: Where each pinned part is in a tool definition as MCP writes it.
PART_ROOTS: Final = {
    "description": "/description",
    "title": "/title",
    "annotations": "/annotations",
    "input_schema": "/inputSchema",
    "output_schema": "/outputSchema",
    "extra": "",
}
#: The MCP tool hints and the value a tool without the hint has (MCP 2025-06-18,
#: ``ToolAnnotations``).
HINT_DEFAULTS: Final = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
#: For each hint, the value that says the tool is riskier.
RISKIER: Final = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}
_DEFINITIONS: Final = ("$defs", "definitions")


@dataclass(slots=True)
class Side:
    """One version of a tool set: what reports call it, and its tools as pinned."""

    label: str
    lock: Lock
    #: the tools by name: (the lock's file key, the tool), filled by :meth:`tools`
    _tools: dict[str, tuple[str, PinnedTool]] = field(default_factory=dict)

    def tools(self) -> dict[str, tuple[str, PinnedTool]]:
        """The tools by name.

        Raises:
            InputError: two files of the side define one tool differently.
            SchemaLoadError: a tool's input or output schema is not a valid JSON Schema.
        """
        if self._tools:
            return self._tools
        from jsoncontract.validation import CompiledSchema

        for key, tools in sorted(self.lock.files.items()):
            for name, tool in tools.items():
                known = self._tools.get(name)
                if known is None:
                    for part in ("input_schema", "output_schema"):
                        if tool.parts.get(part) is not None:  # compared as valid schemas
                            label = f"{self.label}: tool {name!r} {part.replace('_', ' ')}"
                            CompiledSchema(tool.parts[part], label=label, source=tool.source)
                    self._tools[name] = (key, tool)
                elif known[1].sha256 != tool.sha256:
                    raise InputError(
                        f"tool {name!r} is defined twice, differently ({known[0]} and {key}): "
                        "compare one definition per tool",
                        file=self.label,
                    )
        return self._tools

    def located(self, key: str, tool: PinnedTool, pointer: str) -> Any:
        """Where a pointer of a tool is in its file (``None`` when it is not a file)."""
        index: Positions | None = self.lock.texts.get(key)
        if index is None:
            return None
        shown = self.lock.shown.get(key, key)
        for part, root in sorted(PART_ROOTS.items(), key=lambda item: -len(item[1])):
            if root and (pointer == root or pointer.startswith(root + "/")):
                return locate(shown, index, tool, part, pointer[len(root) :])
        return locate(shown, index, tool, "extra", pointer)


def compare_sides(old: Side, new: Side) -> list[Change]:
    """Every change from ``old`` to ``new``, classed by its check, in tool order.

    Raises:
        InputError: a side defines a tool twice, differently.
    """
    before, after = old.tools(), new.tools()
    out: list[Change] = []
    removed = sorted(set(before) - set(after))
    added = sorted(set(after) - set(before))
    renamed = _renames(before, after, removed, added)
    for name in sorted(set(before) | set(after)):
        if name in before and name in after:
            key, tool = after[name]
            changes = compare_tools(name, before[name][1], tool)
            out.extend(_place(c, new, key, tool, old, *before[name]) for c in changes)
        elif name in renamed:
            target = renamed[name]
            key, tool = after[target]
            out.append(
                Change(
                    name,
                    "",
                    CompatClass.BREAKING,
                    codes.COMPAT_TOOL_RENAMED,
                    f"tool {name!r} was renamed {target!r}: callers of {name!r} fail",
                    name,
                    target,
                    source=tool.source,
                )
            )
            out.extend(
                _place(c, new, key, tool, old, *before[name])
                for c in compare_tools(target, before[name][1], tool, renamed=True)
            )
        elif name in before:
            out.append(
                Change(
                    name,
                    "",
                    CompatClass.BREAKING,
                    codes.COMPAT_TOOL_REMOVED,
                    f"tool {name!r} was removed: every call to it fails",
                    name,
                    None,
                    source=before[name][1].source,
                )
            )
        elif name not in renamed.values():
            out.append(
                Change(
                    name,
                    "",
                    CompatClass.COMPATIBLE,
                    codes.COMPAT_TOOL_ADDED,
                    f"tool {name!r} was added",
                    None,
                    name,
                    source=after[name][1].source,
                )
            )
    return out


def _place(
    change: Change, new: Side, key: str, tool: PinnedTool, old: Side, old_key: str, was: PinnedTool
) -> Change:
    from dataclasses import replace

    source = new.located(key, tool, change.pointer)
    if change.new is None and change.old is not None:  # a removal: where it was
        source = old.located(old_key, was, change.pointer) or source
    return replace(change, source=source) if source is not None else change


def _renames(
    before: dict[str, tuple[str, PinnedTool]],
    after: dict[str, tuple[str, PinnedTool]],
    removed: list[str],
    added: list[str],
) -> dict[str, str]:
    """Removed tool -> the added tool with exactly its schemas (a rename)."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for name in removed:
        schemas = _schemas(before[name][1])
        for other in added:
            if other not in taken and _schemas(after[other][1]) == schemas:
                out[name] = other
                taken.add(other)
                break
    return out


def _schemas(tool: PinnedTool) -> bytes:
    return canonical([tool.parts.get("input_schema"), tool.parts.get("output_schema")])


def compare_tools(
    name: str, old: PinnedTool, new: PinnedTool, *, renamed: bool = False
) -> list[Change]:
    """Every change to one tool's parts (its name aside), classed."""
    out: list[Change] = []
    o, n = old.parts, new.parts
    if not _equal(o.get("description"), n.get("description")):
        out.append(
            _change(
                name,
                "/description",
                CompatClass.RISKY,
                codes.COMPAT_DESCRIPTION_CHANGED,
                f"description changed: {text_change(o.get('description'), n.get('description'))}",
                o.get("description"),
                n.get("description"),
            )
        )
    if not _equal(o.get("title"), n.get("title")):
        out.append(
            _change(
                name,
                "/title",
                CompatClass.COSMETIC,
                codes.COMPAT_TITLE_CHANGED,
                f"title changed: {text_change(o.get('title'), n.get('title'))}",
                o.get("title"),
                n.get("title"),
            )
        )
    out.extend(_annotations(name, o.get("annotations"), n.get("annotations")))
    out.extend(_extra(name, o.get("extra"), n.get("extra")))
    out.extend(_schema_changes(name, o.get("input_schema"), n.get("input_schema"), Direction.INPUT))
    out.extend(_output(name, o.get("output_schema"), n.get("output_schema")))
    out.extend(_unexplained(name, o, n, out))
    return out


def _equal(a: Any, b: Any) -> bool:
    return canonical(a) == canonical(b)


def _change(
    tool: str,
    pointer: str,
    cls: CompatClass,
    code: str,
    message: str,
    old: Any = None,
    new: Any = None,
    direction: Direction | None = None,
    effect: Effect = Effect.NONE,
) -> Change:
    return Change(tool, pointer, cls, code, message, old, new, direction, effect)


def _annotations(tool: str, old: Any, new: Any) -> Iterator[Change]:
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if _equal(a, b):
            continue
        pointer = f"/annotations/{key}"
        if key == "title":
            yield _change(
                tool,
                pointer,
                CompatClass.COSMETIC,
                codes.COMPAT_TITLE_CHANGED,
                f"annotations.title changed: {text_change(a, b)}",
                a,
                b,
            )
            continue
        default = HINT_DEFAULTS.get(key)
        if default is None or not all(v is None or isinstance(v, bool) for v in (a, b)):
            yield _change(
                tool,
                pointer,
                CompatClass.RISKY,
                codes.COMPAT_UNKNOWN_FIELD,
                f"annotations.{key} changed: {_shown(a)} -> {_shown(b)}",
                a,
                b,
            )
            continue
        was = default if a is None else a
        now = default if b is None else b
        if was == now:
            said = "stated" if a is None else "left out"
            yield _change(
                tool,
                pointer,
                CompatClass.COSMETIC,
                codes.COMPAT_HINT_RESTATED,
                f"{key} {said}, with MCP's default ({str(now).lower()})",
                a,
                b,
            )
        elif now == RISKIER[key]:
            yield _change(
                tool,
                pointer,
                CompatClass.RISKY,
                codes.COMPAT_HINT_RISKIER,
                f"{_flip(key, a, b, was, now)}: the tool says it is riskier",
                a,
                b,
            )
        else:
            yield _change(
                tool,
                pointer,
                CompatClass.COMPATIBLE,
                codes.COMPAT_HINT_SAFER,
                f"{_flip(key, a, b, was, now)}: the tool says it is safer",
                a,
                b,
            )


def _flip(key: str, a: Any, b: Any, was: bool, now: bool) -> str:
    """``readOnlyHint false (MCP's default) -> true``."""

    def said(given: Any, value: bool) -> str:
        return str(value).lower() + (" (MCP's default)" if given is None else "")

    return f"{key} {said(a, was)} -> {said(b, now)}"


def _shown(value: Any) -> str:
    from jsoncontract._json import short_repr
    from jsoncontract.masking import masked_value

    return short_repr(masked_value(value), 60)


def _extra(tool: str, old: Any, new: Any) -> Iterator[Change]:
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    from jsoncontract.pointer import escape_pointer_token

    for key in sorted(old.keys() | new.keys()):
        a, b = old.get(key), new.get(key)
        if not _equal(a, b):
            yield _change(
                tool,
                "/" + escape_pointer_token(key),
                CompatClass.RISKY,
                codes.COMPAT_UNKNOWN_FIELD,
                f"{key} changed: {_shown(a)} -> {_shown(b)}",
                a,
                b,
            )


def _schema_changes(tool: str, old: Any, new: Any, direction: Direction) -> Iterator[Change]:
    root = PART_ROOTS["input_schema" if direction is Direction.INPUT else "output_schema"]
    for raw in SchemaWalk(old, new).compare():
        yield _classed(tool, root, raw, direction)


def _classed(tool: str, root: str, raw: Raw, direction: Direction) -> Change:
    cls = raw.fixed or class_of(raw.effect, direction)
    where = "input" if direction is Direction.INPUT else "output"
    return Change(
        tool,
        root + raw.pointer,
        cls,
        raw.code,
        f"{where}: {raw.message}",
        raw.old,
        raw.new,
        direction,
        raw.effect,
    )


def _output(tool: str, old: Any, new: Any) -> Iterator[Change]:
    if old is None and new is None:
        return
    if old is None:
        yield _change(
            tool,
            "/outputSchema",
            CompatClass.COMPATIBLE,
            codes.COMPAT_OUTPUT_SCHEMA_ADDED,
            "outputSchema added: results are now promised a shape",
            None,
            new,
            Direction.OUTPUT,
            Effect.NARROWS,
        )
        return
    if new is None:
        yield _change(
            tool,
            "/outputSchema",
            CompatClass.BREAKING,
            codes.COMPAT_OUTPUT_SCHEMA_REMOVED,
            "outputSchema removed: results are no longer promised a shape",
            old,
            None,
            Direction.OUTPUT,
            Effect.WIDENS,
        )
        return
    yield from _schema_changes(tool, old, new, Direction.OUTPUT)


def _by_id(schema: Any) -> bool:
    """Whether a schema holds a ``$ref`` the comparison does not follow (by an ``$id``):
    a definition it reaches may change unseen, so such a change is not cosmetic."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and not ref.startswith("#"):
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _unexplained(
    tool: str, old: dict[str, Any], new: dict[str, Any], found: list[Change]
) -> Iterator[Change]:
    """A change for each difference between the parts that no change explains: under
    ``$defs`` (every use was compared through its ``$ref``s) cosmetic, else risky."""
    pointers = [c.pointer for c in found]
    for part, root in PART_ROOTS.items():
        if part in ("description", "title"):
            continue
        a, b = old.get(part), new.get(part)
        if _equal(a, b) or (part == "output_schema" and (a is None or b is None)):
            continue
        followed = not (_by_id(a) or _by_id(b))
        for difference in differences(a, b):
            pointer = root + difference.pointer
            if any(related(pointer, p) for p in pointers):
                continue
            tokens = difference.pointer.split("/")
            in_definitions = (
                followed
                and part.endswith("_schema")
                and any(t in _DEFINITIONS for t in tokens[1:2])
            )
            if in_definitions:
                change = _change(
                    tool,
                    pointer,
                    CompatClass.COSMETIC,
                    codes.COMPAT_DEFINITIONS_CHANGED,
                    f"{difference.pointer} {difference.kind}: no schema that is "
                    "used accepts anything else",
                    difference.before,
                    difference.after,
                )
            else:
                change = _change(
                    tool,
                    pointer,
                    CompatClass.RISKY,
                    codes.COMPAT_UNCLASSIFIED,
                    f"{difference.pointer or '/'} {difference.kind}, and no check classifies it",
                    difference.before,
                    difference.after,
                )
            pointers.append(pointer)
            yield change


def drift_classes(locked: Lock, current: Lock, findings: Sequence[Finding]) -> list[str]:
    """The class of each of ``pin --check``'s findings: a tool added is compatible, one
    removed breaking, and a change to a part takes the worst class of the changes
    ``compat`` finds at, within or around its pointer (risky when none does)."""
    from jsoncontract.pin import PinnedTool, as_pinned, digest

    changes: dict[str, list[Change]] = {}
    for file, tools in current.files.items():
        then = locked.files.get(file) or {}
        for name, tool in tools.items():
            old = then.get(name)
            if old is None:
                continue
            parts = as_pinned(tool.parts, old.parts)
            now = PinnedTool(parts, digest(parts))
            changes.setdefault(name, []).extend(compare_tools(name, old, now))
    part_of = {code: part for part, code in codes.PIN_CHANGED.items()}
    out = []
    for finding in findings:
        if finding.code == codes.PIN_TOOL_ADDED:
            out.append(CompatClass.COMPATIBLE.value)
            continue
        if finding.code == codes.PIN_TOOL_REMOVED:
            out.append(CompatClass.BREAKING.value)
            continue
        part = part_of.get(finding.code, "extra")
        pointer = PART_ROOTS[part] + (finding.path or "" if part != "description" else "")
        found = [
            c.cls
            for c in changes.get(finding.tool or "", [])
            if related(c.pointer, pointer) and (pointer or c.pointer in _extra_pointers(c))
        ]
        worst = max(found, key=lambda c: c.rank, default=CompatClass.RISKY)
        out.append(worst.value)
    return out


def _extra_pointers(change: Change) -> tuple[str, ...]:
    """A change to a member of the definition besides the parts (``extra``'s root is the
    definition itself, whose pointer is related to every change)."""
    return (change.pointer,) if change.code == codes.COMPAT_UNKNOWN_FIELD else ()
