"""``check`` on Apache Spark, for traces that outgrow one machine (the ``spark`` extra:
``pip install '.[spark]'`` in a clone of jsoncontract).

    >>> from jsoncontract import spark  # doctest: +SKIP
    >>> lines = spark.read_captures(session, ["traces/2026-12-01/"])  # doctest: +SKIP
    >>> report = spark.check(lines, tools=["tools/"])  # doctest: +SKIP
    >>> report.summary.failed, report.results.filter("not ok").count()  # doctest: +SKIP

How it runs:

1. :func:`read_captures` reads JSONL captures (plain or gzip) into a DataFrame of lines:
   ``file_index``, ``file``, ``line`` (1-based, per file) and ``value`` (the line's bytes).
2. :func:`check` checks each partition with ``mapPartitions``: the same reader, fast lane,
   gates, business rules and checks over the run as a local run, loaded on each executor
   from the same tool, rules and config files (they must be readable there: a shared
   filesystem, or local mode). Each call's result is kept as its JSON report entry; a
   failing one also as its pickled :class:`~jsoncontract.model.CallResult`.
3. Partitions are joined as the workers of ``--jobs`` are
   (:mod:`jsoncontract.pipeline.runner`): the first starts where the run does, every
   other as after a first result window without results; each hands back, besides its
   rows, one small record of what its ledger did with call keys, whether it ended with
   something open, and the state its turn and session checks ended in. The driver goes
   through these records in order, keeping the run's state: a partition whose start was the
   run's is taken, the others (a stream cut by a partition boundary, a first result window
   longer than the first partition) are read again on the driver from their lines (one
   partition at a time). The checks over the run then close on the driver, from the joined
   states.
4. The idempotency checks across the run are Spark aggregations, not work on the driver:
   each write call's :class:`~jsoncontract.business.idempotency.KeyRecord` becomes a row,
   windows over (hop, tool, key) and (hop, tool, arguments) ordered by position find the
   first use of each key and write, and each later call is judged against that first one
   by the same tracker code a local run uses; the findings are joined back to their calls.
5. The summary is counted per partition and merged on the driver (one small object per
   partition).

The results are those of a local run over the same files (tests compare them, report byte
for byte). A trace that carries tool results or MCP session messages (conversations, MCP
sessions, OpenTelemetry spans) cannot be split: pairing a result with its call, the session
checks and the latencies summed in order need the trace read in order. When a partition
saw a result or a session message, :func:`check` checks the whole trace again in one task:
its lines are moved to one partition and sorted there (Spark spills what does not fit in
memory), and that task reads them as one local process does, idempotency included, counting
the summary as it goes (:attr:`SparkReport.in_one_task`). That task runs on one core:
check such a trace locally with ``--jobs``, which reads in parallel up to the first result.
"""

from __future__ import annotations

import os
import pickle
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from jsoncontract._files import (
    DecompressionError,
    compression_in,
    compression_of,
    find,
    open_stream,
)
from jsoncontract.capture.ledger import WINDOW
from jsoncontract.capture.reader import CAPTURE_SUFFIXES, JSONL_SUFFIXES
from jsoncontract.errors import InputError, UsageError
from jsoncontract.model import CallResult, Hop, PassedCall, Summary

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from jsoncontract.business.idempotency import KeyRecord
    from jsoncontract.pipeline.runner import Outcome

#: The columns of the results DataFrame, in order.
RESULT_COLUMNS: Final = ("file", "line", "ok", "stage", "tool", "call_id", "result")
#: The order of a local run: the partition (the driver's results after the last one), and
#: the place of the result in it.
_ORDER: Final = ("partition", "n")
_HOPS: Final = {h._value_: h for h in Hop}
_SIGN: Final = 1 << 63


def _spark() -> Any:
    try:
        import pyspark
    except ImportError:
        raise UsageError(
            "--spark needs the spark extra (pyspark 4.0, on Java 17): "
            "pip install '.[spark]' in a clone of jsoncontract"
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
    window: int = WINDOW


@dataclass(slots=True)
class SparkReport:
    """What :func:`check` returns.

    ``results``: one row per call (``file``, ``line``, ``ok``, ``stage``, ``tool``,
    ``call_id``, and ``result``: the call's entry of the JSON report, as a string).
    ``summary``: the counts of the whole run, as a local run reports them, with the
    findings over the run. ``reread``: the partitions read again on the driver.
    ``in_one_task``: the trace carries results or MCP session messages, and was checked in
    one task, in order (see the module).
    """

    results: DataFrame
    summary: Summary
    reread: int
    in_one_task: bool
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
    Spark's errors reach stderr. On a ``local`` master, the Python workers run this
    interpreter (the one that has jsoncontract), unless ``PYSPARK_PYTHON`` names another:
    pyspark would start ``python3`` from ``PATH``, which may be another environment's.

    Raises:
        UsageError: ``master`` is no Spark master URL, or Spark's Java process did not start.
    """
    _spark()
    from pyspark.sql import SparkSession

    if not _MASTER.fullmatch(master):
        raise UsageError(
            f"{master!r} is not a Spark master: use local, local[N], local[*], "
            "spark://HOST:PORT, yarn or k8s://URL"
        )
    if master.startswith("local") and not os.environ.get("PYSPARK_PYTHON"):
        os.environ["PYSPARK_PYTHON"] = sys.executable  # read when the context starts
    try:
        built = (
            SparkSession.builder.master(master)
            .appName(app)
            .config("spark.ui.showConsoleProgress", "false")
            .getOrCreate()
        )
    except Exception as exc:  # pyspark's own errors, when its Java process does not start
        if "JAVA_GATEWAY_EXITED" not in str(exc) and "JAVA_HOME" not in str(exc):
            raise
        raise UsageError(
            f"Spark did not start on {master}: its Java process exited (Spark 4 needs Java "
            "17 or later on PATH or in JAVA_HOME; Spark's own message is above)"
        ) from None
    built.sparkContext.setLogLevel("ERROR")
    return built


#: The master URLs Spark takes (``spark-submit --master``).
_MASTER: Final = re.compile(
    r"local(\[(\*|\d+)(,\d+)?\])?|local-cluster\[\d+,\d+,\d+\]|yarn|(spark|k8s)://\S+"
)


def active_session() -> SparkSession | None:
    """The Spark session already running in this process, if any (a caller that did not
    start it must not stop it)."""
    _spark()
    from pyspark.sql import SparkSession

    return SparkSession.getActiveSession()


class CaptureFiles(tuple[str, ...]):
    """Capture files :func:`capture_files` found and checked: :func:`read_captures` takes
    them as they are, without looking at them again."""

    __slots__ = ()


def capture_files(paths: Iterable[str | Path], *, exclude: Sequence[str] = ()) -> CaptureFiles:
    """The files :func:`read_captures` reads for ``paths``, checked before Spark starts.

    Raises:
        InputError: a file named in ``paths`` cannot be read or is empty (as in a local run).
        UsageError: standard input is named, a file is no JSONL capture, is compressed
            with Zstandard (which Spark's text reader does not read), holds compressed
            data its name does not say (Spark decompresses by name), or is found in a
            directory and cannot be read or is empty (a local run reports it and goes on).
    """
    paths = list(paths)
    if any(str(path) == "-" for path in paths):
        raise UsageError(
            "--spark reads files the cluster opens, not standard input: write it to a file "
            "first, or check it without --spark"
        )
    found = find(paths, CAPTURE_SUFFIXES, what="capture", exclude=exclude)
    files = [str(f.path) for f in found]
    for item, name in zip(found, files, strict=True):
        plain = Path(name).with_suffix("") if compression_of(name) else Path(name)
        if plain.suffix.lower() not in JSONL_SUFFIXES or compression_of(name) == "zstd":
            raise UsageError(
                f"{name}: --spark reads JSON Lines captures, plain or .gz "
                "(decompress .zst first, or check this file without --spark)"
            )
        if compression_in(name) != compression_of(name):
            raise UsageError(
                f"{name}: holds {compression_in(name)} data its name does not say, and Spark "
                "decompresses by name: name it .gz (or check it without --spark)"
            )
        why = _unreadable(name)
        if why is not None:
            if item.named:  # as a local run refuses it
                raise InputError(why, file=name)
            raise UsageError(
                f"{name}: {why}; a local run reports such a file found in a directory "
                "(input.unreadable) and checks the rest, Spark cannot read it: --exclude it "
                "or check without --spark"
            )
    return CaptureFiles(files)


def read_failure(exc: BaseException) -> InputError | None:
    """The error to report for a Spark job that failed reading a capture (a truncated or
    corrupt ``.gz``, a file gone or unreadable on an executor), or ``None`` for another
    failure. Spark names the file but not the line."""
    text = str(exc)
    if "FAILED_READ_FILE" not in text:
        return None
    named = re.search(r"reading file (\S+?)\.?\s", text)
    cause = re.search(r"Caused by: [\w.$]+: ([^\n]+)", text)
    file = named.group(1).removeprefix("file://") if named is not None else None
    why = cause.group(1).strip() if cause is not None else "the file cannot be read"
    return InputError(
        f"Spark could not read the capture: {why}; check it without --spark to see the line "
        "and byte where it breaks",
        file=file,
    )


def _unreadable(name: str) -> str | None:
    """Why the capture ``name`` holds no line to check (it cannot be opened, or holds only
    white space, once decompressed), or ``None``."""
    try:
        with open_stream(name) as stream:
            read = getattr(stream, "read1", stream.read)  # what comes before a fault
            while chunk := read(1 << 16):
                if chunk.strip():
                    return None  # a fault further on is reported where it is
    except InputError as exc:
        return exc.message
    except DecompressionError as exc:
        return exc.input_error(name, None).message
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    return "file is empty"


def read_captures(
    session: SparkSession, paths: Iterable[str | Path], *, exclude: Sequence[str] = ()
) -> DataFrame:
    """The lines of JSONL captures (``.jsonl``, ``.ndjson``, ``.jsonlines``, plain or
    ``.gz``; directories searched, less the files the glob patterns of ``exclude`` match)
    as a DataFrame of ``file_index``, ``file``, ``line``, ``value``, in input order.
    ``paths`` may be what :func:`capture_files` returned, which is not checked again.

    Raises:
        UsageError: as :func:`capture_files`.
    """
    _spark()
    from pyspark.sql.types import BinaryType, LongType, StringType, StructField, StructType

    files = paths if isinstance(paths, CaptureFiles) else capture_files(paths, exclude=exclude)
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
    window: int = WINDOW,
) -> SparkReport:
    """Check the calls in ``lines`` (a DataFrame of ``file_index``, ``file``, ``line``,
    ``value``, as :func:`read_captures` makes) on Spark.

    Arguments mean what they mean to :func:`jsoncontract.check` and the ``check`` command:
    tool definition files, rules files, a config file (its ``[session]`` and ``[results]``
    sections included), a context (JSON text), the tool of bare bodies, a forced dialect,
    whether to quote sensitive values, the result window.

    Raises:
        UsageError: the trace carries tool results or MCP session messages (see the module).
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
        window=window,
    )
    driver = _Executor(recipe)  # fails early, on the driver, with the local error message
    session = lines.sparkSession
    from pyspark.sql import functions as f

    ends = {row[0]: row[1] for row in lines.groupBy("file_index").agg(f.max("line")).collect()}
    source = lines.select("file_index", "file", "line", "value").rdd
    checked = source.mapPartitionsWithIndex(
        lambda index, rows: _check_partition(recipe, ends, index, rows)
    )
    rows = session.createDataFrame(checked, _row_schema()).cache()
    outcomes = [
        (row[0], *pickle.loads(row[1]))
        for row in sorted(
            rows.filter(f.col("outcome").isNotNull()).select("partition", "outcome").collect()
        )
    ]
    if any(not outcome.clean or timed for _, outcome, _, timed in outcomes):
        rows.unpersist()
        return _in_one_task(recipe, lines, ends)
    redone = _join(driver, source, ends, outcomes)
    rows = rows.filter(f.col("outcome").isNull())
    if redone:
        again = session.createDataFrame(redone.rows, _row_schema())
        rows = rows.filter(~f.col("partition").isin(list(redone.partitions))).unionByName(again)
    rows = rows.cache()
    if rows.filter(f.col("r_digest").isNotNull()).isEmpty():
        final = rows  # no write call: nothing for the checks across the trace to judge
    else:
        joined = rows.join(_idempotency(rows), on=list(_ORDER), how="left")
        merged = joined.rdd.mapPartitions(lambda part: _merge_partition(recipe, part))
        final = session.createDataFrame(merged, _row_schema()).cache()
    summary = Summary()
    counts = final.select("tool", "pickled").rdd.mapPartitions(_count_partition)
    for part in counts.collect():
        summary.merge(part)
    summary.files = len(ends)
    for finding in driver.checker.findings:
        summary.add_finding(finding)
    return SparkReport(_results(final), summary, len(redone.partitions), False, final)


def _results(final: DataFrame) -> DataFrame:
    """The public columns of the rows."""
    from pyspark.sql import functions as f

    return final.select(
        "file",
        "line",
        "ok",
        "stage",
        "tool",
        "call_id",
        f.col("entry").cast("string").alias("result"),
    )


def _in_one_task(recipe: Recipe, lines: DataFrame, ends: dict[int, int]) -> SparkReport:
    """Check the whole trace in one task, in input order, as one local process does (a
    trace that carries results or MCP session messages: see the module)."""
    from pyspark.sql import functions as f

    whole = (
        lines.select("file_index", "file", "line", "value")
        .repartition(1)
        .sortWithinPartitions("file_index", "line")
    )
    checked = whole.rdd.mapPartitions(lambda rows: _check_whole(recipe, rows))
    rows = lines.sparkSession.createDataFrame(checked, _row_schema()).cache()
    ending = rows.filter(f.col("outcome").isNotNull()).select("outcome").first()
    assert ending is not None  # the task's last row
    summary: Summary = pickle.loads(ending[0])
    summary.files = len(ends)
    final = rows.filter(f.col("outcome").isNull())
    return SparkReport(_results(final), summary, 0, True, final)


@dataclass(slots=True)
class _Redone:
    """The rows the driver made for the partitions it read again."""

    partitions: list[int]
    rows: list[tuple[Any, ...]]

    def __bool__(self) -> bool:
        return bool(self.partitions) or bool(self.rows)


def _join(
    driver: _Executor,
    source: Any,
    ends: dict[int, int],
    outcomes: list[tuple[int, Outcome, list[str], bool]],
) -> _Redone:
    """Go through the partitions' outcomes in order with the run's state (see the module):
    take those whose start was the run's, read the others again here (``source``: the RDD
    of lines the partitions were cut from); then end the run."""
    from jsoncontract.pipeline.runner import Join

    run = Join(driver.checker, driver.reader, driver.lane)
    redone = _Redone([], [])
    context = source.context
    for index, outcome, files, _ in outcomes:
        if run.takes(frozenset(files), outcome, index == 0):
            run.started = True
            continue
        run.started = True
        redone.partitions.append(index)
        mine = context.runJob(source, _plain_rows, [index])  # this partition's lines only
        n = 0
        for name, file_index, batch in _file_runs(mine):
            done = batch[-1][0] == ends.get(file_index)
            results = run.read_lines(name, batch, last=done)
            for row in _rows_of(file_index, index, n, results, driver):
                redone.rows.append(row)
                n += 1
    for row in _rows_of(-1, len(outcomes), 0, run.finish(), driver):
        redone.rows.append(row)
    return redone


def _plain_rows(rows: Iterable[Any]) -> list[dict[str, Any]]:
    """The rows of lines as dictionaries (what a job hands the driver)."""
    return [row.asDict() for row in rows]


def _file_runs(rows: Iterable[Any]) -> Iterator[tuple[str, int, list[tuple[int, bytes]]]]:
    """Consecutive lines of one file, as ``(file, file_index, [(line, bytes)...])``."""
    current: tuple[int, str] | None = None
    batch: list[tuple[int, bytes]] = []
    for row in rows:
        key = (row["file_index"], row["file"])
        if key != current:
            if current is not None:
                yield current[1], current[0], batch
            current, batch = key, []
        batch.append((row["line"], bytes(row["value"])))
    if current is not None:
        yield current[1], current[0], batch


# -- executors ----------------------------------------------------------------------------


class _Executor:
    """What one executor process loaded (once) for a recipe."""

    _loaded: dict[Recipe, _Executor] = {}  # noqa: RUF012 - a per-process cache

    def __init__(self, recipe: Recipe, *, defer: bool = True) -> None:
        """Load ``recipe``; ``defer``: the business gate leaves the idempotency checks to
        the run (a key record per write call), as in a partition of it."""
        from jsoncontract.business import load_business
        from jsoncontract.business.context import parse_context
        from jsoncontract.capture.reader import CaptureReader
        from jsoncontract.config import load_config
        from jsoncontract.pipeline.checker import Checker
        from jsoncontract.pipeline.contracts import SessionContracts
        from jsoncontract.pipeline.fast import build_lane
        from jsoncontract.pipeline.result import ResultChecks
        from jsoncontract.pipeline.runner import DeferredTrace
        from jsoncontract.pipeline.settings import check_settings
        from jsoncontract.tools.toolset import ToolSet

        config = load_config(recipe.config, discover=False)
        settings = check_settings(config, captures=["-"], tools=[Path(p) for p in recipe.tools])
        self.tools = ToolSet.from_paths(recipe.tools, tool_name=recipe.tool)
        self.business = load_business(
            list(recipe.rules) if recipe.rules is not None else None,
            config=config,
            context=parse_context(recipe.context) if recipe.context is not None else None,
            tools=self.tools,
            show_values=recipe.show_values,
        )
        self.deferred = DeferredTrace(self.business)
        self.checker = Checker(
            self.tools,
            business=self.deferred if defer else self.business,
            results=ResultChecks(settings.results),
            session=SessionContracts(self.tools, settings.session),
            show_values=recipe.show_values,
        )
        self.reader = CaptureReader(dialect=recipe.dialect, tool=recipe.tool, window=recipe.window)
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
            column("partition", LongType()),
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
            # the partition's outcome (its last row only)
            column("outcome", BinaryType()),
        ]
    )


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= _SIGN else value


def _unsigned(value: int) -> int:
    return value + (1 << 64) if value < 0 else value


def _check_partition(
    recipe: Recipe, ends: dict[int, int], index: int, rows: Iterable[Any]
) -> Iterator[tuple[Any, ...]]:
    """Check the lines of one partition, in order, file by file (``ends``: each file's last
    line: a run of lines that reaches it ends as the file does), from the run's start (the
    first partition) or the assumed one; its last row is its outcome."""
    from jsoncontract.capture.ledger import StepLog
    from jsoncontract.pipeline.runner import Outcome, checked

    executor = _Executor.load(recipe)
    reader, checker = executor.reader, executor.checker
    ledger = StepLog(window=reader.window)
    if index:
        ledger.assume_alone()
    released: list[Any] = []
    session = checker.session
    if session is not None:
        session.reset()  # type: ignore[attr-defined]
    executor.deferred.record = None
    files: list[str] = []
    n = 0
    pristine = True
    state = None
    timed: list[bool] = []  # a call came with its result (its dialect attached it)
    for name, file_index, batch in _file_runs(rows):
        files.append(name)
        done = batch[-1][0] == ends.get(file_index)
        state = reader.new_state(ledger, released)
        source = reader.read_lines(name, batch, state, executor.lane, last=done)
        results = _watched(checked(checker, source, ledger if index else None), timed)
        for row in _rows_of(file_index, index, n, results, executor):
            yield row
            n += 1
        if index and not ledger.clean:
            break
        pristine = done or state.pristine(reader.dialects)
    outcome = Outcome(
        [],
        ledger.clean,
        ledger.idle,
        pristine,
        ledger.doc,
        ledger.steps,
        ledger if index == 0 else None,
        session.snapshot() if session is not None else None,  # type: ignore[attr-defined]
        state.memory() if state is not None and not pristine else None,
    )
    data = pickle.dumps((outcome, files, bool(timed)), pickle.HIGHEST_PROTOCOL)
    yield (None,) * 3 + (index, n) + (None,) * 11 + (data,)


def _watched(
    results: Iterable[CallResult | PassedCall], timed: list[bool]
) -> Iterator[CallResult | PassedCall]:
    """``results``; ``timed`` gets an item once a call comes with its result."""
    for result in results:
        if not timed and type(result) is CallResult and result.call.result is not None:
            timed.append(True)
        yield result


def _check_whole(recipe: Recipe, rows: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    """Check every line, in input order (``rows``: the whole trace, sorted), as one local
    process does: the business gate judges idempotency here, and the summary is counted in
    order. The last row is the outcome: the run's summary, with its findings."""
    from itertools import groupby

    from jsoncontract.pipeline.runner import Join, counted

    executor = _Executor(recipe, defer=False)  # fresh: its idempotency index is this run's
    try:
        checker = executor.checker
        run = Join(checker, executor.reader, executor.lane)
        summary = Summary()
        n = 0
        for (file_index, name), group in groupby(rows, lambda r: (r["file_index"], r["file"])):
            lines = ((row["line"], bytes(row["value"])) for row in group)
            results = counted(run.read_lines(name, lines, last=True), summary)
            for row in _rows_of(file_index, 0, n, results, executor):
                yield row
                n += 1
        yield from _rows_of(-1, 0, n, counted(run.finish(), summary), executor)
        for finding in checker.findings:
            summary.add_finding(finding)
        data = pickle.dumps(summary, pickle.HIGHEST_PROTOCOL)
        yield (None,) * 3 + (1, 0) + (None,) * 11 + (data,)
    finally:
        executor.business.close()


def _rows_of(
    file_index: int,
    partition: int,
    n: int,
    results: Iterable[CallResult | PassedCall],
    executor: _Executor,
) -> Iterator[tuple[Any, ...]]:
    """The rows of checked results, numbered from ``n`` in the partition."""
    from jsoncontract.pipeline.entries import PassedEntries, encode_result

    entries = PassedEntries()
    deferred = executor.deferred
    for result in results:
        if type(result) is PassedCall:
            yield (
                file_index, result.file, result.line, partition, n, True, None, result.tool,
                result.call_id, entries.entry(result), None, None, None, None, None, None, None,
            )  # fmt: skip
            n += 1
            continue
        assert type(result) is CallResult
        record: KeyRecord | None = deferred.record
        deferred.record = None
        yield (
            file_index,
            result.call.source.file,
            result.call.source.line or 0,
            partition,
            n,
            result.stage is None,
            result.stage._value_ if result.stage is not None else None,
            result.call.tool,
            result.call.call_id,
            encode_result(result),
            None  # a plain pass: its entry says all a report says of it
            if result.stage is None
            and not result.findings
            and record is None
            and result.call.result is None
            else pickle.dumps(result, pickle.HIGHEST_PROTOCOL),
            record.hop if record is not None else None,
            record.key_field if record is not None else None,
            record.key if record is not None else None,
            _signed(record.digest) if record is not None else None,
            _signed(record.call_tag) if record is not None else None,
            None,
        )
        n += 1


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
    from jsoncontract.pipeline.entries import encode_result
    from jsoncontract.pipeline.runner import with_keys

    executor = _Executor.load(recipe)
    tracker = executor.business.tracker
    columns = list(_row_schema().names)
    for row in rows:
        values = tuple(row[c] for c in columns)
        if row["nth"] is None or tracker is None:
            yield values
            continue
        result: CallResult = pickle.loads(row["pickled"])
        contract = executor.tools.get(row["tool"], _HOPS.get(row["r_hop"]))
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
        replay.reported_keyless({contract.name} if row["nth_of_tool"] > 1 else set())
        found = replay.apply(own, contract)
        replay.close()
        if found:
            result = with_keys(result, found)
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
