"""``diff --format text``: the hops of each call side by side, for people.

Each call gets a header (status, tool, call id), one line per hop (dialect, source, how it
was paired, whether it parsed and met its schema), the side-by-side table
(``path | model | mcp | downstream | verdict``), the results of the hops side by side in the
order they travel back (``path | downstream | mcp | model | verdict``) when the capture holds
more than one, then one line per difference and per finding with what to do about it.
On a terminal narrower than the table needs, each row is written as a small block (the
path and verdict, then one line per hop) instead of columns. Calls whose hops agree are
counted, not shown, when diffing a trace (``--verbose`` shows them); a diff of hop files
always shows its call.
"""

from __future__ import annotations

import shutil
import textwrap
from typing import IO, TYPE_CHECKING, Final

from jsoncontract.diff.model import CallStatus, Difference
from jsoncontract.diff.rows import count_leaves
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import Line, LineWriter, Style, severity_label

if TYPE_CHECKING:
    from jsoncontract.diff.model import CallDiff, DiffSummary, HopView, Row
    from jsoncontract.model import Finding
    from jsoncontract.settings import ReportOptions

#: ``auto`` shows every member of a call up to this many rows, else only changed ones.
AUTO_ROWS: Final = 40
#: Differences and findings listed per call before the rest is counted.
MAX_LINES: Final = 50
_NARROW: Final = 9  # a value column narrower than this switches to the stacked layout
_STATUS: Final = {
    CallStatus.AGREE: ("AGREE", "bold green"),
    CallStatus.DIFFER: ("DIFFER", "bold red"),
    CallStatus.UNPAIRED: ("UNPAIRED", "bold yellow"),
    CallStatus.UNREADABLE: ("UNREADABLE", "bold red"),
}
_ABSENT_CELL: Final = "—"
_UNPARSED_CELL: Final = "?"


def _cut(text: str, width: int) -> str:
    if len(text) <= width:
        return text
    return text[: max(width - 1, 0)] + "…"


def verdict(differences: list[Difference]) -> tuple[str, str]:
    """The verdict cell of a row and its style: ``same``, ``✗ coerced``, ``✓ renamed``."""
    if not differences:
        return "same", "dim"
    words = []
    for d in differences:
        word = d.code.value + (" (expected)" if d.expected else "")
        if word not in words:
            words.append(word)
    if all(d.expected for d in differences):
        return "✓ " + ", ".join(words), "green"
    return "✗ " + ", ".join(words), "bold red"


def _pointer(path: str) -> str:
    return path or "/"


class TextDiffReporter(Reporter["CallDiff", "DiffSummary"]):
    """The human-readable ``diff`` report."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self.width = options.width or shutil.get_terminal_size((100, 24)).columns
        self._out = LineWriter(stream, options.color, self.width)
        self._shown = 0
        self._hidden = 0

    def add(self, result: CallDiff) -> None:
        """Write one call (or count it)."""
        options = self.options
        if options.quiet:
            return
        if result.status is CallStatus.AGREE and not result.findings and not options.verbose:
            return
        if options.max_shown and self._shown >= options.max_shown:
            self._hidden += 1
            return
        self._shown += 1
        self._out.write(self.call_lines(result))

    def close(self, summary: DiffSummary) -> None:
        """Write the run's findings and the summary."""
        lines: list[Line] = []
        if self._hidden:
            lines.append(
                [
                    (
                        f"... {self._hidden} more calls not shown "
                        "(--max-shown 0 shows all; --format json lists everything)",
                        "dim",
                    )
                ]
            )
            lines.append([])
        for finding in summary.findings:
            lines.extend(self._finding(finding, indent=""))
        if summary.findings:
            lines.append([])
        lines.extend(summary_lines(summary))
        self._out.write(lines)
        self._out.close()

    # -- one call ----------------------------------------------------------------------------

    def call_lines(self, result: CallDiff) -> list[Line]:
        """Every line of one call, ending with a blank line."""
        lines: list[Line] = [self._header(result)]
        lines.extend(self._hops(result))
        if result.hops:
            lines.append([])
            lines.extend(self._table(result))
        if len(result.result_hops) > 1:
            lines.append([])
            lines.extend(self._result_hops(result))
            lines.append([])
            lines.extend(self._grid(result.result_rows(), result.result_hops, hidden=False))
        notes = self._notes(result)
        if notes:
            lines.append([])
            lines.extend(notes)
        lines.append([])
        return lines

    def _header(self, result: CallDiff) -> Line:
        word, style = _STATUS[result.status]
        out: Line = [(word, style), (" ", ""), (result.tool or "(no tool)", Style.TOOL)]
        if result.call_id:
            out.append((f" · {result.call_id}", "dim"))
        parts = []
        unexpected = len(result.unexpected)
        expected = len(result.differences) - unexpected
        if unexpected:
            parts.append(f"{unexpected} unexpected difference{'s' * (unexpected != 1)}")
        if expected:
            parts.append(f"{expected} expected")
        failed = [h.hop.value for h in result.hops if not h.ok]
        if failed:
            parts.append(
                f"{' and '.join(failed)} failed {'its' if len(failed) == 1 else 'their'} contract"
            )
        if result.pairing and result.pairing != "given":
            parts.append(f"paired by {result.pairing}")
        if parts:
            out.append((" · " + " · ".join(parts), "bold" if not result.ok else ""))
        return out

    def _hops(self, result: CallDiff) -> list[Line]:
        if not result.hops:
            return []
        rows = []
        for view in result.hops:
            call = view.call
            dialect = str(call.dialect) if call.dialect is not None else "?"
            pairing = ""
            if view.matched_by == "id":
                pairing = f"paired by id {view.match_key}"
            elif view.matched_by == "order":
                pairing = "paired by order and tool"
            rows.append((view.hop.value, dialect, str(call.source), _checks(view), pairing))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        out: list[Line] = []
        for hop, dialect, source, (checks, bad), pairing in rows:
            line: Line = [
                ("  ", ""),
                (f"{hop:<{widths[0]}}", "bold"),
                ("  ", ""),
                (f"{dialect:<{widths[1]}}", "dim"),
                ("  ", ""),
            ]
            tail: Line = [(checks, "red" if bad else "green")]
            if pairing:
                tail.append((f" · {pairing}", "dim"))
            wide = 2 + sum(widths) + 6 + sum(len(t) for t, _ in tail)
            if wide <= self.width:
                out.append([*line, (f"{source:<{widths[2]}}", ""), ("  ", ""), *tail])
            else:  # a narrow terminal: what the hop passed goes on a line of its own
                out.append([*line, (source, "")])
                out.append([(" " * (4 + widths[0]), ""), *tail])
        return out

    def _result_hops(self, result: CallDiff) -> list[Line]:
        """``results, on their way back:`` then one line per hop's result."""
        rows = []
        for view in result.result_hops:
            answer = view.call.result
            if answer is None:  # pragma: no cover - result hops always hold one
                continue
            dialect = str(answer.dialect) if answer.dialect is not None else "?"
            state = "error result" if answer.is_error else "result"
            state += " · JSON" if view.parsed else " · text" if view.available else " · nothing"
            rows.append((view.hop.value, dialect, str(answer.source), state))
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        out: list[Line] = [[("  results, on their way back to the model:", "bold")]]
        out.extend(
            [
                ("  ", ""),
                (f"{hop:<{widths[0]}}", "bold"),
                ("  ", ""),
                (f"{dialect:<{widths[1]}}", "dim"),
                ("  ", ""),
                (f"{source:<{widths[2]}}", ""),
                ("  ", ""),
                (state, "yellow" if state.startswith("error") else "dim"),
            ]
            for hop, dialect, source, state in rows
        )
        return out

    def _table(self, result: CallDiff) -> list[Line]:
        mode = self.options.rows
        views = result.hops
        total = max((count_leaves(v.value, AUTO_ROWS) for v in views if v.available), default=0)
        changed_only = mode == "changed" or (mode == "auto" and total > AUTO_ROWS)
        rows = result.rows(changed_only=changed_only)
        if changed_only:
            rows = [r for r in rows if r.differences]
        hidden = changed_only and total > len(rows)
        return self._grid(rows, result.hops, hidden=hidden)

    def _grid(self, rows: list[Row], views: list[HopView], *, hidden: bool) -> list[Line]:
        """The side-by-side table of ``rows`` over ``views`` (stacked when narrow)."""
        texts = [self._cells(row, views) for row in rows]
        verdicts = [verdict(row.differences) for row in rows]
        headers = [v.hop.value + ("" if v.available else " (unparsed)") for v in views]
        path_w = min(max([len(_pointer(r.path)) for r in rows] + [4]), 28)
        verdict_w = min(max([len(v[0]) for v in verdicts] + [7]), 30)
        room = self.width - 2 - path_w - verdict_w - 2 * (len(views) + 1)
        natural = [max([len(t[i]) for t in texts] + [len(headers[i])]) for i in range(len(views))]
        widths = _fit(natural, room)
        out: list[Line] = []
        if min(widths, default=0) < _NARROW:
            out.extend(self._stacked(rows, texts, verdicts, headers, views))
        else:
            out.append(
                [
                    ("  ", ""),
                    (f"{'path':<{path_w}}", "dim"),
                    *[
                        (f"  {_cut(h, w):<{w}}", "dim")
                        for h, w in zip(headers, widths, strict=True)
                    ],
                    (f"  {'verdict'}", "dim"),
                ]
            )
            out.append(
                [
                    ("  ", ""),
                    ("─" * path_w, "dim"),
                    *[("  " + "─" * w, "dim") for w in widths],
                    ("  " + "─" * min(verdict_w, 7), "dim"),
                ]
            )
            for row, cells, (word, style) in zip(rows, texts, verdicts, strict=True):
                line: Line = [
                    ("  ", ""),
                    (f"{_cut(_pointer(row.path), path_w):<{path_w}}", "bold"),
                ]
                for text, width, tone in zip(cells, widths, _tones(row, views), strict=True):
                    line.append((f"  {_cut(text, width):<{width}}", tone))
                line.append((f"  {word}", style))
                out.append(line)
        if hidden:
            out.append(
                [("  ... the members that agree are not shown (--rows all shows them)", "dim")]
            )
        if not rows and not hidden:
            out.append([("  (nothing to compare)", "dim")])
        return out

    def _stacked(
        self,
        rows: list[Row],
        texts: list[list[str]],
        verdicts: list[tuple[str, str]],
        headers: list[str],
        views: list[HopView],
    ) -> list[Line]:
        label_w = max(len(h) for h in headers)
        room = max(self.width - 6 - label_w, 10)
        out: list[Line] = []
        for row, cells, (word, style) in zip(rows, texts, verdicts, strict=True):
            path = _pointer(row.path)
            if not row.differences and len(set(cells)) == 1:  # one line when all hops agree
                room_one = max(self.width - 6 - len(path) - len(word), 10)
                out.append(
                    [
                        ("  ", ""),
                        (path, "bold"),
                        ("  ", ""),
                        (_cut(cells[0], room_one), ""),
                        ("  ", ""),
                        (word, style),
                    ]
                )
                continue
            out.append([("  ", ""), (_cut(path, room), "bold"), ("  ", ""), (word, style)])
            out.extend(
                [
                    ("    ", ""),
                    (f"{header:<{label_w}}", "dim"),
                    ("  ", ""),
                    (_cut(text, room), tone),
                ]
                for header, text, tone in zip(headers, cells, _tones(row, views), strict=True)
            )
        return out

    @staticmethod
    def _cells(row: Row, views: list[HopView]) -> list[str]:
        out = []
        for cell, view in zip(row.cells, views, strict=True):
            if cell is None:
                out.append(_ABSENT_CELL if view.available else _UNPARSED_CELL)
            elif cell[0] != row.path:
                out.append(f"{_pointer(cell[0])}: {cell[1]}")
            else:
                out.append(cell[1])
        return out

    def _notes(self, result: CallDiff) -> list[Line]:
        lines: list[Line] = []
        items = 0
        total = len(result.differences) + len(result.findings)
        hinted: set[str] = set()  # a hint is said once per call, on its first difference
        for difference in sorted(result.differences, key=lambda d: d.expected):
            if items >= MAX_LINES:
                break
            items += 1
            lines.extend(self._difference(difference, hinted))
        for finding in result.findings:
            if items >= MAX_LINES:
                break
            items += 1
            lines.extend(self._finding(finding))
        if total > items:
            lines.append([(f"  ... {total - items} more (--format json lists everything)", "dim")])
        return lines

    def _difference(self, d: Difference, hinted: set[str]) -> list[Line]:
        head: Line = [
            ("  ", ""),
            severity_label(d.severity),
            (" ", ""),
            (d.code.value, Style.CODE),
            (" ", ""),
        ]
        lines = self._wrap(head, d.message, "", 10)
        hint = d.hint
        if hint:
            if hint not in hinted:
                hinted.add(hint)
                lines.extend(self._wrap([(" " * 10, ""), ("hint: ", "dim")], hint, "dim", 16))
        elif d.rule:
            lines.extend(self._wrap([(" " * 10, ""), ("rule: ", "dim")], d.rule, "dim", 16))
        return lines

    def _finding(self, finding: Finding, indent: str = "  ") -> list[Line]:
        where = finding.path
        if not where and finding.code.startswith(("parse.", "schema.")):
            where = "/"  # the whole payload
        if finding.hop is not None:
            where = f"{where} ({finding.hop.value})" if where else f"({finding.hop.value})"
        head: Line = [
            (indent, ""),
            severity_label(finding.severity),
            (" ", ""),
            (finding.code, Style.CODE),
            (" ", ""),
            (where, Style.POINTER),
            (": ", ""),
        ]
        text = finding.message
        if finding.source is not None and not indent:
            text += f" [{finding.source}]"
        lines = self._wrap(head, text, "", len(indent) + 8)
        if finding.hint:
            hint_head: Line = [(indent + " " * 8, ""), ("hint: ", "dim")]
            lines.extend(self._wrap(hint_head, finding.hint, "dim", len(indent) + 14))
        return lines

    def _wrap(self, head: Line, text: str, style: str, hang: int) -> list[Line]:
        """``head`` then ``text``, wrapped to the width with a hanging indent."""
        used = sum(len(t) for t, _ in head)
        if used + len(text) <= self.width or self.width - hang < 20:
            return [[*head, (text, style)]]
        pieces = textwrap.wrap(
            text, max(self.width - used, 20), break_on_hyphens=False, break_long_words=False
        )
        if not pieces:
            return [head]
        out: list[Line] = [[*head, (pieces[0], style)]]
        rest = " ".join(pieces[1:])
        out.extend(
            [(" " * hang, ""), (piece, style)]
            for piece in textwrap.wrap(
                rest, self.width - hang, break_on_hyphens=False, break_long_words=False
            )
        )
        return out


def _tones(row: Row, views: list[HopView]) -> list[str]:
    """The style of each cell: red where an unexpected difference lands, green where an
    expected one does."""
    tones = [""] * len(views)
    for difference in row.differences:
        for index, view in enumerate(views):
            if view.hop is difference.to_hop and tones[index] != "red":
                tones[index] = "green" if difference.expected else "red"
    return tones


def _checks(view: HopView) -> tuple[str, bool]:
    """``parsed · schema ok`` and whether something failed."""
    parse_codes = [f.code for f in view.findings if f.code.startswith(("parse.", "envelope."))]
    if view.parsed:
        parts = ["parsed"]
    elif view.available:
        parts = [
            f"not parsed ({parse_codes[0]}), compared as received" if parse_codes else "not parsed"
        ]
    else:
        parts = [f"not parsed ({parse_codes[0]}), not compared" if parse_codes else "not compared"]
    if view.valid is True:
        parts.append("schema ok")
    elif view.valid is False:
        errors = sum(1 for f in view.findings if f.code.startswith("schema."))
        parts.append(f"schema: {errors} error{'s' * (errors != 1)}")
    elif view.schema is None and view.parsed:
        parts.append("no schema")
    bad = not view.ok
    return " · ".join(parts), bad


def _fit(natural: list[int], room: int) -> list[int]:
    """Column widths: each column's natural width, the widest shrunk until they fit."""
    widths = list(natural)
    while sum(widths) > room and max(widths, default=0) > 1:
        widest = max(range(len(widths)), key=lambda i: widths[i])
        over = sum(widths) - room
        second = sorted(widths)[-2] if len(widths) > 1 else 0
        widths[widest] -= max(1, min(over, widths[widest] - second))
    return widths


def summary_lines(summary: DiffSummary) -> list[Line]:
    """The closing summary: calls by status, differences by code, findings by severity."""
    status = summary.by_status
    noun = "call" if summary.calls == 1 else "calls"
    files = "file" if summary.files == 1 else "files"
    parts = [
        f"{status.get(s.value, 0)} {s.value}"
        for s in CallStatus
        if status.get(s.value, 0) or s in (CallStatus.AGREE, CallStatus.DIFFER)
    ]
    lines: list[Line] = [
        [
            (f"{summary.calls} {noun} diffed ({summary.files} {files}): ", "bold"),
            (" · ".join(parts), "bold red" if status.get("differ") else "green"),
        ]
    ]
    unexpected = sum(summary.unexpected.values())
    expected = sum(summary.expected.values())

    def codes(counter: dict[str, int]) -> str:
        return ", ".join(f"{code} {count}" for code, count in sorted(counter.items()))

    text = f"{unexpected} unexpected"
    if unexpected:
        text += f" ({codes(summary.unexpected)})"
    text += f" · {expected} expected"
    if expected:
        text += f" ({codes(summary.expected)})"
    lines.append([("  differences: ", "dim"), (text, "red" if unexpected else "")])
    sev = summary.by_severity  # unexpected differences count as errors, expected as info
    errors, warnings = sev.get("error", 0), sev.get("warning", 0)
    lines.append(
        [
            ("  findings: ", "dim"),
            (
                f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)}, "
                f"{sev.get('info', 0)} info",
                "red" if errors else "",
            ),
        ]
    )
    return lines
