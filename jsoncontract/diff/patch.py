"""RFC 6902 JSON Patch between two hops.

The patch is built by applying each operation to a working copy as it is emitted, so every
``path`` is valid at the moment its operation runs (array indexes shift as elements are
removed and added) and applying the patch to the earlier hop gives the later one exactly.
Members the diff found renamed or moved become ``move`` operations; a permutation of a
short array becomes ``move`` operations too; anything else is ``remove``, ``add`` or
``replace``. Values of sensitive fields are hashed unless values are shown, which makes such
a patch readable but no longer applicable.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Final

import orjson

from jsoncontract._align import align_sequences
from jsoncontract.diff.compare import canonical, same
from jsoncontract.diff.values import redact_value
from jsoncontract.pointer import ABSENT, escape_pointer_token, get, parent, pointer_tokens

#: Arrays up to this length are reordered with ``move`` operations; longer ones replaced.
MOVE_LIMIT: Final = 200
#: Below this depth a changed subtree is replaced whole (bounded recursion).
MAX_PATCH_DEPTH: Final = 200

Operation = dict[str, Any]


def make_patch(
    before: Any,
    after: Any,
    *,
    moves: Iterable[tuple[str, str]] = (),
    show_values: bool = True,
) -> list[Operation]:
    """The RFC 6902 operations that turn ``before`` into ``after``.

    Arguments:
        moves: ``(from, to)`` pointers of members known to have been renamed or moved.
        show_values: ``False`` hashes the values of sensitive fields in the operations.
    """
    ops: list[Operation] = []
    work = _clone(before)
    for source, target in moves:
        work = _move(work, source, target, ops)
    _gen_root(work, after, ops)
    if not show_values:
        for op in ops:
            if "value" in op:
                op["value"] = redact_value(op["value"], op["path"])
    return ops


def _clone(value: Any, depth: int = 0) -> Any:
    """A copy to work on: fast through orjson, else container by container (what lies
    deeper than the patch ever edits is shared)."""
    if depth == 0:
        try:
            return orjson.loads(orjson.dumps(value))
        except (orjson.JSONEncodeError, TypeError):
            pass
    if depth > MAX_PATCH_DEPTH + 1:
        return value
    if isinstance(value, dict):
        return {k: _clone(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_clone(v, depth + 1) for v in value]
    return value


def _move(work: Any, source: str, target: str, ops: list[Operation]) -> Any:
    if get(work, source) is ABSENT or get(work, target) is not ABSENT or not target:
        return work
    if target.startswith(source + "/"):
        return work  # a member cannot move inside itself
    # make the objects on the way to the target
    tokens = pointer_tokens(target)
    node_path = ""
    for token in tokens[:-1]:
        container = get(work, node_path)
        node_path += "/" + escape_pointer_token(token)
        if not isinstance(container, dict):
            return work
        if token not in container:
            container[token] = {}
            ops.append({"op": "add", "path": node_path, "value": {}})
    holder = get(work, parent(source))
    destination = get(work, parent(target))
    if not isinstance(holder, dict) or not isinstance(destination, dict):
        return work
    value = holder.pop(pointer_tokens(source)[-1])
    destination[tokens[-1]] = value
    ops.append({"op": "move", "from": source, "path": target})
    return work


def _gen_root(work: Any, after: Any, ops: list[Operation]) -> None:
    holder = [work]
    _gen(holder, 0, after, "", ops, 0)


def _gen(holder: Any, key: Any, after: Any, path: str, ops: list[Operation], depth: int) -> None:
    node = holder[key]
    if same(node, after):
        return
    kind = type(node)
    if depth >= MAX_PATCH_DEPTH or kind is not type(after) or kind not in (dict, list):
        ops.append({"op": "replace", "path": path, "value": after})
        holder[key] = after
        return
    if kind is dict:
        for name in [n for n in node if n not in after]:
            ops.append({"op": "remove", "path": f"{path}/{escape_pointer_token(name)}"})
            del node[name]
        for name in list(node):
            _gen(node, name, after[name], f"{path}/{escape_pointer_token(name)}", ops, depth + 1)
        for name, value in after.items():
            if name not in node:
                where = f"{path}/{escape_pointer_token(name)}"
                ops.append({"op": "add", "path": where, "value": value})
                node[name] = value
        return
    _gen_list(node, after, path, ops, depth)


def _gen_list(
    node: list[Any], after: list[Any], path: str, ops: list[Operation], depth: int
) -> None:
    keys = [canonical(x) for x in node]
    wanted = [canonical(x) for x in after]
    if len(keys) == len(wanted) and len(keys) <= MOVE_LIMIT and sorted(keys) == sorted(wanted):
        for j, key in enumerate(wanted):
            if keys[j] == key:
                continue
            k = keys.index(key, j + 1)
            ops.append({"op": "move", "from": f"{path}/{k}", "path": f"{path}/{j}"})
            node.insert(j, node.pop(k))
            keys.insert(j, keys.pop(k))
        return
    i = 0
    for tag, i1, i2, j1, j2 in align_sequences(keys, wanted):
        if tag == "equal":
            i += i2 - i1
            continue
        paired = min(i2 - i1, j2 - j1) if tag == "replace" else 0
        for t in range(paired):
            _gen(node, i, after[j1 + t], f"{path}/{i}", ops, depth + 1)
            i += 1
        for _ in range(i2 - i1 - paired):
            ops.append({"op": "remove", "path": f"{path}/{i}"})
            del node[i]
        for j in range(j1 + paired, j2):
            ops.append({"op": "add", "path": f"{path}/{i}", "value": after[j]})
            node.insert(i, after[j])
            i += 1


def apply_patch(document: Any, ops: Iterable[Operation]) -> Any:
    """Apply RFC 6902 operations (``add``, ``remove``, ``replace``, ``move``) to a copy.

    A small, strict applier used to prove patches right; it raises ``ValueError`` on an
    operation whose path does not exist.
    """
    work = [_clone(document)]
    for op in ops:
        kind = op["op"]
        if kind == "move":
            value = _remove(work, op["from"])
            _add(work, op["path"], value)
        elif kind == "remove":
            _remove(work, op["path"])
        elif kind == "add":
            _add(work, op["path"], _clone(op["value"]))
        elif kind == "replace":
            _remove(work, op["path"])
            _add(work, op["path"], _clone(op["value"]))
        else:
            raise ValueError(f"unsupported op {kind!r}")
    return work[0]


def _locate(work: list[Any], path: str) -> tuple[Any, Any]:
    tokens = pointer_tokens(path)
    holder: Any = work
    key: Any = 0
    for token in tokens:
        holder = holder[key]
        if isinstance(holder, list):
            key = len(holder) if token == "-" else int(token)
        elif isinstance(holder, dict):
            key = token
        else:
            raise ValueError(f"{path}: not a container")
    return holder, key


def _remove(work: list[Any], path: str) -> Any:
    holder, key = _locate(work, path)
    if isinstance(holder, dict) and key not in holder:
        raise ValueError(f"{path}: no such member")
    if isinstance(holder, list) and not 0 <= key < len(holder):
        raise ValueError(f"{path}: no such index")
    return holder.pop(key)


def _add(work: list[Any], path: str, value: Any) -> None:
    holder, key = _locate(work, path)
    if isinstance(holder, list) and holder is not work:
        if not 0 <= key <= len(holder):
            raise ValueError(f"{path}: index out of range")
        holder.insert(key, value)
    elif isinstance(holder, list):
        holder[0:1] = [value]  # the whole document
    else:
        holder[key] = value
