"""Security headers on every HTTP response: a strict Content-Security-Policy, no framing, no sniffing, and no
Referer leaving the site (invite links carry their secret in the query string)."""

from __future__ import annotations

from typing import Any

Scope = dict[str, Any]

# Pages load only this site's scripts, styles and sockets: no inline script or style exists in a template.
PAGE_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; "
    "connect-src {connect}; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
# The interactive API docs (Swagger UI) need their CDN assets and one inline bootstrap script.
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "img-src 'self' data: https://fastapi.tiangolo.com; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)
FIXED = (
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
)


def csp_for(path: str, host: str) -> str:
    if path == "/api/docs" or path.startswith("/api/docs/"):
        return DOCS_CSP
    connect = "'self'"
    if host and all(c.isalnum() or c in ".-:[]" for c in host):  # sockets back to this very host
        connect += f" ws://{host} wss://{host}"
    return PAGE_CSP.format(connect=connect)


def security_headers(path: str, host: str) -> dict[str, str]:
    """What `SecurityHeaders` adds, for a response made outside it: Starlette's 500, made by its outermost
    middleware."""
    return {"content-security-policy": csp_for(path, host), **{k.decode(): v.decode() for k, v in FIXED}}


class SecurityHeaders:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = next((v.decode("latin-1") for k, v in scope.get("headers", ()) if k == b"host"), "")
        csp = csp_for(scope.get("path", ""), host).encode("latin-1")

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", ()))
                present = {k.lower() for k, _ in headers}
                for name, value in ((b"content-security-policy", csp), *FIXED):
                    if name not in present:
                        headers.append((name, value))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)
