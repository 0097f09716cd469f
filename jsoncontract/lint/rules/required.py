"""Required completeness: what a call must send, and what strict providers insist on."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._spelling import did_you_mean
from jsoncontract.lint.profiles import OPENAI_STRICT
from jsoncontract.lint.rule import ALL, Edit, Family, Fix, Issue, NodeRule, by_profile
from jsoncontract.model import Severity

if TYPE_CHECKING:
    from jsoncontract.lint.context import Node

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO
#: Keywords whose subschemas apply to the same instance as the schema holding them.
_BRANCHES: Final = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas")
#: Keywords that let members the schema does not name exist.
_OPENING: Final = ("patternProperties", "$ref", "$dynamicRef")


def _not_nullable(node: Node) -> str | None:
    """Why letting this property schema accept null is not mechanical, or ``None``."""
    value = node.value
    if not isinstance(value, dict):
        return "a boolean subschema cannot be made nullable"
    if "const" in value:
        return "it has a const; allowing null too needs anyOf, written by hand"
    if (
        "type" not in value
        and "$ref" not in value
        and not isinstance(value.get("anyOf") or value.get("oneOf"), list)
        and ("allOf" in value or "not" in value)
    ):
        return "null would have to pass every allOf branch (or the not); write it by hand"
    return None


def nullable_edits(node: Node) -> tuple[list[Edit], str | None]:
    """Edits that let a property schema accept null, or why that is not mechanical."""
    value = node.value
    refused = _not_nullable(node)
    if refused is not None:
        return [], refused
    edits: list[Edit] = []
    kind = value.get("type")
    if isinstance(kind, str):
        if kind != "null":
            edits.append(Edit("set", node.pointer("type"), [kind, "null"]))
    elif isinstance(kind, list):
        if "null" not in kind:
            edits.append(Edit("append", node.pointer("type"), "null"))
    elif "$ref" in value:
        inner = {k: v for k, v in value.items() if k not in ("description", "title")}
        outer = {k: v for k, v in value.items() if k in ("description", "title")}
        outer["anyOf"] = [inner, {"type": "null"}]
        return [Edit("set", node.pointer(), outer)], None
    elif isinstance(value.get("anyOf") or value.get("oneOf"), list):
        key = "anyOf" if isinstance(value.get("anyOf"), list) else "oneOf"
        branches = value[key]
        if not any(_takes_null(b) for b in branches):
            edits.append(Edit("append", node.pointer(key), {"type": "null"}))
    elif "allOf" in value or "not" in value:
        return [], "null would have to pass every allOf branch (or the not); write it by hand"
    enum = value.get("enum")
    if isinstance(enum, list) and None not in enum:
        edits.append(Edit("append", node.pointer("enum"), None))
    return edits, None


def _takes_null(branch: Any) -> bool:
    """Whether a union branch already says it accepts null (then a null branch would make
    null match two branches of a oneOf, which rejects it)."""
    if not isinstance(branch, dict):
        return False
    kind = branch.get("type")
    enum = branch.get("enum")
    return (
        kind == "null"
        or (isinstance(kind, list) and "null" in kind)
        or ("const" in branch and branch["const"] is None)
        or (isinstance(enum, list) and None in enum)
    )


class PropertyNotRequired(NodeRule):
    """## What it does
    Under `openai-strict`, checks that every property of every object is listed in its
    object's `required`.

    ## Why is this bad?
    OpenAI Structured Outputs requires all fields to be required (`'required' is required to
    be supplied and to be an array including every key in properties`); an optional field
    is written as a required one that accepts `null`. When `strict` is omitted on the
    Responses API, OpenAI normalises the schema itself, making optional parameters
    required without telling you.

    ## Example
    ```json
    {"type": "object", "additionalProperties": false,
     "properties": {"city": {"type": "string"}, "unit": {"type": "string"}},
     "required": ["city"]}
    ```

    ## Use instead
    ```json
    {"type": "object", "additionalProperties": false,
     "properties": {"city": {"type": "string"}, "unit": {"type": ["string", "null"]}},
     "required": ["city", "unit"]}
    ```

    ## Fix
    Adds the property to `required` and lets it accept `null` (a `null` type, a `null`
    enum member, or an `anyOf` branch). This is the one fix that changes which payloads
    validate: it is the form OpenAI documents for optional fields, and strict mode always
    sends the field. A property with `const` is not fixed.

    ## References
    - OpenAI Structured Outputs, "Supported schemas" ("All fields must be required";
      optional fields as a union with null)
    - OpenAI function calling guide (Responses API normalisation of non-strict schemas)
    """

    code = "JC021"
    name = "property-not-required"
    family = Family.REQUIRED
    summary = "openai-strict: a property is not listed in required"
    profiles = by_profile({OPENAI_STRICT: E})
    fixable = True
    triggers = frozenset({"@property"})
    sites = frozenset({"input"})
    openapi = False

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        parent = node.parent
        if parent is None or node.required:
            return
        name = node.prop
        assert name is not None
        refused = _not_nullable(node)
        fix = None
        if refused is None:

            def build(
                node: Node = node, parent: Node = parent, name: str = name
            ) -> tuple[Edit, ...]:
                edits, _ = nullable_edits(node)
                required = parent.value.get("required")
                if isinstance(required, list):
                    edits.append(Edit("append", parent.pointer("required"), name))
                else:
                    edits.append(Edit("set", parent.pointer("required"), [name]))
                return tuple(edits)

            fix = Fix(f"require {name!r} and let it be null", build=build)
        yield Issue(
            f"property {name!r} is not in required; OpenAI strict mode requires every property",
            node.pointer(),
            keyword="required",
            hint=f"add {name!r} to required and allow null in its type to keep it optional",
            fix=fix,
            refused=refused,
            schema_path=node.schema_path(),
        )


class RequiredPropertyUndefined(NodeRule):
    """## What it does
    Checks that every name in `required` is declared under `properties` (or could come from
    `patternProperties`, `additionalProperties` or a composed subschema). In an `anyOf`,
    `oneOf`, `allOf`, `if`/`then`/`else` or `not` branch, the properties of the schemas the
    branch is composed with count as declared (`"anyOf": [{"required": ["email"]},
    {"required": ["phone"]}]` next to `properties`).

    ## Why is this bad?
    Usually a typo or a renamed property. The schema then demands a member the model has
    never been told about; if the object is also closed, no payload can ever be valid, and
    every call to the tool fails validation.

    ## Example
    ```json
    {"type": "object", "properties": {"order_id": {"type": "string"}},
     "required": ["orderId"], "additionalProperties": false}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"order_id": {"type": "string"}},
     "required": ["order_id"], "additionalProperties": false}
    ```

    ## References
    - JSON Schema 2020-12 validation, section 6.5.3 (`required`)
    - sourcemeta jsonschema lint rule `required_properties_in_properties`
    """

    code = "JC130"
    name = "required-property-undefined"
    family = Family.REQUIRED
    summary = "required names a property that is not declared"
    profiles = by_profile({ALL: E})
    triggers = frozenset({"required"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        value = node.value
        required = value.get("required")
        if not isinstance(required, list):
            return
        if any(k in value for k in (*_OPENING, *_BRANCHES)):
            return
        extra = value.get("additionalProperties")
        closed = extra is False or value.get("unevaluatedProperties") is False
        if isinstance(extra, dict) and extra:
            return
        props = value.get("properties")
        declared: dict[str, Any] = dict(props) if isinstance(props, dict) else {}
        if node.key in _BRANCHES:
            around = _composed_names(node)
            if around is None:
                return
            declared.update(dict.fromkeys(around))
        for index, name in enumerate(required):
            if not isinstance(name, str) or name in declared:
                continue
            guess = did_you_mean(name, declared)
            hint = f"did you mean {guess!r}?" if guess else "declare it under properties"
            yield Issue(
                f"required lists {name!r}, which is not a declared property"
                + ("; the object is closed, so no payload can be valid" if closed else ""),
                node.pointer("required", index),
                keyword="required",
                hint=hint,
                severity=None if closed else W,
                schema_path=node.schema_path("required", index),
            )


def _composed_names(node: Node) -> list[str] | None:
    """The property names a composition branch's ``required`` may refer to: those of the
    schemas it is composed with (its owner and the owner's other branches, up every
    composition step), or ``None`` when they cannot be known from here."""
    names: list[str] = []
    current = node
    while current.key in _BRANCHES and current.parent is not None:
        owner = current.parent.value
        if not isinstance(owner, dict):
            break
        schemas: list[Any] = [owner]
        for key in _BRANCHES:
            sub = owner.get(key)
            if isinstance(sub, list):
                schemas.extend(sub)
            elif isinstance(sub, dict):
                schemas.extend(sub.values() if key == "dependentSchemas" else (sub,))
        for schema in schemas:
            if not isinstance(schema, dict):
                continue
            extra = schema.get("additionalProperties")
            if any(k in schema for k in _OPENING) or (isinstance(extra, dict) and extra):
                return None
            props = schema.get("properties")
            if isinstance(props, dict):
                names.extend(props)
        current = current.parent
    return names


class RequiredMissing(NodeRule):
    """## What it does
    Reports an input schema that declares parameters but requires none of them (and has
    no `anyOf`, `oneOf`, `allOf`, `if`, `not`, `$ref` or `minProperties` that could still
    require one).

    ## Why is this bad?
    Then `{}` is a valid call. Models do call tools with empty arguments when the context
    is thin, and the tool runs with nothing to go on (a search of everything, an update of
    nothing). It is often deliberate (all-optional filters): this is information, not a
    fault.

    ## Example
    ```json
    {"type": "object", "properties": {"order_id": {"type": "string"}}}
    ```

    ## Use instead
    ```json
    {"type": "object", "properties": {"order_id": {"type": "string"}},
     "required": ["order_id"]}
    ```

    ## References
    - JSON Schema 2020-12 validation, section 6.5.3 (`required`; absent means none)
    """

    code = "JC131"
    name = "required-missing"
    family = Family.REQUIRED
    summary = "The input schema has parameters but requires none"
    profiles = by_profile({ALL: INFO, OPENAI_STRICT: None})
    triggers = frozenset({"@object"})
    sites = frozenset({"input"})

    def check(self, node: Node, active: frozenset[str]) -> Iterator[Issue]:
        if node.path:
            return
        value = node.value
        props = value.get("properties")
        if not isinstance(props, dict) or not props or value.get("required"):
            return
        if any(k in value for k in (*_OPENING, *_BRANCHES)) or value.get("minProperties"):
            return  # a composed schema may still require something: {} may be invalid
        yield Issue(
            f"none of the {len(props)} parameters is required, so {{}} is a valid call",
            node.pointer(),
            keyword="required",
            hint="list the parameters the tool cannot work without under required",
            schema_path=node.schema_path(),
        )
