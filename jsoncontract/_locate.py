"""Line and column of any node of a JSON text, addressed by JSON Pointer.

Fast parsers give values, not positions. When a report needs the line of a tool or of an
offending schema node, :class:`PositionIndex` scans the text once with a small tokenizer and
remembers where every member and element starts (for an object member, where its key
starts, which is where a person looks). It is built only when a position is asked for.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from typing import Any, Final

from jsoncontract.pointer import escape_pointer_token

#: One match per value, key or closing bracket: the comma before it and the colon after a
#: key are consumed with it, so the loop runs once per node rather than once per token.
_TOKEN: Final = re.compile(
    r'[\s,]*(?:("[^"\\]*(?:\\.[^"\\]*)*")(\s*:)?|([{\[])|([}\]])|([^\s{}\[\],:"]+))'
)


class PositionIndex:
    """Maps JSON Pointers of a JSON text to 1-based (line, column) positions.

    The text is assumed to be valid JSON (it was parsed before); on anything else the
    index simply knows fewer pointers.
    """

    __slots__ = ("_line_starts", "_offsets", "_repeated", "_text")

    def __init__(self, text: str) -> None:
        self._text = text
        self._offsets: dict[str, int] | None = None
        self._repeated = 0
        self._line_starts: list[int] | None = None

    def offset(self, pointer: str) -> int | None:
        """0-based character offset of the node at ``pointer``, or ``None``."""
        if self._offsets is None:
            self._offsets, self._repeated = _scan(self._text)
        return self._offsets.get(pointer)

    def knows(self, pointer: str) -> bool:
        """Whether the node at ``pointer`` itself is in the text."""
        return self.offset(pointer) is not None

    @property
    def repeated_keys(self) -> int:
        """How many object members repeat a key of their object (0 for most texts)."""
        if self._offsets is None:
            self._offsets, self._repeated = _scan(self._text)
        return self._repeated

    def position(self, pointer: str) -> tuple[int, int] | None:
        """(line, column) of the node at ``pointer``; the closest known ancestor otherwise."""
        probe = pointer
        while True:
            offset = self.offset(probe)
            if offset is not None:
                return self.line_col(offset)
            if not probe:
                return None
            probe = probe[: probe.rfind("/")]

    def line_col(self, offset: int) -> tuple[int, int]:
        """1-based (line, column) of a character offset."""
        if self._line_starts is None:
            starts = [0]
            find = self._text.find
            pos = find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
            self._line_starts = starts
        line = bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1


def _scan(text: str) -> tuple[dict[str, int], int]:
    """Offsets of every node, and how many object members repeat an earlier key."""
    offsets: dict[str, int] = {}
    repeated = 0
    # Each frame: [pointer, is_object, next_index_or_current_member_pointer]
    stack: list[list[Any]] = []
    frame: list[Any] | None = None
    for m in _TOKEN.finditer(text):
        string, key_colon, opener, closer, _literal = m.groups()
        if closer is not None:
            if stack:
                stack.pop()
            frame = stack[-1] if stack else None
            continue
        if key_colon is not None:
            if frame is None:
                continue
            key = json.loads(string) if "\\" in string else string[1:-1]
            member = f"{frame[0]}/{escape_pointer_token(key)}"
            frame[2] = member
            if member not in offsets:
                offsets[member] = m.start(1)
            else:
                repeated += 1
            continue
        # a value: string, literal, or an opening bracket
        if frame is None:
            here = ""
        elif frame[1]:
            here = frame[2]
        else:
            index = frame[2]
            here = f"{frame[0]}/{index}"
            frame[2] = index + 1
        if here not in offsets:
            offsets[here] = (
                m.start(1) if string is not None else m.start(3 if opener is not None else 5)
            )
        if opener is not None:
            frame = [here, opener == "{", "" if opener == "{" else 0]
            stack.append(frame)
    return offsets, repeated
