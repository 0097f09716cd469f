"""``check`` on Apache Spark, for traces that outgrow one machine (the ``spark`` extra:
``pip install '.[spark]'`` in a clone of jsoncontract).

    >>> from jsoncontract import spark  # doctest: +SKIP
    >>> blocks = spark.read_captures(session, ["traces/2026-12-01/"])  # doctest: +SKIP
    >>> report = spark.check(blocks, tools=["tools/"])  # doctest: +SKIP
    >>> report.summary.failed, report.results.filter("not ok").count()  # doctest: +SKIP

How it runs:

1. :func:`read_captures` cuts JSONL captures (plain, gzip or Zstandard) into blocks of
   bytes, as Spark's file sources cut files (``spark.sql.files.maxPartitionBytes``, spread
   over the cores; a ``.gz`` or ``.zst`` file is one block), and counts the lines before
   each block (line feeds only; on the driver up to :data:`_COUNT_HERE` bytes, else with a
   Spark job): a DataFrame of ``file_index``, ``file`` (as given: what the reports show), ``start``,
   ``end``, ``line``, ``last`` and ``path`` (the file's absolute path, which the executors
   open), one row per block.
2. :func:`check` checks each block in a task of its own: the executor reads the block's
   lines from the file (those that start in it; the same paths as the driver's: a shared
   filesystem, or local mode) with the same reader, fast lane, gates, business rules and
   checks over the run as a local run, loaded on each executor from the same tool, rules
   and config files. Results come back as chunks, not a row per call: the JSON report
   entries of up to 4,096 consecutive results, a flag byte per result, and (unless
   ``entries_only``) the pickled :class:`~jsoncontract.model.CallResult` of those an entry
   does not say all of; each block counts its summary as it goes.
3. Blocks are joined as the workers of ``--jobs`` are
   (:mod:`jsoncontract.pipeline.runner`): the first starts where the run does, every
   other as after a first result window without results; each hands back, besides its
   rows, one small record of what its ledger did with call keys, whether it ended with
   something open, and the state its turn and session checks ended in. The driver goes
   through these records in order, keeping the run's state: a block whose start was the
   run's is taken, the others (a stream cut by a block boundary, a first result window
   longer than the first block) are read again on the driver from the file. The checks
   over the run then close on the driver, from the joined states.
4. The idempotency checks across the run judge the write calls' key records (a row per
   write call, with its result). Up to :data:`_DRIVER_RECORDS` of them, the driver
   collects them and applies them in input order to its tracker, as a local run's parent
   applies its workers' records. Past that, they are Spark aggregations: windows over
   (hop, tool, key) and (hop, tool, arguments) ordered by position find the first use of
   each key and write, and each later call is judged against that first one by the same
   tracker code a local run uses. Only the results these checks change travel again.
5. The summary is the blocks' counts, those of the blocks read again and those of the
   write calls, merged on the driver; the report is written from the chunks, streamed a
   partition at a time, with the changed results put in their places.

The results are those of a local run over the same files (tests compare them, report byte
for byte). A trace that carries tool results or MCP session messages (conversations, MCP
sessions, OpenTelemetry spans) cannot be split: pairing a result with its call, the session
checks and the latencies summed in order need the trace read in order. When a block saw a
result or a session message, :func:`check` checks the whole trace again in one task that
reads the files in input order as one local process does, idempotency included, counting
the summary as it goes (:attr:`SparkReport.in_one_task`). That task runs on one core:
check such a trace locally with ``--jobs``, which reads in parallel up to the first result.
A capture an executor cannot read, or a corrupt ``.gz`` or ``.zst``, stops the run with the
error a local run gives (:class:`~jsoncontract.errors.InputError`).
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
from jsoncontract.model import CallResult, Hop, PassedCall, ResultRun, Summary

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
    #: Results are handed back as report entries alone (no pickled result for a failing
    #: call): for the JSON formats.
    entries_only: bool = False


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
    _chunks: Any  # the executors' rows (an RDD)
    _driver: list[tuple[Any, ...]]  # the chunks the driver made, in order
    _redone: frozenset[int]  # the partitions whose executor's chunks are replaced
    _changed: Any  # the results the checks across the run changed (a list or an RDD)
    _entries_only: bool = False

    def iter_results(
        self, keep: str | None = None
    ) -> Iterator[CallResult | PassedCall | ResultRun]:
        """Every result in input order, streamed to the driver a partition at a time (for
        writing a report). With ``keep`` (a report's ``--results``: ``all``, ``failed``,
        ``findings``), runs of encoded JSON report entries instead, those ``keep`` lists
        (for the JSON formats: no object is rebuilt)."""
        from heapq import merge

        if keep is None and self._entries_only:
            raise ValueError("checked with entries_only: iterate with keep (all, failed, findings)")
        executors = (
            row
            for row in self._chunks.toLocalIterator(prefetchPartitions=True)
            if row[0] == "c" and row[1] not in self._redone
        )
        changed: Iterator[tuple[Any, ...]] = (
            iter(self._changed)
            if isinstance(self._changed, list)
            else self._changed.toLocalIterator()
        )
        pending = next(changed, None)
        for chunk in merge(executors, self._driver, key=_place):
            _, partition, n, _file, blob, flags, objects = chunk
            entries = blob.split(b"\n")
            flags = bytearray(flags)
            found: dict[int, Any] = dict(pickle.loads(objects)) if objects is not None else {}
            while pending is not None and (pending[1], pending[2]) < (partition, n + len(flags)):
                at = pending[2] - n
                entries[at], flags[at] = pending[3], pending[4]
                found[at] = pickle.loads(pending[5])
                pending = next(changed, None)
            if keep is not None:
                kept = entries if keep == "all" else _kept(entries, flags, keep)
                if kept:
                    yield ResultRun(Summary(), b"\n".join(kept))
                continue
            for at, entry in enumerate(entries):
                result = found.get(at)
                yield result if result is not None else _passed(entry, chunk[3])


def _place(chunk: tuple[Any, ...]) -> tuple[int, int]:
    return chunk[1], chunk[2]


#: A result's flags in a chunk: it failed, it has findings.
_FAILED: Final = 1
_FINDINGS: Final = 2


def _flags(result: CallResult) -> int:
    return (_FAILED if result.stage is not None else 0) | (_FINDINGS if result.findings else 0)


def _kept(entries: list[bytes], flags: bytearray, keep: str) -> list[bytes]:
    """The entries a report lists under ``--results keep`` (as the reporters choose)."""
    bit = _FAILED if keep == "failed" else _FINDINGS
    return [entry for entry, flag in zip(entries, flags, strict=True) if flag & bit]


def _passed(entry: bytes, file: str) -> PassedCall:
    """The passing call a plain entry is of."""
    import orjson

    data = orjson.loads(entry)
    return PassedCall(
        data["tool"],
        _HOPS[data["hop"]],
        data["call_id"],
        data["dialect"],
        file,
        data["source"]["line"],
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
        UsageError: standard input is named, a file is no JSONL capture, holds compressed
            data its name does not say (a compressed file is one block, known by its
            name), or is found in a directory and cannot be read or is empty (a local run
            reports it and goes on).
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
        if plain.suffix.lower() not in JSONL_SUFFIXES:
            raise UsageError(
                f"{name}: --spark reads JSON Lines captures, plain, .gz or .zst "
                "(check this file without --spark)"
            )
        inside = compression_in(name)
        if inside != compression_of(name):
            if inside is None:
                raise UsageError(
                    f"{name}: its name says {compression_of(name)} data, and it holds none, "
                    "and --spark decompresses by name: name it without the suffix (or check "
                    "it without --spark)"
                )
            suffix = ".gz" if inside == "gzip" else ".zst"
            raise UsageError(
                f"{name}: holds {inside} data its name does not say, and --spark "
                f"decompresses by name: name it {suffix} (or check it without --spark)"
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
    """The blocks of JSONL captures (``.jsonl``, ``.ndjson``, ``.jsonlines``, plain, ``.gz``
    or ``.zst``; directories searched, less the files the glob patterns of ``exclude`` match)
    that :func:`check` reads, one partition each, in input order: a DataFrame of
    ``file_index``, ``file``, ``start`` and ``end`` (the block's bytes: its lines are those
    that start in them), ``line`` (the number of the line at ``start``, or of the line under
    way there), ``last`` (the block ends its file) and ``path`` (the absolute path the
    executors open; ``file`` is the name as given, which reports show). A plain file is cut
    as Spark's file sources cut it (``spark.sql.files.maxPartitionBytes``, spread over the
    cores); a ``.gz`` or ``.zst`` is one block. ``paths`` may be what
    :func:`capture_files` returned, which is not checked again. The line numbers of a file
    cut in several blocks are counted here, or by a Spark job past :data:`_COUNT_HERE`
    bytes.

    Raises:
        UsageError: as :func:`capture_files`.
    """
    _spark()
    from pyspark.sql.types import (
        BooleanType,
        LongType,
        StringType,
        StructField,
        StructType,
    )

    files = paths if isinstance(paths, CaptureFiles) else capture_files(paths, exclude=exclude)
    names = [str(name) for name in files]  # as given: what the report shows, as locally
    opened = [str(Path(name).resolve()) for name in names]  # what the executors open
    sizes = [Path(path).stat().st_size for path in opened]
    context = session.sparkContext
    most = _bytes(session.conf.get("spark.sql.files.maxPartitionBytes", "128m") or "128m")
    opening = _bytes(session.conf.get("spark.sql.files.openCostInBytes", "4m") or "4m")
    total = sum(sizes) + opening * len(sizes)
    step = max(1, min(most, max(opening, total // max(1, context.defaultParallelism))))
    blocks: list[tuple[int, str, int, int, int, bool, str]] = []
    for index, (name, path, size) in enumerate(zip(names, opened, sizes, strict=True)):
        if compression_of(name) or size <= step:
            blocks.append((index, name, 0, size, 1, True, path))
            continue
        for start in range(0, size, step):
            end = min(start + step, size)
            blocks.append((index, name, start, end, 1, end == size, path))
    cut = [i for i, b in enumerate(blocks) if not b[5] or b[2]]  # blocks of cut files
    if cut:
        chosen = [blocks[i] for i in cut]
        if sum(b[3] - b[2] for b in chosen) <= _COUNT_HERE:
            counts = [_newlines(block) for block in chosen]  # quicker than starting a job
        else:
            counts = context.parallelize(chosen, len(chosen)).map(_newlines).collect()
        before = 0
        for i, newlines in zip(cut, counts, strict=True):
            index, name, start, end, _, last, path = blocks[i]
            before = 0 if start == 0 else before
            blocks[i] = (index, name, start, end, 1 + before, last, path)
            before += newlines
    schema = StructType(
        [
            StructField("file_index", LongType(), False),
            StructField("file", StringType(), False),
            StructField("start", LongType(), False),
            StructField("end", LongType(), False),
            StructField("line", LongType(), False),
            StructField("last", BooleanType(), False),
            StructField("path", StringType(), False),
        ]
    )
    return session.createDataFrame(blocks, schema)  # held by the driver: no job collects it


#: Up to this many bytes of cut files, the driver counts their line feeds itself (at memory
#: speed, a fraction of a second; a Spark job costs its start); past it, a Spark job does.
_COUNT_HERE: Final = 512 << 20

_UNITS: Final = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}


def _bytes(text: str) -> int:
    """A Spark size setting (``134217728b``, ``128m``, ``16384``) in bytes."""
    found = re.fullmatch(r"\s*(\d+)\s*([kmgt]?)b?\s*", text.lower())
    if found is None:
        return 128 << 20
    return int(found.group(1)) * _UNITS[found.group(2)]


def _newlines(block: tuple[Any, ...]) -> int:
    """The line feeds in a block's bytes."""
    _, _, start, end, _, _, path = block
    count = 0
    with Path(path).open("rb") as stream:
        stream.seek(start)
        left = end - start
        while left > 0:
            data = stream.read(min(left, 1 << 20))
            if not data:
                break
            count += data.count(b"\n")
            left -= len(data)
    return count


def _block_lines(block: Sequence[Any]) -> Iterable[tuple[int, bytes]]:
    """The numbered lines of a block, without their line feeds (all of a compressed file, or of
    a file the block spans whole, streamed; a line too long to hold is ``None``, which the
    reader reports as a local run does).

    Raises:
        InputError: the file cannot be read, or a ``.gz`` or ``.zst`` is corrupt (as a local
            run says).
    """
    from jsoncontract._files import lines_of
    from jsoncontract.capture.reader import MAX_LINE_BYTES

    _, name, start, end, first, last, path = block[:7]
    if start == 0 and last:
        numbered = lines_of(open_stream(path), MAX_LINE_BYTES, name=name)
        return ((n, line[:-1] if line and line[-1] == 10 else line) for n, line in numbered)  # type: ignore[misc]
    try:
        with Path(path).open("rb") as stream:
            number = first
            if start:
                stream.seek(start - 1)
                if stream.read(1) != b"\n":
                    stream.readline()  # the end of a line the block before holds
                    number += 1
            at = stream.tell()
            if at >= end:
                return []
            data = stream.read(end - at)
            if not data.endswith(b"\n"):
                data += stream.readline()  # the end of the block's last line
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=name) from None
    lines = data.split(b"\n")
    if not lines[-1]:
        lines.pop()
    return list(enumerate(lines, number))


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
    entries_only: bool = False,
    allow_empty: bool = False,
) -> SparkReport:
    """Check the calls in ``lines`` (the blocks of captures :func:`read_captures` makes) on
    Spark.

    Arguments mean what they mean to :func:`jsoncontract.check` and the ``check`` command:
    tool definition files, rules files, a config file (its ``[session]`` and ``[results]``
    sections included), a context (JSON text), the tool of bare bodies, a forced dialect,
    whether to quote sensitive values, the result window, whether a run that reads no call
    passes (``allow_empty``; else it ends with ``input.no_calls``). ``entries_only``: the
    results are only wanted as JSON report entries (:meth:`SparkReport.iter_results` with
    ``keep``): a failing call's result is not pickled for the driver.

    Raises:
        InputError: a capture cannot be read, or a ``.gz`` or ``.zst`` is corrupt (as a local
            run says).
    """
    from jsoncontract.pipeline.runner import close_run, no_calls

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
        entries_only=entries_only,
    )
    driver = _Executor(recipe)  # fails early, on the driver, with the local error message
    session = lines.sparkSession
    blocks = sorted(
        tuple(row)
        for row in lines.select(
            "file_index", "file", "start", "end", "line", "last", "path"
        ).collect()
    )
    files = len({block[0] for block in blocks})
    spark_context = session.sparkContext
    chunks = (
        spark_context.parallelize(blocks, max(1, len(blocks)))
        .mapPartitionsWithIndex(lambda index, rows: _check_block(recipe, index, next(iter(rows))))
        .persist()
    )
    ends = sorted(row for row in chunks.filter(_is_end).collect())
    _raise_failure(ends)
    outcomes = [(row[1], *pickle.loads(row[2])) for row in ends]
    if any(not outcome.clean or timed for _, outcome, _, timed, _, _ in outcomes):
        chunks.unpersist()
        report = _in_one_task(recipe, session, blocks, files)
        empty = None if allow_empty else no_calls(report.summary)
        if empty is not None:
            report.summary.add_finding(empty)
        return report
    summary = Summary()
    redone = _join(driver, blocks, outcomes, summary)
    taken = spark_context.broadcast(frozenset(redone.partitions))
    records = chunks.filter(lambda row: row[0] == "r" and row[1] not in taken.value)
    driven = [row for row in redone.rows if row[0] == "r"]
    written = sum(n for index, *_, n in outcomes if index not in redone.partitions)
    changed: Any = []
    if written + len(driven) <= _DRIVER_RECORDS:
        # few write calls: the driver's tracker judges them in input order, as locally
        if written:
            driven = sorted([*records.collect(), *driven], key=_place)
        changed = _merge_here(driver, driven, summary)
    else:
        if driven:
            records = records.union(spark_context.parallelize(driven, 1))
        frame = session.createDataFrame(records.map(lambda row: row[1:]), _record_schema())
        joined = frame.join(_idempotency(frame), on=list(_ORDER), how="left")
        merged = joined.rdd.mapPartitions(lambda rows: _merge_records(recipe, rows)).persist()
        for part in merged.filter(lambda row: row[0] == "s").collect():
            summary.merge(pickle.loads(part[1]))
        changed = merged.filter(lambda row: row[0] == "m").sortBy(_place)  # type: ignore[type-var]
    close_run(summary, files, driver.checker.findings, allow_empty=allow_empty)
    own = [row for row in redone.rows if row[0] == "c"]
    return SparkReport(
        _results(session, chunks, own, frozenset(redone.partitions), changed),
        summary,
        len(redone.partitions),
        False,
        chunks,
        own,
        frozenset(redone.partitions),
        changed,
        entries_only,
    )


#: Up to this many write calls, the driver judges them (collected, with their pickled
#: results: tens of MB through the driver's JVM); past it, Spark's window aggregations do.
_DRIVER_RECORDS: Final = 50_000


def _merge_here(
    driver: _Executor, records: list[tuple[Any, ...]], summary: Summary
) -> list[tuple[Any, ...]]:
    """Judge the write calls' key records in input order with the driver's idempotency
    tracker (as a local run's parent does with its workers' records); count their results
    into ``summary``; the rows of the results the checks changed."""
    from jsoncontract.pipeline.entries import encode_result
    from jsoncontract.pipeline.runner import with_keys

    tracker = driver.business.tracker
    changed: list[tuple[Any, ...]] = []
    for row in records:
        result: CallResult = pickle.loads(row[11])
        contract = driver.tools.get(result.call.tool or "", result.call.hop)
        if tracker is not None and contract is not None:
            record = _key_record(row[6:11], row[4], row[5])
            found = tracker.apply(record, contract)
            if found:
                result = with_keys(result, found)
                changed.append(
                    ("m", row[1], row[2], encode_result(result), _flags(result),
                     pickle.dumps(result, pickle.HIGHEST_PROTOCOL))
                )  # fmt: skip
        summary.add(result)
    return changed


def _key_record(fields: Sequence[Any], file: str, line: int) -> KeyRecord:
    """A key record from its columns (hop, key field, key, digest, tag)."""
    from jsoncontract.business.idempotency import KeyRecord

    hop, key_field, key, digest, tag = fields
    return KeyRecord(hop, key_field or "", key, _unsigned(digest), _unsigned(tag), file, line)


def _is_end(row: tuple[Any, ...]) -> bool:
    return row[0] in ("o", "e")


def _raise_failure(ends: Iterable[tuple[Any, ...]]) -> None:
    """Raise the first read failure a task reported (a capture it could not read)."""
    for row in ends:
        if row[0] == "e":
            message, file, line, column = pickle.loads(row[2])
            raise InputError(message, file=file, line=line, column=column)


def _results(
    session: SparkSession,
    chunks: Any,
    own: list[tuple[Any, ...]],
    redone: frozenset[int],
    changed: Any,
) -> DataFrame:
    """The results as a DataFrame of one row per call (built when it is used)."""
    from pyspark.sql.types import BooleanType, LongType, StringType, StructField, StructType

    schema = StructType(
        [
            StructField("partition", LongType(), False),
            StructField("n", LongType(), False),
            StructField("file", StringType(), True),
            StructField("line", LongType(), True),
            StructField("ok", BooleanType(), True),
            StructField("stage", StringType(), True),
            StructField("tool", StringType(), True),
            StructField("call_id", StringType(), True),
            StructField("result", StringType(), True),
        ]
    )
    context = session.sparkContext
    mine = chunks.filter(lambda row: row[0] == "c" and row[1] not in redone)
    if own:
        mine = mine.union(context.parallelize(own, 1))
    rows = session.createDataFrame(mine.flatMap(_exploded), schema)
    if isinstance(changed, list) and changed:
        changed = context.parallelize(changed, 1)
    if changed is not None and not isinstance(changed, list):
        again = session.createDataFrame(changed.map(_changed_row), schema)
        rows = rows.join(again.select(*_ORDER), on=list(_ORDER), how="left_anti")
        rows = rows.unionByName(again)
    return rows.select("file", "line", "ok", "stage", "tool", "call_id", "result")


def _exploded(chunk: tuple[Any, ...]) -> Iterator[tuple[Any, ...]]:
    _, partition, n, file, blob, _, _ = chunk
    for at, entry in enumerate(blob.split(b"\n")):
        yield _entry_row(partition, n + at, file, entry)


def _changed_row(row: tuple[Any, ...]) -> tuple[Any, ...]:
    result: CallResult = pickle.loads(row[5])
    return _entry_row(row[1], row[2], result.call.source.file, row[3])


def _entry_row(partition: int, n: int, file: str, entry: bytes) -> tuple[Any, ...]:
    import orjson

    data = orjson.loads(entry)
    text = entry.decode("utf-8", "replace")
    return (
        partition, n, file, data["source"]["line"], data["ok"], data["stage"], data["tool"],
        data["call_id"], text,
    )  # fmt: skip


def _in_one_task(
    recipe: Recipe, session: SparkSession, blocks: list[tuple[Any, ...]], files: int
) -> SparkReport:
    """Check the whole trace in one task, in input order, as one local process does (a
    trace that carries results or MCP session messages: see the module)."""
    whole = [
        (i, name, 0, 0, 1, True, path)
        for i, name, path in sorted({(b[0], b[1], b[6]) for b in blocks})
    ]
    context = session.sparkContext
    chunks = context.parallelize([whole], 1).mapPartitions(
        lambda rows: _check_whole(recipe, next(iter(rows)))
    )
    chunks = chunks.persist()
    ends = chunks.filter(_is_end).collect()
    _raise_failure(ends)
    summary: Summary = pickle.loads(ends[0][2])
    summary.files = files
    return SparkReport(
        _results(session, chunks, [], frozenset(), []),
        summary,
        0,
        True,
        chunks,
        [],
        frozenset(),
        [],
    )


@dataclass(slots=True)
class _Redone:
    """The rows the driver made for the partitions it read again."""

    partitions: list[int]
    rows: list[tuple[Any, ...]]


def _join(
    driver: _Executor,
    blocks: list[tuple[Any, ...]],
    outcomes: list[tuple[int, Outcome, list[str], bool, Summary, int]],
    summary: Summary,
) -> _Redone:
    """Go through the partitions' outcomes in order with the run's state (see the module):
    take those whose start was the run's (their counts go to ``summary``), read the others
    again here; then end the run."""
    from jsoncontract.pipeline.runner import Join

    run = Join(driver.checker, driver.reader, driver.lane)
    redone = _Redone([], [])
    for index, outcome, files, _, counts, _ in outcomes:
        if run.takes(frozenset(files), outcome, index == 0):
            run.started = True
            summary.merge(counts)
            continue
        run.started = True
        redone.partitions.append(index)
        block = blocks[index]
        results = run.read_lines(block[1], _block_lines(block), last=block[5])
        redone.rows += _chunks(index, results, driver, summary)
    redone.rows += _chunks(len(outcomes), run.finish(), driver, summary)
    return redone


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

        self.recipe = recipe
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


def _record_schema() -> Any:
    """The columns of a write call's key record, with its result."""
    from pyspark.sql.types import (
        BinaryType,
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
            column("partition", LongType()),
            column("n", IntegerType()),
            column("tool", StringType()),
            column("file", StringType()),
            column("line", LongType()),
            column("r_hop", StringType()),
            column("r_key_field", StringType()),
            column("r_key", StringType()),
            column("r_digest", LongType()),
            column("r_tag", LongType()),
            column("pickled", BinaryType()),
        ]
    )


def _signed(value: int) -> int:
    return value - (1 << 64) if value >= _SIGN else value


def _unsigned(value: int) -> int:
    return value + (1 << 64) if value < 0 else value


def _check_block(recipe: Recipe, index: int, block: Sequence[Any]) -> Iterator[tuple[Any, ...]]:
    """Check the lines of one block (the ``index``-th), in order, from the run's start (the
    first block) or the assumed one; the last row is its outcome, with its counts (but of
    the write calls the checks across the run judge), or the input error it met."""
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
    summary = Summary()
    written = 0  # write calls: their key records' rows
    timed: list[bool] = []  # a call came with its result (its dialect attached it)
    name, last = block[1], block[5]
    state = reader.new_state(ledger, released)
    if index:
        state.watch(True)  # what the reading asks of the memory it began with (the joins)
    try:
        source = reader.read_lines(name, _block_lines(block), state, executor.lane, last=last)
        results = _watched(checked(checker, source, ledger if index else None), timed)
        for row in _chunks(index, results, executor, summary):
            written += row[0] == "r"
            yield row
    except InputError as exc:
        yield _failure(index, exc)
        return
    pristine = last or state.pristine(reader.dialects)
    outcome = Outcome(
        [],
        ledger.clean,
        ledger.idle,
        pristine,
        ledger.doc,
        ledger.steps,
        ledger if index == 0 else None,
        session.snapshot() if session is not None else None,  # type: ignore[attr-defined]
        None if pristine and index == 0 else state.memory(),
        index != 0,  # watched: the run's memory of the file may join it
        last,
    )
    data = pickle.dumps((outcome, [name], bool(timed), summary, written), pickle.HIGHEST_PROTOCOL)
    yield ("o", index, data)


def _failure(index: int, exc: InputError) -> tuple[Any, ...]:
    """The row of an input error a task met (raised again on the driver)."""
    where = (exc.message, exc.file, exc.line, exc.column)
    return ("e", index, pickle.dumps(where, pickle.HIGHEST_PROTOCOL))


def _watched(
    results: Iterable[CallResult | PassedCall], timed: list[bool]
) -> Iterator[CallResult | PassedCall]:
    """``results``; ``timed`` gets an item once a call comes with its result."""
    for result in results:
        if not timed and type(result) is CallResult and result.call.result is not None:
            timed.append(True)
        yield result


def _check_whole(recipe: Recipe, files: list[tuple[Any, ...]]) -> Iterator[tuple[Any, ...]]:
    """Check every file whole, in input order, as one local process does: the business gate
    judges idempotency here, and the summary is counted in order. The last row is the
    outcome: the run's summary, with its findings."""
    from jsoncontract.pipeline.runner import Join, counted

    executor = _Executor(recipe, defer=False)  # fresh: its idempotency index is this run's
    try:
        checker = executor.checker
        run = Join(checker, executor.reader, executor.lane)
        summary = Summary()
        try:
            for at, block in enumerate(files):
                lines = _block_lines(block)
                results = counted(run.read_lines(block[1], lines, last=True), summary)
                yield from _chunks(at, results, executor, None)
            yield from _chunks(len(files), counted(run.finish(), summary), executor, None)
        except InputError as exc:
            yield _failure(0, exc)
            return
        for finding in checker.findings:
            summary.add_finding(finding)
        yield ("o", 0, pickle.dumps(summary, pickle.HIGHEST_PROTOCOL))
    finally:
        executor.business.close()


#: Results per chunk: a chunk is a row of their report entries.
_CHUNK: Final = 4096


def _chunks(
    partition: int,
    results: Iterable[CallResult | PassedCall],
    executor: _Executor,
    summary: Summary | None,
) -> Iterator[tuple[Any, ...]]:
    """Checked results as rows: chunks of consecutive results of one file (``"c"``, the
    partition, the place of the first, the file, the report entries one per line, a flag
    byte per result, and the pickled results a passing call's entry does not say all of),
    and a row per write call whose key record the checks across the run judge (``"r"``).
    ``summary`` counts the results, but those write calls."""
    from jsoncontract.pipeline.entries import PassedEntries, encode_result

    passed = PassedEntries()
    deferred = executor.deferred
    pickled = not executor.recipe.entries_only
    entries: list[bytes] = []
    flags = bytearray()
    objects: list[tuple[int, CallResult]] = []
    file: str | None = None
    n = 0
    for result in results:
        if type(result) is PassedCall:
            where = result.file
        else:
            assert type(result) is CallResult
            where = result.call.source.file
        if where != file or len(entries) >= _CHUNK:
            if entries:
                yield _chunk(partition, n, file, entries, flags, objects)
                n += len(entries)
                entries, flags, objects = [], bytearray(), []
            file = where
        if type(result) is PassedCall:
            entries.append(passed.entry(result))
            flags.append(0)
            if summary is not None:
                summary.add_passed(result.tool)
            continue
        assert type(result) is CallResult
        record: KeyRecord | None = deferred.record
        deferred.record = None
        at = len(entries)
        entries.append(encode_result(result))
        flags.append(_flags(result))
        if pickled and (
            result.stage is not None
            or result.findings
            or record is not None
            or result.call.result is not None
        ):
            objects.append((at, result))  # a plain pass: its entry says all of it
        if record is not None:
            yield (
                "r", partition, n + at, result.call.tool, where, result.call.source.line or 0,
                record.hop, record.key_field, record.key, _signed(record.digest),
                _signed(record.call_tag), pickle.dumps(result, pickle.HIGHEST_PROTOCOL),
            )  # fmt: skip
        elif summary is not None:
            summary.add(result)
    if entries:
        yield _chunk(partition, n, file, entries, flags, objects)


def _chunk(
    partition: int,
    n: int,
    file: str | None,
    entries: list[bytes],
    flags: bytearray,
    objects: list[tuple[int, CallResult]],
) -> tuple[Any, ...]:
    kept = pickle.dumps(objects, pickle.HIGHEST_PROTOCOL) if objects else None
    return ("c", partition, n, file, b"\n".join(entries), bytes(flags), kept)


def _idempotency(rows: DataFrame) -> DataFrame:
    """Each write call's first use of its key (or, key-less, of its arguments) and the
    first key-less write of its tool, found with windows: the rows the idempotency checks
    must judge, with what they are judged against."""
    from pyspark.sql import Window
    from pyspark.sql import functions as f

    records = rows
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


def _merge_records(recipe: Recipe, rows: Iterable[Any]) -> Iterator[tuple[Any, ...]]:
    """Judge each write call as the run's idempotency tracker would (by replaying, for
    each call, the tracker a local run keeps: with the first use of its key or write
    applied before it, that tracker says what the local one says). A row per result the
    checks changed (``"m"``: its place, entry, flags and pickled result), then the counts
    of every write call (``"s"``)."""
    from jsoncontract.business.idempotency import IdempotencyTracker, KeyRecord
    from jsoncontract.pipeline.entries import encode_result
    from jsoncontract.pipeline.runner import with_keys

    executor = _Executor.load(recipe)
    tracker = executor.business.tracker
    summary = Summary()
    for row in rows:
        result: CallResult = pickle.loads(row["pickled"])
        if row["nth"] is not None and tracker is not None:
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
                yield (
                    "m",
                    row["partition"],
                    row["n"],
                    encode_result(result),
                    _flags(result),
                    pickle.dumps(result, pickle.HIGHEST_PROTOCOL),
                )
        summary.add(result)
    yield ("s", pickle.dumps(summary, pickle.HIGHEST_PROTOCOL))
