"""JSON Pointers (RFC 6901): building, splitting, reading and editing by pointer.

Every part of jsoncontract addresses a value the same way: findings, differences, fixes and
generated cases carry a JSON Pointer into the document they are about. This module is the
one implementation of that syntax.

A member that is not there reads as :data:`ABSENT`, never as ``None``: ``None`` is JSON
``null``, a value a member can hold. An array index is what RFC 6901 allows: ASCII digits
without a leading zero (``-`` names the place after the last item, and reads as absent).

>>> document = {"order": {"lines": [{"sku": "A-1"}]}, "a/b": 1}
>>> get(document, "/order/lines/0/sku")
'A-1'
>>> get(document, "/order/lines/1") is ABSENT
True
>>> join_pointer("/order", "lines", 0)
'/order/lines/0'
>>> join_pointer("", "a/b"), get(document, "/a~1b")
('/a~1b', 1)
>>> pointer_tokens("/a~1b/m~0n")
['a/b', 'm~n']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final


class Absent:
    """The type of :data:`ABSENT`, the value of a member that is not there (distinct from
    JSON ``null``). It is false in a boolean context, so ``get(...) or default`` works."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "ABSENT"

    def __bool__(self) -> bool:
        return False

    def __copy__(self) -> Absent:
        return self

    def __deepcopy__(self, memo: object) -> Absent:
        return self

    def __reduce__(self) -> str:
        return "ABSENT"


#: What :func:`get` returns, and what every part of jsoncontract uses, for a member that
#: does not exist.
ABSENT: Final = Absent()


def escape_pointer_token(token: str | int) -> str:
    """One reference token as written in a pointer (``~`` as ``~0``, ``/`` as ``~1``).

    >>> escape_pointer_token("a/b~c"), escape_pointer_token(3)
    ('a~1b~0c', '3')
    """
    if isinstance(token, int):
        return str(token)
    if "~" in token or "/" in token:
        return token.replace("~", "~0").replace("/", "~1")
    return token


def unescape_pointer_token(token: str) -> str:
    """One reference token as the member name it stands for.

    >>> unescape_pointer_token("a~1b~0c")
    'a/b~c'
    """
    if "~" in token:
        return token.replace("~1", "/").replace("~0", "~")
    return token


def join_pointer(base: str, *tokens: str | int) -> str:
    """``base`` with reference tokens appended (escaped as needed).

    >>> join_pointer("#", "properties", "a/b", 0), join_pointer("", "x", 2), join_pointer("")
    ('#/properties/a~1b/0', '/x/2', '')
    """
    if not tokens:
        return base
    # most tokens need no escaping: one join, and one look for what would need it
    text = "/".join(map(str, tokens))
    if "~" in text or text.count("/") >= len(tokens):
        return base + "".join("/" + escape_pointer_token(t) for t in tokens)
    return base + "/" + text


def pointer_tokens(pointer: str) -> list[str]:
    """The unescaped reference tokens of a pointer (none for ``""``, the whole document)."""
    if not pointer:
        return []
    tokens = pointer[1:].split("/")
    if "~" not in pointer:
        return tokens
    return [unescape_pointer_token(t) for t in tokens]


def parent(pointer: str) -> str:
    """The pointer of the containing node (``""`` for a member of the root).

    >>> parent("/a/b"), parent("/a"), parent("")
    ('/a', '', '')
    """
    return pointer[: pointer.rfind("/")] if pointer else ""


def is_within(path: str, ancestor: str) -> bool:
    """Whether ``path`` is ``ancestor`` or lies below it.

    >>> is_within("/a/b", "/a"), is_within("/ab", "/a"), is_within("/a", "")
    (True, False, True)
    """
    return path == ancestor or path.startswith(ancestor + "/") or ancestor == ""


def array_index(token: str, size: int) -> int | None:
    """The index ``token`` names in an array of ``size`` items, or ``None`` (not an RFC 6901
    index, or past the end).

    >>> array_index("2", 3), array_index("3", 3), array_index("01", 3), array_index("-", 3)
    (2, None, None, None)
    """
    if not (token.isascii() and token.isdigit()) or (token[0] == "0" and token != "0"):
        return None
    index = int(token)
    return index if index < size else None


def get(document: Any, pointer: str) -> Any:
    """The node at ``pointer``, or :data:`ABSENT` when there is none."""
    if not pointer:
        return document
    return get_in(document, pointer_tokens(pointer))


def get_in(document: Any, tokens: Iterable[str]) -> Any:
    """The node the (unescaped) ``tokens`` lead to, or :data:`ABSENT`."""
    node = document
    for token in tokens:
        if isinstance(node, dict):
            node = node.get(token, ABSENT)
            if node is ABSENT:
                return ABSENT
        elif isinstance(node, list):
            index = array_index(token, len(node))
            if index is None:
                return ABSENT
            node = node[index]
        else:
            return ABSENT
    return node


def set_at(document: Any, pointer: str, value: Any) -> Any:
    """A copy of ``document`` with ``value`` at ``pointer``; ``document`` is not changed.

    The containers on the way are copied (what lies beside the path is shared). A missing
    member on the way becomes an empty object, as does a scalar in the way. In an array the
    last token replaces an item, or appends when it is ``-`` or the array's length.
    ``""`` replaces the whole document.

    Raises:
        IndexError: an array index past the end of the array.

    >>> before = {"a": [1, 2]}
    >>> set_at(before, "/a/-", 3), set_at(before, "/b/c", True), before
    ({'a': [1, 2, 3]}, {'a': [1, 2], 'b': {'c': True}}, {'a': [1, 2]})
    """
    tokens = pointer_tokens(pointer)
    if not tokens:
        return value
    root = _copy(document) if isinstance(document, dict | list) else {}
    node = root
    for token in tokens[:-1]:
        child = _child(node, token)
        child = _copy(child) if isinstance(child, dict | list) else {}
        _put(node, token, child)
        node = child
    _put(node, tokens[-1], value)
    return root


def remove_at(document: Any, pointer: str) -> Any:
    """A copy of ``document`` without the node at ``pointer`` (``document`` itself when
    there is nothing there, or when ``pointer`` is ``""``).

    >>> remove_at({"a": {"b": 1, "c": 2}}, "/a/b"), remove_at([1, 2, 3], "/0")
    ({'a': {'c': 2}}, [2, 3])
    """
    tokens = pointer_tokens(pointer)
    if not tokens or get_in(document, tokens) is ABSENT:
        return document
    root = _copy(document)
    node = root
    for token in tokens[:-1]:
        child = _copy(_child(node, token))
        _put(node, token, child)
        node = child
    if isinstance(node, dict):
        del node[tokens[-1]]
    else:
        del node[int(tokens[-1])]
    return root


def _copy(node: Any) -> Any:
    return dict(node) if isinstance(node, dict) else list(node)


def _child(node: dict[str, Any] | list[Any], token: str) -> Any:
    if isinstance(node, dict):
        return node.get(token, ABSENT)
    index = array_index(token, len(node))
    return ABSENT if index is None else node[index]


def _put(node: dict[str, Any] | list[Any], token: str, value: Any) -> None:
    if isinstance(node, dict):
        node[token] = value
        return
    if token == "-" or token == str(len(node)):
        node.append(value)
        return
    index = array_index(token, len(node))
    if index is None:
        raise IndexError(f"no item {token!r} in an array of {len(node)}")
    node[index] = value


__all__ = [
    "ABSENT",
    "Absent",
    "array_index",
    "escape_pointer_token",
    "get",
    "get_in",
    "is_within",
    "join_pointer",
    "parent",
    "pointer_tokens",
    "remove_at",
    "set_at",
    "unescape_pointer_token",
]
