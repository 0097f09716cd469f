"""Tool pinning: a lock of every tool's canonical definition, and drift against it.

``jsoncontract pin`` writes, per tool file and tool, the SHA-256 of the canonical JSON
(sorted keys, no insignificant whitespace) of the five parts a model and a host rely on:
name, description, input schema, output schema and annotations, together with the parts
themselves, so the lock reads as a reviewed snapshot in a pull request. ``pin --check``
recomputes the hashes and, for every tool that changed, says which part and, inside a
schema, which JSON Pointer: a description edited after review, an enum value added, an
annotation flipped. It catches the "list changed, host cached the old schema" failure that
description-only pinning (mcp-scan hashes the description) misses.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract._files import find, positions_of, read_bytes, write_output
from jsoncontract.errors import InputError, NotThisKind, UsageError
from jsoncontract.lint.context import require_writable
from jsoncontract.masking import masked, masked_value
from jsoncontract.model import Finding, Severity, Source, ToolContract
from jsoncontract.pointer import escape_pointer_token
from jsoncontract.tools.loader import TOOL_SUFFIXES, load_tool_file

if TYPE_CHECKING:
    from jsoncontract._files import Positions
    from jsoncontract.settings import Config, ReportSettings

LOCK_VERSION: Final = 1
DEFAULT_LOCK: Final = "jsoncontract.lock"
PARTS: Final = ("name", "description", "input_schema", "output_schema", "annotations")
#: Parts hashed only when a tool has them: an MCP tool's own ``title``, and the other
#: members of its definition (``execution``, ``icons``, ``_meta``; OpenAI's ``strict``).
#: A lock writes them (``null`` when absent); one written before they were pinned has
#: none, and is compared without them.
OPTIONAL_PARTS: Final = ("title", "extra")
#: The members of an MCP tool definition that are parts of their own.
_MCP_MEMBERS: Final = frozenset(
    {"name", "title", "description", "inputSchema", "outputSchema", "annotations"}
)
#: Differences listed per changed part before the rest are counted.
MAX_SHOWN: Final = 10
#: The codes of a change to a part of a pinned tool.
_CHANGE_CODES: Final = frozenset(codes.PIN_CHANGED.values())
#: The compatibility classes a drift finding is given (``compat``'s), from the worst.
CLASS_NAMES: Final = ("breaking", "risky", "compatible", "cosmetic")


def canonical(value: Any) -> bytes:
    """Canonical JSON: sorted keys, no whitespace, UTF-8 (deep values via the stdlib).

    Raises:
        InputError: the value is nested too deeply to serialise.
    """
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except orjson.JSONEncodeError:  # nested deeper than orjson writes
        pass
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    except RecursionError:
        raise InputError("a tool definition is nested too deeply to pin") from None
    return text.encode()


def places_of(tool: ToolContract) -> dict[str, str]:
    """Where each pinned part of a tool is written in its file (for locating a change)."""
    body = tool.body_pointer if tool.body_pointer is not None else tool.source.pointer or ""
    places = {
        "description": body + "/description",
        "annotations": body + "/annotations",
        "title": body + "/title",
        "extra": body,
    }
    if tool.input_location is not None:
        places["input_schema"] = tool.input_location.pointer
    if tool.output_location is not None:
        places["output_schema"] = tool.output_location.pointer
    return places


def parts_of(tool: ToolContract) -> dict[str, Any]:
    """The pinned parts of a tool (the optional ones only when it has them)."""
    parts: dict[str, Any] = {
        "name": tool.name,
        "description": tool.description,
        "input_schema": tool.input_schema,
        "output_schema": tool.output_schema,
        "annotations": tool.annotations,
    }
    definition = tool.definition if tool.dialect == "mcp" else {}
    title = definition.get("title")
    if isinstance(title, str):
        parts["title"] = title
    extra = {k: v for k, v in definition.items() if k not in _MCP_MEMBERS and v is not None}
    if tool.strict is not None:
        extra["strict"] = tool.strict
    if extra:
        parts["extra"] = extra
    return parts


def digest(parts: dict[str, Any]) -> str:
    """SHA-256 (hex) of the canonical JSON of the parts (the optional ones it holds)."""
    pinned = {k: parts[k] for k in PARTS}
    pinned.update((k, parts[k]) for k in OPTIONAL_PARTS if parts.get(k) is not None)
    return hashlib.sha256(canonical(pinned)).hexdigest()


def as_pinned(parts: dict[str, Any], like: dict[str, Any]) -> dict[str, Any]:
    """``parts`` with only the optional parts ``like`` pinned (a lock written before a part
    was pinned is compared without it), an optional part ``like`` has and ``parts`` lacks
    kept as ``None``."""
    out = {k: parts[k] for k in PARTS}
    out.update((k, parts.get(k)) for k in OPTIONAL_PARTS if k in like)
    return out


@dataclass(slots=True)
class PinnedTool:
    """One tool as pinned: its parts and their hash (and, for a tool read from its file,
    where it and its parts are written)."""

    parts: dict[str, Any]
    sha256: str
    source: Source | None = None
    places: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """As written in the lock file: every part, an optional one the tool lacks as
        ``null`` (so that a lock says it was pinned, and one added later is a change)."""
        return {
            "sha256": self.sha256,
            **self.parts,
            **{k: self.parts.get(k) for k in OPTIONAL_PARTS},
        }


@dataclass(slots=True)
class Lock:
    """Pinned tools by file (relative to the lock's directory) and by name."""

    files: dict[str, dict[str, PinnedTool]] = field(default_factory=dict)
    texts: dict[str, Positions] = field(default_factory=dict, repr=False)
    #: lock key -> the path as the caller named it (for messages and positions)
    shown: dict[str, str] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """The lock file's content."""
        everything = {
            f: {name: tool.sha256 for name, tool in sorted(tools.items())}
            for f, tools in sorted(self.files.items())
        }
        return {
            "version": LOCK_VERSION,
            "sha256": hashlib.sha256(canonical(everything)).hexdigest(),
            "files": {
                f: {name: tool.to_dict() for name, tool in sorted(tools.items())}
                for f, tools in sorted(self.files.items())
            },
        }

    def count(self) -> int:
        """How many tools are pinned."""
        return sum(len(tools) for tools in self.files.values())


def _relative(path: Path, base: Path) -> str:
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def pin(
    paths: Iterable[str | Path],
    *,
    base: Path,
    tool_name: str | None = None,
    exclude: Sequence[str] = (),
    skipped: list[tuple[str, str]] | None = None,
) -> Lock:
    """Pin every tool of the named files and directories, less what ``exclude`` matches;
    paths are kept relative to ``base`` (the lock file's directory). A file found in a
    directory that holds no tool definition (a ``package.json``) is left out, and recorded
    in ``skipped`` as ``(file, why)``; named, it is an error.

    Raises:
        InputError, ToolLoadError: a file cannot be read, is not JSON, or is in no dialect;
            two tools of a file share a name.
    """
    lock = Lock()
    for found in find(paths, TOOL_SUFFIXES, what="tool definition", exclude=exclude):
        path = found.path
        pin_file(
            lock,
            _relative(path, base),
            str(path),
            read_bytes(path),
            tool_name=tool_name,
            named=found.named,
            skipped=skipped,
        )
    return lock


def pin_file(
    lock: Lock,
    key: str,
    name: str,
    data: bytes,
    *,
    tool_name: str | None = None,
    named: bool = True,
    skipped: list[tuple[str, str]] | None = None,
) -> None:
    """Pin the tools of one file's ``data`` into ``lock`` under ``key`` (``name``: the file
    as messages spell it). A file that holds no tool definition is an error when
    ``named``, else recorded in ``skipped``.

    Raises:
        InputError, ToolLoadError: as :func:`pin`.
    """
    index = positions_of(name, data)
    try:
        contracts = load_tool_file(name, data=data, tool_name=tool_name, positions=index)
    except NotThisKind as exc:
        if named:
            raise
        if skipped is not None:
            skipped.append((name, exc.message))
        return
    tools = lock.files.setdefault(key, {})
    lock.texts[key] = index
    lock.shown[key] = name
    require_writable(name, data, index)
    for tool in contracts:
        if tool.name in tools:
            first = tools[tool.name].source
            raise InputError(
                f"two tools are named {tool.name!r} (the first at line "
                f"{first.line if first else '?'}); the lock cannot tell them apart: "
                "rename one (lint reports it as JC005)",
                file=name,
                line=tool.source.line if tool.source else None,
            )
        parts = parts_of(tool)
        tools[tool.name] = PinnedTool(parts, digest(parts), tool.source, places_of(tool))


def write_lock(lock: Lock, path: Path) -> None:
    """Write the lock file (sorted, indented: reviewable in a diff).

    Raises:
        InputError: the file cannot be written.
    """
    text = json.dumps(lock.to_dict(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"
    write_output(path, text.encode("utf-8"), verb="write the lock")


def read_lock(path: Path) -> Lock:
    """Read a lock file.

    Raises:
        InputError: missing, unreadable, not JSON, or not a jsoncontract lock.
    """
    if not path.is_file():
        raise InputError("no lock file; run jsoncontract pin TOOLS... to create it", file=str(path))
    from jsoncontract._files import load_document

    document, _ = load_document(path)
    return lock_from(document, str(path))


def lock_from(document: Any, name: str) -> Lock:
    """The lock a parsed lock file holds (``name``: the file, for messages).

    Raises:
        InputError: not a jsoncontract lock, or an entry was edited.
    """
    if (
        not isinstance(document, dict)
        or document.get("version") != LOCK_VERSION
        or not isinstance(document.get("files"), dict)
    ):
        raise InputError(
            f"not a jsoncontract lock (version {LOCK_VERSION}); re-create it with jsoncontract pin",
            file=name,
        )
    lock = Lock()
    for key, tools in document["files"].items():
        if not isinstance(tools, dict):
            raise InputError(f"lock entry {key!r} is not an object", file=name)
        entry = lock.files.setdefault(key, {})
        for tool_name, pinned in tools.items():
            if not isinstance(pinned, dict) or not isinstance(pinned.get("sha256"), str):
                raise InputError(f"lock entry {key}#{tool_name} has no sha256", file=name)
            parts = {k: pinned.get(k) for k in PARTS}
            parts.update((k, pinned[k]) for k in OPTIONAL_PARTS if k in pinned)
            if digest(parts) != pinned["sha256"]:
                # the readable parts are what drift is shown against: a lock whose parts
                # were edited but whose hash was kept would hide a change
                raise InputError(
                    f"lock entry {key}#{tool_name} was edited: its parts no longer match its "
                    "sha256; re-create the lock with jsoncontract pin",
                    file=name,
                )
            entry[tool_name] = PinnedTool(parts, pinned["sha256"])
    return lock


# -- drift -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between two JSON values: where, what kind, before and after."""

    pointer: str
    kind: str  # added | removed | changed | items (a list of scalars changed)
    before: Any = None
    after: Any = None


def same(a: Any, b: Any) -> bool:
    """JSON equality: ``1``, ``1.0`` and ``true`` are three values (Python says equal)."""
    return a is b or (type(a) is type(b) and canonical(a) == canonical(b))


def differences(before: Any, after: Any) -> Iterator[Change]:
    """Every difference between two JSON values, shallowest first (no recursion)."""
    stack: list[tuple[str, Any, Any]] = [("", before, after)]
    while stack:
        pointer, old, new = stack.pop(0)
        if isinstance(old, dict) and isinstance(new, dict):
            for key in old:
                child = f"{pointer}/{escape_pointer_token(key)}"
                if key not in new:
                    yield Change(child, "removed", old[key], None)
                elif not same(old[key], new[key]):
                    stack.append((child, old[key], new[key]))
            for key in new:
                if key not in old:
                    yield Change(f"{pointer}/{escape_pointer_token(key)}", "added", None, new[key])
        elif isinstance(old, list) and isinstance(new, list):
            if _scalars(old) and _scalars(new):
                yield Change(pointer, "items", old, new)
                continue
            for index in range(max(len(old), len(new))):
                child = f"{pointer}/{index}"
                if index >= len(new):
                    yield Change(child, "removed", old[index], None)
                elif index >= len(old):
                    yield Change(child, "added", None, new[index])
                elif not same(old[index], new[index]):
                    stack.append((child, old[index], new[index]))
        else:
            yield Change(pointer, "changed", old, new)


def _scalars(values: list[Any]) -> bool:
    return all(not isinstance(v, dict | list) for v in values)


def _order(change: Change) -> tuple[tuple[int, int | str], ...]:
    return tuple((0, int(t)) if t.isdigit() else (1, t) for t in change.pointer.split("/")[1:])


def _items(before: list[Any], after: list[Any]) -> str:
    """``added "x"; removed "y"`` (or ``reordered``) between two lists of scalars."""
    old = {canonical(v) for v in before}
    new = {canonical(v) for v in after}
    added = [v for v in after if canonical(v) not in old]
    removed = [v for v in before if canonical(v) not in new]
    parts = []
    if added:
        parts.append("added " + ", ".join(_short(v, 40) for v in added[:5]))
    if removed:
        parts.append("removed " + ", ".join(_short(v, 40) for v in removed[:5]))
    return "; ".join(parts) or "reordered (or repeated values changed)"


def text_change(before: str | None, after: str | None, context: int = 24) -> str:
    """The changed middle of two texts, wdiff style: ``...ctx[-old-]{+new+}ctx...`` (a
    secret in either replaced by its kind and hash)."""
    if before is None or after is None:
        return f"{_short(before)} -> {_short(after)}"
    before, after = masked(before), masked(after)
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end = 0
    while (
        end < min(len(before), len(after)) - start
        and before[len(before) - 1 - end] == after[len(after) - 1 - end]
    ):
        end += 1
    head = before[max(0, start - context) : start]
    tail = before[len(before) - end : len(before) - end + context]
    old = before[start : len(before) - end]
    new = after[start : len(after) - end]
    out = ("..." if start > context else "") + head
    if old:
        out += f"[-{_cut(old)}-]"
    if new:
        out += f"{{+{_cut(new)}+}}"
    out += tail + ("..." if end > context else "")
    return out


def _cut(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _short(value: Any, limit: int = 60) -> str:
    """A value for a message, every secret in its strings replaced by its kind and hash."""
    from jsoncontract._json import short_repr

    return short_repr(masked_value(value), limit)


_PART_LABEL: Final = {
    "description": "description",
    "input_schema": "input schema",
    "output_schema": "output schema",
    "annotations": "annotations",
    "title": "title",
    "extra": "definition",
}


def drift(locked: Lock, current: Lock, *, base: Path) -> list[Finding]:
    """Findings for every tool added, removed or changed since the lock was written.

    Files of the lock that were not linted now count only when they no longer exist
    (a check of some files does not report the others as removed).
    """
    findings: list[Finding] = []
    for file in sorted(set(locked.files) | set(current.files)):
        now = current.files.get(file)
        then = locked.files.get(file)
        if now is None:
            assert then is not None
            if (base / file).exists():
                continue
            findings.extend(
                Finding(
                    codes.PIN_TOOL_REMOVED,
                    Severity.ERROR,
                    f"tool {name!r} was removed (its file {file} is gone)",
                    tool=name,
                    source=Source(file),
                    hint="run jsoncontract pin after reviewing the removal",
                )
                for name in sorted(then)
            )
            continue
        then = then or {}
        index = current.texts.get(file)
        shown = current.shown.get(file, file)
        for name, tool in now.items():
            old = then.get(name)
            if old is None:
                findings.append(
                    Finding(
                        codes.PIN_TOOL_ADDED,
                        Severity.ERROR,
                        f"tool {name!r} is not in the lock (new, or renamed)",
                        tool=name,
                        source=tool.source,
                        hint="review it, then run jsoncontract pin",
                    )
                )
            elif old.sha256 != tool.sha256 and not _unchanged(old, tool):
                findings.extend(_changed(shown, name, old, tool, index))
        findings.extend(
            Finding(
                codes.PIN_TOOL_REMOVED,
                Severity.ERROR,
                f"tool {name!r} was removed from {shown}",
                tool=name,
                source=Source(shown),
                hint="run jsoncontract pin after reviewing the removal",
            )
            for name in sorted(set(then) - set(now))
        )
    return findings


def _unchanged(old: PinnedTool, new: PinnedTool) -> bool:
    """Whether ``new`` has what ``old`` pinned (its other optional parts are not compared)."""
    return digest(as_pinned(new.parts, old.parts)) == old.sha256


def _changed(
    file: str, name: str, old: PinnedTool, new: PinnedTool, index: Positions | None
) -> Iterator[Finding]:
    for part in (*PARTS[1:], *OPTIONAL_PARTS):
        if part in OPTIONAL_PARTS and part not in old.parts:
            continue  # not pinned when the lock was written
        before, after = old.parts.get(part), new.parts.get(part)
        if canonical(before) == canonical(after):
            continue
        label = _PART_LABEL[part]
        code = codes.PIN_CHANGED[part]
        if part in ("description", "title"):
            what = "description" if part == "description" else "title"
            yield Finding(
                code,
                Severity.ERROR,
                f"tool {name!r}: the {what} changed: {text_change(before, after)}",
                tool=name,
                keyword=part,
                source=locate(file, index, new, part, ""),
                hint="review the new text (descriptions steer the model), then run jsoncontract pin"
                if part == "description"
                else "review the new title, then run jsoncontract pin",
            )
            continue
        changes = sorted(differences(before, after), key=_order)
        for change in changes[:MAX_SHOWN]:
            where = change.pointer or "/"
            if change.kind == "items":
                what = f"{where}: {_items(change.before, change.after)}"
            elif change.kind == "added":
                what = f"{where} was added: {_short(change.after)}"
            elif change.kind == "removed":
                what = f"{where} was removed (was {_short(change.before)})"
            elif isinstance(change.before, str) and isinstance(change.after, str):
                what = f"{where} changed: {text_change(change.before, change.after)}"
            else:
                what = f"{where} changed from {_short(change.before)} to {_short(change.after)}"
            yield Finding(
                code,
                Severity.ERROR,
                f"tool {name!r}: {label} {what}",
                path=change.pointer,
                tool=name,
                keyword=part,
                schema_path="#" + change.pointer if part.endswith("_schema") else None,
                source=locate(file, index, new, part, change.pointer),
                hint="review the change, then run jsoncontract pin",
            )
        if len(changes) > MAX_SHOWN:
            yield Finding(
                code,
                Severity.ERROR,
                f"tool {name!r}: {len(changes) - MAX_SHOWN} more changes in the {label}",
                tool=name,
                keyword=part,
                source=new.source,
            )


def locate(
    file: str, index: Positions | None, tool: PinnedTool, part: str, pointer: str
) -> Source | None:
    """The position of a changed node in the current file, as close as it can be found."""
    root = tool.places.get(part)
    if index is not None and root is not None and index.knows(root):
        position = index.position(root + pointer)
        if position is not None:
            return Source(file, position[0], position[1], root + pointer)
    return tool.source


@dataclass(frozen=True, slots=True)
class ChangedText:
    """A pinned text that changed (a description), in full before and after, and the words
    that changed (``word_diff``: ``[-old-]{+new+}`` around the words kept), every secret in
    them shown by kind and hash."""

    tool: str
    part: str
    before: str | None
    after: str | None

    @property
    def word_diff(self) -> str:
        """Every word of the texts, the removed ones in ``[-...-]``, the added in ``{+...+}``."""
        return word_diff(self.before or "", self.after or "")

    def to_dict(self) -> dict[str, Any]:
        """The change in the JSON report."""
        return {
            "tool": self.tool,
            "part": self.part,
            "before": self.before,
            "after": self.after,
            "word_diff": self.word_diff,
        }


def word_diff(before: str, after: str) -> str:
    """``the [-old-]{+new+} words`` between two texts, word by word (whitespace kept as
    single spaces)."""
    import difflib

    old, new = before.split(), after.split()
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            out.extend(old[i1:i2])
            continue
        if i2 > i1:
            out.append("[-" + " ".join(old[i1:i2]) + "-]")
        if j2 > j1:
            out.append("{+" + " ".join(new[j1:j2]) + "+}")
    return " ".join(out)


def changed_texts(locked: Lock, current: Lock) -> list[ChangedText]:
    """Every description that changed since the lock, in full (for the reports): the tool's
    own, and each one inside its input and output schemas (a property's, a prompt
    argument's), named by where it is (``input_schema/properties/tz/description``)."""
    out = []
    for file, tools in sorted(current.files.items()):
        then = locked.files.get(file) or {}
        for name, tool in tools.items():
            old = then.get(name)
            if old is None or old.sha256 == tool.sha256 or _unchanged(old, tool):
                continue
            texts = _descriptions(old.parts)
            now = _descriptions(tool.parts)
            for part in sorted(texts.keys() | now.keys(), key=lambda p: (p != "description", p)):
                before, after = texts.get(part), now.get(part)
                if before != after:
                    out.append(
                        ChangedText(
                            name,
                            part,
                            masked(before) if before is not None else None,
                            masked(after) if after is not None else None,
                        )
                    )
    return out


def _descriptions(parts: dict[str, Any]) -> dict[str, str]:
    """The descriptions among a tool's pinned parts, by where each is: ``description``, and
    ``input_schema/<pointer>`` or ``output_schema/<pointer>`` for those in its schemas."""
    from jsoncontract.pointer import escape_pointer_token

    found: dict[str, str] = {}
    if isinstance(parts.get("description"), str):
        found["description"] = parts["description"]
    stack: list[tuple[str, Any]] = [
        (key, parts.get(key)) for key in ("input_schema", "output_schema")
    ]
    while stack:
        where, value = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                at = f"{where}/{escape_pointer_token(str(key))}"
                if key == "description" and isinstance(item, str):
                    found[at] = item
                else:
                    stack.append((at, item))
        elif isinstance(value, list):
            stack.extend((f"{where}/{i}", item) for i, item in enumerate(value))
    return found


@dataclass(frozen=True, slots=True)
class DriftReport:
    """What ``pin --check`` found: the tools as they are now against one lock, and each
    changed text in full."""

    lock: str
    tools: int
    files: int
    findings: list[Finding]
    changes: list[ChangedText] = field(default_factory=list)
    #: the compatibility class of each finding (``breaking``, ``risky``...), in order
    classes: tuple[str, ...] = ()

    def summary(self) -> dict[str, Any]:
        """The ``summary`` object of the JSON report (with the findings of each class)."""
        findings = self.findings
        out: dict[str, Any] = {
            "tools": self.tools,
            "files": self.files,
            "changed": len({f.tool for f in findings if f.code in _CHANGE_CODES}),
            "added": sum(1 for f in findings if f.code == codes.PIN_TOOL_ADDED),
            "removed": sum(1 for f in findings if f.code == codes.PIN_TOOL_REMOVED),
            "lock": self.lock,
        }
        if self.classes:
            out["classes"] = {c: self.classes.count(c) for c in CLASS_NAMES}
        return out

    def class_of(self, index: int) -> str | None:
        """The class of the finding at ``index`` (``None``: not classed)."""
        return self.classes[index] if index < len(self.classes) else None

    def to_dict(self) -> dict[str, Any]:
        """The whole JSON report (each finding with its ``class``)."""
        findings = []
        for index, finding in enumerate(self.findings):
            entry = finding.to_dict()
            cls = self.class_of(index)
            if cls is not None:
                entry["class"] = cls
            findings.append(entry)
        return {
            "version": 1,
            "summary": self.summary(),
            "findings": findings,
            "changes": [c.to_dict() for c in self.changes],
        }


#: Gives each drift finding its class: ``(locked, current, findings) -> classes``
#: (:func:`jsoncontract.compat.drift_classes`).
Classifier = Callable[[Lock, Lock, Sequence[Finding]], Sequence[str]]


def check_lock(
    lock_path: Path, current: Lock, *, base: Path, classify: Classifier | None = None
) -> DriftReport:
    """``current`` against the lock file at ``lock_path``, each finding classed by
    ``classify`` when given.

    Raises:
        InputError: the lock file is missing or unreadable.
    """
    locked = read_lock(lock_path)
    findings = drift(locked, current, base=base)
    changes = changed_texts(locked, current)
    classes = tuple(classify(locked, current, findings)) if classify is not None else ()
    return DriftReport(
        str(lock_path), current.count(), len(current.files), findings, changes, classes
    )


@dataclass(frozen=True, slots=True)
class PinSettings:
    """Everything a ``pin`` run needs: the tool files, the lock file (paths in it are
    relative to its directory), whether to check instead of writing, and the report of a
    check. No paths: ``--changed`` was given and no changed file is a tool file or the lock
    (there is nothing to check)."""

    paths: tuple[Path, ...]
    lock: Path
    report: ReportSettings
    check: bool = False
    tool: str | None = None
    exclude: tuple[str, ...] = ()

    @property
    def base(self) -> Path:
        """The directory the lock's file paths are relative to."""
        return self.lock.parent


def pin_settings(
    cfg: Config,
    *,
    paths: Sequence[Path] | None = None,
    lock: Path | None = None,
    check: bool = False,
    tool: str | None = None,
    format: str | None = None,
    output: Path | None = None,
    color: bool | None = None,
    changed: bool = False,
    exclude: Sequence[str] | None = None,
) -> PinSettings:
    """The settings of a ``pin`` run: the lock is ``--lock``, else the config's
    ``[pin] lock``, else :data:`DEFAULT_LOCK` next to the config (or here). With
    ``changed`` (``--check --changed``, as a pre-commit hook runs it), ``paths`` are the
    changed files: the config's tools are checked when one of them or the lock changed,
    else nothing is.

    Raises:
        UsageError: no tool definitions, or ``changed`` without ``check`` or without the
            config's tools.
    """
    from jsoncontract.settings import (
        ReportOptions,
        ReportSettings,
        among,
        exclude_patterns,
        report_root,
        tool_paths,
    )

    configured = cfg.section("pin").get("lock")
    lock_path = lock or (cfg.root / configured if configured else cfg.root / DEFAULT_LOCK)
    if changed:
        if not check:
            raise UsageError("--changed goes with --check (pin writes the whole lock)")
        tools = tuple(cfg.paths(cfg.get("tools")))
        if not tools:
            raise UsageError("--changed needs tools = [...] in the config: the tools to check")
        targets = tools if among(list(paths or ()), [*tools, lock_path]) else ()
    else:
        targets = tool_paths(paths, cfg, how="name files or directories")
    options = ReportOptions(color, root=report_root(cfg))
    report = ReportSettings(format=format or "text", output=output, options=options)
    return PinSettings(targets, lock_path, report, check, tool, exclude_patterns(exclude, cfg))
