"""The credential checks of an HTTP server said to require them (``--requires-auth``).

MCP authorization asks more of a server than a 401: the refusal must lead a client to a
token. So, in order:

1. an ``initialize`` POST without the credential headers is refused with **401**;
2. the refusal carries ``WWW-Authenticate: Bearer`` with ``resource_metadata`` (RFC 9728
   §5.1; the well-known URL of the server's origin is tried when it does not);
3. that **protected-resource metadata** document names this resource and at least one
   authorization server (RFC 9728 §2-3);
4. each authorization server's **metadata** (RFC 8414, else OpenID discovery) names its
   issuer and endpoints;
5. a token issued for **another audience**, when the user supplies one, is refused.

Documents are fetched only from the server's own origin (scheme, host and port): a URL
elsewhere is reported, never followed. Redirects are never followed either.
"""

from __future__ import annotations

from time import perf_counter
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import urlsplit

from jsoncontract import codes
from jsoncontract.live.probe.model import ProtocolCheck
from jsoncontract.model import Finding, Severity, Source

if TYPE_CHECKING:
    import httpx2

    from jsoncontract.live.server import ServerSpec
    from jsoncontract.live.wire import ConnectOptions

_PRM: Final = "/.well-known/oauth-protected-resource"
_AS_PATHS: Final = ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration")
_AS_KEYS: Final = ("issuer", "authorization_endpoint", "token_endpoint")
_HEADERS: Final = {
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
}


def origin(url: str) -> tuple[str, str, int | None]:
    """``(scheme, host, port)`` with the default port filled in."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        port = {"http": 80, "https": 443}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), port


def resource_metadata(header: str) -> str | None:
    """The ``resource_metadata`` URL of a ``WWW-Authenticate`` header, if any."""
    import re

    found = re.search(r'resource_metadata\s*=\s*"([^"]*)"', header) or re.search(
        r"resource_metadata\s*=\s*([^\s,]+)", header
    )
    return found.group(1) if found else None


async def auth_checks(
    spec: ServerSpec, options: ConnectOptions, label: str, foreign_token: str | None = None
) -> list[ProtocolCheck]:
    """Every credential check, in order (a later one is left out when an earlier one fails
    in a way that leaves nothing to check)."""
    import httpx2

    assert spec.url is not None
    checks: list[ProtocolCheck] = []
    async with httpx2.AsyncClient(timeout=options.timeout, follow_redirects=False) as client:
        start = perf_counter()
        try:
            response = await client.post(spec.url, json=_initialize(), headers=_HEADERS)
        except httpx2.HTTPError as exc:
            checks.append(
                ProtocolCheck(
                    "authentication", False, f"the request failed: {exc}", perf_counter() - start
                )
            )
            return checks
        checks.append(_refusal(response.status_code, perf_counter() - start, label))
        if response.status_code == 401:
            checks.extend(await _discovery(client, spec.url, response, label))
        if foreign_token is not None:
            checks.append(await _audience(client, spec.url, foreign_token, label))
    return checks


def _initialize() -> dict[str, Any]:
    from jsoncontract._version import __version__

    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "jsoncontract", "version": __version__},
        },
    }


def _refusal(status: int, seconds: float, label: str) -> ProtocolCheck:
    if status == 401:
        return ProtocolCheck("authentication", True, "a request without credentials: 401", seconds)
    severity = Severity.WARNING if status == 403 else Severity.ERROR
    return ProtocolCheck(
        "authentication",
        False,
        f"a request without credentials: HTTP {status}",
        seconds,
        [
            Finding(
                codes.PROBE_AUTH_NOT_ENFORCED,
                severity,
                f"initialize without the credential headers was answered with HTTP {status}; a "
                "server that requires credentials answers 401"
                + (" (403 means authenticated but forbidden)" if status == 403 else ""),
                source=Source(label),
                hint="refuse unauthenticated requests with 401 and a WWW-Authenticate header "
                "(MCP authorization, RFC 9110)",
            )
        ],
    )


def _problem(label: str, message: str, hint: str) -> Finding:
    return Finding(
        codes.PROBE_AUTH_DISCOVERY, Severity.WARNING, message, source=Source(label), hint=hint
    )


async def _get_json(client: httpx2.AsyncClient, url: str) -> tuple[Any, str | None]:
    """The JSON document at ``url``, or ``(None, why not)``."""
    import httpx2
    import orjson

    try:
        response = await client.get(url, headers={"accept": "application/json"})
    except httpx2.HTTPError as exc:
        return None, f"the request failed: {exc}"
    if response.status_code != 200:
        return None, f"HTTP {response.status_code}"
    try:
        return orjson.loads(response.content), None
    except orjson.JSONDecodeError:
        return None, "not JSON"


async def _discovery(
    client: httpx2.AsyncClient, url: str, response: httpx2.Response, label: str
) -> list[ProtocolCheck]:
    """``WWW-Authenticate``, the protected-resource metadata, the authorization servers'."""
    from jsoncontract.live.server import safe_url

    checks: list[ProtocolCheck] = []
    header = response.headers.get("www-authenticate", "")
    home = origin(url)
    start = perf_counter()
    pointed = resource_metadata(header) if header else None
    if not header.lower().startswith("bearer"):
        found = f"WWW-Authenticate: {header.split(' ')[0]}" if header else "no WWW-Authenticate"
        checks.append(
            ProtocolCheck(
                "WWW-Authenticate",
                False,
                found,
                findings=[
                    _problem(
                        label,
                        f"the 401 carries {found}; MCP authorization asks for "
                        'WWW-Authenticate: Bearer resource_metadata="<metadata URL>"',
                        "send the header with the URL of the protected-resource metadata "
                        "(RFC 9728 section 5.1)",
                    )
                ],
            )
        )
    elif pointed is None:
        checks.append(
            ProtocolCheck(
                "WWW-Authenticate",
                False,
                "Bearer, without resource_metadata",
                findings=[
                    _problem(
                        label,
                        "the 401's WWW-Authenticate has no resource_metadata; clients fall back "
                        "to the well-known URL",
                        'add resource_metadata="<metadata URL>" (RFC 9728 section 5.1)',
                    )
                ],
            )
        )
    else:
        checks.append(
            ProtocolCheck(
                "WWW-Authenticate", True, f"Bearer, resource_metadata {safe_url(pointed)}"
            )
        )
    parts = urlsplit(url)
    metadata_url = pointed or f"{parts.scheme}://{parts.netloc}{_PRM}{parts.path.rstrip('/')}"
    if origin(metadata_url) != home:
        checks.append(
            ProtocolCheck(
                "resource metadata",
                False,
                f"not fetched: {safe_url(metadata_url)} is on another origin",
                findings=[
                    _problem(
                        label,
                        f"resource_metadata points to another origin ({safe_url(metadata_url)}); "
                        "the probe fetches only from the server's own",
                        "serve the protected-resource metadata from the server's origin",
                    )
                ],
            )
        )
        return checks
    document, failed = await _get_json(client, metadata_url)
    seconds = perf_counter() - start
    servers = document.get("authorization_servers") if isinstance(document, dict) else None
    problems = []
    if failed is not None or not isinstance(document, dict):
        problems.append(f"{safe_url(metadata_url)}: {failed or 'not a JSON object'}")
    else:
        resource = document.get("resource")
        if not isinstance(resource, str):
            problems.append("it names no resource")
        elif resource.rstrip("/") != url.rstrip("/") and origin(resource) != home:
            problems.append(f"its resource {safe_url(resource)} is not this server")
        if not (isinstance(servers, list) and servers and all(isinstance(s, str) for s in servers)):
            problems.append("it lists no authorization_servers")
    if problems:
        checks.append(
            ProtocolCheck(
                "resource metadata",
                False,
                "; ".join(problems),
                seconds,
                [
                    _problem(
                        label,
                        "the protected-resource metadata (RFC 9728): " + "; ".join(problems),
                        'serve {"resource": <this URL>, "authorization_servers": [...]} at '
                        "the resource_metadata URL",
                    )
                ],
            )
        )
        return checks
    assert isinstance(servers, list)
    checks.append(
        ProtocolCheck(
            "resource metadata",
            True,
            f"{len(servers)} authorization server(s)",
            seconds,
        )
    )
    checks.extend([await _issuer(client, issuer, home, label) for issuer in servers[:3]])
    return checks


async def _issuer(
    client: httpx2.AsyncClient, issuer: str, home: tuple[str, str, int | None], label: str
) -> ProtocolCheck:
    """The authorization server's metadata, fetched only from the server's own origin."""
    from jsoncontract.live.server import safe_url

    shown = safe_url(issuer)
    if origin(issuer) != home:
        return ProtocolCheck("authorization server", None, f"{shown}: not fetched (another origin)")
    start = perf_counter()
    parts = urlsplit(issuer)
    failed: str | None = None
    for path in _AS_PATHS:
        url = f"{parts.scheme}://{parts.netloc}{path}{parts.path.rstrip('/')}"
        document, failed = await _get_json(client, url)
        if isinstance(document, dict):
            missing = [
                k
                for k in ("issuer", "authorization_endpoint", "token_endpoint")
                if k not in document
            ]
            if not missing:
                return ProtocolCheck(
                    "authorization server", True, f"{shown}: metadata found", perf_counter() - start
                )
            failed = f"its metadata lacks {', '.join(missing)}"
            break
    detail = f"{shown}: {failed}"
    return ProtocolCheck(
        "authorization server",
        False,
        detail,
        perf_counter() - start,
        [
            _problem(
                label,
                f"the authorization server's metadata (RFC 8414): {detail}",
                "serve its metadata at /.well-known/oauth-authorization-server (RFC 8414) "
                "with issuer, authorization_endpoint and token_endpoint",
            )
        ],
    )


async def _audience(client: httpx2.AsyncClient, url: str, token: str, label: str) -> ProtocolCheck:
    """A token issued for another resource must be refused."""
    import httpx2

    start = perf_counter()
    headers = {**_HEADERS, "authorization": f"Bearer {token}"}
    try:
        response = await client.post(url, json=_initialize(), headers=headers)
    except httpx2.HTTPError as exc:
        return ProtocolCheck("token audience", False, f"the request failed: {exc}")
    seconds = perf_counter() - start
    status = response.status_code
    if status in (401, 403):
        return ProtocolCheck(
            "token audience", True, f"a token for another audience: {status}", seconds
        )
    return ProtocolCheck(
        "token audience",
        False,
        f"a token for another audience: HTTP {status}",
        seconds,
        [
            Finding(
                codes.PROBE_AUTH_AUDIENCE,
                Severity.ERROR,
                f"initialize with a token issued for another resource was answered with HTTP "
                f"{status}: the server does not check the token's audience",
                source=Source(label),
                hint="accept only tokens whose audience (aud, or the resource indicator) is "
                "this server, and answer others with 401",
            )
        ],
    )
