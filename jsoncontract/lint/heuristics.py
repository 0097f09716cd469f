"""Reading intent from names: the words of an identifier, write verbs, value kinds.

Heuristics are how a linter finds what a schema does not say. They are kept in one place,
small and documented, so a false positive is easy to trace and suppress.
"""

from __future__ import annotations

import fnmatch
import re
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._json import json_type as _json_type

if TYPE_CHECKING:
    from jsoncontract.lint.context import ToolCtx

_WORD: Final = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

#: First (or last) words of tool names that change the world (DESIGN §4 name heuristic).
WRITE_VERBS: Final = frozenset(
    {
        "create", "update", "delete", "remove", "send", "pay", "charge", "refund", "transfer",
        "book", "cancel", "submit", "post", "publish", "write", "insert", "upsert", "set",
        "add", "modify", "patch", "put", "approve", "reject", "archive", "move", "rename",
        "assign", "invite", "purchase", "order", "schedule", "deploy", "drop", "destroy",
        "revoke", "grant", "close", "reopen", "merge", "restart", "terminate", "kill",
        "issue", "place", "register", "enroll", "subscribe", "unsubscribe", "upload",
        "email", "notify", "trigger", "execute", "commit", "apply", "disable", "enable",
    }
)  # fmt: skip
#: Write verbs that are not also common nouns, so they count at the end of a name too
#: (``ticket_create``, but not ``get_order`` or ``list_post``).
TRAILING_WRITE_VERBS: Final = WRITE_VERBS - frozenset(
    {"order", "post", "issue", "set", "add", "close", "email", "place", "move", "book",
     "charge", "drop", "kill", "put", "notify", "trigger", "apply", "commit", "merge"}
)  # fmt: skip
#: Verbs whose tools destroy or send something (a read-only hint on them is suspicious).
DESTRUCTIVE_VERBS: Final = frozenset(
    {
        "delete", "remove", "drop", "destroy", "purge", "truncate", "send", "pay", "charge",
        "refund", "transfer", "revoke", "terminate", "kill", "cancel", "wipe", "erase",
        "overwrite", "publish", "post", "email", "notify", "deploy", "execute",
    }
)  # fmt: skip


@lru_cache(maxsize=65536)
def words(name: str) -> tuple[str, ...]:
    """The lower-case words of an identifier: ``createOrderV2`` -> create, order, v, 2."""
    return tuple(w.lower() for w in _WORD.findall(name))


def last_word(name: str) -> str:
    """The last word of an identifier (``order_status`` -> ``status``)."""
    found = words(name)
    return found[-1] if found else ""


def folded(name: str) -> str:
    """An identifier without case and separators (``Idempotency-Key`` -> ``idempotencykey``)."""
    return "".join(words(name))


def write_verb(name: str, verbs: frozenset[str] = WRITE_VERBS) -> str | None:
    """The verb that makes a tool name read as a write, if any (first word, else last)."""
    found = words(name)
    if not found:
        return None
    if found[0] in verbs:
        return found[0]
    if len(found) > 1 and found[-1] in verbs and found[-1] in TRAILING_WRITE_VERBS:
        return found[-1]
    return None


def writes(tool: ToolCtx) -> tuple[bool | None, str]:
    """Whether a tool writes, and why we think so.

    The order of DESIGN §4: MCP annotations, then configuration, then the name. ``None``
    means nothing says either way.
    """
    settings = tool.settings.idempotency
    annotations = tool.contract.annotations or {}
    read_only = annotations.get("readOnlyHint")
    if read_only is True:
        return False, "its annotations say readOnlyHint: true"
    if read_only is False:
        return True, "its annotations say readOnlyHint: false"
    name = tool.name
    if any(fnmatch.fnmatchcase(name, p) for p in settings.write_tools):
        return True, "the configuration lists it under write_tools"
    if any(fnmatch.fnmatchcase(name, p) for p in settings.read_tools):
        return False, "the configuration lists it under read_tools"
    verb = write_verb(name)
    if verb is not None:
        return True, f"its name starts or ends with the verb {verb!r}"
    return None, "nothing says whether it writes"


def json_type(value: Any) -> str:
    """The JSON Schema type name of a value: as :func:`jsoncontract._json.json_type`, except
    that a float without a fractional part is an ``integer`` (as JSON Schema counts it)."""
    kind = _json_type(value)
    if kind == "number" and float(value).is_integer():
        return "integer"
    return kind


def matches_type(value: Any, types: frozenset[str]) -> bool:
    """Whether ``value`` is an instance of one of the JSON Schema ``types``."""
    kind = json_type(value)
    return kind in types or (kind == "integer" and "number" in types)


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema's ``enum`` and ``const`` see it: numbers by value (``1`` is
    ``1.0``), but a boolean is never a number (Python says ``True == 1``)."""
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if isinstance(x, bool) or isinstance(y, bool):
            if x is not y:
                return False
        elif isinstance(x, int | float) and isinstance(y, int | float):
            if x != y:
                return False
        elif isinstance(x, list) and isinstance(y, list):
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif isinstance(x, dict) and isinstance(y, dict):
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif type(x) is not type(y) or x != y:
            return False
    return True
