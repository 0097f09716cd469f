"""Checking a schema against its draft's meta-schema, fast.

jsonschema-rs carries the meta-schemas of drafts 4, 6, 7, 2019-09 and 2020-12 and checks a
typical tool schema in a few microseconds (python-jsonschema takes about a millisecond), so
the check runs on every schema of every tool. ``is_valid`` answers first; the full error
list is only built for schemas that fail. Draft 3, which jsonschema-rs does not read, falls
back to python-jsonschema. Format assertions are on, so a ``pattern`` that is not a regular
expression is caught here too.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Final

from jsoncontract._spelling import did_you_mean
from jsoncontract.pointer import escape_pointer_token

#: Dialect name -> the meta-schema URI jsonschema-rs knows it by.
META_URIS: Final = {
    "2020-12": "https://json-schema.org/draft/2020-12/schema",
    "2019-09": "https://json-schema.org/draft/2019-09/schema",
    "draft-07": "http://json-schema.org/draft-07/schema#",
    "draft-06": "http://json-schema.org/draft-06/schema#",
    "draft-04": "http://json-schema.org/draft-04/schema#",
}
SIMPLE_TYPES: Final = ("array", "boolean", "integer", "null", "number", "object", "string")


@dataclass(frozen=True, slots=True)
class MetaError:
    """One way a schema breaks its meta-schema: where (pointer in the schema) and why."""

    pointer: str
    keyword: str | None
    message: str


def refuse_retrieval(uri: str) -> Any:
    """The ``retriever`` of every validator lint compiles: a ``$ref`` to another document is
    never fetched (it is reported by ref-outside-document instead)."""
    raise ValueError(f"jsoncontract never fetches {uri!r}")


@cache
def _validator(draft: str) -> Any:
    import jsonschema_rs

    uri = META_URIS[draft]
    return jsonschema_rs.validator_for(
        {"$schema": uri, "$ref": uri}, validate_formats=True, retriever=refuse_retrieval
    )


def meta_errors(schema: Any, draft: str) -> list[MetaError]:
    """Every meta-schema error of ``schema`` in ``draft`` (empty when it is valid)."""
    if draft == "draft-03":
        return _draft3_errors(schema)
    validator = _validator(draft)
    if validator.is_valid(schema):
        return []
    out: list[MetaError] = []
    for error in validator.iter_errors(schema):
        tokens = [str(t) for t in error.instance_path]
        pointer = "".join("/" + escape_pointer_token(t) for t in tokens)
        keyword = tokens[-1] if tokens else None
        out.append(MetaError(pointer, keyword, _message(error, tokens)))
    return out


def _message(error: Any, tokens: list[str]) -> str:
    text = str(error.message).strip().splitlines()[0]
    kind = error.kind.name
    instance = error.instance
    if tokens and tokens[-1] == "type" and kind in ("anyOf", "enum", "type"):
        shown = instance if isinstance(instance, str) else None
        if shown is not None:
            guess = did_you_mean(shown, SIMPLE_TYPES)
            tip = f"; did you mean {guess!r}?" if guess else ""
            return f"{shown!r} is not a JSON Schema type (types: {', '.join(SIMPLE_TYPES)}){tip}"
    if tokens and tokens[-1] == "required" and isinstance(instance, bool):
        return (
            "required must be an array of property names on the object, not a boolean on the "
            "property (that is Draft 3 syntax)"
        )
    return text


def _draft3_errors(schema: Any) -> list[MetaError]:
    import jsonschema

    validator = jsonschema.Draft3Validator(jsonschema.Draft3Validator.META_SCHEMA)
    out = []
    for error in validator.iter_errors(schema):
        tokens = [str(t) for t in error.absolute_path]
        pointer = "".join("/" + escape_pointer_token(t) for t in tokens)
        out.append(MetaError(pointer, tokens[-1] if tokens else None, error.message))
    return out
