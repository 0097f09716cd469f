"""Trace-level idempotency checks over all calls of one run.

A *write* tool's call should carry an idempotency key, so that a retry cannot write twice.
Over a whole run (a JSONL trace, or several captures) this tracker reports:

- ``business.idempotency.conflict`` (error): a key seen before with *different* arguments;
  the server will either refuse the call or silently drop the change;
- ``business.idempotency.missing_key`` (warning): a write call without a key, when the
  tool's schema has a key field (a tool without any key field is reported once);
- ``business.idempotency.double_write`` (warning): the same write, with the same arguments
  and no key, seen again under another call id: a probable double write.

Calls are compared within one hop: the model's call, the MCP request and the downstream
body of one logical call are the same write seen three times, not three writes.

Which tools write: MCP annotations first (``readOnlyHint``; ``destructiveHint`` or
``idempotentHint`` only describe writes), then ``write_tools`` / ``read_tools`` in the
config, then the tool's name (a verb such as create, update, delete, send, pay, transfer).
A tool annotated ``idempotentHint: true`` is safe to repeat, so only conflicts are checked.

Memory grows with the number of distinct keys, not with the payloads: each entry is two
integers (a 64-bit hash of hop, tool and key; the arguments' 64-bit hash packed with where
they were first seen), and past ``memory_mb`` (64 MB by default, half for keys and half for
key-less writes) entries move to a file in the temporary directory
(:class:`~jsoncontract.business.keyindex.KeyIndex`), so ten million keys run in bounded memory.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import orjson

from jsoncontract import codes
from jsoncontract.business.keyindex import KeyIndex
from jsoncontract.model import Finding, Severity, Stage
from jsoncontract.pointer import join_pointer

if TYPE_CHECKING:
    from jsoncontract.model import ToolCall, ToolContract

#: Argument names that hold an idempotency key, in order of preference.
DEFAULT_KEY_FIELDS: Final = (
    "idempotency_key",
    "idempotencyKey",
    "idempotency-key",
    "Idempotency-Key",
    "request_id",
    "requestId",
    "client_request_id",
    "clientRequestId",
    "dedupe_key",
    "dedup_key",
)

#: Verbs that make a tool name read as a write.
# fmt: off
WRITE_VERBS: Final = frozenset((
    "create", "update", "delete", "remove", "send", "pay", "transfer", "post", "put", "patch",
    "insert", "upsert", "set", "add", "write", "cancel", "refund", "charge", "book", "submit",
    "place", "publish", "upload", "move", "rename", "archive", "approve", "reject", "assign",
    "invite", "register", "schedule", "execute", "run", "trigger", "purchase", "order", "issue",
    "grant", "revoke", "reset", "replace", "merge", "close", "open", "enable", "disable",
))
#: Verbs that make a tool name read as a read, when they come first.
READ_VERBS: Final = frozenset((
    "get", "list", "search", "find", "read", "fetch", "query", "describe", "lookup", "count",
    "show", "view", "check", "validate", "preview", "estimate", "quote", "calculate",
    "compute", "resolve", "browse", "download", "export",
))
# fmt: on

_WORDS: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_LINE_BITS: Final = 40
_FILE_BITS: Final = 24


def name_writes(name: str) -> bool | None:
    """The name heuristic: ``True`` (write), ``False`` (read) or ``None`` (no verb found)."""
    words = [w.lower() for w in _WORDS.findall(name)]
    if not words:
        return None
    if words[0] in READ_VERBS:
        return False
    if any(w in WRITE_VERBS for w in words):
        return True
    if any(w in READ_VERBS for w in words):
        return False
    return None


@dataclass(frozen=True, slots=True)
class IdempotencySettings:
    """How the trace-level checks behave. A severity of ``None`` turns that check off."""

    enabled: bool = True
    key_fields: tuple[str, ...] = DEFAULT_KEY_FIELDS
    write_tools: frozenset[str] = frozenset()
    read_tools: frozenset[str] = frozenset()
    missing_key: Severity | None = Severity.WARNING
    conflict: Severity | None = Severity.ERROR
    double_write: Severity | None = Severity.WARNING
    memory_mb: float = 64

    @classmethod
    def from_config(cls, table: dict[str, Any]) -> IdempotencySettings:
        """Settings from the ``[business.idempotency]`` config table (``key_names``, or
        its deprecated old name ``key_fields``).

        Raises:
            ConfigError: both ``key_names`` and ``key_fields`` are given.
        """
        if "key_names" in table and "key_fields" in table:
            from jsoncontract.errors import ConfigError

            raise ConfigError(
                "[business.idempotency] sets both key_names and key_fields (its old name): "
                "keep key_names only"
            )

        def severity(key: str, default: Severity | None) -> Severity | None:
            value = table.get(key)
            if value is None:
                return default
            return None if value == "off" else Severity(value)

        return cls(
            enabled=bool(table.get("enabled", True)),
            key_fields=tuple(table.get("key_names", table.get("key_fields", DEFAULT_KEY_FIELDS))),
            write_tools=frozenset(table.get("write_tools", ())),
            read_tools=frozenset(table.get("read_tools", ())),
            missing_key=severity("missing_key", Severity.WARNING),
            conflict=severity("conflict", Severity.ERROR),
            double_write=severity("double_write", Severity.WARNING),
            memory_mb=float(table.get("memory_mb", 64)),
        )


class KeyRecord(NamedTuple):
    """What the idempotency checks keep of one write call (see
    :meth:`IdempotencyTracker.prepare`): small, and cheap to send between processes."""

    hop: str
    key_field: str
    key: str | None
    digest: int
    call_tag: int  # a hash of the call id (0: none), to tell a call captured twice
    file: str
    line: int


@dataclass(frozen=True, slots=True)
class WriteKind:
    """How a tool was classified: whether it writes, whether repeats are harmless, why."""

    writes: bool
    idempotent: bool
    because: str
    key_field: str | None  # the key field its schema declares, if any


@dataclass(slots=True)
class IdempotencyTracker:
    """Follows write calls across a run (stateful: one tracker per run)."""

    settings: IdempotencySettings = field(default_factory=IdempotencySettings)
    _kinds: dict[str, WriteKind] = field(default_factory=dict)
    _keys: KeyIndex = field(init=False)
    _writes: KeyIndex = field(init=False)
    _files: list[str] = field(default_factory=list)
    _file_ids: dict[str, int] = field(default_factory=dict)
    _reported_keyless: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        half = int(self.settings.memory_mb * 1024 * 1024 / 2)
        self._keys = KeyIndex(half)
        self._writes = KeyIndex(half)

    def close(self) -> None:
        """Release the index (and its file, when it spilled to disk)."""
        self._keys.close()
        self._writes.close()

    def reported_keyless(self, tools: set[str]) -> None:
        """Take ``tools`` as already reported for writing without a key (a replay of one
        call of a run that judged their first key-less write elsewhere)."""
        self._reported_keyless = tools

    def classify(self, tool: ToolContract) -> WriteKind:
        """Whether ``tool`` writes (cached per tool)."""
        kind = self._kinds.get(tool.name)
        if kind is None:
            kind = self._kinds[tool.name] = self._classify(tool)
        return kind

    def _classify(self, tool: ToolContract) -> WriteKind:
        settings = self.settings
        notes = tool.annotations or {}
        idempotent = notes.get("idempotentHint") is True
        properties = tool.input_schema.get("properties")
        declared = properties if isinstance(properties, dict) else {}
        key_field = next((k for k in settings.key_fields if k in declared), None)
        read_only = notes.get("readOnlyHint")
        if read_only is True:
            return WriteKind(False, idempotent, "MCP annotation readOnlyHint: true", key_field)
        if read_only is False:
            return WriteKind(True, idempotent, "MCP annotation readOnlyHint: false", key_field)
        if "destructiveHint" in notes or "idempotentHint" in notes:
            return WriteKind(True, idempotent, "MCP write annotations", key_field)
        if tool.name in settings.write_tools:
            return WriteKind(True, idempotent, "listed in write_tools", key_field)
        if tool.name in settings.read_tools:
            return WriteKind(False, idempotent, "listed in read_tools", key_field)
        guess = name_writes(tool.name)
        if guess:
            return WriteKind(True, idempotent, "its name reads as a write", key_field)
        return WriteKind(False, idempotent, "its name reads as a read", key_field)

    @property
    def size(self) -> int:
        """Entries held in the index (keys plus key-less writes)."""
        return len(self._keys) + len(self._writes)

    def observe(self, call: ToolCall, arguments: Any, tool: ToolContract) -> list[Finding]:
        """Record one schema-valid call and return what it reveals."""
        record = self.prepare(call, arguments, tool)
        return self.apply(record, tool) if record is not None else []

    def prepare(self, call: ToolCall, arguments: Any, tool: ToolContract) -> KeyRecord | None:
        """What :meth:`apply` needs of one schema-valid call, or ``None`` when the checks
        have nothing to follow in it. Pure: workers of a parallel run prepare the records
        of their calls, and the one tracker of the run applies them in input order."""
        if not self.settings.enabled or not isinstance(arguments, dict):
            return None
        kind = self.classify(tool)
        if not kind.writes:
            return None
        key_field, key = self.key_of(arguments)
        call_id = call.call_id
        return KeyRecord(
            call.hop.value if call.hop is not None else "",
            key_field,
            key,
            _digest(arguments),
            _hash64(call_id) | 1 if call_id is not None else 0,
            call.source.file,
            call.source.line or 0,
        )

    def apply(self, record: KeyRecord, tool: ToolContract) -> list[Finding]:
        """Record one prepared call, in input order, and return what it reveals."""
        hop, key_field, key, digest = record.hop, record.key_field, record.key, record.digest
        if key is None:
            return self._keyless(record, tool, self.classify(tool), hop, digest)
        if self.settings.conflict is None:
            return []
        slot = _hash64(f"{hop}\x00{tool.name}\x00{key}")
        packed = self._keys.get(slot)
        if packed is None:
            self._keys.add(slot, self._pack(digest, record))
            return []
        if packed >> (_LINE_BITS + _FILE_BITS) == digest:
            return []  # a retry with the same key and the same arguments: what keys are for
        where = self._unpack(packed)
        return [
            Finding(
                code=codes.BUSINESS_IDEMPOTENCY_CONFLICT,
                severity=self.settings.conflict,
                message=(
                    f"idempotency key {_quote(key)} was first used at {where} with different "
                    "arguments: the server will refuse this call or silently keep the first"
                ),
                path=join_pointer("", key_field),
                stage=Stage.BUSINESS,
                keyword="idempotency",
                hint="use a new key for a different request; reuse a key only to retry the "
                "identical request",
            )
        ]

    def _keyless(
        self, record: KeyRecord, tool: ToolContract, kind: WriteKind, hop: str, digest: int
    ) -> list[Finding]:
        settings = self.settings
        findings: list[Finding] = []
        if kind.idempotent:
            return findings
        missing = settings.missing_key
        if missing is not None:
            if kind.key_field is not None:
                findings.append(
                    Finding(
                        code=codes.BUSINESS_IDEMPOTENCY_MISSING_KEY,
                        severity=missing,
                        message=(
                            f"write call without {kind.key_field!r} ({tool.name} writes: "
                            f"{kind.because}); a retry of it may write twice"
                        ),
                        path="",
                        stage=Stage.BUSINESS,
                        keyword="idempotency",
                        hint=f"send a unique {kind.key_field} with every write and reuse it "
                        "only when retrying",
                    )
                )
            elif tool.name not in self._reported_keyless:
                self._reported_keyless.add(tool.name)
                fields = ", ".join(settings.key_fields[:4])
                findings.append(
                    Finding(
                        code=codes.BUSINESS_IDEMPOTENCY_MISSING_KEY,
                        severity=missing,
                        message=(
                            f"{tool.name} writes ({kind.because}) but its schema has no "
                            f"idempotency key field ({fields}...); retries cannot be told "
                            "from new writes (reported once per tool)"
                        ),
                        path="",
                        stage=Stage.BUSINESS,
                        keyword="idempotency",
                        hint="add a required idempotency_key to the tool's input schema, or "
                        "list the tool under read_tools if it does not write",
                    )
                )
        double = settings.double_write
        if double is None:
            return findings
        slot = _hash64(f"{hop}\x00{tool.name}") ^ digest
        call_tag = record.call_tag
        first = self._writes.get(slot)
        if first is None:
            self._writes.add(slot, (call_tag << 64) | self._pack(0, record))
            return findings
        packed, first_tag = first & ((1 << 64) - 1), first >> 64
        if call_tag and first_tag == call_tag:
            return findings  # the same call captured twice, not a second write
        findings.append(
            Finding(
                code=codes.BUSINESS_IDEMPOTENCY_DOUBLE_WRITE,
                severity=double,
                message=(
                    f"the same {tool.name} write, with the same arguments and no idempotency "
                    f"key, was already made at {self._unpack(packed)}: probable double write"
                ),
                path="",
                stage=Stage.BUSINESS,
                keyword="idempotency",
                hint="give each write an idempotency key so that a retry is recognised",
            )
        )
        return findings

    def key_of(self, arguments: dict[str, Any]) -> tuple[str, str | None]:
        """The first key field ``arguments`` fill, and its key as text (``("", None)``
        when none: a missing, empty, null or boolean value is no key)."""
        for name in self.settings.key_fields:
            value = arguments.get(name)
            if value is None or value == "" or isinstance(value, bool):
                continue
            if isinstance(value, str | int | float):
                return name, str(value)
        return "", None

    def _pack(self, digest: int, record: KeyRecord) -> int:
        file = record.file
        index = self._file_ids.get(file)
        if index is None:
            index = self._file_ids[file] = len(self._files)
            self._files.append(file)
        line = record.line
        return (
            (digest << (_LINE_BITS + _FILE_BITS))
            | ((index & ((1 << _FILE_BITS) - 1)) << _LINE_BITS)
            | (line & ((1 << _LINE_BITS) - 1))
        )

    def _unpack(self, packed: int) -> str:
        line = packed & ((1 << _LINE_BITS) - 1)
        index = (packed >> _LINE_BITS) & ((1 << _FILE_BITS) - 1)
        file = self._files[index] if index < len(self._files) else "?"
        return f"{file}:{line}" if line else file


def _hash64(text: str) -> int:
    return int.from_bytes(
        hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    )


def arguments_digest(arguments: Any) -> int:
    """A 64-bit hash of a call's arguments, independent of member order (what tells a
    repeated call from another one, here and in the checks over a run)."""
    return _digest(arguments)


def _digest(arguments: Any) -> int:
    """A 64-bit hash of the arguments, independent of member order."""
    try:
        data = orjson.dumps(arguments, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # nesting deeper than orjson writes, a lone surrogate, a huge integer
        return _digest_walked(arguments)
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest())


def _digest_walked(arguments: Any) -> int:
    """:func:`_digest` for what orjson will not write, walked without recursion (the
    same arguments always take the same path, so their hashes still agree)."""
    digest = hashlib.blake2b(digest_size=8)
    stack: list[Any] = [arguments]
    while stack:
        item = stack.pop()
        if isinstance(item, bytes):  # a key or a closing bracket pushed below
            digest.update(item)
        elif isinstance(item, dict):
            digest.update(b"{")
            stack.append(b"}")
            for key in sorted(item, reverse=True):
                stack.append(item[key])
                stack.append(repr(key).encode("utf-8", "surrogatepass") + b":")
        elif isinstance(item, list):
            digest.update(b"[")
            stack.append(b"]")
            stack.extend(reversed(item))
        else:
            digest.update(repr(item).encode("utf-8", "surrogatepass") + b",")
    return int.from_bytes(digest.digest())


def _quote(key: str) -> str:
    shown = key if len(key) <= 60 else key[:57] + "..."
    try:
        return orjson.dumps(shown).decode()
    except TypeError:  # a lone surrogate: escaped
        return json.dumps(shown)
