"""``check`` on Apache Spark, for traces that outgrow one machine (``pip install
'jsoncontract[spark]'``).

    >>> from jsoncontract import spark  # doctest: +SKIP
    >>> lines = spark.read_captures(session, ["s3://traces/2026-12-01/"])  # doctest: +SKIP
    >>> report = spark.check(lines, tools=["tools/"])  # doctest: +SKIP
    >>> report.summary.failed, report.results.filter("not ok").count()  # doctest: +SKIP

How it runs:

1. :func:`read_captures` reads JSONL captures (plain or gzip) into a DataFrame of lines:
   ``file_index``, ``file``, ``line`` (1-based, per file) and ``value`` (the line's bytes).
2. :func:`check` checks each partition with ``mapPartitions``: the same reader, fast lane,
   gates and business rules as a local run, loaded on each executor from the same tool,
   rules and config files (they must be readable there: a shared filesystem, or local
   mode). Each call's result is kept as its JSON report entry; a failing one also as its
   pickled :class:`~jsoncontract.model.CallResult`.
3. The idempotency checks across the run are Spark aggregations, not work on the driver:
   each write call's :class:`~jsoncontract.business.idempotency.KeyRecord` becomes a row,
   windows over (hop, tool, key) and (hop, tool, arguments) ordered by position find the
   first use of each key and write, and each later call is judged against that first one
   by the same tracker code a local run uses; the findings are joined back to their calls.
4. The summary is counted per partition and merged on the driver (one small object per
   partition).

The results are those of a local run over the same files (a test compares them), with one
difference a local run does not have: a partition is read on its own, so a streamed call
whose chunks straddle two partitions (rare: streams are usually logged as one line) is read
as two incomplete calls; :attr:`SparkReport.carried` counts the partitions that ended with
something open, and ``check --spark`` warns when it is not zero.
"""

from __future__ import annotations

import pickle
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._files import compression_of, expand
from jsoncontract.capture.reader import CAPTURE_SUFFIXES, JSONL_SUFFIXES
from jsoncontract.errors import UsageError
from jsoncontract.model import CallResult, Hop, PassedCall, Summary

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from jsoncontract.business.idempotency import KeyRecord

#: The columns of the results DataFrame, in order.
RESULT_COLUMNS: Final = ("file", "line", "ok", "stage", "tool", "call_id", "result")
#: The order of a local run: file, the first line of the partition's run of the file, and
#: the place of the result in that run.
_ORDER: Final = ("file_index", "part", "n")
_HOPS: Final = {h._value_: h for h in Hop}
_SIGN: Final = 1 << 63


def _spark() -> Any:
    try:
        import pyspark
    except ImportError:
        raise UsageError(
            "Apache Spark support needs pyspark: pip install 'jsoncontract[spark]'"
        ) from None
    return pyspark


@dataclass(frozen=True, slots=True)
class Recipe:
    """What an executor loads the run's tools, rules and reader from (paths, so that it
    pickles small; each executor loads them once)."""

    tools: tuple[str, ...]
    rules: tuple[str, ...] | None = None
    config: str | None = None
    context: str | None = None
    tool: str | None = None
    dialect: str | None = None
    show_values: bool = False


@dataclass(slots=True)
class SparkReport:
    """What :func:`check` returns.

    ``results``: one row per call (``file``, ``line``, ``ok``, ``stage``, ``tool``,
    ``call_id``, and ``result``: the call's entry of the JSON report, as a string).
    ``summary``: the counts of the whole run, as a local run reports them. ``carried``:
    partitions that ended inside a stream.
    """

    results: DataFrame
    summary: Summary
    carried: int
    _rows: DataFrame

    def iter_results(self) -> Iterator[CallResult | PassedCall]:
        """Every result in input order, streamed to the driver a partition at a time (for
        writing a report)."""
        ordered = self._rows.orderBy(*_ORDER)
        for row in ordered.select("file", "line", "entry", "pickled").toLocalIterator():
            if row["pickled"] is not None:
                yield pickle.loads(row["pickled"])
            else:
                import orjson

                entry = orjson.loads(row["entry"])
                yield PassedCall(
                    entry["tool"],
                    _HOPS[entry["hop"]],
                    entry["call_id"],
                    entry["dialect"],
                    row["file"],
                    row["line"],
                    "",
                    None,
                )


def session(master: str, app: str = "jsoncontract") -> SparkSession:
    """A Spark session on ``master`` (``local[2]``, ``spark://host:7077``...), quiet: only
    Spark's errors reach stderr."""
    _spark()
    from pyspark.sql import SparkSession

    built = (
        SparkSession.builder.master(master)
        .appName(app)
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    built.sparkContext.setLogLevel("ERROR")
    return built


def active_session() -> SparkSession | None:
    """The Spark session already running in this process, if any (a caller that did not
    start it must not stop it)."""
    _spark()
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


def read_captures(session: SparkSession, paths: Iterable[str | Path]) -> DataFrame:
    """The lines of JSONL captures (``.jsonl``, ``.ndjson``, ``.jsonlines``, plain or
    ``.gz``; directories searched) as a DataFrame of ``file_index``, ``file``, ``line``,
    ``value``, in input order.

    Raises:
        UsageError: a file is no JSONL capture, or is compressed with Zstandard (which
            Spark's text reader does not read).
    """
    _spark()
    from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType

    files = [str(p) for p in expand(paths, CAPTURE_SUFFIXES, what="capture")]
    schema = StructType(
        [
            StructField("file_index", LongType(), False),
            StructField("file", StringType(), False),
            StructField("line", LongType(), False),
            StructField("value", BinaryType(), False),
        ]
    )
    context = session.sparkContext
    rdds = []
    for index, name in enumerate(files):
        plain = Path(name).with_suffix("") if compression_of(name) else Path(name)
        if plain.suffix.lower() not in JSONL_SUFFIXES or compression_of(name) == "zstd":
            raise UsageError(
                f"{name}: --spark reads JSON Lines captures, plain or .gz "
                "(decompress .zst first, or check this file without --spark)"
            )
        # the text source keeps each line's bytes as they are (cast to binary: invalid
        # UTF-8 included), split at line feeds only, as a local run splits them
        text = session.read.option("lineSep", "\n").text(str(Path(name).resolve()))
        raw = text.select(text.value.cast("binary")).rdd.map(lambda row: row[0])
        rdds.append(raw.zipWithIndex().map(_numbered(index, name)))
    union = context.union(rdds) if len(rdds) > 1 else rdds[0]
    return session.createDataFrame(union, schema)


def _numbered(index: int, name: str) -> Any:
    """The row of a line of file ``name`` (the ``index``-th), from ``(bytes, 0-based)``."""

    def row(pair: tuple[bytes, int]) -> tuple[int, str, int, bytes]:
        return index, name, pair[1] + 1, bytes(pair[0])

    return row


def check(
    lines: DataFrame,
    *,
    tools: Sequence[str | Path],
    rules: Sequence[str | Path] | None = None,
    config: str | Path | None = None,
    context: str | None = None,
    tool: str | None = None,
    dialect: str | None = None,
    show_values: bool = False,
) -> SparkReport:
    """Check the calls in ``lines`` (a DataFrame of ``file_index``, ``file``, ``line``,
    ``value``, as :func:`read_captures` makes) on Spark.

    Arguments mean what they mean to :func:`jsoncontract.check` and the ``check`` command:
    tool definition files, rules files, a config file, a context (JSON text), the tool of
    bare bodies, a forced dialect, whether to quote sensitive values.
    """
    _spark()
    recipe = Recipe(
        tools=tuple(str(Path(p).resolve()) for p in tools),
        rules=tuple(str(Path(p).resolve()) for p in rules) if rules is not None else None,
        config=str(Path(config).resolve()) if config is not None else None,
        context=context,
        tool=tool,
        dialect=dialect,
        show_values=show_values,
    )
    _Executor.load(recipe)  # fail early, on the driver, with the local error message
    session = lines.sparkSession
    from pyspark.sql import functions as f

    ends = {row[0]: row[1] for row in lines.groupBy("file_index").agg(f.max("line")).collect()}
    carried = session.sparkContext.accumulator(0)
    ordered = lines.select("file_index", "file", "line", "value")
    checked = ordered.rdd.mapPartitions(lambda rows: _check_partition(recipe, ends, carried, rows))
    rows = session.createDataFrame(checked, _row_schema()).cache()
    if rows.filter(f.col("r_digest").isNotNull()).isEmpty():
        final = rows  # no write call: nothing for the checks across the trace to judge
    else:
        joined = rows.join(_idempotency(rows), on=list(_ORDER), how="left")
        merged = joined.rdd.mapPartitions(lambda part: _merge_partition(recipe, part))
        final = session.createDataFrame(merged, _row_schema()).cache()
        rows.unpersist()
    summary = Summary()
    counts = final.select("tool", "pickled").rdd.mapPartitions(_count_partition)
    for part in counts.collect():
        summary.merge(part)
    summary.files = len(ends)
    results = final.select(
        "file",
        "line",
        "ok",
        "stage",
        "tool",
        "call_id",
        f.col("entry").cast("string").alias("result"),
    )
    return SparkReport(results, summary, int(carried.value), final)


# -- executors ----------------------------------------------------------------------------


class _Executor:
    """What one executor process loaded (once) for a recipe."""

    _loaded: dict[Recipe, _Executor] = {}  # noqa: RUF012 - a per-process cache

    def __init__(self, recipe: Recipe) -> None:
        from jsoncontract.business import load_business
        from jsoncontract.business.context import parse_context
        from jsoncontract.capture.reader import CaptureReader
        from jsoncontract.config import load_config
        from jsoncontract.pipeline.checker import Checker
        from jsoncontract.pipeline.fast import build_lane
        from jsoncontract.pipeline.parallel import _DeferredTrace
        from jsoncontract.tools.toolset import ToolSet

        config = load_config(recipe.config, discover=False)
        self.tools = ToolSet.from_paths(recipe.tools, tool_name=recipe.tool)
        self.business = load_business(
            list(recipe.rules) if recipe.rules is not None else None,
            config=config,
            context=parse_context(recipe.context) if recipe.context is not None else None,
            tools=self.tools,
            show_values=recipe.show_values,
        )
        self.deferred = _DeferredTrace(self.business)
        self.checker = Checker(self.tools, business=self.deferred, show_values=recipe.show_values)
        self.reader = CaptureReader(dialect=recipe.dialect, tool=recipe.tool)
        self.lane = build_lane(self.checker, self.reader)

    @classmethod
    def load(cls, recipe: Recipe) -> _Executor:
        loaded = cls._loaded.get(recipe)
        if loaded is None:
            loaded = cls._loaded[recipe] = cls(recipe)
        return loaded


def _row_schema() -> Any:
    from pyspark.sql.types import (
        BinaryType,
        BooleanType,
        IntegerType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    def column(name: str, kind: Any) -> Any:
        return StructField(name, kind, True)

    return StructType(
        [
            column("file_index", LongType()),
            column("file", StringType()),
            column("line", LongType()),
            column("part", LongType()),
            column("n", IntegerType()),
            column("ok", BooleanType()),
            column("stage", StringType()),
            column("tool", StringType()),
            column("call_id", StringType()),
            column("entry", BinaryType()),
            column("pickled", BinaryType()),
            # the call's key record, when it has one
            column("r_hop", StringType()),
            column("r_key_field", StringType()),
            column("r_key", StringType()),
            column("r_digest", LongType()),
            column("r_tag", LongType()),
        ]
    )


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= _SIGN else value


def _unsigned(value: int) -> int:
    return value + (1 << 64) if value < 0 else value


def _check_partition(
    recipe: Recipe, ends: dict[int, int], carried: Any, rows: Iterable[Any]
) -> Iterator[tuple[Any, ...]]:
    """Check the lines of one partition, in order, file by file; ``ends``: each file's last
    line (a run of lines that reaches it ends as the file does)."""
    from jsoncontract.reporters.check_json import PassedEntries, encode_result

    executor = _Executor.load(recipe)
    entries = PassedEntries()
    current: tuple[int, str] | None = None
    batch: list[tuple[int, bytes]] = []

    def flush() -> Iterator[tuple[Any, ...]]:
        assert current is not None
        index, name = current
        last = batch[-1][0] == ends.get(index)
        source = executor.reader.read_lines(name, batch, executor.lane, last=last)
        yield from _rows_of(index, name, batch[0][0], source, executor, entries, encode_result)
        if executor.reader.carried:
            carried.add(1)

    for row in rows:
        key = (row["file_index"], row["file"])
        if key != current:
            if current is not None:
                yield from flush()
            current, batch = key, []
        batch.append((row["line"], bytes(row["value"])))
    if current is not None:
        yield from flush()


def _rows_of(
    index: int,
    name: str,
    part: int,
    source: Iterator[Any],
    executor: _Executor,
    entries: Any,
    encode_result: Any,
) -> Iterator[tuple[Any, ...]]:
    check = executor.checker.check
    deferred = executor.deferred
    from jsoncontract.model import ToolCall

    for n, item in enumerate(source):
        kind = type(item)
        if kind is PassedCall:
            yield (
                index, name, item.line, part, n, True, None, item.tool, item.call_id,
                entries.entry(item), None, None, None, None, None, None,
            )  # fmt: skip
            continue
        result: CallResult = check(item) if kind is ToolCall else item
        record: KeyRecord | None = deferred.record
        deferred.record = None
        yield (
            index,
            name,
            result.call.source.line or 0,
            part,
            n,
            result.stage is None,
            result.stage._value_ if result.stage is not None else None,
            result.call.tool,
            result.call.call_id,
            encode_result(result),
            None
            if result.stage is None and not result.findings and record is None
            else pickle.dumps(result, pickle.HIGHEST_PROTOCOL),
            record.hop if record is not None else None,
            record.key_field if record is not None else None,
            record.key if record is not None else None,
            _signed(record.digest) if record is not None else None,
            _signed(record.call_tag) if record is not None else None,
        )


def _idempotency(rows: DataFrame) -> DataFrame:
    """Each write call's first use of its key (or, key-less, of its arguments) and the
    first key-less write of its tool, found with windows: the rows the idempotency checks
    must judge, with what they are judged against."""
    from pyspark.sql import Window
    from pyspark.sql import functions as f

    records = rows.filter(f.col("r_digest").isNotNull())
    order = list(_ORDER)
    keyed = Window.partitionBy("r_hop", "tool", "r_key").orderBy(*order)
    writes = Window.partitionBy("r_hop", "tool", "r_digest").orderBy(*order)
    by_tool = Window.partitionBy("tool").orderBy(*order)
    keyed_rows = records.filter(f.col("r_key").isNotNull()).select(
        *order,
        f.row_number().over(keyed).alias("nth"),
        f.first("r_digest").over(keyed).alias("first_digest"),
        f.first("r_tag").over(keyed).alias("first_tag"),
        f.first("file").over(keyed).alias("first_file"),
        f.first("line").over(keyed).alias("first_line"),
        f.lit(1).alias("nth_of_tool"),
    )
    keyless = records.filter(f.col("r_key").isNull())
    keyless_rows = keyless.select(
        *order,
        f.row_number().over(writes).alias("nth"),
        f.first("r_digest").over(writes).alias("first_digest"),
        f.first("r_tag").over(writes).alias("first_tag"),
        f.first("file").over(writes).alias("first_file"),
        f.first("line").over(writes).alias("first_line"),
        f.row_number().over(by_tool).alias("nth_of_tool"),
    )
    return keyed_rows.unionByName(keyless_rows)


def _merge_partition(recipe: Recipe, rows: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    """Add the idempotency findings to the calls they belong to (by replaying, for each
    call, the tracker a local run keeps: with the first use of its key or write applied
    before it, that tracker says what the local one says)."""
    from jsoncontract.business.idempotency import IdempotencyTracker, KeyRecord
    from jsoncontract.pipeline.checker import first_failure, locate
    from jsoncontract.reporters.check_json import encode_result

    executor = _Executor.load(recipe)
    tracker = executor.business.tracker
    columns = list(_row_schema().names)
    for row in rows:
        values = tuple(row[c] for c in columns)
        if row["nth"] is None or tracker is None:
            yield values
            continue
        result: CallResult = pickle.loads(row["pickled"])
        contract = executor.tools.get(row["tool"])
        assert contract is not None  # a key record is only made for a known tool
        own = KeyRecord(
            row["r_hop"],
            row["r_key_field"] or "",
            row["r_key"],
            _unsigned(row["r_digest"]),
            _unsigned(row["r_tag"]),
            row["file"],
            row["line"],
        )
        replay = IdempotencyTracker(tracker.settings)
        if row["nth"] > 1:
            first = own._replace(
                digest=_unsigned(row["first_digest"]),
                call_tag=_unsigned(row["first_tag"]),
                file=row["first_file"],
                line=row["first_line"],
            )
            replay.apply(first, contract)
        replay._reported_keyless = {contract.name} if row["nth_of_tool"] > 1 else set()
        found = replay.apply(own, contract)
        replay.close()
        if found:
            findings = result.findings + locate(found, result.call)
            result = CallResult(result.call, findings, first_failure(findings), result.arguments)
        out = list(values)
        out[columns.index("ok")] = result.stage is None
        out[columns.index("stage")] = result.stage._value_ if result.stage is not None else None
        out[columns.index("entry")] = encode_result(result)
        out[columns.index("pickled")] = pickle.dumps(result, pickle.HIGHEST_PROTOCOL)
        yield tuple(out)


def _count_partition(rows: Iterable[Any]) -> Iterator[Summary]:
    summary = Summary()
    for row in rows:
        if row["pickled"] is None:
            summary.add_passed(row["tool"])
        else:
            summary.add(pickle.loads(row["pickled"]))
    yield summary
