"""Fixture suites: cases per tool that assert where and why each input fails.

Library entry points (they return data and never print or exit):

- :func:`generate_suites` writes or refreshes ``<tool>.suite.json`` files from tool
  schemas (``jsoncontract fixtures``);
- :func:`load_suites` / :func:`read_suite` read suite files, checked against the shipped
  schema;
- :func:`run_suites` runs them through the ``check`` pipeline (``jsoncontract test``);
- :func:`accept_outcomes` rewrites expectations to current outcomes, and
  :func:`apply_updates` returns the report as it stands after (``test --update``).

    >>> from jsoncontract.suites import run_suites
    >>> from jsoncontract.tools import ToolSet
    >>> tools = ToolSet.from_paths(["fixtures/tools"])
    >>> report = run_suites(["fixtures/suites/example"], tools=tools)
    >>> report.ok
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from jsoncontract._lazy import lazy_attributes

if TYPE_CHECKING:
    from jsoncontract.suites.format import (
        SuiteError,
        dump_suite,
        find_suite_files,
        parse_suite,
        read_suite,
        suite_schema,
        write_suite,
    )
    from jsoncontract.suites.generate import (
        GenerationReport,
        ToolGeneration,
        build_valid,
        generate_cases,
        generate_suites,
    )
    from jsoncontract.suites.hooks import PassSource, RulePass, RuleViolation, ViolationSource
    from jsoncontract.suites.kinds import CaseKind
    from jsoncontract.suites.model import (
        SUITE_SUFFIX,
        SUITE_VERSION,
        Actual,
        Case,
        CaseOutcome,
        Expectation,
        InputKind,
        Mismatch,
        Status,
        Suite,
        TestReport,
        TestSummary,
        Update,
    )
    from jsoncontract.suites.runner import SuiteRunner, load_suites, run_suites
    from jsoncontract.suites.select import Selector
    from jsoncontract.suites.update import accept_outcomes, apply_updates

__all__ = [
    "SUITE_SUFFIX",
    "SUITE_VERSION",
    "Actual",
    "Case",
    "CaseKind",
    "CaseOutcome",
    "Expectation",
    "GenerationReport",
    "InputKind",
    "Mismatch",
    "PassSource",
    "RulePass",
    "RuleViolation",
    "Selector",
    "Status",
    "Suite",
    "SuiteError",
    "SuiteRunner",
    "TestReport",
    "TestSummary",
    "ToolGeneration",
    "Update",
    "ViolationSource",
    "accept_outcomes",
    "apply_updates",
    "build_valid",
    "dump_suite",
    "find_suite_files",
    "generate_cases",
    "generate_suites",
    "load_suites",
    "parse_suite",
    "read_suite",
    "run_suites",
    "suite_schema",
    "write_suite",
]

#: Imported on first use: ``--help`` reads :mod:`jsoncontract.suites.kinds` alone.
_LAZY = {
    "SuiteError": ".format",
    "dump_suite": ".format",
    "find_suite_files": ".format",
    "parse_suite": ".format",
    "read_suite": ".format",
    "suite_schema": ".format",
    "write_suite": ".format",
    "GenerationReport": ".generate",
    "ToolGeneration": ".generate",
    "build_valid": ".generate",
    "generate_cases": ".generate",
    "generate_suites": ".generate",
    "PassSource": ".hooks",
    "RulePass": ".hooks",
    "RuleViolation": ".hooks",
    "ViolationSource": ".hooks",
    "SUITE_SUFFIX": ".model",
    "SUITE_VERSION": ".model",
    "Actual": ".model",
    "Case": ".model",
    "CaseKind": ".kinds",
    "CaseOutcome": ".model",
    "Expectation": ".model",
    "InputKind": ".model",
    "Mismatch": ".model",
    "Status": ".model",
    "Suite": ".model",
    "TestReport": ".model",
    "TestSummary": ".model",
    "Update": ".model",
    "SuiteRunner": ".runner",
    "load_suites": ".runner",
    "run_suites": ".runner",
    "Selector": ".select",
    "accept_outcomes": ".update",
    "apply_updates": ".update",
}
__getattr__ = lazy_attributes(__name__, _LAZY)
