"""Guests, registration, login and logout."""

from __future__ import annotations

import asyncio
import re

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from throne.server.auth import clean_name, current_user, hub_of, rate_limit, set_session
from throne.server.errors import ApiError
from throne.server.sessions import COOKIE, hash_password, verify_password
from throne.store.models import User

router = APIRouter(prefix="/api/accounts")
USERNAME = re.compile(r"[A-Za-z0-9_.-]{3,32}")


class GuestIn(BaseModel):
    name: str = Field(max_length=200)


class RegisterIn(BaseModel):
    username: str = Field(max_length=200)
    password: str = Field(max_length=1000)
    name: str | None = Field(default=None, max_length=200)


class LoginIn(BaseModel):
    username: str = Field(max_length=200)
    password: str = Field(max_length=1000)


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
    rate_limit(request, "guest")
    hub = hub_of(request)
    user = await hub.db(hub.repo.create_user, name)
    set_session(request, response, user)
    return {"user": user_json(user)}


@router.post("/register", status_code=201)
async def register(body: RegisterIn, request: Request, response: Response) -> dict:
    if not USERNAME.fullmatch(body.username):
        raise ApiError(400, "bad_username", "a username is 3-32 characters of letters, digits, '_', '.', '-'")
    if not 8 <= len(body.password) <= 128:
        raise ApiError(400, "bad_password", "a password has 8 to 128 characters")
    rate_limit(request, "register")
    hub = hub_of(request)
    name = clean_name(body.name, default=body.username)
    hashed = await asyncio.to_thread(hash_password, body.password)
    user = await hub.db(hub.repo.create_user, name, body.username, hashed)
    set_session(request, response, user)
    return {"user": user_json(user)}


@router.post("/login")
async def login(body: LoginIn, request: Request, response: Response) -> dict:
    rate_limit(request, "login", f"name:{body.username.lower()}")
    hub = hub_of(request)
    user = await hub.db(hub.repo.user_by_username, body.username)
    ok = user is not None and await asyncio.to_thread(verify_password, user.password_hash, body.password)
    if user is None or not ok:
        raise ApiError(401, "bad_credentials", "unknown username or wrong password")
    set_session(request, response, user)
    return {"user": user_json(user)}


@router.post("/logout")
async def logout(response: Response) -> dict:
    response.delete_cookie(COOKIE)
    return {"ok": True}


@router.get("/me")
async def me(request: Request) -> dict:
    return {"user": user_json(await current_user(request))}
