"""What a connection to a live server is opened with and gives back, as values: the
options, what was negotiated, each request's :class:`Reply`, and the :class:`Noise` a
server writes besides its answers."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.live.capabilities import ClientProfile

if TYPE_CHECKING:
    from jsoncontract.live.server import ServerSpec


#: Seconds a request may take when nothing else is said.
DEFAULT_TIMEOUT: Final = 10.0
#: Seconds a request that keeps reporting progress may take at least, in all.
MAX_WAIT: Final = 60.0


class ReplyKind(StrEnum):
    """How a request ended."""

    RESULT = "result"  # a JSON-RPC result
    ERROR = "error"  # a JSON-RPC error
    TIMEOUT = "timeout"  # no answer in time
    CLOSED = "closed"  # the connection ended (the server exited, or hung up)
    INVALID = "invalid"  # an answer that is not a valid JSON-RPC response


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to one request, whatever it was.

    ``result`` is the JSON-RPC ``result`` object and ``error`` the ``error`` object, both
    as plain JSON values; ``raw`` holds what an invalid answer was (the text, or the JSON
    value); ``detail`` says in words what happened for the other kinds.
    """

    kind: ReplyKind
    seconds: float
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    raw: Any = None
    detail: str = ""

    @property
    def code(self) -> int | None:
        """The JSON-RPC error code, for an error."""
        if self.error is None:
            return None
        code = self.error.get("code")
        return code if isinstance(code, int) else None

    def answered(self) -> str:
        """A verb phrase: ``was answered with JSON-RPC error -32602 (Invalid params)``,
        ``got no answer within 10 s``..."""
        if self.kind is ReplyKind.TIMEOUT:
            return f"got {self.detail}"
        if self.kind is ReplyKind.CLOSED:
            return f"ended the connection: {self.detail}"
        return f"was answered with {self.describe()}"

    def describe(self) -> str:
        """A phrase: ``a result``, ``JSON-RPC error -32602 (Invalid params)``, ``no answer
        within 10 s``..."""
        if self.kind is ReplyKind.RESULT:
            return "a result"
        if self.kind is ReplyKind.ERROR:
            message = str((self.error or {}).get("message", ""))
            return f"JSON-RPC error {self.code} ({cut_short(masked_text(message))})"
        return self.detail or self.kind.value


@dataclass(frozen=True, slots=True)
class ConnectOptions:
    """How to connect.

    ``protocol``: ``auto`` (``server/discover``, falling back to ``initialize``),
    ``legacy`` (the ``initialize`` handshake at the newest version it negotiates), or a
    protocol version to ask for. ``timeout`` bounds every request; ``connect_timeout`` the
    start of the server and the negotiation. ``show_stderr`` lets the server's stderr
    through instead of keeping it. ``client`` is what the client declares and answers
    (:mod:`jsoncontract.live.capabilities`). Every request carries a ``progressToken``;
    each progress notification restarts its ``timeout``, up to ``max_wait`` seconds in all.
    """

    timeout: float = DEFAULT_TIMEOUT
    #: seconds to start the server and negotiate (default: ``timeout``, at least 10)
    connect_timeout: float | None = None
    protocol: str = "auto"
    show_stderr: bool = False
    client_name: str = "jsoncontract"
    client: ClientProfile = field(default_factory=ClientProfile)
    #: seconds a request that reports progress may take in all (default: 6 timeouts, at
    #: least 60)
    max_wait: float | None = None

    @property
    def progress_limit(self) -> float:
        """The hard maximum of a request that keeps reporting progress."""
        if self.max_wait is not None:
            return max(self.max_wait, self.timeout)
        return max(self.timeout * 6, MAX_WAIT)

    @property
    def connect_seconds(self) -> float:
        """The time allowed to start and negotiate."""
        if self.connect_timeout is not None:
            return self.connect_timeout
        return max(self.timeout, DEFAULT_TIMEOUT)


@dataclass(slots=True)
class Noise:
    """Something the server wrote that answers nothing: a log line on stdout, a message
    that is not JSON-RPC. ``text`` is how it began."""

    text: str
    reason: str


@dataclass(slots=True)
class Negotiated:
    """What the connection agreed on."""

    version: str
    #: ``server/discover`` or ``initialize``
    method: str
    seconds: float
    server_info: dict[str, Any] | None = None
    capabilities: dict[str, Any] = field(default_factory=dict)
    instructions: str | None = None
    #: why the first attempt did not settle it (``server/discover answered -32601``)
    fallback: str | None = None
    #: the version offered, when the server chose another
    offered: str | None = None

    def describe(self) -> str:
        """``MCP 2026-07-28 (server/discover)``."""
        text = f"MCP {self.version} ({self.method}"
        if self.offered and self.offered != self.version:
            text += f"; {self.offered} was offered"
        return text + ")"


def display_name(spec: ServerSpec, negotiated: Negotiated | None) -> str:
    """The server's given name, else the name it gives itself, else its command or URL."""
    if spec.name:
        return spec.name
    info = negotiated.server_info if negotiated is not None else None
    own = info.get("name") if info else None
    if isinstance(own, str) and own.strip():
        return own.strip()
    return spec.label


def masked_text(text: str) -> str:
    """``text`` with every secret in it replaced by its kind and hash: what a server writes
    is quoted in messages and reports, which never repeat a credential."""
    from jsoncontract.masking import masked

    return masked(text)


def cut_short(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
