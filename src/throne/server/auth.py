"""Who is asking: the session cookie's user (creating a guest when a route needs one) and seat tokens."""

from __future__ import annotations

from fastapi import Request, Response

from throne.server.caps import Caps
from throne.server.errors import ApiError
from throne.server.lobby import Hub
from throne.server.ratelimit import RateLimiter
from throne.server.sessions import COOKIE, MAX_AGE, SessionSigner
from throne.server.validate import INT63_MAX
from throne.store.models import User

NAME_MAX = 32


def hub_of(request: Request) -> Hub:
    return request.app.state.hub


def signer_of(request: Request) -> SessionSigner:
    return request.app.state.signer


def client_ip(request: Request) -> str | None:
    return request.client.host if request.client else None


def caps_of(request: Request) -> Caps:
    return request.app.state.caps


async def rate_limit(request: Request, action: str, user: str | None = None) -> None:
    """Counts this request against `action`'s limits for its client address and `user` (429 when spent)."""
    limiter: RateLimiter = request.app.state.limiter
    await limiter.take(action, client_ip(request), user)


async def session_user(hub: Hub, signer: SessionSigner, cookie: str | None) -> User | None:
    """The user of a session cookie, unless the cookie is forged, expired or revoked (an older epoch)."""
    loaded = signer.load(cookie)
    if loaded is None or not 1 <= loaded[0] <= INT63_MAX:
        return None
    user = await hub.db(hub.repo.get_user, loaded[0])
    if user is None or user.session_epoch != loaded[1]:
        return None
    return user


async def current_user(request: Request) -> User | None:
    return await session_user(hub_of(request), signer_of(request), request.cookies.get(COOKIE))


def set_session(request: Request, response: Response, user: User, epoch: int | None = None) -> None:
    response.set_cookie(
        COOKIE,
        signer_of(request).dump(user.id, user.session_epoch if epoch is None else epoch),
        max_age=MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=request.app.state.settings.secure_cookies,
    )


#: The name of a guest who gave none; pages show it in their own language (static/js/i18n.js personName).
DEFAULT_GUEST_NAME = "Guest"


def clean_name(name: str | None, default: str = DEFAULT_GUEST_NAME) -> str:
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
    await rate_limit(request, "guest")
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
