"""``--fix`` and ``--diff``: apply the rules' mechanical fixes to tool files.

Fixes are applied in passes, as ruff does: lint, apply every fix that does not overlap
another, re-lint the new text, repeat until nothing is left to fix (at most
:data:`MAX_PASSES`). Each pass re-reads the fixed text as tools, so a fix can never leave a
file that is not JSON or not a tool list: such a result is an internal error, and the file
is not written. Findings whose fix would change what the schema accepts carry the reason
instead of a fix, and are reported as not fixed.
"""

from __future__ import annotations

import difflib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from jsoncontract.errors import InputError, JsoncontractError
from jsoncontract.lint.edit import apply

if TYPE_CHECKING:
    from jsoncontract.lint.engine import Linter

MAX_PASSES: Final = 10
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
        """A unified diff of the change (empty when nothing changes)."""
        if not self.changed:
            return ""
        lines = difflib.unified_diff(
            self.before.splitlines(keepends=True),
            self.after.splitlines(keepends=True),
            fromfile=self.path,
            tofile=self.path,
        )
        return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


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
    target = Path(fix.path)
    try:
        mode = target.stat().st_mode
        fd, temp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(fd, "wb") as stream:
            stream.write(fix.after.encode("utf-8"))
        Path(temp).chmod(mode & 0o7777)
        Path(temp).replace(target)
    except OSError as exc:
        raise InputError(
            f"cannot write the fixed file: {exc.strerror or exc}", file=fix.path
        ) from None
