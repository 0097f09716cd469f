"""The text writer every text report shares: styled lines, styles, severity colours.

A text reporter builds lines of :data:`Segment` values, ``(text, style)`` where the style is
a rich style string (``""`` for none), and hands them to a :class:`LineWriter`. On a
terminal the writer styles them through rich and wraps them at the terminal's width (a long
line continues under its own indentation); piped, or with ``NO_COLOR``, it writes the plain
text directly, one report line per line (rich costs about 300 µs a line, a plain write
under 1 µs). A report written to a file is never styled unless ``--color`` says so, whatever
``FORCE_COLOR`` says. Either way, control characters from a capture are written as escapes,
so a payload can neither drive the terminal nor start a report line of its own.

The styles of what several reports show (severities, codes, JSON Pointers, tools, hints,
locations) are named here, so a finding looks the same whichever command reports it.
"""

from __future__ import annotations

import io
import os
import stat
from typing import IO, Any, Final

from jsoncontract.model import Severity

Segment = tuple[str, str]  # (text, rich style; "" for none)
Line = list[Segment]

#: C0 and C1 control characters and DEL, mapped to their escapes.
_CONTROLS: Final = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}

SEVERITY_STYLE: Final = {
    Severity.ERROR: "bold red",
    Severity.WARNING: "yellow",
    Severity.INFO: "cyan",
}


class Style:
    """The styles of what several reports show."""

    #: A finding's code.
    CODE: Final = "bold"
    #: The file (and line) a finding or call is at.
    LOCATION: Final = "bold"
    #: A JSON Pointer into a payload or schema.
    POINTER: Final = "blue"
    #: A tool's name.
    TOOL: Final = "magenta"
    #: Hints, notes, anything said in passing.
    DIM: Final = "dim"
    #: What passed, and the mark of what ``--fix`` repairs.
    GOOD: Final = "green"


def severity_label(severity: Severity, width: int = 7) -> Segment:
    """The severity word, padded to ``width``, in its colour."""
    return (f"{severity._value_:<{width}}", SEVERITY_STYLE[severity])


def located_finding(
    where: str,
    severity: Severity,
    code: str,
    message: str,
    *,
    fixable: bool = False,
    tool: str | None = None,
) -> Line:
    """``file:line:col: severity CODE [*] message [tool]``: a finding written the way
    compilers and linters write one, so terminals and editors make the place clickable
    (``[*]`` when ``--fix`` repairs it)."""
    line: Line = [
        (where, Style.LOCATION),
        (": ", ""),
        (severity._value_, SEVERITY_STYLE[severity]),
        (" ", ""),
        (code, Style.CODE),
        (" ", ""),
    ]
    if fixable:
        line.append(("[*] ", Style.GOOD))
    line.append((message, ""))
    if tool is not None:
        line.append((f" [{tool}]", Style.TOOL))
    return line


def note(label: str, text: str) -> Line:
    """The indented line under a located finding: ``    hint: ...``."""
    return [(f"    {label}: ", Style.DIM), (text, Style.DIM)]


def plural(count: int, word: str, many: str | None = None) -> str:
    """``1 case``, ``2 cases``; ``many`` where adding an s is wrong."""
    return f"{count} {word if count == 1 else (many or word + 's')}"


def wants_color(stream: IO[bytes], option: bool | None) -> bool:
    """Whether to style output: an explicit choice wins, then ``NO_COLOR``; a regular file
    is plain; then ``FORCE_COLOR``, then whether the stream is a terminal."""
    if option is not None:
        return option
    if os.environ.get("NO_COLOR"):
        return False
    if is_regular_file(stream):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return is_terminal(stream)


def is_terminal(stream: IO[bytes]) -> bool:
    """Whether ``stream`` is a terminal."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # closed
        return False


def is_regular_file(stream: IO[bytes]) -> bool:
    """Whether ``stream`` writes to a regular file (``-o``, or ``> file``)."""
    try:
        return stat.S_ISREG(os.fstat(stream.fileno()).st_mode)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return False


def terminal_width(stream: IO[bytes], option: int | None) -> int | None:
    """The columns to wrap at when ``stream`` is a terminal: ``option``, else the
    terminal's; ``None`` elsewhere (piped output keeps one report line per line)."""
    if not is_terminal(stream):
        return None
    if option is not None:
        return option
    import shutil

    return shutil.get_terminal_size((100, 24)).columns


def wrap_line(line: Line, width: int) -> list[Line]:
    """``line`` cut at spaces to fit ``width`` columns; each continuation starts under the
    line's indentation, four columns further in (a word longer than the room is cut)."""
    text = "".join(t for t, _ in line)
    if len(text) <= width:
        return [line]
    indent = len(text) - len(text.lstrip(" "))
    hang = min(indent + 4, width // 2)
    styles = [style for part, style in line for _ in part]
    out: list[Line] = []
    start, room = 0, width
    while start < len(text):
        if len(text) - start <= room:
            end = len(text)
        else:
            end = text.rfind(" ", start + 1, start + room + 1)
            if end <= start:
                end = start + room
        out.append(_segments(text, styles, start, end, "" if not out else " " * hang))
        start = end
        while start < len(text) and text[start] == " ":
            start += 1
        room = width - hang
    return out


def _segments(text: str, styles: list[str], start: int, end: int, lead: str) -> Line:
    out: Line = [(lead, "")] if lead else []
    index = start
    while index < end:
        style = styles[index]
        stop = index
        while stop < end and styles[stop] == style:
            stop += 1
        out.append((text[index:stop], style))
        index = stop
    return out


class LineWriter:
    """Writes segment lines plainly, or styled through rich on a terminal.

    Arguments:
        stream: where to write (binary; left open by :meth:`close`).
        color: style the output (``None``: decide with :func:`wants_color`).
        width: the columns rich lays lines out for, and, on a terminal, to wrap lines at
            (``None``: the terminal's). Lines written elsewhere are not wrapped.
    """

    def __init__(self, stream: IO[bytes], color: bool | None, width: int | None = None) -> None:
        self.stream = stream
        self.color = wants_color(stream, color)
        self.width = terminal_width(stream, width)
        self._console: Any = None
        if self.color:
            from rich.console import Console

            self._text = io.TextIOWrapper(
                stream, encoding="utf-8", errors="backslashreplace", write_through=True
            )
            self._console = Console(
                file=self._text,
                force_terminal=True,
                highlight=False,
                soft_wrap=True,
                width=width,
            )

    def write(self, lines: list[Line]) -> None:
        """Write whole lines, control characters as escapes (``\\x1b``), wrapped when a
        width applies."""
        width = self.width
        if width is not None:
            lines = [
                wrapped
                for line in lines
                for wrapped in wrap_line([(t.translate(_CONTROLS), s) for t, s in line], width)
            ]
        if self._console is not None:
            from rich.text import Text

            for line in lines:
                parts = [
                    (t.translate(_CONTROLS), s) if s else t.translate(_CONTROLS) for t, s in line
                ]
                self._console.print(Text.assemble(*parts))
            return
        text = "".join("".join(t for t, _ in line).translate(_CONTROLS) + "\n" for line in lines)
        self.stream.write(text.encode("utf-8", "backslashreplace"))

    def close(self) -> None:
        """Flush; leaves the underlying stream open."""
        if self._console is not None:
            self._text.flush()
            self._text.detach()
