"""``jsoncontract fixtures``: build suites from tool schemas, merging with what is on disk.

For each tool: one valid instance (or the hand-edited ``valid`` case already in the
suite), the derived negative cases, the cases business rules contribute, and regression
cases recorded from captures. Then the merge, which never loses work:

- a case that is new is added (at the end of the file);
- a generated case still exactly as generated is refreshed in place;
- a generated case edited since (its ``generated`` fingerprint no longer matches) is kept
  as it is, and so is every hand-written case (one without a fingerprint);
- a generated case the generator no longer produces is *stale*: it is reported, and
  removed only with ``prune`` (and only when it was never edited).

A tool whose schema admits no instance gets no suite; the report says why.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from random import Random
from typing import TYPE_CHECKING, Any, Final

import orjson

from jsoncontract import codes
from jsoncontract._schema_walk import CannotGenerate, Resolver, Unsatisfiable
from jsoncontract.model import Finding, Hop, Severity, Source, Stage
from jsoncontract.suites.derive import Draft, derive, derive_results
from jsoncontract.suites.format import SuiteError, read_suite, write_suite
from jsoncontract.suites.instance import (
    DEFAULT_MAX_DEPTH,
    BuildOptions,
    InstanceBuilder,
    Skip,
    annotate,
)
from jsoncontract.suites.kinds import DERIVED_KINDS, RESULT_KINDS, CaseKind
from jsoncontract.suites.model import (
    SUITE_SUFFIX,
    Case,
    Expectation,
    InputKind,
    Suite,
    case_digest,
)

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, ToolCall, ToolContract
    from jsoncontract.suites.hooks import ViolationSource
    from jsoncontract.tools.toolset import ToolSet
    from jsoncontract.validation import CompiledSchema

#: Retries of a failed build, each relaxing one thing (examples, optional members, unions).
_ATTEMPTS: Final = (
    BuildOptions(),
    BuildOptions(use_examples=False),
    BuildOptions(use_examples=False, include_optional=False),
    BuildOptions(use_examples=False, include_optional=False, branch_offset=1),
    BuildOptions(use_examples=False, include_optional=False, branch_offset=2),
)
_UNSAFE: Final = re.compile(r"[^A-Za-z0-9_.-]")


@dataclass(slots=True)
class ToolGeneration:
    """What generating one tool's suite did."""

    tool: str
    path: Path
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: int = 0
    kept: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    error: str | None = None
    cases: int = 0
    changed: bool = False
    created: bool = False
    source: Source | None = None  # where the tool is defined

    def findings(self, check: bool = False) -> list[Finding]:
        """What went wrong for this tool, as findings: no cases derived (error), with
        ``check`` a suite out of date (error), stale cases kept and skipped cases (warnings).
        """
        out: list[Finding] = []
        suite = Source(str(self.path))
        if self.error is not None:
            out.append(
                Finding(
                    codes.FIXTURES_CANNOT_GENERATE,
                    Severity.ERROR,
                    self.error,
                    tool=self.tool,
                    source=self.source,
                    hint="no call can pass this schema: fix the contract"
                    if self.error.startswith("no valid instance")
                    else 'write a case named "valid" by hand: the other cases are derived '
                    "from its arguments",
                )
            )
        if check and self.changed:
            out.append(
                Finding(
                    codes.FIXTURES_OUT_OF_DATE,
                    Severity.ERROR,
                    f"the suite file does not exist yet ({self.cases} cases to write)"
                    if self.created
                    else f"the suite would change: {self.describe_change()}",
                    tool=self.tool,
                    source=suite,
                    hint="run jsoncontract fixtures without --check, and commit the suite",
                )
            )
        out.extend(
            Finding(
                codes.FIXTURES_STALE,
                Severity.WARNING,
                f"case {name!r} is no longer generated from the schema",
                tool=self.tool,
                source=suite,
                hint="--prune removes it when it was never edited; otherwise delete or keep it",
            )
            for name in self.stale
            if name not in self.removed
        )
        out.extend(
            Finding(
                codes.FIXTURES_SKIPPED,
                Severity.WARNING,
                f"{skip.what}: {skip.reason}",
                tool=self.tool,
                source=suite,
            )
            for skip in self.skipped
        )
        return out

    def describe_change(self) -> str:
        """What regenerating changes: ``3 added, 1 updated``, or ``unchanged``."""
        parts = []
        if self.added:
            parts.append(f"{len(self.added)} added")
        if self.updated:
            parts.append(f"{len(self.updated)} updated")
        if self.kept:
            parts.append(f"{len(self.kept)} kept as edited")
        if self.removed:
            parts.append(f"{len(self.removed)} removed")
        return ", ".join(parts) if parts else "unchanged"

    def to_dict(self) -> dict[str, Any]:
        """One entry of ``tools`` in the ``fixtures`` JSON report."""
        return {
            "tool": self.tool,
            "file": str(self.path),
            "cases": self.cases,
            "created": self.created,
            "changed": self.changed,
            "added": self.added,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "kept": self.kept,
            "stale": self.stale,
            "removed": self.removed,
            "skipped": [{"case": s.what, "reason": s.reason} for s in self.skipped],
            "error": self.error,
        }


@dataclass(slots=True)
class GenerationReport:
    """What :func:`generate_suites` returns."""

    directory: Path
    tools: list[ToolGeneration]
    seed: int
    check: bool = False
    unrecorded: list[Finding] = field(default_factory=list)
    """Calls of the ``captures`` that got no regression case, each with the finding
    ``check`` reports for it (no tool, or a tool not in the tool list)."""

    @property
    def errors(self) -> int:
        """Tools no cases could be derived for, plus capture calls left unrecorded."""
        return sum(1 for t in self.tools if t.error is not None) + len(self.unrecorded)

    def findings(self) -> list[Finding]:
        """Every problem of the run, per tool (see :meth:`ToolGeneration.findings`), then
        the unrecorded capture calls."""
        out = [f for t in self.tools for f in t.findings(self.check)]
        out.extend(self.unrecorded)
        return out

    @property
    def changed(self) -> int:
        """Suite files written (or, with ``check``, that would be)."""
        return sum(1 for t in self.tools if t.changed)

    def to_dict(self) -> dict[str, Any]:
        """The ``fixtures`` JSON report."""
        totals = {
            "tools": len(self.tools),
            "suites_changed": self.changed,
            "cases": sum(t.cases for t in self.tools),
            "added": sum(len(t.added) for t in self.tools),
            "updated": sum(len(t.updated) for t in self.tools),
            "kept": sum(len(t.kept) for t in self.tools),
            "stale": sum(len(t.stale) for t in self.tools),
            "removed": sum(len(t.removed) for t in self.tools),
            "skipped": sum(len(t.skipped) for t in self.tools),
            "errors": self.errors,
        }
        return {
            "version": 1,
            "summary": totals,
            "directory": str(self.directory),
            "seed": self.seed,
            "check": self.check,
            "tools": [t.to_dict() for t in self.tools],
            "findings": [f.to_dict() for f in self.findings()],
        }


def suite_file_names(names: Iterable[str]) -> dict[str, str]:
    """A file name per tool: ``<tool>.suite.json``, made safe and unique on any file system."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for name in names:
        stem = _UNSAFE.sub("_", name)
        if stem.startswith(".") or not stem:
            stem = "_" + stem
        if stem.casefold() in taken:
            digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
            stem = f"{stem}-{digest}"
        taken.add(stem.casefold())
        out[name] = stem + SUITE_SUFFIX
    return out


@dataclass(frozen=True, slots=True)
class Built:
    """A valid instance, or why there is none."""

    value: Any = None
    skips: tuple[Skip, ...] = ()
    error: str | None = None


def build_valid(
    tool: ToolContract,
    compiled: CompiledSchema,
    *,
    seed: int = 0,
    max_depth: int = DEFAULT_MAX_DEPTH,
    schema: dict[str, Any] | None = None,
) -> Built:
    """One instance of the tool's input schema (or of ``schema``, its output schema) that
    ``compiled`` accepts.

    A few attempts, each relaxing one thing; never loops. ``seed`` 0 makes the canonical
    choices; any other seed varies them reproducibly.
    """
    resolver = Resolver(schema if schema is not None else tool.input_schema)
    first_error: str | None = None
    candidate_error: str | None = None
    for options in _ATTEMPTS:
        rng = Random(f"{seed}:{tool.name}") if seed else None
        builder = InstanceBuilder(
            resolver,
            rng,
            BuildOptions(
                options.use_examples, options.include_optional, options.branch_offset, max_depth
            ),
        )
        try:
            value = builder.build()
        except Unsatisfiable as exc:
            first_error = first_error or f"no valid instance: {exc.reason} (at {exc.schema_path})"
            if exc.schema_path == "#":
                break  # the root itself admits nothing: no retry can help
            continue
        except (CannotGenerate, RecursionError) as exc:
            if isinstance(exc, RecursionError):
                reason = "cannot build a valid instance: the schema nests too deeply"
            else:
                reason = f"cannot build a valid instance: {exc.reason} (at {exc.schema_path})"
            first_error = first_error or reason
            continue
        if not isinstance(value, dict):
            first_error = first_error or (
                "no valid instance: tool arguments are an object, but the input schema does "
                "not describe one"
            )
            break
        if compiled.is_valid(value):
            return Built(value, tuple(builder.skips))
        if candidate_error is None:
            violations = compiled.violations(value, show_values=True)
            if violations:
                v = violations[0]
                candidate_error = (
                    "cannot build a valid instance: the closest candidate fails the schema: "
                    f"{v.keyword} at {v.path or '/'}: {v.message}"
                )
    return Built(error=first_error or candidate_error or "cannot build a valid instance")


def generate_cases(
    tool: ToolContract,
    compiled: CompiledSchema,
    *,
    seed: int = 0,
    kinds: Iterable[CaseKind] = DERIVED_KINDS,
    base: Any = None,
    sources: Sequence[ViolationSource] = (),
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> tuple[list[Draft], list[Skip], str | None]:
    """The cases the generator wants for one tool.

    Arguments:
        base: a valid instance to start from (a hand-edited ``valid`` case); built when
            ``None``.
        sources: business-rule writers asked for violating cases.

    Returns:
        ``(drafts, skipped cases, error)``; ``error`` says why there are no drafts.
    """
    skips: list[Skip] = []
    if base is None:
        built = build_valid(tool, compiled, seed=seed, max_depth=max_depth)
        if built.error is not None:
            return [], [], built.error
        base = built.value
        skips.extend(
            Skip(s.what, f"left out of the valid instance, so its cases are skipped: {s.reason}")
            for s in built.skips
        )
    resolver = Resolver(tool.input_schema)
    try:
        nodes = annotate(resolver, base, max_depth=max_depth)
    except Unsatisfiable as exc:  # pragma: no cover - a valid base always annotates
        return [], [], f"no valid instance: {exc.reason}"
    except CannotGenerate as exc:  # a hand-edited base under a schema the walk gives up on
        return [], [], f"cannot derive cases: {exc.reason} (at {exc.schema_path})"
    wanted = list(kinds)
    drafts, derived_skips = derive(base, nodes, wanted)
    skips.extend(derived_skips)
    if RESULT_KINDS.intersection(wanted) and isinstance(tool.output_schema, dict):
        drafts.extend(_result_drafts(tool, base, wanted, skips, seed=seed, max_depth=max_depth))
    if CaseKind.BUSINESS in wanted:
        for source in sources:
            drafts.extend(_business_drafts(tool, compiled, base, source, skips))
    return drafts, skips, None


def _result_drafts(
    tool: ToolContract,
    arguments: Any,
    kinds: list[CaseKind],
    skips: list[Skip],
    *,
    seed: int,
    max_depth: int,
) -> list[Draft]:
    """The result cases of a tool with an output schema (none, with the reason among the
    skips, when no valid result can be built)."""
    from jsoncontract.errors import SchemaLoadError
    from jsoncontract.validation import CompiledSchema

    schema = tool.output_schema
    assert isinstance(schema, dict)
    try:
        compiled = CompiledSchema(schema, label=f"{tool.name} outputSchema")
    except SchemaLoadError as exc:
        skips.append(Skip("result cases", f"the outputSchema cannot be used: {exc.message}"))
        return []
    built = build_valid(tool, compiled, seed=seed, max_depth=max_depth, schema=schema)
    if built.error is not None:
        skips.append(Skip("result cases", built.error.replace("instance", "result", 1)))
        return []
    try:
        nodes = annotate(Resolver(schema), built.value, max_depth=max_depth)
    except (Unsatisfiable, CannotGenerate) as exc:
        skips.append(Skip("result cases", f"cannot derive result cases: {exc.reason}"))
        return []
    return derive_results(arguments, built.value, nodes, kinds)


def _business_drafts(
    tool: ToolContract,
    compiled: CompiledSchema,
    base: Any,
    source: ViolationSource,
    skips: list[Skip],
) -> list[Draft]:
    """The cases one rules engine contributes: per rule, the case that breaks it, then
    (from a :class:`~jsoncontract.suites.hooks.PassSource`) the one where it holds."""
    from jsoncontract.suites.hooks import PassSource

    broken: list[Draft] = []
    for violation in source.violations(tool, base):
        name = f"business:{violation.rule}"
        if not compiled.is_valid(violation.arguments):
            skips.append(
                Skip(name, "the arguments written to break the rule fail the schema first")
            )
            continue
        broken.append(
            Draft(
                name,
                CaseKind.BUSINESS,
                Hop.MODEL,
                InputKind.ARGUMENTS,
                violation.arguments,
                Expectation(Stage.BUSINESS, code=violation.expected_code, path=violation.path),
                violation.description,
            )
        )
    held: dict[str, Draft] = {}
    if isinstance(source, PassSource):
        for passing in source.passes(tool, base):
            if compiled.is_valid(passing.arguments):
                held[passing.rule] = Draft(
                    f"business-ok:{passing.rule}",
                    CaseKind.BUSINESS,
                    Hop.MODEL,
                    InputKind.ARGUMENTS,
                    passing.arguments,
                    Expectation(),
                    passing.description,
                )
    out: list[Draft] = []
    for draft in broken:
        out.append(draft)
        paired = held.pop(draft.name.removeprefix("business:"), None)
        if paired is not None:
            out.append(paired)
    out.extend(held.values())
    return out


def _existing_base(suite: Suite | None, compiled: CompiledSchema) -> Any:
    """The arguments of a hand-edited ``valid`` case, when they still pass the schema and
    can be written as plain JSON text (not with a lone surrogate: the malformed cases are
    that text, cut and wrapped)."""
    if suite is None:
        return None
    for case in suite.cases:
        if (
            case.name == "valid"
            and case.input_kind is InputKind.ARGUMENTS
            and (case.generated is None or case.edited)
            and isinstance(case.input, dict)
            and _plain_json(case.input)
            and compiled.is_valid(case.input)
        ):
            return case.input
    return None


def _plain_json(value: Any) -> bool:
    try:
        orjson.dumps(value)
    except TypeError:
        return False
    return True


def merge(
    existing: Suite | None,
    tool: str,
    drafts: Sequence[Draft],
    *,
    prune: bool = False,
    seed: int | None = None,
    record: ToolGeneration,
    stale_exempt: frozenset[str] = frozenset({CaseKind.REGRESSION.value}),
) -> Suite:
    """The suite after regenerating: ``existing`` merged with ``drafts`` (see the module doc).

    ``record`` is filled in with what changed.
    """
    produced = _as_written(drafts)
    cases: list[dict[str, Any]] = []
    seen: set[str] = set()
    for case in existing.cases if existing is not None else ():
        seen.add(case.name)
        fresh = produced.get(case.name)
        if fresh is not None:
            if case.generated is None or case.edited:
                record.kept.append(case.name)
                cases.append(case.data)
            elif case.data != fresh:
                record.updated.append(case.name)
                cases.append(fresh)
            else:
                record.unchanged += 1
                cases.append(case.data)
            continue
        if case.generated is not None and not (stale_exempt & set(case.tags)):
            record.stale.append(case.name)
            if prune and not case.edited:
                record.removed.append(case.name)
                continue
        cases.append(case.data)
    for name, data in produced.items():
        if name not in seen:
            record.added.append(name)
            cases.append(data)
    suite = Suite(
        tool=tool,
        cases=[Case.from_json(d, i) for i, d in enumerate(cases)],
        path=existing.path if existing is not None else None,
        seed=seed,
        description=existing.description if existing is not None else None,
    )
    record.cases = len(cases)
    return suite


def _as_written(drafts: Iterable[Draft]) -> dict[str, dict[str, Any]]:
    """Each draft's case object as the generator writes it (fingerprint included), by name."""
    produced: dict[str, dict[str, Any]] = {}
    for draft in drafts:
        data = draft.to_data()
        data["generated"] = case_digest(data)
        produced[draft.name] = data
    return produced


def regenerated(
    suite: Suite,
    tool: ToolContract,
    compiled: CompiledSchema,
    *,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> dict[str, dict[str, Any]] | None:
    """The cases regenerating ``suite`` would write now, derived from the tool's current
    schema (from the suite's seed and its hand-edited ``valid`` case, as
    :func:`generate_suites` does), by name; business-rule and regression cases are left
    out (they come from rules and captures). ``None`` when nothing can be derived.
    """
    kinds = [k for k in DERIVED_KINDS if k is not CaseKind.BUSINESS]
    drafts, _, error = generate_cases(
        tool,
        compiled,
        seed=suite.seed or 0,
        kinds=kinds,
        base=_existing_base(suite, compiled),
        max_depth=max_depth,
    )
    return None if error is not None else _as_written(drafts)


@dataclass(frozen=True, slots=True)
class _Plan:
    """What every tool's generation shares."""

    tools: ToolSet
    root: Path
    names: dict[str, str]
    seed: int | None
    default_seed: int
    kinds: list[CaseKind]
    prune: bool
    check: bool
    sources: Sequence[ViolationSource]
    regressions: dict[str, list[Draft]]
    max_depth: int

    def run(self, name: str) -> ToolGeneration:
        """Generate (or check) the suite of one tool."""
        tool = self.tools.get(name)
        assert tool is not None
        path = self.root / self.names[name]
        record = ToolGeneration(name, path, source=tool.source)
        existing = read_suite(path) if path.is_file() else None
        if existing is not None and existing.tool != name:
            raise SuiteError(
                f"the suite file holds tool {existing.tool!r}, but {name!r} is written here",
                file=str(path),
            )
        if self.seed is not None:
            use_seed = self.seed
        elif existing is not None and existing.seed is not None:
            use_seed = existing.seed
        else:
            use_seed = self.default_seed
        compiled = self.tools.schema(name)
        drafts, skips, error = generate_cases(
            tool,
            compiled,
            seed=use_seed,
            kinds=self.kinds,
            base=_existing_base(existing, compiled),
            sources=self.sources,
            max_depth=self.max_depth,
        )
        record.skipped = skips
        recorded = self.regressions.get(name, [])
        if error is not None:
            record.error = error
            if existing is None and not recorded:
                return record
        suite = merge(
            existing,
            name,
            [*drafts, *recorded],
            prune=self.prune and error is None,
            seed=use_seed,
            record=record,
        )
        if error is not None:  # nothing was derived: nothing can be called stale
            record.stale.clear()
            record.removed.clear()
        record.created = existing is None
        record.changed = (
            existing is None
            or bool(record.added or record.updated or record.removed)
            or (existing.seed is not None and existing.seed != use_seed)
        )
        if record.changed and not self.check:
            write_suite(suite, path)
        return record


def generate_suites(
    tools: ToolSet,
    directory: str | Path,
    *,
    seed: int | None = None,
    default_seed: int = 0,
    kinds: Iterable[CaseKind] = DERIVED_KINDS,
    prune: bool = False,
    check: bool = False,
    sources: Sequence[ViolationSource] = (),
    captures: Sequence[str | Path] = (),
    business: Callable[[], Any] | None = None,
    max_depth: int = DEFAULT_MAX_DEPTH,
    progress: Callable[[int, int], None] | None = None,
) -> GenerationReport:
    """Generate (or refresh) one suite file per tool under ``directory``.

    Arguments:
        seed: the seed to build with; by default each suite keeps the seed it was built
            with, and new suites get ``default_seed``.
        kinds: the case kinds to derive.
        prune: remove stale generated cases that were never edited.
        check: write nothing; report what would change.
        sources: business-rule writers (see :mod:`jsoncontract.suites.hooks`).
        captures: capture files whose calls become regression cases in their tool's suite.
        business: makes the business gate the regression cases' outcomes are recorded
            with, one per capture file (``BusinessRules.fresh`` of a loaded gate).
        progress: called with ``(tools done, tools)`` after each tool.

    Raises:
        SuiteError: an existing suite file is not a valid suite, or holds another tool.
        InputError: a capture cannot be read.
        UsageError: ``directory`` (or a parent of it) is not a directory.
    """
    root = Path(directory)
    _check_directory(root)
    names = suite_file_names(tools.names())
    regressions, unrecorded = (
        _regressions(tools, captures, root, names, business) if captures else ({}, [])
    )
    plan = _Plan(
        tools,
        root,
        names,
        seed,
        default_seed,
        list(dict.fromkeys(kinds)),
        prune,
        check,
        sources,
        regressions,
        max_depth,
    )
    names_in_order = tools.names()
    records = []
    for done, name in enumerate(names_in_order, start=1):
        records.append(plan.run(name))
        if progress is not None:
            progress(done, len(names_in_order))
    return GenerationReport(
        root, records, seed if seed is not None else default_seed, check, unrecorded
    )


def _check_directory(root: Path) -> None:
    """Refuse a suite directory that is a file (or lies under one) before anything runs."""
    from jsoncontract.errors import UsageError

    for place in (root, *root.parents):
        if place.is_dir():
            return
        if place.exists() or place.is_symlink():
            if place != root:
                raise UsageError(f"cannot create {root}: {place} is not a directory")
            raise UsageError(
                f"{root} is not a directory: the suites are written into one, a "
                "<tool>.suite.json file per tool"
            )


def _regressions(
    tools: ToolSet,
    captures: Sequence[str | Path],
    root: Path,
    names: dict[str, str],
    business: Callable[[], Any] | None,
) -> tuple[dict[str, list[Draft]], list[Finding]]:
    """Regression drafts per tool from the calls in ``captures``, and problems found.

    Each capture file goes through a fresh business gate, as its cases will in ``test``.
    """
    from jsoncontract._files import expand
    from jsoncontract.capture.reader import CAPTURE_SUFFIXES, CaptureReader
    from jsoncontract.pipeline.checker import Checker

    out: dict[str, list[Draft]] = {}
    problems: list[Finding] = []
    for path in expand(captures, CAPTURE_SUFFIXES, what="capture"):
        checker = Checker(
            tools, business=business() if business is not None else None, session=None
        )
        calls: list[ToolCall] = list(CaptureReader().read_file(path))
        relative = Path(os.path.relpath(path.resolve(), root.resolve())).as_posix()
        for index, call in enumerate(calls):
            result = checker.check(call)
            if call.tool is None or call.tool not in tools:
                problems.append(_unrecorded(result))
                continue
            outcome = _outcome_expectation(result)
            label_path = relative
            while label_path.startswith("../"):
                label_path = label_path[3:]
            name = f"regression:{label_path}" + (f"#{index}" if len(calls) > 1 else "")
            draft = Draft(
                name,
                CaseKind.REGRESSION,
                call.hop or Hop.MODEL,
                InputKind.CAPTURE_FILE,
                relative,
                outcome,
                call=index if len(calls) > 1 else None,
            )
            out.setdefault(call.tool, []).append(draft)
    return out, problems


def _unrecorded(result: CallResult) -> Finding:
    """Why a call of a capture got no regression case (it names no tool, or one not in the
    tool list), as the finding ``check`` reports for it."""
    call = result.call
    first = next((f for f in result.findings if f.severity is Severity.ERROR), None)
    if first is None:  # pragma: no cover - the envelope gate always names the reason
        first = Finding(
            codes.ENVELOPE_UNKNOWN_TOOL, Severity.ERROR, f"tool {call.tool!r} is unknown"
        )
    return replace(first, source=call.source, tool=call.tool, hop=call.hop, call_id=call.call_id)


def _outcome_expectation(result: Any) -> Expectation:
    from jsoncontract.suites.model import actual_of

    actual = actual_of(result)
    expect = actual.expectation()
    fields = actual.fields if actual.fields is not None else None
    return Expectation(expect.stage, expect.code, expect.keyword, expect.path, fields)
