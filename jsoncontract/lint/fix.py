"""``--fix`` and ``--diff``: apply the rules' mechanical fixes to tool files.

Fixes are applied in passes, as ruff does: lint, apply every fix that does not overlap
another, re-lint the new text, repeat until nothing is left to fix (at most
:data:`MAX_PASSES`). Each pass re-reads the fixed text as tools, so a fix can never leave a
file that is not JSON or not a tool list: such a result is an internal error, and the file
is not written. Findings whose fix would change what the schema accepts carry the reason
instead of a fix, and are reported as not fixed.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from jsoncontract._files import write_output
from jsoncontract.errors import JsoncontractError
from jsoncontract.lint.edit import apply

if TYPE_CHECKING:
    from jsoncontract.lint.engine import Linter

MAX_PASSES: Final = 10
#: Lines of context around each change in ``--diff``.
CONTEXT: Final = 3
_BOM: Final = "\ufeff"


@dataclass(frozen=True, slots=True)
class FileFix:
    """What fixing one file did: the text before and after, and how many fixes applied."""

    path: str
    before: str
    after: str
    applied: int

    @property
    def changed(self) -> bool:
        """Whether the file's text changes."""
        return self.before != self.after

    def diff(self) -> str:
        """A unified diff of the change, three lines of context (empty when nothing changes).

        Lines are aligned as ``diff`` aligns array items (common head and tail, patience
        anchors, difflib on small middles), so the diff of a catalog of thousands of fixed
        tools costs about as much as reading it.
        """
        if not self.changed:
            return ""
        from jsoncontract._align import align_sequences

        before = self.before.splitlines(keepends=True)
        after = self.after.splitlines(keepends=True)
        ops = align_sequences(
            [line.encode("utf-8") for line in before], [line.encode("utf-8") for line in after]
        )
        out = [f"--- {self.path}\n", f"+++ {self.path}\n"]
        for hunk in _hunks(ops, CONTEXT):
            first, last = hunk[0], hunk[-1]
            out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
            for tag, i1, i2, j1, j2 in hunk:
                if tag == "equal":
                    out.extend(" " + line for line in before[i1:i2])
                    continue
                out.extend("-" + line for line in before[i1:i2])
                out.extend("+" + line for line in after[j1:j2])
        return "".join(line if line.endswith("\n") else line + "\n" for line in out)


Opcode = tuple[str, int, int, int, int]


def _hunks(ops: list[Opcode], context: int) -> Iterator[list[Opcode]]:
    """The opcodes cut into hunks: changes with up to ``context`` equal lines around them,
    one hunk where two changes are closer than twice that."""
    if not ops:
        return
    ops = list(ops)
    tag, i1, i2, j1, j2 = ops[0]
    if tag == "equal":
        ops[0] = (tag, max(i1, i2 - context), i2, max(j1, j2 - context), j2)
    tag, i1, i2, j1, j2 = ops[-1]
    if tag == "equal":
        ops[-1] = (tag, i1, min(i2, i1 + context), j1, min(j2, j1 + context))
    hunk: list[Opcode] = []
    for tag, i1, i2, j1, j2 in ops:
        if tag == "equal" and i2 - i1 > 2 * context:
            hunk.append((tag, i1, i1 + context, j1, j1 + context))
            yield hunk
            hunk = []
            i1, j1 = i2 - context, j2 - context
        hunk.append((tag, i1, i2, j1, j2))
    if hunk and not (len(hunk) == 1 and hunk[0][0] == "equal"):
        yield hunk


def _range(start: int, stop: int) -> str:
    """A hunk header range: 1-based first line and length (``3``, ``3,4``, ``2,0``)."""
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start if length == 0 else start + 1},{length}"


def fix_source(linter: Linter, path: str, data: bytes) -> FileFix:
    """Apply every available fix to one file's content (nothing is written).

    Each pass lints the text once: the lint that proves a pass left a loadable file gives
    the findings of the next pass.

    Raises:
        InputError, ToolLoadError: the file cannot be linted as it is.
        JsoncontractError: a fix produced a text that no longer loads (an internal error).
    """
    report = linter.lint_sources([(path, data)])  # a file lint refuses is refused here
    text = data.decode("utf-8")
    bom = text.startswith(_BOM)
    if bom:
        text = text[1:]
    original = text
    applied_total = 0
    for _ in range(MAX_PASSES):
        fixes = [item.fix.edits for item in report.findings if item.fix is not None]
        if not fixes:
            break
        new_text, applied = apply(text, fixes)
        if applied == 0 or new_text == text:
            break
        try:
            report = linter.lint_sources([(path, new_text.encode("utf-8"))])
        except JsoncontractError as exc:
            raise JsoncontractError(
                f"internal error: fixing {path} produced a file that does not load ({exc}); "
                "nothing was written, please report it"
            ) from None
        text = new_text
        applied_total += applied
    prefix = _BOM if bom else ""
    return FileFix(path, prefix + original, prefix + text, applied_total)


def write_fixed(fix: FileFix) -> None:
    """Write a fixed file in place (atomically, keeping its permissions).

    Raises:
        InputError: the file cannot be written.
    """
    write_output(fix.path, fix.after.encode("utf-8"), verb="write the fixed file")
