"""Engine profiles: what a local inference engine does with each keyword of a tool schema.

vLLM, SGLang, llama.cpp, Ollama and LM Studio turn a tool's JSON Schema into a decoding
grammar. Each construct is *rejected* (the engine refuses the schema: every request with the
tool fails), *ignored* (it compiles, but the model is not held to it: only jsoncontract's
schema stage catches a violation), or supported. One module per engine walks a schema the
way that engine reads it and returns its :class:`Judgement` list; :data:`ENGINES` registers
them. Each module names the engine version its table was taken from, and can compile a
schema with the installed engine (``lint --engine-check``).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import TYPE_CHECKING, Any, Final, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from jsoncontract.lint.limits import Limits
    from jsoncontract.lint.rule import Fix


class Verdict(StrEnum):
    """What the engine does with a construct it does not simply support."""

    REJECTED = "rejected"
    IGNORED = "ignored"


class Kind(StrEnum):
    """Which rule reports a judgement."""

    KEYWORD = "keyword"
    FORMAT = "format"
    PATTERN = "pattern"
    REPETITION = "repetition"
    UNSATISFIABLE = "unsatisfiable"


@dataclass(frozen=True, slots=True)
class Judgement:
    """One construct of a schema, as an engine treats it.

    ``path`` is the JSON Pointer of the schema node inside the schema, ``keyword`` the
    member of that node the judgement is about (``None``: the node itself); ``reason`` is the
    engine's own words, ``hint`` what to write instead, ``fix`` a rewrite that keeps the
    meaning, or ``refused`` why there is none.
    """

    verdict: Verdict
    kind: Kind
    path: str
    keyword: str | None
    reason: str
    hint: str
    fix: Fix | None = None
    refused: str | None = None


class Engine(Protocol):
    """One engine: its profile name, the version its table describes, and its judge."""

    #: The profile (``-p NAME``).
    name: str
    #: How messages name it, with the version the table was taken from.
    title: str
    #: The Python distribution ``--engine-check`` imports, or ``None`` (no wheel).
    distribution: str | None
    #: Public sources of the table.
    sources: Sequence[str]

    def judge(self, schema: Any, limits: Limits) -> list[Judgement]:
        """Every rejected or ignored construct of ``schema`` (a tool's input schema)."""
        ...

    def compile(self, schema: Any) -> str | None:
        """The installed engine's error for ``schema``, or ``None`` when it compiles.

        Raises:
            ModuleNotFoundError: the engine's package is not installed.
        """
        ...


#: profile -> module holding ``ENGINE``. Order is the order listings show.
ENGINES: Final = {
    "llguidance": "jsoncontract.lint.engines.llguidance",
    "outlines": "jsoncontract.lint.engines.outlines",
    "xgrammar": "jsoncontract.lint.engines.xgrammar",
    "llama-cpp": "jsoncontract.lint.engines.llama_cpp",
}


@cache
def engine(name: str) -> Engine:
    """The engine of a profile."""
    found: Engine = importlib.import_module(ENGINES[name]).ENGINE
    if found.name != name:  # pragma: no cover - caught by the engine tests
        raise AssertionError(f"{ENGINES[name]} holds the engine {found.name!r}, not {name!r}")
    return found


__all__ = ["ENGINES", "Engine", "Judgement", "Kind", "Verdict", "engine"]
