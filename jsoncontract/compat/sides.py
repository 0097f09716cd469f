"""The two sides ``compat`` compares, each read into a lock of its tools.

A side is named on the command line as one of:

- a tool file or directory, in any shape ``check --tools`` reads (OpenAI, Anthropic,
  Gemini, an MCP ``tools/list``, OpenAPI): read as ``pin`` reads it;
- a lock ``pin`` wrote (every file and server it pinned);
- ``git:REF:PATH``: the file or directory PATH (relative to the working directory) as the
  commit REF holds it, read with ``git`` from the repository's history, so a job can
  compare with its base branch without a second checkout;
- a live server: the command line builds that side from its ``tools/list``
  (:func:`~jsoncontract.live.linting.pin_listing`), so this module never contacts one.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Final

from jsoncontract.compat.tools import Side
from jsoncontract.errors import InputError, UsageError
from jsoncontract.pin import Lock, lock_from, pin, pin_file, read_lock

#: The prefix of a side read from the repository's history.
GIT_PREFIX: Final = "git:"
#: Seconds a ``git`` command may take.
GIT_TIMEOUT: Final = 60


def is_lock(path: Path) -> bool:
    """Whether a file is a lock ``pin`` wrote (a JSON object with its three members)."""
    from jsoncontract._files import load_document
    from jsoncontract._json import NotJSON

    try:
        document, _ = load_document(path)
    except (NotJSON, InputError):
        return False
    return isinstance(document, dict) and {"version", "sha256", "files"} <= document.keys()


def file_side(spec: str, *, tool_name: str | None = None, exclude: Sequence[str] = ()) -> Side:
    """A side read from a tool file or directory, or a lock.

    Raises:
        InputError, ToolLoadError: as :func:`~jsoncontract.pin.pin` and
            :func:`~jsoncontract.pin.read_lock`.
    """
    path = Path(spec)
    if path.is_file() and is_lock(path):
        return Side(spec, read_lock(path))
    return Side(spec, pin([path], base=Path.cwd(), tool_name=tool_name, exclude=exclude))


def git_side(
    spec: str,
    *,
    tool_name: str | None = None,
    exclude: Sequence[str] = (),
    cwd: Path | None = None,
) -> Side:
    """A side read from ``git:REF:PATH``: the tool files of PATH at REF (a lock file at
    that path is read as a lock).

    Raises:
        UsageError: the spec is not ``git:REF:PATH``.
        InputError: git is missing, this is no repository, REF names no commit, PATH is
            not in it, or a file in it cannot be read as a tool file.
    """
    from jsoncontract._files import excluded
    from jsoncontract.tools.loader import TOOL_SUFFIXES

    ref, sep, path = spec.removeprefix(GIT_PREFIX).partition(":")
    if not sep or not ref:
        raise UsageError(f"{spec!r}: write git:REF:PATH (git:main:tools/, git:HEAD~1:tools.json)")
    if ref.startswith("-"):
        raise UsageError(f"{spec!r}: a revision does not start with '-'")
    path = path or "."
    commit = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], spec, cwd).strip()
    if not commit:
        raise InputError(f"{ref!r} names no commit of this repository", file=spec)
    listed = _git(["ls-tree", "-r", "-z", "--full-name", commit.decode(), "--", path], spec, cwd)
    entries: list[tuple[str, str]] = []
    for entry in listed.split(b"\0"):
        if not entry:
            continue
        meta, _, found = entry.partition(b"\t")
        kind, blob = meta.split(b" ")[1:3]
        if kind == b"blob":
            entries.append((found.decode("utf-8", "surrogateescape"), blob.decode()))
    if not entries:
        raise InputError(f"{path} is not in {ref}", file=spec)
    named = len(entries) == 1 and not listed_as_directory(path, entries[0][0])
    lock = Lock()
    for name, sha in sorted(entries):
        shown = f"{GIT_PREFIX}{ref}:{name}"
        if not named and (
            PurePosixPath(name).suffix not in TOOL_SUFFIXES
            or excluded(Path(name), exclude, Path(path))
        ):
            continue
        data = _git(["cat-file", "blob", sha], spec, cwd)
        if named and (document := _lock_document(name, data)) is not None:
            return Side(spec, lock_from(document, shown))
        pin_file(lock, name, shown, data, tool_name=tool_name, named=named)
    if not lock.files:
        raise InputError(f"{path} at {ref} holds no tool definition", file=spec)
    return Side(spec, lock)


def listed_as_directory(given: str, found: str) -> bool:
    """Whether PATH named a directory that holds the one file found."""
    return PurePosixPath(found).name != PurePosixPath(given).name


def _lock_document(name: str, data: bytes) -> object | None:
    """The parsed lock when ``data`` is one, else ``None``."""
    from jsoncontract._files import load_document
    from jsoncontract._json import NotJSON

    try:
        document, _ = load_document(name, data)
    except (NotJSON, InputError):
        return None
    if isinstance(document, dict) and {"version", "sha256", "files"} <= document.keys():
        return document
    return None


def _git(args: list[str], spec: str, cwd: Path | None) -> bytes:
    """``git ARGS``'s output.

    Raises:
        InputError: git is missing, fails, or takes too long.
    """
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            timeout=GIT_TIMEOUT,
            check=False,
        )
    except FileNotFoundError:
        raise InputError("git is not installed; a git:REF:PATH side needs it", file=spec) from None
    except subprocess.TimeoutExpired:
        raise InputError(f"git {args[0]} took over {GIT_TIMEOUT} s", file=spec) from None
    if done.returncode != 0:
        if args[0] == "rev-parse" and done.returncode == 1 and not done.stderr:
            return b""
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["failed"])[-1]
        raise InputError(f"git {args[0]}: {last.removeprefix('fatal: ')}", file=spec)
    return done.stdout
