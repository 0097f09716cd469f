"""Provider limits and jsoncontract's own thresholds, all configurable.

Providers keep raising their limits (OpenAI's structured-outputs page once said 100
properties and 5 nesting levels, now 5,000 and 10), so every number a rule compares with
lives here, with its source, and can be changed in ``[lint.limits.<group>]`` or with
``--limit group.name=value``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Final

from jsoncontract._spelling import did_you_mean
from jsoncontract.errors import ConfigError, UsageError


@dataclass(frozen=True, slots=True)
class OpenAILimits:
    """OpenAI Structured Outputs limits (platform.openai.com/docs/guides/structured-outputs)."""

    max_properties: int = 5000
    max_depth: int = 10
    max_string_chars: int = 120_000
    max_enum_values: int = 1000
    large_enum_values: int = 250
    large_enum_chars: int = 15_000


@dataclass(frozen=True, slots=True)
class AnthropicLimits:
    """Anthropic strict tool use limits (platform.claude.com structured outputs page)."""

    max_strict_tools: int = 20
    max_optional_parameters: int = 24
    max_union_parameters: int = 16
    #: "no large {n,m}" is documented without a number; this threshold is jsoncontract's.
    max_regex_repeat: int = 100


@dataclass(frozen=True, slots=True)
class GeminiLimits:
    """Gemini names: the SDK allows 128 characters, older references 64 (portable)."""

    max_name_length: int = 64


@dataclass(frozen=True, slots=True)
class LlamaCppLimits:
    """llama.cpp's grammar parser (``src/llama-grammar.cpp``, ``MAX_REPETITION_THRESHOLD``):
    a repetition count (``maxLength``, ``maxItems``, ``{n,m}``) of 2,000 or more fails."""

    max_repetition: int = 2000


@dataclass(frozen=True, slots=True)
class SchemaLimits:
    """Bounds on any schema (the OpenAI Agents SDK guards at 100 levels and 100,000 nodes;
    MCP 2026-07-28 asks servers and clients to bound depth and subschema count)."""

    max_depth: int = 100
    max_nodes: int = 100_000


@dataclass(frozen=True, slots=True)
class DescriptionLimits:
    """Descriptions and catalog size (mcp-scan warns above 100 tools, code W002)."""

    min_tool_description: int = 20
    max_tools: int = 100


@dataclass(frozen=True, slots=True)
class Limits:
    """Every configurable number, grouped by provider."""

    openai: OpenAILimits = field(default_factory=OpenAILimits)
    anthropic: AnthropicLimits = field(default_factory=AnthropicLimits)
    gemini: GeminiLimits = field(default_factory=GeminiLimits)
    llama_cpp: LlamaCppLimits = field(default_factory=LlamaCppLimits)
    schema: SchemaLimits = field(default_factory=SchemaLimits)
    descriptions: DescriptionLimits = field(default_factory=DescriptionLimits)

    def with_values(self, values: Mapping[str, Mapping[str, Any]], *, origin: str) -> Limits:
        """A copy with ``{"group": {"name": value}}`` applied.

        Raises:
            ConfigError: an unknown group or name (with the closest one), or a value that is
                not a positive integer.
        """
        out = self
        for group, table in values.items():
            current = getattr(out, group, None) if group in GROUPS else None
            if current is None:
                raise _unknown(f"limit group {group!r}", group, GROUPS, origin)
            names = [f.name for f in fields(current)]
            for name, value in table.items():
                if name not in names:
                    raise _unknown(f"limit {group}.{name}", name, names, origin)
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ConfigError(f"{origin}: limit {group}.{name} must be an integer >= 0")
                current = replace(current, **{name: value})
            out = replace(out, **{group: current})
        return out

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{"group": {"name": value}}`` for reports and ``rules --format json``."""
        return {
            group: {
                f.name: getattr(getattr(self, group), f.name) for f in fields(getattr(self, group))
            }
            for group in GROUPS
        }


GROUPS: Final = ("openai", "anthropic", "gemini", "llama_cpp", "schema", "descriptions")


def parse_limit_option(text: str) -> tuple[str, str, int]:
    """``group.name=value`` from the command line.

    Raises:
        UsageError: not in that form, or the value is not an integer.
    """
    key, sep, raw = text.partition("=")
    group, dot, name = key.strip().partition(".")
    if not sep or not dot or not name:
        raise UsageError(f"--limit {text!r}: expected GROUP.NAME=VALUE, e.g. openai.max_depth=5")
    try:
        value = int(raw.strip())
    except ValueError:
        raise UsageError(f"--limit {text!r}: {raw.strip()!r} is not an integer") from None
    return group, name, value


def _unknown(what: str, word: str, known: list[str] | tuple[str, ...], origin: str) -> Exception:
    guess = did_you_mean(word, known)
    tip = f"; did you mean {guess!r}?" if guess else f"; known: {', '.join(known)}"
    return ConfigError(f"{origin}: unknown {what}{tip}")
