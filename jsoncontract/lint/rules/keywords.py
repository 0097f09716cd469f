"""Keywords and formats no validator knows, and defaults their own schema rejects."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._spelling import did_you_mean
from jsoncontract.lint.heuristics import json_equal, matches_type
from jsoncontract.lint.rule import ALL, Family, Issue, NodeRule, by_profile
from jsoncontract.lint.rules.support import KEYWORDS
from jsoncontract.model import Severity
from jsoncontract.tools.openapi import CARRIED, OPENAPI

if TYPE_CHECKING:
    from jsoncontract.lint.context import Node

W = Severity.WARNING
#: Non-standard keywords with a known meaning to a provider or to OpenAPI.
VENDOR: Final = frozenset({"propertyOrdering", "discriminator", "nullable", "example", "xml",
                           "externalDocs"})  # fmt: skip
#: Formats of JSON Schema 2020-12, plus OpenAPI's numeric and binary formats.
FORMATS: Final = frozenset(
    {
        "date-time", "date", "time", "duration", "email", "idn-email", "hostname",
        "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference", "uuid",
        "uri-template", "json-pointer", "relative-json-pointer", "regex", "int32", "int64",
        "float", "double", "byte", "binary", "password", "color", "host-name", "ip-address",
        "utc-millisec", "style", "phone",
    }
)  # fmt: skip
#: Gemini's OpenAPI subset also uses ``format: enum``.
OPENAPI_FORMATS: Final = FORMATS | {"enum"}


class KeywordUnknown(NodeRule):
    """## What it does
    Finds keys in a schema that are not JSON Schema keywords (of any draft), not a known
    vendor keyword and not an `x-` extension: usually a typo (`maxlength`, `require`,
    `additionalProperty`, `enums`) or a keyword from another language (`nullable` is
    OpenAPI).

    ## Why is this bad?
    Validators ignore unknown keywords. The constraint you meant is silently not enforced,
    and the schema looks stricter than it is.

    ## Example
    ```json
    {"type": "string", "maxlength": 64, "nullable": true}
    ```

    ## Use instead
    ```json
    {"type": ["string", "null"], "maxLength": 64}
    ```

    ## References
    - JSON Schema 2020-12 core (keywords a validator does not know are not asserted)
    - OpenAPI 3.0 `nullable` versus JSON Schema type unions
    """

    code = "JC152"
    name = "keyword-unknown"
    family = Family.HYGIENE
    summary = "A key that is not a JSON Schema keyword (usually a typo)"
    profiles = by_profile({ALL: W})
    triggers = frozenset({"@any"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        if not isinstance(value, dict):
            return
        carried = node.parent is None and node.site.tool.contract.dialect == OPENAPI
        for key in value:
            if key in KEYWORDS or key.startswith(("x-", "$")):
                continue
            if carried and key in CARRIED:  # the document's, carried so that $ref resolves
                continue
            if key in VENDOR:
                if key == "nullable" and not node.site.openapi:
                    yield Issue(
                        "nullable is an OpenAPI keyword; JSON Schema validators ignore it",
                        node.pointer(key),
                        keyword=key,
                        hint='allow null with a type list: "type": ["string", "null"]',
                        schema_path=node.schema_path(key),
                    )
                continue
            guess = did_you_mean(key, KEYWORDS)
            if guess:
                hint = f"did you mean {guess!r}?"
            else:
                hint = "prefix extensions with x- so readers know validators ignore them"
            yield Issue(
                f"{key!r} is not a JSON Schema keyword; validators ignore it",
                node.pointer(key),
                keyword=key,
                hint=hint,
                schema_path=node.schema_path(key),
            )


class FormatUnknown(NodeRule):
    """## What it does
    Finds `format` values that no specification defines (`date_time`, `e-mail`, `url`,
    `datetime`).

    ## Why is this bad?
    Validators ignore unknown formats, so the value is not checked at all, although the
    schema suggests it is. Providers drop them too.

    ## Example
    ```json
    {"type": "string", "format": "datetime"}
    ```

    ## Use instead
    ```json
    {"type": "string", "format": "date-time"}
    ```

    ## References
    - JSON Schema 2020-12 validation, section 7.3 (defined formats)
    - OpenAPI 3.0, data types (`int32`, `int64`, `float`, `double`, `byte`, `binary`)
    """

    code = "JC153"
    name = "format-unknown"
    family = Family.HYGIENE
    summary = "A format no specification defines"
    profiles = by_profile({ALL: W})
    triggers = frozenset({"format"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        fmt = node.value.get("format")
        if not isinstance(fmt, str):
            return
        known = OPENAPI_FORMATS if node.site.openapi else FORMATS
        if fmt in known:
            return
        guess = did_you_mean(fmt, FORMATS)
        yield Issue(
            f"format {fmt!r} is not a defined format; validators do not check it",
            node.pointer("format"),
            keyword="format",
            hint=f"did you mean {guess!r}?" if guess else "use a pattern instead",
            schema_path=node.schema_path("format"),
        )


_CHECKS: Final = frozenset(
    {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
     "maxLength", "pattern", "format", "minItems", "maxItems", "uniqueItems", "items",
     "properties", "required", "additionalProperties", "minProperties", "maxProperties"}
)  # fmt: skip


class DefaultInvalid(NodeRule):
    """## What it does
    Checks that a `default` is valid against the schema it sits in (its `type`, `enum`,
    `const` and, where present, bounds, pattern and format).

    ## Why is this bad?
    The default is what the tool uses when the model leaves the field out, and what models
    copy when unsure. An invalid default is a value the tool's own contract rejects.

    ## Example
    ```json
    {"type": "integer", "minimum": 1, "maximum": 100, "default": 0}
    ```

    ## Use instead
    ```json
    {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}
    ```

    ## References
    - JSON Schema 2020-12 validation, section 9.2 (`default` SHOULD be valid)
    - sourcemeta jsonschema lint rule `valid_default`
    """

    code = "JC156"
    name = "default-invalid"
    family = Family.HYGIENE
    summary = "A default value its own schema rejects"
    profiles = by_profile({ALL: W})
    triggers = frozenset({"default"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        default = value["default"]
        problem = _quick(value, default, node.types)
        if problem is None and "$ref" not in value and any(k in value for k in _CHECKS):
            problem = _full(value, default)
        if problem is None:
            return
        yield Issue(
            f"the default {_show(default)} is not valid here: {problem}",
            node.pointer("default"),
            keyword="default",
            hint="use a value the schema accepts, or remove the default",
            schema_path=node.schema_path("default"),
        )


def _show(value: Any) -> str:
    from jsoncontract._json import short_repr

    return short_repr(value, 40)


def _quick(schema: dict[str, Any], default: Any, types: frozenset[str]) -> str | None:
    if default is None and "nullable" in schema:
        return None
    if types and not matches_type(default, types):
        return f"the type is {' or '.join(sorted(types))}"
    enum = schema.get("enum")
    if isinstance(enum, list) and not any(json_equal(default, value) for value in enum):
        return "it is not one of the enum values"
    if "const" in schema and not json_equal(schema["const"], default):
        return "it differs from the const"
    return None


def _full(schema: dict[str, Any], default: Any) -> str | None:
    import jsonschema_rs

    from jsoncontract.lint.meta import refuse_retrieval

    probe = {k: v for k, v in schema.items() if k not in ("default", "examples", "$schema")}
    try:
        validator = jsonschema_rs.validator_for(
            probe, validate_formats=True, retriever=refuse_retrieval
        )
    except (jsonschema_rs.ValidationError, jsonschema_rs.ReferencingError, ValueError):
        return None  # the schema itself is broken: schema-invalid reports it
    for error in validator.iter_errors(default):
        return str(error.message).strip().splitlines()[0]
    return None
