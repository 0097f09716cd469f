"""Where the project is, and how reports name what is in it.

:func:`project_root` is the directory CI reports write paths relative to,
:func:`portable_path` the one place a report spells a file for CI (relative to that root,
whatever the working directory and however the path was given), and :func:`fingerprint`
the one identity of a finding across runs (what SARIF's partial fingerprints and a
baseline match).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jsoncontract.model import Finding


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
