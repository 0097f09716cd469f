"""The trace ``mcp record`` writes and ``mcp replay`` reads: JSON Lines, one frame per line.

Every line is an object with ``"trace": "mcp"``. The first says where the trace comes from;
each frame line holds the direction, the time and the frame itself, spliced in byte for byte
(a frame written over several lines is spliced on one, its line breaks, whitespace between
tokens, made spaces; a frame that is not JSON is kept as ``text``, or as ``text_base64``
when it is not UTF-8; a frame longer than ``--max-frame`` is passed on and recorded as a
``too_large`` event with its size):

.. code-block:: json

    {"trace": "mcp", "event": "start", "version": 1, "time": "2026-12-01T09:30:00.000000Z",
     "server": "python server.py", "transport": "stdio"}
    {"trace": "mcp", "seq": 1, "time": "...", "ms": 0.412, "from": "client", "frame": {...}}
    {"trace": "mcp", "seq": 2, "time": "...", "ms": 3.108, "from": "server", "frame": {...}}
    {"trace": "mcp", "seq": 3, "time": "...", "ms": 9.5, "from": "server",
     "text": "Loading model..."}
    {"trace": "mcp", "event": "exit", "time": "...", "code": 0}

``ms`` counts from the start of the recording. A frame changed by an injected fault carries
``fault`` (the rule), the frame as delivered, and the server's frame as ``original``; a frame
withheld (an injected timeout) has ``"delivered": false``; a frame the proxy made up (a
``list_changed`` notification) has ``"injected": true``. A trace ``mcp guard`` writes also marks
each decision (``"guard": {...}``), has frames ``"from": "guard"`` (those delivered in place
of a server's frame say which: ``"replaces": SEQ``) and ``tools`` events (the tool list it
enforced); see :mod:`jsoncontract.live.guard.session`.

:func:`read_frames` reads these traces, and also plain logs of JSON-RPC messages, one per
line, as other recording proxies write them.
"""

from __future__ import annotations

import base64
import os
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from time import perf_counter
from typing import IO, Any, Final

import orjson

from jsoncontract._json import is_document
from jsoncontract.errors import InputError

TRACE_KEY: Final = "trace"
TRACE_NAME: Final = "mcp"
TRACE_VERSION: Final = 1
#: The directions a frame travels (a frame ``mcp guard`` made comes from the guard).
CLIENT: Final = "client"
SERVER: Final = "server"
GUARD: Final = "guard"


def now_iso() -> str:
    """The current UTC time, ISO 8601 with microseconds."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class TraceWriter:
    """Appends trace lines to a file, safely from several threads.

    Arguments:
        path: the trace file (created, or appended to).
        server: the server's label (never a credential).
        transport: ``stdio`` or ``http``.

    Raises:
        InputError: the file cannot be opened.
    """

    def __init__(self, path: Path, *, server: str, transport: str) -> None:
        try:
            self._file: IO[bytes] = path.open("ab")
        except OSError as exc:
            raise InputError(
                f"cannot write the trace: {exc.strerror or exc}", file=str(path)
            ) from None
        self.path = path
        self._lock = threading.Lock()
        self._seq = 0
        self._start = perf_counter()
        self._closed = False
        self._write_line(
            {
                TRACE_KEY: TRACE_NAME,
                "event": "start",
                "version": TRACE_VERSION,
                "time": now_iso(),
                "server": server,
                "transport": transport,
                "pid": os.getpid(),
            }
        )

    def _write_line(self, record: dict[str, Any], frame: bytes | None = None, key: str = "frame",
                    original: bytes | None = None) -> None:  # fmt: skip
        head = orjson.dumps(record)[:-1]
        parts = [head]
        if frame is not None:
            parts.append(_member(key, frame))
        if original is not None:
            parts.append(_member("original", original))
        line = b"".join(parts) + b"}\n"
        with self._lock:
            if self._closed:
                return
            self._file.write(line)
            self._file.flush()

    def frame(
        self,
        direction: str,
        data: bytes,
        *,
        fault: str | None = None,
        original: bytes | None = None,
        delivered: bool = True,
        injected: bool = False,
        guard: dict[str, Any] | None = None,
        replaces: int | None = None,
    ) -> int:
        """Record one frame (``data`` without its line ending); its ``seq``. ``guard`` is
        the decision ``mcp guard`` marks on it, ``replaces`` the ``seq`` of the server's
        frame a frame the guard made was delivered in place of."""
        with self._lock:
            self._seq += 1
            seq = self._seq
        record: dict[str, Any] = {
            TRACE_KEY: TRACE_NAME,
            "seq": seq,
            "time": now_iso(),
            "ms": round((perf_counter() - self._start) * 1000, 3),
            "from": direction,
        }
        if fault is not None:
            record["fault"] = fault
        if not delivered:
            record["delivered"] = False
        if injected:
            record["injected"] = True
        if guard is not None:
            record["guard"] = guard
        if replaces is not None:
            record["replaces"] = replaces
        self._write_line(record, data, original=original)
        return seq

    def event(self, name: str, **fields: Any) -> None:
        """Record an event (``exit`` with the server's exit code...)."""
        self._write_line({TRACE_KEY: TRACE_NAME, "event": name, "time": now_iso(), **fields})

    def close(self) -> None:
        """Close the file (later writes are dropped)."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._file.close()


def _member(key: str, data: bytes) -> bytes:
    """``,"frame":<data>`` when ``data`` is JSON (spliced as it is, on one line: a line
    break in valid JSON is whitespace between tokens, so it becomes a space and nothing
    else changes); else the text (``"text"``), or, when it is not UTF-8, its bytes in
    base64 (``"text_base64"``), never a guess at its characters."""
    stripped = data.rstrip(b"\r")
    if stripped.strip() and is_document(stripped):
        if b"\n" in stripped or b"\r" in stripped:
            stripped = stripped.replace(b"\r", b" ").replace(b"\n", b" ")
        return b',"' + key.encode() + b'":' + stripped
    name = "text" if key == "frame" else f"{key}_text"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        encoded = base64.b64encode(data).decode("ascii")
        return b',"' + name.encode() + b'_base64":' + orjson.dumps(encoded)
    return b',"' + name.encode() + b'":' + orjson.dumps(text)


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame read back from a trace: its direction (``None`` when the log does not say),
    its JSON value (``None`` when it was not JSON) and its line in the file."""

    direction: str | None
    message: Any
    line: int
    fault: str | None = None
    delivered: bool = True


def read_frames(path: Path) -> Iterator[Frame]:
    """The frames of a trace (or of a plain log of JSON-RPC messages), in order; of a frame
    ``mcp guard`` delivered in place of the server's, the server's.

    Raises:
        InputError: the file cannot be read, or holds neither.
    """
    from jsoncontract._files import iter_lines

    found = False
    for number, raw in iter_lines(path, max_line_bytes=64 * 1024 * 1024):
        if raw is None or not raw.strip():
            continue
        try:
            record = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get(TRACE_KEY) == TRACE_NAME:
            found = True
            if "event" in record or not any(k in record for k in ("frame", "text", "text_base64")):
                continue
            if "replaces" in record:  # the guard's answer in place of the server's frame
                continue
            yield Frame(
                record.get("from") if isinstance(record.get("from"), str) else None,
                record.get("frame"),
                number,
                record.get("fault") if isinstance(record.get("fault"), str) else None,
                record.get("delivered") is not False,
            )
        elif record.get("jsonrpc") == "2.0":
            found = True
            yield Frame(None, record, number)
    if not found:
        raise InputError(
            "not an MCP trace: no line of jsoncontract mcp record, and no JSON-RPC message",
            file=str(path),
        )
