"""Bounds: structured values (ids, amounts, dates, emails, limits) that accept anything."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Final

from jsoncontract.lint.heuristics import last_word, words
from jsoncontract.lint.profiles import ANTHROPIC_STRICT, OPENAI_STRICT
from jsoncontract.lint.rule import ALL, Family, Issue, NodeRule, by_profile
from jsoncontract.lint.rules.support import article
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import Node

E, W = Severity.ERROR, Severity.WARNING
_CONSTRAINED: Final = ("format", "pattern", "enum", "const", "$ref", "anyOf", "oneOf", "allOf")
#: Last word of a property name -> the format its values have.
FORMAT_WORDS: Final = {
    "email": "email",
    "url": "uri",
    "uri": "uri",
    "link": "uri",
    "website": "uri",
    "homepage": "uri",
    "webhook": "uri",
    "endpoint": "uri",
    "uuid": "uuid",
    "guid": "uuid",
    "ip": "ipv4 or ipv6",
    "ipv4": "ipv4",
    "ipv6": "ipv6",
    "hostname": "hostname",
    "host": "hostname",
    "domain": "hostname",
    "date": "date",
    "birthday": "date",
    "dob": "date",
    "datetime": "date-time",
    "timestamp": "date-time",
    "at": "date-time",
    "time": "date-time or time",
    "duration": "duration",
}
_DESCRIBED: Final = (
    (re.compile(r"YYYY-MM-DD(?!T)|\bISO[ -]?8601 date\b", re.I), "date"),
    (re.compile(r"\bRFC ?3339\b|\bISO[ -]?8601\b|YYYY-MM-DDTHH", re.I), "date-time"),
    (re.compile(r"\be-?mail address\b", re.I), "email"),
    (re.compile(r"\bUUID\b"), "uuid"),
    (re.compile(r"\b(?:URL|URI)\b"), "uri"),
)
#: Last words of identifiers and codes; strings named so need a shape or a length.
ID_WORDS: Final = frozenset(
    {"id", "ids", "key", "code", "sku", "number", "ref", "reference", "slug", "handle",
     "iban", "bic", "isbn", "ean", "upc", "vin", "zip", "postcode"}
)  # fmt: skip
AMOUNT_WORDS: Final = frozenset(
    {"amount", "price", "total", "cost", "balance", "fee", "subtotal", "tax", "quantity",
     "qty"}
)  # fmt: skip
#: Numbers that must not be negative.
NON_NEGATIVE_WORDS: Final = AMOUNT_WORDS | frozenset(
    {"count", "limit", "size", "page", "offset", "weight", "timeout", "retries", "days",
     "hours", "minutes", "seconds", "ms", "age", "length", "width", "height", "k", "n",
     "results", "items", "per"}
)  # fmt: skip
#: Numbers a model can blow up: page sizes, counts, timeouts.
NEEDS_MAXIMUM_WORDS: Final = frozenset(
    {"limit", "size", "count", "k", "n", "results", "timeout", "retries", "page", "items"}
)  # fmt: skip


def _expected_format(name: str, description: str) -> str | None:
    found = FORMAT_WORDS.get(last_word(name))
    if found is not None:
        return found
    for pattern, fmt in _DESCRIBED:
        if pattern.search(description):
            return fmt
    return None


class StringFormatMissing(NodeRule):
    """## What it does
    Finds string properties whose name or description says what they hold (`email`,
    `*_url`, `*_date`, `created_at`, `uuid`, "YYYY-MM-DD", "RFC 3339"...) but whose schema
    has no `format`, `pattern` or `enum`.

    ## Why is this bad?
    `"next Tuesday"`, `"2024/01/31"` and `"31.01.2024"` all pass a bare string; the tool
    then parses them differently or fails deep inside the business system. A `format`
    makes validation reject them with a message the model can act on, and strict modes
    constrain generation to it.

    ## Example
    ```json
    {"type": "object", "properties": {"start_date": {"type": "string"}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"start_date": {"type": "string", "format": "date"}}}
    ```

    ## References
    - JSON Schema 2020-12 validation, section 7.3 (defined formats)
    - OpenAI and Anthropic strict modes support `date`, `date-time`, `email`, `uuid`... as
      formats (see JC024, JC032 for the lists)
    """

    code = "JC120"
    name = "string-format-missing"
    family = Family.BOUNDS
    summary = "A date, email, URL or id string without format or pattern"
    profiles = by_profile({ALL: W})
    triggers = frozenset({"@string"})
    sites = frozenset({"input"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        name = node.prop
        value = node.value
        if name is None or any(k in value for k in _CONSTRAINED):
            return
        description = value.get("description")
        fmt = _expected_format(name, description if isinstance(description, str) else "")
        if fmt is None:
            return
        hint = f'add "format": "{fmt.split(" or ")[0]}"'
        if fmt == "uri" and OPENAI_STRICT in active:
            hint += " (OpenAI strict mode lacks uri: use a pattern such as ^https://)"
        yield Issue(
            f"property {name!r} holds {article(fmt)} {fmt} but has no format or pattern: any "
            "string passes",
            node.pointer(),
            keyword="format",
            hint=hint,
            schema_path=node.schema_path(),
        )


class StringUnbounded(NodeRule):
    """## What it does
    Finds identifier and amount strings (`order_id`, `sku`, `postcode`, `reference`,
    `amount` written as a string...) with none of `maxLength`, `pattern`, `format`, `enum`
    or `const`.

    ## Why is this bad?
    An identifier has a shape: `ORD-004512`, a UUID, six digits. Without it, whatever the
    model writes (`"the order from yesterday"`, a 10,000-character paste, an injected
    instruction) is passed to a database lookup or a downstream API. A pattern also tells
    the model what an id looks like, which reduces invented ids.

    ## Example
    ```json
    {"type": "object", "properties": {"order_id": {"type": "string"}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {
      "order_id": {"type": "string", "pattern": "^ORD-[0-9]{6}$"}}}
    ```

    ## References
    - OWASP Input Validation Cheat Sheet (allow-list the expected shape and length)
    - Anthropic and OpenAI strict modes support `pattern`; `maxLength` is not supported by
      Anthropic strict tool use (prefer a pattern there)
    """

    code = "JC121"
    name = "string-unbounded"
    family = Family.BOUNDS
    summary = "An id, code or amount string without maxLength, pattern or format"
    profiles = by_profile({ALL: W})
    triggers = frozenset({"@string"})
    sites = frozenset({"input"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        name = node.prop
        value = node.value
        if name is None or "maxLength" in value or any(k in value for k in _CONSTRAINED):
            return
        word = last_word(name)
        if word in ID_WORDS:
            what = "an identifier"
        elif word in AMOUNT_WORDS:
            what = "an amount"
        else:
            return
        strict = ANTHROPIC_STRICT in active or OPENAI_STRICT in active
        hint = "add a pattern for its shape" + ("" if strict else " (or at least maxLength)")
        yield Issue(
            f"property {name!r} is {what} but accepts any string of any length",
            node.pointer(),
            keyword="pattern",
            hint=hint,
            schema_path=node.schema_path(),
        )


class NumberUnbounded(NodeRule):
    """## What it does
    Finds amounts, counts and sizes (`amount`, `quantity`, `limit`, `page_size`, `top_k`,
    `timeout_seconds`...) typed as numbers without a `minimum` (negative values pass) and,
    for page sizes, counts and timeouts, without a `maximum`.

    ## Why is this bad?
    `amount: -50` is a refund nobody asked for; `limit: 1000000` is a full table scan; a
    timeout of a day holds a worker. Models produce such values when a user asks for "all
    of them". Not run for `anthropic-strict` alone, which rejects numeric bounds (see
    JC030).

    ## Example
    ```json
    {"type": "object", "properties": {"limit": {"type": "integer"}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"limit": {"type": "integer", "minimum": 1,
                                                "maximum": 100}}}
    ```

    ## References
    - JSON Schema 2020-12 validation, section 6.2 (numeric bounds)
    - OWASP API Security Top 10, API4:2023 "Unrestricted Resource Consumption"
    """

    code = "JC122"
    name = "number-unbounded"
    family = Family.BOUNDS
    summary = "An amount, count or size without minimum (or maximum)"
    profiles = by_profile({ALL: W, ANTHROPIC_STRICT: None})
    triggers = frozenset({"@number"})
    sites = frozenset({"input"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        name = node.prop
        value = node.value
        if name is None or "enum" in value or "const" in value:
            return
        parts = words(name)
        word = parts[-1] if parts else ""
        if word == "k" and "top" not in parts:
            return
        missing = []
        if (
            word in NON_NEGATIVE_WORDS
            and "minimum" not in value
            and ("exclusiveMinimum" not in value)
        ):
            missing.append("minimum")
        if (
            (word in NEEDS_MAXIMUM_WORDS or parts[:1] == ("max",))
            and "maximum" not in value
            and ("exclusiveMaximum" not in value)
        ):
            missing.append("maximum")
        if not missing:
            return
        effects = {
            "minimum": "negative values pass",
            "maximum": "nothing stops a huge value",
        }
        yield Issue(
            f"property {name!r} has no {' and no '.join(missing)}: "
            f"{'; '.join(effects[m] for m in missing)}",
            node.pointer(),
            keyword=missing[0],
            hint=f"add {' and '.join(missing)}",
            schema_path=node.schema_path(),
        )


class ArrayItemsMissing(NodeRule):
    """## What it does
    Finds array schemas whose items are not described: no `items` (or `prefixItems`), or
    `items` that is `{}` or `true`.

    ## Why is this bad?
    Anything goes inside: strings, objects, nested arrays. The model has no guidance and
    the tool gets whatever it writes. Pydantic AI refuses such arrays for OpenAI strict
    mode, where it is an error.

    ## Example
    ```json
    {"type": "object", "properties": {"tags": {"type": "array"}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"tags": {"type": "array",
                                               "items": {"type": "string", "maxLength": 32},
                                               "maxItems": 20}}}
    ```

    ## References
    - Pydantic AI, `OpenAIJsonSchemaTransformer` (array without typed items is an error)
    - JSON Schema 2020-12 core, section 10.3.1.2 (`items`)
    """

    code = "JC123"
    name = "array-items-missing"
    family = Family.BOUNDS
    summary = "An array whose items are not described"
    profiles = by_profile({ALL: W, OPENAI_STRICT: E})
    triggers = frozenset({"@array"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        if "array" not in node.types:
            return
        items = value.get("items")
        if "prefixItems" in value or "contains" in value:
            return
        if items is None:
            message = f"{node.label()} is an array without items: any element passes"
            at = node.pointer()
            path = node.schema_path()
        elif items is True or items == {}:
            message = f"{node.label()} has items {items!r}: any element passes"
            at = node.pointer("items")
            path = node.schema_path("items")
        else:
            return
        yield Issue(
            message,
            at,
            keyword="items",
            hint="describe the elements with items (a type at least)",
            schema_path=path,
        )


_PAIRS: Final = (
    ("minimum", "maximum"),
    ("exclusiveMinimum", "maximum"),
    ("minimum", "exclusiveMaximum"),
    ("exclusiveMinimum", "exclusiveMaximum"),
    ("minLength", "maxLength"),
    ("minItems", "maxItems"),
    ("minProperties", "maxProperties"),
    ("minContains", "maxContains"),
)


class BoundsUnsatisfiable(NodeRule):
    """## What it does
    Finds lower bounds above their upper bound: `minimum` > `maximum`, `minLength` >
    `maxLength`, `minItems` > `maxItems`, and the exclusive variants.

    ## Why is this bad?
    No value can be valid. Usually two limits were swapped or one was changed without the
    other; every call that sends the field fails.

    ## Example
    ```json
    {"type": "integer", "minimum": 100, "maximum": 10}
    ```

    ## Use instead
    ```json
    {"type": "integer", "minimum": 10, "maximum": 100}
    ```

    ## References
    - JSON Schema 2020-12 validation, sections 6.2 to 6.5
    - sourcemeta jsonschema lint rules `unsatisfiable_*`
    """

    code = "JC155"
    name = "bounds-unsatisfiable"
    family = Family.HYGIENE
    summary = "A lower bound is above its upper bound"
    profiles = by_profile({ALL: E})
    triggers = frozenset(
        {"maximum", "exclusiveMaximum", "maxLength", "maxItems", "maxProperties", "maxContains"}
    )

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        for low_key, high_key in _PAIRS:
            if high_key not in value or low_key not in value:
                continue
            low = value[low_key]
            high = value[high_key]
            if not _number(low) or not _number(high):
                continue
            assert isinstance(low, int | float) and isinstance(high, int | float)
            exclusive = low_key.startswith("exclusive") or high_key.startswith("exclusive")
            if low > high or (exclusive and low >= high):
                yield Issue(
                    f"{low_key} {low} is above {high_key} {high}: no value can be valid",
                    node.pointer(low_key),
                    keyword=low_key,
                    hint="swap or correct the bounds",
                    schema_path=node.schema_path(low_key),
                )


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
