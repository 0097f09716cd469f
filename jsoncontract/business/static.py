"""Checking one rule against its tool before any call: types, presence, cost.

:data:`SCHEMA_VARIABLES` is the one table of variables typed from a tool's schemas
(``args`` from the input schema, ``result`` from the output schema, dynamic when the tool
declares none; ``self`` is ``args`` narrowed by the rule's ``scope``).
The other variables have fixed types: ``call`` an object with ``tool``, ``hop``,
``call_id`` and ``dialect``, ``now`` a timestamp, ``data.NAME`` a list (a set) or a map of
rows (a table; a CSV or SQLite table's rows have its columns), and ``context`` is dynamic
(it has no schema).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.business.celast import AstError, Call, Ident, read_checked
from jsoncontract.business.celcheck import (
    RESULT_TYPE,
    Binding,
    CelChecker,
    Checked,
    Fact,
    Problem,
)
from jsoncontract.business.celtypes import (
    DYN,
    STRING,
    TIMESTAMP,
    CelType,
    Field,
    Kind,
    SchemaTyper,
    list_of,
    map_of,
    object_of,
    scope_type,
)
from jsoncontract.business.cost import DEFAULT_BUDGET, RUNTIME_ITERATIONS, estimate
from jsoncontract.model import Hop, Severity

if TYPE_CHECKING:
    from jsoncontract.business._cel import Expression
    from jsoncontract.business.celast import Ast, Expr
    from jsoncontract.business.data import Dataset
    from jsoncontract.model import ToolContract

#: Variables typed from the tool's schemas: name -> the schema they hold values of.
SCHEMA_VARIABLES: Final[dict[str, Callable[[ToolContract], Any]]] = {
    "args": lambda tool: tool.input_schema,
    "result": lambda tool: tool.output_schema,
}

#: The size taken for any value of the context (it has no schema): the caller's own data,
#: a role, a tenant, a short list.
CONTEXT_SIZE: Final = 1_000

COST: Final = "cost"
ITERATIONS: Final = "iterations"

_CALL: Final = object_of(
    {
        "tool": Field(STRING, True),
        "hop": Field(CelType(Kind.STRING, nullable=True, enum=tuple(h.value for h in Hop)), True),
        "call_id": Field(CelType(Kind.STRING, nullable=True), True),
        # no enum: a registry may read dialects beyond the built-in ones
        "dialect": Field(CelType(Kind.STRING, nullable=True), True),
    }
)


@dataclass(frozen=True, slots=True)
class RuleTypes:
    """What a rule's expressions are checked against: the variables and what the scope
    guarantees."""

    bindings: dict[str, Binding]
    facts: frozenset[Fact]


class ToolTypes:
    """The types of one tool's schema variables, read once for all its rules.

    Arguments:
        tool: the tool.
    """

    def __init__(self, tool: ToolContract) -> None:
        self.tool = tool
        self.roots: dict[str, CelType] = {}
        for name, schema_of in SCHEMA_VARIABLES.items():
            schema = schema_of(tool)
            self.roots[name] = (
                SchemaTyper(schema).type_of(schema) if isinstance(schema, dict | bool) else DYN
            )

    def for_scope(self, tokens: tuple[str, ...], plain: bool) -> tuple[RuleTypes, Any]:
        """The variables of a rule scoped to ``tokens`` (``plain``: no ``*``), and the
        :class:`~jsoncontract.business.celtypes.Scoped` result of following the scope."""
        args = self.roots.get("args", DYN)
        scoped = scope_type(args, tokens)
        bindings = {name: Binding(kind, (name,)) for name, kind in self.roots.items()}
        facts: set[Fact] = set()
        if not tokens:
            bindings["self"] = Binding(args, ("args",))
        elif plain:
            path = ("args", *tokens)
            bindings["self"] = Binding(scoped.type, path)
            for end in range(2, len(path) + 1):
                facts.add((path[:end], "present"))
                facts.add((path[:end], "nonnull"))
        else:
            bindings["self"] = Binding(scoped.type, ("self",))
            facts.add((("self",), "nonnull"))
        return RuleTypes(bindings, frozenset(facts)), scoped


def dataset_type(dataset: Dataset) -> CelType:
    """``data.NAME``: a set is a list of its members, a table a map of its rows (each
    bounded by what the data holds: the longest member, the longest cell of each column)."""
    if dataset.typed is None:
        dataset.typed = _dataset_type(dataset)
    typed: CelType = dataset.typed
    return typed


def _dataset_type(dataset: Dataset) -> CelType:
    key = _key_type(dataset)
    if dataset.rows is None:
        return list_of(key, len(dataset))
    columns = dataset.columns
    if columns is None:  # JSON rows may differ: every member seen, required where in all
        seen: dict[str, int] = {}
        for record in dataset.rows.values():
            for name in record:
                seen[name] = seen.get(name, 0) + 1
        columns = tuple(seen)
        required = {n for n, count in seen.items() if count == len(dataset.rows)}
    else:
        required = set(columns)
    cells: dict[str, list[Any]] = {c: [] for c in columns}
    for record in dataset.rows.values():
        for column in columns:
            if column in record:
                cells[column].append(record[column])
    row = object_of(
        {c: Field(_value_type(values), c in required) for c, values in cells.items()},
        closed=dataset.columns is not None,
    )
    return map_of(key, row, len(dataset))


def _key_type(dataset: Dataset) -> CelType:
    """The type of a dataset's keys, from what the loader saw of them."""
    kinds = dataset.key_kinds
    if kinds is None:
        return _value_type(dataset.keys)
    nullable = type(None) in kinds
    kinds = kinds - {type(None)}
    if kinds == {str}:
        return CelType(Kind.STRING, max_size=dataset.longest_key, nullable=nullable, min_json=2)
    if kinds == {int}:
        return CelType(Kind.INT, nullable=nullable)
    if kinds and kinds <= {int, float}:
        return CelType(Kind.NUMBER, nullable=nullable)
    return DYN


def _value_type(values: Collection[Any]) -> CelType:
    """The type of the values of a dataset column (or of a set), bounded by what it holds:
    the longest string, and for nested values the longest JSON text (C-level passes only:
    a set may hold millions of keys)."""
    import orjson

    nullable = None in values
    present = [v for v in values if v is not None] if nullable else values
    kinds = set(map(type, present))
    if not kinds:
        return CelType(Kind.NULL) if nullable else DYN
    if kinds == {str}:
        longest = max(map(len, present))
        return CelType(Kind.STRING, max_size=longest, nullable=nullable, min_json=2)
    if kinds == {int}:
        return CelType(Kind.INT, nullable=nullable)
    if kinds == {bool}:
        return CelType(Kind.BOOL, nullable=nullable)
    if kinds <= {int, float}:
        return CelType(Kind.NUMBER, nullable=nullable)
    strings = [v for v in present if isinstance(v, str)]
    nested = [orjson.dumps(v) for v in present if isinstance(v, dict | list)]
    longest = max([*map(len, strings), *map(len, nested), 1])
    return CelType(Kind.DYN, max_size=longest)


def fixed_bindings(datasets: Mapping[str, Dataset], ast: Ast) -> dict[str, Binding]:
    """``call``, ``now``, ``context`` and the datasets the expression names."""
    bindings = {
        "call": Binding(_CALL, ("call",)),
        "now": Binding(TIMESTAMP),
        "context": Binding(CelType(Kind.DYN, max_size=CONTEXT_SIZE)),
    }
    for name in _datasets_named(ast.root):
        dataset = datasets.get(name)
        if dataset is not None:
            bindings[f"data.{name}"] = Binding(dataset_type(dataset))
    return bindings


def _datasets_named(root: Expr) -> set[str]:
    from jsoncontract.business.celast import children

    found: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Ident) and node.name.startswith("data."):
            found.add(node.name[5:])
        elif isinstance(node, Call) and node.function.startswith("data."):
            found.add(node.function[5:].rsplit(".", 1)[0])
        stack.extend(children(node))
    return found


@dataclass(slots=True)
class ExpressionCheck:
    """The outcome of checking one expression: its problems, and its estimated cost and
    comprehension steps (``None`` when it was not estimated)."""

    problems: list[Problem]
    cost: int | None = None
    iterations: int | None = None


def check_expression(
    expression: Expression,
    types: RuleTypes,
    datasets: Mapping[str, Dataset],
    *,
    wanted: str,
    budget: int | None = DEFAULT_BUDGET,
) -> ExpressionCheck:
    """Type-check and cost-check one compiled expression.

    Arguments:
        expression: the compiled expression (its checked form is read back).
        types: the rule's variables.
        datasets: the reference data.
        wanted: ``bool`` (a rule) or ``string`` (a message expression).
        budget: the most cost units allowed (``None``: no limit).
    """
    try:
        ast = read_checked(expression.checked.serialize(), expression.source)
    except AstError:  # pragma: no cover - a runtime whose serialisation this cannot read
        return ExpressionCheck([])
    bindings = {**fixed_bindings(datasets, ast), **types.bindings}
    checker = CelChecker(ast, bindings, types.facts)
    checked = checker.check()
    problems = list(checked.problems)
    result = checked.type
    wanted_kind = Kind.BOOL if wanted == "bool" else Kind.STRING
    if result.kind not in (wanted_kind, Kind.DYN) and not checked.errors:
        article = "a bool" if wanted == "bool" else "a string"
        problems.append(
            Problem(
                RESULT_TYPE,
                Severity.ERROR,
                f"must give {article}, but it gives {result.describe()}",
                0,
            )
        )
    outcome = ExpressionCheck(problems)
    if checked.errors:
        return outcome
    _cost(ast, checked, checker, budget, outcome)
    return outcome


def _cost(
    ast: Ast, checked: Checked, checker: CelChecker, budget: int | None, outcome: ExpressionCheck
) -> None:
    found = estimate(ast, checked, checker.label)
    outcome.cost, outcome.iterations = found.cost, found.iterations
    if budget is not None and found.cost > budget:
        cause = found.unbounded[0] if found.unbounded else None
        reason = f": {cause.advice()}" if cause is not None else " even within the schema's bounds"
        hint = (
            f"add {cause.keyword} to the schema"
            + (f" at {cause.origin}" if cause.origin else "")
            + ", or raise cost_budget in [business]"
            if cause is not None and cause.keyword.startswith("max")
            else "simplify the rule, tighten the schema's bounds, or raise cost_budget in "
            "[business]"
        )
        outcome.problems.append(
            Problem(
                COST,
                Severity.ERROR,
                f"estimated worst-case cost {found.cost:,} is over the budget of "
                f"{budget:,}{reason}",
                cause.offset if cause is not None else 0,
                hint=hint,
                subject=cause.subject if cause is not None else None,
            )
        )
        return
    if found.iterations >= RUNTIME_ITERATIONS:
        cause = found.unbounded[0] if found.unbounded else None
        outcome.problems.append(
            Problem(
                ITERATIONS,
                Severity.WARNING,
                f"may run up to {found.iterations:,} comprehension steps, and the runtime "
                f"stops an evaluation at {RUNTIME_ITERATIONS:,}: on such calls the rule is "
                "reported as not evaluated",
                cause.offset if cause is not None else 0,
                hint="bound the lists it iterates (maxItems)",
                subject=cause.subject if cause is not None else None,
            )
        )
