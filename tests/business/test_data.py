"""Reference data: CSV, JSON, SQLite and inline sets, loaded once, looked up by hash."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from jsoncontract.business.data import load_dataset
from jsoncontract.errors import ConfigError


def load(tmp_path: Path, name: str, content: str | bytes, **spec: Any) -> Any:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    kind = name.rsplit(".", 1)[1]
    return load_dataset("d", {kind: name, **spec}, base=tmp_path, origin="rules.toml:1")


def test_csv_table_and_sets(tmp_path: Path) -> None:
    table = load(tmp_path, "o.csv", "order_id,status\nORD-1,open\nORD-2,shipped\n", key="order_id")
    assert table.kind == "table" and len(table) == 2
    assert table.has("ORD-1") and not table.has("ORD-3")
    assert table.get("ORD-2") == {"order_id": "ORD-2", "status": "shipped"}
    assert table.get("ORD-3") is None
    column = load(tmp_path, "o2.csv", "order_id,status\nORD-1,open\n", column="status")
    assert column.kind == "set" and column.has("open")
    single = load(tmp_path, "c.csv", "\ufeffcode\nEUR\nUSD\n")
    assert single.has("EUR") and single.value() == ["EUR", "USD"]


@pytest.mark.parametrize(
    ("content", "spec", "message"),
    [
        ("a,b\n1,2\n", {}, "the CSV file has 2 columns (a, b): say which one"),
        ("a,b\n1,2\n", {"key": "c"}, "no column 'c' (columns: a, b)"),
        ("", {}, "the CSV file is empty"),
        ('id,s\n"x,1\n', {"key": "id"}, "not valid CSV"),
        ("id,s\nx,1,extra\n", {"key": "id"}, "line 2: more cells than header columns"),
        (b"id\n\xff\n", {}, "not UTF-8"),
    ],
)
def test_csv_errors(
    tmp_path: Path, content: str | bytes, spec: dict[str, Any], message: str
) -> None:
    with pytest.raises(ConfigError, match="dataset 'd': ") as caught:
        load(tmp_path, "bad.csv", content, **spec)
    assert message in caught.value.message


def test_json_shapes(tmp_path: Path) -> None:
    assert load(tmp_path, "a.json", '["EUR", "USD", 3]').has(3)
    rows = load(tmp_path, "b.json", '{"LIS-1": {"city": "Lisbon"}, "X": 1}')
    assert rows.get("LIS-1") == {"city": "Lisbon"} and rows.get("X") == {"value": 1}
    keyed = load(tmp_path, "c.json", '[{"code": "LIS-1", "city": "Lisbon"}]', key="code")
    assert keyed.get("LIS-1")["city"] == "Lisbon"


def test_yaml_shapes(tmp_path: Path) -> None:
    assert load(tmp_path, "a.yaml", "- EUR\n- USD\n- 3\n").has(3)
    rows = load(tmp_path, "b.yaml", "LIS-1:\n  city: Lisbon\n  opens: 2025-01-01\n")
    assert rows.get("LIS-1") == {"city": "Lisbon", "opens": "2025-01-01"}  # dates stay text
    keyed = load(tmp_path, "c.yaml", "- {code: LIS-1, city: Lisbon}\n", key="code")
    assert keyed.get("LIS-1")["city"] == "Lisbon"
    with pytest.raises(ConfigError, match=r"not YAML: .* \(line 2, column 1\)"):
        load(tmp_path, "d.yaml", "- [1,\n")


@pytest.mark.parametrize(
    ("content", "spec", "message"),
    [
        ("[1,", {}, "not valid JSON"),
        ("42", {}, "expected an array"),
        ('[{"a": 1}]', {}, "a set must hold strings or numbers"),
        ("[true]", {}, "a set must hold strings or numbers"),
        ('[{"a": 1}]', {"key": "code"}, "item 0 is not an object with 'code'"),
        ('{"a": 1}', {"key": "code"}, "key = applies to an array of objects"),
        ('[{"code": [1]}]', {"key": "code"}, "item 0: its 'code' must be a string or a number"),
        ('[{"code": {}}]', {"key": "code"}, "item 0: its 'code' must be a string or a number"),
        ('[{"code": true}]', {"key": "code"}, "item 0: its 'code' must be a string or a number"),
        ('[{"code": null}]', {"key": "code"}, "item 0: its 'code' must be a string or a number"),
    ],
)
def test_json_errors(tmp_path: Path, content: str, spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(tmp_path, "bad.json", content, **spec)
    assert message in caught.value.message


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"values": ["a"], "key": "id"}, "key = does not apply to a values dataset"),
        ({"json": "x.json", "column": "c"}, "column = does not apply to a json dataset"),
        ({"csv": "x.csv", "query": "select 1"}, "query = does not apply to a csv dataset"),
        ({"csv": "x.csv", "key": "a", "column": "b"}, "give key = (rows keyed"),
    ],
)
def test_options_that_do_not_apply(tmp_path: Path, spec: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_dataset("d", spec, base=tmp_path, origin="x")
    assert message in caught.value.message


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="file not found"):
        load_dataset("d", {"json": "nope.json"}, base=tmp_path, origin="x")


def make_db(path: Path) -> None:
    connection = sqlite3.connect(path)
    connection.execute("create table warehouses (code text, city text)")
    connection.executemany(
        "insert into warehouses values (?, ?)", [("LIS-1", "Lisbon"), ("MAD-2", "Madrid")]
    )
    connection.commit()
    connection.close()


def test_sqlite_set_and_table(tmp_path: Path) -> None:
    make_db(tmp_path / "ref.db")
    codes = load_dataset(
        "w", {"sqlite": "ref.db", "query": "select code from warehouses"}, base=tmp_path, origin="x"
    )
    assert codes.kind == "set" and codes.has("LIS-1")
    rows = load_dataset(
        "w",
        {"sqlite": "ref.db", "query": "select code, city from warehouses", "key": "code"},
        base=tmp_path,
        origin="x",
    )
    assert rows.get("MAD-2") == {"code": "MAD-2", "city": "Madrid"}


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"sqlite": "nope.db", "query": "select 1"}, "database file not found"),
        ({"sqlite": "ref.db", "query": "select nope from warehouses"}, "query failed"),
        ({"sqlite": "ref.db", "query": "select code, city from warehouses"}, "returns 2 columns"),
        (
            {"sqlite": "ref.db", "query": "select code from warehouses", "key": "id"},
            "no column 'id'",
        ),
        ({"sqlite": "ref.db", "query": "delete from warehouses"}, "query failed"),
    ],
)
def test_sqlite_errors(tmp_path: Path, spec: dict[str, Any], message: str) -> None:
    make_db(tmp_path / "ref.db")
    with pytest.raises(ConfigError) as caught:
        load_dataset("w", spec, base=tmp_path, origin="x")
    assert message in caught.value.message


def test_a_large_set_is_a_hash_lookup(tmp_path: Path) -> None:
    ids = "\n".join(f"ORD-{i:07d}" for i in range(200_000))
    orders = load(tmp_path, "big.csv", "order_id\n" + ids + "\n")
    start = time.perf_counter()
    for i in range(10_000):
        orders.has(f"ORD-{i:07d}")
    assert (time.perf_counter() - start) / 10_000 < 50e-6
    assert not orders.has(True)  # CEL never equates true with 1


def test_key_types_and_longest_key_are_recorded(tmp_path: Path) -> None:
    csv_set = load(tmp_path, "c.csv", "code\nEUR\nUSDX\n")
    assert (csv_set.key_kinds, csv_set.longest_key) == (frozenset({str}), 4)
    table = load(tmp_path, "o.csv", "order_id,status\nORD-1,open\n", key="order_id")
    assert table.columns == ("order_id", "status") and table.text_cells
    numbers = load(tmp_path, "n.json", "[1, 2.5, 30]")
    assert numbers.key_kinds == frozenset({int, float}) and numbers.longest_key is None
    rows = load(tmp_path, "r.json", '[{"id": 7, "x": 1}]', key="id")
    assert rows.key_kinds == frozenset({int}) and rows.columns is None
    inline = load_dataset("d", {"values": ["a", "bcd"]}, base=tmp_path, origin="x")
    assert inline.longest_key == 3
    with pytest.raises(ConfigError, match="a set must hold strings or numbers"):
        load(tmp_path, "b.json", "[true, 1]")
