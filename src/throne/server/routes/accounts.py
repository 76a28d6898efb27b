"""Guests, registration, login and logout."""

from __future__ import annotations

import asyncio
import re

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field, StrictBool, StrictInt

from throne.server.auth import clean_name, current_user, hub_of, rate_limit, set_session
from throne.server.errors import ApiError
from throne.server.passwords import MAX_LENGTH, password_problem
from throne.server.sessions import COOKIE, hash_password, verify_password
from throne.server.validate import ID_MAX
from throne.store.models import User
from throne.store.repo import NotFound, UsernameTaken

router = APIRouter(prefix="/api/accounts")
USERNAME = re.compile(r"[A-Za-z0-9_.-]{3,32}")
# Never registrable, so that "unavailable" does not prove that somebody owns a name.
RESERVED = frozenset(
    [
        "admin",
        "administrator",
        "root",
        "system",
        "throne",
        "moderator",
        "mod",
        "support",
        "staff",
        "guest",
        "bot",
        "bots",
        "easy",
        "medium",
        "hard",
        "random",
        "anonymous",
        "null",
        "none",
        "undefined",
        "server",
        "api",
        "www",
    ]
)
UNAVAILABLE = "this username cannot be registered; choose another"


class GuestIn(BaseModel):
    name: str


# Passwords have no length bound here: `password_problem` refuses a new one outside 8-128 characters
# (`bad_password`), and a longer current one is wrong without hashing it (`bad_credentials`).
class RegisterIn(BaseModel):
    username: str
    password: str
    name: str | None = None


class PasswordIn(BaseModel):
    password: str
    new_password: str


class MuteIn(BaseModel):
    user_id: StrictInt = Field(ge=1, le=ID_MAX)
    muted: StrictBool


class LoginIn(BaseModel):
    username: str = Field(max_length=200)  # bounds the rate limiter's key; no username is that long
    password: str


def user_json(user: User | None) -> dict | None:
    if user is None:
        return None
    return {
        "id": user.id,
        "name": user.name,
        "username": user.username,
        "registered": user.username is not None,
    }


@router.post("/guest")
async def guest(body: GuestIn, request: Request, response: Response) -> dict:
    name = clean_name(body.name)
    await rate_limit(request, "guest")
    hub = hub_of(request)
    user = await hub.db(hub.repo.create_user, name)
    set_session(request, response, user)
    return {"user": user_json(user)}


@router.post("/register", status_code=201)
async def register(body: RegisterIn, request: Request, response: Response) -> dict:
    if not USERNAME.fullmatch(body.username):
        raise ApiError(400, "bad_username", "a username is 3-32 characters of letters, digits, '_', '.', '-'")
    problem = password_problem(body.password, body.username)
    if problem is not None:
        raise ApiError(400, "bad_password", problem)
    await rate_limit(request, "register")
    hub = hub_of(request)
    name = clean_name(body.name, default=body.username)
    hashed = await asyncio.to_thread(hash_password, body.password)  # before the name check: same cost
    guest = await current_user(request)
    try:
        if body.username.lower() in RESERVED:
            raise UsernameTaken(body.username)
        user = await hub.db(hub.repo.create_user, name, body.username, hashed)
    except UsernameTaken:
        raise ApiError(400, "username_unavailable", UNAVAILABLE) from None
    if guest is not None and guest.username is None:  # a guest signing up keeps its games and tables
        await hub.db(hub.repo.adopt_guest, guest.id, user.id)
        hub.adopted(guest.id, user.id)
    set_session(request, response, user)
    return {"user": user_json(user)}


async def _verified(password_hash: str | None, password: str) -> bool:
    """The password matches the hash (None: the dummy hash, never a match); one longer than any password can
    be is wrong without hashing it."""
    if len(password) > MAX_LENGTH:
        return False
    return await asyncio.to_thread(verify_password, password_hash, password)


@router.post("/login")
async def login(body: LoginIn, request: Request, response: Response) -> dict:
    await rate_limit(request, "login", f"name:{body.username.lower()}")
    hub = hub_of(request)
    user = await hub.db(hub.repo.user_by_username, body.username)
    # One argon2 verify either way (a dummy one without an account): the answer time tells nothing.
    ok = await _verified(user.password_hash if user else None, body.password)
    if user is None or not ok:
        raise ApiError(401, "bad_credentials", "unknown username or wrong password")
    set_session(request, response, user)
    return {"user": user_json(user)}


@router.post("/password")
async def change_password(body: PasswordIn, request: Request, response: Response) -> dict:
    """A new password for the session's account; every other session of the account ends."""
    user = await current_user(request)
    if user is None or user.username is None:
        raise ApiError(401, "login_needed", "log in with a registered account to change its password")
    await rate_limit(request, "password", f"uid:{user.id}")
    if not await _verified(user.password_hash, body.password):
        raise ApiError(401, "bad_credentials", "the current password is wrong")
    problem = password_problem(body.new_password, user.username)
    if problem is not None:
        raise ApiError(400, "bad_password", problem)
    hub = hub_of(request)
    hashed = await asyncio.to_thread(hash_password, body.new_password)
    epoch = await hub.db(hub.repo.set_password_hash, user.id, hashed)
    hub.end_sessions(user.id)
    set_session(request, response, user, epoch)
    return {"user": user_json(user)}


@router.post("/logout")
async def logout(request: Request, response: Response) -> dict:
    """Ends the session on the server too: every cookie of this account stops working (all devices)."""
    user = await current_user(request)
    if user is not None:
        hub = hub_of(request)
        await hub.db(hub.repo.revoke_sessions, user.id)
        hub.end_sessions(user.id)
    response.delete_cookie(COOKIE)
    return {"ok": True}


@router.get("/me")
async def me(request: Request) -> dict:
    return {"user": user_json(await current_user(request))}


async def _chat_user(request: Request) -> User:
    user = await current_user(request)
    if user is None:
        raise ApiError(401, "login_needed", "chat mutes belong to a guest or registered account")
    return user


@router.get("/mutes")
async def chat_mutes(request: Request) -> dict:
    """The users whose table chat the session's user muted (on every table and device)."""
    user = await _chat_user(request)
    hub = hub_of(request)
    return {"user_id": user.id, "muted": await hub.db(hub.repo.chat_mutes, user.id)}


@router.post("/mutes")
async def set_chat_mute(body: MuteIn, request: Request) -> dict:
    """Mutes (`muted: true`) or unmutes another user's table chat for the session's user."""
    user = await _chat_user(request)
    if body.user_id == user.id:
        raise ApiError(400, "bad_mute", "you cannot mute yourself")
    await rate_limit(request, "mute", f"uid:{user.id}")
    hub = hub_of(request)
    try:
        muted = await hub.db(hub.repo.set_chat_mute, user.id, body.user_id, body.muted)
    except NotFound:
        raise ApiError(404, "unknown_user", f"no user {body.user_id}") from None
    return {"user_id": user.id, "muted": muted}
