"""``pattern`` and ``patternProperties``: regular expressions that fail, hang, or that a
provider's engine does not accept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from jsoncontract.lint.profiles import ANTHROPIC_STRICT, OPENAI_STRICT
from jsoncontract.lint.regex import analyse, compile_error, non_ecma
from jsoncontract.lint.rule import ALL, Family, Issue, NodeRule, by_profile
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import Node

E, W = Severity.ERROR, Severity.WARNING


def patterns(node: Node) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """Every regular expression of a node: (pattern, keyword, pointer tokens)."""
    value = node.value
    pattern = value.get("pattern")
    if isinstance(pattern, str):
        yield pattern, "pattern", ("pattern",)
    props = value.get("patternProperties")
    if isinstance(props, dict):
        for key in props:
            yield key, "patternProperties", ("patternProperties", key)


class PatternInvalid(NodeRule):
    """## What it does
    Checks that every `pattern` (and every key of `patternProperties`) compiles as a regular
    expression, and flags syntax that only some engines accept: Python named groups
    `(?P<name>...)`, inline flags `(?i)`, `\\A`/`\\Z`, possessive quantifiers.

    ## Why is this bad?
    JSON Schema patterns are ECMA-262 regular expressions. A pattern that does not compile
    makes the schema fail to load (every call fails), or is skipped by lenient validators
    (the field is unchecked). Python-only syntax passes a Python validator and breaks in
    the JavaScript and Rust validators that hosts and providers run.

    ## Example
    ```json
    {"type": "string", "pattern": "^(?P<year>[0-9]{4})-[0-9]{2}$"}
    ```

    ## Use instead
    ```json
    {"type": "string", "pattern": "^(?<year>[0-9]{4})-[0-9]{2}$"}
    ```

    ## References
    - JSON Schema 2020-12 validation, section 6.3.3 (`pattern` is ECMA-262)
    - ECMA-262, "RegExp (Regular Expression) Objects"
    """

    code = "JC008"
    name = "pattern-invalid"
    family = Family.HYGIENE
    summary = "A pattern does not compile, or uses syntax ECMA-262 does not have"
    profiles = by_profile({ALL: E})
    triggers = frozenset({"pattern", "patternProperties"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        for pattern, keyword, tokens in patterns(node):
            error = compile_error(pattern)
            if error is not None:
                yield Issue(
                    f"{keyword} {pattern!r} is not a valid regular expression",
                    node.pointer(*tokens),
                    keyword=keyword,
                    hint="fix the syntax; JSON Schema patterns are ECMA-262 regular expressions",
                    schema_path=node.schema_path(*tokens),
                )
                continue
            foreign = non_ecma(pattern)
            if foreign is not None:
                yield Issue(
                    f"{keyword} {pattern!r} uses {foreign}, which is not ECMA-262",
                    node.pointer(*tokens),
                    keyword=keyword,
                    hint="rewrite it in ECMA-262 syntax so every validator reads it the same",
                    severity=W,
                    schema_path=node.schema_path(*tokens),
                )


class PatternCatastrophicBacktracking(NodeRule):
    """## What it does
    Finds patterns that nest unbounded repetitions ambiguously, such as `(a+)+`,
    `(\\w+\\s?)*`, `(.*,)*` or `(\\d|\\w)+`: shapes whose matching time grows exponentially
    with the input on a backtracking engine.

    ## Why is this bad?
    The values are written by a model, and often by whoever controls its context. One
    crafted 30-character string can keep a backtracking validator (JavaScript, Python `re`,
    Java) busy for minutes: a denial of service on the tool server or the host. Patterns
    separated by a fixed delimiter (`(\\d+,)*`) are not flagged.

    ## Example
    ```json
    {"type": "string", "pattern": "^([a-z0-9]+-?)*$"}
    ```

    ## Use instead
    ```json
    {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "maxLength": 64}
    ```

    ## References
    - OWASP, "Regular expression Denial of Service - ReDoS":
      https://owasp.org/www-community/attacks/Regular_expression_Denial_of_Service_-_ReDoS
    - MCP specification 2026-07-28: bound validation time (composition and regex DoS)
    """

    code = "JC009"
    name = "pattern-catastrophic-backtracking"
    family = Family.HYGIENE
    summary = "A pattern nests repetitions in a way that can backtrack exponentially"
    profiles = by_profile({ALL: W})
    security_severity = 5.3
    triggers = frozenset({"pattern", "patternProperties"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        for pattern, keyword, tokens in patterns(node):
            facts = analyse(pattern)
            if facts is None or facts.catastrophic is None:
                continue
            yield Issue(
                f"{keyword} {pattern!r} can backtrack catastrophically: {facts.catastrophic}",
                node.pointer(*tokens),
                keyword=keyword,
                hint="make each repetition unambiguous (a required separator between "
                "repeats), and bound the string with maxLength",
                schema_path=node.schema_path(*tokens),
            )


class PatternUnsupportedByOpenAI(NodeRule):
    """## What it does
    Under `openai-strict`, flags patterns that use lookahead or lookbehind.

    ## Why is this bad?
    Structured Outputs compiles the schema into a grammar; Pydantic AI's OpenAI transformer
    treats lookaround patterns as strict-incompatible and moves them into the description,
    because the grammar engine cannot express them. Expect the request to be rejected or
    the pattern to be dropped.

    ## Example
    ```json
    {"type": "string", "pattern": "^(?!test_)[a-z_]+$"}
    ```

    ## Use instead
    ```json
    {"type": "string", "pattern": "^[a-su-z_][a-z_]*$"}
    ```
    or enforce the rule in the tool and say it in the description.

    ## References
    - Pydantic AI, `profiles/openai.py` (`OpenAIJsonSchemaTransformer`: lookaround patterns
      are incompatible with strict mode)
    - OpenAI Structured Outputs, "Supported schemas"
    """

    code = "JC028"
    name = "pattern-unsupported-by-openai"
    family = Family.OPENAI
    summary = "openai-strict: a pattern uses lookaround"
    profiles = by_profile({OPENAI_STRICT: W})
    triggers = frozenset({"pattern", "patternProperties"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        for pattern, keyword, tokens in patterns(node):
            facts = analyse(pattern)
            if facts is None or not facts.lookaround:
                continue
            yield Issue(
                f"{keyword} {pattern!r} uses lookaround, which OpenAI strict mode cannot compile",
                node.pointer(*tokens),
                keyword=keyword,
                hint="rewrite it without (?=, (?!, (?<= or (?<!, or check it in the tool",
                schema_path=node.schema_path(*tokens),
            )


class PatternUnsupportedByAnthropicStrict(NodeRule):
    """## What it does
    Under `anthropic-strict`, flags patterns with backreferences (`\\1`, `\\k<name>`),
    lookahead or lookbehind, word boundaries (`\\b`, `\\B`), or a repetition count above
    `anthropic.max_regex_repeat` (default 100).

    ## Why is this bad?
    Anthropic compiles strict schemas into a grammar and documents that these regex
    features are not supported; the request fails with a 400.

    ## Example
    ```json
    {"type": "string", "pattern": "^\\\\b[A-Z]{2}\\\\d{1,1000}\\\\b$"}
    ```

    ## Use instead
    ```json
    {"type": "string", "pattern": "^[A-Z]{2}[0-9]{1,12}$"}
    ```

    ## References
    - Anthropic structured outputs, "limitations" (no backreferences, no lookaround, no
      `\\b`/`\\B`, no large `{n,m}`); the numeric threshold is jsoncontract's
    """

    code = "JC035"
    name = "pattern-unsupported-by-anthropic-strict"
    family = Family.ANTHROPIC
    summary = "anthropic-strict: a pattern uses backreferences, lookaround, \\b or large {n,m}"
    profiles = by_profile({ANTHROPIC_STRICT: E})
    triggers = frozenset({"pattern", "patternProperties"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        limit = node.tool.settings.limits.anthropic.max_regex_repeat
        for pattern, keyword, tokens in patterns(node):
            facts = analyse(pattern)
            if facts is None:
                continue
            used = []
            if facts.backreference:
                used.append("a backreference")
            if facts.lookaround:
                used.append("lookaround")
            if facts.word_boundary:
                used.append("a word boundary (\\b or \\B)")
            if facts.max_repeat > limit:
                used.append(f"a repetition count of {facts.max_repeat} (over {limit})")
            if not used:
                continue
            yield Issue(
                f"{keyword} {pattern!r} uses {', '.join(used)}; Anthropic strict mode does not "
                "support it",
                node.pointer(*tokens),
                keyword=keyword,
                hint="simplify the pattern, or check the rule in the tool",
                schema_path=node.schema_path(*tokens),
            )
