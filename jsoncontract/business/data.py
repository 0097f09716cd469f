"""Reference data for business rules: CSV, JSON and YAML files, and SQLite queries.

Each dataset is loaded once, when the rules are loaded, and then only looked up. A dataset
is either a **set** of values (``self.currency in data.currencies``) or a **table** of rows
keyed by one column (``data.orders.get(self.order_id).status``). Both keep a hash index, so
"does this order id exist" costs one dictionary lookup however large the set is.

Specification (a table in the rules file or the config, paths relative to that file):

=====================  ========================================================================
``csv = "f.csv"``      header row required; ``key`` makes a table keyed by that column,
                       ``column`` makes a set of that column's values (one-column files need
                       neither). Cells are strings.
``json = "f.json"``    an array of scalars (a set), an object (a table keyed by member name),
                       or an array of objects with ``key`` (a table).
``yaml = "f.yaml"``    the same, written in YAML.
``sqlite = "f.db"``    with ``query``: a read-only query; one column makes a set, more than one
                       need ``key`` and make a table.
``values = [...]``     the set written inline.
=====================  ========================================================================
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from jsoncontract._files import inside_project
from jsoncontract.errors import ConfigError

#: Scalar JSON types a dataset may hold as keys or set members.
_SCALARS: Final = (str, int, float)
_SCALAR_TYPES: Final = frozenset(_SCALARS)


@dataclass(slots=True)
class Dataset:
    """One loaded dataset.

    ``keys`` is the hash index (set members, or the key of every row); ``rows`` maps a key to
    its row for tables and is ``None`` for sets. ``origin`` says where it came from, for
    messages. ``columns`` names the members every row has, when the source says (a CSV
    header, a query's columns); ``None`` when rows may differ (JSON).
    """

    name: str
    keys: frozenset[Any]
    rows: dict[Any, dict[str, Any]] | None
    origin: str
    _value: Any = field(default=None, repr=False)
    columns: tuple[str, ...] | None = None
    text_cells: bool = False  # every cell is a string (CSV)
    key_kinds: frozenset[type] | None = None  # the Python types of the keys, as loaded
    longest_key: int | None = None  # the longest key, when the keys are strings
    typed: Any = field(default=None, repr=False)  # the rules' type of it, once read

    @property
    def kind(self) -> str:
        """``set`` or ``table``."""
        return "set" if self.rows is None else "table"

    def __len__(self) -> int:
        return len(self.keys)

    def has(self, key: Any) -> bool:
        """Whether ``key`` is a member (a set) or the key of a row (a table)."""
        if isinstance(key, bool):  # CEL never equates true with 1
            return False
        return key in self.keys

    def get(self, key: Any) -> Any:
        """The row keyed by ``key`` (tables), ``key`` itself (sets), or ``None``."""
        if not self.has(key):
            return None
        return key if self.rows is None else self.rows[key]

    def value(self) -> Any:
        """The dataset as one JSON value: a sorted list (sets) or an object of rows (tables).

        Built once and cached; an expression that uses ``data.NAME`` whole receives it.
        """
        if self._value is None:
            if self.rows is None:
                self._value = sorted(self.keys, key=lambda v: (type(v).__name__, v))
            else:
                self._value = dict(self.rows)
        return self._value


def load_dataset(name: str, spec: Mapping[str, Any], *, base: Path, origin: str) -> Dataset:
    """Load one dataset from its specification.

    Arguments:
        name: the name expressions use (``data.<name>``).
        spec: the table from the rules file or config (already checked by its schema).
        base: the directory relative paths start from.
        origin: where the specification is (``file:line``): the origin of an inline set (a
            dataset read from a file has the file's path). Errors carry no place: the
            caller puts them at the declaration.

    Raises:
        ConfigError: the file is missing or unreadable, or its content does not fit.
    """
    source = next((s for s in _OPTIONS if s in spec), None)
    if source is None:
        raise ConfigError(f"dataset {name!r} names no source (csv, json, yaml, sqlite or values)")
    unused = [k for k in spec if k not in _OPTIONS[source] and k not in (source, "description")]
    if unused:
        raise ConfigError(
            f"dataset {name!r}: {unused[0]} = does not apply to a {source} dataset "
            "(csv takes key or column, json and yaml take key, sqlite takes query and key)"
        )
    if "key" in spec and "column" in spec:
        raise ConfigError(
            f"dataset {name!r}: give key = (rows keyed by that column) or column = (a set "
            "of its values), not both"
        )
    key = spec.get("key")
    if source == "values":
        members = list(spec["values"])
        return Dataset(name, frozenset(members), None, origin, **_key_facts(members))
    if not inside_project(base, str(spec[source])):
        raise ConfigError(
            f"dataset {name!r}: {source} = {spec[source]!r} is outside the project of its "
            "rules file; name a file by a relative path that stays in the project (copy the "
            "data in, or keep the rules file beside it)"
        )
    path = base / spec[source]
    if source == "csv":
        return _from_csv(name, path, key=key, column=spec.get("column"))
    if source in ("json", "yaml"):
        return _from_json(name, path, key=key, yaml=source == "yaml")
    return _from_sqlite(name, path, query=spec["query"], key=key)


#: The options each source takes (besides ``description``).
_OPTIONS: Final = {
    "values": (),
    "csv": ("key", "column"),
    "json": ("key",),
    "yaml": ("key",),
    "sqlite": ("query", "key"),
}


def _error(name: str, what: str, path: Path | None) -> ConfigError:
    where = f": {path}" if path is not None else ""
    return ConfigError(f"dataset {name!r}: {what}{where}")


def _read_text(name: str, path: Path) -> str:
    from jsoncontract._files import MAX_DOCUMENT_BYTES

    try:
        with path.open("rb") as stream:  # a device (/dev/zero) is read no further than this
            raw = stream.read(MAX_DOCUMENT_BYTES + 1)
    except FileNotFoundError:
        raise _error(name, "file not found", path) from None
    except OSError as exc:
        raise _error(name, f"cannot read: {exc.strerror or exc}", path) from None
    if len(raw) > MAX_DOCUMENT_BYTES:
        raise _error(name, f"over the {MAX_DOCUMENT_BYTES // 2**20} MiB limit", path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _error(name, f"not UTF-8 text (byte {exc.start})", path) from None


def _scalar(value: Any) -> bool:
    """A value a dataset may hold as a set member or a row key: a string or a number."""
    return isinstance(value, _SCALARS) and not isinstance(value, bool)


def _key_facts(keys: list[Any]) -> dict[str, Any]:
    """The key types and, for string keys, the longest key (C-level passes over a list)."""
    kinds = frozenset(map(type, keys))
    longest = None
    if kinds <= {str}:
        longest = max(map(len, keys), default=0)
    elif kinds <= {str, type(None)}:  # a CSV row short of that cell
        longest = max(map(len, filter(None, keys)), default=0)
    return {"key_kinds": kinds, "longest_key": longest}


def _from_csv(name: str, path: Path, *, key: str | None, column: str | None) -> Dataset:
    text = _read_text(name, path)
    try:
        reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
        header = reader.fieldnames
        if not header:
            raise _error(name, "the CSV file is empty (a header row is required)", path)
        wanted = key or column
        if wanted is None and len(header) > 1:
            raise _error(
                name,
                f"the CSV file has {len(header)} columns ({', '.join(header)}): say which "
                "one with key = (rows keyed by it) or column = (a set of its values)",
                path,
            )
        wanted = wanted or header[0]
        if wanted not in header:
            raise _error(name, f"no column {wanted!r} (columns: {', '.join(header)})", path)
        if key is None:
            members = [row[wanted] for row in reader]
            return Dataset(name, frozenset(members), None, f"{path}", **_key_facts(members))
        rows: dict[Any, dict[str, Any]] = {}
        for row in reader:
            if None in row:
                raise _error(name, f"line {reader.line_num}: more cells than header columns", path)
            rows.setdefault(row[key], dict(row))
    except csv.Error as exc:
        raise _error(name, f"not valid CSV: {exc}", path) from None
    return Dataset(
        name,
        frozenset(rows),
        rows,
        f"{path}",
        columns=tuple(header),
        text_cells=True,
        **_key_facts(list(rows)),
    )


def _from_json(name: str, path: Path, *, key: str | None, yaml: bool = False) -> Dataset:
    import orjson

    text = _read_text(name, path)
    if yaml:
        from jsoncontract._yaml import load_yaml
        from jsoncontract.errors import InputError

        try:
            documents = load_yaml(text.encode("utf-8"), name=str(path))
        except InputError as exc:
            where = f" (line {exc.line}, column {exc.column})" if exc.line else ""
            raise _error(name, exc.message + where, path) from None
        if len(documents) != 1:
            raise _error(name, f"holds {len(documents)} YAML documents; one was expected", path)
        value = documents[0].value
    else:
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise _error(name, f"not valid JSON: {exc}", path) from None
    if isinstance(value, dict):
        if key is not None:
            raise _error(name, "key = applies to an array of objects; this file is an object", path)
        rows = {k: v if isinstance(v, dict) else {"value": v} for k, v in value.items()}
        return Dataset(name, frozenset(rows), rows, f"{path}", **_key_facts(list(rows)))
    if not isinstance(value, list):
        raise _error(name, "expected an array (a set or rows) or an object (rows by key)", path)
    if key is None:
        facts = _key_facts(value)
        if not facts["key_kinds"] <= _SCALAR_TYPES:
            raise _error(
                name,
                "a set must hold strings or numbers; for an array of objects add key = "
                "(the member that identifies a row)",
                path,
            )
        return Dataset(name, frozenset(value), None, f"{path}", **facts)
    table: dict[Any, dict[str, Any]] = {}
    for index, row in enumerate(value):
        if not isinstance(row, dict) or key not in row:
            raise _error(name, f"item {index} is not an object with {key!r}", path)
        if not _scalar(row[key]):
            raise _error(
                name, f"item {index}: its {key!r} must be a string or a number (a row key)", path
            )
        table.setdefault(row[key], row)
    return Dataset(name, frozenset(table), table, f"{path}", **_key_facts(list(table)))


def _from_sqlite(name: str, path: Path, *, query: str, key: str | None) -> Dataset:
    import sqlite3

    if not path.is_file():
        raise _error(name, "database file not found", path)
    try:
        # read-only: a rules file must never change the database it reads
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise _error(name, f"cannot open the database: {exc}", path) from None
    try:
        cursor = connection.execute(query)
        columns = [d[0] for d in cursor.description or ()]
        if not columns:
            raise _error(name, "the query returns no columns", path)
        if key is None:
            if len(columns) > 1:
                raise _error(
                    name,
                    f"the query returns {len(columns)} columns ({', '.join(columns)}): add "
                    "key = (rows keyed by that column) or select one column (a set)",
                    path,
                )
            members = [r[0] for r in cursor]
            return Dataset(name, frozenset(members), None, f"{path}", **_key_facts(members))
        if key not in columns:
            raise _error(name, f"the query has no column {key!r} ({', '.join(columns)})", path)
        at = columns.index(key)
        rows: dict[Any, dict[str, Any]] = {}
        for record in cursor:
            rows.setdefault(record[at], dict(zip(columns, record, strict=True)))
        return Dataset(
            name, frozenset(rows), rows, f"{path}", columns=tuple(columns), **_key_facts(list(rows))
        )
    except sqlite3.Error as exc:
        raise _error(name, f"query failed: {exc}", path) from None
    finally:
        connection.close()
