"""Baselines: compare a run with a previous report, so that only new findings count.

A team adopting jsoncontract on an existing tool catalog (or capture corpus, or suite)
records today's findings once (``--format json`` or ``--format sarif``) and from then on
fails only on what is new: ``lint --baseline lint.json``. Each finding of the run is marked
:attr:`~jsoncontract.model.BaselineState.UNCHANGED` when the baseline holds it and
:attr:`~jsoncontract.model.BaselineState.NEW` when not; unchanged findings are still
reported (SARIF says ``baselineState``) but no longer decide the exit code.

A finding is identified by :func:`~jsoncontract.project.fingerprint`: its code,
file (relative to the project root), tool and JSON Pointer, which survive line moves and
rewording. Identical fingerprints are counted: a baseline holding a finding twice absorbs
two occurrences, and a third is new.

A baseline is a JSON report of the same command (``check`` ``json`` or ``jsonl``, ``lint``
or ``test`` ``json``) or a SARIF log of it. JSON reports spell files as they were given on
the command line, so compare runs started from the same directory (SARIF logs carry
root-relative paths and fingerprints, and work from anywhere in the project).

>>> from jsoncontract.model import Finding, Severity, Source
>>> def seen(message, line):
...     where = Source("a.json", line)
...     return Finding("JC020", Severity.WARNING, message, "/p", tool="t", source=where)
>>> baseline = Baseline.of([seen("open object", 3)], root="/project")
>>> moved = seen("reworded", 9)
>>> matcher = baseline.matcher()
>>> [matcher.state(moved).value, matcher.state(moved).value]
['unchanged', 'new']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Final

from jsoncontract import codes
from jsoncontract.errors import InputError, UsageError
from jsoncontract.model import BaselineState, Finding, Severity, Source

#: The commands that take a baseline.
COMMANDS: Final = ("check", "lint", "test", "probe")
_FINGERPRINT: Final = "jsoncontract/v1"
_LEFT_OUT: Final = codes.REPORT_RESULTS_LEFT_OUT


@dataclass(frozen=True, slots=True)
class Baseline:
    """The findings of a previous report, as fingerprint counts.

    ``file`` is where it was read from, ``command`` the command whose report it is (when
    the report says), ``root`` the directory the fingerprints' paths are relative to, and
    ``notes`` what the caller should tell the user about it (a baseline cut short).
    """

    counts: Counter[str]
    root: str
    file: str | None = None
    command: str | None = None
    notes: tuple[str, ...] = field(default=())

    @classmethod
    def of(cls, findings: Iterable[Finding], *, root: str | Path | None = None) -> Baseline:
        """A baseline of these findings."""
        base = _root(root)
        return cls(Counter(_fingerprint(f, base) for f in findings), base)

    @classmethod
    def load(
        cls, path: str | Path, *, command: str | None = None, root: str | Path | None = None
    ) -> Baseline:
        """Read a previous report: a SARIF log, or a ``check``, ``lint`` or ``test`` JSON
        report (``check`` JSON Lines too).

        Arguments:
            path: the report.
            command: the command comparing with it; a report of another command is refused.
            root: the project root (default:
                :func:`~jsoncontract.project.project_root`).

        Raises:
            InputError: the file cannot be read, or is no report jsoncontract wrote.
            UsageError: it is the report of another command.
        """
        from jsoncontract._files import read_bytes
        from jsoncontract._json import NotJSON, load

        name = str(path)
        data = read_bytes(path)
        base = _root(root)
        try:
            document, _ = load(data)
            documents: list[Any] = [document]
        except NotJSON:
            documents = _json_lines(data, name)
        kind, findings, notes = _read(documents, name, base)
        if command is not None and kind is not None and kind != command:
            raise UsageError(
                f"--baseline {name} is a {kind} report; {command} compares with a {command} "
                f"report (--format json or sarif)"
            )
        return cls(Counter(findings), base, name, kind, tuple(notes))

    def __len__(self) -> int:
        return sum(self.counts.values())

    def matcher(self) -> BaselineMatcher:
        """A fresh matcher: each baseline finding absorbs one finding of the run."""
        return BaselineMatcher(self)

    # -- each command's results ------------------------------------------------------------


class BaselineMatcher:
    """Says, finding by finding, whether the baseline holds it (using each baseline
    finding once)."""

    __slots__ = ("_left", "_root")

    def __init__(self, baseline: Baseline) -> None:
        self._left = Counter(baseline.counts)
        self._root = baseline.root

    def state(self, finding: Finding) -> BaselineState:
        """``unchanged`` when an unused baseline finding has the same fingerprint."""
        key = _fingerprint(finding, self._root)
        if self._left[key] > 0:
            self._left[key] -= 1
            return BaselineState.UNCHANGED
        return BaselineState.NEW

    def mark(self, findings: list[Finding]) -> list[Finding]:
        """The findings with their state."""
        return [replace(f, baseline=self.state(f)) for f in findings]


def counts(finding: Finding) -> bool:
    """Whether a finding counts toward the exit code: it is not in the baseline."""
    return finding.baseline is not BaselineState.UNCHANGED


def _root(root: str | Path | None) -> str:
    import os

    from jsoncontract.project import project_root

    return os.path.abspath(root if root is not None else project_root())  # noqa: PTH100


def _fingerprint(finding: Finding, root: str) -> str:
    """The fingerprint of a finding read from a baseline: from its file's name alone (a
    baseline never makes the run look at a path it names)."""
    from jsoncontract.project import fingerprint

    return fingerprint(finding, root, lexical=True)


def _json_lines(data: bytes, name: str) -> list[Any]:
    from jsoncontract._json import NotJSON, load

    out = []
    for number, line in enumerate(data.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append(load(line)[0])
        except NotJSON as exc:
            raise InputError(
                f"not a jsoncontract report (JSON or SARIF): line {number} is not JSON: "
                f"{exc.diagnosis.message}",
                file=name,
                line=number,
            ) from None
    return out


def _read(documents: list[Any], name: str, root: str) -> tuple[str | None, list[str], list[str]]:
    """The command, the fingerprints and the notes of a report."""
    first = documents[0] if documents else None
    if len(documents) == 1 and isinstance(first, dict):
        if isinstance(first.get("runs"), list):
            return _sarif(first, name)
        servers = first.get("servers")
        if isinstance(servers, list) and all(isinstance(s, dict) for s in servers):
            return "probe", _probe(servers, root), []
        results = first.get("results")
        if isinstance(results, list) and all(isinstance(r, dict) for r in results):
            if any("case" in r for r in results):
                return "test", _test(results, root), []
            if "summary" in first and (not results or any("findings" in r for r in results)):
                run = first.get("findings")  # about the run rather than one call
                extra = _from_dicts(run, root, "check") if isinstance(run, list) else []
                return "check", [*_check(results, root), *extra], []
        if isinstance(first.get("findings"), list):
            return "lint", _from_dicts(first["findings"], root, "lint"), []
    if len(documents) > 1 and all(isinstance(d, dict) for d in documents):
        results = [d for d in documents if "findings" in d and "summary" not in d]
        last = documents[-1]
        if results and "summary" in last:  # check --format jsonl: results, then the summary
            run = last.get("findings")
            extra = _from_dicts(run, root, "check") if isinstance(run, list) else []
            return "check", [*_check(results, root), *extra], []
    raise InputError(
        "not a jsoncontract report: a baseline is a check, lint or test report written with "
        "--format json (or jsonl), or a SARIF log (--format sarif)",
        file=name,
    )


def _sarif(log: dict[str, Any], name: str) -> tuple[str | None, list[str], list[str]]:
    kind: str | None = None
    out: list[str] = []
    notes: list[str] = []
    for run in log["runs"]:
        if not isinstance(run, dict):
            continue
        category = (run.get("automationDetails") or {}).get("id")
        if isinstance(category, str) and category.startswith("jsoncontract/"):
            kind = category.split("/")[1] or kind
        for result in run.get("results") or ():
            if not isinstance(result, dict) or result.get("suppressions"):
                continue
            if result.get("ruleId") == _LEFT_OUT:
                text = (result.get("message") or {}).get("text", "")
                notes.append(
                    f"{name} was cut to GitHub's limit ({text.split(':')[0]}); the findings "
                    "it left out count as new: use a JSON report (--format json) as baseline"
                )
                continue
            key = (result.get("partialFingerprints") or {}).get(_FINGERPRINT)
            if not isinstance(key, str):
                raise InputError(
                    "a SARIF result without a jsoncontract fingerprint: the baseline must be "
                    "a SARIF log jsoncontract wrote",
                    file=name,
                )
            out.append(key)
    return kind, out, notes


def _finding(item: dict[str, Any], path: str | None = None) -> Finding:
    source = item.get("source")
    file = source.get("file") if isinstance(source, dict) else None
    tool = item.get("tool")
    return Finding(
        code=str(item.get("code")),
        severity=Severity.ERROR,
        message="",
        path=str(item.get("path", "") if path is None else path),
        tool=tool if isinstance(tool, str) else None,
        source=Source(file) if isinstance(file, str) else None,
    )


def _from_dicts(items: list[Any], root: str, kind: str) -> list[str]:
    out = []
    for item in items:
        if not isinstance(item, dict) or "code" not in item:
            raise InputError(f"a {kind} report finding without a code")
        out.append(_fingerprint(_finding(item), root))
    return out


def _check(results: list[dict[str, Any]], root: str) -> list[str]:
    out: list[str] = []
    for result in results:
        findings = result.get("findings")
        if isinstance(findings, list):
            out.extend(_from_dicts(findings, root, "check"))
    return out


def _probe(servers: list[dict[str, Any]], root: str) -> list[str]:
    """The fingerprints of an ``mcp probe`` JSON report: every finding of every server."""
    found: list[Any] = []
    for server in servers:
        found.extend(server.get("findings") or ())
        for key in ("protocol", "tools", "extras"):
            for part in server.get(key) or ():
                if isinstance(part, dict):
                    found.extend(part.get("findings") or ())
                    for case in part.get("cases") or ():
                        if isinstance(case, dict):
                            found.extend(case.get("findings") or ())
    return _from_dicts(found, root, "probe")


def _test(results: list[dict[str, Any]], root: str) -> list[str]:
    out = []
    for result in results:
        if result.get("ok") or not isinstance(result.get("code"), str):
            continue
        expected = result.get("expected")
        path = expected.get("path") if isinstance(expected, dict) else None
        out.append(_fingerprint(_finding(result, path or ""), root))
    return out


__all__ = ["COMMANDS", "Baseline", "BaselineMatcher", "counts"]
