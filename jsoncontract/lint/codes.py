"""The rule table: every lint code, in one reviewable place.

A code is stable forever. A rule that is renamed or merged keeps its old code working
through :data:`REDIRECTS` (with a note saying where it went); codes of the first proposal
that are not lint rules are explained in :data:`NOT_LINT_RULES`. Selectors accepted by
``--select``, ``--ignore`` and the config are: a code (``JC020``), a code prefix (``JC02``),
a rule name (``additional-properties-allowed``), a family (``closure``) or ``ALL``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from typing import Final

from jsoncontract._spelling import did_you_mean
from jsoncontract.lint.rule import Family, Rule
from jsoncontract.lint.rules import (
    anthropic,
    bounds,
    closed_sets,
    closure,
    descriptions,
    engines,
    gemini,
    idempotency,
    jsontext,
    keywords,
    mcp,
    names,
    openai,
    patterns,
    refs,
    required,
    schema,
)

#: code -> rule class. Keep it sorted by code.
RULES: Final[dict[str, type[Rule]]] = {
    "JC001": schema.InputSchemaRootNotObject,
    "JC002": schema.SchemaInvalid,
    "JC003": refs.RefOutsideDocument,
    "JC004": refs.RefUnresolved,
    "JC005": names.ToolNameDuplicate,
    "JC006": schema.SchemaDialectUnknown,
    "JC007": schema.SchemaTooDeep,
    "JC008": patterns.PatternInvalid,
    "JC009": patterns.PatternCatastrophicBacktracking,
    "JC010": names.ToolNameInvalidForOpenAIAnthropic,
    "JC011": names.ToolNameInvalidForGemini,
    "JC012": names.ToolNameInvalidForMCP,
    "JC020": closure.AdditionalPropertiesAllowed,
    "JC021": required.PropertyNotRequired,
    "JC022": openai.InputSchemaRootUnion,
    "JC023": openai.KeywordUnsupportedByOpenAI,
    "JC024": openai.FormatUnsupportedByOpenAI,
    "JC025": openai.DefaultNotPermitted,
    "JC026": openai.OpenAILimitsExceeded,
    "JC027": openai.StrictModeNotEnabled,
    "JC028": patterns.PatternUnsupportedByOpenAI,
    "JC029": openai.ObjectWithoutProperties,
    "JC030": anthropic.KeywordUnsupportedByAnthropicStrict,
    "JC031": anthropic.AnthropicStrictLimitsExceeded,
    "JC032": anthropic.FormatUnsupportedByAnthropicStrict,
    "JC033": refs.SchemaRecursive,
    "JC034": anthropic.EnumValueTypeUnsupported,
    "JC035": patterns.PatternUnsupportedByAnthropicStrict,
    "JC036": anthropic.AllOfWithRef,
    "JC041": gemini.KeywordUnsupportedByGeminiParameters,
    "JC042": gemini.KeywordUnsupportedByGemini,
    "JC043": names.ParameterNameInvalidForGemini,
    "JC050": mcp.PropertySchemaBoolean,
    "JC051": mcp.OutputSchemaRootNotObject,
    "JC053": mcp.AnnotationHintIgnored,
    "JC054": descriptions.ToolDescriptionMissing,
    "JC055": mcp.ReadOnlyHintOnWriteTool,
    "JC056": mcp.MCPToolDefinitionInvalid,
    "JC057": schema.SchemaDialectUndeclared,
    "JC058": mcp.ToolAnnotationsMissing,
    "JC066": mcp.MCPHeaderInvalid,
    "JC101": closed_sets.FreeStringForClosedSet,
    "JC102": closed_sets.EnumEmpty,
    "JC103": closed_sets.EnumDuplicateValue,
    "JC104": closed_sets.EnumValueTypeMismatch,
    "JC110": idempotency.WriteToolWithoutIdempotencyKey,
    "JC120": bounds.StringFormatMissing,
    "JC121": bounds.StringUnbounded,
    "JC122": bounds.NumberUnbounded,
    "JC123": bounds.ArrayItemsMissing,
    "JC130": required.RequiredPropertyUndefined,
    "JC131": required.RequiredMissing,
    "JC140": descriptions.ToolDescriptionTooShort,
    "JC141": descriptions.ParameterDescriptionMissing,
    "JC142": descriptions.ToolDescriptionDuplicate,
    "JC143": descriptions.DescriptionPromptInjection,
    "JC144": descriptions.DescriptionUrgentWording,
    "JC145": descriptions.DescriptionReferencesForeignTool,
    "JC146": descriptions.ToolCatalogTooLarge,
    "JC147": descriptions.DescriptionHiddenCharacters,
    "JC150": jsontext.JsonDuplicateKey,
    "JC151": refs.RefWithSiblings,
    "JC152": keywords.KeywordUnknown,
    "JC153": keywords.FormatUnknown,
    "JC154": refs.DefinitionUnused,
    "JC155": bounds.BoundsUnsatisfiable,
    "JC156": keywords.DefaultInvalid,
    "JC200": engines.KeywordRejectedByEngine,
    "JC201": engines.ConstraintIgnoredByEngine,
    "JC202": engines.FormatRejectedByEngine,
    "JC203": engines.PatternRejectedByEngine,
    "JC204": engines.RepetitionTooLargeForEngine,
    "JC205": engines.SchemaUnsatisfiableForEngine,
    "JC206": engines.EngineDisagreesWithProfile,
}

#: Old code -> the code that now covers it.
REDIRECTS: Final = {
    "JC013": "JC010",  # "MCP tool name not portable": the portability warning of JC010
    "JC052": "JC020",  # "no-params tool without additionalProperties: false": part of JC020
}

#: Codes of the first proposal that are deliberately not lint rules, and where they went.
NOT_LINT_RULES: Final = {
    "JC040": "parameters and parametersJsonSchema together: the tool loader refuses the "
    "file (exit 2)",
    "JC060": "structuredContent against outputSchema is checked on traffic by `check` "
    "(`result.structured_content`, `result.structured_content_missing`; not when isError is "
    "true) and on a live server by `mcp probe`",
    "JC061": "the TextContent mirror of structuredContent is checked on traffic by `check` "
    "(`result.text_mirror`)",
    "JC062": "-32602 versus isError for invalid arguments, by the negotiated version, is "
    "checked on traffic by `check` (`result.invalid_arguments_answer`) and by `mcp probe`",
    "JC063": "the JSON-RPC envelope is checked on traffic by `check` (`envelope.malformed` "
    "for requests, `result.malformed` and `result.malformed_error` for responses)",
    "JC064": "tools/list pagination is checked on a live server by `mcp tools` and "
    "`mcp probe` (`mcp.cursor_invalid`, `mcp.cursor_loop`); `check` joins a recorded list's "
    "pages",
    "JC065": "list_changed without capabilities.tools.listChanged is checked on traffic by "
    "`check` (`session.list_changed_undeclared`) and by `mcp probe`",
    "JC070": "tool pinning is the `pin` command (`pin --check` reports drift per part)",
    "JC071": "split into JC143, JC144, JC145 and JC146",
    "JC080": "OpenAI arguments strings are parsed by `check` (parse stage)",
    "JC081": "tool_use/tool_result pairing is checked on traffic by `check` "
    "(`session.orphan_result`, `session.missing_result`)",
    "JC082": "the Gemini functionResponse shape is checked on traffic by `check` "
    "(`result.malformed`)",
}


@cache
def all_rules() -> dict[str, Rule]:
    """One instance of every rule, by code."""
    out: dict[str, Rule] = {}
    for code, cls in RULES.items():
        if cls.code != code:  # pragma: no cover - caught by the catalog tests
            raise AssertionError(f"{cls.__name__} has code {cls.code}, listed as {code}")
        out[code] = cls()
    return out


@cache
def by_name() -> dict[str, str]:
    """Rule name -> code."""
    return {rule.name: code for code, rule in all_rules().items()}


def lookup(word: str) -> Rule:
    """The rule for a code or name (redirects followed).

    Raises:
        LookupError: unknown; the message names the closest code or name.
    """
    rules = all_rules()
    key = word.strip()
    upper = key.upper()
    if upper in rules:
        return rules[upper]
    if upper in REDIRECTS:
        return rules[REDIRECTS[upper]]
    if key in by_name():
        return rules[by_name()[key]]
    raise LookupError(unknown(key))


def unknown(word: str) -> str:
    """The message for an unknown code or name, with the closest match."""
    upper = word.upper()
    if upper in NOT_LINT_RULES:
        return f"{upper} is not a lint rule: {NOT_LINT_RULES[upper]}"
    candidates = [*all_rules(), *by_name(), *(f.value for f in Family)]
    guess = did_you_mean(upper if upper.startswith("JC") else word, candidates)
    tip = f"; did you mean {guess!r}?" if guess else " (jsoncontract rules lists them)"
    return f"unknown rule {word!r}{tip}"


def resolve_selectors(
    selectors: Iterable[str], extra: Mapping[str, Rule] | None = None
) -> tuple[list[str], list[str]]:
    """The codes a list of selectors names, and notes about redirected codes; ``extra``
    adds the project's own rules (by code: a selector names one by its code, or all of
    them by their family, ``user``).

    Raises:
        LookupError: a selector names nothing (message with the closest code).
    """
    rules = {**all_rules(), **(extra or {})}
    families = {f.value for f in Family}
    codes: list[str] = []
    notes: list[str] = []
    for raw in selectors:
        selector = raw.strip()
        upper = selector.upper()
        if not selector:
            continue
        if upper == "ALL":
            codes.extend(rules)
        elif upper in rules:
            codes.append(upper)
        elif selector in rules:
            codes.append(selector)
        elif upper in REDIRECTS:
            codes.append(REDIRECTS[upper])
            notes.append(f"{upper} is now {REDIRECTS[upper]}")
        elif selector in by_name():
            codes.append(by_name()[selector])
        elif selector in families:
            codes.extend(c for c, r in rules.items() if r.family.value == selector)
        elif upper.startswith("JC") and upper[2:].isdigit() and len(upper) < 5:
            matched = [c for c in rules if c.startswith(upper)]
            if not matched:
                raise LookupError(unknown(selector))
            codes.extend(matched)
        else:
            raise LookupError(unknown(selector))
    return list(dict.fromkeys(codes)), notes
