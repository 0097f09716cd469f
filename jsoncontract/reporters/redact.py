"""``redact --format text | json``: what was replaced in each capture, or (``--check``)
what secrets are still there. Secrets are named by kind, hash and place, never shown.

``text`` writes one line per secret, ``file:line: kind sha256:... at /pointer``, then a
verdict; ``json`` is ``{"version": 1, "summary": {...}, "files": [...]}``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Never

import orjson

from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import LineWriter, Style, plural

if TYPE_CHECKING:
    from jsoncontract.redact import RedactReport


class TextRedactReporter(Reporter[Never, "RedactReport"]):
    """One line per secret, then the verdict."""

    def close(self, report: RedactReport) -> None:
        """Write each secret (by kind and hash), then what was done."""
        out = LineWriter(self.stream, self.options.color, self.options.width)
        for result in report.files:
            if self.options.quiet:
                break
            for item in result.secrets:
                where = result.path + (f":{item.line}" if item.line is not None else "")
                out.write([[(f"{where}: ", Style.DIM), (item.secret.describe(), "")]])
        count = report.count()
        files = plural(len(report.files), "file")
        if report.check:
            if count:
                with_secrets = sum(1 for f in report.files if f.secrets)
                verdict = (
                    f"{plural(count, 'secret')} in {plural(with_secrets, 'file')} of {files}; "
                    "run jsoncontract redact FILE -o FILE to replace them"
                )
                out.write([[], [(verdict, "bold red")]])
            else:
                out.write([[(f"no secret in {files}", "bold green")]])
        else:
            targets = sorted({f.output for f in report.files if f.output})
            into = targets[0] if len(targets) == 1 else f"{len(targets)} files"
            verdict = f"replaced {plural(count, 'secret')} in {files}, written to {into}"
            out.write([[(verdict, "bold")]])
        out.close()


class JsonRedactReporter(Reporter[Never, "RedactReport"]):
    """The JSON report."""

    def close(self, report: RedactReport) -> None:
        """Write the report object."""
        self.stream.write(orjson.dumps(report.to_dict(), option=orjson.OPT_APPEND_NEWLINE))
