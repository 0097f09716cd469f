"""What a tool result must never pour back into the conversation: stack traces, HTML error
pages and secrets.

Pure functions over the strings of a result (:func:`jsoncontract.payload.texts`);
the result gate (:mod:`jsoncontract.pipeline.result`) turns what they find into findings.
Nothing found is ever quoted: a stack trace is named by its language, frame count and
place; a secret by its kind, a hash and its place (:func:`jsoncontract.masking.find_secrets`,
whose one table of patterns the reports' redaction uses too).

Stack traces are recognised by the frames each runtime prints (two frames at least, or the
runtime's own header and one frame):

========== ==================================================================
python     ``Traceback (most recent call last):``, ``File "app.py", line 3, in f``
javascript ``    at handler (/srv/app.js:12:5)`` (V8: Node, Deno, Chrome)
java       ``	at com.acme.Orders.get(Orders.java:42)``, ``Caused by:`` (JVM languages)
go         ``goroutine 1 [running]:``, ``	/srv/main.go:27 +0x1d``
dotnet     ``   at Acme.Orders.Get(String id) in C:\\src\\Orders.cs:line 42``
========== ==================================================================

An HTML error page is a text that is an HTML document (it starts with ``<!DOCTYPE html``
or ``<html``) and is an error: the result says it failed, or the page's title or first
heading names an HTTP error status or an error. Every regular expression here is linear
in its input (bounded repetitions, no nested quantifiers).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from jsoncontract.masking import masked

#: The languages whose stack traces are recognised, with the name a report gives them.
LANGUAGES: Final = {
    "python": "Python",
    "javascript": "JavaScript",
    "java": "Java",
    "go": "Go",
    "dotnet": ".NET",
}

_PY_HEADER: Final = re.compile(r"Traceback \(most recent call last\):")
_PY_FRAME: Final = re.compile(r'File "[^"\n]{1,500}", line \d{1,7}')
_JS_FRAME: Final = re.compile(r"^[ \t]*at [^\n]{0,400}?:\d{1,7}:\d{1,7}\)?[ \t]*\r?$", re.M)
_JAVA_FRAME: Final = re.compile(
    r"^[ \t]*at [\w$.<>/-]{1,400}\((?:[\w$.-]{1,200}\.(?:java|kt|kts|scala|groovy|clj):\d{1,7}"
    r"|Native Method|Unknown Source)\)",
    re.M,
)
_JAVA_HEADER: Final = re.compile(r'Exception in thread "|^Caused by: [\w$.]{1,300}', re.M)
_GO_HEADER: Final = re.compile(r"goroutine \d{1,9} \[[^\]\n]{1,100}\]:")
_GO_FRAME: Final = re.compile(r"^\t[^\n]{1,500}?\.go:\d{1,7}(?: \+0x[0-9a-f]{1,16})?\r?$", re.M)
_DOTNET_FRAME: Final = re.compile(
    r"^[ \t]*at [\w.`$<>+|\[\],-]{1,400}\([^()\n]{0,500}\)(?: in [^\n]{1,500}?:line \d{1,7})?"
    r"[ \t]*\r?$",
    re.M,
)
_DOTNET_HEADER: Final = re.compile(r"--- End of (?:inner exception )?stack trace")
#: Words one of the languages' traces always holds: texts without any are not searched.
_MARKERS: Final = ("Traceback", 'File "', "at ", ".go:", "goroutine ")

_HTML_START: Final = re.compile(
    r"(?i)^\s*(?:<\?xml[^>]{0,200}\?>\s*)?(?:<!doctype\s+html|<html[\s>])"
)
_TITLE: Final = re.compile(r"(?is)<(title|h1)(?:\s[^>]{0,200})?>\s*([^<]{0,300}?)\s*</\1>")
_ERROR_WORDS: Final = re.compile(
    r"(?i)\b(?:[45]\d\d|error|exception|not found|forbidden|unauthori[sz]ed|bad gateway|"
    r"bad request|service unavailable|gateway time-?out|too many requests|access denied|"
    r"something went wrong)\b"
)
_HTML_HEAD: Final = 4096


@dataclass(frozen=True, slots=True)
class StackTrace:
    """A stack trace in a text: its language (a key of :data:`LANGUAGES`), how many frames
    it shows, and the pointer of the string holding it."""

    language: str
    frames: int
    pointer: str

    @property
    def label(self) -> str:
        """The language as a report names it."""
        return LANGUAGES[self.language]


@dataclass(frozen=True, slots=True)
class HtmlPage:
    """An HTML error page in a text: its title (or first heading), masked, if it has one."""

    title: str | None
    pointer: str


def may_leak(text: str) -> bool:
    """Whether ``text`` may hold a stack trace or an HTML page (one of their markers is in
    it): a text without one holds neither, nor does any string its JSON holds, unless it
    has escapes (``\\``) that decoding turns into a marker."""
    if "\\" in text or "<" in text:
        return True
    for marker in _MARKERS:  # noqa: SIM110 - a loop is a third faster than any() here
        if marker in text:
            return True
    return False


def json_may_leak(text: str) -> bool:
    r"""Whether any string of a value may leak (:func:`may_leak`), told from the value's JSON
    text as ``orjson`` writes it (member names included): a string holding a backslash is
    written with two in a row (the second character of an escape is a backslash only
    then), one holding ``<`` or a marker shows it as it is, a quote being written ``\"``
    (``File "`` as ``File \"``). A JSON text that a string holds, its quotes escaped,
    does not count against it, as it does for :func:`may_leak` on the text itself.

    >>> json_may_leak('[{"type":"text","text":"{\"a\":1}"}]'), json_may_leak('["<b>"]')
    (False, True)
    """
    if "\\\\" in text or "<" in text or 'File \\"' in text:
        return True
    for marker in _MARKERS:  # noqa: SIM110 - as in may_leak
        if marker in text:
            return True
    return False


def stack_traces(text: str, pointer: str = "") -> list[StackTrace]:
    """The stack traces in ``text``, one per language found."""
    if not any(marker in text for marker in _MARKERS):
        return []
    out = []
    python = len(_PY_FRAME.findall(text))
    if python >= 2 or (python and _PY_HEADER.search(text)):
        out.append(StackTrace("python", python, pointer))
    if "at " in text:
        java = len(_JAVA_FRAME.findall(text))
        if java >= 2 or (java and _JAVA_HEADER.search(text)):
            out.append(StackTrace("java", java, pointer))
        javascript = len(_JS_FRAME.findall(text))
        if javascript >= 2:
            out.append(StackTrace("javascript", javascript, pointer))
        if not java:  # a Java frame would also read as a .NET one
            dotnet = len(_DOTNET_FRAME.findall(text))
            if dotnet >= 2 or (dotnet and _DOTNET_HEADER.search(text)):
                out.append(StackTrace("dotnet", dotnet, pointer))
    if ".go:" in text:
        go = len(_GO_FRAME.findall(text))
        if go >= 2 or (go and _GO_HEADER.search(text)):
            out.append(StackTrace("go", go, pointer))
    return out


def html_error_page(text: str, pointer: str = "", *, failed: bool = False) -> HtmlPage | None:
    """The HTML error page ``text`` is, or ``None``. ``failed``: the result already says
    the call failed, so any HTML page is the error's."""
    if not _HTML_START.match(text[:_HTML_HEAD]):
        return None
    titles = [m.group(2) for m in _TITLE.finditer(text[: _HTML_HEAD * 4])]
    title = next((t for t in titles if t), None)
    if not failed and not any(_ERROR_WORDS.search(t) for t in titles):
        return None
    return HtmlPage(masked(" ".join(title.split()))[:120] if title else None, pointer)


def first_per_language(found: Iterable[StackTrace]) -> list[StackTrace]:
    """One trace per language (the first place, the most frames seen there)."""
    out: dict[str, StackTrace] = {}
    for trace in found:
        if trace.language not in out:
            out[trace.language] = trace
    return list(out.values())
