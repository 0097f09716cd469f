"""``mcp verify``: replay a recorded session's requests against a server and diff the
answers.

A session recorded with ``mcp record`` (or any log of JSON-RPC frames) holds what the
client asked and what the server answered. Against a new build of the server, the same
requests, in the same order, should get the same answers. Every client request of the
recording is sent again (the negotiation is the connection's own: ``initialize`` and
``server/discover`` are not re-sent, nor are notifications), and each answer is compared
with the recorded one by the comparer of ``jsoncontract diff``: type-strict (``1`` is not
``"1"``), every difference classified (dropped, added, coerced, re-encoded, value changed,
reordered). ``ignore`` patterns (JSON Pointers, ``*`` for one token, ``**`` for any depth)
leave out values that legitimately change (timestamps, ids).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.errors import InputError
from jsoncontract.model import Finding, Severity, Source

if TYPE_CHECKING:
    from jsoncontract.live.client import Connection, ConnectOptions, Negotiated
    from jsoncontract.live.server import ServerSpec

#: Requests that belong to one connection and are not replayed.
_NOT_REPLAYED: Final = frozenset({"initialize", "server/discover"})
#: The code of an answer that could not be compared (no answer, a crash).
UNANSWERED: Final = "verify.unanswered"


@dataclass(frozen=True, slots=True)
class Exchange:
    """A recorded request and the answer it got (``{"result": ..}`` or ``{"error": ..}``)."""

    method: str
    params: dict[str, Any]
    answer: dict[str, Any]
    line: int

    @property
    def target(self) -> str:
        """The tool, resource or prompt the request names, else the method."""
        for key in ("name", "uri"):
            value = self.params.get(key)
            if isinstance(value, str):
                return f"{self.method} {value}"
        return self.method


@dataclass(slots=True)
class Verdict:
    """One exchange replayed: the differences found (empty: the same answer)."""

    exchange: Exchange
    now: dict[str, Any] | None
    findings: list[Finding] = field(default_factory=list)
    seconds: float | None = None

    @property
    def ok(self) -> bool:
        """The same answer, up to the ignored paths."""
        return not self.findings

    def to_dict(self) -> dict[str, Any]:
        """The exchange in the JSON report."""
        from jsoncontract.masking import masked_value

        return {
            "request": self.exchange.target,
            "method": self.exchange.method,
            "line": self.exchange.line,
            "ok": self.ok,
            "ms": round(self.seconds * 1000, 1) if self.seconds is not None else None,
            "recorded": masked_value(self.exchange.answer),
            "now": masked_value(self.now),
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass(slots=True)
class VerifyReport:
    """Every replayed exchange of one recording against one server."""

    trace: str
    server: ServerSpec
    negotiated: Negotiated | None = None
    verdicts: list[Verdict] = field(default_factory=list)
    ignored: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """What reports call the server."""
        from jsoncontract.live.wire import display_name

        return display_name(self.server, self.negotiated)

    def all_findings(self) -> list[Finding]:
        """Every difference, exchange by exchange."""
        return [f for v in self.verdicts for f in v.findings]

    @property
    def ok(self) -> bool:
        """Every answer is the recorded one."""
        return all(v.ok for v in self.verdicts)

    def summary(self) -> dict[str, Any]:
        """The totals."""
        return {
            "requests": len(self.verdicts),
            "same": sum(1 for v in self.verdicts if v.ok),
            "different": sum(1 for v in self.verdicts if not v.ok),
            "differences": len(self.all_findings()),
        }

    def to_dict(self) -> dict[str, Any]:
        """The JSON report."""
        negotiated = self.negotiated
        return {
            "version": 1,
            "summary": self.summary(),
            "trace": self.trace,
            "server": self.label,
            "protocol_version": negotiated.version if negotiated is not None else None,
            "ignored": list(self.ignored),
            "exchanges": [v.to_dict() for v in self.verdicts],
        }


def recorded_exchanges(path: Path) -> list[Exchange]:
    """The client's requests of a recording, in order, each with its recorded answer
    (requests never answered, and withheld answers, are left out).

    Raises:
        InputError: the file is no trace, or holds no request to replay.
    """
    from jsoncontract.live.trace import CLIENT, read_frames

    pending: dict[Any, tuple[dict[str, Any], int]] = {}
    answered: list[tuple[int, Exchange]] = []
    for frame in read_frames(path):
        message = frame.message
        if not isinstance(message, dict) or "id" not in message:
            continue
        key = _key(message.get("id"))
        method = message.get("method")
        if isinstance(method, str):
            if frame.direction in (None, CLIENT) and method not in _NOT_REPLAYED:
                pending[key] = (message, frame.line)
            continue
        if key not in pending or not frame.delivered or frame.direction == CLIENT:
            continue
        request, line = pending.pop(key)
        answer = {k: message[k] for k in ("result", "error") if k in message}
        if not answer:
            continue
        params = request.get("params")
        clean = _without_meta(params)
        answered.append((line, Exchange(request["method"], clean, answer, line)))
    if not answered:
        raise InputError(
            "the trace holds no answered request to replay (initialize and server/discover "
            "are the connection's own)",
            file=str(path),
        )
    return [exchange for _, exchange in sorted(answered, key=lambda pair: pair[0])]


def _without_meta(params: Any) -> dict[str, Any]:
    return {k: v for k, v in params.items() if k != "_meta"} if isinstance(params, dict) else {}


def _key(value: Any) -> Any:
    return (type(value).__name__, value) if isinstance(value, str | int) else None


async def replay_exchanges(
    conn: Connection, exchanges: list[Exchange], ignore: tuple[str, ...], trace: str
) -> list[Verdict]:
    """Send each recorded request over ``conn`` and compare the answers."""
    from jsoncontract.live.wire import ReplyKind

    out = []
    for exchange in exchanges:
        reply = await conn.request(exchange.method, dict(exchange.params))
        if exchange.method == "tools/list" and reply.result:
            tools = reply.result.get("tools")
            if isinstance(tools, list):
                conn.learn_tools(tools)
        if reply.kind is ReplyKind.RESULT:
            now: dict[str, Any] | None = {"result": reply.result}
        elif reply.kind is ReplyKind.ERROR:
            now = {"error": reply.error}
        else:
            now = None
        verdict = Verdict(exchange, now, seconds=reply.seconds)
        source = Source(trace, exchange.line)
        if now is None:
            verdict.findings.append(
                Finding(
                    UNANSWERED,
                    Severity.ERROR,
                    f"{exchange.target}: {reply.answered()}",
                    source=source,
                    hint="the recorded session got an answer here",
                )
            )
        else:
            verdict.findings.extend(compare_answers(exchange, now, ignore, source))
        out.append(verdict)
    return out


def compare_answers(
    exchange: Exchange, now: dict[str, Any], ignore: tuple[str, ...], source: Source
) -> list[Finding]:
    """The differences between the recorded answer and ``now``, as findings located at
    the request's line in the trace."""
    from jsoncontract._json import short_repr
    from jsoncontract.diff.compare import CompareOptions, Comparer
    from jsoncontract.diff.paths import PathSet
    from jsoncontract.masking import masked_value
    from jsoncontract.pointer import ABSENT

    comparer = Comparer(CompareOptions(ignore=PathSet(ignore)))
    findings = []
    for entry in comparer.compare(exchange.answer, now):
        if entry.code is None:
            continue
        path = entry.a_path if entry.a_path is not None else entry.b_path or ""
        before = "absent" if entry.a is ABSENT else short_repr(masked_value(entry.a), 60)
        after = "absent" if entry.b is ABSENT else short_repr(masked_value(entry.b), 60)
        findings.append(
            Finding(
                str(entry.code),
                Severity.ERROR,
                f"{exchange.target}: {path or '/'} {entry.code.value}: "
                f"recorded {before}, now {after}" + (f" ({entry.detail})" if entry.detail else ""),
                path=path,
                source=source,
                hint="if the change is intended, record the session again; if the value "
                "changes on every run, --ignore " + (path or "/"),
            )
        )
    return findings


async def verify_server(
    trace: Path, spec: ServerSpec, options: ConnectOptions, ignore: tuple[str, ...] = ()
) -> VerifyReport:
    """Replay ``trace`` against ``spec`` (see the module's description).

    Raises:
        InputError: the trace cannot be read or holds nothing to replay.
        ServerError: the server cannot be started, reached or negotiated with.
    """
    from jsoncontract.live.client import connect

    exchanges = recorded_exchanges(trace)
    report = VerifyReport(str(trace), spec, ignored=ignore)
    async with connect(spec, options) as conn:
        report.negotiated = conn.negotiated
        report.verdicts = await replay_exchanges(conn, exchanges, ignore, str(trace))
    return report
