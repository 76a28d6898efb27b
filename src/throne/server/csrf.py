"""Cross-site request forgery guard for every state-changing HTTP request (POST, PUT, PATCH, DELETE).

Two independent checks, either of which stops a cross-site form or script:
- the browser's own provenance headers: an `Origin` other than this site (or `null`), or
  `Sec-Fetch-Site: cross-site`/`same-site`, is refused;
- a request that carries the session cookie must declare `Content-Type: application/json` (or carry an
  `X-Seat-Token`), which a cross-site form cannot send and a cross-site script can send only after a CORS
  preflight this server never grants.
Clients without a session cookie (seat tokens, scripts) are unaffected by the second check.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from throne.server.errors import error_body
from throne.server.sessions import COOKIE

Scope = dict[str, Any]
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_COOKIE_NAME = COOKIE + "="


def _header(headers: Iterable[tuple[bytes, bytes]], name: bytes) -> str | None:
    for key, value in headers:
        if key == name:
            return value.decode("latin-1")
    return None


def origins(listed: Iterable[str]) -> frozenset[str]:
    """Allowed origins (scheme://host[:port]) as `from_this_site` compares them."""
    return frozenset(o.rstrip("/").lower() for o in listed)


def from_this_site(origin: str, host: str, allowed_origins: frozenset[str]) -> bool:
    """An `Origin` header names this site: the request's own `Host`, or one of the allowed origins (the
    public address when a proxy rewrites Host). HTTP requests and game sockets ask the same."""
    if origin == "null":
        return False
    try:
        parts = urlsplit(origin.lower())
    except ValueError:  # not a URL ("http://[", an unclosed IPv6 address): no site's
        return False
    return parts.netloc == host.lower() or f"{parts.scheme}://{parts.netloc}" in allowed_origins


def refusal(scope: Scope, allowed_origins: frozenset[str]) -> str | None:
    """Why this request is refused as cross-site, or None when it may go on."""
    if scope.get("method", "GET") in SAFE_METHODS:
        return None
    headers = scope.get("headers", ())
    origin = _header(headers, b"origin")
    if origin is not None:
        if not from_this_site(origin, _header(headers, b"host") or "", allowed_origins):
            return "this request comes from another site"
    elif (_header(headers, b"sec-fetch-site") or "").lower() in ("cross-site", "same-site"):
        return "this request comes from another site"
    cookies = (_header(headers, b"cookie") or "").split(";")
    seat_token = _header(headers, b"x-seat-token") is not None  # a custom header: no form can send it
    if not seat_token and any(c.strip().startswith(_COOKIE_NAME) for c in cookies):
        media = (_header(headers, b"content-type") or "").split(";")[0].strip().lower()
        if media != "application/json":
            return "a request made with the session cookie must have Content-Type: application/json"
    return None


class CsrfGuard:
    def __init__(self, app: Any, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed_origins = origins(allowed_origins)

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            reason = refusal(scope, self.allowed_origins)
            if reason is not None:
                body = json.dumps(error_body("cross_site", reason)).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": 403,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
