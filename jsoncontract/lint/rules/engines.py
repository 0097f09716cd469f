"""Engine profiles: what llguidance, outlines, XGrammar and llama.cpp do with a tool's
schema (the tables are in :mod:`jsoncontract.lint.engines`, one module per engine)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, ClassVar, Final

from jsoncontract.lint.engines import ENGINES, Judgement, Kind, Verdict, engine
from jsoncontract.lint.engines.schema import no_effect_fix
from jsoncontract.lint.profiles import LLAMA_CPP, LLGUIDANCE, OUTLINES, XGRAMMAR
from jsoncontract.lint.rule import Edit, Family, Fix, Issue, ToolRule, by_profile
from jsoncontract.model import Severity
from jsoncontract.pointer import get

if TYPE_CHECKING:
    from jsoncontract.lint.context import Site, ToolCtx

E, W = Severity.ERROR, Severity.WARNING
_ALL_ENGINES: Final = (LLGUIDANCE, OUTLINES, XGRAMMAR, LLAMA_CPP)


def judgements(site: Site, name: str) -> list[Judgement]:
    """The engine's judgements of a site's schema (computed once per site and engine)."""
    key = f"engine:{name}"
    found: list[Judgement] | None = site.cache.get(key)
    if found is None:
        found = site.cache[key] = engine(name).judge(site.schema, site.tool.settings.limits)
    return found


def _fix(site: Site, fix: Fix | None) -> Fix | None:
    if fix is None:
        return None
    return Fix(fix.title, tuple(Edit(e.kind, site.pointer(e.pointer), e.value) for e in fix.edits))


class _EngineRule(ToolRule):
    """Reports the judgements of one kind and verdict, per active engine profile."""

    family = Family.ENGINES
    kinds: ClassVar[frozenset[Kind]]
    verdict: ClassVar[Verdict] = Verdict.REJECTED

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        site = tool.site("input")
        if site is None or site.base is None:
            return
        for name in ENGINES:
            if name not in active:
                continue
            title = engine(name).title
            for item in judgements(site, name):
                if item.verdict is not self.verdict or item.kind not in self.kinds:
                    continue
                tokens = (item.keyword,) if item.keyword is not None else ()
                where = item.path + "".join(
                    "/" + t.replace("~", "~0").replace("/", "~1") for t in tokens
                )
                verb = "refuses" if self.verdict is Verdict.REJECTED else "does not enforce"
                what = f"{item.keyword}" if item.keyword is not None else "this schema"
                fix = item.fix
                hint = item.hint
                if fix is None:
                    fix = no_effect_fix(get(site.schema, item.path), item.path, item.keyword)
                    if fix is not None:
                        hint = "remove it: its value has no effect"
                yield Issue(
                    f"{title} {verb} {what}: {item.reason}",
                    site.pointer(where),
                    keyword=item.keyword,
                    hint=hint,
                    fix=_fix(site, fix),
                    refused=item.refused if fix is None else None,
                    profiles=(name,),
                    schema_path="#" + where,
                )


class KeywordRejectedByEngine(_EngineRule):
    """## What it does
    Under an engine profile (`llguidance`, `outlines`, `xgrammar`, `llama-cpp`, or `vllm` and
    `ollama`, which name the engines they run), finds keywords and schema shapes the engine
    refuses to compile: llguidance's unimplemented keywords (`not`, `if`/`then`/`else`,
    `uniqueItems` even when false, `dependentRequired` even when empty, `dependentSchemas`,
    `propertyNames`, `contains`, `unevaluated*`, `$dynamicRef`) and `min/maxProperties`
    beside optional properties; outlines' property schemas without a `type` (or
    `properties`, `enum`, `const`, `$ref`, `allOf`, `anyOf`, `oneOf`, `prefixItems`) and
    `true`/`false` subschemas; XGrammar's empty enums, fractional integer bounds and
    `minItems` without `items`; llama.cpp's boolean subschemas and remote `$ref`.

    ## Why is this bad?
    The engine compiles every tool of a request into one grammar: one refused schema makes
    *every* request that offers the tool fail ("failed to parse grammar", a 400 from vLLM),
    and the error names neither the tool nor the keyword.

    ## Example
    ```json
    {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"},
     "uniqueItems": false}}}
    ```
    (`-p llguidance`: "Unimplemented keys: [\\"uniqueItems\\"]")

    ## Use instead
    ```json
    {"type": "object", "properties": {"tags": {"type": "array", "items": {"type": "string"}}}}
    ```

    ## Fix
    Removes a keyword whose value has no effect (`uniqueItems: false`, `required: []`,
    `dependentRequired: {}`, `dependentSchemas: {}`) and writes a `true` subschema as `{}`.
    A keyword that constrains the value is never dropped: the finding says so.

    ## References
    - The engine tables and their sources: [Engine profiles](../engines/index.md)
    """

    code = "JC200"
    name = "keyword-rejected-by-engine"
    summary = "An engine refuses a keyword or schema shape: every request with the tool fails"
    profiles = by_profile(dict.fromkeys(_ALL_ENGINES, E))
    fixable = True
    kinds = frozenset({Kind.KEYWORD})


class ConstraintIgnoredByEngine(_EngineRule):
    """## What it does
    Under an engine profile, finds constraints the engine compiles without enforcing them:
    outlines ignores numeric bounds, `multipleOf`, `uniqueItems`, `contains`,
    `min/maxProperties` beside `properties`, dependencies and conditionals, and reads a
    schema object by its first shaping member only; XGrammar ignores `not`, `uniqueItems`,
    `contains`, conditionals, lookahead and unknown formats; llama.cpp's converter ignores
    every keyword it has no rule for (numeric bounds on numbers, `uniqueItems`,
    `minProperties`, `patternProperties`...).

    ## Why is this bad?
    The grammar lets the model write a value the schema forbids. Nothing fails at
    generation: the call reaches the tool, and only a validator after the model (the tool's
    own, or `jsoncontract check`'s schema stage) catches it.

    ## Example
    ```json
    {"type": "integer", "minimum": 1, "maximum": 100}
    ```
    (`-p outlines`: any integer can be generated)

    ## Use instead
    Keep the constraint (it is the contract), validate the arguments before the tool runs,
    and say the range in the description so that the model aims for it.

    ## Fix
    Removes an ignored keyword whose value has no effect anyway (`required: []`,
    `uniqueItems: false`, `dependentRequired: {}`, `dependentSchemas: {}`); a constraint is
    never dropped.

    ## References
    - The engine tables and their sources: [Engine profiles](../engines/index.md)
    """

    code = "JC201"
    name = "constraint-ignored-by-engine"
    summary = "An engine compiles a constraint without enforcing it: the model can violate it"
    profiles = by_profile(dict.fromkeys(_ALL_ENGINES, W))
    fixable = True
    verdict = Verdict.IGNORED
    kinds = frozenset(Kind)


class FormatRejectedByEngine(_EngineRule):
    """## What it does
    Under an engine profile, finds string `format` values the engine refuses:
    llguidance knows `date-time`, `time`, `date`, `duration`, `email`, `hostname`, `ipv4`,
    `ipv6`, `uuid` and `uri`; outlines `date-time`, `date`, `time`, `uuid`, `uri` and
    `email`.

    ## Why is this bad?
    "Unknown format: uri-reference" (llguidance) and "Format hostname is not supported by
    Outlines" refuse the whole schema: every request with the tool fails.

    ## Example
    ```json
    {"type": "string", "format": "uri-reference"}
    ```

    ## Use instead
    ```json
    {"type": "string", "format": "uri"}
    ```
    or a `pattern` the engine compiles.

    ## References
    - llguidance `parser/src/json/formats.rs`; outlines-core `src/json_schema/types.rs`
    """

    code = "JC202"
    name = "format-rejected-by-engine"
    summary = "An engine refuses a string format: every request with the tool fails"
    profiles = by_profile(dict.fromkeys(_ALL_ENGINES, E))
    kinds = frozenset({Kind.FORMAT})


class PatternRejectedByEngine(_EngineRule):
    """## What it does
    Under an engine profile, finds patterns in a regex dialect the engine refuses:
    lookaround, backreferences and `\\b` (llguidance, outlines, XGrammar), `\\p{…}`
    (XGrammar), an anchor inside the pattern (outlines), and for llama.cpp a pattern not
    anchored `^…$`, or holding an escape GBNF lacks (`\\d`, `\\w`, `\\s`, `\\S`, `\\/`...).

    ## Why is this bad?
    The grammar fails to build, and every request with the tool fails. llama.cpp copies
    `\\d` into the grammar verbatim, where it is an unknown escape.

    ## Example
    ```json
    {"type": "string", "pattern": "^\\\\d+$"}
    ```
    (`-p llama-cpp`)

    ## Use instead
    ```json
    {"type": "string", "pattern": "^[0-9]+$"}
    ```

    ## Fix
    Writes `\\d`, `\\w` and `\\s` (and their negations) as the classes ECMA-262 defines for
    them (`[0-9]`, `[A-Za-z0-9_]`, the white-space class), and anchors an unanchored pattern
    `P` as `^(?:.|\\n|\\r|\\u2028|\\u2029)*(?:P)(?:.|\\n|\\r|\\u2028|\\u2029)*$`, which passes the
    same strings (`.` alone would skip line breaks). Lookaround and backreferences have no
    rewrite that keeps the meaning.

    ## References
    - llama.cpp `common/json-schema-to-grammar.cpp` (`_visit_pattern`), `src/llama-grammar.cpp`
      (`parse_char`)
    - The engine tables and their sources: [Engine profiles](../engines/index.md)
    """

    code = "JC203"
    name = "pattern-rejected-by-engine"
    summary = "An engine refuses a pattern's regex dialect: every request with the tool fails"
    profiles = by_profile(dict.fromkeys(_ALL_ENGINES, E))
    fixable = True
    kinds = frozenset({Kind.PATTERN})


class RepetitionTooLargeForEngine(_EngineRule):
    """## What it does
    Under `llama-cpp` (and `ollama`), finds `maxLength`, `minLength`, `maxItems`, `minItems`
    and `{n,m}` counts of `llama_cpp.max_repetition` (default 2,000) or more.

    ## Why is this bad?
    llama.cpp's grammar parser refuses a repetition of `MAX_REPETITION_THRESHOLD` (2,000)
    or more, and tool-call grammars multiply a count by the rules it repeats: "number of
    repetitions exceeds sane defaults", then "failed to parse grammar" on every request.
    A `maxLength: 65536` deep in one tool breaks a whole agent.

    ## Example
    ```json
    {"type": "string", "maxLength": 65536}
    ```

    ## Use instead
    ```json
    {"type": "string", "maxLength": 1999}
    ```
    or no bound in the schema and a length check in the tool. Lowering the bound changes
    the contract, so `--fix` never does it.

    ## References
    - llama.cpp `src/llama-grammar.cpp` (`MAX_REPETITION_THRESHOLD`); issues 17473, 26596,
      27087
    """

    code = "JC204"
    name = "repetition-too-large-for-engine"
    summary = "A length or count past the engine's repetition limit: every request fails"
    profiles = by_profile(dict.fromkeys(_ALL_ENGINES, E))
    kinds = frozenset({Kind.REPETITION})


class SchemaUnsatisfiableForEngine(_EngineRule):
    """## What it does
    Under `llguidance`, finds schemas no value can satisfy through their required members:
    an enum or const none of whose values has the declared type, a required property a
    closed object does not declare, bounds that cross.

    ## Why is this bad?
    llguidance refuses the whole schema ("Unsatisfiable schema: required property 'metrics'
    is unsatisfiable"); other engines build a grammar the model can never complete. The
    tool can never be called correctly anyway.

    ## Example
    ```json
    {"type": "object", "properties": {"metrics": {"type": "array", "items": {"type":
     "string"}, "enum": ["trust", "buzz"]}}, "required": ["metrics"]}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"metrics": {"type": "array", "items": {"type":
     "string", "enum": ["trust", "buzz"]}}}, "required": ["metrics"]}
    ```

    ## References
    - llguidance `parser/src/json/schema.rs` (`Schema::Unsatisfiable`)
    """

    code = "JC205"
    name = "schema-unsatisfiable-for-engine"
    summary = "No value satisfies a required member: the engine refuses the schema"
    profiles = by_profile(dict.fromkeys(_ALL_ENGINES, E))
    kinds = frozenset({Kind.UNSATISFIABLE})


class EngineDisagreesWithProfile(ToolRule):
    """## What it does
    With `lint --engine-check`, compiles each input schema with the installed engine of every
    selected engine profile (the `engines` extra installs llguidance and outlines-core) and
    reports where the engine and the profile's table disagree: an error when the engine
    refuses a schema the profile passed, a warning when the profile reports an error and
    the engine compiles the schema.

    ## Why is this bad?
    Engines move: a release implements a keyword, or starts refusing one. The profile's
    table cites the version it was taken from; this finding says when the installed engine
    no longer behaves like it, so that the table (or the pinned engine) gets updated.

    ## Example
    `jsoncontract lint tools.json -p llguidance --engine-check` with a llguidance release
    that implements `uniqueItems`: a warning on every tool with `uniqueItems`.

    ## Use instead
    Pin the engine version your servers run, and report the disagreement.

    ## References
    - The engine tables and their sources: [Engine profiles](../engines/index.md)
    """

    code = "JC206"
    name = "engine-disagrees-with-profile"
    family = Family.ENGINES
    summary = "--engine-check: the installed engine and the profile's table disagree"
    profiles = by_profile(dict.fromkeys(_ALL_ENGINES, E))

    def check(self, tool: ToolCtx, active: frozenset[str]) -> Iterator[Issue]:
        settings = tool.settings
        site = tool.site("input")
        if not settings.engine_check or site is None or site.base is None:
            return
        for name in ENGINES:
            if name not in active or name not in settings.engine_check:
                continue
            found = engine(name)
            error = found.compile(site.schema)
            rejected = [j for j in judgements(site, name) if j.verdict is Verdict.REJECTED]
            if error is not None and not rejected:
                yield Issue(
                    f"the installed {found.distribution} refuses this schema and the {name} "
                    f"profile ({found.title}) does not: {error}",
                    site.pointer(""),
                    hint="report it, so that the profile's table follows the engine",
                    profiles=(name,),
                    schema_path="#",
                )
            elif error is None and rejected:
                yield Issue(
                    f"the {name} profile ({found.title}) reports {rejected[0].reason!r}, and "
                    f"the installed {found.distribution} compiles this schema",
                    site.pointer(rejected[0].path),
                    hint="the installed engine may be newer than the table: report it",
                    severity=W,
                    profiles=(name,),
                    schema_path="#" + rejected[0].path,
                )
