"""YAML documents read as JSON values, with the line and column of every node.

Tool definitions, captures and OpenAPI documents are often written in YAML. They are read
with PyYAML's safe composer (no tags that build objects, no code): the node tree is turned
into JSON values by hand, remembering where each node starts, so a finding in a YAML file
says its line and column exactly as one in a JSON file does.

What JSON cannot say is decided here, once: only the JSON types come out (timestamps and
other scalars stay the strings they were written as, ``1e3`` is a number, ``yes`` is the
string ``"yes"``: YAML 1.2's core schema); a key is the text it was written as (``200:``
is ``"200"``); a key written twice, ``.nan``/``.inf`` and integers beyond 64 bits come back
as :class:`~jsoncontract.model.Anomaly` values, as :func:`jsoncontract._json.load` reports
them. Anchors and aliases are followed, but a document whose aliases expand to more than
:data:`MAX_NODES` nodes (a "billion laughs") is refused. PyYAML is imported on first use.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.errors import InputError
from jsoncontract.model import Anomaly
from jsoncontract.pointer import escape_pointer_token

if TYPE_CHECKING:
    from collections.abc import Iterator

YAML_SUFFIXES: Final = (".yaml", ".yml")
#: Nodes a document may expand to (aliases counted each time they are used).
MAX_NODES: Final = 1_000_000
#: Nesting deeper than this is refused (JSON's parsers stop at 1024 too).
MAX_DEPTH: Final = 1024
_INT64_MIN: Final = -(2**63)
_UINT64_MAX: Final = 2**64 - 1
# YAML 1.2 core schema: what a plain scalar is when it is not a string
_NULL: Final = re.compile(r"^(?:~|null|Null|NULL|)$")
_BOOL: Final = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_INT: Final = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT: Final = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_SPECIAL: Final = re.compile(r"^(?:[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_TAGS: Final = "tag:yaml.org,2002:"
_STR: Final = _TAGS + "str"
_PLAIN: Final = "tag:jsoncontract,2025:plain"
_COLLECTIONS: Final = frozenset({_TAGS + "map", _TAGS + "seq", _TAGS + "omap", "!"})


def is_yaml(name: str) -> bool:
    """Whether a file name says YAML (``.yaml``, ``.yml``)."""
    return name.lower().endswith(YAML_SUFFIXES)


@dataclass(slots=True)
class YamlPositions:
    """Where each node of a YAML document starts: the same questions a
    :class:`~jsoncontract._locate.PositionIndex` answers for JSON."""

    starts: dict[str, tuple[int, int]] = field(default_factory=dict)
    repeated: int = 0

    @property
    def repeated_keys(self) -> int:
        """How many mapping keys repeat a key of their mapping."""
        return self.repeated

    def knows(self, pointer: str) -> bool:
        """Whether the node at ``pointer`` itself is in the document."""
        return pointer in self.starts

    def position(self, pointer: str) -> tuple[int, int] | None:
        """1-based (line, column) of the node at ``pointer``, else of its closest ancestor."""
        probe = pointer
        while True:
            found = self.starts.get(probe)
            if found is not None:
                return found
            if not probe:
                return None
            probe = probe[: probe.rfind("/")]


@dataclass(frozen=True, slots=True)
class YamlDocument:
    """One YAML document: its JSON value, what JSON would lose, and where nodes are.
    ``line`` is where the document starts (several can share a file)."""

    value: Any
    anomalies: tuple[Anomaly, ...]
    positions: YamlPositions
    line: int = 1


def load_yaml(data: bytes, *, name: str) -> list[YamlDocument]:
    """Every document of a YAML stream (one for most files).

    Raises:
        InputError: not YAML (with the line and column), a tag that builds no JSON value,
            a key that is not a scalar, aliases that expand too far, or nesting too deep.
    """
    return list(_load(data, name))


@lru_cache(maxsize=8)  # the tool loader and lint read the same file
def _load(data: bytes, name: str) -> tuple[YamlDocument, ...]:
    import yaml

    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})", file=name
        ) from None
    try:
        nodes = list(yaml.compose_all(text, Loader=_loader()))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = exc.problem or exc.context or "invalid YAML"
        raise InputError(
            f"not YAML: {problem}",
            file=name,
            line=mark.line + 1 if mark else None,
            column=mark.column + 1 if mark else None,
        ) from None
    except yaml.YAMLError as exc:
        raise InputError(f"not YAML: {exc}", file=name) from None
    out = []
    for node in nodes:
        if node is not None and _expanded(node, {}) > MAX_NODES:
            mark = node.start_mark
            raise InputError(
                f"the document expands to more than {MAX_NODES:,} nodes (anchors and aliases "
                "used over and over); refusing to read it",
                file=name,
                line=mark.line + 1,
                column=mark.column + 1,
            )
        builder = _Builder(name)
        value = builder.build(node, "", 0)
        out.append(
            YamlDocument(
                value,
                tuple(builder.anomalies),
                builder.positions,
                node.start_mark.line + 1 if node is not None else 1,
            )
        )
    return tuple(out)


def _expanded(node: Any, sizes: dict[int, int]) -> int:
    """How many nodes ``node`` becomes once every alias is followed (each shared node is
    counted once per use, but measured once), without building anything; an alias inside
    its own anchor counts as too many."""
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(node, False)]
    while stack:
        item, done = stack.pop()
        key = id(item)
        children = _children(item)
        if done:
            open_.discard(key)
            sizes[key] = min(1 + sum(sizes[id(c)] for c in children), MAX_NODES + 1)
            continue
        if key in sizes:
            continue
        if key in open_:  # a node inside itself: it never ends
            return MAX_NODES + 1
        open_.add(key)
        stack.append((item, True))
        for child in children:
            if id(child) in open_:
                return MAX_NODES + 1
            if id(child) not in sizes:
                stack.append((child, False))
    return sizes[id(node)]


def _children(node: Any) -> list[Any]:
    value = node.value
    if not isinstance(value, list):
        return []
    if value and isinstance(value[0], tuple):  # a mapping's (key, value) pairs
        return [part for pair in value for part in pair]
    return value


@lru_cache(maxsize=1)
def _loader() -> Any:
    """A composer that builds nothing and resolves no type: plain scalars are marked as
    such, for the builder."""
    import yaml

    class Loader(yaml.SafeLoader):  # type: ignore[misc]
        pass

    # every plain scalar gets one tag of its own: the builder reads it with YAML 1.2's
    # rules, and tells it from an explicit !!str
    Loader.yaml_implicit_resolvers = {None: [(_PLAIN, re.compile(".*", re.DOTALL))]}
    return Loader


class _Builder:
    """Turns composed nodes into JSON values, recording positions and anomalies."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.positions = YamlPositions()
        self.anomalies: list[Anomaly] = []
        self.nodes = 0

    def fail(self, message: str, node: Any) -> InputError:
        mark = node.start_mark
        return InputError(message, file=self.name, line=mark.line + 1, column=mark.column + 1)

    def build(self, node: Any, pointer: str, depth: int) -> Any:
        import yaml

        if node is None:  # an empty document
            return None
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise self.fail(
                f"the document expands to more than {MAX_NODES:,} nodes (anchors and aliases "
                "used over and over); refusing to read it",
                node,
            )
        if depth > MAX_DEPTH:
            raise self.fail(f"nested more than {MAX_DEPTH} levels deep", node)
        mark = node.start_mark
        self.positions.starts.setdefault(pointer, (mark.line + 1, mark.column + 1))
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node, pointer)
        if node.tag not in _COLLECTIONS:
            raise self.fail(f"the tag {node.tag} builds no JSON value", node)
        if isinstance(node, yaml.SequenceNode):
            return [
                self.build(item, f"{pointer}/{i}", depth + 1) for i, item in enumerate(node.value)
            ]
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in self.members(node):
                if not isinstance(key_node, yaml.ScalarNode):
                    raise self.fail(
                        "a mapping key is not a scalar; JSON keys are strings", key_node
                    )
                key = str(key_node.value)
                child = f"{pointer}/{escape_pointer_token(key)}"
                if key in out:
                    self.positions.repeated += 1
                    self.anomalies.append(
                        Anomaly("duplicate_key", child, f"key {key!r} appears more than once")
                    )
                    out.pop(key)  # the last one wins, and keeps its place
                key_mark = key_node.start_mark
                self.positions.starts[child] = (key_mark.line + 1, key_mark.column + 1)
                out[key] = self.build(value_node, child, depth + 1)
            return out
        raise self.fail(f"a YAML node of kind {type(node).__name__}", node)  # pragma: no cover

    def members(self, node: Any) -> Iterator[tuple[Any, Any]]:
        """The key/value pairs of a mapping, merge keys (``<<: *base``) expanded first."""
        import yaml

        merged: list[tuple[Any, Any]] = []
        own: list[tuple[Any, Any]] = []
        for key_node, value_node in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge" or (
                isinstance(key_node, yaml.ScalarNode)
                and key_node.value == "<<"
                and key_node.style is None
            ):
                sources = (
                    value_node.value if isinstance(value_node, yaml.SequenceNode) else [value_node]
                )
                for source in sources:
                    if not isinstance(source, yaml.MappingNode):
                        raise self.fail(
                            "a merge key (<<) takes a mapping or a list of them", source
                        )
                    merged.extend(self.members(source))
            else:
                own.append((key_node, value_node))
        if merged:
            keys = {k.value for k, _ in own if isinstance(k, yaml.ScalarNode)}
            seen: set[str] = set()
            for key_node, value_node in merged:
                if key_node.value not in keys and key_node.value not in seen:
                    seen.add(key_node.value)
                    yield key_node, value_node
        yield from own

    def scalar(self, node: Any, pointer: str) -> Any:
        """A scalar: quoted and block scalars are strings, plain ones are read with YAML
        1.2's core schema, explicit tags of the JSON types are honoured."""
        tag, text = node.tag, node.value
        if tag == _PLAIN:
            return self.plain(text, pointer, node)
        if tag in (_STR, "!"):
            return text
        kind = tag.removeprefix(_TAGS) if tag.startswith(_TAGS) else None
        if kind in ("str", "timestamp", "binary"):
            return text
        if kind in ("null", "bool", "int", "float"):
            value = self.plain(text, pointer, node)
            wanted = {"null": type(None), "bool": bool, "int": int, "float": float}[kind]
            if kind == "float" and type(value) is int:
                return float(value)
            if type(value) is wanted:
                return value
            raise self.fail(f"{text!r} is no {kind}", node)
        raise self.fail(f"the tag {tag} builds no JSON value", node)

    def plain(self, text: str, pointer: str, node: Any) -> Any:
        """A plain scalar under YAML 1.2's core schema."""
        if _NULL.match(text):
            return None
        if _BOOL.match(text):
            return text.lower() == "true"
        if _INT.match(text):
            if text.startswith("0o"):
                number = int(text[2:], 8)
            elif text.startswith("0x"):
                number = int(text[2:], 16)
            else:
                number = int(text)
            if not _INT64_MIN <= number <= _UINT64_MAX:
                self.anomalies.append(
                    Anomaly("big_integer", pointer, f"integer {number} does not fit in 64 bits")
                )
            return number
        if _SPECIAL.match(text):
            self.anomalies.append(Anomaly("nan_infinity", pointer, f"{text} is not a JSON number"))
            return float(text.lstrip("+").replace(".", "", 1).lower())
        if _FLOAT.match(text):
            return float(text)
        return text


__all__ = ["MAX_NODES", "YAML_SUFFIXES", "YamlDocument", "YamlPositions", "is_yaml", "load_yaml"]
