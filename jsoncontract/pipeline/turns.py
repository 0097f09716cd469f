"""Side effects in one assistant turn: calls a host may run in parallel, that must not be.

The calls one assistant turn emits (one response, one assistant message, one chat span:
``ToolCall.turn``) may be run at once by the host. Payments, messages and deletions are
run one at a time by default, and several of them in one turn are reported
(``session.parallel_side_effects``), on the second such call and each one after it.

A tool's side effects (:class:`SideEffects`) are classes:

- ``payment``, ``messaging``, ``deletion``: a tool that writes (as the idempotency check
  decides: MCP ``readOnlyHint``, then ``write_tools`` / ``read_tools``, then the name's
  verb) and whose name holds one of the class's verbs (:data:`VERBS`), or a tool listed
  under the class in the ``[session.side_effects]`` config table;
- ``destructive``: MCP ``destructiveHint: true`` (an explicit one: the specification's
  default of true for unannotated tools would make every tool destructive);
- ``write``: any write, for a configuration that runs every write serially.

Which classes must run serially is :attr:`SessionSettings.serial
<jsoncontract.pipeline.contracts.SessionSettings.serial>` (payment, messaging, deletion and
destructive by default).

**State** (for a run checked in parts): the current turn's key and its side-effect calls so
far (tool and class), the first turn seen, and the classes of each tool seen (a cache). A
part read on its own saw what the run would have unless the run's current turn holds side
effects and the part's first turn is that turn (:meth:`TurnCheck.follows`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.model import Finding, Severity

if TYPE_CHECKING:
    from jsoncontract.business.idempotency import IdempotencyTracker
    from jsoncontract.model import CallResult, PassedCall, ToolCall, ToolContract, TraceEvent
    from jsoncontract.tools.toolset import ToolSet

#: The verbs that put a writing tool in a side-effect class, by class.
# fmt: off
VERBS: Final[Mapping[str, frozenset[str]]] = {
    "payment": frozenset((
        "pay", "payment", "payments", "charge", "refund", "transfer", "purchase", "payout",
        "withdraw", "checkout", "debit", "credit",
    )),
    "messaging": frozenset((
        "send", "email", "mail", "message", "notify", "notification", "sms", "reply",
        "forward", "publish", "post", "tweet", "broadcast", "invite", "dm",
    )),
    "deletion": frozenset((
        "delete", "remove", "destroy", "purge", "erase", "wipe", "drop", "truncate", "unlink",
    )),
}
# fmt: on
#: Every class a tool can be in.
CLASSES: Final = (*VERBS, "destructive", "write")
#: The classes whose calls run one at a time unless configured otherwise.
DEFAULT_SERIAL: Final = frozenset(("payment", "messaging", "deletion", "destructive"))

_WORDS: Final = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def name_words(name: str) -> set[str]:
    """The lower-case words of a tool name (``sendEmail``, ``send_email``, ``send-email``)."""
    return {w.lower() for w in _WORDS.findall(name)}


@dataclass(frozen=True, slots=True)
class Effect:
    """A tool's side-effect classes and why."""

    classes: frozenset[str]
    because: str


class SideEffects:
    """Sorts tools into side-effect classes (cached per tool; see the module).

    Arguments:
        tools: the run's tool contracts (annotations and names).
        tracker: the idempotency check's write classification.
        listed: extra tools per class, from the configuration.
    """

    def __init__(
        self,
        tools: ToolSet | None,
        tracker: IdempotencyTracker,
        listed: Mapping[str, frozenset[str]],
    ) -> None:
        self.tools = tools
        self.tracker = tracker
        self.listed = listed
        self._cache: dict[tuple[str, str | None], Effect] = {}

    def of(self, call: ToolCall) -> Effect:
        """The side effects of the call's tool: its contract, else the definition its MCP
        session listed, else its name alone."""
        name = call.tool or ""
        session = call.session
        key = (name, session.id if session is not None else None)
        found = self._cache.get(key)
        if found is None:
            found = self._cache[key] = self._classify(name, self._contract(name, call))
        return found

    def _contract(self, name: str, call: ToolCall) -> ToolContract:
        from jsoncontract.model import Source, ToolContract

        contract = self.tools.get(name) if self.tools is not None else None
        if contract is not None:
            return contract
        session = call.session
        entry: Any = session.tools.get(name) if session and session.tools else None
        if isinstance(entry, dict):
            schema = entry.get("inputSchema")
            notes = entry.get("annotations")
            return ToolContract(
                name,
                schema if isinstance(schema, dict) else {},
                "mcp",
                Source(session.id if session else ""),
                annotations=notes if isinstance(notes, dict) else None,
            )
        return ToolContract(name, {}, "mcp", Source(""))

    def _classify(self, name: str, tool: ToolContract) -> Effect:
        classes = {c for c, names in self.listed.items() if name in names}
        if classes:
            return Effect(frozenset(classes), "listed in [session.side_effects]")
        notes = tool.annotations or {}
        kind = self.tracker.classify(tool)
        if notes.get("destructiveHint") is True:
            classes.add("destructive")
        if kind.writes:
            classes.add("write")
            words = name_words(name)
            classes.update(c for c, verbs in VERBS.items() if words & verbs)
        because = (
            "MCP annotation destructiveHint: true"
            if "destructive" in classes
            else f"it writes ({kind.because}) and its name says so"
            if kind.writes
            else kind.because
        )
        return Effect(frozenset(classes), because)


class TurnCheck:
    """``session.parallel_side_effects`` (see the module)."""

    def __init__(self, effects: SideEffects, serial: frozenset[str]) -> None:
        self.effects = effects
        self.serial = serial
        self._turn: str | None = None
        self._seen: list[tuple[str | None, str]] = []  # this turn's side-effect calls, class
        self.first: str | None = None  # the first turn seen
        self._serial: dict[str, bool] = {}  # per tool of a lone model call: serial?

    def call(self, checked: CallResult) -> list[Finding]:
        """A finding when the call is another serial side effect of its turn."""
        call = checked.call
        turn = call.turn
        if turn is None:
            return []
        if self.first is None:
            self.first = turn
        if turn != self._turn:
            self._turn = turn
            self._seen = []
        classes = self.effects.of(call).classes & self.serial
        if not classes:
            return []
        kind = sorted(classes, key=CLASSES.index)[0]
        earlier = self._seen[:5]
        count = len(self._seen)
        self._seen.append((call.tool, kind))
        if not count:
            return []
        others = ", ".join(f"{tool} ({k})" for tool, k in earlier)
        more = f" and {count - 5} more" if count > 5 else ""
        return [
            Finding(
                codes.SESSION_PARALLEL_SIDE_EFFECTS,
                Severity.WARNING,
                f"{call.tool} ({kind}) is in the same assistant turn as {others}{more}: "
                "the host may run the calls of one turn at once, so side effects race",
                hint="run payment, messaging and deletion calls one at a time: turn parallel "
                "tool calls off for such tools (parallel_tool_calls: false, "
                "disable_parallel_tool_use: true) or have the host serialise them",
            )
        ]

    def passed(self, passed: PassedCall) -> list[Finding]:
        """:meth:`call` for a lone model call that passed the fast lane: a tool without
        serial side effects only moves the turn on, and only when that matters (this turn
        holds side effects, or no turn was seen yet); a call outside any turn (an MCP
        request) changes nothing."""
        if passed.turn is None:
            return []
        serial = self._serial.get(passed.tool)
        if serial is None:
            classes = self.effects.of(passed.call()).classes
            serial = self._serial[passed.tool] = bool(classes & self.serial)
        if serial:
            return self.call(passed.result())
        if self._seen or self.first is None:
            turn = passed.turn
            if self.first is None:
                self.first = turn
            if turn != self._turn:
                self._turn = turn
                self._seen = []
        return []

    def event(self, event: TraceEvent) -> list[Finding]:
        """Nothing."""
        return []

    def close(self) -> list[Finding]:
        """Nothing."""
        return []

    # -- a run checked in parts (see :mod:`jsoncontract.pipeline.contracts`) -------------

    def state(self) -> tuple[str | None, str | None, list[tuple[str | None, str]]]:
        """What a part leaves: its first turn, its current turn and that turn's side effects
        (with no side effect in it, the current turn's key does not matter)."""
        return self.first, self._turn, self._seen

    def adopt(self, state: tuple[str | None, str | None, list[tuple[str | None, str]]]) -> None:
        """Continue from ``state``."""
        self.first, self._turn, self._seen = state[0], state[1], list(state[2])

    def follows(self, state: tuple[str | None, str | None, list[Any]], files: Any) -> bool:
        """Whether a part that started with no turn saw what this check would have: this
        turn holds no side effect, or the part's first turn is another."""
        first = state[0]
        return not self._seen or first is None or first != self._turn

    def absorb(self, state: tuple[str | None, str | None, list[tuple[str | None, str]]]) -> None:
        """Continue after a part that :meth:`follows` this check."""
        first, turn, seen = state
        if first is not None:
            self._turn, self._seen = turn, list(seen)
            if self.first is None:
                self.first = first
