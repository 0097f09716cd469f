"""A result as its entry of the JSON report, encoded where the result is made: a worker
process or a Spark task hands back bytes, not objects, and ``check --format json`` writes
them as they are."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from jsoncontract._json import dumps_report
from jsoncontract.model import shown_name

if TYPE_CHECKING:
    from jsoncontract.model import CallResult, PassedCall


def encode_result(result: CallResult) -> bytes:
    """One result's report entry: ``result.to_dict()`` serialised."""
    entry = result.to_dict()
    try:
        return orjson.dumps(entry)
    except orjson.JSONEncodeError:  # text UTF-8 cannot hold, from the capture
        return dumps_report(entry)


class PassedEntries:
    """The report entry of a passing call, ``CallResult.to_dict()`` serialised, put
    together from bytes kept per tool, dialect and file: only the call id and the line
    change from one call to the next."""

    __slots__ = ("_heads", "_middles")

    def __init__(self) -> None:
        self._heads: dict[str, tuple[str, bytes]] = {}
        self._middles: dict[str, tuple[str, bytes]] = {}

    def entry(self, passed: PassedCall) -> bytes:
        """The entry (no separator, no line break)."""
        tool, hop, dialect, file = passed.tool, passed.hop, passed.dialect, passed.file
        head = self._heads.get(tool)
        if head is None or head[0] is not hop:
            head = self._heads[tool] = (
                hop,
                b'{"ok":true,"tool":' + orjson.dumps(tool)
                + b',"hop":' + orjson.dumps(hop._value_) + b',"call_id":',
            )  # fmt: skip
        middle = self._middles.get(file)
        if middle is None or middle[0] != dialect:
            middle = self._middles[file] = (
                dialect,
                b',"dialect":' + orjson.dumps(str(dialect))
                + b',"stage":null,"source":{"file":' + dumps_report(shown_name(file))
                + b',"line":',
            )  # fmt: skip
        return b'%s%s%s%d},"findings":[]}' % (
            head[1],
            orjson.dumps(passed.call_id),
            middle[1],
            passed.line,
        )
