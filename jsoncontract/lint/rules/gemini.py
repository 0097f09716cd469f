"""Gemini function declarations: ``parameters`` (OpenAPI subset) and
``parametersJsonSchema``."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from jsoncontract.lint.profiles import GEMINI
from jsoncontract.lint.rule import Family, Fix, Issue, NodeRule, by_profile
from jsoncontract.lint.rules.support import ANNOTATIONS, KEYWORDS, const_to_enum_fix, drop_fix
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import Node

E, W = Severity.ERROR, Severity.WARNING
#: Fields of python-genai's ``Schema`` (OpenAPI subset), as jsoncontract translates them.
GEMINI_OPENAPI: Final = frozenset(
    {
        "type", "format", "description", "enum", "items", "minItems", "maxItems", "minLength",
        "maxLength", "minimum", "maximum", "minProperties", "maxProperties", "pattern",
        "properties", "required", "anyOf", "default", "examples", "title",
        "additionalProperties", "$defs", "$ref",
    }
)  # fmt: skip
#: Keywords Gemini documents for JSON Schema fields (``responseJsonSchema``; very likely
#: the same for ``parametersJsonSchema``).
GEMINI_JSON: Final = frozenset(
    {
        "$id", "$defs", "$ref", "$anchor", "type", "format", "title", "description", "enum",
        "items", "prefixItems", "minItems", "maxItems", "minimum", "maximum", "anyOf", "oneOf",
        "properties", "additionalProperties", "required", "propertyOrdering",
    }
)  # fmt: skip


class KeywordUnsupportedByGeminiParameters(NodeRule):
    """## What it does
    Under `gemini`, checks schemas written in the OpenAPI subset of function declarations'
    `parameters`: `const`, `oneOf`, `allOf`, `not`, `exclusiveMinimum`/`Maximum`,
    `prefixItems`, conditionals and the other JSON Schema keywords that python-genai's
    `Schema` has no field for are errors; `$defs` below the root too. `additionalProperties`
    is a warning: Pydantic AI drops it for Gemini because Gemini mishandles it.

    ## Why is this bad?
    The field does not exist in Gemini's `Schema`: the request is rejected, or the keyword
    is dropped and the model is not held to it ("Gemini rejects `oneOf` outright").

    ## Example
    ```json
    {"name": "set_mode", "parameters": {"type": "OBJECT",
      "properties": {"mode": {"type": "STRING", "const": "fast"}}}}
    ```

    ## Use instead
    ```json
    {"name": "set_mode", "parameters": {"type": "OBJECT",
      "properties": {"mode": {"type": "STRING", "enum": ["fast"]}}}}
    ```
    or move the schema to `parametersJsonSchema`.

    ## References
    - python-genai, `google/genai/types.py` (`Schema` fields; `defs` only at the root)
    - Pydantic AI, `GoogleOpenAPISchemaTransformer`
    """

    code = "JC041"
    name = "keyword-unsupported-by-gemini-parameters"
    family = Family.GEMINI
    summary = "gemini: a keyword Gemini's OpenAPI parameters do not have"
    profiles = by_profile({GEMINI: E})
    fixable = True
    triggers = frozenset({"@any"})
    openapi = True

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        if not isinstance(value, dict):
            return
        for keyword in value:
            if keyword == "$defs" and node.path:
                yield Issue(
                    "defs may only appear at the root of Gemini parameters",
                    node.pointer("$defs"),
                    keyword="defs",
                    hint="move the definitions to the root",
                    schema_path=node.schema_path("$defs"),
                )
                continue
            if keyword == "additionalProperties":
                yield Issue(
                    "additionalProperties in Gemini parameters is mishandled by Gemini "
                    "(Pydantic AI removes it)",
                    node.pointer(keyword),
                    keyword=keyword,
                    hint="leave it out of parameters, or use parametersJsonSchema",
                    severity=W,
                    schema_path=node.schema_path(keyword),
                )
                continue
            if keyword in GEMINI_OPENAPI or keyword not in KEYWORDS:
                continue
            fix = const_to_enum_fix(node) if keyword == "const" else None
            refused = None
            if fix is None and keyword in ANNOTATIONS:
                fix = drop_fix(node, keyword)
            elif fix is None:
                refused = f"{keyword} constrains values; dropping it accepts more"
            yield Issue(
                f"{keyword} is not a field of Gemini's parameters schema",
                node.pointer(keyword),
                keyword=keyword,
                hint="express it with the supported fields, or use parametersJsonSchema",
                fix=fix,
                refused=refused,
                schema_path=node.schema_path(keyword),
            )


class KeywordUnsupportedByGemini(NodeRule):
    """## What it does
    Under `gemini`, checks JSON Schemas (`parametersJsonSchema`, and schemas from other
    dialects that a host would pass as JSON Schema) against the keywords Gemini documents
    for JSON Schema fields: `$id`, `$defs`, `$ref`, `$anchor`, `type`, `format`, `title`,
    `description`, `enum`, `items`, `prefixItems`, `minItems`, `maxItems`, `minimum`,
    `maximum`, `anyOf`, `oneOf`, `properties`, `additionalProperties`, `required` and
    `propertyOrdering`.

    ## Why is this bad?
    Other keywords (`pattern`, `minLength`, `const`, `default`, `allOf`...) are ignored or
    rejected; Pydantic AI removes `$schema` and `examples` and turns `const` into a
    one-value `enum` before calling Gemini. This is a warning: Google
    documents the list for `responseJsonSchema`, and that it governs
    `parametersJsonSchema` too is likely but unconfirmed.

    ## Example
    ```json
    {"type": "object", "properties": {"mode": {"const": "fast"}}, "$schema":
     "https://json-schema.org/draft/2020-12/schema"}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"mode": {"enum": ["fast"]}}}
    ```

    ## Fix
    Removes annotations (`default`, `examples`, `$comment`, `deprecated`, `readOnly`,
    `writeOnly`, and a 2020-12 `$schema`) and writes `const` as a one-value `enum`.
    Constraints such as `pattern` are not dropped.

    ## References
    - python-genai, `response_json_schema` docstring (supported JSON Schema keywords)
    - Pydantic AI, `GoogleJsonSchemaTransformer`
    """

    code = "JC042"
    name = "keyword-unsupported-by-gemini"
    family = Family.GEMINI
    summary = "gemini: a JSON Schema keyword outside Gemini's documented list"
    profiles = by_profile({GEMINI: W})
    fixable = True
    triggers = frozenset({"@any"})
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        if not isinstance(value, dict):
            return
        for keyword in value:
            if keyword in GEMINI_JSON or keyword not in KEYWORDS:
                continue
            if keyword == "definitions" and not node.path:
                continue  # same as $defs for Gemini purposes; hygiene rules handle it
            fix, refused = self._fix(node, keyword)
            yield Issue(
                f"{keyword} is not among the JSON Schema keywords Gemini documents",
                node.pointer(keyword),
                keyword=keyword,
                hint="use the documented keywords, and check the rest in the tool",
                fix=fix,
                refused=refused,
                schema_path=node.schema_path(keyword),
            )

    @staticmethod
    def _fix(node: Node, keyword: str) -> tuple[Fix | None, str | None]:
        if keyword == "const":
            fix = const_to_enum_fix(node)
            if fix is not None:
                return fix, None
        if keyword in ANNOTATIONS and keyword not in ("title", "description"):
            return drop_fix(node, keyword), None
        if keyword == "$schema":
            if node.site.effective_draft == "2020-12":
                return drop_fix(node, keyword), None
            return None, "the schema declares another dialect; removing $schema changes it"
        return None, f"{keyword} constrains values; dropping it accepts more"
