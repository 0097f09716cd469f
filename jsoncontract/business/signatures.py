"""What each CEL function accepts and gives, as the runtime dispatches it.

The runtime picks an overload by the *run-time* kinds of the arguments: ``_+_`` has one
for two ints and one for two doubles, none for an int and a double; comparisons and
equality work across int, uint and double. This table says which functions exist for
which kinds, so the schema-aware checker can tell that ``self.order_id + 1`` fails on every
call, or that ``self.amount + 1`` fails whenever the amount was written ``129.90``.

A signature is written ``receiver.name(params) -> result`` (member call) or
``name(params) -> result``; a type is a kind (``int``, ``string``...), ``num`` (any
number), ``dyn`` (anything), a type parameter (``A``, ``B``), or ``list(A)``,
``map(A, B)``, ``optional(A)``. A function missing from the table is not checked here
(the runtime's own checker already knows it exists); its result is dynamic.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Final

_TABLE: Final = """
!_(bool) -> bool
-_(int) -> int
-_(double) -> double
_+_(int, int) -> int
_+_(uint, uint) -> uint
_+_(double, double) -> double
_+_(string, string) -> string
_+_(bytes, bytes) -> bytes
_+_(list(A), list(A)) -> list(A)
_+_(timestamp, duration) -> timestamp
_+_(duration, timestamp) -> timestamp
_+_(duration, duration) -> duration
_-_(int, int) -> int
_-_(uint, uint) -> uint
_-_(double, double) -> double
_-_(timestamp, timestamp) -> duration
_-_(timestamp, duration) -> timestamp
_-_(duration, duration) -> duration
_*_(int, int) -> int
_*_(uint, uint) -> uint
_*_(double, double) -> double
_/_(int, int) -> int
_/_(uint, uint) -> uint
_/_(double, double) -> double
_%_(int, int) -> int
_%_(uint, uint) -> uint
_<_(num, num) -> bool
_<_(bool, bool) -> bool
_<_(string, string) -> bool
_<_(bytes, bytes) -> bool
_<_(timestamp, timestamp) -> bool
_<_(duration, duration) -> bool
size(string) -> int
size(bytes) -> int
size(list(A)) -> int
size(map(A, B)) -> int
string.size() -> int
bytes.size() -> int
list(A).size() -> int
map(A, B).size() -> int
string.contains(string) -> bool
string.startsWith(string) -> bool
string.endsWith(string) -> bool
string.matches(string) -> bool
matches(string, string) -> bool
int(int) -> int
int(uint) -> int
int(double) -> int
int(string) -> int
int(timestamp) -> int
uint(uint) -> uint
uint(int) -> uint
uint(double) -> uint
uint(string) -> uint
double(double) -> double
double(int) -> double
double(uint) -> double
double(string) -> double
string(string) -> string
string(bool) -> string
string(int) -> string
string(uint) -> string
string(double) -> string
string(bytes) -> string
string(timestamp) -> string
string(duration) -> string
bytes(bytes) -> bytes
bytes(string) -> bytes
bool(bool) -> bool
bool(string) -> bool
timestamp(timestamp) -> timestamp
timestamp(string) -> timestamp
timestamp(int) -> timestamp
duration(duration) -> duration
duration(string) -> duration
timestamp.getFullYear() -> int
timestamp.getFullYear(string) -> int
timestamp.getMonth() -> int
timestamp.getMonth(string) -> int
timestamp.getDate() -> int
timestamp.getDate(string) -> int
timestamp.getDayOfMonth() -> int
timestamp.getDayOfMonth(string) -> int
timestamp.getDayOfWeek() -> int
timestamp.getDayOfWeek(string) -> int
timestamp.getDayOfYear() -> int
timestamp.getDayOfYear(string) -> int
timestamp.getHours() -> int
timestamp.getHours(string) -> int
timestamp.getMinutes() -> int
timestamp.getMinutes(string) -> int
timestamp.getSeconds() -> int
timestamp.getSeconds(string) -> int
timestamp.getMilliseconds() -> int
timestamp.getMilliseconds(string) -> int
duration.getHours() -> int
duration.getMinutes() -> int
duration.getSeconds() -> int
duration.getMilliseconds() -> int
string.charAt(int) -> string
string.indexOf(string) -> int
string.indexOf(string, int) -> int
string.lastIndexOf(string) -> int
string.lastIndexOf(string, int) -> int
string.lowerAscii() -> string
string.upperAscii() -> string
string.replace(string, string) -> string
string.replace(string, string, int) -> string
string.split(string) -> list(string)
string.split(string, int) -> list(string)
string.substring(int) -> string
string.substring(int, int) -> string
string.trim() -> string
string.reverse() -> string
list(string).join() -> string
list(string).join(string) -> string
string.format(list(dyn)) -> string
strings.quote(string) -> string
math.ceil(double) -> double
math.floor(double) -> double
math.round(double) -> double
math.trunc(double) -> double
math.isInf(double) -> bool
math.isNaN(double) -> bool
math.isFinite(double) -> bool
math.abs(int) -> int
math.abs(uint) -> uint
math.abs(double) -> double
math.sign(int) -> int
math.sign(uint) -> uint
math.sign(double) -> double
math.sqrt(num) -> double
math.bitAnd(int, int) -> int
math.bitAnd(uint, uint) -> uint
math.bitOr(int, int) -> int
math.bitOr(uint, uint) -> uint
math.bitXor(int, int) -> int
math.bitXor(uint, uint) -> uint
math.bitNot(int) -> int
math.bitNot(uint) -> uint
math.bitShiftLeft(int, int) -> int
math.bitShiftLeft(uint, int) -> uint
math.bitShiftRight(int, int) -> int
math.bitShiftRight(uint, int) -> uint
optional.of(A) -> optional(A)
optional.ofNonZeroValue(A) -> optional(A)
optional.none() -> optional(dyn)
optional(A).hasValue() -> bool
optional(A).value() -> A
optional(A).or(optional(A)) -> optional(A)
optional(A).orValue(A) -> A
date(string) -> timestamp
days(int) -> duration
"""

#: Comparison operators share the signatures of ``_<_``.
_COMPARISONS: Final = ("_<=_", "_>_", "_>=_")


@dataclass(frozen=True, slots=True)
class Pattern:
    """A type in a signature: a kind with parameters (``list(A)``), or a type parameter."""

    name: str
    params: tuple[Pattern, ...] = ()

    @property
    def is_param(self) -> bool:
        """A type parameter (``A``, ``B``): matches anything, and binds."""
        return len(self.name) == 1 and self.name.isupper()


@dataclass(frozen=True, slots=True)
class Signature:
    """One overload: ``receiver`` for member calls, the parameters, the result."""

    function: str
    receiver: Pattern | None
    params: tuple[Pattern, ...]
    result: Pattern

    @property
    def arity(self) -> int:
        """Arguments, counting the receiver."""
        return len(self.params) + (1 if self.receiver is not None else 0)

    @property
    def inputs(self) -> tuple[Pattern, ...]:
        """The receiver (if any) then the parameters."""
        return (self.receiver, *self.params) if self.receiver is not None else self.params


def _split(text: str) -> list[str]:
    """Split on top-level commas."""
    parts, depth, start = [], 0, 0
    for index, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    tail = text[start:].strip()
    if tail:
        parts.append(tail)
    return parts


def parse_pattern(text: str) -> Pattern:
    """``list(A)`` -> ``Pattern("list", (Pattern("A"),))``."""
    text = text.strip()
    if "(" not in text:
        return Pattern(text)
    name, _, rest = text.partition("(")
    return Pattern(name.strip(), tuple(parse_pattern(p) for p in _split(rest[:-1])))


def _parse_line(line: str) -> Signature:
    head, _, result = line.partition("->")
    head = head.strip()
    call_open = -1
    depth = 0
    for index in range(len(head) - 1, -1, -1):  # the parenthesis that opens the parameters
        char = head[index]
        if char == ")":
            depth += 1
        elif char == "(":
            depth -= 1
            if depth == 0:
                call_open = index
                break
    callee, params = head[:call_open], head[call_open + 1 : -1]
    receiver: Pattern | None = None
    name = callee
    if not callee.startswith(("math.", "optional.", "strings.")) and "." in callee:
        receiver_text, _, name = callee.rpartition(".")
        receiver = parse_pattern(receiver_text)
    return Signature(
        name, receiver, tuple(parse_pattern(p) for p in _split(params)), parse_pattern(result)
    )


@cache
def signatures() -> dict[str, tuple[Signature, ...]]:
    """Every signature, by function name."""
    table: dict[str, list[Signature]] = {}
    for line in _TABLE.strip().splitlines():
        signature = _parse_line(line)
        table.setdefault(signature.function, []).append(signature)
    for name in _COMPARISONS:
        table[name] = [Signature(name, s.receiver, s.params, s.result) for s in table["_<_"]]
    return {name: tuple(found) for name, found in table.items()}
