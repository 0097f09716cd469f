"""``lint --ruleset`` against the real ``@stoplight/spectral-cli`` (pinned in
``spectral/package.json``): on the same tool files and the same ruleset, the same findings,
each as (file, rule, JSON Pointer).

The ruleset (``rulesets/core.yaml``) uses every core function, ``extends`` (with rules
switched off, re-levelled and off by default there), aliases, ``$..``, ``[*]`` over object
values, a filter, and ``field`` as a name, a dotted path, ``@key`` and a JSONPath. The files:
the project's tool fixtures in every dialect, BFCL's 1,814 distinct tools and 55 tools of
real MCP servers (the engine profiles' corpus).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from tests.lint.user.conftest import RULESETS

ROOT = Path(__file__).resolve().parents[3]
CORPUS = ROOT / "tests" / "lint" / "engines" / "corpus"
FILES = [
    *sorted((ROOT / "fixtures" / "tools").glob("*.json")),
    CORPUS / "mcp-servers.json",
    CORPUS / "bfcl-eval-2026.3.23.json",
]
#: Spectral's own diagnostics about the document (its $ref resolver), not a rule's.
DOCUMENT_CODES = frozenset({"invalid-ref"})

pytestmark = pytest.mark.slow


def _pointer(path: list[str | int]) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def spectral_findings(
    spectral: Path, ruleset: Path, files: list[Path]
) -> set[tuple[str, str, str]]:
    out = ROOT / "test-artifacts" / f"spectral-{os.getpid()}.json"
    out.parent.mkdir(exist_ok=True)
    done = subprocess.run(
        [str(spectral), "lint", *map(str, files), "--ruleset", str(ruleset), "-f", "json",
         "-q", "-o", str(out), "--fail-severity", "error"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stdout + done.stderr
    results = json.loads(out.read_text())
    out.unlink()
    return {
        (str(Path(r["source"]).resolve()), r["code"], _pointer(r["path"]))
        for r in results
        if r["code"] not in DOCUMENT_CODES
    }


def our_findings(ruleset: Path, files: list[Path]) -> set[tuple[str, str, str]]:
    done = subprocess.run(
        [sys.executable, "-m", "jsoncontract", "lint", *map(str, files), "--no-config",
         "--select", "user", "--ruleset", str(ruleset), "-f", "json"],
        capture_output=True, text=True, timeout=600, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode in (0, 1), done.stderr
    report = json.loads(done.stdout)
    return {
        (str(Path(f["source"]["file"]).resolve()), f["code"], f["path"]) for f in report["findings"]
    }


def test_the_same_findings_as_spectral(spectral_cli: Path) -> None:
    ruleset = RULESETS / "core.yaml"
    theirs = spectral_findings(spectral_cli, ruleset, FILES)
    ours = our_findings(ruleset, FILES)
    assert sorted(ours - theirs)[:10] == [] and sorted(theirs - ours)[:10] == []
    # the comparison means something: every rule of the ruleset that should fire did, on
    # thousands of places, and the rules switched off in it did not
    by_rule = Counter(code for _, code, _ in ours)
    assert len(ours) > 10_000
    assert set(by_rule) >= {
        "tool-description", "tool-description-length", "tool-name-prefix",
        "property-name-camel", "property-name-snake", "properties-sorted", "required-sorted",
        "enum-sorted", "any-of-sorted-by-type", "property-type-known", "property-described",
        "few-properties", "annotations-read-only", "not-destructive",
        "input-schema-required-listed", "description-xor-title", "typed-somehow",
        "nested-descriptions", "tool-shape",
    }  # fmt: skip
    assert not {"switched-off-below", "off-by-default"} & set(by_rule)
