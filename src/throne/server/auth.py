"""Who is asking: the session cookie's user (creating a guest when a route needs one) and seat tokens."""

from __future__ import annotations

from fastapi import Request, Response

from throne.server.errors import ApiError
from throne.server.lobby import Hub
from throne.server.ratelimit import RateLimiter
from throne.server.sessions import COOKIE, MAX_AGE, SessionSigner
from throne.store.models import User

NAME_MAX = 32


def hub_of(request: Request) -> Hub:
    return request.app.state.hub


def signer_of(request: Request) -> SessionSigner:
    return request.app.state.signer


def rate_limit(request: Request, action: str, user: str | None = None) -> None:
    """Counts this request against `action`'s limits for its client address and `user` (429 when spent)."""
    limiter: RateLimiter = request.app.state.limiter
    limiter.hit(action, request.client.host if request.client else None, user)


async def current_user(request: Request) -> User | None:
    uid = signer_of(request).load(request.cookies.get(COOKIE))
    if uid is None:
        return None
    hub = hub_of(request)
    return await hub.db(hub.repo.get_user, uid)


def set_session(request: Request, response: Response, user: User) -> None:
    response.set_cookie(
        COOKIE,
        signer_of(request).dump(user.id),
        max_age=MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=request.app.state.settings.secure_cookies,
    )


def clean_name(name: str | None, default: str = "Guest") -> str:
    name = " ".join((name or "").split())
    if not name:
        return default
    if len(name) > NAME_MAX:
        raise ApiError(400, "bad_name", f"a name has at most {NAME_MAX} characters")
    if any(not ch.isprintable() for ch in name):
        raise ApiError(400, "bad_name", "a name may not contain control characters")
    return name


async def user_or_guest(request: Request, response: Response, name: str | None) -> User:
    """The session's user, or a new guest (named `name`) whose session cookie is set on `response`."""
    user = await current_user(request)
    if user is not None:
        return user
    name = clean_name(name)
    rate_limit(request, "guest")
    hub = hub_of(request)
    user = await hub.db(hub.repo.create_user, name)
    set_session(request, response, user)
    return user


def seat_token(request: Request) -> str:
    token = request.headers.get("x-seat-token")
    if not token:
        raise ApiError(403, "bad_token", "this action needs the seat token (header X-Seat-Token)")
    if len(token) > 128:
        raise ApiError(403, "bad_token", "the seat token is not valid for this game")
    return token
