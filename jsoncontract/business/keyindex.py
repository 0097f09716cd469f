"""A map of 64-bit keys to integers that keeps a bounded part of itself in memory.

The idempotency checks remember every key of a run. A day of production traces holds tens of
millions of them, more than a dict should hold: :class:`KeyIndex` keeps up to ``memory_bytes``
worth of entries in a dict and, past that, moves them in one sorted batch into an SQLite file
in the system's temporary directory (removed by :meth:`KeyIndex.close`, or when the process
ends). A look-up that misses memory then asks the file. Entries are never replaced: the first
value stored under a key is the one kept, wherever it lives.

>>> index = KeyIndex(memory_bytes=1_000)
>>> index.add(7, 70), index.add(7, 71), index.get(7), index.get(8)
(True, False, 70, None)
>>> for key in range(100):
...     _ = index.add(1_000 + key, key)
>>> index.spilled, index.get(1_005), len(index)
(True, 5, 101)
>>> index.close()
"""

from __future__ import annotations

import sqlite3
import tempfile
from pathlib import Path
from typing import Final

#: What one entry of a ``dict[int, int]`` costs in memory, on average, with 64-bit keys and
#: values of up to 128 bits (measured: the dict's slot and index, and two int objects).
ENTRY_BYTES: Final = 132
#: The default memory budget of one index.
DEFAULT_MEMORY_BYTES: Final = 64 * 1024 * 1024
_SIGN: Final = 1 << 63
_WORD: Final = 1 << 64
_MASK: Final = _WORD - 1


def _signed(value: int) -> int:
    """A 64-bit unsigned integer as SQLite's signed INTEGER."""
    return value - _WORD if value >= _SIGN else value


class KeyIndex:
    """Integers under 64-bit keys, at most ``memory_bytes`` of them in memory.

    Values are non-negative integers of up to 128 bits (stored on disk as two words).
    """

    __slots__ = ("_db", "_dir", "_limit", "_memory", "_spilled_count", "memory_bytes")

    def __init__(self, memory_bytes: int = DEFAULT_MEMORY_BYTES) -> None:
        self.memory_bytes = memory_bytes
        self._limit = max(1, memory_bytes // ENTRY_BYTES)
        self._memory: dict[int, int] = {}
        self._db: sqlite3.Connection | None = None
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        self._spilled_count = 0

    @property
    def spilled(self) -> bool:
        """Whether entries have moved to disk."""
        return self._db is not None

    def __len__(self) -> int:
        return len(self._memory) + self._spilled_count

    def get(self, key: int) -> int | None:
        """The value stored under ``key``, or ``None``."""
        value = self._memory.get(key)
        if value is not None or self._db is None:
            return value
        row = self._db.execute("SELECT hi, lo FROM k WHERE key = ?", (_signed(key),)).fetchone()
        if row is None:
            return None
        hi: int = row[0]
        lo: int = row[1]
        return ((hi & _MASK) << 64) | (lo & _MASK)

    def add(self, key: int, value: int) -> bool:
        """Store ``value`` under ``key`` unless the key holds one; whether it was stored."""
        memory = self._memory
        if key in memory or (self._db is not None and self.get(key) is not None):
            return False
        memory[key] = value
        if len(memory) >= self._limit:
            self._spill()
        return True

    def _spill(self) -> None:
        """Move every entry in memory to the file (sorted: the B-tree fills in order)."""
        if self._db is None:
            self._dir = tempfile.TemporaryDirectory(prefix="jsoncontract-index-")
            path = Path(self._dir.name) / "keys.sqlite"
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            # a scratch file: nothing to recover after a crash, so no journal and no syncs;
            # SQLite's page cache is bounded (8 MiB) whatever the size of the file
            self._db.executescript(
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; "
                "PRAGMA cache_size = -8192; PRAGMA temp_store = FILE; "
                "CREATE TABLE k (key INTEGER PRIMARY KEY, hi INTEGER, lo INTEGER);"
            )
        rows = sorted(
            (_signed(key), _signed(value >> 64), _signed(value & _MASK))
            for key, value in self._memory.items()
        )
        db = self._db
        db.execute("BEGIN")
        db.executemany("INSERT INTO k VALUES (?, ?, ?)", rows)
        db.execute("COMMIT")
        self._spilled_count += len(rows)
        self._memory = {}

    def close(self) -> None:
        """Drop every entry and remove the file."""
        self._memory = {}
        self._spilled_count = 0
        if self._db is not None:
            self._db.close()
            self._db = None
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None
