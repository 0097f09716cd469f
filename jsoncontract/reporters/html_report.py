"""``check --format html`` and ``diff --format html``: one page to look at.

One self-contained file: its style and its few lines of script are inline, allowed by a
Content-Security-Policy that names their hashes and nothing else (no network, no external
script, style, font or image), so the page renders the same offline, from a CI artifact or
an e-mail attachment, and nothing in it can load anything.

``check`` shows the verdict and the totals, two bar charts (failures by stage, failures by
tool), the most frequent codes, then each call with findings, at most ``--max-shown`` of
them (0: all): where it is, its findings with their hints, and its arguments as the tool
received them, with sensitive values hashed (by member name and by the form of the value,
through :mod:`jsoncontract.masking`) unless ``--show-values``; the tool's result, when the
capture holds it. A box filters the calls by any word (tool, code, file), and clicking a
bar filters by its stage or tool.

``diff`` shows the calls by status and the differences by kind as charts, then each call
that does not agree (every call with ``--verbose``): its hops, and the side-by-side table of
its members (``--rows``), each difference coloured, then its differences and findings.

Reports stream: a call is rendered when it arrives and spooled to disk past a few MB, so
memory stays flat however many calls are shown; the totals are written first, at the end.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import tempfile
import weakref
from collections.abc import Iterable, Sequence
from html import escape
from typing import IO, TYPE_CHECKING, Any, Final

import orjson

from jsoncontract._version import __version__
from jsoncontract.model import STAGE_ORDER, BaselineState
from jsoncontract.project import portable_path, project_root
from jsoncontract.reporters.check_text import call_details, call_status
from jsoncontract.reporters.interface import Reporter
from jsoncontract.reporters.text import plural

if TYPE_CHECKING:
    from jsoncontract.diff.model import CallDiff, DiffSummary
    from jsoncontract.model import CallResult, Finding, Summary
    from jsoncontract.settings import ReportOptions

#: Bytes of rendered calls kept in memory before the spool moves to disk.
_SPOOL_BYTES: Final = 8 * 1024 * 1024
#: A payload longer than this (as indented JSON) is cut, saying how much was left out.
MAX_PAYLOAD_CHARS: Final = 64 * 1024
#: Bars in a chart; the rest are summed in one "others" bar.
MAX_BARS: Final = 12

STYLE: Final = """
:root{--fg:#1f2328;--muted:#59636e;--line:#d1d9e0;--bg:#fff;--soft:#f6f8fa;
--bad:#cf222e;--warn:#9a6700;--info:#0969da;--good:#1a7f37}
*{box-sizing:border-box}
body{font:14px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);
background:var(--bg);margin:0 auto;max-width:1200px;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}
.meta{color:var(--muted);margin:0}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:16px 0}
.card{border:1px solid var(--line);border-radius:6px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:22px}.card span{color:var(--muted)}
.card.bad b{color:var(--bad)}.card.good b{color:var(--good)}
.charts{display:flex;flex-wrap:wrap;gap:24px}
figure{margin:0;border:1px solid var(--line);border-radius:6px;padding:12px;flex:1 1 420px}
figcaption{font-weight:600;margin-bottom:6px}
svg text{font:12px system-ui,sans-serif;fill:var(--fg)}
svg .bar{cursor:pointer}svg .bar:hover rect{opacity:.8}
table{border-collapse:collapse;width:100%;margin:6px 0}
th,td{border:1px solid var(--line);padding:4px 8px;text-align:left;vertical-align:top}
th{background:var(--soft)}td.n{text-align:right;font-variant-numeric:tabular-nums}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--soft);border:1px solid var(--line);border-radius:6px;padding:8px;
overflow:auto;max-height:420px;white-space:pre-wrap;word-break:break-word}
details.item{border:1px solid var(--line);border-radius:6px;margin:8px 0;padding:0 10px}
details.item>summary{cursor:pointer;padding:6px 0}
details.item[open]>summary{border-bottom:1px solid var(--line);margin-bottom:6px}
.tag{display:inline-block;font-weight:700;font-size:12px;padding:0 6px;border-radius:4px;
color:#fff;background:var(--muted)}
.tag.fail,.tag.differ,.tag.unreadable,.tag.error{background:var(--bad)}
.tag.warn,.tag.unpaired,.tag.warning{background:var(--warn)}
.tag.ok,.tag.agree{background:var(--good)}.tag.info{background:var(--info)}
.muted{color:var(--muted)}.hint{color:var(--muted);margin-left:1.5em}
ul.findings{list-style:none;padding:0;margin:6px 0}ul.findings li{margin:4px 0}
td.changed{background:#ffebe9}td.expected{background:#dafbe1}td.absent{color:var(--muted)}
.toolbar{display:flex;gap:8px;align-items:center;margin:8px 0}
.toolbar input{flex:1;font:inherit;padding:5px 8px;border:1px solid var(--line);
border-radius:6px}.toolbar button{font:inherit;padding:4px 10px}
.hidden{display:none}
"""

SCRIPT: Final = """
(function(){
  var box=document.getElementById('filter');
  if(!box){return;}
  var items=Array.prototype.slice.call(document.querySelectorAll('[data-search]'));
  var count=document.getElementById('shown');
  function apply(){
    var words=box.value.toLowerCase().split(/\\s+/).filter(Boolean);var n=0;
    items.forEach(function(item){
      var text=item.getAttribute('data-search');
      var keep=words.every(function(w){return text.indexOf(w)>=0;});
      item.classList.toggle('hidden',!keep);if(keep){n++;}
    });
    if(count){count.textContent=String(n);}
  }
  box.addEventListener('input',apply);
  Array.prototype.forEach.call(document.querySelectorAll('[data-filter]'),function(bar){
    bar.addEventListener('click',function(){box.value=bar.getAttribute('data-filter');apply();
      box.scrollIntoView();});
  });
  var toggle=document.getElementById('toggle');
  if(toggle){toggle.addEventListener('click',function(){
    var open=toggle.getAttribute('data-open')!=='1';
    items.forEach(function(item){if(!item.classList.contains('hidden')){item.open=open;}});
    toggle.setAttribute('data-open',open?'1':'0');
    toggle.textContent=open?'Collapse all':'Expand all';
  });}
  apply();
})();
"""

_COLOURS: Final = {
    "envelope": "#8250df",
    "parse": "#cf222e",
    "schema": "#bc4c00",
    "business": "#0969da",
    "result": "#1b7c83",
}


def _hash(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()


#: Only the page's own style and script may run; nothing may be fetched.
POLICY: Final = (
    f"default-src 'none'; style-src '{_hash(STYLE)}'; script-src '{_hash(SCRIPT)}'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)


def h(text: object) -> str:
    """Text as HTML (attribute-safe), with control characters spelt as escapes."""
    value = str(text)
    value = "".join(c if c.isprintable() or c in "\n\t" else f"\\x{ord(c):02x}" for c in value)
    return escape(value, quote=True)


def page(title: str, command: str, body: Iterable[str]) -> Iterable[str]:
    """The page around ``body``: head, style, policy, then the body and the script."""
    yield (
        '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="referrer" content="no-referrer">\n'
        f"<title>{h(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
        f"<header><h1>{h(title)}</h1>\n"
        f'<p class="meta">jsoncontract {h(__version__)} · {h(command)} report</p></header>\n'
    )
    yield from body
    yield f"<script>{SCRIPT}</script>\n</body>\n</html>\n"


def cards(items: Sequence[tuple[str, int, str]]) -> str:
    """The totals as cards: ``(label, number, tone)``."""
    parts = [
        f'<div class="card {tone}"><b>{number:,}</b><span>{h(label)}</span></div>'
        for label, number, tone in items
    ]
    return '<section class="cards">' + "".join(parts) + "</section>\n"


def bar_chart(caption: str, bars: Sequence[tuple[str, int, str]], *, key: str, empty: str) -> str:
    """A horizontal bar chart as inline SVG: ``(label, count, colour)`` per bar, past
    :data:`MAX_BARS` the rest summed in one bar. A bar clicked puts its label in the page's
    filter box; ``key`` names the chart (``data-chart``)."""
    others: str | None = None
    if len(bars) > MAX_BARS:
        rest = sum(count for _, count, _ in bars[MAX_BARS - 1 :])
        others = f"{len(bars) - MAX_BARS + 1} others"
        bars = [*bars[: MAX_BARS - 1], (others, rest, "#6e7781")]
    if not bars or not any(count for _, count, _ in bars):
        return (
            f"<figure><figcaption>{h(caption)}</figcaption>"
            f'<p class="muted">{h(empty)}</p></figure>\n'
        )
    label_w, bar_w, row_h = 150, 280, 26
    top = max(count for _, count, _ in bars) or 1
    height = row_h * len(bars) + 8
    width = label_w + bar_w + 70
    rows = []
    for index, (label, count, colour) in enumerate(bars):
        y = 4 + index * row_h
        length = max(round(bar_w * count / top), 2 if count else 0)
        shown = label if len(label) <= 24 else label[:23] + "…"
        filters = f' class="bar" data-filter="{h(label)}"' if label != others else ""
        rows.append(
            f"<g{filters}><title>{h(label)}: {count:,}</title>"
            f'<text x="{label_w - 8}" y="{y + 17}" text-anchor="end">{h(shown)}</text>'
            f'<rect x="{label_w}" y="{y + 3}" width="{length}" height="{row_h - 8}" rx="3" '
            f'fill="{colour}"/>'
            f'<text x="{label_w + length + 6}" y="{y + 17}">{count:,}</text></g>'
        )
    return (
        f"<figure><figcaption>{h(caption)}</figcaption>"
        f'<svg role="img" aria-label="{h(caption)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" data-chart="{h(key)}">'
        + "".join(rows)
        + "</svg></figure>\n"
    )


def data_table(
    head: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = ()
) -> str:
    """A table; cells are HTML already (escape them with :func:`h`)."""
    out = ["<table><thead><tr>", *(f"<th>{h(c)}</th>" for c in head), "</tr></thead><tbody>"]
    for row in rows:
        out.append("<tr>")
        out.extend(
            f'<td class="n">{cell}</td>' if i in numeric else f"<td>{cell}</td>"
            for i, cell in enumerate(row)
        )
        out.append("</tr>")
    out.append("</tbody></table>\n")
    return "".join(out)


def finding_item(finding: Finding, *, hop: bool = False) -> str:
    """One finding as a list item: severity, code, pointer (and ``hop``, the hop it is
    about), message, hint."""
    severity = finding.severity.value
    where = finding.path or "/"
    if hop and finding.hop is not None:
        where += f" ({finding.hop.value})"
    text = (
        f'<li><span class="tag {severity}">{severity}</span> <code>{h(finding.code)}</code> '
        f"<code>{h(where)}</code>: {h(finding.message)}"
    )
    if finding.baseline is BaselineState.UNCHANGED:
        text += ' <span class="muted">(in the baseline)</span>'
    if finding.hint:
        text += f'<div class="hint">hint: {h(finding.hint)}</div>'
    return text + "</li>"


def shown_payload(value: Any, *, text: bool, show_values: bool) -> str:
    """A payload as a report may show it: indented JSON (or the raw text it arrived as),
    secrets hashed unless ``show_values``, cut past :data:`MAX_PAYLOAD_CHARS`."""
    from jsoncontract import masking

    if text and isinstance(value, str):
        shown = value if show_values else _masked(value)
    else:
        if not show_values:
            value = masking.redacted(value)
        try:
            shown = orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()
        except (orjson.JSONEncodeError, TypeError):
            shown = repr(value)
    if len(shown) > MAX_PAYLOAD_CHARS:
        left = len(shown) - MAX_PAYLOAD_CHARS
        shown = shown[:MAX_PAYLOAD_CHARS] + f"\n… {left:,} more characters"
    return shown


def _masked(text: str) -> str:
    """Raw arguments text with its secrets hashed: the text's sensitive members when it
    parses, and every secret-shaped string (:func:`jsoncontract.masking.masked`)."""
    from jsoncontract import masking

    masked = getattr(masking, "masked", None)
    if masked is not None:
        text = masked(text)
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return text
    return masking.redacted_text(text, value)


class _Spool:
    """Rendered items, in memory up to a few MB and on disk past that."""

    def __init__(self) -> None:
        self.file: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=_SPOOL_BYTES)  # noqa: SIM115
        self.items = 0
        weakref.finalize(self, self.file.close)  # a run that stops before its report

    def add(self, text: str) -> None:
        self.file.write(text.encode("utf-8", "backslashreplace"))
        self.items += 1

    def copy_to(self, stream: IO[bytes]) -> None:
        self.file.seek(0)
        shutil.copyfileobj(self.file, stream, 1 << 20)
        self.file.close()


def _write(stream: IO[bytes], parts: Iterable[str]) -> None:
    for part in parts:
        stream.write(part.encode("utf-8", "backslashreplace"))


def _more(hidden: int, noun: str) -> str:
    if not hidden:
        return ""
    return (
        f'<p class="muted">{hidden:,} more {h(noun if hidden == 1 else noun + "s")} not shown '
        "(--max-shown 0 shows all; --format json lists everything).</p>\n"
    )


def _toolbar(shown: int, noun: str) -> str:
    return (
        '<div class="toolbar"><input id="filter" type="search" '
        f'placeholder="Filter {h(noun)} by tool, code, file or any word" '
        f'aria-label="Filter {h(noun)}">'
        f'<span class="muted"><span id="shown">{shown}</span> shown</span>'
        '<button id="toggle" type="button">Expand all</button></div>\n'
    )


# -- check --------------------------------------------------------------------------------------


class HtmlCheckReporter(Reporter["CallResult", "Summary"]):
    """The ``check`` page."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._root = options.root if options.root is not None else str(project_root())
        self._calls = _Spool()
        self._hidden = 0

    def add(self, result: CallResult) -> None:
        """Render a call with findings (every call with ``--verbose``)."""
        if not result.findings and not self.options.verbose:
            return
        limit = self.options.max_shown
        if limit and self._calls.items >= limit and (result.findings or result.stage):
            self._hidden += 1
            return
        self._calls.add(self._call(result))

    def _call(self, result: CallResult) -> str:
        call = result.call
        where = portable_path(call.source.file, self._root)
        if call.source.line is not None:
            where += f":{call.source.line}"
        status = call_status(result)
        tone = status.lower()
        details = call_details(call)
        words = [where, call.tool or "", *details, *(f.code for f in result.findings)]
        if result.stage is not None:
            words.append(result.stage.value)
        head = (
            f'<span class="tag {tone}">{status}</span> <code>{h(where)}</code> '
            f"<b>{h(call.tool or '(no tool)')}</b>"
        )
        if details:
            head += f' <span class="muted">({h(", ".join(details))})</span>'
        if result.stage is not None:
            head += f" · failed at <b>{h(result.stage.value)}</b>"
        body = ['<ul class="findings">', *(finding_item(f) for f in result.findings), "</ul>"]
        show = self.options.show_values
        if result.arguments is not None:
            body.append("<h4>Arguments (parsed)</h4>")
            body.append(
                f"<pre>{h(shown_payload(result.arguments, text=False, show_values=show))}</pre>"
            )
        elif call.arguments is not None:
            is_text = isinstance(call.arguments, str)
            body.append(f"<h4>Arguments (as received{', a JSON text' if is_text else ''})</h4>")
            body.append(
                f"<pre>{h(shown_payload(call.arguments, text=is_text, show_values=show))}</pre>"
            )
        if call.response is not None:
            body.append("<h4>Tool result</h4>")
            body.append(
                f"<pre>{h(shown_payload(call.response, text=False, show_values=show))}</pre>"
            )
        search = h(" ".join(words).lower())
        opened = " open" if result.stage is not None and self._calls.items < 3 else ""
        return (
            f'<details class="item" data-search="{search}"{opened}><summary>{head}</summary>'
            + "".join(body)
            + "</details>\n"
        )

    def close(self, summary: Summary) -> None:
        """Write the page: the totals and charts, then the spooled calls."""
        from jsoncontract.pipeline.codes import describe

        if summary.failed:
            title = (
                f"jsoncontract check: {summary.failed} of {plural(summary.calls, 'call')} failed"
            )
        else:
            title = f"jsoncontract check: {plural(summary.calls, 'call')} passed"
        sev = summary.by_severity
        head = [
            cards(
                [
                    ("calls", summary.calls, ""),
                    ("ok", summary.ok, "good" if summary.ok else ""),
                    ("failed", summary.failed, "bad" if summary.failed else "good"),
                    ("files", summary.files, ""),
                    ("errors", sev.get("error", 0), "bad" if sev.get("error") else ""),
                    ("warnings", sev.get("warning", 0), ""),
                    ("info", sev.get("info", 0), ""),
                ]
            )
        ]
        run_findings = getattr(summary, "findings", None) or ()  # about the run, not a call
        if run_findings:
            head.append('<h2>Findings about the run</h2><ul class="findings">')
            head.extend(finding_item(f) for f in run_findings)
            head.append("</ul>\n")
        if summary.baseline:
            head.append(
                f'<p class="muted">Compared with a baseline: {summary.baseline.get("new", 0):,} '
                f"new, {summary.baseline.get('unchanged', 0):,} unchanged (those do not fail "
                "the run).</p>\n"
            )
        stages = [
            (s.value, summary.by_stage.get(s.value, 0), _COLOURS[s.value]) for s in STAGE_ORDER
        ]
        tools = sorted(
            ((name, counts[1], "#cf222e") for name, counts in summary.by_tool.items() if counts[1]),
            key=lambda bar: (-bar[1], bar[0]),
        )
        head.append('<h2>Failures</h2><section class="charts">\n')
        head.append(
            bar_chart("Failed calls by stage", stages, key="stage", empty="No call failed.")
        )
        head.append(bar_chart("Failed calls by tool", tools, key="tool", empty="No call failed."))
        head.append("</section>\n")
        if summary.by_code:
            top = sorted(summary.by_code.items(), key=lambda kv: (-kv[1], kv[0]))[:15]
            rows = [
                [f"<code>{h(code)}</code>", f"{count:,}", h(describe(code))] for code, count in top
            ]
            head.append(
                "<h2>Top codes</h2>\n" + data_table(["code", "findings", "meaning"], rows, (1,))
            )
        if summary.by_tool:
            rows = [
                [h(name), f"{calls:,}", f"{failed:,}"]
                for name, (calls, failed) in sorted(summary.by_tool.items())
            ]
            head.append("<h2>Tools</h2>\n" + data_table(["tool", "calls", "failed"], rows, (1, 2)))
        if self._calls.items:
            noun = "calls with findings" if not self.options.verbose else "calls"
            head.append(f"<h2>{h(noun.capitalize())}</h2>\n" + _toolbar(self._calls.items, "calls"))
        parts = list(page(title, "check", head))
        _write(self.stream, parts[:-1])
        self._calls.copy_to(self.stream)
        _write(self.stream, [_more(self._hidden, "call"), parts[-1]])


# -- diff ---------------------------------------------------------------------------------------


class HtmlDiffReporter(Reporter["CallDiff", "DiffSummary"]):
    """The ``diff`` page."""

    def __init__(self, stream: IO[bytes], options: ReportOptions) -> None:
        super().__init__(stream, options)
        self._root = options.root if options.root is not None else str(project_root())
        self._calls = _Spool()
        self._hidden = 0

    def add(self, result: CallDiff) -> None:
        """Render a call that does not agree (every call with ``--verbose``)."""
        from jsoncontract.diff.model import CallStatus

        options = self.options
        if result.status is CallStatus.AGREE and not result.findings and not options.verbose:
            return
        if options.max_shown and self._calls.items >= options.max_shown:
            self._hidden += 1
            return
        self._calls.add(self._call(result))

    def _call(self, result: CallDiff) -> str:
        from jsoncontract.diff.rows import count_leaves
        from jsoncontract.reporters.diff_text import AUTO_ROWS, verdict

        status = result.status.value
        tool = h(result.tool or "(no tool)")
        head = f'<span class="tag {status}">{status.upper()}</span> <b>{tool}</b>'
        if result.call_id:
            head += f' <span class="muted">· {h(result.call_id)}</span>'
        unexpected = len(result.unexpected)
        if unexpected:
            head += f" · {h(plural(unexpected, 'unexpected difference'))}"
        expected = len(result.differences) - unexpected
        if expected:
            head += f" · {expected} expected"
        views = result.hops
        body = []
        hop_rows = []
        for view in views:
            call = view.call
            where = portable_path(call.source.file, self._root)
            if call.source.line is not None:
                where += f":{call.source.line}"
            checks = (
                "parsed"
                if view.parsed
                else ("compared as received" if view.available else "not compared")
            )
            if view.valid is True:
                checks += " · schema ok"
            elif view.valid is False:
                checks += " · schema failed"
            dialect = h(str(call.dialect or "?"))
            cells = [f"<b>{h(view.hop.value)}</b>", dialect, f"<code>{h(where)}</code>"]
            hop_rows.append([*cells, h(checks), h(view.matched_by)])
        if hop_rows:
            body.append(data_table(["hop", "dialect", "where", "checks", "paired by"], hop_rows))
        mode = self.options.rows
        total = max((count_leaves(v.value, AUTO_ROWS) for v in views if v.available), default=0)
        changed_only = mode == "changed" or (mode == "auto" and total > AUTO_ROWS)
        rows = result.rows(changed_only=changed_only)
        if changed_only:
            rows = [r for r in rows if r.differences]
        if rows:
            out = ["<table><thead><tr><th>path</th>"]
            out.extend(f"<th>{h(v.hop.value)}</th>" for v in views)
            out.append("<th>verdict</th></tr></thead><tbody>")
            for row in rows:
                tones: dict[int, str] = {}
                for difference in row.differences:
                    for index, view in enumerate(views):
                        if view.hop is difference.to_hop and tones.get(index) != "changed":
                            tones[index] = "expected" if difference.expected else "changed"
                out.append(f"<tr><td><code>{h(row.path or '/')}</code></td>")
                for index, cell in enumerate(row.cells):
                    if cell is None:
                        out.append('<td class="absent">—</td>')
                        continue
                    path, text = cell
                    shown = f"{path}: {text}" if path != row.path else text
                    tone = tones.get(index, "")
                    attr = f' class="{tone}"' if tone else ""
                    out.append(f"<td{attr}><code>{h(shown)}</code></td>")
                word, _ = verdict(row.differences)
                out.append(f"<td>{h(word)}</td></tr>")
            out.append("</tbody></table>\n")
            body.append("".join(out))
            if changed_only and total > len(rows):
                body.append(
                    '<p class="muted">Only the members that changed are shown '
                    "(--rows all shows every member).</p>"
                )
        notes = []
        for d in result.differences:
            tone = d.severity.value
            text = (
                f'<li><span class="tag {tone}">{"expected" if d.expected else "unexpected"}</span> '
                f"<code>{h(d.code.value)}</code> {h(d.message)}"
            )
            if d.hint:
                text += f'<div class="hint">hint: {h(d.hint)}</div>'
            elif d.rule:
                text += f'<div class="hint">rule: {h(d.rule)}</div>'
            notes.append(text + "</li>")
        notes.extend(finding_item(f, hop=True) for f in result.findings)
        if notes:
            body.append('<ul class="findings">' + "".join(notes) + "</ul>")
        words = [result.tool or "", result.call_id or "", status]
        words.extend(d.code.value for d in result.differences)
        words.extend(f.code for f in result.findings)
        words.extend(portable_path(v.call.source.file, self._root) for v in views)
        return (
            f'<details class="item" data-search="{h(" ".join(words).lower())}"'
            f"{' open' if not result.ok and self._calls.items < 3 else ''}>"
            f"<summary>{head}</summary>" + "".join(body) + "</details>\n"
        )

    def close(self, summary: DiffSummary) -> None:
        """Write the page: the totals and charts, then the spooled calls."""
        from jsoncontract.diff.model import CallStatus

        status = summary.by_status
        if summary.failed:
            diffed = plural(summary.calls, "call")
            title = f"jsoncontract diff: {summary.failed} of {diffed} differ or fail"
        else:
            title = f"jsoncontract diff: {plural(summary.calls, 'call')}, the hops agree"
        unexpected = sum(summary.unexpected.values())
        expected = sum(summary.expected.values())
        head = [
            cards(
                [
                    ("calls", summary.calls, ""),
                    ("agree", status.get("agree", 0), "good" if status.get("agree") else ""),
                    ("differ", status.get("differ", 0), "bad" if status.get("differ") else "good"),
                    ("unpaired", status.get("unpaired", 0), ""),
                    ("unexpected differences", unexpected, "bad" if unexpected else "good"),
                    ("expected differences", expected, ""),
                ]
            )
        ]
        tones = {
            "agree": "#1a7f37",
            "differ": "#cf222e",
            "unpaired": "#9a6700",
            "unreadable": "#6e7781",
        }
        calls = [(s.value, status.get(s.value, 0), tones[s.value]) for s in CallStatus]
        kinds = sorted(summary.unexpected.items(), key=lambda kv: (-kv[1], kv[0]))
        head.append('<h2>Overview</h2><section class="charts">\n')
        head.append(bar_chart("Calls by status", calls, key="status", empty="No call."))
        head.append(
            bar_chart(
                "Unexpected differences by kind",
                [(code, count, "#cf222e") for code, count in kinds],
                key="kind",
                empty="No unexpected difference.",
            )
        )
        head.append("</section>\n")
        if summary.findings:
            head.append('<h2>Findings about the run</h2><ul class="findings">')
            head.extend(finding_item(f) for f in summary.findings)
            head.append("</ul>\n")
        if self._calls.items:
            head.append("<h2>Calls</h2>\n" + _toolbar(self._calls.items, "calls"))
        parts = list(page(title, "diff", head))
        _write(self.stream, parts[:-1])
        self._calls.copy_to(self.stream)
        _write(self.stream, [_more(self._hidden, "call"), parts[-1]])


__all__ = ["POLICY", "HtmlCheckReporter", "HtmlDiffReporter", "bar_chart", "h", "shown_payload"]
