"""The gate: one decision per call, per answer and per listing, from the rules ``check`` runs.

:class:`Guard` holds the policy (:class:`~jsoncontract.live.guard.settings.GuardSettings`),
the tools it enforces (a :class:`~jsoncontract.live.guard.tools.ToolBook`), the business
gate and the result gate; a :class:`GuardState` holds what one MCP session has seen (the
negotiated version, the retry budget, the idempotency table). Every ``tools/call`` goes, in
order, through:

1. the envelope (a well-formed request, naming a tool the model may call: a hidden tool or
   an unknown one is answered as MCP answers unknown tools);
2. the retry budget (``max_retries`` identical failing calls of a tool in a row, then the
   next identical one is stopped);
3. parse, schema and business, as :class:`~jsoncontract.pipeline.checker.Checker` runs
   them for ``check`` (the business gate's idempotency tracker included);
4. the idempotency table: a write repeated with the same key and the same arguments gets
   the answer recorded for it (the server is not called twice), the same key with other
   arguments is refused (``business.idempotency.conflict``), a write without a key, when
   its tool takes one, is refused (``missing_key``, configurable); a repeat whose first
   call is still in flight waits for its answer.

:meth:`Guard.call` returns a :class:`Verdict`: forward, or the answer to send in the
server's place (:mod:`~jsoncontract.live.guard.answers`). :meth:`Guard.result` runs the
result stage over the server's answer (:mod:`~jsoncontract.live.guard.results`) and keeps
the budget and the table. With ``observe``, every verdict forwards and every answer passes,
and the findings (and what would have been done: :attr:`Verdict.would`) are still given.

    >>> from jsoncontract import Guard
    >>> guard = Guard(tools=[{"name": "add", "inputSchema": {"type": "object",
    ...     "properties": {"a": {"type": "integer"}}, "required": ["a"]}}])
    >>> verdict = guard.call({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
    ...     "params": {"name": "add", "arguments": {"a": "2"}}})
    >>> verdict.action.value, verdict.findings[0].code, verdict.answer["result"]["isError"]
    ('refuse', 'schema.type', True)
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.errors import UsageError
from jsoncontract.live.guard import answers
from jsoncontract.live.guard.results import ResultDecision, judge_result
from jsoncontract.live.guard.settings import GuardSettings, MissingKey
from jsoncontract.live.guard.tools import ToolBook, build_book, lock_entry
from jsoncontract.model import Finding, McpSession, Severity, Stage

if TYPE_CHECKING:
    from jsoncontract.business.gate import BusinessRules
    from jsoncontract.model import CallResult, ToolCall, ToolContract
    from jsoncontract.pin import PinnedTool
    from jsoncontract.pipeline.checker import Checker
    from jsoncontract.settings import Config

#: Where a 2026-07-28 request names its protocol version.
VERSION_META: Final = "io.modelcontextprotocol/protocolVersion"
#: Idempotency keys whose answers one session remembers (the oldest forgotten).
KEYS: Final = 4096
_ERROR: Final = Severity.ERROR


class Action(StrEnum):
    """What becomes of a call."""

    FORWARD = "forward"  # passed on to the server
    REFUSE = "refuse"  # answered in the server's place: it broke its contract
    STOP = "stop"  # answered in the server's place: the retry budget is spent
    UNKNOWN = "unknown"  # answered as an unknown tool (it is not listed, or hidden)
    REPLAY = "replay"  # answered with the answer recorded for the same keyed write
    WAIT = "wait"  # the same keyed write is in flight: answered when it is


@dataclass(slots=True)
class Verdict:
    """The decision on one call.

    ``action`` is what happens now; ``would`` what enforcing would have done (with
    ``observe``, ``action`` is always ``forward``); ``answer`` the JSON-RPC response to send
    in the server's place (``None`` when the call is forwarded, or waits); ``findings`` what
    the gates found (warnings too). The rest is what :meth:`Guard.result` needs.
    """

    action: Action
    findings: list[Finding]
    answer: dict[str, Any] | None = None
    would: Action | None = None
    request_id: Any = None
    tool: str | None = None
    version: str | None = None
    call: ToolCall | None = field(default=None, repr=False)
    checked: CallResult | None = field(default=None, repr=False)
    contract: ToolContract | None = field(default=None, repr=False)
    digest: int | None = None
    key: tuple[str, str] | None = None

    @property
    def allowed(self) -> bool:
        """Whether the call goes to the server."""
        return self.action is Action.FORWARD

    def mark(self) -> dict[str, Any]:
        """The decision as the trace marks it."""
        out: dict[str, Any] = {"decision": self.action.value}
        if self.would is not None and self.would is not self.action:
            out["would"] = self.would.value
        if self.findings:
            out["findings"] = [f.to_dict() for f in self.findings]
        return out


@dataclass(slots=True)
class _Keyed:
    """One idempotency key of a session: the arguments' hash, the answer recorded for it
    (``None`` while the first call is in flight), the calls waiting for it."""

    digest: int
    answer: dict[str, Any] | None = None
    waiting: list[Verdict] = field(default_factory=list)


@dataclass(slots=True)
class _Failures:
    digest: int
    count: int


@dataclass(slots=True)
class Released:
    """A call that waited for the answer of the same keyed write: its answer (the recorded
    one), or ``None`` when that first call failed and this one goes to the server now."""

    verdict: Verdict
    answer: dict[str, Any] | None


class GuardState:
    """What one MCP session has seen: the negotiated version, the retry budget, the
    idempotency table, and a business gate whose trace-level checks are the session's."""

    def __init__(self, guard: Guard) -> None:
        self.guard = guard
        self.version: str | None = None
        self.business = guard.business.fresh() if guard.business is not None else None
        self.failures: dict[str, _Failures] = {}
        self.keyed: OrderedDict[tuple[str, str], _Keyed] = OrderedDict()
        self.pages: list[Any] = []
        self._checker: tuple[int, Checker] | None = None

    def checker(self, book: ToolBook) -> Checker:
        """The argument gates over ``book``'s tools (made again when the book changes)."""
        from jsoncontract.pipeline.checker import Checker

        held = self._checker
        if held is None or held[0] != id(book):
            assert book.toolset is not None
            checker = Checker(book.toolset, business=self.business, results=None, session=None)
            self._checker = held = (id(book), checker)
        return held[1]

    def close(self) -> None:
        """Release the business gate's index."""
        if self.business is not None and self.business.tracker is not None:
            self.business.tracker.close()


class Guard:
    """The guard's gate (see the module).

    Arguments:
        tools: the tools to enforce: MCP tool objects, or tool definition files in any
            dialect; ``None`` to learn them from the server's ``tools/list``
            (:meth:`learn`).
        rules: business-rules files (``None``: those of the config's ``[business]``).
        lock: a lock file ``mcp pin`` wrote: calls are checked against the pinned
            definitions, and tools that drifted from them are hidden or flagged.
        server: the server's name in the lock (default: its only entry).
        settings: the policy (default: ``[mcp.guard]`` of ``config``, else the defaults).
        config: the project configuration (``[business]``, ``[results]``, ``[mcp.guard]``).
        context: the business rules' context (overrides the config's).
        label: what the trace and the calls' sources name the server.

    Raises:
        RulesError, ConfigError, InputError, ToolLoadError: as loading the rules, the lock
            or the tools raises them.
    """

    def __init__(
        self,
        tools: Iterable[Mapping[str, Any] | str | Path] | None = None,
        *,
        rules: Sequence[str | Path] | None = None,
        lock: str | Path | None = None,
        server: str | None = None,
        settings: GuardSettings | None = None,
        config: Config | None = None,
        context: Mapping[str, Any] | None = None,
        label: str = "guard",
    ) -> None:
        from jsoncontract.business import load_business
        from jsoncontract.pipeline.result import ResultChecks, ResultSettings

        if settings is None:
            from jsoncontract.live.guard.settings import guard_settings

            settings = guard_settings(config, server) if config is not None else GuardSettings()
        self.settings = settings
        self.label = label
        self.locked: dict[str, PinnedTool] | None = (
            lock_entry(Path(lock), server, None) if lock is not None else None
        )
        self.business: BusinessRules | None = load_business(
            list(rules) if rules is not None else None, config=config, context=context
        )
        results = config.section("results") if config is not None else {}
        self.checks = ResultChecks(ResultSettings.from_config(results))
        self.book: ToolBook | None = None
        self._lock = threading.Lock()
        if tools is not None:
            self.learn(_tool_objects(tools))
        self.state = GuardState(self)

    @property
    def warnings(self) -> list[str]:
        """Load-time warnings of the rules and the configuration."""
        return self.business.warnings if self.business is not None else []

    def session(self) -> GuardState:
        """The state of a new MCP session (the guard's own :attr:`state` serves the calls
        made without one)."""
        return GuardState(self)

    def close(self) -> None:
        """Release the rules' workers and the idempotency indexes."""
        self.state.close()
        if self.business is not None:
            self.business.close()

    # -- tools -------------------------------------------------------------------------------

    def learn(self, tools: list[Any]) -> ToolBook:
        """Enforce a complete ``tools/list`` (every page's tools) from now on."""
        book = build_book(
            tools,
            label=self.label,
            lock=self.locked,
            closed=self.settings.closed,
            on_drift=self.settings.on_drift,
        )
        self.book = book
        return book

    def listed(self, result: dict[str, Any], state: GuardState | None = None) -> dict[str, Any]:
        """A ``tools/list`` result as the model gets it (hidden tools left out, flagged ones
        marked); its tools are learned once the last page (no ``nextCursor``) is seen."""
        state = state or self.state
        tools = result.get("tools")
        if not isinstance(tools, list):
            return result
        state.pages.extend(tools)
        cursor = result.get("nextCursor")
        if cursor is None:
            pages, state.pages = state.pages, []
            self.learn(pages)
        book = self.book
        if self.locked is None or book is None or self.settings.observe:
            return result
        if cursor is not None:  # a page before the last: judged against the lock alone
            book = build_book(
                tools, label=self.label, lock=self.locked, on_drift=self.settings.on_drift
            )
        shown = book.shown(tools, self.settings.on_drift)
        return result if shown is tools else {**result, "tools": shown}

    # -- calls --------------------------------------------------------------------------------

    def call(self, message: dict[str, Any], state: GuardState | None = None) -> Verdict:
        """Decide on one ``tools/call`` request (a JSON-RPC message).

        Raises:
            UsageError: the guard knows no tools yet (give ``tools=``, or :meth:`learn` a
                listing first).
        """
        state = state or self.state
        book = self.book
        if book is None or book.toolset is None:
            raise UsageError("the guard knows no tools yet: give it tools=, or learn() a listing")
        with self._lock:
            verdict = self._decide(message, state, book)
        if self.settings.observe and verdict.action is not Action.FORWARD:
            verdict.would = verdict.action
            verdict.action = Action.FORWARD
            verdict.answer = None
        elif verdict.action in (Action.REFUSE, Action.STOP, Action.UNKNOWN):
            count = self._failed(verdict, state)
            if count == self.settings.max_retries + 1 and verdict.answer is not None:
                verdict.answer = answers.with_stop(verdict.answer, count, verdict.version)
        return verdict

    def _decide(self, message: dict[str, Any], state: GuardState, book: ToolBook) -> Verdict:
        from jsoncontract.business.idempotency import arguments_digest

        request_id = message.get("id")
        params = message.get("params")
        meta = params.get("_meta") if isinstance(params, dict) else None
        version = _version_of(meta) or state.version
        call = read_call(message, self.label)
        name = call.tool or ""
        base = Verdict(Action.FORWARD, [], None, None, request_id, name, version, call)
        malformed = [f for f in call.load_findings if f.severity is _ERROR]
        if malformed or not name:
            base.action, base.findings = Action.REFUSE, list(call.load_findings)
            base.answer = answers.protocol_error(
                request_id,
                answers.INVALID_PARAMS,
                f"Invalid params: {malformed[0].message if malformed else 'no tool name'}",
            )
            return base
        if name in book.hidden:
            found = book.drift.get(name, [])
            base.action, base.findings = Action.UNKNOWN, list(found)
            base.answer = answers.unknown_tool(
                request_id,
                name,
                found,
                "hidden by the guard: its definition changed since it was pinned",
            )
            return base
        contract = book.contracts.get(name)
        if contract is None:
            return self._unusable(base, book)
        base.contract = contract
        if isinstance(call.arguments, dict):
            base.digest = arguments_digest(call.arguments)
        spent = state.failures.get(name)
        budget = self.settings.max_retries
        if spent is not None and spent.digest == base.digest and spent.count > budget:
            finding = Finding(
                codes.SESSION_IDENTICAL_RETRY,
                Severity.WARNING,
                f"{name} failed {spent.count} times in a row with these same arguments (at "
                f"most {budget} retries): the guard did not call it again",
                hint="stop retrying an identical call: fix what the error names, or ask the user",
                tool=name,
            )
            base.action, base.findings = Action.STOP, [finding]
            base.answer = answers.refusal(
                request_id,
                name,
                [finding],
                version,
                code=codes.SESSION_IDENTICAL_RETRY,
                message=f"{name} was not called: it already failed {spent.count} times with "
                "these same arguments",
                next_step=answers.stop_note(spent.count),
            )
            return base
        checked = state.checker(book).check(call)
        base.checked = checked
        base.findings = list(checked.findings)
        refusing = [f for f in checked.findings if f.severity is _ERROR]
        if not refusing:
            refusing = self._missing_key(checked.findings, contract, state)
        schema = contract.input_schema
        if refusing:
            base.action = Action.REFUSE
            first = refusing[0]
            base.answer = answers.refusal(
                request_id,
                name,
                [first, *(f for f in refusing[1:])],
                version,
                schema=schema,
                next_step=_next_step(name, first),
            )
            return base
        return self._keyed(base, state)

    def _unusable(self, base: Verdict, book: ToolBook) -> Verdict:
        from jsoncontract.pipeline.envelope import unknown_tool

        name = base.tool or ""
        if name in book.unusable:
            finding = Finding(
                codes.MCP_TOOL_UNUSABLE,
                Severity.ERROR,
                f"tool {name!r} {book.unusable[name]}",
                tool=name,
                hint="fix the tool's definition on the server",
            )
            base.action, base.findings = Action.REFUSE, [finding]
            base.answer = answers.refusal(
                base.request_id,
                name,
                [finding],
                base.version,
                code=codes.MCP_TOOL_UNUSABLE,
                message=f"{name} was not called: its definition is broken, so no call of it "
                "can be checked",
                next_step="tell the user this tool cannot be used until its server fixes it",
            )
            return base
        assert book.toolset is not None
        finding = unknown_tool(name, book.toolset)
        base.action, base.findings = Action.UNKNOWN, [finding]
        base.answer = answers.unknown_tool(base.request_id, name, [finding], "not in the tool list")
        return base

    def _missing_key(
        self, findings: list[Finding], contract: ToolContract, state: GuardState
    ) -> list[Finding]:
        """A missing idempotency key refuses the call when the tool takes one (and the
        settings say so)."""
        if self.settings.missing_key is not MissingKey.REFUSE:
            return []
        tracker = state.business.tracker if state.business is not None else None
        if tracker is None or tracker.classify(contract).key_field is None:
            return []
        return [f for f in findings if f.code == codes.BUSINESS_IDEMPOTENCY_MISSING_KEY]

    def _keyed(self, base: Verdict, state: GuardState) -> Verdict:
        """The idempotency table: replay, wait, or forward (and remember the key)."""
        tracker = state.business.tracker if state.business is not None else None
        contract = base.contract
        call = base.call
        if (
            tracker is None
            or contract is None
            or call is None
            or base.digest is None
            or not isinstance(call.arguments, dict)
            or not tracker.classify(contract).writes
        ):
            return base
        _field, key = tracker.key_of(call.arguments)
        if key is None:
            return base
        slot = (contract.name, key)
        base.key = slot
        if self.settings.observe:
            return base
        known = state.keyed.get(slot)
        if known is None:
            state.keyed[slot] = _Keyed(base.digest)
            if len(state.keyed) > KEYS:
                state.keyed.popitem(last=False)
            return base
        if known.digest != base.digest:
            return base  # the tracker has reported the conflict (an error: refused above)
        state.keyed.move_to_end(slot)
        if known.answer is not None:
            base.action = Action.REPLAY
            base.answer = answers.with_id(known.answer, base.request_id)
        else:
            base.action = Action.WAIT
            known.waiting.append(base)
        return base

    # -- answers ------------------------------------------------------------------------------

    def result(
        self,
        verdict: Verdict,
        message: dict[str, Any],
        state: GuardState | None = None,
        raw: bytes | None = None,
    ) -> tuple[ResultDecision, list[Released]]:
        """Run the result stage over the server's answer to a forwarded call; keep the
        retry budget and the idempotency table. Returns the decision and the calls that
        waited for this answer. ``raw``: the answer's frame, when the caller has it (it
        spares the leak checks where no marker of a leak is in it)."""
        state = state or self.state
        call = verdict.call
        if call is None:
            return ResultDecision("pass", [], False), []
        from jsoncontract.model import CallResult

        checked = verdict.checked if verdict.checked is not None else CallResult(call, [], None)
        session = McpSession(
            self.label,
            protocol_version=verdict.version,
            tools=self.book.listed if self.book is not None else None,
        )
        decision = judge_result(
            call,
            checked,
            message,
            tool=verdict.contract,
            session=session,
            checks=self.checks,
            settings=self.settings,
            version=verdict.version,
            raw=raw,
        )
        with self._lock:
            count = self._outcome(verdict, state, decision.failed)
            released = self._release(verdict, state, decision, message)
        if decision.failed and count == self.settings.max_retries + 1 and not self.settings.observe:
            delivered = decision.answer if decision.answer is not None else message
            decision.answer = answers.with_stop(delivered, count, verdict.version)
            if decision.action == "pass":
                decision.action = "mask"
        return decision, released

    def _failed(self, verdict: Verdict, state: GuardState) -> int:
        with self._lock:
            return self._outcome(verdict, state, True)

    def _outcome(self, verdict: Verdict, state: GuardState, failed: bool) -> int:
        """Count a failure of the call (or forget the tool's failures on a success); the
        count of identical failures in a row."""
        name = verdict.tool or ""
        before = state.failures.pop(name, None)
        if not failed or verdict.digest is None:
            return 0
        if before is not None and before.digest == verdict.digest:
            before.count += 1
        else:
            before = _Failures(verdict.digest, 1)
        state.failures[name] = before
        return before.count

    def _release(
        self, verdict: Verdict, state: GuardState, decision: ResultDecision, message: dict[str, Any]
    ) -> list[Released]:
        if verdict.key is None or self.settings.observe:
            return []
        known = state.keyed.get(verdict.key)
        if known is None or known.digest != verdict.digest:
            return []
        waiting, known.waiting = known.waiting, []
        if decision.failed:
            # a failed write records nothing: the next call with the key goes to the server
            if waiting:
                first = waiting[0]
                first.action = Action.FORWARD
                known.waiting = waiting[1:]
                return [Released(first, None)]
            state.keyed.pop(verdict.key, None)
            return []
        delivered = decision.answer if decision.answer is not None else message
        known.answer = delivered
        out = []
        for waiter in waiting:
            waiter.action = Action.REPLAY
            waiter.answer = answers.with_id(delivered, waiter.request_id)
            out.append(Released(waiter, waiter.answer))
        return out


def read_call(message: dict[str, Any], label: str) -> ToolCall:
    """The call a ``tools/call`` request is, read as ``check`` reads it from a capture."""
    from jsoncontract.capture.interface import DocContext
    from jsoncontract.capture.mcp import request

    out: list[Any] = []
    request(message, DocContext(label), out)
    call: ToolCall = out[0]
    return call


def _version_of(meta: Any) -> str | None:
    if isinstance(meta, dict):
        version = meta.get(VERSION_META)
        if isinstance(version, str):
            return version
    return None


def _next_step(tool: str, first: Finding) -> str:
    if first.code == codes.BUSINESS_IDEMPOTENCY_CONFLICT:
        return (
            f"use a new idempotency key for a different request, or send {tool} the same "
            "arguments again to get the first answer"
        )
    if first.code == codes.BUSINESS_IDEMPOTENCY_MISSING_KEY:
        return f"send {tool} again with a new idempotency key; reuse a key only to retry"
    if first.stage is Stage.BUSINESS:
        return f"change what the rule names and call {tool} again, or ask the user"
    return answers.FIX.format(tool=tool)


def _tool_objects(tools: Iterable[Mapping[str, Any] | str | Path]) -> list[Any]:
    """MCP tool objects from tool objects, or from tool files in any dialect."""
    given = list(tools)
    objects = [dict(t) for t in given if isinstance(t, Mapping)]
    paths = [p for p in given if not isinstance(p, Mapping)]
    if paths:
        from jsoncontract.tools.loader import load_tool_files

        for contract in load_tool_files(paths):
            entry: dict[str, Any] = {"name": contract.name, "inputSchema": contract.input_schema}
            if contract.description is not None:
                entry["description"] = contract.description
            if contract.output_schema is not None:
                entry["outputSchema"] = contract.output_schema
            if contract.annotations is not None:
                entry["annotations"] = contract.annotations
            objects.append(entry)
    return objects


__all__ = ["Action", "Guard", "GuardState", "Released", "Verdict", "read_call"]
