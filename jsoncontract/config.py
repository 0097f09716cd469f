"""Project configuration: ``jsoncontract.toml``, or ``[tool.jsoncontract]`` in ``pyproject.toml``.

The file is found by walking up from the working directory; the first directory holding
either file wins (``jsoncontract.toml`` first). Paths inside it are relative to the file.
The whole table is validated against the schema shipped in ``jsoncontract/schemas/config``
before anything uses it, so a misspelt key fails at once, with the closest valid key.
Command-line flags override the file.
"""

from __future__ import annotations

import tomllib
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

import orjson

from jsoncontract._spelling import did_you_mean
from jsoncontract.errors import ConfigError, InputError
from jsoncontract.settings import Config, read_config

CONFIG_NAME: Final = "jsoncontract.toml"
PYPROJECT: Final = "pyproject.toml"


def find_config(start: Path | None = None) -> Path | None:
    """The nearest ``jsoncontract.toml`` (or ``pyproject.toml`` with a
    ``[tool.jsoncontract]`` table) in ``start`` or its parents."""
    here = (start or Path.cwd()).resolve()
    for directory in (here, *here.parents):
        candidate = directory / CONFIG_NAME
        if candidate.is_file():
            return candidate
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _has_table(pyproject):
            return pyproject
    return None


def _has_table(pyproject: Path) -> bool:
    """Whether a ``pyproject.toml`` holds a ``[tool.jsoncontract]`` table (one that is not
    valid TOML counts when it mentions the table, so that loading it says what is wrong)."""
    try:
        text = read_config(pyproject).decode("utf-8")
    except (InputError, UnicodeDecodeError):
        return False
    if "jsoncontract" not in text:  # most files: no need to parse
        return False
    try:
        return _table(tomllib.loads(text)) is not None
    except (tomllib.TOMLDecodeError, RecursionError):
        return "[tool.jsoncontract" in text


def _table(document: dict[str, Any]) -> Any:
    """The ``[tool.jsoncontract]`` table of a ``pyproject.toml`` document, or ``None``."""
    tool = document.get("tool")
    return tool.get("jsoncontract") if isinstance(tool, dict) else None


def load_config(path: Path | str | None = None, *, discover: bool = True) -> Config:
    """Load and validate a configuration.

    Arguments:
        path: an explicit file; otherwise one is searched for (when ``discover``).

    Raises:
        ConfigError: the file cannot be read, is not TOML, or breaks the schema.
    """
    if path is None:
        if not discover:
            return Config()
        found = find_config()
        if found is None:
            return Config()
        path = found
    path = Path(path)
    try:
        raw = read_config(path)
    except InputError as exc:
        raise ConfigError(f"cannot read config: {exc.message}", file=str(path)) from None
    try:
        document = tomllib.loads(raw.decode("utf-8"))
        if path.name == PYPROJECT:
            table = _table(document)
            if table is None:
                raise ConfigError("pyproject.toml has no [tool.jsoncontract] table", file=str(path))
            prefix = "tool.jsoncontract"
        else:
            table = document
            prefix = ""
        validate_config(table, file=str(path), prefix=prefix)
    except UnicodeDecodeError:
        raise ConfigError("config is not UTF-8 text", file=str(path)) from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"not valid TOML: {exc}", file=str(path)) from None
    except RecursionError:
        raise ConfigError("config is nested too deeply to read", file=str(path)) from None
    return Config(path, table)


#: Config keys whose value is a report format, as (section, key) -> the command whose
#: reporter table lists the formats (``[fixtures] test_format`` is the old name of
#: ``[test] format``).
FORMAT_KEYS: Final = {
    ("check", "format"): "check",
    ("diff", "format"): "diff",
    ("lint", "format"): "lint",
    ("test", "format"): "test",
    ("compat", "format"): "compat",
    ("fixtures", "test_format"): "test",
}


@cache
def config_schema() -> dict[str, Any]:
    """The JSON Schema of the configuration, assembled from one file per section.

    The values of keys that name a member of one of the library's tables are not written
    in the files but filled in from the table: a ``format`` key allows the formats of the
    command's reporter table (:data:`FORMAT_KEYS`), ``[check] dialect`` the dialects of the
    capture registry, ``[fixtures] kinds`` the kinds the generator derives.
    """
    from jsoncontract.capture.registry import built_in_names
    from jsoncontract.reporters import formats
    from jsoncontract.suites.kinds import DERIVED_KINDS

    folder = resources.files("jsoncontract") / "schemas" / "config"
    schema: dict[str, Any] = orjson.loads((folder / "_root.json").read_bytes())
    properties = schema.setdefault("properties", {})
    for entry in sorted(folder.iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".json") and not entry.name.startswith("_"):
            properties[entry.name.removesuffix(".json")] = orjson.loads(entry.read_bytes())
    for (section, key), command in FORMAT_KEYS.items():
        properties[section]["properties"][key]["enum"] = formats(command)
    properties["check"]["properties"]["dialect"]["enum"] = ["auto", *built_in_names()]
    kinds = properties["fixtures"]["properties"]["kinds"]
    kinds["items"]["enum"] = [kind.value for kind in DERIVED_KINDS]
    schema["additionalProperties"] = False
    return schema


def validate_config(table: dict[str, Any], *, file: str, prefix: str = "") -> None:
    """Check a configuration table against :func:`config_schema`.

    Raises:
        ConfigError: naming the first offending key, with the closest valid key when the
            key is unknown.
    """
    import jsonschema_rs

    schema = config_schema()
    validator = jsonschema_rs.validator_for(schema)
    errors = sorted(validator.iter_errors(table), key=lambda e: len(list(e.instance_path)))
    if not errors:
        return
    error = errors[0]
    where = ".".join(str(t) for t in error.instance_path)
    kind = error.kind.as_dict()
    if error.kind.name == "additionalProperties":
        unexpected = kind.get("unexpected", ["?"])[0]
        node: Any = schema
        for token in error.schema_path:
            if token == "additionalProperties":
                break
            node = node.get(token, {}) if isinstance(node, dict) else {}
        allowed = list(node.get("properties", {})) if isinstance(node, dict) else []
        key = ".".join(p for p in (prefix, where, str(unexpected)) if p)
        guess = did_you_mean(str(unexpected), allowed)
        tip = f"; did you mean {guess!r}?" if guess else f"; known keys: {', '.join(allowed)}"
        raise ConfigError(f"unknown config key {key!r}{tip}", file=file)
    key = ".".join(p for p in (prefix, where) if p) or "(top level)"
    raise ConfigError(f"config key {key!r}: {error.message}", file=file)
