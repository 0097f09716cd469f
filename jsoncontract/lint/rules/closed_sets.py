"""Closed sets: values that come from a fixed list should say so with enum or const."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from jsoncontract.lint.heuristics import json_type, last_word, matches_type
from jsoncontract.lint.rule import ALL, Edit, Family, Fix, Issue, NodeRule, by_profile
from jsoncontract.lint.rules.support import article, json_text, value_key
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import Node

E, W = Severity.ERROR, Severity.WARNING
#: Last words of property names whose values come from a closed set.
CLOSED_WORDS: Final = frozenset(
    {
        "status", "state", "priority", "currency", "type", "kind", "mode", "category",
        "level", "severity", "role", "direction", "unit", "units", "visibility", "method",
        "tier", "plan", "stage", "phase", "environment", "env", "channel", "frequency",
        "interval", "gender", "sort", "order", "format", "language", "locale", "country",
        "region", "scope", "action", "operation", "op", "strategy", "policy", "outcome",
        "resolution",
    }
)  # fmt: skip
#: Closed sets that a pattern describes well enough (codes: USD, DE, en-GB).
CODE_WORDS: Final = frozenset({"currency", "language", "locale", "country", "region"})
#: A sort/order word only means a closed set with a qualifier ("sort_order", "sortBy").
_QUALIFIED: Final = frozenset({"order", "format"})
_CUES: Final = re.compile(
    r"\b(one of|either|possible values|allowed values|valid values|must be (?:one of|either)|"
    r"can be (?:one of|either))\b",
    re.IGNORECASE,
)
#: Cues too common in prose ("either absolute or relative") to count without quoted values.
_WEAK_CUES: Final = frozenset({"either", "can be either"})
#: Room for more than a code or a label: a string allowed this long is free text.
FREE_TEXT_LENGTH: Final = 100
_QUOTED: Final = re.compile(r"[\"'`\u2018\u201c]([A-Za-z0-9_.:-]{1,40})[\"'`\u2019\u201d]")


def _candidates(description: str) -> list[str]:
    """Values a description lists in quotes ("'open', 'closed' or 'void'")."""
    found = list(dict.fromkeys(_QUOTED.findall(description)))
    return found if 2 <= len(found) <= 30 else []


class FreeStringForClosedSet(NodeRule):
    """## What it does
    Finds string properties whose name (`status`, `priority`, `currency`, `type`, `mode`,
    `order_status`, `sort_order`...) or description ("one of", "possible values", "either"
    followed by quoted alternatives) says the value comes from a fixed list, but whose schema
    has no `enum` or `const`. Code-like sets (`currency`, `country`, `language`) may use a
    `pattern` instead. A string allowed more than 100 characters (`maxLength`) is free text,
    whatever its name.

    ## Why is this bad?
    The model writes `"urgent"` where the system knows only `"expedited"`, or `"Shipped"`
    for `"shipped"`. A free string passes validation and fails (or silently misbehaves) in
    the business system. With an `enum`, the provider constrains generation, validation
    names the allowed values, and the model sees them in the schema.

    ## Example
    ```json
    {"type": "object", "properties": {
      "status": {"type": "string", "description": "New status: 'open' or 'closed'."}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {
      "status": {"type": "string", "enum": ["open", "closed"],
                 "description": "New status."}}}
    ```

    ## References
    - JSON Schema 2020-12 validation, section 6.1.2 (`enum`)
    - OpenAI Structured Outputs, "Supported schemas" (`enum` constrains generation)
    """

    code = "JC101"
    name = "free-string-for-closed-set"
    family = Family.CLOSED_SETS
    summary = "A free string where the name or description implies a closed set"
    profiles = by_profile({ALL: W})
    triggers = frozenset({"@string"})
    sites = frozenset({"input"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        name = node.prop
        value = node.value
        if name is None or not node.types <= {"string", "null"}:
            return
        if any(k in value for k in ("enum", "const", "format", "$ref", "anyOf", "oneOf")):
            return
        word = last_word(name)
        description = value.get("description")
        text = description if isinstance(description, str) else ""
        values = _candidates(text)
        cue = _CUES.search(text)
        cued = cue is not None and (bool(values) or cue.group(1).lower() not in _WEAK_CUES)
        limit = value.get("maxLength")
        free_text = isinstance(limit, int) and limit > FREE_TEXT_LENGTH
        named = (
            word in CLOSED_WORDS
            and (word not in _QUALIFIED or len(name) > len(word) + 1)
            and not free_text
        )
        if not named and not cued:
            return
        if "pattern" in value and (word in CODE_WORDS or not cued):
            return
        hint = (
            f'list the values: "enum": {json_text(values)}'
            if values
            else "list the allowed values with enum (or const for a single one)"
        )
        why = f"its name says {word!r}" if named else "its description lists alternatives"
        yield Issue(
            f"property {name!r} is a free string, but {why}: the values form a closed set",
            node.pointer(),
            keyword="enum",
            hint=hint,
            schema_path=node.schema_path(),
        )


class EnumEmpty(NodeRule):
    """## What it does
    Finds `enum` lists with no value.

    ## Why is this bad?
    An empty enum matches nothing: the property can never be valid, and if it is required
    the tool can never be called. 2020-12 no longer forbids it in the meta-schema, so
    validators load it without complaint.

    ## Example
    ```json
    {"type": "string", "enum": []}
    ```

    ## Use instead
    ```json
    {"type": "string", "enum": ["draft", "final"]}
    ```

    ## References
    - JSON Schema 2020-12 validation, section 6.1.2 ("SHOULD have at least one element")
    - mcp-lint rule `no-empty-enum`
    """

    code = "JC102"
    name = "enum-empty"
    family = Family.CLOSED_SETS
    summary = "An enum lists no values"
    profiles = by_profile({ALL: E})
    triggers = frozenset({"enum"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        if node.value.get("enum") == []:
            yield Issue(
                f"{node.label()} has an empty enum: no value can be valid",
                node.pointer("enum"),
                keyword="enum",
                hint="list the allowed values, or remove the property",
                schema_path=node.schema_path("enum"),
            )


class EnumDuplicateValue(NodeRule):
    """## What it does
    Finds values listed twice in one `enum` (`1` and `1.0` count as the same value).

    ## Why is this bad?
    Harmless to validation but a sign of a copy-paste or merge mistake (often a value that
    was meant to be different), and every duplicate costs tokens and counts towards
    provider enum limits.

    ## Example
    ```json
    {"type": "string", "enum": ["open", "closed", "open"]}
    ```

    ## Use instead
    ```json
    {"type": "string", "enum": ["open", "closed"]}
    ```

    ## Fix
    Removes the repeated values (keeping the first of each), which changes nothing about
    what validates.

    ## References
    - JSON Schema 2020-12 validation, section 6.1.2 (elements SHOULD be unique)
    - sourcemeta jsonschema lint rule `duplicate_enum_values`
    """

    code = "JC103"
    name = "enum-duplicate-value"
    family = Family.CLOSED_SETS
    summary = "An enum lists the same value twice"
    profiles = by_profile({ALL: W})
    fixable = True
    triggers = frozenset({"enum"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        values = node.value.get("enum")
        if not isinstance(values, list) or len(values) < 2:
            return
        seen: set[str] = set()
        kept: list[Any] = []
        repeated: list[int] = []
        for index, item in enumerate(values):
            key = value_key(item)
            if key in seen:
                repeated.append(index)
            else:
                seen.add(key)
                kept.append(item)
        if not repeated:
            return
        shown = ", ".join(json_text(values[i]) for i in repeated[:5])
        yield Issue(
            f"enum lists {shown} more than once",
            node.pointer("enum", repeated[0]),
            keyword="enum",
            hint="remove the repeats",
            fix=Fix("remove repeated enum values", (Edit("set", node.pointer("enum"), kept),)),
            schema_path=node.schema_path("enum"),
        )


class EnumValueTypeMismatch(NodeRule):
    """## What it does
    Finds `enum` (and `const`) values that the node's own `type` rejects, such as `"5"` in
    an integer enum or `null` in an enum whose type does not allow null.

    ## Why is this bad?
    Such a value can never validate: the model is offered a choice that always fails, and
    it is usually a sign that the author meant something else (a string enum, or a nullable
    type).

    ## Example
    ```json
    {"type": "integer", "enum": [1, 2, "3"]}
    ```

    ## Use instead
    ```json
    {"type": "integer", "enum": [1, 2, 3]}
    ```

    ## References
    - JSON Schema 2020-12 validation, sections 6.1.1 to 6.1.3 (all keywords apply)
    - sourcemeta jsonschema lint rules `enum_with_type`, `const_with_type`
    """

    code = "JC104"
    name = "enum-value-type-mismatch"
    family = Family.CLOSED_SETS
    summary = "An enum or const value the node's type rejects"
    profiles = by_profile({ALL: W})
    triggers = frozenset({"enum", "const"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        types = node.types
        if not types:
            return
        value = node.value
        values = value.get("enum")
        if isinstance(values, list):
            for index, item in enumerate(values):
                if not matches_type(item, types):
                    kind = json_type(item)
                    yield Issue(
                        f"enum value {json_text(item)} is {article(kind)} {kind}, but "
                        f"the type is {' or '.join(sorted(types))}: it can never be valid",
                        node.pointer("enum", index),
                        keyword="enum",
                        hint="fix the value or the type",
                        schema_path=node.schema_path("enum", index),
                    )
        if "const" in value and not matches_type(value["const"], types):
            yield Issue(
                f"const {json_text(value['const'])} does not match the type "
                f"{' or '.join(sorted(types))}: nothing can be valid",
                node.pointer("const"),
                keyword="const",
                hint="fix the value or the type",
                schema_path=node.schema_path("const"),
            )
