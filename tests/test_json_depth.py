"""Deeply nested documents load exactly, or are refused with a clear diagnosis."""

from __future__ import annotations

import pytest

from jsoncontract._json import NotJSON, load


def _nested(levels: int) -> str:
    return '{"type":"object","properties":{"a":' * levels + "{}" + "}}" * levels


@pytest.mark.parametrize("levels", [130, 300])
def test_deeper_than_orjson_writes_still_loads(levels: int) -> None:
    # orjson reads 1024 levels but writes only 255: the duplicate-key probe must not crash
    value, anomalies = load(_nested(levels))
    assert anomalies == ()
    depth = 0
    while value:
        value = value["properties"]["a"]
        depth += 1
    assert depth == levels


def test_beyond_the_parser_limit_is_not_json() -> None:
    with pytest.raises(NotJSON) as caught:
        load(_nested(10_000))
    assert caught.value.diagnosis.code == "parse.too_deep"
