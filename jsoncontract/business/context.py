"""The ``context`` rules read: who is calling, with which role, for which tenant, and when.

It comes from three places, each overriding the keys of the one before: the config
(``[business.context]``), the command line (``--context '{"role": "ops"}'`` or
``--context @context.json``), and the capture itself (a trace record's ``"context"``).
``now``, when given, must be an RFC 3339 timestamp; rules see it as the ``now`` variable
(a timestamp), which otherwise is the moment the run started.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jsoncontract.errors import UsageError

#: The largest ``--context @FILE`` read (a context is a few fields; /dev/zero is endless).
MAX_CONTEXT_BYTES = 1024 * 1024


def parse_context(text: str) -> dict[str, Any]:
    """Read ``--context``: a JSON object, or ``@FILE`` holding one.

    Raises:
        UsageError: the file cannot be read, or the text is not a JSON object.
    """
    import orjson

    label = "--context"
    if text.startswith("@"):
        path = Path(text[1:])
        label = f"--context file {path}"
        from jsoncontract._files import read_bytes
        from jsoncontract.errors import InputError

        try:
            text = read_bytes(path, max_bytes=MAX_CONTEXT_BYTES).decode("utf-8")
        except InputError as exc:
            raise UsageError(f"{label}: {exc.message}") from None
        except UnicodeDecodeError:
            raise UsageError(f"{label}: not UTF-8 text") from None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise UsageError(
            f"{label} is not JSON ({exc}); give an object such as "
            '\'{"role": "ops", "tenant": "acme"}\' or @context.json'
        ) from None
    if not isinstance(value, dict):
        raise UsageError(f"{label} must be a JSON object, not a {type(value).__name__}")
    check_now(value, label)
    return value


def check_now(context: Mapping[str, Any], label: str) -> None:
    """Reject a ``now`` that is not an RFC 3339 timestamp.

    Raises:
        UsageError: naming where the context came from.
    """
    if "now" in context and parse_now(context["now"]) is None:
        raise UsageError(
            f"{label}: now must be an RFC 3339 timestamp such as "
            f'"2025-10-31T12:00:00Z", not {context["now"]!r}'
        )


def parse_now(value: Any) -> datetime.datetime | None:
    """An RFC 3339 timestamp (``Z`` or an offset; a bare date means midnight UTC), or ``None``."""
    if not isinstance(value, str):
        return None
    try:
        moment = datetime.datetime.fromisoformat(value)
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=datetime.UTC)


def merge(*layers: Mapping[str, Any] | None) -> dict[str, Any]:
    """Later layers override earlier ones, key by key (top level only)."""
    out: dict[str, Any] = {}
    for layer in layers:
        if layer:
            out.update(layer)
    return out
