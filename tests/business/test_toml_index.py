"""Line and column of tables and keys in a TOML text."""

from __future__ import annotations

from jsoncontract.business._toml import TomlIndex

TEXT = '''version = 1
# a comment = not a key
[data.orders]
csv = "orders.csv"   # trailing comment

[[tools."search.Invoices"]]
id = "a"
rule = """
  x = 1
"""
[[tools."search.Invoices"]]
id = "b"
values = [
  "k = v",
]
rule = 'true'
'''


def test_positions() -> None:
    index = TomlIndex(TEXT)
    assert index.position(("version",)) == (1, 11)
    assert index.line(("data",)) == 3
    assert index.line(("data", "orders")) == 3
    assert index.position(("data", "orders", "csv")) == (4, 7)
    assert index.line(("tools", "search.Invoices", 0)) == 6
    assert index.position(("tools", "search.Invoices", 0, "rule")) == (8, 8)
    assert index.line(("tools", "search.Invoices", 1)) == 11
    assert index.position(("tools", "search.Invoices", 1, "rule")) == (16, 8)
    assert index.line(("tools", "search.Invoices", 1, "values", 0)) == 13
    assert index.position(("nothing",)) is None
