"""The turn and session contracts: the checks over a whole run, in one session gate.

:class:`SessionContracts` fills the checker's
:class:`~jsoncontract.pipeline.checker.SessionGate` slot with every check of :data:`CHECKS`:

============ =======================================================================
results      results without calls (:mod:`jsoncontract.pipeline.session`)
turns        side effects in one assistant turn (:mod:`jsoncontract.pipeline.turns`)
listings     MCP sessions: unlisted tools, stale and changing lists
             (:mod:`jsoncontract.pipeline.listings`)
pairing      calls without results (:mod:`jsoncontract.pipeline.pairing`)
recovery     the reaction to error results (:mod:`jsoncontract.pipeline.recovery`)
============ =======================================================================

Their findings (codes ``session.*``) are run-level: they are about how calls relate, so they
are reported over the run (``summary.findings``, in capture order, once the run ends), each
at the call or event that shows it, and leave each call's own stage alone.

**State, for a run checked in parts.** Each check keeps state keyed by the turn (its calls
are read one after the other), the MCP session, or the scope of
:func:`~jsoncontract.pipeline.pairing.scope_of` (an MCP session, or a hop of one file), and
says what it keeps. A run split into parts (:mod:`jsoncontract.pipeline.runner`) checks
each part from a fresh :class:`SessionContracts` and joins them in input order: every check
tells from a part's :meth:`~SessionContracts.snapshot` whether the part saw what the run
would have (:meth:`~SessionContracts.follows`: a part whose first turn continues a turn
with side effects does not, nor one that answers a call of a scope with unanswered calls
before it), and if it did, continues after it (:meth:`~SessionContracts.absorb`: the part's
findings are appended, its unanswered calls join their scope's); a part that did not is
checked again in the run. The first part, which starts where the run does, is taken whole
(:meth:`~SessionContracts.adopt`).

A check has ``call``, ``event`` and ``close`` (the
:class:`~jsoncontract.pipeline.checker.SessionGate` methods), ``passed`` (``call`` for a lone
model call that passed the fast lane, with less work; a check that has nothing to say of
such a call says so with ``lone_calls = False``, and is not asked), and ``state``,
``adopt``, ``follows`` and ``absorb`` for runs checked in parts.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from jsoncontract.business.idempotency import IdempotencySettings, IdempotencyTracker
from jsoncontract.model import locate
from jsoncontract.pipeline.listings import ListingCheck
from jsoncontract.pipeline.pairing import PairingCheck
from jsoncontract.pipeline.recovery import DEFAULT_IDENTICAL_RETRIES, RecoveryCheck
from jsoncontract.pipeline.result import ResultContract, ResultSettings, adjusted, severities
from jsoncontract.pipeline.session import SessionFindings
from jsoncontract.pipeline.turns import DEFAULT_SERIAL, SideEffects, TurnCheck

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, Finding, PassedCall, Severity, TraceEvent
    from jsoncontract.settings import Config
    from jsoncontract.tools.toolset import ToolSet


@dataclass(frozen=True, slots=True)
class SessionSettings:
    """How the checks over a run behave.

    ``serial``: the side-effect classes whose calls must not share a turn;
    ``side_effects``: tools put in a class by name (class -> tool names);
    ``identical_retries``: identical retries after an error allowed before one is reported;
    ``idempotency``: the write classification and key names (``[business.idempotency]``);
    ``severity``: a code's severity, or ``None`` to turn it off; ``contract``: the result
    contract (``[results.contract]``), which tells error results where the wire does not.
    """

    serial: frozenset[str] = DEFAULT_SERIAL
    side_effects: Mapping[str, frozenset[str]] = field(default_factory=dict)
    identical_retries: int = DEFAULT_IDENTICAL_RETRIES
    idempotency: IdempotencySettings = field(default_factory=IdempotencySettings)
    severity: Mapping[str, Severity | None] = field(default_factory=dict)
    contract: ResultContract | None = field(default_factory=ResultContract)

    @classmethod
    def from_config(
        cls,
        table: Mapping[str, Any],
        idempotency: Mapping[str, Any] | None = None,
        results: Mapping[str, Any] | None = None,
    ) -> SessionSettings:
        """Settings from the ``[session]`` config table (validated by its schema), with the
        ``[business.idempotency]`` table for the write classification and the ``[results]``
        table for the result contract."""
        return cls(
            contract=ResultSettings.from_config(results or {}).contract,
            serial=frozenset(table.get("serial", DEFAULT_SERIAL)),
            side_effects={
                name: frozenset(tools) for name, tools in table.get("side_effects", {}).items()
            },
            identical_retries=int(table.get("identical_retries", DEFAULT_IDENTICAL_RETRIES)),
            idempotency=IdempotencySettings.from_config(dict(idempotency or {})),
            severity=severities(table.get("severity", {})),
        )


@dataclass(frozen=True, slots=True)
class CheckContext:
    """What the checks of a run are made from."""

    tools: ToolSet | None
    settings: SessionSettings
    effects: SideEffects


class SessionCheck(Protocol):
    """One check over a run: the :class:`~jsoncontract.pipeline.checker.SessionGate`
    methods, the fast lane's ``passed``, and the four methods of a run checked in parts
    (see the module)."""

    def call(self, checked: CallResult) -> Iterable[Finding]: ...
    def passed(self, passed: PassedCall) -> Iterable[Finding]: ...
    def event(self, event: TraceEvent) -> Iterable[Finding]: ...
    def close(self) -> Iterable[Finding]: ...
    def state(self) -> Any: ...
    def adopt(self, state: Any) -> None: ...
    def follows(self, state: Any, files: Any) -> bool: ...
    def absorb(self, state: Any) -> None: ...


#: The checks over a run, in the order their findings are reported.
CHECKS: Final[dict[str, Callable[[CheckContext], SessionCheck]]] = {
    "results": lambda ctx: SessionFindings(),
    "turns": lambda ctx: TurnCheck(ctx.effects, ctx.settings.serial),
    "listings": lambda ctx: ListingCheck(),
    "pairing": lambda ctx: PairingCheck(),
    "recovery": lambda ctx: RecoveryCheck(
        identical_retries=ctx.settings.identical_retries,
        key_fields=ctx.settings.idempotency.key_fields,
        effects=ctx.effects,
        contract=ctx.settings.contract,
    ),
}


class SessionContracts:
    """Every check over a run (see the module): one instance per run.

    Arguments:
        tools: the run's tool contracts (for telling writes and side effects).
        settings: how the checks behave.
    """

    #: the checks look at every call
    per_call = True
    #: :meth:`passed` takes a lone call the schema gate failed as well: no check reads the
    #: findings of a call without a result (only the recovery check reads findings, of a
    #: call whose result failed), and what they find is held (:meth:`call` returns nothing)
    failures_as_passed = True

    def __init__(self, tools: ToolSet | None = None, settings: SessionSettings | None = None):
        self.settings = settings or SessionSettings()
        self.tools = tools
        effects = SideEffects(
            tools, IdempotencyTracker(self.settings.idempotency), self.settings.side_effects
        )
        context = CheckContext(tools, self.settings, effects)
        self.checks = [make(context) for make in CHECKS.values()]
        # the checks a lone model call can concern (the fast lane's, one per passed call)
        self._passing = tuple(
            check.passed for check in self.checks if getattr(check, "lone_calls", True)
        )
        self._held: list[Finding] = []

    @classmethod
    def from_config(cls, config: Config, tools: ToolSet | None = None) -> SessionContracts:
        """The gate the ``[session]`` section of a loaded configuration asks for (with
        ``[business.idempotency]`` telling writes and idempotency keys)."""
        business = config.section("business")
        settings = SessionSettings.from_config(
            config.section("session"), business.get("idempotency"), config.section("results")
        )
        return cls(tools, settings)

    def reset(self) -> None:
        """Start again, as a new run (each part of a run checked in parts does)."""
        self.__init__(self.tools, self.settings)  # type: ignore[misc]

    def call(self, checked: CallResult) -> tuple[Finding, ...]:
        """Run every check on the call; what they find is held for the run's findings,
        placed at the call."""
        for check in self.checks:
            found = check.call(checked)
            if found:
                self._held.extend(locate(list(found), checked.call))
        return ()

    def passed(self, passed: PassedCall) -> None:
        """:meth:`call` for a lone call that passed the fast lane (no result), or that its
        schema gate failed there (:attr:`failures_as_passed`), with less work: what the
        checks find is held the same way. An MCP call made in a session
        that listed its tools, or announced a change, is checked as :meth:`call` checks
        it."""
        session = passed.session
        if session is not None and (session.tools is not None or session.list_changed):
            self.call(passed.result())
            return
        for check in self._passing:
            found = check(passed)
            if found:
                self._held.extend(locate(list(found), passed.call()))

    def event(self, event: TraceEvent) -> tuple[Finding, ...]:
        """Run every check on one trace event; what they find is held too, so that the
        run's findings come in capture order."""
        for check in self.checks:
            self._held.extend(check.event(event))
        return ()

    def hold(self, findings: Iterable[Finding]) -> None:
        """Hold findings the checker made of an event (a result checked on its own), after
        what the checks found of it: they come out in capture order with the rest."""
        self._held.extend(findings)

    def close(self) -> list[Finding]:
        """The findings held from calls and events, in capture order, then every check's
        closing ones."""
        out = self._held
        self._held = []
        for check in self.checks:
            out.extend(check.close())
        return adjusted(out, self.settings.severity)

    # -- a run checked in parts (see the module) ------------------------------------------

    def snapshot(self) -> tuple[list[Finding], list[Any]]:
        """What a part leaves: the findings held so far, and each check's state."""
        return self._held, [check.state() for check in self.checks]

    def adopt(self, snapshot: tuple[list[Finding], list[Any]]) -> None:
        """Continue from a part that started where this run starts (the run's first)."""
        held, states = snapshot
        self._held = list(held)
        for check, state in zip(self.checks, states, strict=True):
            check.adopt(state)

    def follows(self, snapshot: tuple[list[Finding], list[Any]], files: Any) -> bool:
        """Whether a part of ``files``, checked from a fresh gate, found what this gate
        would have found over it (then :meth:`absorb` continues after it)."""
        return all(
            check.follows(state, files)
            for check, state in zip(self.checks, snapshot[1], strict=True)
        )

    def absorb(self, snapshot: tuple[list[Finding], list[Any]]) -> None:
        """Continue after a part that :meth:`follows` this gate."""
        held, states = snapshot
        self._held.extend(held)
        for check, state in zip(self.checks, states, strict=True):
            check.absorb(state)
