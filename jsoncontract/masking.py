"""Keep secrets out of reports.

Every report that quotes a payload hides secrets through this module, in one of three ways:

- :func:`redacted`, for a value about to be shown (a value in a message, a cell of the diff
  table, a value in a JSON Patch, a repaired preview): the whole value when its pointer
  names a sensitive member, else every sensitive member and every secret-looking string
  inside it, at any depth;
- :func:`redacted_text`, for a message that may quote strings taken from a value (the
  messages business rules write), and :func:`masked`, for any text at all (an error line,
  a parse diagnosis);
- :func:`pointer_is_sensitive`, for code that only needs to know (a hint that would repeat
  the value).

A hidden value is replaced by its :func:`placeholder`, a short stable hash, so two reports
can still be compared without either one leaking the value. ``--show-values`` turns all of
this off.

What is secret is decided here, two ways:

- by the member's name (:func:`is_sensitive`: token, password, secret, authorization,
  api_key, email...), including the ``value`` of a ``{"name": "Authorization", "value":
  ...}`` header pair;
- by the value's form, whatever its name: the patterns of :data:`SECRET_PATTERNS` (provider
  and cloud key formats, JWTs, bearer and basic credentials, private key blocks, passwords in
  URLs and ``NAME=secret`` assignments), plus high-entropy strings held under header names.
  A string that holds one is shown with each secret replaced by
  ``<redacted KIND sha256:...>``.

:func:`find_secrets` answers "which secrets are in this value or text" (kind, hash and
place, never the secret) for code that must report them rather than hide them.

>>> redacted({"user": "bob", "login": {"password": "hunter2"}})
{'user': 'bob', 'login': {'password': '<redacted sha256:4ddbb67b>'}}
>>> redacted("hunter2", "/login/password")
'<redacted sha256:4ddbb67b>'
>>> redacted({"note": "key AKIAIOSFODNN7EXAMPLE"})
{'note': 'key <redacted aws-access-key-id sha256:b55d89f2>'}
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any, Final, TypeGuard

import orjson

from jsoncontract.pointer import join_pointer, pointer_tokens

#: Member names whose values are hidden (searched anywhere in the name, any case). Token
#: counts (``max_tokens``, ``input_tokens``, ``tokenCount``) and ``token_type`` are not.
SENSITIVE_NAMES: Final = re.compile(
    r"(?i)(pass(word|wd|phrase)?|secret|token(?!s|_?count|_?type|izer)|api[_-]?key|apikey|"
    r"auth(orization)?|"
    r"credential|cookie|session|private[_-]?key|e[_-]?mail|ssn|card[_-]?number|cvv|pin$|"
    r"signature)"
)
#: Containers nested deeper than this are hidden whole rather than searched.
SEARCH_DEPTH: Final = 100
#: Strings shorter than this are not searched for in messages (they match too much text).
_SHORTEST_QUOTED: Final = 4
_PREFIXES: Final = ("<redacted sha256:", "<redacted: ", "<redacted ")


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """One form of secret recognised by its value.

    ``kind`` names it in reports (``<redacted KIND sha256:...>``); ``regex`` finds it in any
    text, and when it has a group named ``value`` only that group is the secret (``Bearer``
    and ``password=`` stay readable). No regex nests quantifiers: each runs in linear time.
    """

    kind: str
    description: str
    regex: str
    #: lower-case strings one of which every match holds: a text holding none of them is not
    #: searched (empty: always searched)
    markers: tuple[str, ...] = ()


#: Secrets recognised by their form, whatever member holds them: one table, consulted by
#: every report (through :func:`redacted`, :func:`redacted_text` and :func:`masked`) and by
#: :func:`find_secrets`. Formats as their issuers document them; the first pattern that
#: matches at a place names the kind, so the more specific come first.
SECRET_PATTERNS: Final[tuple[SecretPattern, ...]] = (
    SecretPattern(
        "private-key",
        "a PEM private key block (RSA, EC, DSA, OpenSSH, PKCS#8, PGP), to its END line or "
        "the end of the text",
        r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?:[^-]|-(?!----END))*(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)?",
        markers=("-----begin",),
    ),
    SecretPattern(
        "aws-access-key-id",
        "an AWS access key id (AKIA, ASIA, ABIA, ACCA, A3T + 16 upper-case letters or digits)",
        r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z0-9]{16}(?![A-Z0-9])",
        markers=("akia", "asia", "abia", "acca", "a3t"),
    ),
    SecretPattern(
        "anthropic-api-key",
        "an Anthropic API key (sk-ant-...)",
        r"\bsk-ant-[A-Za-z0-9_-]{20,}",
        markers=("sk-ant-",),
    ),
    SecretPattern(
        "openai-api-key",
        "an OpenAI API key (sk-..., sk-proj-..., sk-svcacct-...)",
        r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}",
        markers=("sk-",),
    ),
    SecretPattern(
        "stripe-key",
        "a Stripe secret or restricted key (sk_live_, rk_test_...)",
        r"\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}",
        markers=("sk_live_", "sk_test_", "rk_live_", "rk_test_"),
    ),
    SecretPattern(
        "github-token",
        "a GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
        markers=("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
    ),
    SecretPattern(
        "gitlab-token",
        "a GitLab personal access token (glpat-...)",
        r"\bglpat-[A-Za-z0-9_-]{20,}",
        markers=("glpat-",),
    ),
    SecretPattern(
        "slack-token",
        "a Slack token (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-...) or incoming webhook URL",
        r"\bxox[abposr]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}",
        markers=("xox", "hooks.slack.com"),
    ),
    SecretPattern(
        "google-api-key",
        "a Google API key (AIza + 35 characters)",
        r"\bAIza[0-9A-Za-z_-]{35}",
        markers=("aiza",),
    ),
    SecretPattern(
        "google-oauth-token",
        "a Google OAuth access token (ya29.)",
        r"\bya29\.[0-9A-Za-z_-]{20,}",
        markers=("ya29.",),
    ),
    SecretPattern(
        "huggingface-token",
        "a Hugging Face access token (hf_...)",
        r"\bhf_[A-Za-z0-9]{30,}",
        markers=("hf_",),
    ),
    SecretPattern(
        "npm-token",
        "an npm access token (npm_ + 36 characters)",
        r"\bnpm_[A-Za-z0-9]{36}",
        markers=("npm_",),
    ),
    SecretPattern(
        "pypi-token",
        "a PyPI upload token (pypi-AgEIcHlwaS5vcmc...)",
        r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{20,}",
        markers=("pypi-",),
    ),
    SecretPattern(
        "azure-storage-key",
        "an Azure storage account key or SAS signature in a connection string",
        r"(?i:\b(?:AccountKey|SharedAccessKey|sig)=(?P<value>[A-Za-z0-9+/%]{30,}={0,2}))",
        markers=("accountkey=", "sharedaccesskey=", "sig="),
    ),
    SecretPattern(
        "jwt",
        "a JSON Web Token (three base64url parts, the first two JSON objects: eyJ...)",
        r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*",
        markers=("eyj",),
    ),
    SecretPattern(
        "bearer-token",
        "an HTTP Bearer or Basic credential (Bearer ..., Basic ...)",
        r"(?i:\b(?:bearer|basic)[ \t]+(?=[A-Za-z]{0,300}[0-9._~+/=-])"
        r"(?P<value>[A-Za-z0-9._~+/-]{12,}=*))",
        markers=("bearer", "basic"),
    ),
    SecretPattern(
        "url-password",
        "a password in a URL (scheme://user:password@host)",
        r"(?i:\b[a-z][a-z0-9+.-]{1,20}://[^\s:/?#@\"'<>]{1,256}:(?P<value>[^\s/?#@\"'<>]{1,256})@)",
        markers=("://",),
    ),
    SecretPattern(
        "assigned-secret",
        "a secret-named setting given a value in text (OPENAI_API_KEY=..., password: ...)",
        r"(?i:\b[a-z0-9_.-]{0,40}(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|apikey|"
        r"credential|private[_-]?key|signature)[a-z0-9_.-]{0,40}[ \t]{0,4}[=:][ \t]{0,4}"
        # the whole value: past an & that starts no other name=value pair (a=b&3horse)
        r"[\"']?(?P<value>(?![0-9]+\b)[^\s\"',;&<>]{4,}"
        r"(?:&(?![^\s\"',;&<>=]*=)[^\s\"',;&<>]+)*))",
        markers=(
            "pass",
            "secret",
            "token",
            "signature",
            "api_key",
            "api-key",
            "apikey",
            "credential",
            "private_key",
            "private-key",
            "privatekey",
        ),
    ),
)


#: Any value pattern, one named group per kind (group ``p3`` is ``SECRET_PATTERNS[3]``,
#: ``v3`` its ``value`` group if it has one).
@cache
def _any_secret() -> re.Pattern[str]:
    """The combined pattern, compiled when a string is first searched (about 10 ms, which
    a command that never shows a value does not pay at start-up)."""
    return re.compile(
        "|".join(
            f"(?P<p{i}>{p.regex.replace('(?P<value>', f'(?P<v{i}>')})"
            for i, p in enumerate(SECRET_PATTERNS)
        )
    )


#: Every pattern's markers, and whether some pattern has none (then every text is searched).
_MARKERS: Final = tuple(dict.fromkeys(m for p in SECRET_PATTERNS for m in p.markers))
_UNMARKED: Final = any(not p.markers for p in SECRET_PATTERNS)
_VALUE_GROUPS: Final = frozenset(
    f"v{i}" for i, p in enumerate(SECRET_PATTERNS) if "(?P<value>" in p.regex
)
#: Strings shorter than this hold no pattern above (the shortest: ``pass=abcd``, a name and
#: four characters, and ``ab://u:p@``, a one-character password in a URL).
_SHORTEST_SECRET: Final = 9
#: A string under a header name is a secret when it is at least this long, looks like a
#: token (no spaces) and its characters carry at least this many bits each.
HEADER_SECRET_LENGTH: Final = 16
HEADER_SECRET_BITS: Final = 3.5
_TOKEN_LIKE: Final = re.compile(r"[A-Za-z0-9+/_.~=:-]+")
#: Member names that hold HTTP headers, and names that are header names.
_HEADER_CONTAINERS: Final = frozenset({"headers", "header", "http_headers", "httpheaders"})
_HEADER_NAME: Final = re.compile(r"(?i)^x-[a-z0-9-]+$")


@dataclass(frozen=True, slots=True)
class SecretFound:
    """One secret found in a value: what kind, a hash of it, and where (never the secret).

    ``pointer`` is the JSON Pointer of the string holding it (``""`` for bare text);
    ``start``/``end`` the span inside that string, or ``None`` when the whole value is
    hidden (a member whose name is sensitive, kind ``sensitive-name``; a header value,
    kind ``header-value``).
    """

    kind: str
    digest: str
    pointer: str
    start: int | None = None
    end: int | None = None

    @property
    def label(self) -> str:
        """What a report shows in place of the secret: ``<redacted KIND sha256:1a2b3c4d>``."""
        return f"<redacted {self.kind} sha256:{self.digest}>"

    def describe(self) -> str:
        """One line for a report: kind, hash and place, e.g. ``jwt sha256:1a2b3c4d at
        /note[4:120]``."""
        where = self.pointer or "/"
        if self.start is not None:
            where += f"[{self.start}:{self.end}]"
        return f"{self.kind} sha256:{self.digest} at {where}"

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON reports write it."""
        return {
            "kind": self.kind,
            "sha256": self.digest,
            "pointer": self.pointer,
            "start": self.start,
            "end": self.end,
        }


@lru_cache(maxsize=8192)  # payloads repeat their member names
def is_sensitive(name: str | None) -> bool:
    """Whether a member name looks like it holds a secret or personal data.

    >>> is_sensitive("X-Api-Key"), is_sensitive("user_email"), is_sensitive("city")
    (True, True, False)
    """
    return bool(name) and SENSITIVE_NAMES.search(name) is not None  # type: ignore[arg-type]


@lru_cache(maxsize=8192)  # the same few paths come back in every report
def pointer_is_sensitive(pointer: str) -> bool:
    """Whether any member on a JSON Pointer path has a sensitive-looking name (array
    indexes are not names)."""
    return any(is_sensitive(t) for t in pointer_tokens(pointer) if t and not t.isdigit())


def digest(value: Any) -> str | None:
    """The first 8 hex digits of the SHA-256 of ``value`` as sorted compact JSON (``None``
    when it cannot be hashed)."""
    try:
        data = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    except TypeError:  # orjson.JSONEncodeError: lone surrogates, or deeper than orjson writes
        try:
            data = repr(value).encode("utf-8", "surrogatepass")
        except RecursionError:
            return None
    return hashlib.sha256(data).hexdigest()[:8]


def placeholder(value: Any) -> str:
    """A short stable hash standing in for a hidden value: ``<redacted sha256:1a2b3c4d>``.

    Member order does not change it; a value too deep to hash gets a fixed text instead.
    """
    hashed = digest(value)
    if hashed is None:
        return "<redacted: nested too deeply to hash>"
    return f"<redacted sha256:{hashed}>"


def is_placeholder(value: Any) -> TypeGuard[str]:
    """Whether ``value`` is what :func:`placeholder` (or a value pattern) puts in place of a
    hidden value."""
    return isinstance(value, str) and value.startswith(_PREFIXES) and value.endswith(">")


def _entropy(text: str) -> float:
    """Shannon entropy of ``text`` in bits per character."""
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def looks_random(text: str) -> bool:
    """Whether a string under a header name is a credential: long enough, one token, mixed
    letters and digits, and high entropy (:data:`HEADER_SECRET_LENGTH`,
    :data:`HEADER_SECRET_BITS`).

    >>> looks_random("q8Zr2LxV9nWb4TfK7mPc"), looks_random("application/json")
    (True, False)
    """
    return (
        HEADER_SECRET_LENGTH <= len(text) <= 4096
        and _TOKEN_LIKE.fullmatch(text) is not None
        and any(c.isdigit() for c in text)
        and any(c.isalpha() for c in text)
        and _entropy(text) >= HEADER_SECRET_BITS
    )


def may_hold_secret(text: str) -> bool:
    """Whether ``text`` holds a marker of some pattern (:attr:`SecretPattern.markers`): a
    text that does not holds no value-pattern secret, and is not searched (most strings of a
    payload; the one regular expression of every pattern costs tens of microseconds a
    string, the markers a few)."""
    if len(text) < _SHORTEST_SECRET:
        return False
    if _UNMARKED:
        return True
    lowered = text.lower()
    for marker in _MARKERS:  # noqa: SIM110 - a third faster than any() over a generator
        if marker in lowered:
            return True
    return False


def json_may_hold_secret(text: str, pointer: str = "") -> bool:
    """Whether the JSON text of a value at ``pointer`` (as ``orjson`` writes it, member
    names included) may hold what :func:`find_secrets` finds in the value by value
    (``by_name=False``): the value sits under a header name, or its text holds a marker
    of some pattern, or a header name (``X-...``) or container (``headers``) for a header
    value. No marker and neither word holds a character JSON escapes, so a string that holds
    one shows it in the text: a text without any is of a value :func:`find_secrets` finds
    nothing in (most results), told without a walk.

    >>> json_may_hold_secret('{"city":"Paris"}'), json_may_hold_secret('{"k":"sk-abc"}')
    (False, True)
    """
    if _under_header(pointer):
        return True
    lowered = text.lower()
    for marker in _MARKERS:
        if marker in lowered:
            return True
    return "x-" in lowered or "header" in lowered


def secret_spans(text: str) -> Iterator[tuple[str, int, int]]:
    """``(kind, start, end)`` of every value-pattern secret in ``text``.

    >>> list(secret_spans("id AKIAIOSFODNN7EXAMPLE"))
    [('aws-access-key-id', 3, 23)]
    """
    if not may_hold_secret(text):
        return
    for match in _any_secret().finditer(text):
        index, start, end = _where(match)
        yield SECRET_PATTERNS[index].kind, start, end


def _where(match: re.Match[str]) -> tuple[int, int, int]:
    """The pattern a match of :func:`_any_secret` is, and the span of the secret in it."""
    group = match.lastgroup or "p0"
    index = int(group[1:])
    value = f"v{index}"
    if value in _VALUE_GROUPS:
        start, end = match.start(value), match.end(value)
        inner = _any_secret().fullmatch(match.string, start, end)  # a key in NAME=key
        if inner is not None and inner.lastgroup is not None and inner.lastgroup != f"p{index}":
            index = int(inner.lastgroup[1:])
        return index, start, end
    return index, match.start(), match.end()


#: Values this process took from the environment to reach a server (``${VAR}`` in a host
#: config): credentials by where they came from, whatever their form (see :func:`hide`).
_HIDDEN: Final[dict[str, str]] = {}
#: Shorter values are not hidden in text (they would hide too much of it).
_SHORTEST_HIDDEN: Final = 4


def hide(value: str) -> None:
    """Mask ``value`` wherever :func:`masked` (and so every error line and report text)
    runs from now on: a value expanded from the environment never shows.

    >>> hide("q1w2e3-secret-path"); masked("GET /q1w2e3-secret-path/mcp")
    'GET /<redacted environment-value sha256:7025ceb4>/mcp'
    """
    if len(value) >= _SHORTEST_HIDDEN and value not in _HIDDEN:
        _HIDDEN[value] = f"<redacted environment-value sha256:{digest(value)}>"
        _masked.cache_clear()


def hidden_count() -> int:
    """How many values :func:`hide` took so far (what a text remembered masked may miss)."""
    return len(_HIDDEN)


def _may_mask(text: str) -> bool:
    """Whether :func:`masked` may change ``text``: it holds a marker of some pattern, or a
    value has been hidden (:func:`hide`), which holds no marker."""
    return bool(_HIDDEN) or may_hold_secret(text)


def _mask(text: str) -> str:
    """``text`` with every value-pattern secret replaced by its label (itself when none)."""
    if _HIDDEN:
        for value in sorted(_HIDDEN, key=len, reverse=True):
            if value in text:
                text = text.replace(value, _HIDDEN[value])
    if not may_hold_secret(text):
        return text
    return _any_secret().sub(_label_of, text)


def _label_of(match: re.Match[str]) -> str:
    index, start, end = _where(match)
    text = match.string
    whole = match.start()
    secret = text[start:end]
    label = f"<redacted {SECRET_PATTERNS[index].kind} sha256:{digest(secret)}>"
    return text[whole:start] + label + text[end : match.end()]


def masked(text: str) -> str:
    """``text`` with every secret recognised by its form (:data:`SECRET_PATTERNS`) replaced
    by ``<redacted KIND sha256:...>``: for any line a report or an error message writes.

    >>> masked("OPENAI_API_KEY=sk-abcdefghijklmnopqrstuvwx failed")
    'OPENAI_API_KEY=<redacted openai-api-key sha256:ad41cd91> failed'
    """
    if len(text) > _REMEMBERED_TEXT:
        return _mask(text)
    return _masked(text)


#: The longest text whose masked form is remembered (report lines repeat: lint writes the
#: same message for many tools, and the same hint for every finding of a rule).
_REMEMBERED_TEXT: Final = 1000


@lru_cache(maxsize=8192)
def _masked(text: str) -> str:
    """:func:`masked`, remembered."""
    return _mask(text)


def masked_pointer(pointer: str) -> str:
    """A JSON Pointer with every member name (token) that holds a secret by its form masked
    as :func:`masked` masks text: a payload's member names are payload too.

    >>> masked_pointer("/args/sk-abcdefghijklmnopqrstuvwx/n")
    '/args/<redacted openai-api-key sha256:ad41cd91>/n'
    """
    if not _may_mask(pointer):
        return pointer
    return join_pointer("", *(masked(token) for token in pointer_tokens(pointer)))


def masked_names(pointer: str, *texts: str | None) -> tuple[str | None, ...]:
    """``pointer`` masked as :func:`masked_pointer` masks it, and ``texts`` (a message, a
    hint that name the members of the pointer) with each member name that was masked in it
    masked the same way; the same objects when nothing holds a secret.

    >>> key = "sk-abcdefghijklmnopqrstuvwx"
    >>> masked_names(f"/{key}", f"{key!r} is not allowed")[1]
    "'<redacted openai-api-key sha256:ad41cd91>' is not allowed"
    """
    if not _may_mask(pointer):
        return (pointer, *texts)
    tokens = pointer_tokens(pointer)
    hidden = [(t, masked(t)) for t in tokens]
    hidden = [(t, m) for t, m in hidden if m != t]
    if not hidden:
        return (pointer, *texts)
    out: list[str | None] = [join_pointer("", *(masked(t) for t in tokens))]
    for text in texts:
        if text is not None:
            for token, mask in hidden:
                text = text.replace(token, mask)
        out.append(text)
    return tuple(out)


def masked_value(value: Any) -> Any:
    """``value`` with :func:`masked` applied to every string in it (not to member names):
    for values a report shows that are not a payload's, such as a schema's ``default`` or
    the arguments a probe generated, where a name says nothing about being secret.

    >>> masked_value({"default": "key AKIAIOSFODNN7EXAMPLE", "n": 1})
    {'default': 'key <redacted aws-access-key-id sha256:b55d89f2>', 'n': 1}
    """
    if isinstance(value, str):
        return _mask(value)
    if isinstance(value, list):
        return [masked_value(v) for v in value]
    if isinstance(value, dict):
        return {k: masked_value(v) for k, v in value.items()}
    return value


def is_header_name(name: str | None) -> bool:
    """Whether a member name is an HTTP header's that carries no fixed meaning (``X-...``).

    >>> is_header_name("X-Request-Signature"), is_header_name("city")
    (True, False)
    """
    return bool(name) and _HEADER_NAME.match(name) is not None  # type: ignore[arg-type]


def _header_pair(value: dict[str, Any]) -> tuple[bool, bool]:
    """For ``{"name": H, "value": V}`` (a header or environment pair): whether ``V`` is
    hidden by ``H``'s name, and whether ``H`` is a header name (``V`` hidden if random)."""
    name = value.get("name", value.get("key"))
    if not isinstance(name, str) or "value" not in value:
        return False, False
    return is_sensitive(name), is_header_name(name)


def _shown_string(text: str, header: bool) -> str:
    """A string as a report shows it: a header value that looks random is hidden whole,
    else each value-pattern secret in it is."""
    if header and looks_random(text):
        return placeholder(text)
    return _mask(text)


def redacted(value: Any, pointer: str | None = None) -> Any:
    """``value`` as a report may show it.

    Its :func:`placeholder` when ``pointer`` (where the value sits) names a sensitive
    member; otherwise the value with every member whose name looks sensitive, at any depth,
    replaced by its placeholder, so that quoting an object does not leak its ``password``,
    and every string holding a secret recognised by its form shown with that secret
    replaced. Containers deeper than :data:`SEARCH_DEPTH` are hidden whole. ``value``
    itself comes back, not a copy, when nothing in it is hidden.
    """
    if pointer and pointer_is_sensitive(pointer):
        return placeholder(value)
    if isinstance(value, str):
        return _shown_string(value, _under_header(pointer))
    if isinstance(value, dict | list):
        return _redacted(value, 0, _under_header(pointer))
    return value


@lru_cache(maxsize=1024)
def _under_header(pointer: str | None) -> bool:
    """Whether the value at ``pointer`` is a header value (its member is named like a
    header, or sits in a ``headers`` object); remembered, as a run asks about the same
    few places (a result's content, its structured content) again and again."""
    if not pointer:
        return False
    tokens = pointer_tokens(pointer)
    return is_header_name(tokens[-1]) or (
        len(tokens) > 1 and tokens[-2].lower() in _HEADER_CONTAINERS
    )


def _redacted(value: Any, depth: int, header: bool = False) -> Any:
    """:func:`redacted` inside a container: copied only when something in it is hidden.
    ``header``: the container's members are header values."""
    if depth > SEARCH_DEPTH:
        return placeholder(value)
    out: Any = None
    if isinstance(value, dict):
        hide_value, header_value = _header_pair(value)
        renamed = False
        for key, item in value.items():
            if type(key) is str and _may_mask(key) and _mask(key) != key:
                renamed = True  # a member name that is a secret: hidden like a value
            if is_sensitive(key) or (hide_value and key == "value"):
                shown = placeholder(item)
            elif isinstance(item, str):
                under = header or is_header_name(key) or (header_value and key == "value")
                shown = _shown_string(item, under)
                if shown is item:
                    continue
            elif isinstance(item, dict | list):
                shown = _redacted(item, depth + 1, key.lower() in _HEADER_CONTAINERS)
                if shown is item:
                    continue
            else:
                continue
            if out is None:
                out = dict(value)
            out[key] = shown
        if renamed:
            out = {
                (_mask(k) if type(k) is str else k): v
                for k, v in (out if out is not None else value).items()
            }
    else:
        for index, item in enumerate(value):
            if isinstance(item, str):
                shown = _mask(item)
            elif isinstance(item, dict | list):
                shown = _redacted(item, depth + 1)
            else:
                continue
            if shown is not item:
                if out is None:
                    out = list(value)
                out[index] = shown
    return value if out is None else out


def find_secrets(value: Any, pointer: str = "", *, by_name: bool = True) -> list[SecretFound]:
    """Every secret in ``value`` (a JSON value, or a bare text), as kind, hash and place:
    what a report of leaked secrets writes, never the secrets themselves.

    By value (the kinds of :data:`SECRET_PATTERNS`, each with its span in the string) and,
    unless ``by_name`` is false, by name: each scalar held under a sensitive member (kind
    ``sensitive-name``) or a header pair's sensitive ``value``; a random-looking string
    under a header name is kind ``header-value``. Walked without recursion; in document
    order.

    >>> [f.describe() for f in find_secrets({"note": "use AKIAIOSFODNN7EXAMPLE"})]
    ['aws-access-key-id sha256:b55d89f2 at /note[4:24]']
    """
    found: list[SecretFound] = []
    # (value, pointer, hidden by a name, under a header name)
    stack: list[tuple[Any, str, bool, bool]] = [(value, pointer, False, _under_header(pointer))]
    while stack:
        item, where, hidden, header = stack.pop()
        if isinstance(item, dict):
            hide_value, header_value = _header_pair(item)
            stack.extend(
                (
                    member,
                    join_pointer(where, key),
                    hidden or is_sensitive(key) or (hide_value and key == "value"),
                    is_header_name(key)
                    or (header_value and key == "value")
                    or (header and not isinstance(member, dict | list))
                    or (isinstance(member, dict) and key.lower() in _HEADER_CONTAINERS),
                )
                for key, member in reversed(item.items())
            )
        elif isinstance(item, list):
            stack.extend(
                (member, join_pointer(where, index), hidden, False)
                for index, member in reversed(list(enumerate(item)))
            )
        elif hidden and by_name:
            if item is not None:
                found.append(SecretFound("sensitive-name", digest(item) or "", where))
        elif isinstance(item, str):
            if header and looks_random(item):
                found.append(SecretFound("header-value", digest(item) or "", where))
                continue
            found.extend(
                SecretFound(kind, digest(item[start:end]) or "", where, start, end)
                for kind, start, end in secret_spans(item)
            )
    return found


def secrets_in(value: Any) -> Iterator[str]:
    """The strings a report must not quote from ``value``: those :func:`redacted` would
    hide (held by a member whose name looks sensitive, or anywhere inside one), and every
    value-pattern secret inside other strings, in document order. Walked without recursion:
    arguments may nest as deep as a parser allows.

    >>> list(secrets_in({"to": "bob", "auth": {"token": "t-123456", "kind": "basic"}}))
    ['t-123456', 'basic']
    """
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        item, hidden = stack.pop()
        if isinstance(item, dict):
            hide_value = _header_pair(item)[0]
            stack.extend(
                (member, hidden or is_sensitive(key) or (hide_value and key == "value"))
                for key, member in reversed(item.items())
            )
        elif isinstance(item, list):
            stack.extend((member, hidden) for member in reversed(item))
        elif isinstance(item, str):
            if hidden:
                if len(item) >= _SHORTEST_QUOTED:
                    yield item
            else:
                for _, start, end in secret_spans(item):
                    yield item[start:end]


def redacted_text(text: str, value: Any) -> str:
    """``text`` with every string of :func:`secrets_in` ``value`` replaced by its
    placeholder, and every secret recognised by its form masked (for messages written by
    rules, which may quote the arguments).

    >>> redacted_text("token t-123456 expired", {"token": "t-123456"})
    'token <redacted sha256:e5b241a3> expired'
    """
    text = _mask(text)
    for secret in secrets_in(value):
        if secret in text:
            text = text.replace(secret, placeholder(secret))
    return text


__all__ = [
    "HEADER_SECRET_BITS",
    "HEADER_SECRET_LENGTH",
    "SEARCH_DEPTH",
    "SECRET_PATTERNS",
    "SENSITIVE_NAMES",
    "SecretFound",
    "SecretPattern",
    "digest",
    "find_secrets",
    "is_header_name",
    "is_placeholder",
    "is_sensitive",
    "looks_random",
    "masked",
    "placeholder",
    "pointer_is_sensitive",
    "redacted",
    "redacted_text",
    "secret_spans",
    "secrets_in",
]
