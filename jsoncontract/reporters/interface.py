"""The reporter interface, one for every command: results in, bytes out.

A command looks its reporter class up in its format table (:mod:`jsoncontract.reporters`),
builds it on the output stream with the :class:`~jsoncontract.settings.ReportOptions`,
hands it each result as the run produces it (:meth:`Reporter.add`) and ends with
:meth:`Reporter.close`, which takes what the run ends with: the summary of a streamed run
(``check``, ``diff``: a trace can hold millions of calls, so results are never gathered in
memory), or the whole report of a command that builds one at once (``lint``, ``test``,
``fixtures``, ``pin``, ``rules``; their reporters take no results one by one, which their
type says with ``Never``).

Reporters render and nothing else: they never read input and never decide the exit code.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import IO, TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from jsoncontract.model import PassedCall, ResultRun
    from jsoncontract.settings import ReportOptions

ResultT = TypeVar("ResultT")
EndT = TypeVar("EndT")


class Reporter(ABC, Generic[ResultT, EndT]):
    """Writes one report of one command in one format.

    ``ResultT`` is what the command streams (one checked call, one diffed call), ``Never``
    for commands that build their report at once; ``EndT`` is what :meth:`close` takes.

    Arguments:
        stream: where to write (binary; the reporter leaves it open).
        options: presentation choices.
    """

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        self.stream = stream
        self.options = options

    def add(self, result: ResultT) -> None:
        """Take one result, in the order the run produced it."""
        raise TypeError(f"{type(self).__name__} takes its whole report at close()")

    #: Whether :meth:`add_result_run` takes runs of results encoded as JSON report entries
    #: (the JSON formats); results are then worth encoding in the worker that checked them.
    takes_result_runs = False

    def add_result_run(self, run: ResultRun) -> None:
        """Take a run of encoded results (only when :attr:`takes_result_runs`)."""
        raise TypeError(f"{type(self).__name__} takes no runs of encoded results")

    def add_passed(self, passed: PassedCall) -> None:
        """Take one call that passed with no finding (``check``'s fast lane): by default as
        its full result; a reporter that has less to say of it overrides this."""
        self.add(passed.result())  # type: ignore[arg-type]

    @abstractmethod
    def close(self, end: EndT) -> None:
        """Write whatever is left: the summary of a streamed run, or the whole report."""

    def write(self, end: EndT, results: Iterable[ResultT] = ()) -> None:
        """The whole report in one call: every result, then :meth:`close` with ``end``
        (a streamed run's summary fills up while ``results`` is consumed)."""
        from jsoncontract.model import PassedCall, ResultRun  # not at import: --help stays light

        add, add_passed = self.add, self.add_passed
        keep = self.options.results
        try:
            for result in results:
                if isinstance(result, PassedCall):
                    if keep == "all":
                        add_passed(result)
                elif isinstance(result, ResultRun):
                    self.add_result_run(result)  # already chosen by the worker
                elif keep == "all" or _kept(result, keep):
                    add(result)
        except BaseException:
            self.abort()
            raise
        self.close(end)

    def abort(self) -> None:
        """The run stopped before its end (an input it could not read): release what the
        report holds (a spool), writing nothing more."""

    def take(self, result: Any) -> None:
        """Take one item of a streamed run as :meth:`write` does (a passed call, a run of
        encoded results, or a result, listed as the options' ``results`` say): for several
        reports written from one stream."""
        from jsoncontract.model import PassedCall, ResultRun

        keep = self.options.results
        if isinstance(result, PassedCall):
            if keep == "all":
                self.add_passed(result)
        elif isinstance(result, ResultRun):
            self.add_result_run(result)
        elif keep == "all" or _kept(result, keep):
            self.add(result)


def _kept(result: object, keep: str) -> bool:
    """Whether a ``check`` result is listed under ``--results keep``."""
    if keep == "failed":
        return getattr(result, "stage", None) is not None
    return bool(getattr(result, "findings", True))
