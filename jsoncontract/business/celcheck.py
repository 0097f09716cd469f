"""The schema-aware check of one CEL expression.

The runtime's own checker sees ``self`` and ``args`` as dynamic, so it cannot know that
``self.amount_cent`` is a field the tool does not have, or that ``self.order_id + 1`` adds
a number to a string. ``cel-expr-python`` declares variables as primitives, lists and
maps of one value type (``Type.Map(STRING, DYN)``), and typed fields only as protobuf
messages from a descriptor pool: a JSON object's own fields, which of them are required,
and a JSON number that is an int or a double as written, cannot be declared to it.
:class:`CelChecker` walks the expression's syntax tree (:mod:`jsoncontract.business.celast`)
with the types the tool's schema gives
(:mod:`jsoncontract.business.celtypes`) and reports, each with its offset in the
expression:

errors (the rule would misfire on valid calls)
    ``unknown-field``: a field a closed object cannot have (with the closest declared
    name); ``type-mismatch``: an operator or function applied to kinds it has no overload
    for (``number-mixing`` when only some numbers fail: a JSON number is an int or a double,
    as written, and CEL never mixes the two in arithmetic), a comparison that can never be
    equal (``self.priority == 1``, or a value outside the field's ``enum``), iteration
    over something that is not a list or a map; ``result-type``: a rule that does not give
    a bool (a message expression that does not give a string).

warnings (the rule may fail on some calls, and the run-time finding stays as the net)
    ``optional-field``: a field the schema does not require, read without ``has()``, the
    ``?`` optional syntax, or a ``scope`` that guarantees it; ``nullable-field``: a value
    the schema allows to be null, used where null fails, without a null check.

Guards are read the way CEL evaluates: ``has(self.a) && self.a > 0`` and ``self.a > 0 &&
has(self.a)`` are both safe (an error on one side of ``&&`` is absorbed when the other
side is false), ``!has(self.a) || ...`` guards the right-hand side, ``c ? t : f`` guards
``t`` with ``c`` and ``f`` with ``!c``, and ``'a' in self`` counts as ``has(self.a)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from itertools import product
from typing import Any, Final

from jsoncontract._spelling import did_you_mean
from jsoncontract.business.celast import (
    ACCUMULATOR,
    Ast,
    Call,
    Comprehension,
    Const,
    CreateList,
    CreateStruct,
    Expr,
    Ident,
    Select,
)
from jsoncontract.business.celtypes import (
    BOOL,
    BYTES,
    DOUBLE,
    DURATION,
    DYN,
    EMPTY,
    INT,
    NULL,
    NUMERIC,
    STRING,
    TIMESTAMP,
    TYPE,
    UINT,
    CelType,
    Kind,
    join,
    list_of,
    map_of,
    optional_of,
)
from jsoncontract.business.signatures import Pattern, Signature, signatures
from jsoncontract.model import Severity

#: Problem codes (the rules check reports them as ``rules.<code>``).
UNKNOWN_FIELD: Final = "unknown-field"
TYPE_MISMATCH: Final = "type-mismatch"
NUMBER_MIXING: Final = "number-mixing"
RESULT_TYPE: Final = "result-type"
OPTIONAL_FIELD: Final = "optional-field"
NULLABLE_FIELD: Final = "nullable-field"

_PRESENT: Final = "present"
_NONNULL: Final = "nonnull"

Path = tuple[str, ...]
Fact = tuple[Path, str]

_KIND_TYPES: Final = {
    "int": INT,
    "uint": UINT,
    "double": DOUBLE,
    "string": STRING,
    "bytes": BYTES,
    "bool": BOOL,
    "null": NULL,
    "timestamp": TIMESTAMP,
    "duration": DURATION,
    "type": TYPE,
}
_OPERATORS: Final = {
    "_+_": "+",
    "_-_": "-",
    "_*_": "*",
    "_/_": "/",
    "_%_": "%",
    "_<_": "<",
    "_<=_": "<=",
    "_>_": ">",
    "_>=_": ">=",
    "-_": "unary -",
    "!_": "!",
}
#: ``math.greatest`` and ``math.least``, as the macros expand them (and as written).
_EXTREMA: Final = {
    "math.@max": "math.greatest",
    "math.@min": "math.least",
    "math.greatest": "math.greatest",
    "math.least": "math.least",
}
#: Equality classes: values of two different classes are never equal.
_EQ_CLASS: Final = {
    Kind.INT: "number",
    Kind.UINT: "number",
    Kind.DOUBLE: "number",
    Kind.NUMBER: "number",
    Kind.STRING: "string",
    Kind.BYTES: "bytes",
    Kind.BOOL: "bool",
    Kind.TIMESTAMP: "timestamp",
    Kind.DURATION: "duration",
    Kind.LIST: "list",
    Kind.MAP: "map",
    Kind.OBJECT: "map",
    Kind.TYPE: "type",
    Kind.OPTIONAL: "optional",
}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an expression, at ``offset`` in its source.

    ``subject`` is what the problem is about (a field path such as ``self.amount_cent``),
    ``suggestion`` the name probably meant.
    """

    code: str
    severity: Severity
    message: str
    offset: int
    hint: str | None = None
    subject: str | None = None
    suggestion: str | None = None


@dataclass(frozen=True, slots=True)
class Binding:
    """What a variable holds: its type and, for values read from the arguments, the path
    presence facts are kept under (``("args", "declared_value")``)."""

    type: CelType
    path: Path | None = None
    label: str | None = None


@dataclass(slots=True)
class Checked:
    """The outcome: the expression's type, its problems, and the type of every node."""

    type: CelType
    problems: list[Problem]
    types: dict[int, CelType] = field(default_factory=dict)

    @property
    def errors(self) -> list[Problem]:
        """The problems that stop a rule from loading."""
        return [p for p in self.problems if p.severity is Severity.ERROR]


@dataclass(frozen=True, slots=True)
class _Typed:
    type: CelType
    path: Path | None = None


class CelChecker:
    """Checks one expression against the types of its variables.

    Arguments:
        ast: the expression's syntax tree.
        variables: the type (and presence path) of each variable.
        facts: paths known present and non-null before anything is evaluated (a rule's
            scope guarantees its value exists).
    """

    def __init__(
        self,
        ast: Ast,
        variables: Mapping[str, Binding],
        facts: frozenset[Fact] = frozenset(),
    ) -> None:
        self.ast = ast
        self.variables = dict(variables)
        self.facts = facts
        self.problems: list[Problem] = []
        self.types: dict[int, CelType] = {}
        self._seen: set[tuple[str, int, str]] = set()
        self._scopes: list[dict[str, Binding]] = []
        self._quiet = 0

    def check(self) -> Checked:
        """Walk the expression once."""
        root = self._visit(self.ast.root, self.facts)
        return Checked(root.type, self.problems, self.types)

    # -- reporting ---------------------------------------------------------------------------

    def _at(self, node: Expr) -> Callable[[], int]:
        """Where ``node`` is, found only when a problem is reported there."""
        return lambda: self.ast.offset(node)

    def _field_at(self, node: Expr) -> Callable[[], int]:
        """Where the field name of a selection is, found only when reported."""
        if isinstance(node, Select | Call):
            return lambda: self.ast.field_offset(node)
        return lambda: 0

    def _report(
        self,
        code: str,
        severity: Severity,
        message: str,
        offset: int | Callable[[], int],
        *,
        hint: str | None = None,
        subject: str | None = None,
        suggestion: str | None = None,
    ) -> None:
        if self._quiet:
            return
        if callable(offset):
            offset = offset()
        key = (code, offset, message)
        if key in self._seen:
            return
        self._seen.add(key)
        self.problems.append(Problem(code, severity, message, offset, hint, subject, suggestion))

    # -- scopes ------------------------------------------------------------------------------

    def _lookup(self, name: str) -> Binding | None:
        for scope in reversed(self._scopes):
            if name in scope:
                return scope[name]
        return self.variables.get(name)

    # -- paths and facts ---------------------------------------------------------------------

    def _path(self, node: Expr) -> Path | None:
        """The access path of a plain read (``self.a.b``, ``x['k']``), or ``None``."""
        if isinstance(node, Ident):
            binding = self._lookup(node.name)
            return binding.path if binding is not None else None
        if isinstance(node, Select) and not node.test_only:
            base = self._path(node.operand)
            return (*base, node.field) if base is not None else None
        key = _literal_index(node)
        if key is not None and isinstance(node, Call):
            base = self._path(node.args[0])
            return (*base, key) if base is not None else None
        return None

    def _when(self, node: Expr, truth: bool) -> frozenset[Fact]:
        """What is known about the arguments when ``node`` evaluates to ``truth``."""
        if isinstance(node, Select) and node.test_only:
            base = self._path(node.operand)
            if base is None or not truth:
                return frozenset()
            return _present((*base, node.field))
        if not isinstance(node, Call):
            return frozenset()
        name, args = node.function, node.args
        if name == "!_" and len(args) == 1:
            return self._when(args[0], not truth)
        if name in ("_&&_", "_||_") and len(args) == 2:
            left, right = self._when(args[0], truth), self._when(args[1], truth)
            if (name == "_&&_") == truth:
                return left | right
            return left & right
        if name in ("_==_", "_!=_") and len(args) == 2:
            null_side = [isinstance(a, Const) and a.kind == "null" for a in args]
            if any(null_side) and not all(null_side) and truth == (name == "_!=_"):
                other = args[1] if null_side[0] else args[0]
                path = self._path(other)
                if path is not None:
                    return frozenset({(path, _NONNULL)})
            return frozenset()
        if name == "@in" and len(args) == 2 and truth:
            key = args[0]
            base = self._path(args[1])
            if isinstance(key, Const) and key.kind == "string" and base is not None:
                return _present((*base, key.value))
        return frozenset()

    # -- labels ------------------------------------------------------------------------------

    def label(self, node: Expr) -> str:
        """The expression as a person would write it (shortened when long)."""
        text = _render(node)
        return text if len(text) <= 60 else text[:57] + "..."

    # -- the walk ----------------------------------------------------------------------------

    def _visit(self, node: Expr, facts: frozenset[Fact]) -> _Typed:
        typed = self._dispatch(node, facts)
        self.types[node.id] = typed.type
        return typed

    def _dispatch(self, node: Expr, facts: frozenset[Fact]) -> _Typed:
        if isinstance(node, Const):
            return _Typed(_const_type(node))
        if isinstance(node, Ident):
            binding = self._lookup(node.name)
            if binding is None:
                return _Typed(DYN)
            return _Typed(binding.type, binding.path)
        if isinstance(node, Select):
            return self._select(node, facts)
        if isinstance(node, Call):
            return self._call(node, facts)
        if isinstance(node, CreateList):
            return self._list(node, facts)
        if isinstance(node, CreateStruct):
            return self._struct(node, facts)
        return self._comprehension(node, facts)

    def _read(
        self, operand: Expr, typed: _Typed, facts: frozenset[Fact], at: Callable[[], int]
    ) -> CelType:
        """The operand's type for selecting from it, warning when it may be null."""
        kind = typed.type
        if kind.nullable and typed.path is not None and (typed.path, _NONNULL) not in facts:
            subject = self.label(operand)
            self._report(
                NULLABLE_FIELD,
                Severity.WARNING,
                f"{subject} may be null (the schema allows null), and reading from null fails",
                at,
                hint=f"check {subject} != null first",
                subject=subject,
            )
        return kind.non_null()

    def _member(
        self,
        node: Expr,
        operand: Expr,
        typed: _Typed,
        name: str,
        facts: frozenset[Fact],
        *,
        presence_test: bool = False,
        optional: bool = False,
    ) -> _Typed:
        """The type of member ``name`` of ``operand`` (a field, or a map key)."""
        at = self._field_at(node)
        container = self._read(operand, typed, facts, self._at(node))
        subject = f"{self.label(operand)}.{name}"
        path = (*typed.path, name) if typed.path is not None else None
        kind = container.kind
        if kind is Kind.DYN:
            return _Typed(DYN, path)
        if kind is Kind.OPTIONAL:  # a.?b.c: c of an optional is an optional
            inner = container.elem or DYN
            found = self._member(node, operand, _Typed(inner), name, facts, optional=True)
            return _Typed(_as_optional(found.type))
        if kind is Kind.OBJECT:
            declared = container.field(name)
            if declared is None and container.closed:
                options = list(container.fields)
                guess = did_you_mean(name, options)
                tip = f"; did you mean {guess!r}?" if guess else ""
                listing = ", ".join(options[:12]) + (", ..." if len(options) > 12 else "")
                self._report(
                    UNKNOWN_FIELD,
                    Severity.ERROR,
                    f"{subject}: {self.label(operand)} has no field {name!r}{tip}",
                    at,
                    hint=f"its fields are {listing}" if options else "it has no fields",
                    subject=subject,
                    suggestion=guess,
                )
                return _Typed(DYN)
            if declared is None:
                member = container.extra or DYN
                if _unguarded(path, facts, presence_test or optional):
                    guess = did_you_mean(name, list(container.fields))
                    tip = f"; did you mean {guess!r}?" if guess else ""
                    self._report(
                        OPTIONAL_FIELD,
                        Severity.WARNING,
                        f"{subject} is not declared in the schema (which allows other fields), "
                        f"so it may be absent{tip}",
                        at,
                        hint=_guard_hint(self.label(operand), name),
                        subject=subject,
                        suggestion=guess,
                    )
                return _Typed(member, path)
            if not declared.required and _unguarded(path, facts, presence_test or optional):
                self._report(
                    OPTIONAL_FIELD,
                    Severity.WARNING,
                    f"{subject} is optional in the schema (not in required), and reading it "
                    "when it is absent fails",
                    at,
                    hint=_guard_hint(self.label(operand), name),
                    subject=subject,
                )
            return _Typed(declared.type, path)
        if kind is Kind.MAP:
            if _unguarded(path, facts, presence_test or optional):
                self._report(
                    OPTIONAL_FIELD,
                    Severity.WARNING,
                    f"{subject}: {self.label(operand)} is a map in the schema, so key "
                    f"{name!r} may be absent",
                    at,
                    hint=_guard_hint(self.label(operand), name),
                    subject=subject,
                )
            return _Typed(container.elem or DYN, path)
        self._report(
            TYPE_MISMATCH,
            Severity.ERROR,
            f"{subject}: {self.label(operand)} is {container.describe()}, which has no fields",
            at,
            subject=subject,
        )
        return _Typed(DYN)

    def _select(self, node: Select, facts: frozenset[Fact]) -> _Typed:
        operand = self._visit(node.operand, facts)
        found = self._member(
            node, node.operand, operand, node.field, facts, presence_test=node.test_only
        )
        if node.test_only:
            return _Typed(BOOL)
        return found

    # -- calls -------------------------------------------------------------------------------

    def _call(self, node: Call, facts: frozenset[Fact]) -> _Typed:
        name, args = node.function, node.args
        if name in ("_&&_", "_||_") and len(args) == 2 and node.target is None:
            return self._logical(node, facts)
        if name == "_?_:_" and len(args) == 3:
            condition = self._visit(args[0], facts)
            self._want_bool(args[0], condition.type, "the condition of ? :")
            true = self._visit(args[1], facts | self._when(args[0], True))
            false = self._visit(args[2], facts | self._when(args[0], False))
            return _Typed(join(true.type, false.type))
        if name in ("_==_", "_!=_") and len(args) == 2:
            left, right = (self._visit(a, facts) for a in args)
            self._equality(node, args, (left.type, right.type))
            return _Typed(BOOL)
        if name == "@in" and len(args) == 2:
            return self._in(node, facts)
        if name == "_[_]" and len(args) == 2:
            return self._index(node, facts)
        if name == "_?._" and len(args) == 2:
            operand = self._visit(args[0], facts)
            key = args[1]
            if isinstance(key, Const) and key.kind == "string":
                found = self._member(node, args[0], operand, key.value, facts, optional=True)
                return _Typed(_as_optional(found.type))
            return _Typed(optional_of(DYN))
        if name == "_[?_]" and len(args) == 2:
            container = self._visit(args[0], facts).type
            self._visit(args[1], facts)
            inner = container.elem if container.kind in (Kind.LIST, Kind.MAP) else None
            return _Typed(optional_of(inner or DYN))
        typed = [
            self._visit(a, facts)
            for a in ((node.target, *args) if node.target is not None else args)
        ]
        if name in ("dyn",):
            return _Typed(DYN)
        if name == "type":
            return _Typed(TYPE)
        if name in _EXTREMA:
            return self._extremum(node, typed)
        if name.startswith("data.") and name.endswith((".has", ".get")):
            return self._lookup_call(node, typed, facts)
        overloads = signatures().get(name)
        if overloads is None:
            return _Typed(DYN)
        member = node.target is not None
        candidates = [s for s in overloads if (s.receiver is not None) == member]
        candidates = [s for s in candidates if s.arity == len(typed)]
        if not candidates:
            return _Typed(DYN)
        result = self._resolve(node, candidates, typed, facts)
        self._special(node, typed)
        return _Typed(result)

    def _logical(self, node: Call, facts: frozenset[Fact]) -> _Typed:
        left, right = node.args
        truth = node.function == "_&&_"
        # an error on one side is absorbed when the other side decides the result, so each
        # side is guarded by what the other side says when it does not decide
        left_typed = self._visit(left, facts | self._when(right, truth))
        right_typed = self._visit(right, facts | self._when(left, truth))
        symbol = "&&" if truth else "||"
        self._want_bool(left, left_typed.type, f"{symbol}")
        self._want_bool(right, right_typed.type, f"{symbol}")
        return _Typed(BOOL)

    def _want_bool(self, node: Expr, kind: CelType, where: str) -> None:
        if kind.kind in (Kind.BOOL, Kind.DYN):
            return
        self._report(
            TYPE_MISMATCH,
            Severity.ERROR,
            f"{where} needs a bool, but {self.label(node)} is {kind.describe()}",
            self._at(node),
            subject=self.label(node),
        )

    def _equality(self, node: Call, args: tuple[Expr, ...], kinds: tuple[CelType, ...]) -> None:
        left, right = kinds
        always = "false" if node.function == "_==_" else "true"
        if _disjoint(left, right):
            self._report(
                TYPE_MISMATCH,
                Severity.ERROR,
                f"{self.label(args[0])} is {left.describe()} and {self.label(args[1])} is "
                f"{right.describe()}: they are never equal, so this comparison is always "
                f"{always}",
                self._at(node),
                subject=self.label(args[0]),
            )
            return
        for side, literal, subject_node in ((left, args[1], args[0]), (right, args[0], args[1])):
            if side.enum is None or not isinstance(literal, Const):
                continue
            if literal.kind not in ("string", "int", "uint", "double"):
                continue
            if self._path(subject_node) is None:
                continue
            if any(_same(literal.value, v) for v in side.enum):
                continue
            self._enum_miss(node, subject_node, side, literal.value, always)
            return

    def _enum_miss(
        self, node: Expr, subject_node: Expr, kind: CelType, value: Any, always: str
    ) -> None:
        assert kind.enum is not None
        options = [v for v in kind.enum if isinstance(v, str)]
        guess = did_you_mean(value, options) if isinstance(value, str) else None
        tip = f"; did you mean {guess!r}?" if guess else ""
        shown = ", ".join(_cel_literal(v) for v in kind.enum[:10])
        subject = self.label(subject_node)
        self._report(
            TYPE_MISMATCH,
            Severity.ERROR,
            f"{subject} is one of {shown} (its enum), never {_cel_literal(value)}, so this "
            f"comparison is always {always}{tip}",
            self._at(node),
            subject=subject,
            suggestion=guess,
        )

    def _in(self, node: Call, facts: frozenset[Fact]) -> _Typed:
        element_node, container_node = node.args
        element = self._visit(element_node, facts)
        container_typed = self._visit(container_node, facts)
        container = self._read(container_node, container_typed, facts, self._at(node))
        kind = container.kind
        value = element.type.non_null()
        if kind is Kind.LIST:
            wanted = container.elem or DYN
        elif kind is Kind.MAP:
            wanted = container.key or DYN
        elif kind is Kind.OBJECT:
            wanted = STRING
        elif kind is Kind.DYN:
            return _Typed(BOOL)
        else:
            self._report(
                TYPE_MISMATCH,
                Severity.ERROR,
                f"'in' needs a list or a map on its right, but {self.label(container_node)} "
                f"is {container.describe()}",
                self._at(node),
                subject=self.label(container_node),
            )
            return _Typed(BOOL)
        if _disjoint(value, wanted):
            self._report(
                TYPE_MISMATCH,
                Severity.ERROR,
                f"{self.label(element_node)} is {value.describe()}, but "
                f"{self.label(container_node)} holds {wanted.describe()} values: it is never "
                "in it",
                self._at(node),
                subject=self.label(element_node),
            )
        elif (
            value.enum is not None
            and isinstance(container_node, CreateList)
            and self._path(element_node) is not None
        ):
            for item in container_node.elements:
                if isinstance(item, Const) and not any(_same(item.value, v) for v in value.enum):
                    self._enum_miss(item, element_node, value, item.value, "false")
        return _Typed(BOOL)

    def _index(self, node: Call, facts: frozenset[Fact]) -> _Typed:
        container_node, key_node = node.args
        key = _literal_index(node)
        container_typed = self._visit(container_node, facts)
        index = self._visit(key_node, facts)
        if key is not None and container_typed.type.non_null().kind in (
            Kind.OBJECT,
            Kind.MAP,
            Kind.DYN,
            Kind.OPTIONAL,
        ):
            return self._member(node, container_node, container_typed, key, facts)
        container = self._read(container_node, container_typed, facts, self._at(node))
        kind = container.kind
        wanted: CelType
        if kind is Kind.LIST:
            wanted, result = INT, container.elem or DYN
        elif kind is Kind.MAP:
            wanted, result = container.key or DYN, container.elem or DYN
        elif kind is Kind.OBJECT:
            wanted, result = STRING, DYN
        elif kind is Kind.DYN:
            return _Typed(DYN)
        else:
            self._report(
                TYPE_MISMATCH,
                Severity.ERROR,
                f"{self.label(container_node)} is {container.describe()}, which cannot be "
                "indexed with []",
                self._at(node),
                subject=self.label(container_node),
            )
            return _Typed(DYN)
        given = index.type.non_null()
        if kind is Kind.LIST and given.kind in NUMERIC:
            return _Typed(result)  # the runtime takes any whole number as a list index
        if _disjoint(given, wanted):
            self._report(
                TYPE_MISMATCH,
                Severity.ERROR,
                f"{self.label(container_node)} is indexed by {wanted.describe()}, but "
                f"{self.label(key_node)} is {given.describe()}",
                self._at(node),
                subject=self.label(key_node),
            )
        return _Typed(result)

    def _extremum(self, node: Call, typed: list[_Typed]) -> _Typed:
        kinds = [t.type.non_null() for t in typed]
        if len(kinds) == 1 and kinds[0].kind is Kind.LIST:
            kinds = [kinds[0].elem or DYN]
        result: CelType = EMPTY
        for index, kind in enumerate(kinds):
            if kind.kind not in NUMERIC and kind.kind is not Kind.DYN:
                argument = node.args[index] if index < len(node.args) else node
                self._report(
                    TYPE_MISMATCH,
                    Severity.ERROR,
                    f"{_EXTREMA[node.function]}() takes numbers, but {self.label(argument)} is "
                    f"{kind.describe()}",
                    self._at(node),
                    subject=self.label(argument),
                )
                return _Typed(DYN)
            result = join(result, replace(kind, enum=None, max_size=None))
        return _Typed(DYN if result.kind is Kind.EMPTY else result)

    def _lookup_call(self, node: Call, typed: list[_Typed], facts: frozenset[Fact]) -> _Typed:
        name = node.function
        dataset = self._lookup(name.rsplit(".", 1)[0])
        if len(typed) == 1:
            given = self._read(node.args[0], typed[0], facts, self._at(node))
            if given.kind not in NUMERIC and given.kind not in (Kind.STRING, Kind.DYN):
                self._report(
                    TYPE_MISMATCH,
                    Severity.ERROR,
                    f"{name}() looks up a string or a number, but {self.label(node.args[0])} "
                    f"is {given.describe()}",
                    self._at(node),
                    subject=self.label(node.args[0]),
                )
        if name.endswith(".has"):
            return _Typed(BOOL)
        return _Typed(_row_type(dataset) if dataset is not None else DYN)

    def _resolve(
        self,
        node: Call,
        candidates: list[Signature],
        typed: list[_Typed],
        facts: frozenset[Fact],
    ) -> CelType:
        """Match the arguments' kinds against the overloads (a number is tried as an int
        and as a double: both must find an overload)."""
        arguments = (node.target, *node.args) if node.target is not None else node.args
        alternatives: list[list[CelType]] = []
        for argument, given in zip(arguments, typed, strict=True):
            kind = given.type
            if kind.nullable and kind.kind is not Kind.NULL:
                if given.path is not None and (given.path, _NONNULL) not in facts:
                    subject = self.label(argument)
                    self._report(
                        NULLABLE_FIELD,
                        Severity.WARNING,
                        f"{subject} may be null (the schema allows null), and "
                        f"{_function_label(node)} fails on null",
                        self._at(node),
                        hint=f"check {subject} != null first",
                        subject=subject,
                    )
                kind = kind.non_null()
            if kind.kind is Kind.NUMBER:
                alternatives.append([INT, DOUBLE])
            else:
                alternatives.append([kind])
        result: CelType = EMPTY
        failed: list[tuple[CelType, ...]] = []
        matched_any = False
        for combination in product(*alternatives):
            matches = [
                bound for s in candidates for bound in [_match(s, combination)] if bound is not None
            ]
            if not matches:
                failed.append(combination)
                continue
            matched_any = True
            for bound in matches:
                result = join(result, bound)
        if failed:
            self._mismatch(node, arguments, typed, failed, partial=matched_any)
            return DYN
        return DYN if result.kind is Kind.EMPTY else result

    def _mismatch(
        self,
        node: Call,
        arguments: tuple[Expr, ...],
        typed: list[_Typed],
        failed: list[tuple[CelType, ...]],
        *,
        partial: bool,
    ) -> None:
        where = _function_label(node)
        shown = ", ".join(
            f"{self.label(a)} ({t.type.non_null().name()})"
            for a, t in zip(arguments, typed, strict=True)
        )
        if partial:
            numbers = [
                self.label(a)
                for a, t in zip(arguments, typed, strict=True)
                if t.type.kind is Kind.NUMBER
            ]
            kinds = ", ".join(k.name() for k in failed[0])
            subject = numbers[0] if numbers else self.label(node)
            self._report(
                NUMBER_MIXING,
                Severity.ERROR,
                f"{where} fails when {subject} is written as "
                f"{'a whole number' if failed[0][0].kind is Kind.INT else 'a decimal'}: "
                f"{subject} is a JSON number (an int or a double, as the JSON was written), "
                f"and {where} has no overload for ({kinds})",
                self._at(node),
                hint=f"convert it first: double({subject}) (or int({subject}))",
                subject=subject,
            )
            return
        self._report(
            TYPE_MISMATCH,
            Severity.ERROR,
            f"{where} cannot be applied to {shown}: no overload takes these kinds",
            self._at(node),
            subject=self.label(arguments[0]) if arguments else None,
        )

    def _special(self, node: Call, typed: list[_Typed]) -> None:
        """Checks beyond kinds: a date handed to ``timestamp()``."""
        if node.function == "timestamp" and node.target is None and len(typed) == 1:
            given = typed[0].type
            if given.kind is Kind.STRING and given.format == "date":
                subject = self.label(node.args[0])
                self._report(
                    TYPE_MISMATCH,
                    Severity.ERROR,
                    f"timestamp() needs an RFC 3339 date-time, but {subject} is a date "
                    "(format: date), which it cannot parse",
                    self._at(node),
                    hint=f"use date({subject})",
                    subject=subject,
                )

    # -- literals ----------------------------------------------------------------------------

    def _list(self, node: CreateList, facts: frozenset[Fact]) -> _Typed:
        item: CelType = EMPTY
        for index, element in enumerate(node.elements):
            typed = self._visit(element, facts).type
            if index in node.optional and typed.kind is Kind.OPTIONAL:
                typed = typed.elem or DYN
            item = join(item, typed)
        return _Typed(list_of(item, len(node.elements)))

    def _struct(self, node: CreateStruct, facts: frozenset[Fact]) -> _Typed:
        keys: CelType = EMPTY
        values: CelType = EMPTY
        for entry in node.entries:
            if not isinstance(entry.key, str):
                keys = join(keys, self._visit(entry.key, facts).type)
            value = self._visit(entry.value, facts).type
            if entry.optional and value.kind is Kind.OPTIONAL:
                value = value.elem or DYN
            values = join(values, value)
        if node.message:
            return _Typed(DYN)
        return _Typed(map_of(keys, values, len(node.entries)))

    # -- comprehensions ----------------------------------------------------------------------

    def _comprehension(self, node: Comprehension, facts: frozenset[Fact]) -> _Typed:
        iter_range = self._visit(node.iter_range, facts)
        container = self._read(node.iter_range, iter_range, facts, self._at(node))
        kind = container.kind
        first: CelType
        second: CelType = DYN
        if kind is Kind.LIST:
            first, second = container.elem or DYN, container.elem or DYN
            if node.iter_var2:
                first = INT
        elif kind is Kind.MAP:
            first, second = container.key or DYN, container.elem or DYN
        elif kind is Kind.OBJECT:
            first, second = STRING, container.member_types()
        elif kind is Kind.DYN:
            first = DYN
        else:
            macro = self.ast.macro_name(node)
            self._report(
                TYPE_MISMATCH,
                Severity.ERROR,
                f"{macro}() iterates over a list or a map, but {self.label(node.iter_range)} is "
                f"{container.describe()}",
                self._at(node),
                subject=self.label(node.iter_range),
            )
            first = DYN
        init = self._visit(node.accu_init, facts)
        loop_key = f"@{node.id}"
        iteration: dict[str, Binding] = {}
        if node.iter_var:
            iteration[node.iter_var] = Binding(first, (f"{loop_key}:{node.iter_var}",))
        if node.iter_var2:
            iteration[node.iter_var2] = Binding(second, (f"{loop_key}:{node.iter_var2}",))
        accumulator = Binding(init.type, init.path if node.accu_var != ACCUMULATOR else None)
        # a first, silent pass finds what the accumulator grows into (``map`` starts from
        # an empty list and adds the mapped values)
        self._quiet += 1
        self._scopes.append({**iteration, node.accu_var: accumulator})
        try:
            step = self._visit(node.loop_step, facts)
        finally:
            self._scopes.pop()
            self._quiet -= 1
        grown = join(init.type, step.type) if node.accu_var == ACCUMULATOR else init.type
        accumulator = Binding(grown, accumulator.path)
        self._scopes.append({**iteration, node.accu_var: accumulator})
        try:
            self._visit(node.loop_condition, facts)
            self._visit(node.loop_step, facts)
        finally:
            self._scopes.pop()
        self._scopes.append({node.accu_var: accumulator})
        try:
            result = self._visit(node.result, facts)
        finally:
            self._scopes.pop()
        out = result.type
        if isinstance(node.accu_init, CreateList | CreateStruct) and out.kind in (
            Kind.LIST,
            Kind.MAP,
        ):
            out = replace(out, max_size=container.max_size if kind is not Kind.DYN else None)
        return _Typed(out, result.path if node.accu_var != ACCUMULATOR else None)


# -- helpers ----------------------------------------------------------------------------------


def _disjoint(a: CelType, b: CelType) -> bool:
    """Whether no value of ``a`` can equal a value of ``b`` (null and dyn equal anything
    for this purpose)."""
    left, right = _EQ_CLASS.get(a.kind), _EQ_CLASS.get(b.kind)
    return left is not None and right is not None and left != right


def _as_optional(kind: CelType) -> CelType:
    return kind if kind.kind is Kind.OPTIONAL else optional_of(kind)


def _present(path: Path) -> frozenset[Fact]:
    """A path and every prefix of it are present (and non-null)."""
    facts: set[Fact] = set()
    for end in range(1, len(path) + 1):
        facts.add((path[:end], _PRESENT))
        if end < len(path):
            facts.add((path[:end], _NONNULL))
    return frozenset(facts)


def _unguarded(path: Path | None, facts: frozenset[Fact], guarded: bool) -> bool:
    """Whether a read of ``path`` may meet an absent member: a read of the arguments (it has
    a path) that no presence test, ``?`` read or scope covers."""
    return not guarded and path is not None and (path, _PRESENT) not in facts


def _guard_hint(operand: str, name: str) -> str:
    return (
        f"guard it with has({operand}.{name}), read it as {operand}.?{name}.orValue(...), "
        f'or scope the rule to it (scope = "/.../{name}")'
    )


def _literal_index(node: Expr) -> str | None:
    if (
        isinstance(node, Call)
        and node.function == "_[_]"
        and len(node.args) == 2
        and isinstance(node.args[1], Const)
        and node.args[1].kind == "string"
    ):
        value = node.args[1].value
        return value if isinstance(value, str) else None
    return None


def _const_type(node: Const) -> CelType:
    kind = node.kind
    if kind == "string":
        return replace(STRING, max_size=len(node.value), enum=(node.value,))
    if kind == "bytes":
        return replace(BYTES, max_size=len(node.value))
    if kind in ("int", "uint", "double"):
        return replace(_KIND_TYPES[kind], enum=(node.value,))
    return _KIND_TYPES.get(kind, DYN)


def _same(a: Any, b: Any) -> bool:
    """JSON equality of a literal and an enum value (``1 == 1.0``; ``true != 1``)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def _cel_literal(value: Any) -> str:
    if isinstance(value, str):
        return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value)


def _function_label(node: Call) -> str:
    symbol = _OPERATORS.get(node.function)
    if symbol is not None:
        return f"'{symbol}'"
    if node.target is not None:
        return f".{node.function}()"
    return f"{node.function}()"


def _render(node: Expr) -> str:
    if isinstance(node, Ident):
        return "the accumulator" if node.name == ACCUMULATOR else node.name
    if isinstance(node, Const):
        return _cel_literal(node.value) if node.kind != "bytes" else "b'...'"
    if isinstance(node, Select):
        inner = _render(node.operand)
        return f"has({inner}.{node.field})" if node.test_only else f"{inner}.{node.field}"
    if isinstance(node, Call):
        name, args = node.function, node.args
        if name == "_[_]" and len(args) == 2:
            return f"{_render(args[0])}[{_render(args[1])}]"
        if name == "_?._" and len(args) == 2 and isinstance(args[1], Const):
            return f"{_render(args[0])}.?{args[1].value}"
        symbol = _OPERATORS.get(name)
        if symbol is not None and len(args) == 2:
            return f"{_render(args[0])} {symbol} {_render(args[1])}"
        if symbol is not None and len(args) == 1:
            return f"{symbol.removeprefix('unary ')}{_render(args[0])}"
        inner = ", ".join(_render(a) for a in args)
        name = _EXTREMA.get(name, name)
        if node.target is not None:
            return f"{_render(node.target)}.{name}({inner})"
        return f"{name}({inner})"
    if isinstance(node, CreateList):
        return "[" + ", ".join(_render(e) for e in node.elements) + "]"
    if isinstance(node, CreateStruct):
        return "{...}"
    return f"{_render(node.iter_range)}.<macro>(...)"


def _match(signature: Signature, kinds: tuple[CelType, ...]) -> CelType | None:
    """The result type when ``kinds`` fit ``signature``, else ``None``."""
    bound: dict[str, CelType] = {}
    for pattern, kind in zip(signature.inputs, kinds, strict=True):
        if not _fits(pattern, kind, bound):
            return None
    return _instantiate(signature.result, bound)


def _fits(pattern: Pattern, kind: CelType, bound: dict[str, CelType]) -> bool:
    if pattern.is_param:
        bound[pattern.name] = join(bound.get(pattern.name, EMPTY), kind)
        return True
    name = pattern.name
    if kind.kind in (Kind.DYN, Kind.EMPTY) or name == "dyn":
        for param in pattern.params:
            _fits(param, DYN, bound)
        return True
    if name == "num":
        return kind.kind in NUMERIC
    if name == "list":
        return kind.kind is Kind.LIST and _fits(pattern.params[0], kind.elem or DYN, bound)
    if name == "optional":
        return kind.kind is Kind.OPTIONAL and _fits(pattern.params[0], kind.elem or DYN, bound)
    if name == "map":
        if kind.kind is Kind.MAP:
            return _fits(pattern.params[0], kind.key or DYN, bound) and _fits(
                pattern.params[1], kind.elem or DYN, bound
            )
        if kind.kind is Kind.OBJECT:
            return _fits(pattern.params[0], STRING, bound) and _fits(pattern.params[1], DYN, bound)
        return False
    wanted = _KIND_TYPES.get(name)
    return wanted is not None and wanted.kind is kind.kind


def _instantiate(pattern: Pattern, bound: dict[str, CelType]) -> CelType:
    if pattern.is_param:
        found = bound.get(pattern.name, DYN)
        return DYN if found.kind is Kind.EMPTY else replace(found, enum=None)
    name = pattern.name
    if name == "list":
        return list_of(_instantiate(pattern.params[0], bound))
    if name == "map":
        key, value = (_instantiate(p, bound) for p in pattern.params)
        return map_of(key, value)
    if name == "optional":
        return optional_of(_instantiate(pattern.params[0], bound))
    if name in ("dyn", "num"):
        return DYN
    return _KIND_TYPES.get(name, DYN)


def _row_type(dataset: Binding) -> CelType:
    """``data.NAME.get(key)``: a table's row, a set's key; null when the key is missing."""
    kind = dataset.type
    if kind.kind is Kind.MAP:
        return replace(kind.elem or DYN, nullable=True)
    if kind.kind is Kind.LIST:
        return replace(kind.elem or DYN, nullable=True)
    return DYN
