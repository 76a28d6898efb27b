"""API errors: a stable code, an HTTP status and a message that never contains secrets."""

from __future__ import annotations

import logging

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from throne.server.headers import security_headers
from throne.store.repo import StoreError, StoreUnavailable

log = logging.getLogger(__name__)


class ApiError(ValueError):
    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers


def error_body(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


async def api_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status, headers=exc.headers)


_HTTP_CODES = {400: "bad_request", 404: "not_found", 405: "method_not_allowed"}


async def http_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    """Framework errors (unknown path, wrong method, unparsable body) in the same JSON shape as the rest."""
    assert isinstance(exc, StarletteHTTPException)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    message = str(exc.detail)
    if exc.status_code == 400 and "parsing the body" in message:
        code, message = "bad_json", "the body is not valid JSON (or a number in it is too long)"
    return JSONResponse(error_body(code, message), status_code=exc.status_code, headers=exc.headers)


async def store_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StoreError)
    headers = {"Retry-After": "2"} if isinstance(exc, StoreUnavailable) else None
    return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status, headers=headers)


async def database_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    """A database failure that reached a route directly: 503, the request may be retried."""
    log.warning("store: a request failed: %s", exc)
    return JSONResponse(
        error_body("store_unavailable", "the game store is unavailable; try again shortly"),
        status_code=503,
        headers={"Retry-After": "2"},
    )


async def unexpected_error_handler(request: Request, exc: Exception) -> JSONResponse:
    """Any other failure: a JSON 500 like every other error (the details stay in the server log), with the
    security headers every response carries."""
    headers = security_headers(request.url.path, request.headers.get("host", ""))
    return JSONResponse(error_body("server_error", "the server failed to answer this request"), 500, headers)


async def validation_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    """Names the bad fields without echoing their values (a password must never come back)."""
    assert isinstance(exc, RequestValidationError)
    if any(err.get("type") == "json_invalid" for err in exc.errors()):
        return JSONResponse(error_body("bad_json", "the body is not valid JSON"), status_code=400)
    parts = []
    for err in exc.errors()[:5]:
        where = [x for x in err.get("loc", ()) if x != "body"]
        # the field's name (after its source: query, path...), not what follows it: a mapping's keys are sent
        depth = 2 if where and where[0] in ("query", "path", "header", "cookie") else 1
        loc = ".".join(str(x) for x in where[:depth]) or "body"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return JSONResponse(error_body("invalid_request", "; ".join(parts) or "invalid request"), status_code=422)
