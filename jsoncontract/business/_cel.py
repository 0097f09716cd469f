"""The CEL engine behind business rules: Google's CEL C++ runtime (``cel-expr-python``).

Every expression is parsed **and type-checked** once, when the rules load: a syntax error,
an undeclared variable (``slef.x``), an unknown dataset (``data.ordrs``) or an operator
applied to the wrong types (``"a" + 1``) stops the load with its line and column. At run
time one activation per call binds the variables; the runtime converts a variable from
Python only when an expression reads it, so unused datasets cost nothing.

Variables: ``self`` (the scoped value), ``args`` (all arguments), ``context``, ``call``
(``tool``, ``hop``, ``call_id``, ``dialect``), ``now`` (a timestamp), ``result`` (what the
call returned, when the capture holds a successful result) and one ``data.NAME`` per
dataset. Functions beyond standard CEL and its strings / math / optional / bindings
extensions: ``date(string)`` (an ISO date at midnight UTC, as a timestamp), ``days(int)``
(a duration), and ``data.NAME.has(key)`` / ``data.NAME.get(key)`` (hash lookups).

``x in data.NAME``, where ``x`` is a field path (``self.order_id``, ``args.a.b``,
``context.role``), is compiled as ``data.NAME.has(x)``: the same answer, without handing
the whole dataset to the runtime for each call.
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from jsoncontract.business.data import Dataset

#: Comprehension steps the runtime allows in one evaluation before it stops it (measured
#: on cel-expr-python 0.1: a comprehension of 9,999 steps runs, one of 10,000 stops).
RUNTIME_ITERATIONS: Final = 10_000

#: Variables every expression may use, besides ``data.NAME``.
VARIABLES: Final = ("self", "args", "context", "call", "now", "result")

_COMPILE_ERROR: Final = re.compile(r"ERROR: <input>:(\d+):(\d+): (.*?)(?:\n|$)")
_STATUS: Final = re.compile(r"^[A-Z_]+: ")
_CONTAINER: Final = re.compile(r" \(in container '[^']*'\)")
_KEY_NOT_FOUND: Final = re.compile(r"Key not found in map : (.*)")
_TRAILING_STATUS: Final = re.compile(r"\s*\[[A-Z_]+\]\s*$")
_IDENT: Final = r"[A-Za-z_][A-Za-z0-9_]*"
_PLAIN_TOKEN: Final = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_ .-]*")
_FIELD_PATH: Final = re.compile(rf"(?:self|args|context|call|result)(?:\.{_IDENT})*")


class CelCompileError(Exception):
    """An expression that does not parse or type-check: 1-based line and column in it."""

    def __init__(self, message: str, line: int, column: int, more: int = 0) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.more = more


@dataclass(frozen=True, slots=True)
class Expression:
    """A compiled expression: its source, its static result type, the program, and the
    checked form of the source as written (for the schema-aware checks)."""

    source: str
    result_type: str
    program: Any
    checked: Any = None


def _date(text: str) -> datetime.datetime:
    """``date("2025-10-31")``: midnight UTC of an ISO 8601 date (a full timestamp is
    accepted too)."""
    if len(text) == 10:
        day = datetime.date.fromisoformat(text)
        return datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.UTC)
    moment = datetime.datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=datetime.UTC)


def _days(count: int) -> datetime.timedelta:
    return datetime.timedelta(days=count)


class CelEnvironment:
    """One CEL environment for a set of rules: declared variables, datasets and functions.

    Arguments:
        datasets: the reference data, by name.
        names: the variables expressions may read (besides ``data.NAME``); ``now`` is a
            timestamp, the others are dynamic.
    """

    def __init__(self, datasets: dict[str, Dataset], names: Iterable[str] = VARIABLES) -> None:
        from cel_expr_python import cel
        from cel_expr_python.ext import ext_bindings, ext_math, ext_optional, ext_strings

        self._cel = cel
        self.datasets = datasets
        kind = cel.Type
        variables: dict[str, Any] = dict.fromkeys(names, kind.DYN)
        if "now" in variables:
            variables["now"] = kind.TIMESTAMP
        functions = [
            cel.FunctionDecl(
                "date",
                [cel.Overload("jc_date_string", kind.TIMESTAMP, [kind.STRING], impl=_date)],
            ),
            cel.FunctionDecl(
                "days", [cel.Overload("jc_days_int", kind.DURATION, [kind.INT], impl=_days)]
            ),
        ]
        # The runtime does not dispatch a dyn parameter, so each lookup has one overload
        # per key type a dataset can hold.
        key_types = (("string", kind.STRING), ("int", kind.INT), ("double", kind.DOUBLE))
        for name, dataset in datasets.items():
            variables[f"data.{name}"] = kind.DYN
            functions.append(
                cel.FunctionDecl(
                    f"data.{name}.has",
                    [
                        cel.Overload(f"jc_{name}_has_{t}", kind.BOOL, [k], impl=dataset.has)
                        for t, k in key_types
                    ],
                )
            )
            functions.append(
                cel.FunctionDecl(
                    f"data.{name}.get",
                    [
                        cel.Overload(f"jc_{name}_get_{t}", kind.DYN, [k], impl=dataset.get)
                        for t, k in key_types
                    ],
                )
            )
        self._env = cel.NewEnv(
            variables=variables,
            functions=functions,
            extensions=[
                ext_strings.ExtStrings(),
                ext_math.ExtMath(),
                ext_optional.ExtOptional(),
                ext_bindings.ExtBindings(),
            ],
        )
        self._error_type = kind.ERROR
        self._whole: set[str] = set()  # datasets some program reads whole

    def compile(self, source: str, scope: tuple[str, ...] = ()) -> Expression:
        """Parse and type-check ``source``.

        Arguments:
            source: the expression.
            scope: the reference tokens of the rule's scope. A plain one (no ``*``, no
                index) is compiled into the program as ``cel.bind(self, args["a"]["b"],
                ...)``, so the call's one activation serves every rule.

        Raises:
            CelCompileError: with the first error's line, column and message.
        """
        try:
            checked = self._env.compile(source)
        except RuntimeError as exc:
            raise _compile_error(str(exc)) from None
        program = checked
        fast = rewrite_membership(source, self.datasets)
        if scope_binds(scope):
            select = "args" + "".join(f'["{token}"]' for token in scope)
            fast = f"cel.bind(self, {select}, {fast})"
        if fast != source:
            try:
                program = self._env.compile(fast)
            except RuntimeError:  # pragma: no cover - the rewrite keeps a checked expression valid
                program, fast = checked, source
        for name in self.datasets:
            if re.search(rf"\bdata\.{name}\b(?!\.(?:has|get)\()", fast):
                self._whole.add(name)
        return Expression(source, checked.return_type().name(), program, checked)

    def activation(self, variables: dict[str, Any]) -> Any:
        """Bind the variables of one evaluation (converted lazily, on first read)."""
        return self._env.Activation(variables)

    def evaluate(self, expression: Expression, activation: Any) -> tuple[Any, str | None]:
        """``(value, None)``, or ``(None, error message)`` when evaluation failed (an error
        value, or an evaluation the runtime stopped: over its iteration limit, or a result
        it cannot hand back)."""
        try:
            result = expression.program.eval(activation)
            value = result.value()
        except (RuntimeError, TypeError, ValueError, OverflowError) as exc:
            return None, runtime_message(str(exc))
        if value is True:  # the common case: one call into the runtime, not two
            return True, None
        if result.type() == self._error_type:
            return None, runtime_message(str(value))
        return value, None

    def dataset_values(self) -> dict[str, Any]:
        """``data.NAME`` bindings of the datasets some expression reads whole (the runtime
        converts them only when read); lookups through ``has``/``get`` need none."""
        return {
            f"data.{name}": dataset.value()
            for name, dataset in self.datasets.items()
            if name in self._whole
        }


def reads(expression: Expression, name: str) -> bool:
    """Whether ``expression`` reads the variable ``name`` (a comprehension variable of the
    same name does not count)."""
    from jsoncontract.business.celast import AstError, Comprehension, Ident, children, read_checked

    if not re.search(rf"\b{re.escape(name)}\b", expression.source):
        return False
    try:
        ast = read_checked(expression.checked.serialize(), expression.source)
    except AstError:  # pragma: no cover - a runtime whose serialisation this cannot read
        return True
    stack: list[tuple[Any, frozenset[str]]] = [(ast.root, frozenset())]
    while stack:
        node, bound = stack.pop()
        if isinstance(node, Ident) and node.name == name and name not in bound:
            return True
        if isinstance(node, Comprehension):
            inner = bound | {node.iter_var, node.iter_var2, node.accu_var}
            stack.append((node.iter_range, bound))
            stack.append((node.accu_init, bound))
            stack.extend((n, inner) for n in (node.loop_condition, node.loop_step, node.result))
            continue
        stack.extend((child, bound) for child in children(node))
    return False


def scope_binds(scope: tuple[str, ...]) -> bool:
    """Whether a scope can be bound inside the program (plain member names only)."""
    return bool(scope) and all(_PLAIN_TOKEN.fullmatch(t) and not t.isdigit() for t in scope)


def _compile_error(text: str) -> CelCompileError:
    found = _COMPILE_ERROR.findall(text)
    if not found:
        return CelCompileError(_STATUS.sub("", text.strip()).split("\n")[0], 1, 1)
    line, column, message = found[0]
    message = _CONTAINER.sub("", message).strip()
    return CelCompileError(message, int(line), int(column), more=len(found) - 1)


def runtime_message(text: str) -> str:
    """A runtime error of the engine, made readable: ``no such key: "x"``."""
    text = _STATUS.sub("", text.strip())
    missing = _KEY_NOT_FOUND.match(text)
    if missing:
        return f"no such key: {missing.group(1)}"
    if "Iteration budget exceeded" in text:
        return (
            f"stopped at the run-time limit of {RUNTIME_ITERATIONS:,} comprehension steps "
            "in one evaluation (the lists it iterates are too long)"
        )
    if "Unable to convert function return value" in text:
        return "the result cannot be read back (an optional or another CEL-only value)"
    return _TRAILING_STATUS.sub("", text).split("\n")[0]


# -- membership rewrite -------------------------------------------------------------------

_BEFORE_OK: Final = ("(", "[", "{", ",", "&&", "||", "?", ":")
_AFTER_OK: Final = (")", "]", "}", ",", "&&", "||", "?", ":", "==", "!=")


def _string_spans(source: str) -> list[tuple[int, int]]:
    """Spans of string and bytes literals (and comments), which the rewrite must not touch."""
    spans: list[tuple[int, int]] = []
    i, n = 0, len(source)
    while i < n:
        char = source[i]
        if char == "/" and source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            spans.append((i, end))
            i = end
            continue
        if char in "\"'":
            raw = i > 0 and source[i - 1] in "rR"
            quote = source[i : i + 3] if source.startswith(char * 3, i) else char
            j = i + len(quote)
            while j < n and not source.startswith(quote, j):
                j += 2 if source[j] == "\\" and not raw else 1
            end = min(n, j + len(quote))
            spans.append((i, end))
            i = end
            continue
        i += 1
    return spans


def rewrite_membership(source: str, datasets: Iterable[str] | dict[str, Any]) -> str:
    """Turn ``<field path> in data.NAME`` into ``data.NAME.has(<field path>)``.

    Only where the result cannot differ: the left side is a plain field path and the
    neighbours bind less tightly than ``in`` (``&&``, ``||``, ``?:``, ``,``, brackets,
    ``==``/``!=`` after). Anything else is left as written.
    """
    names = sorted(datasets, key=len, reverse=True)
    if not names or " in " not in source:
        return source
    pattern = re.compile(
        rf"(?<![\w.])({_FIELD_PATH.pattern})\s+in\s+data\.({'|'.join(map(re.escape, names))})"
        rf"(?![\w])"
    )
    spans = _string_spans(source)

    def inside_literal(at: int) -> bool:
        return any(start <= at < end for start, end in spans)

    out: list[str] = []
    last = 0
    for match in pattern.finditer(source):
        start, end = match.span()
        if inside_literal(start) or not _bounded(source, start, end):
            continue
        out.append(source[last:start])
        out.append(f"data.{match.group(2)}.has({match.group(1)})")
        last = end
    if not out:
        return source
    out.append(source[last:])
    return "".join(out)


def _bounded(source: str, start: int, end: int) -> bool:
    before = source[:start].rstrip()
    after = source[end:].lstrip()
    ok_before = not before or before.endswith(_BEFORE_OK)
    ok_after = not after or (after.startswith(_AFTER_OK) and not after.startswith((".", "[")))
    return ok_before and ok_after
