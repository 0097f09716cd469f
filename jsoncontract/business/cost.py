"""The worst-case cost of a rule, estimated from the schema's bounds before any call.

The model follows the one Kubernetes applies to CRD validation rules (built on cel-go's
estimator): every step of an evaluation has a price in abstract units, and the price of
the expression is the sum over its worst case. How this estimator prices, in its own
terms:

- reading a variable or a field costs 1; a literal costs nothing; building a list literal
  costs 10 and a map literal 30, plus their elements;
- most functions and operators cost 1 plus their arguments; those that walk a string
  cost one unit per ten characters walked (``startsWith`` walks its argument,
  ``lowerAscii`` or ``date()`` the whole string, ``contains`` and ``indexOf`` the string
  times the text looked for, comparing two strings the shorter one); ``matches`` costs
  the walk of the string times a quarter of the pattern's length; ``x in list`` walks
  the list; ``x in data.NAME`` with a field path on the left, and ``data.NAME.has()`` /
  ``get()``, are hash lookups and cost 1;
- ``a && b``, ``a || b`` cost both sides; ``c ? t : f`` costs the condition and the dearer
  branch;
- a comprehension (``all``, ``exists``, ``exists_one``, ``map``, ``filter``) costs its
  range, plus, for every item the range can hold, its predicate or mapping once;
  ``cel.bind`` costs its value and its body once.

Sizes come from the types (:mod:`jsoncontract.business.celtypes`): ``maxLength``,
``maxItems``, ``maxProperties``, an ``enum``, an anchored ``pattern``, a ``format: date``,
the declared fields of a closed object, the length of a dataset, and the sizes of
literals and of what is built from them. Where the schema gives no bound, the estimate
takes the most the largest document jsoncontract reads (256 MiB) could hold, as
Kubernetes takes the largest request: a string of that many characters, or as many items
as fit at their smallest JSON size. That is what makes a comprehension over an array
without ``maxItems``, or a string function over a string without ``maxLength``, go over
the budget: the message names the value and the keyword to add.

The runtime keeps its own guard: an evaluation that runs more than
:data:`RUNTIME_ITERATIONS` comprehension steps is stopped and reported as a finding
(``rule could not be evaluated``). A rule whose worst case can go past that is a
warning at load.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from jsoncontract._files import MAX_DOCUMENT_BYTES
from jsoncontract.business._cel import RUNTIME_ITERATIONS as RUNTIME_ITERATIONS
from jsoncontract.business.celast import (
    Ast,
    Call,
    Comprehension,
    Const,
    CreateList,
    CreateStruct,
    Expr,
    Ident,
    Select,
    children,
)
from jsoncontract.business.celtypes import DYN, CelType, Kind

if TYPE_CHECKING:
    from jsoncontract.business.celcheck import Checked

#: The default budget of one expression, in cost units: one tenth of Kubernetes'
#: per-expression limit for CRD rules (its per-call run-time limit).
DEFAULT_BUDGET: Final = 1_000_000
#: The largest document jsoncontract reads: the size assumed for what the schema leaves
#: unbounded.
UNBOUNDED_BYTES: Final = MAX_DOCUMENT_BYTES
_WALK: Final = 0.1  # units per character walked
_REGEX: Final = 0.25  # units per pattern character
_LIST_LITERAL: Final = 10
_MAP_LITERAL: Final = 30
_MESSAGE_LITERAL: Final = 40
_STRING_WALKERS: Final = frozenset(
    {
        "lowerAscii",
        "upperAscii",
        "trim",
        "reverse",
        "substring",
        "charAt",
        "split",
        "format",
        "strings.quote",
        "date",
        "timestamp",
        "duration",
        "int",
        "uint",
        "double",
        "bytes",
        "string",
        "bool",
    }
)
_COMPARISONS: Final = frozenset({"_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"})
#: Upper bound of ``string(x)`` for a number, a timestamp or a duration.
_PRINTED: Final = 40


@dataclass(frozen=True, slots=True)
class Unbounded:
    """A value the schema leaves unbounded, sized by the stand-in: what to bound, where."""

    subject: str
    keyword: str
    assumed: int
    origin: str | None = None
    offset: int = 0

    def advice(self) -> str:
        """``self.tags has no maxItems (at #/properties/tags)``."""
        where = f" (at {self.origin})" if self.origin else ""
        unit = {"maxItems": "items", "maxProperties": "members"}.get(self.keyword, "characters")
        return (
            f"{self.subject} has no {self.keyword}{where}, so {self.assumed:,} {unit} are assumed"
        )


@dataclass(slots=True)
class Estimate:
    """The worst case of one expression: cost units, comprehension steps, and the
    unbounded values that drove them (the biggest first)."""

    cost: int
    iterations: int
    unbounded: list[Unbounded] = field(default_factory=list)


@dataclass(slots=True)
class _Size:
    items: int
    culprit: Unbounded | None = None


def _walk(size: int) -> int:
    return math.ceil(size * _WALK)


class Estimator:
    """Estimates one expression from its checked types.

    Arguments:
        ast: the expression's tree.
        checked: the schema-aware check of the same tree (the type of every node).
        label: renders a node for messages.
    """

    def __init__(self, ast: Ast, checked: Checked, label: object = None) -> None:
        self.ast = ast
        self.types = checked.types
        self._label = label
        self._sizes: dict[int, _Size] = {}
        self._locals: list[dict[str, _Size]] = []
        self.unbounded: dict[tuple[str, str], Unbounded] = {}

    def estimate(self) -> Estimate:
        """The worst case of the whole expression."""
        cost = self._cost(self.ast.root)
        iterations = self._iterations(self.ast.root)
        found = sorted(self.unbounded.values(), key=lambda u: -u.assumed)
        return Estimate(cost, iterations, found)

    # -- sizes -------------------------------------------------------------------------------

    def _type(self, node: Expr) -> CelType:
        return self.types.get(node.id, DYN)

    def _render(self, node: Expr) -> str:
        label = self._label
        if callable(label):
            text = label(node)
            return text if isinstance(text, str) else "a value"
        return "a value"

    def size(self, node: Expr) -> _Size:
        """The most items (characters, bytes, list items, members) ``node`` can hold."""
        found = self._sizes.get(node.id)
        if found is None:
            found = self._size(node)
            self._sizes[node.id] = found
        return found

    def _size(self, node: Expr) -> _Size:
        kind = self._type(node)
        if isinstance(node, Ident):
            for scope in reversed(self._locals):
                if node.name in scope:
                    return scope[node.name]
        if isinstance(node, Const) and isinstance(node.value, str | bytes):
            return _Size(len(node.value))
        if isinstance(node, CreateList):
            return _Size(len(node.elements))
        if isinstance(node, CreateStruct):
            return _Size(len(node.entries))
        if isinstance(node, Call):
            computed = self._call_size(node, kind)
            if computed is not None:
                return computed
        if kind.kind is Kind.DYN and kind.max_size is None:
            inherited = self._inside_dynamic(node)
            if inherited is not None:
                return inherited
        if isinstance(node, Comprehension):
            if isinstance(node.accu_init, CreateList | CreateStruct):
                return self.size(node.iter_range)
            if node.accu_var != "@result":  # cel.bind: the size of its body
                self._locals.append({node.accu_var: self.size(node.accu_init)})
                try:
                    return self.size(node.result)
                finally:
                    self._locals.pop()
        return self._from_type(node, kind)

    def _inside_dynamic(self, node: Expr) -> _Size | None:
        """A dynamic value read from inside another, or made by a function this estimator
        does not price: no larger than what it came from."""
        if isinstance(node, Select) and not node.test_only:
            return self.size(node.operand)
        if isinstance(node, Call):
            if node.function in ("_[_]", "_?._", "_[?_]") and node.args:
                return self.size(node.args[0])
            operands = (node.target, *node.args) if node.target is not None else node.args
            if not operands:
                return _Size(1)
            sizes = [self.size(o) for o in operands]
            return max(sizes, key=lambda s: s.items)
        return None

    def _from_type(self, node: Expr, kind: CelType, subject: str | None = None) -> _Size:
        kind = kind.non_null()
        if kind.max_size is not None:
            return _Size(kind.max_size)
        if kind.kind in (Kind.STRING, Kind.BYTES):
            assumed = UNBOUNDED_BYTES - 2
            return _Size(assumed, self._culprit(node, kind, "maxLength", assumed, subject))
        if kind.kind is Kind.LIST:
            item = kind.elem.min_json if kind.elem is not None else 1
            assumed = (UNBOUNDED_BYTES - 2) // (item + 1)
            return _Size(assumed, self._culprit(node, kind, "maxItems", assumed, subject))
        if kind.kind in (Kind.MAP, Kind.OBJECT):
            value = kind.elem or kind.extra
            minimum = value.min_json if value is not None else 1
            assumed = (UNBOUNDED_BYTES - 2) // (minimum + 6)
            return _Size(assumed, self._culprit(node, kind, "maxProperties", assumed, subject))
        if kind.kind in (Kind.INT, Kind.UINT, Kind.DOUBLE, Kind.NUMBER, Kind.BOOL):
            return _Size(1)
        if kind.kind is Kind.DYN:  # no type in the schema: as large as a document
            assumed = UNBOUNDED_BYTES - 2
            return _Size(assumed, self._culprit(node, kind, "type", assumed, subject))
        return _Size(1)

    def _culprit(
        self, node: Expr, kind: CelType, keyword: str, assumed: int, subject: str | None
    ) -> Unbounded:
        subject = subject or self._render(node)
        found = Unbounded(subject, keyword, assumed, kind.origin, self.ast.offset(node))
        self.unbounded.setdefault((subject, keyword), found)
        return found

    def _call_size(self, node: Call, kind: CelType) -> _Size | None:
        name, args = node.function, node.args
        operands = (node.target, *args) if node.target is not None else args
        if name == "_+_" and len(args) == 2 and kind.kind in (Kind.STRING, Kind.BYTES, Kind.LIST):
            left, right = self.size(args[0]), self.size(args[1])
            return _Size(left.items + right.items, left.culprit or right.culprit)
        if name == "_?_:_" and len(args) == 3:
            true, false = self.size(args[1]), self.size(args[2])
            return true if true.items >= false.items else false
        _same_size = ("lowerAscii", "upperAscii", "trim", "reverse", "substring", "split")
        if name in _same_size and node.target is not None:
            return self.size(node.target)
        if name == "replace" and node.target is not None and len(args) >= 2:
            base, new = self.size(node.target), self.size(args[1])
            return _Size(base.items * max(1, new.items), base.culprit or new.culprit)
        if name == "string" and len(operands) == 1:
            given = self._type(operands[0]).non_null().kind
            if given in (Kind.STRING, Kind.BYTES):
                return self.size(operands[0])
            return _Size(_PRINTED)
        if name == "dyn" and len(args) == 1:
            return self.size(args[0])
        return None

    # -- cost --------------------------------------------------------------------------------

    def _cost(self, node: Expr) -> int:
        if isinstance(node, Const):
            return 0
        if isinstance(node, Ident):
            return 1
        if isinstance(node, Select):
            return self._cost(node.operand) + 1
        if isinstance(node, CreateList):
            return _LIST_LITERAL + sum(self._cost(e) for e in node.elements)
        if isinstance(node, CreateStruct):
            base = _MESSAGE_LITERAL if node.message else _MAP_LITERAL
            total = base
            for entry in node.entries:
                if not isinstance(entry.key, str):
                    total += self._cost(entry.key)
                total += self._cost(entry.value)
            return total
        if isinstance(node, Comprehension):
            return self._comprehension(node)
        return self._call(node)

    def _call(self, node: Call) -> int:
        name, args = node.function, node.args
        if name == "_?_:_" and len(args) == 3:
            return self._cost(args[0]) + max(self._cost(args[1]), self._cost(args[2]))
        if name in ("_&&_", "_||_"):
            return sum(self._cost(a) for a in args)
        operands = (node.target, *args) if node.target is not None else args
        total = sum(self._cost(a) for a in operands)
        return total + self._function(node, operands)

    def _function(self, node: Call, operands: tuple[Expr, ...]) -> int:
        name = node.function
        target = node.target
        if name == "dyn":
            return 1
        if name in ("contains", "indexOf", "lastIndexOf") and target is not None and node.args:
            walked = _walk(self.size(target).items) * _walk(self.size(node.args[0]).items)
            return max(1, walked)
        if name in ("startsWith", "endsWith") and node.args:
            return max(1, _walk(self.size(node.args[0]).items))
        if name == "matches" and len(operands) == 2:
            text, pattern = operands
            walked = math.ceil((self.size(text).items + 1) * _WALK)
            return max(1, walked * math.ceil(self.size(pattern).items * _REGEX))
        if name in _COMPARISONS and len(operands) == 2:
            left, right = (self._type(o).non_null().kind for o in operands)
            if left in (Kind.STRING, Kind.BYTES) and right in (Kind.STRING, Kind.BYTES):
                shorter = min(self.size(operands[0]).items, self.size(operands[1]).items)
                return max(1, _walk(shorter))
            if name in ("_==_", "_!=_") and {left, right} & {Kind.LIST, Kind.MAP, Kind.OBJECT}:
                return max(1, min(self.size(operands[0]).items, self.size(operands[1]).items))
            return 1
        if name == "_+_" and len(operands) == 2:
            kind = self._type(node).non_null().kind
            if kind in (Kind.STRING, Kind.BYTES):
                return max(1, _walk(self.size(operands[0]).items + self.size(operands[1]).items))
            return 1
        if name == "@in" and len(operands) == 2:
            return self._membership(operands[0], operands[1])
        if name == "join" and target is not None:
            items = self.size(target).items
            element = self._type(target).non_null().elem
            each = element.max_size if element is not None and element.max_size else 1
            return max(1, _walk(items * each))
        if name in _STRING_WALKERS:
            subject = target if target is not None else (operands[0] if operands else None)
            if subject is not None and self._type(subject).non_null().kind in (
                Kind.STRING,
                Kind.BYTES,
            ):
                return max(1, _walk(self.size(subject).items))
            return 1
        return 1

    def _membership(self, element: Expr, container: Expr) -> int:
        kind = self._type(container).non_null().kind
        if kind is not Kind.LIST:
            return 1  # a map's keys, an object's members: a hash lookup
        if (
            isinstance(container, Ident)
            and container.name.startswith("data.")
            and _field_path(element)
        ):
            return 1  # compiled as data.NAME.has(...)
        return max(1, self.size(container).items)

    def _comprehension(self, node: Comprehension) -> int:
        total = self._cost(node.iter_range) + self._cost(node.accu_init)
        if node.accu_var != "@result":  # cel.bind
            self._locals.append({node.accu_var: self.size(node.accu_init)})
            try:
                return total + self._cost(node.result)
            finally:
                self._locals.pop()
        count = self.size(node.iter_range)
        item = self._item_size(node)
        scope = {node.iter_var: item} if node.iter_var else {}
        self._locals.append(scope)
        try:
            body = self._cost(node.loop_condition) + self._cost(node.loop_step)
        finally:
            self._locals.pop()
        return total + count.items * body + self._cost(node.result)

    def _item_size(self, node: Comprehension) -> _Size:
        """The size of one item of the range (for sized items: strings, lists)."""
        container = self._type(node.iter_range).non_null()
        item = container.elem if container.kind in (Kind.LIST, Kind.MAP) else None
        if container.kind is Kind.MAP or container.kind is Kind.OBJECT:
            item = container.key if container.kind is Kind.MAP else None
        if item is None:
            return _Size(1)
        subject = f"the items of {self._render(node.iter_range)}"
        return self._from_type(node.iter_range, item, subject)

    # -- iterations --------------------------------------------------------------------------

    def _iterations(self, node: Expr) -> int:
        if isinstance(node, Comprehension):
            outside = sum(
                self._iterations(n) for n in (node.iter_range, node.accu_init, node.result)
            )
            if node.accu_var != "@result":
                return outside
            inside = self._iterations(node.loop_condition) + self._iterations(node.loop_step)
            return outside + self.size(node.iter_range).items * (1 + inside)
        return sum(self._iterations(child) for child in children(node))


def _field_path(node: Expr) -> bool:
    """A plain field path: ``self.a.b``, ``args.x``, ``context.role``, ``result.total``."""
    while isinstance(node, Select) and not node.test_only:
        node = node.operand
    return isinstance(node, Ident) and node.name in ("self", "args", "context", "call", "result")


def estimate(ast: Ast, checked: Checked, label: object = None) -> Estimate:
    """The worst-case cost and comprehension steps of one expression."""
    return Estimator(ast, checked, label).estimate()
