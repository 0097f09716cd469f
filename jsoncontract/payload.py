"""What a tool returned, read out of a :class:`~jsoncontract.model.ToolResult` of any hop.

A result holds its content as its wire does: MCP content blocks and ``structuredContent``,
an OpenAI tool message's string (or text parts), an Anthropic ``tool_result`` (a string or
blocks), a Gemini ``functionResponse.response`` object, an HTTP body. Two views of it serve
the checks of the return leg:

- :func:`payload`: the one JSON value the tool returned (``structuredContent``, else the
  JSON a text holds, else the object itself), for the result contract (``ok`` / ``error`` /
  ``data``) and for business rules that read ``result``;
- :func:`texts`: every string of the result with its JSON Pointer, a string that holds JSON
  read again as JSON (once), for the leak checks.

Pointers are relative to :attr:`ToolResult.message <jsoncontract.model.ToolResult.message>`,
the object the result was read from (for MCP the whole JSON-RPC response:
``/result/content/0/text``). Where the content cannot be found inside that object by
identity (a body parsed from text) they are relative to the content.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract.pointer import join_pointer

if TYPE_CHECKING:
    from jsoncontract.model import ToolResult

#: How deep the content is looked for inside the message it was read from.
_FIND_DEPTH: Final = 5
#: Strings longer than this are not read again as JSON (the leak patterns still see them).
_DECODE_LIMIT: Final = 8 * 1024 * 1024
#: Containers nested deeper than this are not walked for texts: more than a value the
#: reader parses can hold (1,024 levels, and as many again in a JSON text inside it), so a
#: leak is searched for however deep a result hides it (the walk is iterative, linear).
_WALK_DEPTH: Final = 4096
_TEXT_TYPES: Final = frozenset({"text", "input_text", "output_text"})


@dataclass(frozen=True, slots=True)
class Payload:
    """The value a tool returned.

    ``pointer`` is where it sits (see the module); ``from_text`` says it was decoded from a
    JSON text (a text block, a tool message's string), where the pointer is that of the
    string and paths inside the value are not pointers into the message.
    """

    value: Any
    pointer: str
    from_text: bool = False


def wire_code(result: ToolResult) -> Any:
    """The machine-readable error code the result's envelope carries besides its content, or
    ``None``: a JSON-RPC ``error.code``, an OpenTelemetry span's ``error.type`` (a
    low-cardinality identifier of the failure, by the semantic conventions)."""
    error = result.error
    if isinstance(error, dict) and type(error.get("code")) is int:
        return error["code"]
    message = result.message
    if result.dialect == "otlp" and isinstance(message, dict):
        from jsoncontract.capture.otlp import attributes

        kind = attributes(message.get("attributes")).get("error.type")
        if isinstance(kind, str) and kind:
            return kind
    return None


#: The last result :func:`content_pointer` and :func:`payload` were asked about, and their
#: answers: the result stage and the checks over the run ask about one call after the other.
_LAST_POINTER: list[Any] = [None, ""]
_LAST_PAYLOAD: list[Any] = [None, None]


def content_pointer(result: ToolResult) -> str:
    """Where the result's content sits in its message (``""`` when not found there)."""
    if _LAST_POINTER[0] is result:
        pointer: str = _LAST_POINTER[1]
        return pointer
    content = result.content
    message = result.message
    found = None
    if content is not None and message is not None:
        found = _answer_content(message, content)
        if found is None:
            found = _find(message, content, "", _FIND_DEPTH)
    pointer = found if found is not None else ""
    _LAST_POINTER[0], _LAST_POINTER[1] = result, pointer
    return pointer


def _answer_content(message: Any, content: Any) -> str | None:
    """``/result/content`` when :func:`_find` would find ``content`` there, the place of an
    MCP answer's content, told without its search; ``None``: search. Breadth first, a
    member of ``message`` would be found first, then a member of a container before
    ``result``, then a member of ``result`` before ``content``: none may be the target."""
    if type(message) is not dict:
        return None
    body = message.get("result")
    if type(body) is not dict or body.get("content") is not content:
        return None
    for member in message.values():
        if member is content:
            return None
    for key, member in message.items():
        if key == "result":
            break
        if isinstance(member, dict | list):
            return None  # a container before it is searched first
    for key, member in body.items():
        if key == "content":
            return "/result/content"
        if member is content:
            return None
    return None  # (not reached: the member was found above)


def _find(node: Any, target: Any, pointer: str, depth: int) -> str | None:
    """The pointer of ``target`` (by identity) inside ``node``, breadth first."""
    if node is target:
        return pointer
    level: list[tuple[Any, tuple[str | int, ...]]] = [(node, ())]
    for _ in range(depth):
        deeper: list[tuple[Any, tuple[str | int, ...]]] = []
        for item, path in level:
            members = item.items() if isinstance(item, dict) else enumerate(item)
            for key, member in members:
                if member is target:
                    return join_pointer(pointer, *path, key)
                if isinstance(member, dict | list):
                    deeper.append((member, (*path, key)))
        if not deeper:
            return None
        level = deeper
    return None


def structured_pointer(result: ToolResult) -> str:
    """Where MCP ``structuredContent`` sits in the message."""
    message = result.message
    if isinstance(message, dict) and isinstance(message.get("result"), dict):
        return "/result/structuredContent"
    return "/structuredContent"


_LAST_DECODED: list[Any] = [None, None, False]


def decode(text: str) -> tuple[Any, bool]:
    """``(value, True)`` when ``text`` is a JSON object or array (spaces around allowed),
    else ``(None, False)``. The last text's answer is kept: a result's text is read by the
    payload, the leak checks and the mirror check one after the other."""
    if _LAST_DECODED[0] is text:
        return _LAST_DECODED[1], _LAST_DECODED[2]
    value, ok = _decode(text)
    _LAST_DECODED[0], _LAST_DECODED[1], _LAST_DECODED[2] = text, value, ok
    return value, ok


def _decode(text: str) -> tuple[Any, bool]:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[" or len(stripped) > _DECODE_LIMIT:
        return None, False
    try:
        return orjson.loads(stripped), True
    except orjson.JSONDecodeError:
        return None, False


def text_blocks(content: Any, pointer: str) -> list[tuple[str, str]]:
    """The text of each text block of a content list (MCP and Anthropic content blocks,
    OpenAI text parts), with its pointer; a bare string is one block."""
    if isinstance(content, str):
        return [(pointer, content)]
    if not isinstance(content, list):
        return []
    out = []
    for index, block in enumerate(content):
        if isinstance(block, dict) and block.get("type") in _TEXT_TYPES:
            text = block.get("text")
            if isinstance(text, str):
                out.append((f"{pointer}/{index}/text", text))
        elif isinstance(block, str):
            out.append((f"{pointer}/{index}", block))
    return out


def payload(result: ToolResult) -> Payload | None:
    """The one JSON value the tool returned, or ``None`` when it returned none (a JSON-RPC
    error, prose, several texts, nothing).

    In order: MCP ``structuredContent``; an object or array content (a Gemini response, a
    JSON body); the JSON object or array that the only text of the content holds.
    """
    if _LAST_PAYLOAD[0] is result:
        last: Payload | None = _LAST_PAYLOAD[1]
        return last
    found = _payload(result)
    _LAST_PAYLOAD[0], _LAST_PAYLOAD[1] = result, found
    return found


def _payload(result: ToolResult) -> Payload | None:
    if result.present_structured:
        return Payload(result.structured_content, structured_pointer(result))
    content = result.content
    if content is None:
        return None
    base = content_pointer(result)
    if isinstance(content, dict):
        return Payload(content, base)
    blocks = text_blocks(content, base)
    if isinstance(content, list) and not blocks:
        if content and all(isinstance(b, dict) and "type" in b for b in content):
            return None  # content blocks without text: images, resources...
        return Payload(content, base)
    if len(blocks) != 1:
        return None
    where, text = blocks[0]
    value, ok = decode(text)
    return Payload(value, where, from_text=True) if ok else None


def texts(
    result: ToolResult, shortest: int = 0, wanted: Callable[[str], bool] | None = None
) -> Iterator[tuple[str, str]]:
    """Every string of the result's content, structured content and error object (at least
    ``shortest`` long), with its pointer; a string holding a JSON object or array is also
    read as JSON, and the strings inside it are given with the string's own pointer (they
    have none in the message). ``wanted``: a string of the result it says no to is left out,
    and so is its JSON (it must say yes to any text whose JSON holds a string it wants)."""
    seen: set[int] = set()
    if result.content is not None:
        yield from _strings(result.content, content_pointer(result), seen, shortest, wanted)
    if result.present_structured:
        yield from _strings(
            result.structured_content, structured_pointer(result), seen, shortest, wanted
        )
    if result.error is not None:
        yield from _strings(result.error, "/error", seen, shortest, wanted)


def _strings(
    value: Any,
    pointer: str,
    seen: set[int],
    shortest: int,
    wanted: Callable[[str], bool] | None,
) -> Iterator[tuple[str, str]]:
    """The strings of ``value`` (walked without recursion), JSON texts decoded once."""
    # (value, its parent's pointer, its member name or index in the parent (None: the
    # value's pointer is the parent's), depth, decodable): a pointer is joined only for a
    # string given or a container opened, not for each string passed over
    stack: list[tuple[Any, str, str | int | None, int, bool]] = [(value, pointer, None, 0, True)]
    while stack:
        item, where, key, depth, decodable = stack.pop()
        if isinstance(item, str):
            if decodable and wanted is not None and not wanted(item):
                continue
            if key is not None:
                where = f"{where}/{key}" if type(key) is int else join_pointer(where, key)
            if len(item) >= shortest:
                yield where, item
            if decodable:
                inner, ok = decode(item)
                if ok and isinstance(inner, dict | list):
                    stack.append((inner, where, None, depth + 1, False))
        elif depth >= _WALK_DEPTH or (decodable and id(item) in seen):
            continue  # (decoded values are not alive long enough for their ids to count)
        elif isinstance(item, dict | list):
            if key is not None:
                where = f"{where}/{key}" if type(key) is int else join_pointer(where, key)
            if not decodable:
                members: Any = reversed(item.values() if isinstance(item, dict) else item)
                stack.extend((member, where, None, depth + 1, False) for member in members)
                continue
            seen.add(id(item))
            if isinstance(item, dict):
                named = reversed(item.items())
                stack.extend((member, where, name, depth + 1, True) for name, member in named)
            else:
                places = range(len(item) - 1, -1, -1)
                stack.extend((item[index], where, index, depth + 1, True) for index in places)
