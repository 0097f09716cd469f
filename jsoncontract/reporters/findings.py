"""What the finding renderers (SARIF, JUnit, GitHub) take: findings plus rule metadata.

They are shared by every command that reports findings: a renderer receives
:class:`~jsoncontract.model.Finding` values (their :class:`~jsoncontract.model.Source` is
where a finding is), a table of :class:`RuleMeta` by code, and returns text. Nothing here
knows where findings come from: each command's CI module (``check_ci``, ``lint_ci``,
``suite_ci``, ``diff_ci``) turns its results into a :class:`FindingSet`, so a format made of
findings is one renderer of a :class:`FindingSet` plus one small class per command.

:func:`portable_path` is the one place a report spells a file for CI (relative to
:func:`project_root`, whatever the working directory and however the path was given), and
:func:`fingerprint` the one identity of a finding across runs.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from functools import lru_cache
from pathlib import Path, PurePath
from typing import Any, Final

from jsoncontract._json import printable
from jsoncontract._version import __version__
from jsoncontract.model import Finding, Severity

PROJECT_URL: Final = "https://github.com/jsoncontract/jsoncontract"


@dataclass(frozen=True, slots=True)
class RuleMeta:
    """What a report says about a rule (or a finding code) besides its findings.

    ``summary`` is one short sentence, ``description`` a paragraph saying more (what is
    checked and why; SARIF's ``fullDescription``), ``help_markdown`` the full documentation;
    ``security_severity`` (0 to 10) marks security rules for code-scanning dashboards.
    """

    code: str
    name: str
    summary: str
    severity: Severity = Severity.WARNING
    help_markdown: str = ""
    help_uri: str | None = None
    tags: tuple[str, ...] = ()
    security_severity: float | None = None
    description: str = ""


@dataclass(frozen=True, slots=True)
class ToolInfo:
    """The program that produced the report."""

    name: str = "jsoncontract"
    version: str = __version__
    uri: str = PROJECT_URL


def _git_top(start: Path) -> Path | None:
    """The top of the git work tree holding ``start``: the nearest directory with a
    ``.git`` entry (a directory, or the file of a linked work tree or submodule)."""
    for directory in (start, *start.parents):
        if (directory / ".git").exists():
            return directory
    return None


def _root(cwd: str, config_dir: str | None) -> str:
    here = Path(cwd)
    top = _git_top(here)
    if top is None and config_dir is not None:
        base = Path(os.path.abspath(Path(cwd, config_dir)))  # noqa: PTH100 (no symlinks resolved)
        top = _git_top(base) or base
    return str(top or here)


def project_root(config_dir: str | Path | None = None) -> Path:
    """The directory CI reports write paths relative to.

    The top of the git work tree holding the working directory; else the one holding
    ``config_dir`` (the directory of the project's config file), else ``config_dir``
    itself; else the working directory. Found from files alone (no ``git`` process).
    """
    return Path(_root(os.getcwd(), str(config_dir) if config_dir is not None else None))  # noqa: PTH109


@lru_cache(maxsize=4096)  # findings repeat their files
def _portable(path: str, cwd: str, root: str, lexical: bool = False) -> str:
    if path == "-":
        return path
    absolute = os.path.normpath(os.path.join(cwd, path))  # noqa: PTH118 (keeps symlinks)
    if not lexical and not os.path.isabs(path) and not os.path.lexists(absolute):  # noqa: PTH117
        # names nothing on disk (a live server's name or URL): written as given
        return path[2:] if path.startswith("./") else path
    base = os.path.normpath(os.path.join(cwd, root))  # noqa: PTH118
    if absolute == base:
        return "."
    if absolute.startswith(base.rstrip(os.sep) + os.sep):
        return PurePath(os.path.relpath(absolute, base)).as_posix()
    return PurePath(absolute).as_posix()  # outside the project: the whole path


def portable_path(path: str, root: str | Path | None = None, *, lexical: bool = False) -> str:
    """How every CI format spells a file (SARIF, JUnit, annotations): relative to ``root``
    (default: :func:`project_root`) with forward slashes, whatever the working directory
    and however the path was given (``./tools/a.json``, ``../tools/a.json``, absolute).
    A file outside ``root`` keeps its absolute path; ``-`` (stdin), and a relative name
    that is no file (a live server's name or URL), stay as they are.

    >>> portable_path("/repo/tools/a.json", "/repo"), portable_path("/elsewhere/b.json", "/repo")
    ('tools/a.json', '/elsewhere/b.json')

    ``lexical``: from the name alone, never looking at the disk (a path read from a file,
    such as a baseline's, names nothing the run may look at); a relative name is taken for
    a file's.
    """
    cwd = os.getcwd()  # noqa: PTH109
    return _portable(path, cwd, str(root) if root is not None else _root(cwd, None), lexical)


def is_relative(portable: str) -> bool:
    """Whether a :func:`portable_path` is inside the project (relative), not absolute."""
    return portable != "-" and not PurePath(portable).is_absolute()


def fingerprint(finding: Finding, root: str | Path | None = None, *, lexical: bool = False) -> str:
    """A stable identity of a finding: its code, file (relative to ``root``, see
    :func:`portable_path`; ``lexical``: from its name alone), tool and JSON Pointer. It
    changes when any of them does and survives line moves and changes of wording (SARIF's
    partial fingerprint, and what a baseline matches)."""
    import hashlib  # here: most commands that import this module never hash a finding

    source = finding.source
    parts = (
        finding.code,
        portable_path(source.file, root, lexical=lexical) if source else "",
        finding.tool or "",
        finding.path,
    )
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class FindingSet:
    """A command's results as the formats made of findings take them.

    ``findings`` in report order; ``rules`` the metadata of the codes the report describes,
    in the order a driver lists them; ``suppressed`` findings silenced by configuration,
    with the stated reason. A finding's ``baseline`` says whether it was already in the
    baseline the run was compared with.
    """

    findings: Sequence[Finding]
    rules: Mapping[str, RuleMeta]
    suppressed: Sequence[tuple[Finding, str]] = ()
    #: the directory paths are written relative to (``None``: :func:`project_root`)
    root: str | None = None
    #: the command that found them (``check``, ``lint``...): SARIF's analysis category
    command: str | None = None
    #: findings not in ``findings``, dropped to keep a huge report within its limits
    left_out: int = 0


class KeptFindings:
    """The findings of a streamed run, as many of each severity as a report can hold: the
    rest are counted, so memory stays bounded however many calls fail.

    Arguments:
        limit: findings kept per severity (a SARIF run holds 25,000 at most).
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._kept: dict[Severity, list[tuple[int, Finding]]] = {s: [] for s in Severity}
        self._seen = 0
        self.left_out = 0

    def add(self, finding: Finding) -> None:
        """Keep a finding, or count it."""
        self._seen += 1
        kept = self._kept[finding.severity]
        if len(kept) < self.limit:
            kept.append((self._seen, finding))
        else:
            self.left_out += 1

    def findings(self) -> list[Finding]:
        """The kept findings, in the order they were added."""
        merged = sorted((item for kept in self._kept.values() for item in kept), key=_first)
        return [finding for _, finding in merged]


def _first(item: tuple[int, Finding]) -> int:
    return item[0]


def printable_finding(finding: Finding) -> Finding:
    """The finding with its texts spelt out where they hold lone surrogates (a capture's
    invalid UTF-8 in a tool name, key or file name: see :func:`printable`)."""
    changes: dict[str, Any] = {
        f.name: printable(value)
        for f in fields(finding)
        if type(value := getattr(finding, f.name)) is str  # not the enums (severity...)
    }
    if finding.source is not None:
        changes["source"] = replace(finding.source, file=printable(finding.source.file))
    return replace(finding, **changes)


_LINK: Final = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
#: A code span: a run of backticks, the code, the same run (CommonMark).
_CODE: Final = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)


def plain_text(markdown: str) -> str:
    """Markdown help as plain text (SARIF's ``help.text``, for viewers that do not render
    Markdown): links spelt ``text (url)``, emphasis and code marks dropped.

    >>> plain_text("Wrapped in a fence (```` ```json ``` ````): see [docs](u), **now**.")
    'Wrapped in a fence (```json ```): see docs (u), now.'
    """
    text = _CODE.sub(lambda m: _unspaced(m.group(2)), markdown)
    text = _LINK.sub(r"\1 (\2)", text)
    return text.replace("**", "")


def _unspaced(code: str) -> str:
    """A code span's text: one space either side is padding when both are there."""
    if len(code) > 2 and code.startswith(" ") and code.endswith(" ") and code.strip():
        return code[1:-1]
    return code
