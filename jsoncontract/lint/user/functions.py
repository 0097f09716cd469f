"""Spectral's core functions, as ``@stoplight/spectral-functions`` 1.11 defines them.

Each function takes the target value (``UNDEFINED`` when the ``field`` is missing), its
checked options and the target's path, and returns its results: a message (with Spectral's
``#{{print(...)}}`` placeholders, filled in by the rule) and, for ``alphabetical`` and
``schema``, a path of its own. As in Spectral, a value of a kind the function does not take
(``pattern`` on a number, ``length`` on a boolean) gives no result.

The options of each function are checked when the ruleset loads (:func:`check_options`),
so a bad ``functionOptions`` stops the run before anything is linted.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from jsoncontract.lint.user.jsonpath import (
    UNDEFINED,
    JsonPathError,
    JsRegex,
    js_number,
    truthy,
)

Path = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Result:
    """One result of a function: its message and, when it names one, its own path."""

    message: str
    path: Path | None = None


class OptionsError(ValueError):
    """``functionOptions`` a function does not take."""


Function = Callable[[Any, Any, Path], list[Result]]


# -- what JavaScript would say --------------------------------------------------------------


def js_length(text: str) -> int:
    """A string's ``length`` in JavaScript: UTF-16 code units."""
    return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)


def print_value(value: Any) -> str:
    """Spectral's ``printValue``: JSON for scalars, ``Array[]`` and ``Object{}`` else."""
    import json

    if value is UNDEFINED:
        return "undefined"
    if isinstance(value, list):
        return "Array[]"
    if isinstance(value, dict):
        return "Object{}"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return json.dumps(value, ensure_ascii=False)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


# ICU's root collation (what ``localeCompare`` uses) orders ASCII as below, with a letter's
# two cases equal until every letter has been compared, then the small one first (read from
# Node.js 20's ``Intl.Collator`` on the printable ASCII characters).
_ASCII_ORDER: Final = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789abcdefghijklmnopqrstuvwxyz"
_PRIMARY: Final = {char: index for index, char in enumerate(_ASCII_ORDER)}


def collation_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """A sort key that orders strings as ``localeCompare`` does: by letters and signs
    first, then by accents, then lower case before upper case. Exact for ASCII; other
    characters sort after ASCII by code point, accents taken apart."""
    primary: list[int] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for char in unicodedata.normalize("NFD", text):
        if unicodedata.combining(char):
            if secondary:
                secondary[-1] = ord(char)
            continue
        lower = char.lower() if char.isascii() else char
        primary.append(_PRIMARY.get(lower, 0x100 + ord(lower)))
        secondary.append(0)
        tertiary.append(1 if char.isascii() and char.isupper() else 0)
    return tuple(primary), tuple(secondary), tuple(tertiary)


def _locale_compare(a: str, b: str) -> int:
    left, right = collation_key(a), collation_key(b)
    return (left > right) - (left < right)


# -- the functions ------------------------------------------------------------------------


def _truthy(value: Any, options: Any, path: Path) -> list[Result]:
    return [] if truthy(value) else [Result('#{{print("property")}}must be truthy')]


def _falsy(value: Any, options: Any, path: Path) -> list[Result]:
    return [Result('#{{print("property")}}must be falsy')] if truthy(value) else []


def _defined(value: Any, options: Any, path: Path) -> list[Result]:
    return [Result('#{{print("property")}}must be defined')] if value is UNDEFINED else []


def _undefined(value: Any, options: Any, path: Path) -> list[Result]:
    return [] if value is UNDEFINED else [Result('#{{print("property")}}must be undefined')]


def _pattern(value: Any, options: Mapping[str, Any], path: Path) -> list[Result]:
    if not isinstance(value, str):
        return []
    out: list[Result] = []
    match = options.get("match")
    if match is not None and not JsRegex.parse(match).search(value):
        out.append(Result(f'#{{{{print("value")}}}} must match the pattern {print_value(match)}'))
    refused = options.get("notMatch")
    if refused is not None and JsRegex.parse(refused).search(value):
        out.append(
            Result(f'#{{{{print("value")}}}} must not match the pattern {print_value(refused)}')
        )
    return out


def _same_value_zero(a: Any, b: Any) -> bool:
    if _is_number(a) and _is_number(b):
        return bool(a == b) or (a != a and b != b)
    return type(a) is type(b) and bool(a == b)


def _enumeration(value: Any, options: Mapping[str, Any], path: Path) -> list[Result]:
    if not (value is None or isinstance(value, str | int | float)):
        return []
    allowed = options["values"]
    if any(_same_value_zero(value, v) for v in allowed):
        return []
    listed = ", ".join(print_value(v) for v in allowed)
    return [Result(f'#{{{{print("value")}}}} must be equal to one of the allowed values: {listed}')]


def _length(value: Any, options: Mapping[str, Any], path: Path) -> list[Result]:
    if isinstance(value, dict | list):
        size: float = len(value)
    elif isinstance(value, str):
        size = js_length(value)
    elif _is_number(value):
        size = value
    else:
        return []
    out: list[Result] = []
    if "min" in options and size < options["min"]:
        out.append(
            Result(f'#{{{{print("property")}}}}must be longer than {print_value(options["min"])}')
        )
    if "max" in options and size > options["max"]:
        out.append(
            Result(f'#{{{{print("property")}}}}must be shorter than {print_value(options["max"])}')
        )
    return out


#: ``casing``'s word shapes; ``{d}`` stands for the digits (left out with
#: ``disallowDigits``); ``\Z`` is the end of the text, as JavaScript's ``$``.
_CASES: Final = {
    "flat": "[a-z][a-z{d}]*",
    "camel": "[a-z][a-z{d}]*(?:[A-Z{d}](?:[a-z{d}]+|\\Z))*",
    "pascal": "[A-Z][a-z{d}]*(?:[A-Z{d}](?:[a-z{d}]+|\\Z))*",
    "kebab": "[a-z][a-z{d}]*(?:-[a-z{d}]+)*",
    "cobol": "[A-Z][A-Z{d}]*(?:-[A-Z{d}]+)*",
    "snake": "[a-z][a-z{d}]*(?:_[a-z{d}]+)*",
    "macro": "[A-Z][A-Z{d}]*(?:_[A-Z{d}]+)*",
}


def casing_pattern(options: Mapping[str, Any]) -> re.Pattern[str]:
    """The whole-string pattern a ``casing`` option set accepts."""
    word = _CASES[options["type"]].replace("{d}", "" if options.get("disallowDigits") else "0-9")
    separator = options.get("separator")
    if separator is None:
        return re.compile(f"^{word}\\Z")
    sep = "[" + re.escape(separator["char"]) + "]"
    lead = sep + "?" if separator.get("allowLeading") is True else ""
    return re.compile(f"^{lead}{word}(?:{sep}{word})*\\Z")


def _casing(value: Any, options: Mapping[str, Any], path: Path) -> list[Result]:
    if not isinstance(value, str) or not value:
        return []
    separator = options.get("separator")
    if (
        separator is not None
        and separator.get("allowLeading") is True
        and value == separator["char"]
    ):
        return []
    if casing_pattern(options).search(value):
        return []
    return [Result(f"must be {options['type']} case")]


def _compare(a: Any, b: Any) -> float:
    """``alphabetical``'s comparison, quirks included: numbers by value, a string that is
    no number before a number-like value only by ``Number()`` (never, as NaN), strings as
    ``localeCompare`` orders them, anything else equal."""
    a_numeric = _is_number(a) or js_number(a) != js_number(a)
    b_numeric = _is_number(b) or js_number(b) == js_number(b)
    if a_numeric and b_numeric:
        difference = js_number(a) - js_number(b)
        if difference != difference:
            return float("nan")
        return min(1.0, max(-1.0, difference))
    if not isinstance(a, str) or not isinstance(b, str):
        return 0
    return _locale_compare(a, b)


def _alphabetical(value: Any, options: Mapping[str, Any] | None, path: Path) -> list[Result]:
    if not isinstance(value, dict | list):
        return []
    items: list[Any] = list(value) if isinstance(value, list) else list(value.keys())
    if len(items) < 2:
        return []
    keyed = options.get("keyedBy") if options else None
    if keyed is not None:
        values: list[Any] = []
        for item in items:
            if not isinstance(item, dict | list):
                return [Result('#{{print("property")}}must be an object')]
            values.append(item.get(keyed, UNDEFINED) if isinstance(item, dict) else UNDEFINED)
        items = values
    if not all(isinstance(i, str) or _is_number(i) for i in items):
        return [Result('#{{print("property")}}must be one of the allowed types: number, string')]
    for index in range(len(items) - 1):
        if _compare(items[index], items[index + 1]) >= 1:
            if keyed is not None:
                return [Result("properties must follow the alphabetical order")]
            at: str | int = index if isinstance(value, list) else items[index]
            return [
                Result(
                    f"{print_value(items[index])} must be placed after "
                    f"{print_value(items[index + 1])}",
                    (*path, at),
                )
            ]
    return []


def _present(value: Any, options: Mapping[str, Any]) -> list[str] | None:
    if not isinstance(value, dict):
        return None
    names: list[str] = options["properties"]
    return [key for key in value if key in names]


def _none_of(names: list[str]) -> Result:
    if len(names) > 4:
        shown = '" or "'.join(names[:3])
        return Result(
            f'At least one of "{shown}" or {len(names) - 3} other properties must be defined'
        )
    return Result('At least one of "' + '" or "'.join(names) + '" must be defined')


def _xor(value: Any, options: Mapping[str, Any], path: Path) -> list[Result]:
    present = _present(value, options)
    if present is None:
        return []
    if not present:
        return [_none_of(options["properties"])]
    if len(present) > 1:
        return [Result('Just one of "' + '" and "'.join(present) + '" must be defined')]
    return []


def _or(value: Any, options: Mapping[str, Any], path: Path) -> list[Result]:
    present = _present(value, options)
    if present is None or present:
        return []
    return [_none_of(options["properties"])]


#: ``dialect`` -> the validator class's name in ``jsonschema``.
_DIALECTS: Final = {
    "draft4": "Draft4Validator",
    "draft6": "Draft6Validator",
    "draft7": "Draft7Validator",
    "draft2019-09": "Draft201909Validator",
    "draft2020-12": "Draft202012Validator",
}
#: ``$schema`` (without ``#`` and scheme) -> dialect, as Spectral detects it.
_DECLARED: Final = {
    "json-schema.org/draft-04/schema": "draft4",
    "json-schema.org/draft-06/schema": "draft6",
    "json-schema.org/draft-07/schema": "draft7",
    "json-schema.org/draft/2019-09/schema": "draft2019-09",
    "json-schema.org/draft/2020-12/schema": "draft2020-12",
}


def schema_validator(options: Mapping[str, Any]) -> Any:
    """The validator of a ``schema`` option set: its ``dialect``, else the one its
    ``$schema`` declares, else draft 7 (Spectral's default), with formats asserted.

    Raises:
        OptionsError: the schema is not valid in its dialect.
    """
    import jsonschema
    import jsonschema.exceptions

    schema = options["schema"]
    dialect = options.get("dialect", "auto")
    if dialect == "auto":
        declared = schema.get("$schema")
        key = declared.split("://", 1)[-1].rstrip("#") if isinstance(declared, str) else ""
        dialect = _DECLARED.get(key, "draft7")
    cls = getattr(jsonschema, _DIALECTS[dialect])
    try:
        cls.check_schema(schema)
    except jsonschema.exceptions.SchemaError as exc:
        raise OptionsError(f"its schema is not a valid {dialect} schema: {exc.message}") from None
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _schema(value: Any, options: Mapping[str, Any], path: Path) -> list[Result]:
    import jsonschema.exceptions

    if value is UNDEFINED:
        return [Result('#{{print("property")}}must exist', path)]
    validator = options["_validator"]
    try:
        errors = list(validator.iter_errors(value))
    except jsonschema.exceptions.JsonSchemaException as exc:  # an unresolvable $ref
        return [Result(str(exc).splitlines()[0], path)]
    if not errors:
        return []
    if not options.get("allErrors", False):
        errors = [jsonschema.exceptions.best_match(errors)]
    return [Result(_schema_message(e), (*path, *e.absolute_path)) for e in errors]


def _schema_message(error: Any) -> str:
    where = error.absolute_path
    text = str(error.message)
    name = f'"{where[-1]}" property' if where else "Value"
    if error.validator == "type":
        return f"{name} type must be {error.validator_value}"
    if error.validator == "additionalProperties":
        return text
    return f"{name} {text}" if where else text


@dataclass(frozen=True, slots=True)
class Core:
    """One core function: what it runs, and how its options are checked (``None``: it
    takes none)."""

    run: Function
    options: Callable[[Any], dict[str, Any]] | None = None


def _no_options(name: str) -> Callable[[Any], dict[str, Any]]:
    def check(options: Any) -> dict[str, Any]:
        raise OptionsError(f'"{name}" function does not accept any options')

    return check


def _object(options: Any, name: str, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(options, dict):
        raise OptionsError(f'"{name}" function needs its options as an object')
    extra = [key for key in options if key not in allowed]
    if extra:
        raise OptionsError(f'"{name}" function does not support "{extra[0]}" option')
    return dict(options)


def _check_pattern(options: Any) -> dict[str, Any]:
    checked = _object(options, "pattern", ("match", "notMatch"))
    if not checked:
        raise OptionsError('"pattern" function needs "match" or "notMatch"')
    for key, value in checked.items():
        if not isinstance(value, str):
            raise OptionsError(f'"pattern" function and its "{key}" option take a string')
        try:
            JsRegex.parse(value)
        except JsonPathError as exc:
            raise OptionsError(f'"pattern" function and its "{key}" option: {exc}') from None
    return checked


def _check_enumeration(options: Any) -> dict[str, Any]:
    checked = _object(options, "enumeration", ("values",))
    values = checked.get("values")
    if not isinstance(values, list) or not all(
        v is None or isinstance(v, str | int | float) for v in values
    ):
        raise OptionsError('"enumeration" function needs "values": an array of scalars')
    return checked


def _check_length(options: Any) -> dict[str, Any]:
    checked = _object(options, "length", ("min", "max"))
    if not checked:
        raise OptionsError('"length" function needs "min" or "max"')
    for key, value in checked.items():
        if not _is_number(value):
            raise OptionsError(f'"length" function and its "{key}" option take a number')
    return checked


def _check_casing(options: Any) -> dict[str, Any]:
    checked = _object(options, "casing", ("type", "disallowDigits", "separator"))
    if checked.get("type") not in _CASES:
        raise OptionsError(f'"casing" function needs "type": one of {", ".join(_CASES)}')
    if "disallowDigits" in checked and not isinstance(checked["disallowDigits"], bool):
        raise OptionsError('"casing" function and its "disallowDigits" option take a boolean')
    separator = checked.get("separator")
    if separator is not None:
        if not isinstance(separator, dict) or set(separator) - {"char", "allowLeading"}:
            raise OptionsError('"casing" function\'s "separator" takes "char" and "allowLeading"')
        char = separator.get("char")
        if not isinstance(char, str) or js_length(char) > 1:
            raise OptionsError('"casing" function\'s "separator.char" takes one character')
        if "allowLeading" in separator and not isinstance(separator["allowLeading"], bool):
            raise OptionsError('"casing" function\'s "separator.allowLeading" takes a boolean')
    return checked


def _check_alphabetical(options: Any) -> dict[str, Any]:
    if options is None:
        return {}
    checked = _object(options, "alphabetical", ("keyedBy",))
    if "keyedBy" in checked and not isinstance(checked["keyedBy"], str):
        raise OptionsError('"alphabetical" function and its "keyedBy" option take a string')
    return checked


def _check_properties(name: str) -> Callable[[Any], dict[str, Any]]:
    def check(options: Any) -> dict[str, Any]:
        checked = _object(options, name, ("properties",))
        names = checked.get("properties")
        if (
            not isinstance(names, list)
            or len(names) < 2
            or not all(isinstance(n, str) for n in names)
        ):
            raise OptionsError(f'"{name}" function needs "properties": two names or more')
        return checked

    return check


def _check_schema(options: Any) -> dict[str, Any]:
    checked = _object(options, "schema", ("schema", "dialect", "allErrors"))
    if not isinstance(checked.get("schema"), dict):
        raise OptionsError('"schema" function needs "schema": a JSON Schema object')
    dialect = checked.get("dialect", "auto")
    if dialect != "auto" and dialect not in _DIALECTS:
        raise OptionsError(
            f'"schema" function and its "dialect" option take auto, {", ".join(_DIALECTS)}'
        )
    if "allErrors" in checked and not isinstance(checked["allErrors"], bool):
        raise OptionsError('"schema" function and its "allErrors" option take a boolean')
    checked["_validator"] = schema_validator(checked)
    return checked


#: Every core function by name.
FUNCTIONS: Final[dict[str, Core]] = {
    "truthy": Core(_truthy),
    "falsy": Core(_falsy),
    "defined": Core(_defined),
    "undefined": Core(_undefined),
    "pattern": Core(_pattern, _check_pattern),
    "enumeration": Core(_enumeration, _check_enumeration),
    "length": Core(_length, _check_length),
    "casing": Core(_casing, _check_casing),
    "alphabetical": Core(_alphabetical, _check_alphabetical),
    "xor": Core(_xor, _check_properties("xor")),
    "or": Core(_or, _check_properties("or")),
    "schema": Core(_schema, _check_schema),
}


def check_options(name: str, options: Any) -> Any:
    """The options of function ``name`` as it will run with them.

    Raises:
        OptionsError: options it does not take, or a value it cannot use.
    """
    core = FUNCTIONS[name]
    if core.options is None:
        if options is not None:
            _no_options(name)(options)
        return None
    if options is None and name != "alphabetical":
        raise OptionsError(f'"{name}" function needs functionOptions')
    return core.options(options)


__all__ = [
    "FUNCTIONS",
    "UNDEFINED",
    "OptionsError",
    "Result",
    "check_options",
    "collation_key",
    "print_value",
    "truthy",
]
