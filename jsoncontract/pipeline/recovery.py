"""How the agent reacts to an error result: stop, ask, or fix the one thing the error named.

After a call whose result says the tool failed (MCP ``isError``, a JSON-RPC error, Anthropic
``is_error``, an HTTP error status; where the wire has no flag, ``ok: false`` or an ``error``
by the result contract: :func:`~jsoncontract.pipeline.result.failed`), the next call of
the same tool in the same scope (an MCP session, else one hop of one capture file) is its
retry. This check
reports a retry that:

- repeats the failed call identically, beyond ``identical_retries`` times in a row
  (``session.identical_retry``): the same arguments get the same error;
- changes arguments outside the paths the error named (``session.unrelated_change``): the
  retry changes a member the error names (its texts, structured data read as JSON, hold
  the member's name; or the schema gate flagged it) and others it does not name. A retry
  that changes nothing the error named is not judged (it may be another request); a new
  idempotency key is no unrelated change;
- is a write sent again with only its idempotency key changed
  (``session.new_idempotency_key``): if the first attempt did write before failing, the
  server cannot tell the retry from a new write. A retry reuses its key.

Values are never quoted: findings name the changed members by JSON Pointer.

**State** (for a run checked in parts): per (scope, tool) whose last call failed, the failed
call's arguments, their hash, the words of its error (at most 2,048) and the count of
identical retries so far; at most :data:`FAILURES` entries (the oldest forgotten). A part read
on its own saw what the run would have when no failed call is remembered for an MCP
session or for the part's files (:meth:`RecoveryCheck.follows`).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from jsoncontract import codes
from jsoncontract.business.idempotency import arguments_digest
from jsoncontract.model import Finding, Severity, Stage
from jsoncontract.payload import texts
from jsoncontract.pipeline.pairing import Scope, passed_scope, scope_of
from jsoncontract.pipeline.result import failed as result_failed
from jsoncontract.pointer import join_pointer, pointer_tokens

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, PassedCall, ToolCall, TraceEvent
    from jsoncontract.pipeline.result import ResultContract
    from jsoncontract.pipeline.turns import SideEffects

#: How many failed (scope, tool) pairs are remembered at once.
FAILURES: Final = 8192
#: Identical retries after an error allowed before one is reported.
DEFAULT_IDENTICAL_RETRIES: Final = 2
#: How much of an error's text is read for the names it holds, and how many are kept.
_TEXT_LIMIT: Final = 65536
_WORDS: Final = 2048
#: How many changed members are compared (beyond: the arguments changed everywhere).
_DIFF_LIMIT: Final = 512
_TOKENS: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


@dataclass(slots=True)
class _Failed:
    arguments: Any
    digest: int
    named: frozenset[str]
    identical: int = 0
    reported: bool = False


class RecoveryCheck:
    """The reaction to error results (see the module).

    Arguments:
        identical_retries: identical retries allowed before one is reported.
        key_fields: argument names that hold an idempotency key.
        effects: what tells writes from reads.
        contract: the result contract, which tells an error result where the wire has no
            error flag (default: ``ok`` / ``error`` / ``data``).
    """

    def __init__(
        self,
        *,
        identical_retries: int = DEFAULT_IDENTICAL_RETRIES,
        key_fields: tuple[str, ...],
        effects: SideEffects,
        contract: ResultContract | None = None,
    ) -> None:
        self.identical_retries = identical_retries
        self.key_fields = key_fields
        self.effects = effects
        self.contract = contract
        self._failed: OrderedDict[tuple[Scope, str], _Failed] = OrderedDict()

    def call(self, checked: CallResult) -> list[Finding]:
        """Judge the call as a retry of its tool's last failed call, if it is one; remember
        it if it failed."""
        call = checked.call
        if call.tool is None or call.hop is None:
            return []
        arguments = checked.arguments if checked.arguments is not None else call.arguments
        if not isinstance(arguments, dict):
            return []
        key = (scope_of(call), call.tool)
        before = self._failed.pop(key, None)
        result = call.result
        failed = result is not None and result_failed(result, self.contract)
        if before is None:
            if failed:
                self._remember(key, _failure(checked, arguments))
            return []
        digest = arguments_digest(arguments)
        findings: list[Finding] = []
        if digest == before.digest:
            before.identical += 1
            if before.identical > self.identical_retries and not before.reported:
                before.reported = True
                findings.append(self._identical(call, before.identical))
            if failed:
                self._remember(key, before)
            return findings
        changed = list(changed_paths(before.arguments, arguments))
        keys = [p for p in changed if self._is_key(p)]
        if keys and len(keys) == len(changed) and "write" in self.effects.of(call).classes:
            findings.append(self._new_key(call, keys))
        else:
            fixed = [p for p in changed if _named(p, before.named)]
            unrelated = [p for p in changed if p not in keys and p not in fixed]
            if fixed and unrelated:
                findings.append(self._unrelated(call, unrelated, fixed))
        if failed:
            self._remember(key, _failure(checked, arguments))
        return findings

    def _is_key(self, pointer: str) -> bool:
        tokens = pointer_tokens(pointer)
        return len(tokens) == 1 and tokens[0] in self.key_fields

    def _remember(self, key: tuple[Scope, str], failed: _Failed) -> None:
        self._failed[key] = failed
        if len(self._failed) > FAILURES:
            self._failed.popitem(last=False)

    def _identical(self, call: ToolCall, count: int) -> Finding:
        return Finding(
            codes.SESSION_IDENTICAL_RETRY,
            Severity.WARNING,
            f"{call.tool} was called again with the same arguments after it failed: identical "
            f"retry {count} in a row (more than {self.identical_retries} allowed); the same "
            "call gets the same error",
            hint="after an error, fix what the error names, ask the user, or stop; retry an "
            "identical call only on a transient error, a bounded number of times",
        )

    def _new_key(self, call: ToolCall, keys: list[str]) -> Finding:
        return Finding(
            codes.SESSION_NEW_IDEMPOTENCY_KEY,
            Severity.WARNING,
            f"{call.tool} (a write) was retried after an error with a new idempotency key "
            f"({', '.join(keys)}) and otherwise the same arguments: if the first attempt "
            "wrote, this one writes again",
            path=keys[0],
            hint="retry a write with the key of the attempt it repeats; a new key means a "
            "new write",
        )

    def _unrelated(self, call: ToolCall, unrelated: list[str], fixed: list[str]) -> Finding:
        more = f" and {len(unrelated) - 5} more" if len(unrelated) > 5 else ""
        shown = ", ".join(unrelated[:5]) + more
        named = ", ".join(fixed[:5])
        return Finding(
            codes.SESSION_UNRELATED_CHANGE,
            Severity.WARNING,
            f"the retry of {call.tool} after an error changed {named}, which the error "
            f"named, and {shown}, which it did not",
            path=unrelated[0],
            hint="change what the error names and keep the rest: a retry that changes more "
            "may do something the user did not ask for",
        )

    def passed(self, passed: PassedCall) -> list[Finding]:
        """:meth:`call` for a lone model call that passed the fast lane (no result): only
        the retry of a failed call has anything to judge."""
        failed = self._failed
        if failed and (passed_scope(passed), passed.tool) in failed:
            return self.call(passed.result())
        return []

    def event(self, event: TraceEvent) -> list[Finding]:
        """Nothing."""
        return []

    def close(self) -> list[Finding]:
        """Nothing more."""
        self._failed.clear()
        return []

    # -- a run checked in parts (see :mod:`jsoncontract.pipeline.contracts`) -------------

    def state(self) -> OrderedDict[tuple[Scope, str], _Failed]:
        """The failed calls remembered."""
        return self._failed

    def adopt(self, state: OrderedDict[tuple[Scope, str], _Failed]) -> None:
        """Continue from ``state``."""
        self._failed = OrderedDict(state)

    def follows(self, state: OrderedDict[tuple[Scope, str], _Failed], files: Any) -> bool:
        """Whether a part of ``files`` that started with nothing remembered saw what this
        check would have: no failed call is remembered for an MCP session (which may span
        files) or a scope of those files, and the part remembers none."""
        return not state and not any(
            scope[0] == "mcp" or scope[1] in files for scope, _ in self._failed
        )

    def absorb(self, state: OrderedDict[tuple[Scope, str], _Failed]) -> None:
        """Continue after a part that :meth:`follows` this check (it remembers nothing)."""


def _failure(checked: CallResult, arguments: dict[str, Any]) -> _Failed:
    return _Failed(arguments, arguments_digest(arguments), error_words(checked))


def error_words(checked: CallResult) -> frozenset[str]:
    """The words the call's error names things by: the identifiers in its texts (its
    message, content and structured data, JSON read as JSON; at most :data:`_WORDS` of
    them), and the members of the paths the parse and schema gates flagged."""
    words: set[str] = set()
    for finding in checked.findings:
        if finding.stage in (Stage.PARSE, Stage.SCHEMA):
            words.update(pointer_tokens(finding.path))
    result = checked.call.result
    if result is None:
        return frozenset(words)
    budget = _TEXT_LIMIT
    for _, text in texts(result):
        if budget <= 0 or len(words) >= _WORDS:
            break
        sample = text[:budget]
        budget -= len(sample)
        words.update(_TOKENS.findall(sample))
    return frozenset(words)


def changed_paths(before: Any, after: Any, pointer: str = "") -> Iterator[str]:
    """The JSON Pointers where ``after`` differs from ``before``: members added, removed or
    changed, down to the first difference on each path (at most 512)."""
    stack = [(before, after, pointer)]
    count = 0
    while stack and count < _DIFF_LIMIT:
        old, new, where = stack.pop()
        if isinstance(old, dict) and isinstance(new, dict):
            deeper = []
            for name in sorted(old.keys() | new.keys()):
                if name not in old or name not in new:
                    count += 1
                    yield join_pointer(where, name)
                elif old[name] != new[name]:
                    deeper.append((old[name], new[name], join_pointer(where, name)))
            stack.extend(reversed(deeper))
        elif isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
            stack.extend(
                (old[index], new[index], f"{where}/{index}")
                for index in range(len(old) - 1, -1, -1)
                if old[index] != new[index]
            )
        else:
            count += 1
            yield where


def _named(pointer: str, named: frozenset[str]) -> bool:
    return any(token in named for token in pointer_tokens(pointer))
