"""A pytest plugin: ``*.suite.json`` files are collected as tests, one item per case.

Installed with jsoncontract (entry point ``pytest11``), so a plain ``pytest`` runs the
fixture suites among the other tests. Each case runs through the same pipeline as
``jsoncontract test`` and fails with the same message (what was expected, what happened,
and the hint). The tags of a case are keywords, so ``pytest -k missing-field`` works.

Where the tool definitions come from, first found wins:

- ``--jsoncontract-tools PATH`` (repeatable);
- ``jsoncontract_tools`` in the pytest configuration (paths relative to it);
- ``tools`` in the project's ``jsoncontract.toml`` / ``[tool.jsoncontract]``, found from
  the rootdir.

The business gate is the one ``jsoncontract test`` builds without ``--rules``: the
project config's ``[business]`` section (rules, reference data, context), idempotency
checks included, fresh for each case.

``jsoncontract_suites = false`` in the pytest configuration (or ``-p no:jsoncontract``)
turns collection off.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from jsoncontract.business import BusinessRules
    from jsoncontract.suites.model import Case, CaseOutcome, Suite
    from jsoncontract.suites.runner import SuiteRunner

_SUFFIX = ".suite.json"
_RUNNER_KEY: pytest.StashKey[SuiteRunner | str] = pytest.StashKey()
_GATE_KEY: pytest.StashKey[BusinessRules] = pytest.StashKey()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's command-line option and configuration keys."""
    group = parser.getgroup("jsoncontract", "jsoncontract fixture suites")
    group.addoption(
        "--jsoncontract-tools",
        action="append",
        default=[],
        metavar="PATH",
        help="Tool definition file or directory for *.suite.json suites (repeatable).",
    )
    parser.addini(
        "jsoncontract_tools",
        type="paths",
        default=[],
        help="Tool definition files or directories for *.suite.json suites.",
    )
    parser.addini(
        "jsoncontract_suites",
        type="bool",
        default=True,
        help="Collect *.suite.json files as tests (default: true).",
    )


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    """Collect a suite file."""
    if file_path.name.endswith(_SUFFIX) and parent.config.getini("jsoncontract_suites"):
        return SuiteFile.from_parent(parent, path=file_path)
    return None


def _runner(config: pytest.Config) -> SuiteRunner | str:
    """The session's runner (tools and business rules loaded once), or why there is none."""
    found = config.stash.get(_RUNNER_KEY, None)
    if found is not None:
        return found
    from jsoncontract.business import load_business
    from jsoncontract.config import find_config, load_config
    from jsoncontract.errors import JsoncontractError
    from jsoncontract.suites.runner import SuiteRunner
    from jsoncontract.tools.toolset import ToolSet

    result: SuiteRunner | str
    try:
        found_config = find_config(config.rootpath)
        project = load_config(found_config) if found_config is not None else None
        paths: list[Any] = [Path(p) for p in config.getoption("jsoncontract_tools") or ()]
        if not paths:
            paths = list(config.getini("jsoncontract_tools") or ())
        if not paths and project is not None:
            paths = project.paths(project.get("tools"))
        if not paths:
            result = (
                "no tool definitions for the suites: pass --jsoncontract-tools PATH, set "
                "jsoncontract_tools in the pytest configuration, or tools in jsoncontract.toml"
            )
        else:
            tools = ToolSet.from_paths(paths)
            try:
                gate = load_business(config=project, tools=tools)
            except JsoncontractError as exc:
                result = f"cannot load the business rules: {exc}"
            else:
                config.stash[_GATE_KEY] = gate
                result = SuiteRunner(tools, business=gate.fresh)
    except JsoncontractError as exc:
        result = f"cannot load the tools: {exc}"
    config.stash[_RUNNER_KEY] = result
    return result


def pytest_unconfigure(config: pytest.Config) -> None:
    """Stop the worker threads of Python business rules."""
    gate = config.stash.get(_GATE_KEY, None)
    if gate is not None:
        gate.close()


class SuiteFile(pytest.File):
    """A suite file: one item per case (or one failing item when its tool is gone, or when
    it holds no case: a suite that tests nothing never passes)."""

    def collect(self) -> Iterator[pytest.Item]:
        """The cases."""
        from jsoncontract.errors import JsoncontractError
        from jsoncontract.suites.format import read_suite

        try:
            suite = read_suite(self.path)
        except JsoncontractError as exc:
            raise self.CollectError(str(exc)) from None
        runner = _runner(self.config)
        if isinstance(runner, str):
            raise self.CollectError(runner)
        if suite.tool not in runner.tools:
            yield MissingToolItem.from_parent(self, name="(suite)", suite=suite)
            return
        if not suite.cases:
            yield EmptySuiteItem.from_parent(self, name="(suite)", suite=suite)
            return
        for case in suite.cases:
            yield CaseItem.from_parent(self, name=case.name, suite=suite, case=case)


class CaseFailed(Exception):
    """A case did not pass; carries its outcome for the report."""

    def __init__(self, outcome: CaseOutcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


def _explain(outcome: CaseOutcome) -> str:
    status = outcome.status.value
    label = "contract weakness" if status == "weakness" else (outcome.mismatch or status)
    lines = [f"{outcome.suite.tool} › {outcome.name}: {label}", outcome.message]
    if outcome.hint:
        lines.append(f"hint: {outcome.hint}")
    return "\n".join(lines)


class _SuiteItem(pytest.Item):
    """What every suite item shares: a failure is reported as the mismatch, not a traceback."""

    def repr_failure(
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str | Any:
        """The mismatch, without a traceback."""
        if isinstance(excinfo.value, CaseFailed):
            return _explain(excinfo.value.outcome)
        return super().repr_failure(excinfo)


class CaseItem(_SuiteItem):
    """One case of a suite."""

    def __init__(self, *, suite: Suite, case: Case, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite
        self.case = case
        self.extra_keyword_matches.update(case.tags)
        self.extra_keyword_matches.add(suite.tool)

    def runtest(self) -> None:
        """Run the case through the check pipeline and judge it."""
        from jsoncontract.suites.model import Status

        runner = _runner(self.config)
        assert not isinstance(runner, str)  # collection would have failed
        outcome = runner.run_case(self.suite, self.case)
        if outcome.status is Status.SKIPPED:
            pytest.skip(outcome.message)
        if not outcome.ok:
            raise CaseFailed(outcome)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the case is written."""
        line = self.suite.line_of(self.case)
        return (
            self.path,
            (line - 1 if line is not None else None),
            f"{self.suite.tool}::{self.name}",
        )


class MissingToolItem(_SuiteItem):
    """Stands for a suite whose tool is not in the tool list: it fails, naming the tool."""

    def __init__(self, *, suite: Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite

    def runtest(self) -> None:
        """Fail with the runner's explanation."""
        runner = _runner(self.config)
        assert not isinstance(runner, str)
        raise CaseFailed(runner.missing_tool(self.suite, len(self.suite.cases)))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """The suite file."""
        return self.path, None, f"{self.suite.tool}::(suite)"


class EmptySuiteItem(_SuiteItem):
    """Stands for a suite that holds no case: it fails, as ``jsoncontract test`` stops on
    one (a suite that tests nothing is no passing test)."""

    def __init__(self, *, suite: Suite, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.suite = suite

    def runtest(self) -> None:
        """Fail, saying so."""
        pytest.fail(
            f"the suite of {self.suite.tool} holds no case; nothing was tested (add cases with "
            "jsoncontract fixtures, or remove the file)",
            pytrace=False,
        )

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """The suite file."""
        return self.path, None, f"{self.suite.tool}::(suite)"
