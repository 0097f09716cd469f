"""The escape hatch: a business rule written as a Python function.

A rule ``python = "module:function"`` names a function called as ``function(arguments,
context)`` for every call of its tool. It answers with:

- ``None`` or ``True``: the call passes;
- ``False``: the call fails with the rule's ``message``;
- a string: the call fails with that message;
- a mapping ``{"message": .., "path": .., "severity": .., "hint": ..}`` (only ``message`` is
  required; ``path`` is a JSON Pointer into the arguments), or a list of them (and strings).

Anything else is "junk" and becomes a finding naming the rule, as does an exception raised
inside the function. The function gets copies of the arguments and the context: what it
changes there stays there. Each call runs on a worker thread with a time limit (``timeout``,
1 s by default); a function that overruns is reported and not called again in that run, so
one hung rule cannot stall a CI job. What the function prints goes to stderr, never into
a report on stdout.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import queue
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from jsoncontract.errors import ConfigError

_SEVERITIES: Final = ("error", "warning", "info")
_STOP: Final = object()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one Python rule said about one call.

    ``failures`` are ``(message, path, severity or None, hint or None)``; ``problem`` is set
    when the function itself misbehaved (raised, overran, returned junk).
    """

    failures: tuple[tuple[str, str, str | None, str | None], ...] = ()
    problem: str | None = None


def import_function(target: str, *, near: Path | None = None) -> Callable[..., Any]:
    """Import ``module:function``; ``near`` (the rules file's directory) is searched first.

    Raises:
        ConfigError: the module cannot be imported or has no such callable.
    """
    module_name, _, function_name = target.partition(":")
    added = False
    if near is not None and str(near) not in sys.path:
        sys.path.insert(0, str(near))
        added = True
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # any import-time failure of user code stops the load
        raise ConfigError(
            f"cannot import {module_name!r} for python rule {target!r}: {type(exc).__name__}: {exc}"
        ) from None
    finally:
        if added:
            sys.path.remove(str(near))
    function = getattr(module, function_name, None)
    if not callable(function):
        raise ConfigError(f"module {module_name!r} has no function {function_name!r}")
    return function  # type: ignore[no-any-return]


class PythonRunner:
    """Runs one Python rule's function with a time limit, on its own daemon thread.

    The worker thread is a daemon so that a function that never returns cannot keep the
    process alive at exit.
    """

    def __init__(self, function: Callable[..., Any], *, timeout: float, label: str) -> None:
        self.function = function
        self.timeout = timeout
        self.label = label
        self.timed_out = False
        self._jobs: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._results: queue.SimpleQueue[tuple[bool, Any]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None

    def _work(self) -> None:
        function = self.function
        while True:
            job = self._jobs.get()
            if job is _STOP:
                return
            try:
                # what the function prints goes to stderr: stdout may be carrying a report
                with contextlib.redirect_stdout(sys.stderr):
                    self._results.put((True, function(*job)))
            except BaseException as exc:
                self._results.put((False, exc))

    def run(self, arguments: Any, context: Mapping[str, Any]) -> Outcome:
        """Call the function once and interpret what it returns."""
        if self.timed_out:
            return Outcome(
                problem=f"not run: it overran its {self.timeout:g} s limit on an earlier call"
            )
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._work, name=f"jsoncontract rule {self.label}", daemon=True
            )
            self._thread.start()
        # copies: the function may change what it gets, but not what later rules, the
        # idempotency checks and the report see (nor, if it overruns, the next calls)
        self._jobs.put((copy.deepcopy(arguments), copy.deepcopy(dict(context))))
        try:
            ok, value = self._results.get(timeout=self.timeout)
        except queue.Empty:
            self.timed_out = True
            return Outcome(problem=f"did not return within {self.timeout:g} s (time limit)")
        if not ok:
            return Outcome(problem=f"raised {type(value).__name__}: {value}")
        return interpret(value)

    def close(self) -> None:
        """Let the worker thread end (a hung one is left to die with the process)."""
        if self._thread is not None and not self.timed_out:
            self._jobs.put(_STOP)


def interpret(value: Any) -> Outcome:
    """Turn a Python rule's return value into an :class:`Outcome`."""
    if value is None or value is True:
        return Outcome()
    if value is False:
        return Outcome(failures=(("", "", None, None),))
    items = value if isinstance(value, list | tuple) else [value]
    failures: list[tuple[str, str, str | None, str | None]] = []
    for item in items:
        if isinstance(item, str):
            failures.append((item, "", None, None))
            continue
        if not isinstance(item, Mapping):
            return Outcome(problem=_junk(value))
        message = item.get("message")
        path = item.get("path", "")
        severity = item.get("severity")
        hint = item.get("hint")
        if (
            not isinstance(message, str)
            or not isinstance(path, str)
            or (path and not path.startswith("/"))
            or (severity is not None and severity not in _SEVERITIES)
            or (hint is not None and not isinstance(hint, str))
        ):
            return Outcome(problem=_junk(value))
        failures.append((message, path, severity, hint))
    return Outcome(failures=tuple(failures))


def _junk(value: Any) -> str:
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return (
        f"returned {text}: expected None/True (pass), False, a message string, a mapping "
        "with 'message' (and 'path', 'severity', 'hint'), or a list of those"
    )
