"""API errors: a stable code, an HTTP status and a message that never contains secrets."""

from __future__ import annotations

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from throne.store.repo import StoreError


class ApiError(ValueError):
    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def error_body(code: str, message: str) -> dict:
    return {"error": {"code": code, "message": message}}


async def api_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)


async def store_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StoreError)
    return JSONResponse(error_body(exc.code, exc.message), status_code=exc.status)


async def validation_error_handler(_request: Request, exc: Exception) -> JSONResponse:
    """Names the bad fields without echoing their values (a password must never come back)."""
    assert isinstance(exc, RequestValidationError)
    parts = []
    for err in exc.errors()[:5]:
        loc = ".".join(str(x) for x in err.get("loc", ()) if x != "body") or "body"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return JSONResponse(error_body("invalid_request", "; ".join(parts) or "invalid request"), status_code=422)
